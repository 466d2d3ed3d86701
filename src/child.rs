//! Running another program (git for the transport and housekeeping, a
//! provider helper) so that a signal to git-t3 ends it too, at once.
//!
//! The child's output is read on threads (it never blocks on a full pipe),
//! its exit is polled every few milliseconds, and when the [`Interrupt`]
//! fires it is asked to stop (SIGTERM: git removes its lock files on it),
//! then killed, and the run fails with [`Error::Interrupted`]. A child run
//! in its own process group has the whole group ended, and can be given a
//! time limit. A child whose stdout is an answer (a file-system watcher's)
//! can have it capped, and waited for whole.

use std::io::{Read, Write as _};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::interrupt::Interrupt;

/// The most of a child's stderr kept: its last bytes.
pub const STDERR_TAIL: usize = 64 * 1024;

/// How often the child's exit and the interrupt are looked at.
const POLL: Duration = Duration::from_millis(5);

/// The first pause between two looks, doubled up to [`POLL`]: a child that
/// is done at once (a watcher's answer) is not kept waiting.
const FIRST_POLL: Duration = Duration::from_micros(100);

/// How long a child asked to stop (SIGTERM) has before it is killed.
const GRACE: Duration = Duration::from_millis(200);

/// How a child is run.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Written to its stdin, which is then closed (no stdin when `None`).
    pub input: Option<Vec<u8>>,
    /// Keep its stdout (otherwise it goes nowhere).
    pub stdout: bool,
    /// Keep at most this many bytes of its stdout: a child that prints
    /// more is stopped at once (with its group), and the run says so
    /// ([`Finished::stdout_over`]).
    pub stdout_cap: Option<usize>,
    /// Its stdout is one answer, whole only once the pipe closes: after the
    /// child exits, what it left behind holding the pipe is waited for up to
    /// the time limit (then the run has no status), not a moment.
    pub whole_stdout: bool,
    /// Run it in its own process group, ended whole on a timeout or signal.
    pub own_group: bool,
    /// Stop it after this long (the run then has no status).
    pub timeout: Option<Duration>,
}

/// How a child ended.
#[derive(Debug)]
pub struct Finished {
    /// Its exit status; `None` when it was stopped at the time limit, or
    /// for printing more than [`Options::stdout_cap`].
    pub status: Option<ExitStatus>,
    /// What it printed on stdout (when kept).
    pub stdout: Vec<u8>,
    /// Whether it printed more than [`Options::stdout_cap`] (`stdout` then
    /// holds only the first bytes).
    pub stdout_over: bool,
    /// The last [`STDERR_TAIL`] bytes it printed on stderr.
    pub stderr: Vec<u8>,
}

impl Finished {
    /// Whether it ran to the end and exited 0.
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    /// Its stderr as one line of text: whitespace runs folded, control
    /// characters removed (a child's words may be hostile).
    pub fn stderr_line(&self) -> String {
        one_line(&String::from_utf8_lossy(&self.stderr))
    }
}

/// `text` as one line: whitespace runs folded, control characters removed.
pub fn one_line(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .collect()
}

/// What a pipe reader keeps.
#[derive(Clone, Copy)]
enum Keep {
    /// The last bytes, this many: it reads to the end, so the child never
    /// blocks on a full pipe.
    Tail(usize),
    /// The first bytes, up to one more than this: it stops reading there.
    Head(usize),
}

/// A pipe being read on a thread.
struct Drain {
    /// What it kept so far.
    kept: Arc<Mutex<Vec<u8>>>,
    /// Set when a [`Keep::Head`] reader stopped at its limit.
    over: Arc<AtomicBool>,
    reader: JoinHandle<()>,
}

