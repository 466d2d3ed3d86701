//! The requests `git t3 review` answers, parsed strictly: a route from the
//! path (behind the token), a query with only the keys that route takes, and
//! anything else refused with the status that says why. No I/O here.

use std::collections::BTreeMap;

/// The longest request line (path and query) accepted.
pub const MAX_URL: usize = 4096;
/// The largest request body accepted (the revert form).
pub const MAX_BODY: usize = 4096;
/// The longest thread id (as `ThreadId` allows) and ref name accepted.
const MAX_VALUE: usize = 256;

/// Why a request is refused: an HTTP status and a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The status code.
    pub status: u16,
    /// What was wrong, for the response body.
    pub message: String,
}

impl Refusal {
    /// A refusal with `status`.
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Refusal {
            status,
            message: message.into(),
        }
    }

    pub(super) fn bad(message: impl Into<String>) -> Self {
        Refusal::new(400, message)
    }
}

/// The HTTP methods the server tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// GET (and HEAD, answered like GET without a body).
    Get,
    /// POST.
    Post,
    /// Anything else.
    Other,
}

/// The diff modes of the page: the seed's four, as `git t3 diff` has them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// One turn (default: the latest): `diff --thread T [--turn N]`.
    Turn {
        /// The thread.
        thread: String,
        /// The turn (default: the latest).
        turn: Option<u64>,
    },
    /// The whole thread: `diff --thread T --full [--to N]`.
    Full {
        /// The thread.
        thread: String,
        /// The last turn (default: the latest).
        to: Option<u64>,
    },
    /// The live worktree against HEAD: `diff --worktree`.
    Worktree,
    /// HEAD against its merge base: `diff --branch [BASE]`.
    Branch {
        /// The base (default: the upstream, else main/master).
        base: Option<String>,
    },
}

/// What `/api/diff` and `/api/patch` ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffQuery {
    /// The mode.
    pub mode: Mode,
    /// Ignore whitespace (`ws=1`, the default) or count it (`ws=0`).
    pub ignore_whitespace: bool,
}

impl DiffQuery {}

/// Which side of a diff a file is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileSide {
    /// The older side.
    Old,
    /// The newer side.
    New,
}

/// What a request asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// The page.
    Page,
    /// An embedded asset, by name.
    Asset(&'static str),
    /// `/api/threads`: `git t3 --json list`.
    Threads,
    /// `/api/turns?thread=ID`: `git t3 --json list --thread ID`. The id is
    /// in the query, never a path segment: a browser resolves a segment
    /// `.` or `..` (or `%2E%2E`) before sending, so a thread with that id
    /// could not be named in the path.
    Turns(String),
    /// `/api/diff?…`: `git t3 --json diff …`.
    Diff(DiffQuery),
    /// `/api/patch?…&start=N`: the patch, a page of files from file N.
    Patch(DiffQuery, usize),
    /// `POST /api/revert` (its form is in the body).
    Revert,
    /// `/api/ops`: `git t3 --json op log`.
    Ops,
    /// `/api/file?…&side=old|new&path=P`: an image of the diff, as bytes
    /// (the page's side-by-side image diff).
    File(DiffQuery, FileSide, String),
    /// `POST /api/undo` (its form is in the body): `git t3 op undo OP`.
    Undo,
}

/// The embedded assets the page loads.
pub const ASSETS: [&str; 2] = ["app.js", "app.css"];

