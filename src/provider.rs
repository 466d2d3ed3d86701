//! Providers roll an agent's conversation back by N turns.
//!
//! `none` always succeeds. Any other name (`[a-z0-9][a-z0-9-]*`) is a helper
//! program found like git's remote helpers: `git config
//! t3.provider.<name>.command` (split like a shell would, never run through
//! one), then `git-t3-provider-<name>` on PATH. Nothing that comes with the
//! repository's content decides what runs (there is no `t3.toml`), and a
//! repository owned by someone else is refused before its config is read
//! (see `repo::open`). The helper runs as `<helper> rollback` in the worktree
//! root, with `{"thread","turns","workspace","target_turn"}` on stdin
//! (`workspace` absolute); exit 0 is success, anything else (or no answer
//! within the timeout) a failure that carries the helper's stderr.

use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// Default time a helper may take, overridable with `t3.providerTimeout`
/// (seconds, git config) or `T3_PROVIDER_TIMEOUT`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// A provider that can be asked to roll back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Provider {
    /// No conversation to roll back.
    None,
    /// A helper program and its leading arguments.
    Helper {
        /// The provider's name.
        name: String,
        /// Program and arguments (`rollback` is appended).
        argv: Vec<String>,
    },
}

/// What a rollback is about.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Rollback<'a> {
    /// The thread id.
    pub thread: &'a str,
    /// How many turns to undo.
    pub turns: u64,
    /// The worktree root.
    pub workspace: &'a str,
    /// The turn the conversation goes back to.
    pub target_turn: u64,
}

/// Where helpers are looked for and how long they may run; the caller reads
/// these from the environment.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The directories searched for `git-t3-provider-<name>` (a `PATH` value).
    pub search_path: Option<std::ffi::OsString>,
    /// How long a helper may run (`None`: `t3.providerTimeout` or the default).
    pub timeout: Option<Duration>,
}

/// Find the provider called `name` (`None`/`"none"`: no provider).
pub fn resolve(repo: &gix::Repository, name: Option<&str>, settings: &Settings) -> Result<Provider> {
    let name = match name {
        None | Some("none") => return Ok(Provider::None),
        Some(n) => n,
    };
    if !is_valid_name(name) {
        return Err(Error::Provider {
            name: name.chars().filter(|c| !c.is_control()).take(64).collect(),
            problem: "not a valid provider name (lowercase letters, digits and '-')".into(),
        });
    }
    let configured = repo
        .config_snapshot()
        .string(format!("t3.provider.{name}.command").as_str())
        .map(|v| v.to_string());
    if let Some(cmd) = configured {
        let argv = shlex::split(&cmd)
            .filter(|a| !a.is_empty())
            .ok_or_else(|| Error::Provider {
                name: name.to_owned(),
                problem: format!("t3.provider.{name}.command is empty or not quoted right: {cmd}"),
            })?;
        return Ok(Provider::Helper {
            name: name.to_owned(),
            argv,
        });
    }
    let program = format!("git-t3-provider-{name}");
    match find_on_path(settings.search_path.as_deref(), &program) {
        Some(path) => Ok(Provider::Helper {
            name: name.to_owned(),
            argv: vec![path.to_string_lossy().into_owned()],
        }),
        None => Err(Error::Provider {
            name: name.to_owned(),
            problem: format!(
                "cannot roll back: no {program} on PATH and no t3.provider.{name}.command; \
                 install the helper, or revert the files only with --files-only"
            ),
        }),
    }
}

/// A provider name: `[a-z0-9][a-z0-9-]*`, at most 64 bytes (it becomes
/// part of a program's file name and of a config key).
pub fn is_valid_name(name: &str) -> bool {
    name.len() <= 64
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn find_on_path(search_path: Option<&std::ffi::OsStr>, program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    std::env::split_paths(search_path?)
        .map(|dir| dir.join(program))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

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

/// How long a helper may run: `given` (from the environment, read by the
/// caller), else `t3.providerTimeout` (seconds), else [`DEFAULT_TIMEOUT`].
pub fn timeout(repo: &gix::Repository, given: Option<Duration>) -> Duration {
    given
        .or_else(|| {
            repo.config_snapshot()
                .string("t3.providerTimeout")
                .and_then(|v| parse_seconds(&v.to_string()))
        })
        .unwrap_or(DEFAULT_TIMEOUT)
}

/// A positive, finite number of seconds (fractions allowed), capped at a day.
pub fn parse_seconds(raw: &str) -> Option<Duration> {
    let secs = raw.trim().parse::<f64>().ok()?;
    (secs.is_finite() && secs > 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)))
}

/// Ask `provider` to roll back; an error carries the helper's stderr.
pub fn rollback(
    provider: &Provider,
    request: &Rollback<'_>,
    timeout: Duration,
    interrupt: crate::interrupt::Interrupt,
) -> Result<()> {
    let Provider::Helper { name, argv } = provider else {
        return Ok(());
    };
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
            name: name.clone(),
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
                    name: name.clone(),
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
            name: name.clone(),
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
            name: name.clone(),
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
