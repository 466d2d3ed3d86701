//! Watchman, through its command-line client: the project, the token, the query.

use super::*;

pub(super) fn ask_watchman(
    program: &OsStr,
    workdir: &Path,
    since: Option<&str>,
    timeout: Duration,
) -> Result<Changes, WatchError> {
    let deadline = Instant::now() + timeout;
    let dir = workdir
        .to_str()
        .ok_or_else(|| WatchError::NotUtf8(shown(workdir.as_os_str().as_bytes())))?;
    // Let Watchman give up on its own before we stop it.
    let wait = u64::try_from((timeout * 4 / 5).as_millis()).unwrap_or(u64::MAX);
    let since = since.map(Token::parse);
    // A token that names the project root it was taken in: one command.
    // If Watchman no longer watches there, the full way below.
    if let Some(Token {
        clock,
        project: Some(project),
    }) = &since
        && clock.starts_with("c:")
        && project.is(workdir)
    {
        match query_since(program, project, clock, wait, deadline, timeout) {
            Err(WatchError::Watchman(_) | WatchError::Failed { .. }) => {}
            other => return other,
        }
    }
    let watch = watchman(program, &json!(["watch-project", dir]), deadline, timeout)?;
    let root = watch
        .get("watch")
        .and_then(Value::as_str)
        .ok_or_else(|| malformed("watch-project named no root"))?;
    let relative = match watch.get("relative_path") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.is_empty() => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(_) => return Err(malformed("watch-project's relative_path is not a string")),
    };
    let project = Project {
        root: root.to_owned(),
        relative: relative.map(str::to_owned),
    };
    // Watchman would take a number for a time_t and "n:…" for a named
    // cursor; only a clock ("c:…") it gave us is a token here.
    let Some(Token { clock, .. }) = since.filter(|t| t.clock.starts_with("c:")) else {
        let clock = watchman(
            program,
            &json!(["clock", root, {"sync_timeout": wait}]),
            deadline,
            timeout,
        )?;
        let clock = clock
            .get("clock")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed("clock named no clock"))?;
        return Ok(Changes::everything(Some(project.token(clock))));
    };
    query_since(program, &project, &clock, wait, deadline, timeout)
}

/// A malformed answer of Watchman's.
pub(super) fn malformed(why: &str) -> WatchError {
    WatchError::Malformed {
        what: "watchman".to_owned(),
        why: why.to_owned(),
    }
}

/// Where Watchman watches the worktree: the project root it chose, and the
/// worktree's path below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Project {
    /// The project root Watchman chose.
    pub(super) root: String,
    /// The worktree's path below it.
    pub(super) relative: Option<String>,
}

impl Project {
    /// Whether it is the worktree `workdir`.
    pub(super) fn is(&self, workdir: &Path) -> bool {
        let here = Path::new(&self.root).join(self.relative.as_deref().unwrap_or(""));
        here == workdir || std::fs::canonicalize(workdir).is_ok_and(|real| here == real)
    }

    /// The token to store: the clock, and this project when its names fit
    /// on the token's line (a tab separates them).
    pub(super) fn token(&self, clock: &str) -> String {
        let relative = self.relative.as_deref().unwrap_or("");
        let plain = |s: &str| !s.contains(['\t', '\n', '\0']);
        if plain(clock) && plain(&self.root) && plain(relative) {
            format!("{clock}\t{}\t{relative}", self.root)
        } else {
            clock.to_owned()
        }
    }
}

/// A token of ours for Watchman: a clock, and the project it was taken in
/// (older tokens, and those whose paths did not fit, are a clock alone).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Token {
    /// Watchman's clock.
    pub(super) clock: String,
    /// The project Watchman chose, when the token names one.
    pub(super) project: Option<Project>,
}

