//! The review server's HTTP transport: one thread per connection reads one
//! request — its head at most [`MAX_HEAD`] bytes, parsed by `httparse`, its
//! body only when it is a form no larger than [`http::MAX_BODY`] — within
//! [`READ_WITHIN`], hands it to the serving loop, and writes the answer with
//! a timeout; every connection is closed after one answer. So no client,
//! with or without the token, can make the server allocate what it declares,
//! hold the serving loop, or keep more than [`MAX_CONNECTIONS`] threads.

use std::io::{Read as _, Write as _};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use super::http::{self, Refusal};

/// Bytes of request line and headers read at most.
pub const MAX_HEAD: usize = 16 * 1024;
/// Headers a request may have.
const MAX_HEADERS: usize = 32;
/// Time a client has to send its whole request.
const READ_WITHIN: Duration = Duration::from_secs(10);
/// Time an answer may take to be written.
const WRITE_WITHIN: Duration = Duration::from_secs(10);
/// Connections served at once; more are closed unanswered.
const MAX_CONNECTIONS: usize = 32;

/// One request, read whole.
pub struct Request {
    /// The method, as sent.
    pub method: String,
    /// The request target, as sent.
    pub url: String,
    /// Header names (lower case) and values.
    headers: Vec<(String, String)>,
    /// The form of a POST, or why it was not read.
    pub body: Result<Vec<u8>, Refusal>,
    /// Whether the request declared a body (a GET must not).
    pub has_body: bool,
    stream: TcpStream,
}

impl Request {
    /// The values of header `name`.
    pub fn header_values(&self, name: &str) -> Vec<&str> {
        values(&self.headers, name)
    }

    /// Answer it (see [`send`]).
    pub fn respond(self, status: u16, headers: &[(&str, &str)], body: &[u8], head_only: bool) {
        send(self.stream, status, headers, body, head_only);
    }
}

/// Write an answer on a thread of its own (a client that does not read
/// cannot hold the serving loop) and close the connection.
fn send(mut stream: TcpStream, status: u16, headers: &[(&str, &str)], body: &[u8], head_only: bool) {
    let mut out = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let mut bytes = out.into_bytes();
    if !head_only {
        bytes.extend_from_slice(body);
    }
    std::thread::spawn(move || {
        // A client gone away is no reason to stop.
        let _ = stream.write_all(&bytes);
        let _ = stream.flush();
        let _ = stream.shutdown(Shutdown::Both);
    });
}

/// Accept connections on `listener` on a thread of its own (it ends with
/// the process); requests come out of the returned channel.
pub fn accept(listener: TcpListener) -> Receiver<Request> {
    let (tx, rx) = channel();
    let live = Arc::new(AtomicUsize::new(0));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            if live.load(Ordering::SeqCst) >= MAX_CONNECTIONS {
                let _ = stream.shutdown(Shutdown::Both);
                continue;
            }
            live.fetch_add(1, Ordering::SeqCst);
            let (tx, mine) = (tx.clone(), Arc::clone(&live));
            let spawned = std::thread::Builder::new()
                .name("t3-review-conn".into())
                .spawn(move || {
                    serve_connection(stream, &tx);
                    mine.fetch_sub(1, Ordering::SeqCst);
                });
            if spawned.is_err() {
                live.fetch_sub(1, Ordering::SeqCst);
            }
        }
    });
    rx
}

/// Read one request from `stream` and pass it on; a malformed or overlong
/// one is answered here.
fn serve_connection(stream: TcpStream, tx: &Sender<Request>) {
    let deadline = Instant::now() + READ_WITHIN;
    let _ = stream.set_write_timeout(Some(WRITE_WITHIN));
    match read_request(stream, deadline) {
        Ok(request) => {
            let _ = tx.send(request);
        }
        Err((stream, refusal)) => {
            let body = super::error_body(super::kind_of_status(refusal.status), &refusal.message);
            send(
                stream,
                refusal.status,
                &super::common_headers(super::JSON),
                &body,
                false,
            );
        }
    }
}