/// Parse the request line of a request to the server whose URL token is
/// `token`: 413 for an overlong URL, 403 without the right token, 404 for an
/// unknown path, 405 for a wrong method, 400 for a query it does not take.
pub fn route(method: Method, url: &str, token: &str) -> Result<Route, Refusal> {
    if url.len() > MAX_URL {
        return Err(Refusal::new(413, "request URL too long"));
    }
    let (path, query) = match url.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (url, None),
    };
    let Some(path) = path.strip_prefix('/') else {
        return Err(Refusal::bad("the path must start with /"));
    };
    let mut segments = path.split('/');
    let first = segments.next().unwrap_or_default();
    if !same_secret(first, token) {
        return Err(Refusal::new(
            403,
            "this URL needs the token git t3 review printed",
        ));
    }
    let rest: Vec<&str> = segments.collect();
    let route = match rest.as_slice() {
        [""] => Route::Page,
        [name] => match ASSETS.iter().find(|a| *a == name) {
            Some(a) => Route::Asset(a),
            None => return Err(Refusal::new(404, "no such page")),
        },
        ["api", "threads"] => Route::Threads,
        ["api", "turns"] => Route::Turns(turns_query(&parse_query(query.unwrap_or_default())?)?),
        ["api", "diff"] => Route::Diff(diff_query(&parse_query(query.unwrap_or_default())?, false)?.0),
        ["api", "patch"] => {
            let (q, start) = diff_query(&parse_query(query.unwrap_or_default())?, true)?;
            Route::Patch(q, start)
        }
        ["api", "revert"] => Route::Revert,
        ["api", "ops"] => Route::Ops,
        ["api", "file"] => file_query(parse_query(query.unwrap_or_default())?)?,
        ["api", "undo"] => Route::Undo,
        _ => return Err(Refusal::new(404, "no such page")),
    };
    let takes_query = matches!(
        route,
        Route::Turns(_) | Route::Diff(_) | Route::Patch(..) | Route::File(..)
    );
    if !takes_query && query.is_some_and(|q| !q.is_empty()) {
        return Err(Refusal::bad("this path takes no query"));
    }
    let allowed = if route == Route::Revert || route == Route::Undo {
        Method::Post
    } else {
        Method::Get
    };
    if method != allowed {
        return Err(Refusal::new(405, "method not allowed"));
    }
    Ok(route)
}

/// The `Allow` header for a route's 405.
pub fn allowed_method(url: &str) -> &'static str {
    if url
        .split('?')
        .next()
        .is_some_and(|p| p.ends_with("/api/revert") || p.ends_with("/api/undo"))
    {
        "POST"
    } else {
        "GET, HEAD"
    }
}

/// Whether a `Host` header names this server: `127.0.0.1:<port>` or
/// `localhost:<port>` (a DNS-rebinding page sends its own host name).
pub fn host_ok(host: Option<&str>, port: u16) -> bool {
    host.is_some_and(|h| {
        let h = h.trim();
        h == format!("127.0.0.1:{port}") || h.eq_ignore_ascii_case(&format!("localhost:{port}"))
    })
}

/// Whether an `Origin` header (absent on a same-origin GET) is this server.
pub fn origin_ok(origin: Option<&str>, port: u16) -> bool {
    origin.is_none_or(|o| {
        let o = o.trim();
        o == format!("http://127.0.0.1:{port}") || o.eq_ignore_ascii_case(&format!("http://localhost:{port}"))
    })
}

