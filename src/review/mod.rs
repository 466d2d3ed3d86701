//! `git t3 review`: a small HTTP server on 127.0.0.1 for the review page.
//!
//! It sits just below the edge: its API runs the command-line commands
//! themselves: each `/api/…` request becomes the argument vector of a
//! `git t3 --json …` command, parsed by the clap definition, run by the
//! runner the edge hands it ([`Host`]: `app::run`, which this module never
//! imports) and rendered by
//! [`crate::output::render`], so the page and the command line never
//! disagree. Every request carries the random token of the printed URL
//! (403 otherwise) and a `Host` naming this server; the page's assets are
//! embedded in the binary ([`crate::output::web`]). A GET writes nothing to
//! the repository: its commands run read-only (see
//! [`crate::commands::context::Settings::read_only`]), so the page also
//! works in a repository the user can only read. The one command that
//! writes is `--allow-revert`'s, a POST that also needs the page's CSRF
//! token and a same-origin `Origin`. Idle or slow connections are bounded
//! and dropped ([`conn`]). It stops on Ctrl-C or SIGTERM, or after the idle
//! timeout.

mod conn;
pub mod http;

use std::collections::VecDeque;
use std::io::Read as _;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser as _;

use crate::cli::{Cli, Command, ListArgs};
use crate::commands::Outcome;
use crate::commands::review::{ReviewOutcome, Stopped};
use crate::error::{Context as _, Error, Result};
use crate::output::{self, Format, web};
use http::{Method, Refusal, Route};

/// How `review` runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The port (0 or `None`: one the system picks).
    pub port: Option<u16>,
    /// Start a browser on the URL.
    pub open: bool,
    /// The thread the page shows first.
    pub thread: Option<String>,
    /// Offer the revert button.
    pub allow_revert: bool,
    /// Stop after this long without a request.
    pub idle: Duration,
    /// The directory the commands run in (`-C`, else `.`).
    pub base: PathBuf,
}

/// How often the server looks at the interrupt flag and the idle clock.
const TICK: Duration = Duration::from_millis(200);
/// Page CSRF tokens remembered (the oldest are forgotten).
const CSRF_KEPT: usize = 64;

/// What the server needs of the program around it.
pub struct Host<'a> {
    /// Run a parsed command (`true`: it may write; the page's GETs run with
    /// `false`, and then only `list` and `diff` run, writing nothing), with
    /// no pager, no colour and times in UTC.
    pub run: &'a dyn Fn(Cli, bool) -> Result<Outcome>,
    /// When to stop.
    pub interrupt: crate::interrupt::Interrupt,
    /// `BROWSER`: what the page is opened with.
    pub browser: Option<String>,
}

/// Serve until interrupted or idle. `announce` is handed the URL once the
/// server listens (the edge prints it as the first line of stdout).
pub fn serve(opts: Options, host: &Host<'_>, announce: &mut dyn FnMut(&str)) -> Result<ReviewOutcome> {
    let runner = Runner {
        run: host.run,
        base: opts.base.clone(),
    };
    // Fail before listening when there is no repository or no such thread.
    runner.threads().map_err(|(_, e)| e)?;
    if let Some(t) = &opts.thread {
        runner.turns(t).map_err(|(_, e)| e)?;
    }
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, opts.port.unwrap_or(0))))
        .context(|| format!("could not listen on 127.0.0.1:{}", opts.port.unwrap_or(0)))?;
    let addr = listener
        .local_addr()
        .context(|| "could not read the address listened on".into())?;
    if !addr.ip().is_loopback() {
        return Err(Error::Internal(format!(
            "review would listen on {addr}, not 127.0.0.1"
        )));
    }
    let incoming = conn::accept(listener);
    let token = random_token()?;
    let url = format!("http://127.0.0.1:{}/{token}/", addr.port());
    announce(&url);
    let mut notices = Vec::new();
    // Kept until the server stops: the browser may read it late.
    let _launcher = match opts.open.then(|| open_browser(&url, host.browser.as_deref())) {
        Some(Ok(file)) => Some(file),
        Some(Err(problem)) => {
            notices.push(format!("could not open a browser ({problem}); open {url}"));
            None
        }
        None => None,
    };
    let mut state = State {
        runner,
        token,
        port: addr.port(),
        opts,
        csrf: VecDeque::new(),
        requests: 0,
        reverts: 0,
    };
    let mut last = Instant::now();
    let stopped = loop {
        if host.interrupt.fired() {
            break Stopped::Interrupted;
        }
        if last.elapsed() >= state.opts.idle {
            break Stopped::Idle;
        }
        let request = match incoming.recv_timeout(TICK) {
            Ok(r) => Some(r),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => None,
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Error::Internal(
                    "the HTTP server stopped accepting connections".into(),
                ));
            }
        };
        if let Some(request) = request {
            last = Instant::now();
            state.requests += 1;
            state.answer(request);
        }
    };
    Ok(ReviewOutcome {
        url,
        requests: state.requests,
        reverts: state.reverts,
        stopped,
        notices,
    })
}

