//! Asking a file-system watcher what changed in the worktree since the
//! last capture, so a capture can look only there.
//!
//! Two watchers, chosen by [`configured`]:
//!
//! - git's fsmonitor hook, protocol version 2, when `core.fsmonitor` names a
//!   program (a boolean there means git's built-in daemon, or off: no
//!   watcher). It runs in the worktree root as `<hook> 2 <token>`, the way
//!   git runs it: through `/bin/sh -c '<hook> "$@"'` when the value has a
//!   shell metacharacter (the value is the user's own shell snippet, the
//!   arguments go in as `"$@"`, never spliced into the script), else
//!   directly, looked up on PATH when it has no '/', relative to the
//!   worktree root when it is a relative path. It answers `<new token>\0`
//!   and then NUL-separated worktree-relative paths, a directory with a
//!   trailing '/', or a lone `/` for "everything may have changed". On
//!   first use (no token) it is run with an empty token, as git does after
//!   its first refresh, only for the token.
//! - Watchman, when `t3.fsmonitor = watchman`, through its command-line
//!   client (`watchman -j --no-pretty`, one JSON command on stdin):
//!   `watch-project` on the worktree root, then `clock` on first use, else
//!   `query` with `since` the stored clock, relative to the project root
//!   Watchman chose. The token stored keeps that root (`<clock>\t<root>\t
//!   <relative path>`), so the next capture sends the `query` alone — one
//!   client process instead of two — and goes the whole way only when
//!   Watchman answers that with an error (no longer watched there).
//!
//! Whatever is in doubt means "everything may have changed": no token, a
//! token reset, a fresh Watchman instance, a path that is not a plain
//! relative path. A failure (not installed, non-zero exit, a malformed
//! answer, no answer within [`TIMEOUT`]) is a [`WatchError`], and the
//! caller walks everything. A watcher that hangs is stopped with its whole
//! process group.
//!
//! Ask *before* walking: a change made while the caller walks is then
//! reported by the next query, never lost between two tokens.
//!
//! The paths never include the worktree's own `.git` (directory, or file
//! of a linked worktree); a nested repository's `.git` stays in, since what
//! happens there can move its gitlink.
//!
//! Trust: nothing in the repository's content decides what runs. The hook
//! comes from git config, read as a trusted path: a value from a config
//! file git-t3 does not trust (a repository owned by someone else, which
//! `repo::open` refuses anyway) is ignored with a warning.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

use gix::bstr::{BString, ByteSlice as _};
use serde_json::{Value, json};

mod hook;
mod paths;
mod run;
mod watchman;

use hook::*;
use paths::*;
use run::*;
use watchman::*;

/// How long a watcher may take to answer (both Watchman calls together).
pub(crate) const TIMEOUT: Duration = Duration::from_secs(5);

/// The largest answer read; a bigger one is refused (a full walk is cheaper
/// than that many changes anyway).
const MAX_ANSWER: usize = 64 << 20;

/// How much of a watcher's stderr goes into a one-line message: its last
/// characters.
const STDERR_SHOWN: usize = 400;

/// Bytes that make git run a hook command through the shell
/// (`prepare_shell_cmd` in git's run-command.c).
const SHELL_META: &[u8] = b"|&;<>()$`\\\"' \t\n*?[#~=%";

/// The watcher a capture asks, from the repository's config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Watcher {
    /// git's fsmonitor hook, protocol version 2: the command as configured
    /// (`core.fsmonitor`, with `~/` and `%(prefix)/` expanded).
    Hook(PathBuf),
    /// Watchman, through its command-line client.
    Watchman,
}

/// What changed since a token.
#[derive(Debug)]
pub(crate) struct Changes {
    /// The token to store for the next query (None: the watcher gave none;
    /// the next capture walks everything).
    pub(crate) token: Option<String>,
    /// Worktree-relative paths ('/'-separated, no leading or trailing '/')
    /// of files and directories that may have changed, sorted, without
    /// duplicates; or None when everything may have changed (first use,
    /// token reset, fresh instance).
    ///
    /// A directory is listed when an entry in it was added, removed or
    /// renamed (its own listing changed); see `subtrees` for what else it
    /// may stand for. A path that no longer exists may be listed.
    pub(crate) paths: Option<Vec<BString>>,
    /// Whether a listed directory may stand for everything below it. True
    /// for a hook: git's protocol lets a hook report a renamed or removed
    /// directory without its contents (git then re-checks the whole
    /// subtree, for a name with or without the trailing '/'), so the caller
    /// must walk a listed directory's subtree. False for Watchman, which
    /// lists every file and directory that changed, those inside a created,
    /// removed or renamed directory too: reading a listed directory's own
    /// entries is enough.
    pub(crate) subtrees: bool,
}

impl Changes {
    fn everything(token: Option<String>) -> Self {
        Changes {
            token,
            paths: None,
            subtrees: true,
        }
    }
}