/// Compare secrets in time that does not depend on where they differ.
pub fn same_secret(given: &str, secret: &str) -> bool {
    given.len() == secret.len()
        && given
            .bytes()
            .zip(secret.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

/// The thread of `/api/turns?thread=ID`.
fn turns_query(q: &BTreeMap<String, String>) -> Result<String, Refusal> {
    only(q, &["thread"])?;
    thread_value(
        q.get("thread")
            .ok_or_else(|| Refusal::bad("this path needs thread"))?,
    )
}

/// `/api/file`'s query: a diff's, a side and a path (at most 4 KiB, no NUL,
/// not absolute, no `..` component).
fn file_query(mut q: BTreeMap<String, String>) -> Result<Route, Refusal> {
    let side = match q.remove("side").as_deref() {
        Some("old") => FileSide::Old,
        Some("new") => FileSide::New,
        _ => return Err(Refusal::bad("side must be old or new")),
    };
    let path = q
        .remove("path")
        .ok_or_else(|| Refusal::bad("this path needs path"))?;
    if path.is_empty()
        || path.len() > MAX_VALUE
        || path.contains('\0')
        || path.starts_with('/')
        || path.split('/').any(|c| c.is_empty() || c == "." || c == "..")
    {
        return Err(Refusal::bad("not a path in the repository"));
    }
    Ok(Route::File(diff_query(&q, false)?.0, side, path))
}

fn diff_query(q: &BTreeMap<String, String>, paged: bool) -> Result<(DiffQuery, usize), Refusal> {
    let keys: &[&str] = if paged {
        &["mode", "thread", "turn", "base", "ws", "start"]
    } else {
        &["mode", "thread", "turn", "base", "ws"]
    };
    only(q, keys)?;
    let thread = q.get("thread").map(|t| thread_value(t)).transpose()?;
    let turn = q.get("turn").map(|t| number(t)).transpose()?;
    let base = q.get("base").map(|b| ref_value(b)).transpose()?;
    let need_thread = || {
        thread
            .clone()
            .ok_or_else(|| Refusal::bad("this mode needs thread"))
    };
    let mode = match q.get("mode").map(String::as_str).unwrap_or("turn") {
        "turn" | "full" if base.is_some() => return Err(Refusal::bad("base goes with mode=branch")),
        "turn" => Mode::Turn {
            thread: need_thread()?,
            turn,
        },
        "full" => Mode::Full {
            thread: need_thread()?,
            to: turn,
        },
        "worktree" | "branch" if thread.is_some() || turn.is_some() => {
            return Err(Refusal::bad("the live modes take no thread or turn"));
        }
        "worktree" if base.is_some() => return Err(Refusal::bad("base goes with mode=branch")),
        "worktree" => Mode::Worktree,
        "branch" => Mode::Branch { base },
        other => {
            return Err(Refusal::bad(format!(
                "mode={other}: want turn, full, worktree or branch"
            )));
        }
    };
    let start = q.get("start").map(|s| number(s)).transpose()?.unwrap_or(0);
    let start = usize::try_from(start).map_err(|_| Refusal::bad("start is too large"))?;
    Ok((
        DiffQuery {
            mode,
            ignore_whitespace: flag(q.get("ws").map(String::as_str), true)?,
        },
        start,
    ))
}

pub(super) fn only(q: &BTreeMap<String, String>, keys: &[&str]) -> Result<(), Refusal> {
    match q.keys().find(|k| !keys.contains(&k.as_str())) {
        Some(k) => Err(Refusal::bad(format!("unexpected parameter {k:?}"))),
        None => Ok(()),
    }
}

pub(super) fn flag(v: Option<&str>, default: bool) -> Result<bool, Refusal> {
    match v {
        None => Ok(default),
        Some("1") => Ok(true),
        Some("0") => Ok(false),
        Some(other) => Err(Refusal::bad(format!("{other:?}: want 0 or 1"))),
    }
}

pub(super) fn number(v: &str) -> Result<u64, Refusal> {
    if v.is_empty() || v.len() > 19 || !v.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Refusal::bad(format!("{v:?} is not a turn number")));
    }
    v.parse()
        .map_err(|_| Refusal::bad(format!("{v:?} is not a turn number")))
}

pub(super) fn thread_value(v: &str) -> Result<String, Refusal> {
    if v.is_empty() || v.len() > MAX_VALUE || v.chars().any(char::is_control) {
        return Err(Refusal::bad("not a thread id"));
    }
    Ok(v.to_owned())
}

/// A branch or commit name for `--branch`: git's safe characters only,
/// never an option.
fn ref_value(v: &str) -> Result<String, Refusal> {
    let ok = !v.is_empty()
        && v.len() <= MAX_VALUE
        && !v.starts_with('-')
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._/-~^@{}".contains(&b));
    if !ok {
        return Err(Refusal::bad(format!("base={v:?} is not a branch or commit name")));
    }
    Ok(v.to_owned())
}

/// `a=1&b=2`, percent-decoded; a key given twice, a key without `=`, bad
/// escapes or UTF-8 are refused.
pub fn parse_query(q: &str) -> Result<BTreeMap<String, String>, Refusal> {
    let mut out = BTreeMap::new();
    for pair in q.split('&').filter(|p| !p.is_empty()) {
        let Some((k, v)) = pair.split_once('=') else {
            return Err(Refusal::bad(format!("{pair:?} has no value")));
        };
        let (k, v) = (decode(k, true)?, decode(v, true)?);
        if out.insert(k.clone(), v).is_some() {
            return Err(Refusal::bad(format!("{k:?} given twice")));
        }
    }
    Ok(out)
}

/// Percent-decode (and `+` as a space in a query); the result must be UTF-8.
pub fn decode(s: &str, plus_is_space: bool) -> Result<String, Refusal> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    // Two hex digits: `from_str_radix` alone takes "+A".
                    .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| Refusal::bad("bad percent-escape"))?;
                out.push(hex);
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| Refusal::bad("not UTF-8"))
}

#[cfg(test)]
#[path = "http_tests.rs"]
mod tests;
