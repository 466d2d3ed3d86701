//! The review server's HTTP transport.
//!
//! The accept loop only accepts: each connection gets a thread of its own
//! that reads one request — its head at most [`MAX_HEAD`] bytes within
//! [`HEAD_WITHIN`] of connecting, parsed by `httparse`, then its body only
//! when it is a form no larger than [`http::MAX_BODY`], within
//! [`BODY_WITHIN`] more — hands it to the serving loop, waits for the
//! answer, writes it within [`WRITE_WITHIN`] and closes the connection.
//!
//! What is held is bounded: at most [`MAX_CONNECTIONS`] connections (and so
//! threads) at once, and at most [`PER_ADDRESS`] of them per client address
//! still sending their request. A new connection over either bound closes
//! the oldest one still sending its request (of that address, else of any),
//! so connections that send nothing, or send slowly, never keep a real
//! request out: they are dropped when newer ones come, and after their
//! deadline anyway. Only when every held connection has sent its request
//! (the serving loop has that many to answer) is a new one closed unread.
//! No client, with or without the token, can make the server allocate what
//! it declares, or hold the serving loop.

use std::collections::VecDeque;
use std::io::{Read as _, Write as _};
use std::net::{IpAddr, Shutdown, TcpListener, TcpStream};
use std::sync::mpsc::{Receiver, Sender, SyncSender, channel, sync_channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::http::{self, Refusal};

/// Bytes of request line and headers read at most.
pub const MAX_HEAD: usize = 16 * 1024;
/// Headers a request may have.
const MAX_HEADERS: usize = 32;
/// Time a client has, from connecting, to send its request head.
pub const HEAD_WITHIN: Duration = Duration::from_secs(5);
/// Time a client has, after its head, to send its form.
const BODY_WITHIN: Duration = Duration::from_secs(5);
/// Time an answer may take to be written, in all.
const WRITE_WITHIN: Duration = Duration::from_secs(10);
/// Connections held at once, whatever they are doing.
pub const MAX_CONNECTIONS: usize = 64;
/// Connections of one client address held while they send their request.
pub const PER_ADDRESS: usize = 8;

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
    /// Where the answer goes: the connection's thread writes it.
    reply: SyncSender<Vec<u8>>,
}

impl Request {
    /// The values of header `name`.
    pub fn header_values(&self, name: &str) -> Vec<&str> {
        values(&self.headers, name)
    }

    /// Answer it (see [`response`]); the connection's thread writes it and
    /// closes the connection.
    pub fn respond(self, status: u16, headers: &[(&str, &str)], body: &[u8], head_only: bool) {
        // A connection closed meanwhile has no thread waiting: nothing to do.
        let _ = self.reply.send(response(status, headers, body, head_only));
    }
}

/// The bytes of an answer; every connection is closed after one.
fn response(status: u16, headers: &[(&str, &str)], body: &[u8], head_only: bool) -> Vec<u8> {
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
    bytes
}

/// Write `bytes` by `deadline` (a client that reads slowly cannot hold the
/// thread longer), then close the connection.
fn write_and_close(mut stream: TcpStream, bytes: &[u8], deadline: Instant) {
    let mut rest = bytes;
    while !rest.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_write_timeout(Some(left)).is_err() {
            break;
        }
        match stream.write(rest) {
            // A client gone away is no reason to stop.
            Ok(0) | Err(_) => break,
            Ok(n) => rest = rest.get(n..).unwrap_or_default(),
        }
    }
    let _ = stream.flush();
    let _ = stream.shutdown(Shutdown::Both);
}

/// One connection the accept loop holds.
struct Held {
    id: u64,
    address: IpAddr,
    /// Still sending its request (may be closed for a newer connection).
    reading: bool,
    /// A handle on its socket, to close it from the accept loop.
    socket: TcpStream,
}

/// The connections held, oldest first.
#[derive(Default)]
struct Pool {
    held: Mutex<VecDeque<Held>>,
}