impl Drain {
    /// Read `from` to its end on a thread (or as far as `keep` says).
    fn start<R: Read + Send + 'static>(from: Option<R>, keep: Keep) -> Drain {
        let kept = Arc::new(Mutex::new(Vec::new()));
        let over = Arc::new(AtomicBool::new(false));
        let (sink, past) = (kept.clone(), over.clone());
        let reader = std::thread::spawn(move || {
            let Some(mut from) = from else { return };
            let mut buf = [0u8; 8192];
            loop {
                let n = match from.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                if let (Ok(mut t), Some(chunk)) = (sink.lock(), buf.get(..n)) {
                    t.extend_from_slice(chunk);
                    match keep {
                        Keep::Tail(limit) => {
                            let excess = t.len().saturating_sub(limit);
                            t.drain(..excess);
                        }
                        Keep::Head(limit) if t.len() > limit => {
                            past.store(true, Ordering::Release);
                            break;
                        }
                        Keep::Head(_) => {}
                    }
                }
            }
        });
        Drain { kept, over, reader }
    }

    /// Whether a [`Keep::Head`] reader stopped at its limit.
    fn over(&self) -> bool {
        self.over.load(Ordering::Acquire)
    }

    /// What it kept, taken out.
    fn take(&self) -> Vec<u8> {
        self.kept
            .lock()
            .map(|mut t| std::mem::take(&mut *t))
            .unwrap_or_default()
    }
}

/// The pauses between two looks at a child: from [`FIRST_POLL`], doubled
/// up to [`POLL`].
struct Pause(Duration);

impl Pause {
    fn new() -> Self {
        Pause(FIRST_POLL)
    }

    fn sleep(&mut self) {
        std::thread::sleep(self.0);
        self.0 = (self.0 * 2).min(POLL);
    }
}

/// Send `signal` to the child, or to its whole group.
fn signal(child: &Child, group: bool, signal: rustix::process::Signal) {
    if let Some(pid) = i32::try_from(child.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = if group {
            rustix::process::kill_process_group(pid, signal)
        } else {
            rustix::process::kill_process(pid, signal)
        };
    }
}

/// Ask the child to stop, give it [`GRACE`], then kill it; reap it.
fn stop(child: &mut Child, group: bool, ask_first: bool) {
    if ask_first {
        signal(child, group, rustix::process::Signal::TERM);
        let until = Instant::now() + GRACE;
        while Instant::now() < until {
            if matches!(child.try_wait(), Ok(Some(_))) {
                if group {
                    signal(child, group, rustix::process::Signal::KILL);
                }
                return;
            }
            std::thread::sleep(POLL);
        }
    }
    signal(child, group, rustix::process::Signal::KILL);
    let _ = child.kill();
    let _ = child.wait();
}