/// The server's state between requests.
struct State<'a> {
    runner: Runner<'a>,
    token: String,
    port: u16,
    opts: Options,
    csrf: VecDeque<String>,
    requests: u64,
    reverts: u64,
}

/// A response before the common headers go on.
struct Reply {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
    allow: Option<&'static str>,
}

/// The content type of the API's answers.
const JSON: &str = "application/json; charset=utf-8";

impl Reply {
    fn json(body: Vec<u8>) -> Self {
        Reply {
            status: 200,
            content_type: JSON,
            body,
            allow: None,
        }
    }

    fn error(status: u16, kind: &str, message: &str) -> Self {
        Reply {
            status,
            content_type: JSON,
            body: error_body(kind, message),
            allow: None,
        }
    }

    fn refused(r: &Refusal) -> Self {
        Reply::error(r.status, kind_of_status(r.status), &r.message)
    }

    fn failed(status: u16, e: &Error) -> Self {
        Reply::error(status, e.kind().as_str(), &crate::error::one_line(e))
    }
}

fn kind_of_status(status: u16) -> &'static str {
    match status {
        403 => "forbidden",
        404 => "not_found",
        405 => "method_not_allowed",
        408 => "timeout",
        411 | 413 | 431 => "too_large",
        _ => "bad_request",
    }
}

/// The headers of every answer, with its content type.
fn common_headers(content_type: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![
        ("Content-Type", content_type),
        ("Content-Security-Policy", web::CSP),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-store"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
    ]
}

/// An error's body, as `--json` reports errors.
fn error_body(kind: &str, message: &str) -> Vec<u8> {
    output::error_json(kind, message).to_string().into_bytes()
}