impl Token {
    pub(super) fn parse(token: &str) -> Token {
        let mut parts = token.split('\t');
        let clock = parts.next().unwrap_or_default().to_owned();
        let project = match (parts.next(), parts.next(), parts.next()) {
            (Some(root), Some(relative), None) if Path::new(root).is_absolute() => Some(Project {
                root: root.to_owned(),
                relative: Some(relative.to_owned()).filter(|r| !r.is_empty()),
            }),
            _ => None,
        };
        Token { clock, project }
    }
}

/// What changed in `project` since Watchman's `clock`.
pub(super) fn query_since(
    program: &OsStr,
    project: &Project,
    clock: &str,
    wait: u64,
    deadline: Instant,
    timeout: Duration,
) -> Result<Changes, WatchError> {
    let request = query(&project.root, project.relative.as_deref(), clock, wait);
    let answer = watchman(program, &request, deadline, timeout)?;
    let token = answer
        .get("clock")
        .and_then(Value::as_str)
        .ok_or_else(|| malformed("the query named no clock"))?;
    let token = project.token(token);
    if answer.get("is_fresh_instance").and_then(Value::as_bool) != Some(false) {
        return Ok(Changes::everything(Some(token)));
    }
    let files = answer
        .get("files")
        .and_then(Value::as_array)
        .ok_or_else(|| malformed("the query listed no files"))?;
    let mut names = Vec::with_capacity(files.len());
    for file in files {
        names.push(
            file.as_str()
                .ok_or_else(|| malformed("a file name is not a string"))?
                .as_bytes(),
        );
    }
    Ok(Changes {
        token: Some(token),
        paths: relative_paths(names.into_iter()),
        subtrees: false,
    })
}

/// The query: names changed since `since`, relative to the worktree
/// (`relative_root`, when the project root Watchman chose is above it),
/// the worktree's `.git` left out, nothing listed for a fresh instance.
pub(super) fn query(root: &str, relative: Option<&str>, since: &str, wait: u64) -> Value {
    let mut spec = json!({
        "since": since,
        "fields": ["name"],
        // The worktree's own `.git` and all below it (`dirname` and `name`
        // match names relative to `relative_root`).
        "expression": ["not", ["anyof", ["dirname", ".git"], ["name", ".git", "wholename"]]],
        "empty_on_fresh_instance": true,
        "sync_timeout": wait,
        "lock_timeout": wait,
    });
    if let (Some(relative), Some(spec)) = (relative, spec.as_object_mut()) {
        spec.insert("relative_root".to_owned(), Value::from(relative));
    }
    json!(["query", root, spec])
}

/// Send `request` to `watchman -j --no-pretty`; its answer, a JSON object
/// without an `error`.
pub(super) fn watchman(
    program: &OsStr,
    request: &Value,
    deadline: Instant,
    timeout: Duration,
) -> Result<Value, WatchError> {
    let what = "watchman";
    let input = serde_json::to_vec(request).map_err(|e| WatchError::Malformed {
        what: what.to_owned(),
        why: format!("could not encode the request: {e}"),
    })?;
    let mut command = Command::new(program);
    command.args(["-j", "--no-pretty"]);
    let answer = match run(&mut command, Some(&input), deadline, timeout, what) {
        Err(WatchError::Spawn { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            return Err(WatchError::WatchmanMissing);
        }
        other => other?,
    };
    let value: Option<Value> = serde_json::from_slice(&answer.stdout).ok();
    if let Some(error) = value.as_ref().and_then(|v| v.get("error")) {
        let text = error.as_str().map_or_else(|| error.to_string(), str::to_owned);
        return Err(WatchError::Watchman(shown(text.as_bytes())));
    }
    if !answer.status.success() {
        return Err(WatchError::Failed {
            what: what.to_owned(),
            status: status_text(answer.status),
            stderr: answer.stderr,
        });
    }
    match value {
        Some(v @ Value::Object(_)) => Ok(v),
        _ => Err(WatchError::Malformed {
            what: what.to_owned(),
            why: "not a JSON object".to_owned(),
        }),
    }
}