/// Run `command` as `options` say, until it exits, times out, or
/// `interrupt` fires (then `Err(Interrupted)`, the child ended).
pub fn run(command: &mut Command, options: Options, interrupt: Interrupt) -> Result<Finished> {
    interrupt.check()?;
    use std::os::unix::process::CommandExt as _;
    if options.own_group {
        command.process_group(0);
    }
    command
        .stdin(if options.input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(if options.stdout {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::piped());
    let mut child = command.spawn().map_err(|e| Error::Io {
        context: format!("could not run {}", command.get_program().to_string_lossy()),
        path: None,
        source: e,
    })?;
    let stdin = child.stdin.take();
    let input = options.input;
    // On a thread, so a child that writes before it reads never deadlocks
    // with us; a child that does not read its input is its own business.
    let writer = std::thread::spawn(move || {
        if let (Some(mut stdin), Some(input)) = (stdin, input) {
            let _ = stdin.write_all(&input);
        }
    });
    let out_keep = options.stdout_cap.map_or(Keep::Tail(usize::MAX), Keep::Head);
    let out = Drain::start(child.stdout.take(), out_keep);
    let err = Drain::start(child.stderr.take(), Keep::Tail(STDERR_TAIL));
    let start = Instant::now();
    let mut pause = Pause::new();
    let status = loop {
        if out.over() {
            stop(&mut child, options.own_group, false);
            break None;
        }
        // A child whose stdout is its answer is not reaped before that
        // closes: until then a signal still reaches it, and its group.
        let exited = if options.whole_stdout && !out.reader.is_finished() {
            Ok(None)
        } else {
            child.try_wait()
        };
        match exited {
            Ok(Some(status)) => break Some(status),
            Ok(None) if interrupt.fired() => {
                stop(&mut child, options.own_group, true);
                interrupt.check()?;
            }
            Ok(None) if options.timeout.is_some_and(|t| start.elapsed() >= t) => {
                stop(&mut child, options.own_group, false);
                break None;
            }
            Ok(None) => pause.sleep(),
            Err(e) => {
                stop(&mut child, options.own_group, false);
                return Err(Error::Io {
                    context: format!("could not wait for {}", command.get_program().to_string_lossy()),
                    path: None,
                    source: e,
                });
            }
        }
    };
    // The child is done. One it left behind holding a pipe does not keep us
    // waiting: a moment for the last words, then what is there.
    let until = Instant::now() + Duration::from_millis(500);
    let mut pause = Pause::new();
    while !(out.reader.is_finished() && err.reader.is_finished()) && Instant::now() < until {
        pause.sleep();
    }
    drop(writer);
    Ok(Finished {
        status,
        stdout: out.take(),
        stdout_over: out.over(),
        stderr: err.take(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_and_status_are_kept() {
        let mut c = Command::new("sh");
        c.args(["-c", "cat; echo oops >&2; exit 3"]);
        let done = run(
            &mut c,
            Options {
                input: Some(b"hello".to_vec()),
                stdout: true,
                ..Default::default()
            },
            Interrupt::default(),
        )
        .unwrap();
        assert_eq!(done.stdout, b"hello");
        assert_eq!(done.stderr_line(), "oops");
        assert_eq!(done.status.and_then(|s| s.code()), Some(3));
        assert!(!done.success());
    }

    #[test]
    fn a_child_past_its_time_is_stopped_with_its_group() {
        let mut c = Command::new("sh");
        c.args(["-c", "sleep 30 & sleep 30"]);
        let start = Instant::now();
        let done = run(
            &mut c,
            Options {
                own_group: true,
                timeout: Some(Duration::from_millis(100)),
                ..Default::default()
            },
            Interrupt::default(),
        )
        .unwrap();
        assert!(done.status.is_none());
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_child_past_its_stdout_cap_is_stopped() {
        let mut c = Command::new("sh");
        c.args(["-c", "while :; do echo 0123456789; done"]);
        let start = Instant::now();
        let done = run(
            &mut c,
            Options {
                stdout: true,
                stdout_cap: Some(1000),
                own_group: true,
                timeout: Some(Duration::from_secs(20)),
                ..Default::default()
            },
            Interrupt::default(),
        )
        .unwrap();
        assert!(done.stdout_over);
        assert!(done.status.is_none());
        assert!(done.stdout.len() > 1000, "{}", done.stdout.len());
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_whole_answer_waits_for_what_holds_its_stdout() {
        // It answers and exits, but leaves a child holding its stdout.
        let options = |whole_stdout| Options {
            stdout: true,
            whole_stdout,
            own_group: true,
            timeout: Some(Duration::from_millis(300)),
            ..Default::default()
        };
        let mut c = Command::new("sh");
        c.args(["-c", "sleep 30 & echo answer"]);
        let start = Instant::now();
        let done = run(&mut c, options(true), Interrupt::default()).unwrap();
        assert!(done.status.is_none(), "{done:?}");
        assert!(start.elapsed() < Duration::from_secs(5));
        // Otherwise: a moment for the last words, then what is there.
        let mut c = Command::new("sh");
        c.args(["-c", "sleep 1 & echo answer"]);
        let done = run(&mut c, options(false), Interrupt::default()).unwrap();
        assert!(done.success(), "{done:?}");
        assert_eq!(done.stdout, b"answer\n");
    }
}