/// Read the head, then the form of a POST if it is small enough.
fn read_request(mut stream: TcpStream, deadline: Instant) -> Result<Request, (TcpStream, Refusal)> {
    let mut buf = vec![0u8; MAX_HEAD];
    let mut filled = 0;
    let head_end = loop {
        if let Some(end) = find_head_end(&buf[..filled]) {
            break end;
        }
        if filled == buf.len() {
            return Err((stream, Refusal::new(431, "the request's headers are too large")));
        }
        match read_some(&mut stream, &mut buf[filled..], deadline) {
            Ok(0) | Err(_) => {
                return Err((
                    stream,
                    Refusal::new(408, "the request did not arrive whole in time"),
                ));
            }
            Ok(n) => filled += n,
        }
    };
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Request::new(&mut headers);
    match parsed.parse(&buf[..head_end]) {
        Ok(httparse::Status::Complete(_)) => {}
        Err(httparse::Error::TooManyHeaders) => {
            return Err((stream, Refusal::new(431, "the request has too many headers")));
        }
        _ => return Err((stream, Refusal::new(400, "the request is not well-formed HTTP"))),
    }
    let method = parsed.method.unwrap_or_default().to_owned();
    let url = parsed.path.unwrap_or_default().to_owned();
    let mut fields = Vec::with_capacity(parsed.headers.len());
    for h in parsed.headers.iter() {
        let Ok(value) = std::str::from_utf8(h.value) else {
            return Err((stream, Refusal::new(400, "a header is not UTF-8")));
        };
        fields.push((h.name.to_ascii_lowercase(), value.trim().to_owned()));
    }
    if !values(&fields, "transfer-encoding").is_empty() {
        return Err((
            stream,
            Refusal::new(413, "a body must come with its length, not in chunks"),
        ));
    }
    let lengths = values(&fields, "content-length");
    let length = match lengths.as_slice() {
        [] => None,
        [one] => match one.parse::<u64>() {
            Ok(n) => Some(n),
            Err(_) => return Err((stream, Refusal::new(400, "the Content-Length is not a number"))),
        },
        _ => {
            return Err((
                stream,
                Refusal::new(400, "the request has more than one Content-Length"),
            ));
        }
    };
    let has_body = length.is_some_and(|n| n > 0);
    let body = match length {
        _ if method != "POST" => Ok(Vec::new()),
        None => Err(Refusal::new(411, "the form is missing its length")),
        Some(n) if n > http::MAX_BODY as u64 => Err(Refusal::new(413, "the form is too large")),
        Some(n) => read_body(&mut stream, &buf[head_end..filled], n, deadline),
    };
    Ok(Request {
        method,
        url,
        headers: fields,
        body,
        has_body,
        stream,
    })
}

/// The values of header `name` among `fields`.
fn values<'a>(fields: &'a [(String, String)], name: &str) -> Vec<&'a str> {
    fields
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
        .collect()
}

/// A body of `n` bytes: what came with the head (`early`) first, then the
/// rest, all by `deadline`.
fn read_body(stream: &mut TcpStream, early: &[u8], n: u64, deadline: Instant) -> Result<Vec<u8>, Refusal> {
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    let mut body: Vec<u8> = early.iter().copied().take(n).collect();
    let mut chunk = [0u8; 1024];
    while body.len() < n {
        let want = (n - body.len()).min(chunk.len());
        match read_some(stream, &mut chunk[..want], deadline) {
            Ok(got) if got > 0 => body.extend_from_slice(&chunk[..got]),
            _ => return Err(Refusal::new(408, "the form did not arrive whole in time")),
        }
    }
    Ok(body)
}

/// The end of the head (after its blank line), if it has arrived.
fn find_head_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|p| p + 4)
}

/// One read, waiting at most until `deadline`.
fn read_some(stream: &mut TcpStream, buf: &mut [u8], deadline: Instant) -> std::io::Result<usize> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(std::io::ErrorKind::TimedOut.into());
    }
    stream.set_read_timeout(Some(left))?;
    stream.read(buf)
}

/// The reason phrase of `status`.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        _ => "Status",
    }
}