impl Pool {
    fn lock(&self) -> MutexGuard<'_, VecDeque<Held>> {
        // A thread that panicked holding it left a consistent list.
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Make room for a connection from `address` and hold it (`socket` is a
    /// handle on it); `false` when there is no room: every held connection
    /// has sent its request.
    fn admit(&self, id: u64, address: IpAddr, socket: TcpStream) -> bool {
        let mut held = self.lock();
        let same = held.iter().filter(|h| h.reading && h.address == address).count();
        if same >= PER_ADDRESS {
            close_oldest(&mut held, |h| h.reading && h.address == address);
        }
        if held.len() >= MAX_CONNECTIONS && !close_oldest(&mut held, |h| h.reading) {
            return false;
        }
        held.push_back(Held {
            id,
            address,
            reading: true,
            socket,
        });
        true
    }

    /// Connection `id` has sent its request: it is not closed for newer
    /// ones any more. `false` when it was closed already.
    fn read(&self, id: u64) -> bool {
        match self.lock().iter_mut().find(|h| h.id == id) {
            Some(h) => {
                h.reading = false;
                true
            }
            None => false,
        }
    }

    /// Connection `id` is done.
    fn release(&self, id: u64) {
        self.lock().retain(|h| h.id != id);
    }
}

/// Close and forget the oldest held connection `pick` chooses, if any.
fn close_oldest(held: &mut VecDeque<Held>, pick: impl Fn(&Held) -> bool) -> bool {
    match held.iter().position(pick).and_then(|i| held.remove(i)) {
        Some(h) => {
            // Its thread's read ends at once.
            let _ = h.socket.shutdown(Shutdown::Both);
            true
        }
        None => false,
    }
}

/// Forgets its connection when the connection's thread ends, however.
struct Release<'a> {
    pool: &'a Pool,
    id: u64,
}

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.pool.release(self.id);
    }
}

/// Accept connections on `listener` on a thread of its own (it ends with
/// the process); requests come out of the returned channel.
pub fn accept(listener: TcpListener) -> Receiver<Request> {
    let (tx, rx) = channel();
    let pool = Arc::new(Pool::default());
    std::thread::spawn(move || {
        let mut next_id = 0u64;
        for stream in listener.incoming() {
            let Ok(stream) = stream else {
                // Out of descriptors, say: not a reason to spin.
                std::thread::sleep(Duration::from_millis(10));
                continue;
            };
            next_id += 1;
            let id = next_id;
            let (Ok(peer), Ok(socket)) = (stream.peer_addr(), stream.try_clone()) else {
                let _ = stream.shutdown(Shutdown::Both);
                continue;
            };
            if !pool.admit(id, peer.ip(), socket) {
                let _ = stream.shutdown(Shutdown::Both);
                continue;
            }
            let (tx, mine) = (tx.clone(), Arc::clone(&pool));
            let spawned = std::thread::Builder::new()
                .name("t3-review-conn".into())
                .spawn(move || {
                    let _release = Release { pool: &mine, id };
                    serve_connection(stream, &tx, &mine, id);
                });
            if spawned.is_err() {
                pool.release(id);
            }
        }
    });
    rx
}

/// Read one request from `stream`, pass it on and write its answer; a
/// malformed or overlong one is answered here, one that never came is not.
fn serve_connection(stream: TcpStream, tx: &Sender<Request>, pool: &Pool, id: u64) {
    let (reply, answer) = sync_channel(1);
    let within = crate::fault::wait("HEAD_WITHIN", HEAD_WITHIN);
    let read = read_request(stream, Instant::now() + within, || pool.read(id), reply);
    let (stream, bytes) = match read {
        Ok((stream, request)) => {
            if tx.send(request).is_err() {
                return;
            }
            // The serving loop answers every request it takes; it stopped
            // when this fails.
            let Ok(bytes) = answer.recv() else { return };
            (stream, bytes)
        }
        Err(Unread::Nothing) => return,
        Err(Unread::Refused(stream, refusal)) => {
            let body = super::error_body(super::kind_of_status(refusal.status), &refusal.message);
            let headers = super::common_headers(super::JSON);
            (stream, response(refusal.status, &headers, &body, false))
        }
    };
    write_and_close(stream, &bytes, Instant::now() + WRITE_WITHIN);
}

