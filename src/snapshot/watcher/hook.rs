//! git's fsmonitor hook, protocol version 2: running it and reading its answer.

use super::*;

pub(super) fn ask_hook(
    hook: &Path,
    workdir: &Path,
    since: Option<&str>,
    timeout: Duration,
) -> Result<Changes, WatchError> {
    let what = format!("the fsmonitor hook '{}'", shown(hook.as_os_str().as_bytes()));
    let mut command = hook_command(hook, workdir, since.unwrap_or(""));
    let answer = run(&mut command, None, Instant::now() + timeout, timeout, &what)?;
    if !answer.status.success() {
        return Err(WatchError::Failed {
            what,
            status: status_text(answer.status),
            stderr: answer.stderr,
        });
    }
    let changes = parse_hook_answer(&answer.stdout).map_err(|why| WatchError::Malformed { what, why })?;
    Ok(match since {
        Some(_) => changes,
        // First use: only the token counts.
        None => Changes::everything(changes.token),
    })
}

/// `<hook> 2 <token>` in `workdir`, as git's `query_fsmonitor_hook` runs it
/// (`use_shell`, `dir` = the worktree).
pub(super) fn hook_command(hook: &Path, workdir: &Path, token: &str) -> Command {
    let raw = hook.as_os_str().as_bytes();
    let mut command = if raw.iter().any(|b| SHELL_META.contains(b)) {
        // The configured value is a shell snippet (the user's own config);
        // the arguments reach it as "$@", never as script text.
        let mut script = hook.as_os_str().to_owned();
        script.push(" \"$@\"");
        let mut c = Command::new("/bin/sh");
        c.arg("-c").arg(script).arg(hook);
        c
    } else if hook.is_relative() && raw.contains(&b'/') {
        Command::new(workdir.join(hook))
    } else {
        // A bare name is looked up on PATH, as git does.
        Command::new(hook)
    };
    command.arg("2").arg(token).current_dir(workdir);
    command
}

/// `<token>\0<path>\0<path>…`: the token is everything up to the first NUL
/// (git reads it the same way; no NUL at all is a token and no changes).
pub(super) fn parse_hook_answer(out: &[u8]) -> Result<Changes, String> {
    let (token, rest) = out.split_once_str(b"\0").unwrap_or((out, &[]));
    if token.is_empty() {
        return Err("no token before the first NUL".to_owned());
    }
    let token = std::str::from_utf8(token)
        .map_err(|_| "the token is not valid UTF-8".to_owned())?
        .to_owned();
    let mut entries = rest.split_str(b"\0").filter(|e| !e.is_empty()).peekable();
    // "/" first: the hook knows nothing (git checks only the first byte).
    if entries.peek().is_some_and(|e| e.starts_with(b"/")) {
        return Ok(Changes::everything(Some(token)));
    }
    Ok(Changes {
        token: Some(token),
        paths: relative_paths(entries),
        subtrees: true,
    })
}
