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
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use gix::bstr::{BString, ByteSlice as _};
use serde_json::{Value, json};

/// How long a watcher may take to answer (both Watchman calls together).
pub(crate) const TIMEOUT: Duration = Duration::from_secs(5);

/// The largest answer read; a bigger one is refused (a full walk is cheaper
/// than that many changes anyway).
const MAX_ANSWER: usize = 64 << 20;

/// How much of a watcher's stderr is kept for a message: its last bytes.
const STDERR_TAIL: usize = 16 * 1024;

/// How much of that goes into a one-line message: its last characters.
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

// --- the fsmonitor hook ----------------------------------------------------

fn ask_hook(
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
fn hook_command(hook: &Path, workdir: &Path, token: &str) -> Command {
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
fn parse_hook_answer(out: &[u8]) -> Result<Changes, String> {
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

// --- Watchman --------------------------------------------------------------

fn ask_watchman(
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
fn malformed(why: &str) -> WatchError {
    WatchError::Malformed {
        what: "watchman".to_owned(),
        why: why.to_owned(),
    }
}

/// Where Watchman watches the worktree: the project root it chose, and the
/// worktree's path below it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Project {
    root: String,
    relative: Option<String>,
}

impl Project {
    /// Whether it is the worktree `workdir`.
    fn is(&self, workdir: &Path) -> bool {
        let here = Path::new(&self.root).join(self.relative.as_deref().unwrap_or(""));
        here == workdir || std::fs::canonicalize(workdir).is_ok_and(|real| here == real)
    }

    /// The token to store: the clock, and this project when its names fit
    /// on the token's line (a tab separates them).
    fn token(&self, clock: &str) -> String {
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
struct Token {
    clock: String,
    project: Option<Project>,
}

impl Token {
    fn parse(token: &str) -> Token {
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
fn query_since(
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
fn query(root: &str, relative: Option<&str>, since: &str, wait: u64) -> Value {
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
fn watchman(
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

// --- paths -----------------------------------------------------------------

/// The worktree-relative paths among `entries` (a directory's trailing '/'
/// dropped, the worktree's `.git` left out), sorted and without duplicates;
/// None (everything may have changed) if any entry is not a plain relative
/// path.
fn relative_paths<'a>(entries: impl Iterator<Item = &'a [u8]>) -> Option<Vec<BString>> {
    let mut paths = Vec::new();
    for entry in entries {
        if let Some(path) = relative_path(entry)? {
            paths.push(path);
        }
    }
    paths.sort_unstable();
    paths.dedup();
    Some(paths)
}

/// `Some(None)`: nothing to report (empty, or in the worktree's `.git`);
/// `None`: not a plain relative path (leading '/', NUL, an empty, `.` or
/// `..` component): doubt.
fn relative_path(entry: &[u8]) -> Option<Option<BString>> {
    if entry.is_empty() {
        return Some(None);
    }
    if entry.starts_with(b"/") || entry.contains(&0) {
        return None;
    }
    let path = entry.strip_suffix(b"/").unwrap_or(entry);
    let mut components = path.split(|&b| b == b'/');
    if components.any(|c| c.is_empty() || c == b"." || c == b"..") {
        return None;
    }
    // git never adds a `.git` in any letter case.
    let first = path.split(|&b| b == b'/').next().unwrap_or_default();
    if first.eq_ignore_ascii_case(b".git") {
        return Some(None);
    }
    Some(Some(path.into()))
}

/// `bytes` for a message: lossy UTF-8, control characters escaped.
fn shown(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    for c in String::from_utf8_lossy(bytes).chars() {
        if c.is_control() {
            text.extend(c.escape_default());
        } else {
            text.push(c);
        }
    }
    text
}

// --- running a watcher -----------------------------------------------------

/// What a watcher said.
struct Answer {
    status: ExitStatus,
    stdout: Vec<u8>,
    /// The end of its stderr, on one line, without control characters.
    stderr: String,
}

/// A child in its own process group, stopped with the whole group unless it
/// was seen to exit.
struct Running {
    child: Child,
    exited: bool,
}

impl Running {
    fn stop(&mut self) {
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
fn run(
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
enum Keep {
    /// The first bytes, up to one more than this: it stops there (the
    /// answer is refused, and the child stopped).
    Head(usize),
    /// The last bytes, this many: it reads to the end, so the child never
    /// blocks on a full pipe.
    Tail(usize),
}

/// Read `from` to its end (or as far as `keep` says) on a thread.
fn read_on_thread<R: std::io::Read + Send + 'static>(
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
fn one_line(bytes: &[u8]) -> String {
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

fn status_text(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(code), _) => code.to_string(),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => status.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // --- hooks ------------------------------------------------------------

    /// A hook script `name` in `dir` running `body` after recording its
    /// arguments, `[arg]` each, into `dir/args`.
    fn hook(dir: &Path, name: &str, body: &str) -> PathBuf {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        let args = dir.join("args");
        let script = format!("#!/bin/sh\nprintf '[%s]' \"$@\" > '{}'\n{body}\n", args.display());
        // Written by another process: a file this one had open for writing
        // could be inherited by a child another test thread forks at that
        // moment, and exec'ing the script would fail with ETXTBSY.
        let mut writer = Command::new("/bin/sh")
            .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
            .arg(&path)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        writer.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
        assert!(writer.wait().unwrap().success());
        path
    }

    fn args(dir: &Path) -> String {
        std::fs::read_to_string(dir.join("args")).unwrap_or_default()
    }

    fn ask(watcher: &Watcher, dir: &Path, since: Option<&str>) -> Result<Changes, WatchError> {
        let ask = Ask {
            timeout: Duration::from_secs(10),
            ..Ask::default()
        };
        watcher.changes_with(dir, since, &ask)
    }

    fn paths(list: &[&[u8]]) -> Option<Vec<BString>> {
        Some(list.iter().map(|p| BString::from(*p)).collect())
    }

    #[test]
    fn hook_lists_paths_since_the_token() {
        let dir = tempfile::tempdir().unwrap();
        let h = hook(dir.path(), "hook", r"printf 'tok-2\0a.txt\0dir/\0sub/b\0a.txt\0'");
        let c = ask(&Watcher::Hook(h), dir.path(), Some("tok-1")).unwrap();
        assert_eq!(args(dir.path()), "[2][tok-1]");
        assert_eq!(c.token.as_deref(), Some("tok-2"));
        assert_eq!(c.paths, paths(&[b"a.txt", b"dir", b"sub/b"]));
        assert!(c.subtrees);
    }

    #[test]
    fn hook_with_no_changes_and_without_a_final_nul() {
        let dir = tempfile::tempdir().unwrap();
        for out in [r"printf 'tok-2\0'", r"printf 'tok-2'"] {
            let h = hook(dir.path(), "hook", out);
            let c = ask(&Watcher::Hook(h), dir.path(), Some("tok-1")).unwrap();
            assert_eq!(c.token.as_deref(), Some("tok-2"));
            assert_eq!(c.paths, Some(vec![]), "{out}");
        }
    }

    #[test]
    fn hook_first_use_gets_an_empty_token_and_only_the_token_counts() {
        let dir = tempfile::tempdir().unwrap();
        let h = hook(dir.path(), "hook", r"printf 'tok-1\0a\0'");
        for since in [None, Some("")] {
            let c = ask(&Watcher::Hook(h.clone()), dir.path(), since).unwrap();
            assert_eq!(args(dir.path()), "[2][]");
            assert_eq!(c.token.as_deref(), Some("tok-1"));
            assert_eq!(c.paths, None);
        }
    }

    #[test]
    fn hook_trivial_answer_means_everything() {
        let dir = tempfile::tempdir().unwrap();
        for out in [
            r"printf 'tok-2\0/\0'",
            r"printf 'tok-2\0/'",
            r"printf 'tok-2\0/\0a\0'",
        ] {
            let h = hook(dir.path(), "hook", out);
            let c = ask(&Watcher::Hook(h), dir.path(), Some("tok-1")).unwrap();
            assert_eq!(c.token.as_deref(), Some("tok-2"), "{out}");
            assert_eq!(c.paths, None, "{out}");
        }
    }

    #[test]
    fn hook_paths_in_doubt_mean_everything() {
        let dir = tempfile::tempdir().unwrap();
        for bad in [
            "../x",
            "a/../../x",
            "a/./b",
            "a//b",
            // "a/" is a directory; "a//" is not a path.
            "a//",
            // Paths after the first that start with '/', or are '.' or '..'.
            "x\\0/etc/passwd",
            "x\\0/",
            "x\\0.",
            "x\\0a/..",
        ] {
            let h = hook(dir.path(), "hook", &format!(r"printf 'tok-2\0ok\0{bad}\0'"));
            let c = ask(&Watcher::Hook(h), dir.path(), Some("tok-1")).unwrap();
            assert_eq!(c.token.as_deref(), Some("tok-2"), "{bad}");
            assert_eq!(c.paths, None, "{bad}");
        }
    }

    #[test]
    fn hook_paths_keep_any_bytes_and_leave_out_the_git_dir() {
        let dir = tempfile::tempdir().unwrap();
        let h = hook(
            dir.path(),
            "hook",
            r"printf 'tok-2\0caf\351\0.git/index\0.git/\0.git\0.GIT/x\0x\0sub/.git/HEAD\0.gitignore\0'",
        );
        let c = ask(&Watcher::Hook(h), dir.path(), Some("tok-1")).unwrap();
        assert_eq!(
            c.paths,
            paths(&[b".gitignore", b"caf\xe9", b"sub/.git/HEAD", b"x"])
        );
    }

    #[test]
    fn hook_failures() {
        let dir = tempfile::tempdir().unwrap();
        let run = |body: &str| {
            let h = hook(dir.path(), "hook", body);
            ask(&Watcher::Hook(h), dir.path(), Some("tok-1")).unwrap_err()
        };
        let e = run("echo 'watchman is down' >&2; printf 'tok\\0'; exit 1");
        assert!(matches!(e, WatchError::Failed { .. }), "{e:?}");
        let text = e.to_string();
        assert!(text.contains("exited with 1: watchman is down"), "{text}");
        assert!(text.starts_with("the fsmonitor hook '"), "{text}");

        for garbage in ["true", r"printf '\0a\0'", r"printf 'tok\351\0a\0'"] {
            let e = run(garbage);
            assert!(matches!(e, WatchError::Malformed { .. }), "{garbage}: {e:?}");
            assert!(e.to_string().contains("malformed answer"), "{e}");
        }

        let e = run("kill -9 $$");
        assert!(e.to_string().contains("exited with signal 9"), "{e}");

        let e = ask(
            &Watcher::Hook(dir.path().join("no-such-hook")),
            dir.path(),
            Some("tok-1"),
        )
        .unwrap_err();
        assert!(matches!(e, WatchError::Spawn { .. }), "{e:?}");
    }

    #[test]
    fn hook_that_hangs_is_stopped() {
        let dir = tempfile::tempdir().unwrap();
        // Hangs itself; or answers but leaves a child holding its stdout.
        for body in ["sleep 30", r"sleep 30 & printf 'tok\0'"] {
            let h = hook(dir.path(), "hook", body);
            let ask = Ask {
                timeout: Duration::from_millis(300),
                ..Ask::default()
            };
            let start = Instant::now();
            let e = Watcher::Hook(h)
                .changes_with(dir.path(), Some("t"), &ask)
                .unwrap_err();
            assert!(
                start.elapsed() < Duration::from_secs(3),
                "{body}: {:?}",
                start.elapsed()
            );
            assert!(matches!(e, WatchError::TimedOut { .. }), "{body}: {e:?}");
            assert_eq!(
                e.to_string(),
                format!(
                    "the fsmonitor hook '{}' timed out after 0.3 s and was stopped",
                    dir.path().join("hook").display()
                )
            );
        }
    }

    #[test]
    fn hook_runs_like_git_runs_it() {
        let dir = tempfile::tempdir().unwrap();
        // Relative to the worktree root, wherever we are.
        hook(dir.path(), ".git/hooks/query", r"printf 'tok\0%s\0' ${PWD##*/}");
        let c = ask(&Watcher::Hook(".git/hooks/query".into()), dir.path(), Some("t")).unwrap();
        let name = dir.path().file_name().unwrap().as_bytes();
        assert_eq!(c.paths, paths(&[name]));
        assert_eq!(args(dir.path()), "[2][t]");

        // A value with shell metacharacters is a shell snippet; the
        // arguments still arrive as arguments.
        let h = hook(dir.path(), "hook", r#"printf 'tok\0%s\0' "$T3_X""#);
        let snippet = format!("T3_X=from-the-snippet '{}'", h.display());
        let c = ask(&Watcher::Hook(snippet.into()), dir.path(), Some("a b;$(x)")).unwrap();
        assert_eq!(c.paths, paths(&[b"from-the-snippet"]));
        assert_eq!(args(dir.path()), "[2][a b;$(x)]");
    }

    // --- configuration ----------------------------------------------------

    use crate::testing::git;

    fn configured_with(config: &[(&str, &str)]) -> (Option<Watcher>, Option<String>) {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        for (key, value) in config {
            git(dir.path(), &["config", key, value]);
        }
        let repo = gix::open_opts(dir.path(), gix::open::Options::isolated()).unwrap();
        configured(&repo)
    }

    #[test]
    fn configured_watchers() {
        let hook = || Some(Watcher::Hook(".git/hooks/query-watchman".into()));
        let core = ("core.fsmonitor", ".git/hooks/query-watchman");
        assert_eq!(configured_with(&[]), (None, None));
        assert_eq!(configured_with(&[core]), (hook(), None));
        for value in ["true", "false", "yes", "off", "1", "0", ""] {
            assert_eq!(
                configured_with(&[("core.fsmonitor", value)]),
                (None, None),
                "{value}"
            );
        }
        assert_eq!(
            configured_with(&[("t3.fsmonitor", "watchman")]),
            (Some(Watcher::Watchman), None)
        );
        assert_eq!(
            configured_with(&[core, ("t3.fsmonitor", "Watchman")]),
            (Some(Watcher::Watchman), None)
        );
        for value in ["hook", "true"] {
            assert_eq!(
                configured_with(&[core, ("t3.fsmonitor", value)]),
                (hook(), None),
                "{value}"
            );
        }
        for core in [None, Some("true"), Some("false")] {
            let mut config = vec![("t3.fsmonitor", "hook")];
            config.extend(core.map(|v| ("core.fsmonitor", v)));
            let (w, warning) = configured_with(&config);
            assert_eq!(w, None);
            assert!(warning.unwrap().contains("core.fsmonitor names none"), "{core:?}");
        }
        for value in ["false", "off", "0"] {
            assert_eq!(
                configured_with(&[core, ("t3.fsmonitor", value)]),
                (None, None),
                "{value}"
            );
        }
        let (w, warning) = configured_with(&[core, ("t3.fsmonitor", "fanotify\x1b[31m")]);
        assert_eq!(w, None);
        let warning = warning.unwrap();
        assert!(
            warning.contains("t3.fsmonitor = fanotify\\u{1b}[31m"),
            "{warning}"
        );
        assert!(warning.contains("expected watchman, hook or false"), "{warning}");

        let (w, warning) = configured_with(&[core, ("core.fsmonitorHookVersion", "1")]);
        assert_eq!(w, None);
        assert!(warning.unwrap().contains("version 2"));
        assert_eq!(
            configured_with(&[core, ("core.fsmonitorHookVersion", "2")]),
            (hook(), None)
        );
    }

    #[test]
    fn configured_implicit_true_is_gits_daemon() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        let config = dir.path().join(".git/config");
        let mut text = std::fs::read_to_string(&config).unwrap();
        text.push_str("[core]\n\tfsmonitor\n");
        std::fs::write(&config, text).unwrap();
        let repo = gix::open_opts(dir.path(), gix::open::Options::isolated()).unwrap();
        assert_eq!(configured(&repo), (None, None));
    }

    // --- Watchman ---------------------------------------------------------

    /// Whether `watchman` can be run; when it cannot, the test is skipped,
    /// unless `T3_REQUIRE_WATCHMAN=1` (CI) makes that a failure.
    fn watchman_or_skip(test: &str) -> bool {
        let found = Command::new("watchman")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !found {
            assert!(
                std::env::var_os("T3_REQUIRE_WATCHMAN").is_none_or(|v| v != "1"),
                "T3_REQUIRE_WATCHMAN=1, but watchman is not on PATH"
            );
            eprintln!("skipping {test}: watchman is not on PATH");
        }
        found
    }

    /// Stops watching `0` when dropped (also when a test fails).
    struct WatchDel(PathBuf);

    impl Drop for WatchDel {
        fn drop(&mut self) {
            let _ = Command::new("watchman")
                .arg("watch-del")
                .arg(&self.0)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }

    fn real(path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap()
    }

    #[test]
    fn watchman_reports_changes_since_its_clock() {
        if !watchman_or_skip("watchman_reports_changes_since_its_clock") {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let root = real(dir.path());
        git(&root, &["init", "-q"]);
        let _unwatch = WatchDel(root.clone());
        std::fs::write(root.join("a"), "a").unwrap();
        std::fs::create_dir_all(root.join("d")).unwrap();
        std::fs::write(root.join("d/b"), "b").unwrap();
        std::fs::write(root.join("gone"), "x").unwrap();
        std::fs::create_dir_all(root.join("old/deep")).unwrap();
        std::fs::write(root.join("old/deep/f"), "f").unwrap();

        let w = Watcher::Watchman;
        let start = Instant::now();
        let first = w.changes(&root, None).unwrap();
        eprintln!(
            "watchman: first use (watch-project + clock) took {:?}",
            start.elapsed()
        );
        assert_eq!(first.paths, None);
        let clock = first.token.unwrap();
        assert!(clock.starts_with("c:"), "{clock}");

        std::fs::write(root.join("a"), "changed").unwrap();
        std::fs::write(root.join("new"), "n").unwrap();
        std::fs::remove_file(root.join("gone")).unwrap();
        std::fs::remove_file(root.join("d/b")).unwrap();
        std::fs::create_dir_all(root.join("e/f")).unwrap();
        std::fs::write(root.join("e/f/g"), "g").unwrap();
        std::fs::rename(root.join("old"), root.join("moved")).unwrap();
        let outside = tempfile::tempdir_in(root.parent().unwrap()).unwrap();
        std::fs::create_dir_all(outside.path().join("x/y")).unwrap();
        std::fs::write(outside.path().join("x/y/z"), "z").unwrap();
        std::fs::rename(outside.path().join("x"), root.join("came-in")).unwrap();
        std::fs::write(root.join(".git/t3-test"), "x").unwrap();
        git(&root, &["add", "-A"]);

        let start = Instant::now();
        let next = w.changes(&root, Some(&clock)).unwrap();
        eprintln!(
            "watchman: a query (watch-project + query) took {:?}",
            start.elapsed()
        );
        let changed = next.paths.unwrap();
        for p in [
            "a",
            "new",
            "gone",
            "d",
            "d/b",
            "e",
            "e/f",
            "e/f/g",
            "old",
            "moved",
            "moved/deep/f",
            "old/deep/f",
            "came-in",
            "came-in/y",
            "came-in/y/z",
        ] {
            assert!(changed.iter().any(|c| c == p), "{p} not in {changed:?}");
        }
        assert!(!changed.iter().any(|c| c.starts_with(b".git")), "{changed:?}");
        assert!(!next.subtrees);
        let clock2 = next.token.unwrap();
        assert_ne!(clock, clock2);

        // Nothing since.
        let quiet = w.changes(&root, Some(&clock2)).unwrap();
        assert_eq!(quiet.paths, Some(vec![]));

        // Not a clock of ours: first use.
        for token in ["tok-from-a-hook", "1700000000", "n:cursor"] {
            let c = w.changes(&root, Some(token)).unwrap();
            assert_eq!(c.paths, None, "{token}");
            assert!(c.token.is_some_and(|t| t.starts_with("c:")));
        }

        // The watch is gone (and so is its history): a fresh instance.
        drop(WatchDel(root.clone()));
        let fresh = w.changes(&root, Some(&clock2)).unwrap();
        assert_eq!(fresh.paths, None);
        let clock3 = fresh.token.unwrap();
        std::fs::write(root.join("after"), "x").unwrap();
        let after = w.changes(&root, Some(&clock3)).unwrap();
        assert_eq!(after.paths, paths(&[b"after"]));
    }

    #[test]
    fn watchman_below_a_project_root() {
        if !watchman_or_skip("watchman_below_a_project_root") {
            return;
        }
        // A `.watchmanconfig` above makes Watchman watch there; the answer
        // is still relative to the worktree, and its `.git` is left out.
        let dir = tempfile::tempdir().unwrap();
        let outer = real(dir.path());
        std::fs::write(outer.join(".watchmanconfig"), "{}").unwrap();
        let root = outer.join("inner");
        std::fs::create_dir(&root).unwrap();
        git(&root, &["init", "-q"]);
        let _unwatch = WatchDel(outer.clone());
        let w = Watcher::Watchman;
        let clock = w.changes(&root, None).unwrap().token.unwrap();
        std::fs::write(root.join("x"), "x").unwrap();
        std::fs::write(root.join(".git/y"), "y").unwrap();
        std::fs::write(outer.join("z"), "z").unwrap();
        let c = w.changes(&root, Some(&clock)).unwrap();
        assert_eq!(c.paths, paths(&[b"x"]));
    }

    #[test]
    fn watchman_missing() {
        let ask = Ask {
            timeout: Duration::from_secs(1),
            watchman: OsStr::new("/nonexistent/watchman"),
        };
        let dir = tempfile::tempdir().unwrap();
        let e = Watcher::Watchman
            .changes_with(dir.path(), None, &ask)
            .unwrap_err();
        assert!(matches!(e, WatchError::WatchmanMissing), "{e:?}");
        assert!(e.to_string().starts_with("watchman is not installed"));
    }

    #[test]
    fn watchman_errors_and_odd_answers() {
        // A stand-in for the client: what it answers, and how it exits.
        let dir = tempfile::tempdir().unwrap();
        let fake = |body: &str| {
            let p = hook(dir.path(), "watchman", body);
            let ask = Ask {
                timeout: Duration::from_secs(10),
                watchman: p.as_os_str(),
            };
            Watcher::Watchman.changes_with(dir.path(), Some("c:1:2"), &ask)
        };
        let e = fake(r#"echo '{"version":"4.9.0","error":"unable to resolve root"}'; exit 1"#).unwrap_err();
        assert_eq!(e.to_string(), "watchman: unable to resolve root");
        let e = fake("echo 'cannot connect' >&2; exit 1").unwrap_err();
        assert_eq!(e.to_string(), "watchman exited with 1: cannot connect");
        let e = fake("echo '[1]'").unwrap_err();
        assert!(matches!(e, WatchError::Malformed { .. }), "{e:?}");
        // One answer for both calls: a root, a clock, and files.
        let answer = |files: &str, fresh: &str| {
            format!(r#"echo '{{"watch":"/w","clock":"c:1:3","is_fresh_instance":{fresh},"files":{files}}}'"#)
        };
        let c = fake(&answer(r#"["b","a",".git/x","a"]"#, "false")).unwrap();
        // The token keeps the project root it was taken in.
        assert_eq!(c.token.as_deref(), Some("c:1:3\t/w\t"));
        assert_eq!(c.paths, paths(&[b"a", b"b"]));
        let c = fake(&answer(r#"["a","/etc"]"#, "false")).unwrap();
        assert_eq!(c.paths, None);
        let c = fake(&answer("[]", "true")).unwrap();
        assert_eq!((c.token.as_deref(), c.paths), (Some("c:1:3\t/w\t"), None));
        let e = fake(&answer(r#"[{"name":"a"}]"#, "false")).unwrap_err();
        assert!(matches!(e, WatchError::Malformed { .. }), "{e:?}");
        // What it was sent: one JSON command per call, on stdin.
        let log = dir.path().join("requests");
        fake(&format!(
            "cat >> '{}'; echo >> '{}'; {}",
            log.display(),
            log.display(),
            answer("[]", "false")
        ))
        .unwrap();
        let sent = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<Value> = sent.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2, "{sent}");
        assert_eq!(
            lines.first(),
            Some(&json!(["watch-project", dir.path().to_str().unwrap()]))
        );
        assert_eq!(
            lines.get(1),
            Some(&json!(["query", "/w", {
                "since": "c:1:2",
                "fields": ["name"],
                "expression": ["not", ["anyof", ["dirname", ".git"], ["name", ".git", "wholename"]]],
                "empty_on_fresh_instance": true,
                "sync_timeout": 8000,
                "lock_timeout": 8000,
            }]))
        );

        // A token naming this worktree's project: the query alone.
        let here = std::fs::canonicalize(dir.path()).unwrap();
        let root = here.parent().unwrap().to_str().unwrap().to_owned();
        let name = here.file_name().unwrap().to_str().unwrap().to_owned();
        let token = format!("c:1:2\t{root}\t{name}");
        let logged = |body: &str| {
            let _ = std::fs::remove_file(&log);
            let p = hook(
                dir.path(),
                "watchman",
                &format!("cat >> '{}'; echo >> '{}'; {body}", log.display(), log.display()),
            );
            let ask = Ask {
                timeout: Duration::from_secs(10),
                watchman: p.as_os_str(),
            };
            let got = Watcher::Watchman.changes_with(dir.path(), Some(&token), &ask);
            let sent = std::fs::read_to_string(&log).unwrap();
            let sent: Vec<Value> = sent.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
            (got, sent)
        };
        let answer_at = format!(
            r#"echo '{{"watch":"{root}","relative_path":"{name}","clock":"c:1:4","is_fresh_instance":false,"files":["x"]}}'"#
        );
        let (got, sent) = logged(&answer_at);
        assert_eq!(sent.len(), 1, "{sent:?}");
        assert_eq!(sent[0][0], "query");
        assert_eq!(sent[0][1], root.as_str());
        assert_eq!(sent[0][2]["relative_root"], name.as_str());
        let got = got.unwrap();
        assert_eq!(got.paths, paths(&[b"x"]));
        assert_eq!(got.token, Some(format!("c:1:4\t{root}\t{name}")));
        // Watchman no longer watches there: the whole way (watch-project,
        // then the query).
        let (got, sent) = logged(&format!(
            r#"if grep -q watch-project '{}'; then {answer_at}; else echo '{{"error":"unable to resolve root"}}'; exit 1; fi"#,
            log.display()
        ));
        assert_eq!(sent.len(), 3, "{sent:?}");
        assert_eq!(sent[1][0], "watch-project");
        assert_eq!(got.unwrap().paths, paths(&[b"x"]));
        // A token of another worktree's project: the whole way at once.
        let other = "c:1:2\t/elsewhere\t".to_owned();
        let p = hook(dir.path(), "watchman", &answer_at);
        let ask = Ask {
            timeout: Duration::from_secs(10),
            watchman: p.as_os_str(),
        };
        assert!(
            Watcher::Watchman
                .changes_with(dir.path(), Some(&other), &ask)
                .is_ok()
        );
    }

    #[test]
    fn watchman_tokens_keep_their_project() {
        let p = Project {
            root: "/w".into(),
            relative: Some("sub/dir".into()),
        };
        assert_eq!(p.token("c:1:2"), "c:1:2\t/w\tsub/dir");
        assert_eq!(
            Token::parse(&p.token("c:1:2")),
            Token {
                clock: "c:1:2".into(),
                project: Some(p.clone())
            }
        );
        let top = Project {
            root: "/w".into(),
            relative: None,
        };
        assert_eq!(Token::parse(&top.token("c:9")).project, Some(top.clone()));
        // Names that do not fit on the line: the clock alone.
        let odd = Project {
            root: "/w\tx".into(),
            relative: None,
        };
        assert_eq!(odd.token("c:1"), "c:1");
        // Older tokens, and odd ones, have no project.
        for t in ["c:1:2", "c:1\trelative\tx", "c:1\t/w", "c:1\t/w\tx\ty"] {
            assert_eq!(Token::parse(t).project, None, "{t}");
        }
        assert!(p.is(Path::new("/w/sub/dir")));
        assert!(!p.is(Path::new("/w/sub")));
    }
}