/// Why no request came out of a connection.
enum Unread {
    /// Nothing arrived before the deadline, or the connection was closed
    /// (by the client, or for a newer one): nothing to answer.
    Nothing,
    /// What arrived is answered with this refusal.
    Refused(TcpStream, Refusal),
}

/// Read the head by `deadline`, then the form of a POST if it is small
/// enough; `head_read` is told when the head is in (`false`: the
/// connection was closed meanwhile). Its answer is to be sent to `reply`.
fn read_request(
    mut stream: TcpStream,
    deadline: Instant,
    head_read: impl FnOnce() -> bool,
    reply: SyncSender<Vec<u8>>,
) -> Result<(TcpStream, Request), Unread> {
    let mut buf = vec![0u8; MAX_HEAD];
    let mut filled = 0;
    let head_end = loop {
        if let Some(end) = find_head_end(buf.get(..filled).unwrap_or_default()) {
            break end;
        }
        if filled == buf.len() {
            return Err(Unread::Refused(
                stream,
                Refusal::new(431, "the request's headers are too large"),
            ));
        }
        match read_some(&mut stream, buf.get_mut(filled..).unwrap_or_default(), deadline) {
            Ok(0) | Err(_) if filled == 0 => return Err(Unread::Nothing),
            Ok(0) | Err(_) => {
                return Err(Unread::Refused(
                    stream,
                    Refusal::new(408, "the request did not arrive whole in time"),
                ));
            }
            Ok(n) => filled += n,
        }
    };
    if !head_read() {
        return Err(Unread::Nothing);
    }
    let refused = |stream, status, message: &str| Err(Unread::Refused(stream, Refusal::new(status, message)));
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut parsed = httparse::Request::new(&mut headers);
    match parsed.parse(buf.get(..head_end).unwrap_or_default()) {
        Ok(httparse::Status::Complete(_)) => {}
        Err(httparse::Error::TooManyHeaders) => {
            return refused(stream, 431, "the request has too many headers");
        }
        _ => return refused(stream, 400, "the request is not well-formed HTTP"),
    }
    let method = parsed.method.unwrap_or_default().to_owned();
    let url = parsed.path.unwrap_or_default().to_owned();
    let mut fields = Vec::with_capacity(parsed.headers.len());
    for h in parsed.headers.iter() {
        let Ok(value) = std::str::from_utf8(h.value) else {
            return refused(stream, 400, "a header is not UTF-8");
        };
        fields.push((h.name.to_ascii_lowercase(), value.trim().to_owned()));
    }
    if !values(&fields, "transfer-encoding").is_empty() {
        return refused(stream, 413, "a body must come with its length, not in chunks");
    }
    let lengths = values(&fields, "content-length");
    let length = match lengths.as_slice() {
        [] => None,
        [one] => match one.parse::<u64>() {
            Ok(n) => Some(n),
            Err(_) => return refused(stream, 400, "the Content-Length is not a number"),
        },
        _ => return refused(stream, 400, "the request has more than one Content-Length"),
    };
    let has_body = length.is_some_and(|n| n > 0);
    let early = buf.get(head_end..filled).unwrap_or_default();
    let body = match length {
        _ if method != "POST" => Ok(Vec::new()),
        None => Err(Refusal::new(411, "the form is missing its length")),
        Some(n) if n > http::MAX_BODY as u64 => Err(Refusal::new(413, "the form is too large")),
        Some(n) => read_body(&mut stream, early, n, Instant::now() + BODY_WITHIN),
    };
    Ok((
        stream,
        Request {
            method,
            url,
            headers: fields,
            body,
            has_body,
            reply,
        },
    ))
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
        match read_some(stream, chunk.get_mut(..want).unwrap_or_default(), deadline) {
            Ok(got) if got > 0 => body.extend_from_slice(chunk.get(..got).unwrap_or_default()),
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
        503 => "Service Unavailable",
        _ => "Status",
    }
}
