//! `git t3 review`: a small HTTP server on 127.0.0.1 for the review page.
//!
//! It calls the library's use cases directly with typed requests —
//! [`commands::list`](crate::commands::list), [`commands::diff`](crate::commands::diff),
//! [`commands::revert`](crate::commands::revert) — on a repository the
//! program around it opens ([`Host`]), and renders their outcomes with
//! [`crate::output::render`], as the command line does, so the page and the
//! command line never disagree. Every request carries the random token of
//! the printed URL (403 otherwise) and a `Host` naming this server; the
//! page's assets are embedded in the binary ([`crate::output::web`]). A GET
//! writes nothing to the repository: it opens it read-only (see
//! [`crate::context::Settings::read_only`]), so the page also
//! works in a repository the user can only read. The one request that
//! writes is `--allow-revert`'s, a POST that also needs the page's CSRF
//! token and a same-origin `Origin`. Idle or slow connections are bounded
//! and dropped ([`conn`]). It stops on Ctrl-C or SIGTERM, or after the idle
//! timeout.

mod conn;
mod forms;
pub mod http;

use std::collections::VecDeque;
use std::io::Read as _;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::commands::review::{ReviewOutcome, Stopped};
use crate::commands::{Context, Outcome};
use crate::error::{Context as _, Error, Result};
use crate::output::{self, Format, web};
use http::{Method, Refusal, Route};

mod browser;
mod runner;
use browser::*;
use runner::*;

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
    /// Open the repository the page shows, with the program's settings:
    /// writable (`true`) for the revert POST, else read-only (see
    /// [`crate::commands::Settings::read_only`]), so a GET writes nothing.
    pub open: &'a dyn Fn(bool) -> Result<Context>,
    /// When to stop.
    pub interrupt: crate::interrupt::Interrupt,
    /// `BROWSER`: what the page is opened with.
    pub browser: Option<String>,
}

/// Serve until interrupted or idle. `announce` is handed the URL once the
/// server listens (the edge prints it as the first line of stdout).
pub fn serve(opts: Options, host: &Host<'_>, announce: &mut dyn FnMut(&str)) -> Result<ReviewOutcome> {
    let runner = Runner {
        open: host.open,
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
            Route::Diff(q) => self.runner.diff(&q),
            Route::Patch(q, start) => self.runner.patch(&q, start),
            Route::Ops => self.runner.ops(),
            Route::File(q, side, path) => {
                return match self.runner.file(&q, side, &path) {
                    Ok((content_type, body)) => Reply {
                        status: 200,
                        content_type,
                        body,
                        allow: None,
                    },
                    Err((status, e)) => Reply::failed(status, &e),
                };
            }
            Route::Revert | Route::Undo => {
                let origin = match header("Origin") {
                    Ok(o) => o,
                    Err(r) => return Reply::refused(&r),
                };
                if !http::origin_ok(origin.as_deref(), self.port) {
                    return Reply::refused(&Refusal::new(403, "the Origin header does not name this server"));
                }
                match self.read_form(request, &route) {
                    Ok(forms::Form::Revert(form)) => self.revert(form),
                    Ok(forms::Form::Undo(form)) => self.runner.undo(&form),
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

    fn read_form(
        &self,
        request: &mut conn::Request,
        route: &Route,
    ) -> std::result::Result<forms::Form, Refusal> {
        if !self.opts.allow_revert {
            return Err(Refusal::new(
                403,
                "this page is read-only: start it with `git t3 review --allow-revert` to revert or undo from it",
            ));
        }
        let body = std::mem::replace(&mut request.body, Ok(Vec::new()))?;
        let body = String::from_utf8(body).map_err(|_| Refusal::new(400, "the form is not UTF-8"))?;
        let form = match route {
            Route::Undo => forms::Form::Undo(forms::undo_form(&body)?),
            _ => forms::Form::Revert(forms::revert_form(&body)?),
        };
        if !self.csrf.iter().any(|t| http::same_secret(form.csrf(), t)) {
            return Err(Refusal::new(
                403,
                "the form's CSRF token is not this server's: reload the page",
            ));
        }
        Ok(form)
    }

    fn revert(&mut self, form: forms::RevertForm) -> std::result::Result<Vec<u8>, (u16, Error)> {
        let body = self.runner.revert(&form)?;
        if !form.dry_run {
            self.reverts += 1;
        }
        Ok(body)
    }
}