/// Why a watcher could not say what changed. The caller walks everything.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WatchError {
    /// `t3.fsmonitor = watchman`, but there is no `watchman` to run.
    #[error(
        "watchman is not installed (no `watchman` on PATH); install it, or unset t3.fsmonitor \
         (git config --unset t3.fsmonitor)"
    )]
    WatchmanMissing,
    /// The watcher could not be started (or read).
    #[error("could not run {what}: {source}")]
    Spawn {
        /// Which watcher, for a person: "the fsmonitor hook '…'", "watchman".
        what: String,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The watcher exited with a failure.
    #[error("{what} exited with {status}{}", colon(stderr))]
    Failed {
        /// Which watcher.
        what: String,
        /// Its exit code (`1`), or the signal that ended it (`signal 9`).
        status: String,
        /// The end of what it wrote on stderr, on one line.
        stderr: String,
    },
    /// The watcher did not answer in time; it was stopped.
    #[error("{what} timed out after {} s and was stopped", after.as_secs_f64())]
    TimedOut {
        /// Which watcher.
        what: String,
        /// How long it was given.
        after: Duration,
    },
    /// The watcher's answer does not follow its protocol.
    #[error("{what} gave a malformed answer: {why}")]
    Malformed {
        /// Which watcher.
        what: String,
        /// What is wrong with it.
        why: String,
    },
    /// Watchman answered with an error.
    #[error("watchman: {0}")]
    Watchman(String),
    /// The worktree's path cannot be put in Watchman's JSON.
    #[error("watchman cannot be asked about {0}: its path is not valid UTF-8")]
    NotUtf8(String),
}

fn colon(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!(": {text}")
    }
}

/// The configured watcher, if any (t3.fsmonitor, then core.fsmonitor).
/// Never fails: a bad value means none, and returns a one-line warning
/// string for the caller to show.
///
/// - `t3.fsmonitor = watchman`: Watchman;
/// - `t3.fsmonitor` unset, `hook` or `true`: the hook `core.fsmonitor`
///   names, if it names one (a boolean there is git's built-in daemon,
///   which git-t3 does not speak to, or off);
/// - `t3.fsmonitor = false` (or any git "false"): no watcher at all.
pub(crate) fn configured(repo: &gix::Repository) -> (Option<Watcher>, Option<String>) {
    let config = repo.config_snapshot();
    let mut asked_for_hook = false;
    match config.try_boolean("t3.fsmonitor") {
        Ok(None) => {}
        Ok(Some(true)) => asked_for_hook = true,
        Ok(Some(false)) => return (None, None),
        Err(_) => {
            let value = config.string("t3.fsmonitor").unwrap_or_default();
            if value.eq_ignore_ascii_case(b"watchman") {
                return (Some(Watcher::Watchman), None);
            }
            if !value.eq_ignore_ascii_case(b"hook") {
                return (
                    None,
                    Some(format!(
                        "ignoring t3.fsmonitor = {}: expected watchman, hook or false",
                        shown(&value)
                    )),
                );
            }
            asked_for_hook = true;
        }
    }
    // Unset, off, or git's built-in daemon (whose IPC we do not speak);
    // anything but a boolean is the hook's path.
    if config.try_boolean("core.fsmonitor").is_ok() {
        let warning = asked_for_hook.then(|| {
            "t3.fsmonitor asks for the fsmonitor hook, but core.fsmonitor names none \
             (git t3 cannot ask git's built-in fsmonitor daemon; t3.fsmonitor = watchman can ask Watchman)"
                .to_owned()
        });
        return (None, warning);
    }
    if config.integer("core.fsmonitorHookVersion") == Some(1) {
        return (
            None,
            Some(
                "not using the fsmonitor hook: core.fsmonitorHookVersion is 1, and git t3 speaks only \
                 version 2"
                    .to_owned(),
            ),
        );
    }
    match config.trusted_path("core.fsmonitor") {
        Ok(Some(path)) if path.as_os_str().is_empty() => (None, None),
        Ok(Some(path)) => (Some(Watcher::Hook(path)), None),
        Ok(None) => (
            None,
            Some("ignoring core.fsmonitor: it comes from a config file git t3 does not trust".to_owned()),
        ),
        Err(e) => (
            None,
            Some(format!(
                "ignoring core.fsmonitor: {}",
                shown(e.to_string().as_bytes())
            )),
        ),
    }
}

impl Watcher {
    /// What names this watcher beside a token it gave: a token is only
    /// ever given back to the watcher that issued it.
    pub(crate) fn key(&self) -> String {
        match self {
            Watcher::Hook(path) => format!("hook {}", path.display()),
            Watcher::Watchman => "watchman".to_owned(),
        }
    }

    /// Ask what changed in `workdir` (the worktree root) since `since` (a
    /// token from an earlier answer of the same watcher; None on first
    /// use). Ask before walking. The caller walks everything on any error.
    pub(crate) fn changes(&self, workdir: &Path, since: Option<&str>) -> Result<Changes, WatchError> {
        self.changes_with(workdir, since, &Ask::default())
    }

    fn changes_with(
        &self,
        workdir: &Path,
        since: Option<&str>,
        ask: &Ask<'_>,
    ) -> Result<Changes, WatchError> {
        let workdir = std::path::absolute(workdir).unwrap_or_else(|_| workdir.to_owned());
        // A token we could not have handed out is no token.
        let since = since.filter(|t| !t.is_empty() && !t.contains('\0'));
        match self {
            Watcher::Hook(hook) => ask_hook(hook, &workdir, since, ask.timeout),
            Watcher::Watchman => ask_watchman(ask.watchman, &workdir, since, ask.timeout),
        }
    }
}

/// How to ask: the defaults, or what a test needs.
struct Ask<'a> {
    timeout: Duration,
    watchman: &'a OsStr,
}

impl Default for Ask<'_> {
    fn default() -> Self {
        Ask {
            timeout: TIMEOUT,
            watchman: OsStr::new("watchman"),
        }
    }
}

#[cfg(test)]
mod tests;
