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
#[path = "watcher_tests.rs"]
mod tests;
