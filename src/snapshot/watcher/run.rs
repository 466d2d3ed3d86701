//! Running a watcher: its answer within a deadline, capped, its process group stopped.

use super::*;

/// What a watcher said.
pub(super) struct Answer {
    /// How it exited.
    pub(super) status: ExitStatus,
    /// What it printed on stdout.
    pub(super) stdout: Vec<u8>,
    /// The end of its stderr, on one line, without control characters.
    pub(super) stderr: String,
}

/// A child in its own process group, stopped with the whole group unless it
/// was seen to exit.
pub(super) struct Running {
    child: Child,
    exited: bool,
}

impl Running {
    pub(super) fn stop(&mut self) {
        if self.exited {
            return;
        }
        // The process group this child leads (spawned with `process_group(0)`).
        if let Some(pid) = i32::try_from(self.child.id())
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.exited = true;
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Run `command` in its own process group with `input` on stdin (else
/// none), and collect its answer, stopping it at `deadline`.
pub(super) fn run(
    command: &mut Command,
    input: Option<&[u8]>,
    deadline: Instant,
    timeout: Duration,
    what: &str,
) -> Result<Answer, WatchError> {
    let io_error = |source: std::io::Error| WatchError::Spawn {
        what: what.to_owned(),
        source,
    };
    let timed_out = || WatchError::TimedOut {
        what: what.to_owned(),
        after: timeout,
    };
    command
        .process_group(0)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = command.spawn().map_err(io_error)?;
    let mut running = Running { child, exited: false };
    let stdout = read_on_thread(running.child.stdout.take(), Keep::Head(MAX_ANSWER)).map_err(io_error)?;
    let stderr = read_on_thread(running.child.stderr.take(), Keep::Tail(STDERR_TAIL)).map_err(io_error)?;
    if let (Some(input), Some(mut stdin)) = (input, running.child.stdin.take()) {
        // A few hundred bytes: they fit in the pipe. One that does not read
        // them is its own business; the pipe closes when `stdin` is dropped.
        let _ = stdin.write_all(input);
    }
    let out = match stdout.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(Ok(out)) if out.len() > MAX_ANSWER => {
            return Err(WatchError::Malformed {
                what: what.to_owned(),
                why: format!("more than {} MiB", MAX_ANSWER >> 20),
            });
        }
        Ok(Ok(out)) => out,
        Ok(Err(e)) => return Err(io_error(e)),
        Err(mpsc::RecvTimeoutError::Timeout) => return Err(timed_out()),
        Err(mpsc::RecvTimeoutError::Disconnected) => Vec::new(),
    };
    // Its stdout is closed: it is exiting.
    let mut pause = Duration::from_micros(100);
    let status = loop {
        match running.child.try_wait() {
            Ok(Some(status)) => {
                running.exited = true;
                break status;
            }
            Ok(None) if Instant::now() >= deadline => return Err(timed_out()),
            Ok(None) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(10));
            }
            Err(e) => return Err(io_error(e)),
        }
    };
    // Whatever it left behind holding stderr does not keep us waiting.
    let grace = deadline
        .saturating_duration_since(Instant::now())
        .min(Duration::from_millis(100));
    let stderr = match stderr.recv_timeout(grace) {
        Ok(Ok(bytes)) => one_line(&bytes),
        _ => String::new(),
    };
    Ok(Answer {
        status,
        stdout: out,
        stderr,
    })
}

/// What a pipe reader keeps.
#[derive(Clone, Copy)]
pub(super) enum Keep {
    /// The first bytes, up to one more than this: it stops there (the
    /// answer is refused, and the child stopped).
    Head(usize),
    /// The last bytes, this many: it reads to the end, so the child never
    /// blocks on a full pipe.
    Tail(usize),
}

/// Read `from` to its end (or as far as `keep` says) on a thread.
pub(super) fn read_on_thread<R: std::io::Read + Send + 'static>(
    from: Option<R>,
    keep: Keep,
) -> std::io::Result<mpsc::Receiver<std::io::Result<Vec<u8>>>> {
    let (tx, rx) = mpsc::channel();
    let Some(mut from) = from else {
        let _ = tx.send(Ok(Vec::new()));
        return Ok(rx);
    };
    std::thread::Builder::new()
        .name("t3-watcher-pipe".to_owned())
        .spawn(move || {
            let mut kept = Vec::new();
            let mut buf = [0u8; 16 * 1024];
            let result = loop {
                match from.read(&mut buf) {
                    Ok(0) => break Ok(kept),
                    Ok(n) => {
                        kept.extend_from_slice(buf.get(..n).unwrap_or_default());
                        match keep {
                            Keep::Head(limit) if kept.len() > limit => break Ok(kept),
                            Keep::Head(_) => {}
                            Keep::Tail(limit) => {
                                let excess = kept.len().saturating_sub(limit);
                                kept.drain(..excess);
                            }
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => break Err(e),
                }
            };
            let _ = tx.send(result);
        })?;
    Ok(rx)
}

/// The end of a watcher's stderr, on one line.
pub(super) fn one_line(bytes: &[u8]) -> String {
    let text = shown(
        bytes
            .to_str_lossy()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .as_bytes(),
    );
    let skip = text.chars().count().saturating_sub(STDERR_SHOWN);
    if skip == 0 {
        text
    } else {
        format!("…{}", text.chars().skip(skip).collect::<String>())
    }
}

pub(super) fn status_text(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(code), _) => code.to_string(),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => status.to_string(),
    }
}
