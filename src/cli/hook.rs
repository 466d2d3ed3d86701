//! `git t3 hook <agent>`: the payload read from stdin with a deadline, and
//! the detached copy of a hook the agent would kill.

use std::path::Path;
use std::time::Duration;

use super::Environment;
use crate::commands;
use crate::error::Error;
use crate::repo::lock::HOOK_TIMEOUT;

/// A hook never breaks the agent: every failure becomes a message.
pub(super) fn hook(a: crate::cli::HookArgs, base: &Path, env: &Environment) -> commands::hook::HookReport {
    let source_name = format!("the {} hook payload", a.agent);
    let (then, payload) = a.split();
    let payload = match payload {
        Some(p) => Ok(p.into_bytes()),
        None => read_stdin(crate::fault::wait("HOOK_STDIN", HOOK_STDIN_WAIT))
            .map_err(|problem| Error::BadInput { source_name, problem }),
    };
    if then.is_none()
        && let Ok(p) = &payload
        && let Some(report) = detach_unwaited(&a.agent, p, base)
    {
        return report;
    }
    commands::hook::run(
        commands::hook::Input {
            agent: &a.agent,
            payload,
            default_dir: base,
            env: &env.hook,
            then: then.as_deref(),
        },
        &env.settings(HOOK_TIMEOUT),
    )
}

/// Set in the environment of a hook [`detach_unwaited`] started.
pub(super) const DETACHED_ENV: &str = "GIT_T3_HOOK_DETACHED";

/// How long a hook waits for the copy it detached (within the hook's own
/// time limit in the agent's settings).
pub(super) const DETACHED_WAIT: Duration = Duration::from_secs(50);

/// Claude Code does not wait for its `StopFailure` and `SessionEnd` hooks:
/// it kills them as it exits (seen with 2.1 in `-p` mode). For those the
/// capture runs in a copy of this program in a session of its own, fed the
/// payload; this hook waits for it (so an agent that does wait sees the
/// capture done) and, killed meanwhile, leaves it to finish (`detached`).
/// `None`: handle it here.
pub(super) fn detach_unwaited(
    agent: &str,
    payload: &[u8],
    base: &Path,
) -> Option<commands::hook::HookReport> {
    use std::io::Write as _;
    use std::os::unix::process::CommandExt as _;
    if agent != "claude-code" || std::env::var_os(DETACHED_ENV).is_some() {
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(payload).ok()?;
    let event = v.get("hook_event_name")?.as_str()?.to_owned();
    if !matches!(event.as_str(), "StopFailure" | "SessionEnd") {
        return None;
    }
    let exe = std::env::current_exe().ok()?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("-C")
        .arg(base)
        .args(["hook", agent])
        .env(DETACHED_ENV, "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // Its own process group: an agent that ends the hook's group (or
    // Ctrl-C in the terminal) leaves the copy running.
    cmd.process_group(0);
    let mut child = cmd.spawn().ok()?;
    let fed = child.stdin.take().map(|mut w| w.write_all(payload));
    if !matches!(fed, Some(Ok(()))) {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    }
    let until = std::time::Instant::now() + DETACHED_WAIT;
    while std::time::Instant::now() < until && matches!(child.try_wait(), Ok(None)) {
        std::thread::sleep(Duration::from_millis(5));
    }
    Some(commands::hook::HookReport {
        reply: commands::hook::Reply::SystemMessage,
        result: Ok(commands::hook::HookOutcome {
            agent: agent.to_owned(),
            event,
            action: commands::hook::Did::Detached,
            thread: None,
            turn: None,
            notices: Vec::new(),
        }),
    })
}

/// How long a hook waits for more of its payload on stdin: an agent that
/// sends its JSON and never closes the pipe, or sends nothing, must not
/// hang its hook.
pub(super) const HOOK_STDIN_WAIT: Duration = Duration::from_secs(2);

/// The largest hook payload read (a prompt can hold a large paste).
pub(super) const HOOK_PAYLOAD_MAX: u64 = 64 << 20;

/// Read the hook's payload from stdin (at most [`HOOK_PAYLOAD_MAX`]
/// bytes) on a thread: done at end of input, or as soon as what arrived is
/// one whole JSON document, or when nothing more came for `wait`.
pub(super) fn read_stdin(wait: Duration) -> std::result::Result<Vec<u8>, String> {
    let (tx, rx) = std::sync::mpsc::channel::<std::io::Result<Vec<u8>>>();
    std::thread::spawn(move || {
        use std::io::Read as _;
        let mut stdin = std::io::stdin().take(HOOK_PAYLOAD_MAX + 1);
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            match stdin.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => {
                    if tx.send(Ok(chunk.get(..n).unwrap_or_default().to_vec())).is_err() {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = tx.send(Err(e));
                    break;
                }
            }
        }
    });
    // Parsed only when it could be whole (ends in `}` or `]`): a large
    // payload arrives in many chunks.
    let whole = |buf: &[u8]| {
        matches!(buf.trim_ascii_end().last(), Some(b'}' | b']'))
            && serde_json::from_slice::<serde::de::IgnoredAny>(buf).is_ok()
    };
    let mut buf = Vec::new();
    loop {
        match rx.recv_timeout(wait) {
            Ok(Ok(part)) => {
                buf.extend_from_slice(&part);
                if buf.len() as u64 > HOOK_PAYLOAD_MAX {
                    return Err(format!("more than {} MiB: not read", HOOK_PAYLOAD_MAX >> 20));
                }
                if whole(&buf) {
                    return Ok(buf);
                }
            }
            Ok(Err(e)) => return Err(format!("could not read it: {e}")),
            // End of input.
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return Ok(buf),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if buf.is_empty() => {
                return Err(format!("no payload on stdin within {}s", wait.as_secs()));
            }
            // Stalled part-way: what came is the payload (it will not parse).
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => return Ok(buf),
        }
    }
}