impl State<'_> {
    fn answer(&mut self, mut request: conn::Request) {
        let head = request.method == "HEAD";
        let reply = self.reply(&mut request);
        let mut headers = common_headers(reply.content_type);
        if let Some(allow) = reply.allow {
            headers.push(("Allow", allow));
        }
        request.respond(reply.status, &headers, &reply.body, head);
    }

    fn reply(&mut self, request: &mut conn::Request) -> Reply {
        // Exactly one of each: a second Host or Origin is a request no
        // browser sends.
        let header = |name: &str| -> std::result::Result<Option<String>, Refusal> {
            match request.header_values(name).as_slice() {
                [] => Ok(None),
                [one] => Ok(Some((*one).to_owned())),
                _ => Err(Refusal::new(
                    400,
                    format!("the request has more than one {name} header"),
                )),
            }
        };
        let host = match header("Host") {
            Ok(h) => h,
            Err(r) => return Reply::refused(&r),
        };
        if !http::host_ok(host.as_deref(), self.port) {
            return Reply::refused(&Refusal::new(403, "the Host header does not name this server"));
        }
        let method = match request.method.as_str() {
            "GET" | "HEAD" => Method::Get,
            "POST" => Method::Post,
            _ => Method::Other,
        };
        if method == Method::Get && request.has_body {
            return Reply::refused(&Refusal::new(413, "a GET takes no body"));
        }
        let url = request.url.clone();
        let route = match http::route(method, &url, &self.token) {
            Ok(route) => route,
            Err(r) => {
                let mut reply = Reply::refused(&r);
                if r.status == 405 {
                    reply.allow = Some(http::allowed_method(&url));
                }
                return reply;
            }
        };
        let outcome = match route {
            Route::Page => return self.page(),
            Route::Asset(name) => {
                let (content_type, body) = web::asset(name);
                return Reply {
                    status: 200,
                    content_type,
                    body: body.as_bytes().to_vec(),
                    allow: None,
                };
            }
            Route::Threads => self.runner.threads(),
            Route::Turns(t) => self.runner.turns(&t),
            Route::Diff(q) => self.runner.json(&q.args()),
            Route::Patch(q, start) => self.runner.patch(&q.args(), start),
            Route::Revert => {
                let origin = match header("Origin") {
                    Ok(o) => o,
                    Err(r) => return Reply::refused(&r),
                };
                if !http::origin_ok(origin.as_deref(), self.port) {
                    return Reply::refused(&Refusal::new(403, "the Origin header does not name this server"));
                }
                match self.read_form(request) {
                    Ok(form) => self.revert(form),
                    Err(r) => return Reply::refused(&r),
                }
            }
        };
        match outcome {
            Ok(body) => Reply::json(body),
            Err((status, e)) => Reply::failed(status, &e),
        }
    }

    fn page(&mut self) -> Reply {
        let csrf = if self.opts.allow_revert {
            match random_token() {
                Ok(t) => {
                    if self.csrf.len() >= CSRF_KEPT {
                        self.csrf.pop_front();
                    }
                    self.csrf.push_back(t.clone());
                    Some(t)
                }
                Err(e) => return Reply::failed(500, &e),
            }
        } else {
            None
        };
        match self.runner.threads() {
            Ok(threads) => Reply {
                status: 200,
                content_type: "text/html; charset=utf-8",
                body: web::page(&threads, self.opts.thread.as_deref(), csrf.as_deref()).into_bytes(),
                allow: None,
            },
            Err((status, e)) => Reply::failed(status, &e),
        }
    }

    fn read_form(&self, request: &mut conn::Request) -> std::result::Result<http::RevertForm, Refusal> {
        if !self.opts.allow_revert {
            return Err(Refusal::new(
                403,
                "this page is read-only: start it with `git t3 review --allow-revert` to revert from it",
            ));
        }
        let body = std::mem::replace(&mut request.body, Ok(Vec::new()))?;
        let body = String::from_utf8(body).map_err(|_| Refusal::new(400, "the form is not UTF-8"))?;
        let form = http::revert_form(&body)?;
        if !self.csrf.iter().any(|t| http::same_secret(&form.csrf, t)) {
            return Err(Refusal::new(
                403,
                "the form's CSRF token is not this server's: reload the page",
            ));
        }
        Ok(form)
    }

    fn revert(&mut self, form: http::RevertForm) -> std::result::Result<Vec<u8>, (u16, Error)> {
        let mut args = vec![
            "revert".to_owned(),
            format!("--thread={}", form.thread),
            "--to".to_owned(),
            form.to.to_string(),
        ];
        if form.files_only {
            args.push("--files-only".to_owned());
        }
        let body = self.runner.revert(&args)?;
        self.reverts += 1;
        Ok(body)
    }
}

/// Runs `git t3` commands for the API, as the command line would.
struct Runner<'a> {
    run: &'a dyn Fn(Cli, bool) -> Result<Outcome>,
    base: PathBuf,
}

type Answer = std::result::Result<Vec<u8>, (u16, Error)>;

impl Runner<'_> {
    fn cli(&self, json: bool, args: &[String]) -> std::result::Result<Cli, (u16, Error)> {
        let mut argv = vec![
            "git-t3".to_owned(),
            "-C".to_owned(),
            self.base.display().to_string(),
        ];
        if json {
            argv.push("--json".to_owned());
        }
        argv.extend(args.iter().cloned());
        Cli::try_parse_from(argv).map_err(|e| (400, Error::usage(e.to_string().trim().to_owned())))
    }

    fn run(&self, cli: Cli, format: Format) -> Answer {
        let outcome = (self.run)(cli, false).map_err(|e| (status_of(&e), e))?;
        render(&outcome, format)
    }

    /// `git t3 --json <args>`, read-only.
    fn json(&self, args: &[String]) -> Answer {
        self.run(self.cli(true, args)?, Format::Json)
    }

    /// `git t3 --json revert <args>`: the one command that writes.
    fn revert(&self, args: &[String]) -> Answer {
        let outcome = (self.run)(self.cli(true, args)?, true).map_err(|e| (status_of(&e), e))?;
        render(&outcome, Format::Json)
    }

    /// `git t3 --json list` (built directly: `T3_THREAD` must not turn it
    /// into one thread's turns).
    fn threads(&self) -> Answer {
        let cli = Cli {
            directory: Some(self.base.clone()),
            json: true,
            quiet: false,
            command: Command::List(ListArgs {
                thread: None,
                remote: None,
            }),
        };
        self.run(cli, Format::Json)
    }

    /// `git t3 --json list --thread T`.
    fn turns(&self, thread: &str) -> Answer {
        self.json(&["list".to_owned(), format!("--thread={thread}")])
    }

    /// `git t3 diff --no-color <args>`: the patch, files from `start` on,
    /// a page at most.
    fn patch(&self, args: &[String], start: usize) -> Answer {
        let mut args = args.to_vec();
        args.push("--no-color".to_owned());
        let text = self.run(self.cli(false, &args)?, Format::Human)?;
        serde_json::to_vec(&web::patch_page(&text, start)).map_err(|e| (500, Error::Internal(e.to_string())))
    }
}

