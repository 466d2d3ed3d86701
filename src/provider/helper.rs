//! External provider helpers: a program run as `<helper> rollback` in the
//! worktree root with `{"thread","turns","workspace","target_turn"}` on
//! stdin. Exit 0 is success; anything else (or no answer within the
//! timeout) is a failure that carries the helper's stderr. The helper runs
//! in its own process group, so a timeout or a signal ends whatever it
//! started too.

use std::io::{Read as _, Write as _};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::Rollback;
use crate::error::{Error, Result};

/// The most of a helper's stderr kept for the message: its last bytes.
const STDERR_TAIL: usize = 64 * 1024;

/// Read `stderr` to its end on a thread (so the helper never blocks on a
/// full pipe, nor dies of SIGPIPE), keeping its last [`STDERR_TAIL`] bytes.
fn drain(
    stderr: Option<std::process::ChildStderr>,
) -> (
    std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    std::thread::JoinHandle<()>,
) {
    let tail = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = tail.clone();
    let handle = std::thread::spawn(move || {
        let Some(mut s) = stderr else { return };
        let mut buf = [0u8; 8192];
        while let Ok(n) = s.read(&mut buf) {
            if n == 0 {
                break;
            }
            if let (Ok(mut t), Some(chunk)) = (kept.lock(), buf.get(..n)) {
                t.extend_from_slice(chunk);
                let excess = t.len().saturating_sub(STDERR_TAIL);
                t.drain(..excess);
            }
        }
    });
    (tail, handle)
}

/// Run the helper `argv` of provider `name` as `<argv> rollback` with
/// `request` on stdin; an error carries the helper's stderr.
pub fn run(
    name: &str,
    argv: &[String],
    request: &Rollback<'_>,
    timeout: Duration,
    interrupt: crate::interrupt::Interrupt,
) -> Result<()> {
    let Some((program, args)) = argv.split_first() else {
        return Ok(());
    };
    let input = serde_json::to_vec(request)
        .map_err(|e| Error::Internal(format!("could not encode the provider request: {e}")))?;
    use std::os::unix::process::CommandExt as _;
    let mut child = Command::new(program)
        .args(args)
        // Its own process group, so a timeout stops whatever it started too.
        .process_group(0)
        .arg("rollback")
        .current_dir(request.workspace)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::Provider {
            name: name.to_owned(),
            problem: format!("could not run {program}: {e}"),
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        // A helper that does not read its input is its own business; the
        // pipe is closed when `stdin` goes out of scope here.
        let _ = stdin.write_all(&input);
    }
    let (tail, reader) = drain(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() >= timeout || interrupt.fired() => {
                if let Ok(pid) = i32::try_from(child.id()) {
                    // SAFETY: kill(2) with a negative pid signals the group
                    // this helper leads; it touches no memory of ours.
                    unsafe {
                        libc::kill(-pid, libc::SIGKILL);
                    }
                }
                let _ = child.kill();
                let _ = child.wait();
                // Stopped by a signal: the whole group is ended, and so are we.
                interrupt.check()?;
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => {
                return Err(Error::Provider {
                    name: name.to_owned(),
                    problem: e.to_string(),
                });
            }
        }
    };
    // The helper is done: a child it left behind holding stderr does not
    // keep us waiting (a moment for the last words, then what is there).
    let until = Instant::now() + Duration::from_millis(500);
    while !reader.is_finished() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    let text = String::from_utf8_lossy(&tail.lock().map(|t| t.clone()).unwrap_or_default()).into_owned();
    let text: String = text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    match status {
        Some(s) if s.success() => Ok(()),
        Some(s) => Err(Error::Provider {
            name: name.to_owned(),
            problem: format!(
                "failed to roll back {} turn(s) ({s}){}",
                request.turns,
                if text.is_empty() {
                    String::new()
                } else {
                    format!(": {text}")
                }
            ),
        }),
        None => Err(Error::Provider {
            name: name.to_owned(),
            problem: format!(
                "did not answer within {}s and was stopped{}",
                timeout.as_secs_f64(),
                if text.is_empty() {
                    String::new()
                } else {
                    format!(": {text}")
                }
            ),
        }),
    }
}
