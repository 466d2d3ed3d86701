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
/// bytes): done at end of input, or as soon as what arrived is one whole
/// JSON document, or when nothing more came for `wait`.
pub(super) fn read_stdin(wait: Duration) -> std::result::Result<Vec<u8>, String> {
    use std::io::Read as _;
    use std::os::fd::AsFd as _;
    // Parsed only when it could be whole (ends in `}` or `]`): a large
    // payload arrives in many chunks.
    let whole = |buf: &[u8]| {
        matches!(buf.trim_ascii_end().last(), Some(b'}' | b']'))
            && serde_json::from_slice::<serde::de::IgnoredAny>(buf).is_ok()
    };
    // Waited for with poll(2) on this thread, each read taken only when
    // poll says one would not block.
    let stdin = std::io::stdin();
    let mut deadline = std::time::Instant::now() + wait;
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let timeout = rustix::event::Timespec {
            tv_sec: i64::try_from(left.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(left.subsec_nanos()),
        };
        let fd = stdin.as_fd();
        let mut fds = [rustix::event::PollFd::new(&fd, rustix::event::PollFlags::IN)];
        match rustix::event::poll(&mut fds, Some(&timeout)) {
            Ok(0) if buf.is_empty() => {
                return Err(format!("no payload on stdin within {}s", wait.as_secs()));
            }
            // Stalled part-way: what came is the payload (it will not parse).
            Ok(0) => return Ok(buf),
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(format!("could not read it: {e}")),
        }
        match stdin.lock().read(&mut chunk) {
            // End of input.
            Ok(0) => return Ok(buf),
            Ok(n) => {
                deadline = std::time::Instant::now() + wait;
                buf.extend_from_slice(chunk.get(..n).unwrap_or_default());
                if buf.len() as u64 > HOOK_PAYLOAD_MAX {
                    return Err(format!("more than {} MiB: not read", HOOK_PAYLOAD_MAX >> 20));
                }
                if whole(&buf) {
                    return Ok(buf);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("could not read it: {e}")),
        }
    }
}