fn render(outcome: &Outcome, format: Format) -> Answer {
    let mut out = Vec::new();
    output::render(outcome, format, false, &mut out)
        .map_err(|e| (500, Error::Internal(format!("could not render: {e}"))))?;
    Ok(out)
}

/// The HTTP status of a command's error.
fn status_of(e: &Error) -> u16 {
    use crate::error::ErrorKind as K;
    match e.kind() {
        K::Usage => 400,
        K::NotFound => 404,
        K::Conflict | K::Refused => 409,
        K::Interrupted => 503,
        _ => 500,
    }
}

/// 192 random bits from the system, base64url: the URL and CSRF tokens.
fn random_token() -> Result<String> {
    use base64::Engine as _;
    let mut bytes = [0u8; 24];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .context(|| "could not read random bytes from /dev/urandom".into())?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// A page only this user can read that sends the browser on to `url`:
/// what the browser is started on, so the token is in no command line
/// (any user on the machine can read those), as Jupyter does.
fn launcher(url: &str) -> std::result::Result<tempfile::NamedTempFile, String> {
    let mut file = tempfile::Builder::new()
        .prefix("t3-review-")
        .suffix(".html")
        .tempfile()
        .map_err(|e| format!("could not write the page that opens it: {e}"))?;
    let link = web::html_escape(url);
    let page = format!(
        "<!doctype html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\">\
         <meta http-equiv=\"refresh\" content=\"0;url={link}\"><title>git t3 review</title>\
         <p><a href=\"{link}\">Open git t3 review</a></p>\n"
    );
    std::io::Write::write_all(&mut file, page.as_bytes())
        .map_err(|e| format!("could not write the page that opens it: {e}"))?;
    Ok(file)
}

/// Start `$BROWSER` (split like a shell would, never through one), else
/// `xdg-open`, else `open`, on a [`launcher`] page for `url`, without
/// waiting for it; the page's file is returned to be kept while serving.
fn open_browser(url: &str, browser: Option<&str>) -> std::result::Result<tempfile::NamedTempFile, String> {
    let page = launcher(url)?;
    let target = format!("file://{}", page.path().display());
    let mut candidates: Vec<Vec<String>> = Vec::new();
    if let Some(browser) = browser.filter(|b| !b.trim().is_empty()) {
        // `$BROWSER` may list several, separated by colons.
        for one in browser.split(':').filter(|b| !b.trim().is_empty()) {
            match shlex::split(one) {
                Some(words) if !words.is_empty() => candidates.push(words),
                _ => return Err(format!("cannot parse $BROWSER={browser:?}")),
            }
        }
    }
    candidates.push(vec!["xdg-open".into()]);
    candidates.push(vec!["open".into()]);
    let mut last = String::from("no browser");
    for words in candidates {
        let mut cmd = std::process::Command::new(&words[0]);
        cmd.args(&words[1..])
            .arg(&target)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        match cmd.spawn() {
            Ok(mut child) => {
                // Reap it whenever it ends.
                std::thread::spawn(move || child.wait());
                return Ok(page);
            }
            Err(e) => last = format!("{}: {e}", words[0]),
        }
    }
    Err(last)
}

/// The options of `review` from its arguments.
pub fn options(a: &crate::cli::ReviewArgs, base: &std::path::Path) -> Result<Options> {
    let idle = crate::model::age::parse(&a.idle_timeout).map_err(Error::usage)?;
    if idle == 0 {
        return Err(Error::usage("--idle-timeout must be more than 0"));
    }
    let base = std::path::absolute(base).context(|| format!("could not resolve {}", base.display()))?;
    Ok(Options {
        port: a.port,
        open: !a.no_open,
        thread: a.thread.clone(),
        allow_revert: a.allow_revert,
        idle: Duration::from_secs(idle),
        base,
    })
}
