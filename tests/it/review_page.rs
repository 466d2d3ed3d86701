//! `git t3 review`: the local web page's server, driven over raw HTTP —
//! the token, the strict parsing, the API equal to `--json`, read-only
//! browsing, and the revert behind `--allow-revert` and a CSRF token.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::process::Child;
use std::time::Duration;

use crate::util::{THREAD, TestRepo, ref_for};

/// A running `git t3 review --no-open --port 0`.
pub(crate) struct Server {
    child: Child,
    port: u16,
    token: String,
}

impl Server {
    pub(crate) fn start(r: &TestRepo, extra: &[&str]) -> Self {
        let mut args = vec!["review", "--no-open", "--port", "0"];
        args.extend_from_slice(extra);
        Self::spawn(r, &args, &[])
    }

    fn spawn(r: &TestRepo, args: &[&str], env: &[(&str, &str)]) -> Self {
        Self::of(r.spawn_t3_piped(args, env))
    }

    /// The server `child` runs, once it printed its URL.
    fn of(mut child: Child) -> Self {
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let rest = line
            .trim()
            .strip_prefix("http://127.0.0.1:")
            .unwrap_or_else(|| panic!("first line is not the URL: {line:?}"));
        let (port, path) = rest.split_once('/').unwrap();
        let token = path.trim_end_matches('/').to_owned();
        assert!(token.len() >= 32, "a short token: {token}");
        Server {
            child,
            port: port.parse().unwrap(),
            token,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("/{}/{path}", self.token)
    }

    /// One raw request; returns (status, headers lower-cased, body).
    fn raw(&self, request: &str) -> (u16, String, Vec<u8>) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).unwrap();
        let split = buf
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a response head");
        let head = String::from_utf8_lossy(&buf[..split]).to_lowercase();
        let status = head.split(' ').nth(1).unwrap().parse().unwrap();
        (status, head, buf[split + 4..].to_vec())
    }

    fn request(&self, method: &str, path: &str, host: Option<&str>, body: &str) -> (u16, String, Vec<u8>) {
        let host = host.map_or_else(|| format!("127.0.0.1:{}", self.port), str::to_owned);
        self.raw(&format!(
            "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: \
             application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ))
    }

    fn get(&self, path: &str) -> (u16, String, Vec<u8>) {
        self.raw(&format!(
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            self.port
        ))
    }

    /// The CSRF token of a page load (`--allow-revert` only).
    fn csrf(&self) -> String {
        let (_, _, page) = self.get(&self.url(""));
        let page = String::from_utf8(page).unwrap();
        page.split("name=\"t3-csrf\" content=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap()
            .to_owned()
    }

    #[track_caller]
    pub(crate) fn json(&self, path: &str) -> serde_json::Value {
        let (status, _, body) = self.get(&self.url(path));
        assert_eq!(status, 200, "GET {path}: {}", String::from_utf8_lossy(&body));
        serde_json::from_slice(&body).unwrap()
    }

    fn status(&self, path: &str) -> u16 {
        self.get(path).0
    }

    /// SIGTERM, and the exit status.
    pub(crate) fn stop(mut self) -> std::process::ExitStatus {
        // SAFETY: signalling our own child by its pid.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        self.child.wait().unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A thread with turns 0..=2 (turn 1: edits, an added file, a rename and a
/// binary file; turn 2: a placeholder) and live edits after them.
fn thread(r: &TestRepo) {
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("README.md", "# demo\n\nline two, edited\n");
    r.write("src/new.rs", "fn new() {}\n");
    r.git(&["mv", "docs/old name.txt", "docs/new name.txt"]);
    r.write_bytes("assets/logo.bin", &[0, 1, 2, 3, 255]);
    r.t3(&["capture", "--thread", THREAD, "--title", "turn one"]).ok();
    r.t3(&["placeholder", "--thread", THREAD]).ok();
    r.write("src/lib.rs", "fn a() {}\nfn b() {  }\nfn c() {}\n// live\n");
}

#[test]
fn token_host_methods_and_parsing() {
    let r = TestRepo::seeded();
    thread(&r);
    let s = Server::start(&r, &[]);
    let (status, head, body) = s.get(&s.url(""));
    assert_eq!(status, 200);
    assert!(head.contains("content-type: text/html"));
    assert!(head.contains("content-security-policy: default-src 'none'"));
    assert!(head.contains("x-content-type-options: nosniff"));
    assert!(String::from_utf8_lossy(&body).contains(THREAD));
    let wrong = "x".repeat(s.token.len());
    for path in [
        "/".to_owned(),
        "/api/threads".to_owned(),
        format!("/{wrong}/"),
        format!("/{wrong}/api/threads"),
        format!("/{}/", &s.token[1..]),
    ] {
        assert_eq!(s.status(&path), 403, "{path}");
    }
    assert_eq!(s.status(&s.url("app.js")), 200);
    for path in [
        "nope",
        "api/nope",
        "../../etc/passwd",
        "src/main.rs",
        "app.js/x",
        "api/threads/x",
    ] {
        assert_eq!(s.status(&s.url(path)), 404, "{path}");
    }
    for query in [
        "api/diff?mode=turn",
        "api/diff?mode=what&thread=t",
        "api/diff?thread=t&turn=one",
        "api/diff?thread=t&thread=u",
        "api/diff?thread=t&unexpected=1",
        "api/diff?mode=worktree&thread=t",
        "api/diff?mode=branch&base=--output=x",
        "api/diff?thread=%ZZ",
        "api/threads?x=1",
        "?x=1",
    ] {
        assert_eq!(s.status(&s.url(query)), 400, "{query}");
    }
    assert_eq!(s.status(&s.url(&"a".repeat(5000))), 413);
    let (status, head, _) = s.request("POST", &s.url("api/threads"), None, "");
    assert_eq!(status, 405);
    assert!(head.contains("allow: get"));
    assert_eq!(s.request("DELETE", &s.url(""), None, "").0, 405);
    assert_eq!(s.request("GET", &s.url(""), Some("evil.example"), "").0, 403);
    assert_eq!(s.request("GET", &s.url(""), Some("127.0.0.1:1"), "").0, 403);
    assert_eq!(
        s.request("GET", &s.url(""), Some(&format!("localhost:{}", s.port)), "")
            .0,
        200
    );
    assert_eq!(s.request("GET", &s.url(""), None, "a body").0, 413);
    // Errors of the commands keep their --json shape.
    let (status, _, body) = s.get(&s.url("api/turns?thread=no-such-thread"));
    assert_eq!(status, 404);
    let e: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(e["error"]["kind"], "not_found");
    assert!(s.stop().success());
}

#[test]
fn api_answers_are_the_json_of_the_commands() {
    let r = TestRepo::seeded();
    thread(&r);
    let s = Server::start(&r, &[]);
    assert_eq!(s.json("api/threads"), r.t3_json(&["list"]));
    let id: String = url_escape(THREAD);
    assert_eq!(
        s.json(&format!("api/turns?thread={id}")),
        r.t3_json(&["list", "--thread", THREAD])
    );
    let cases: [(&str, &[&str]); 5] = [
        ("mode=turn&turn=1", &["--turn", "1"]),
        ("mode=turn&turn=1&ws=0", &["--turn", "1", "--keep-whitespace"]),
        ("mode=full&turn=1", &["--full", "--to", "1"]),
        ("mode=worktree&ws=0", &["--worktree"]),
        ("mode=worktree&ws=1", &["--worktree", "-w"]),
    ];
    for (query, args) in cases {
        let mut cli = vec!["diff"];
        if !query.contains("worktree") {
            cli.extend(["--thread", THREAD]);
        }
        cli.extend_from_slice(args);
        let q = if query.contains("worktree") {
            query.to_owned()
        } else {
            format!("{query}&thread={id}")
        };
        let page = s.json(&format!("api/diff?{q}"));
        assert_eq!(page, r.t3_json(&cli), "{query}");
        // The patch, file by file, in the order of the JSON's files.
        let patch = s.json(&format!("api/patch?{q}"));
        let files = page["files"].as_array().unwrap();
        assert_eq!(patch["total"], files.len(), "{query}");
        assert_eq!(patch["next"], serde_json::Value::Null);
        cli.push("--no-color");
        let text = r.t3(&cli).out();
        let joined: String = patch["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["text"].as_str().unwrap())
            .collect();
        assert_eq!(joined, text, "{query}");
        for (f, p) in files.iter().zip(patch["files"].as_array().unwrap()) {
            let path = f["path"].as_str().unwrap();
            assert!(p["text"].as_str().unwrap().contains(path), "{query}: {path}");
        }
    }
    // A page from a later file on.
    let later = s.json(&format!("api/patch?mode=turn&turn=1&thread={id}&start=2"));
    assert_eq!(later["files"][0]["index"], 2);
    // A placeholder's diff is refused as on the command line.
    let (status, _, body) = s.get(&s.url(&format!("api/diff?thread={id}&turn=2")));
    assert_eq!(status, 409, "{}", String::from_utf8_lossy(&body));
    s.stop();
}

/// The page's word highlights are `git diff --word-diff`'s words: the
/// pieces porcelain marks `-` and `+` are the marked parts of the lines.
#[test]
fn the_page_marks_the_words_git_word_diff_marks() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write(
        "README.md",
        "# demo, retitled\n\nline two, with other words\nand a line more\n",
    );
    r.t3(&["capture", "--thread", THREAD]).ok();
    let s = Server::start(&r, &[]);
    let id = url_escape(THREAD);
    let patch = s.json(&format!("api/patch?mode=turn&turn=1&ws=0&thread={id}"));
    let file = &patch["files"][0];
    let text = file["text"].as_str().unwrap();
    let changed: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("@@"))
        .filter(|l| l.starts_with('-') || l.starts_with('+'))
        .collect();
    let mut page: Vec<String> = Vec::new();
    for (line, marks) in changed.iter().zip(file["words"].as_array().unwrap()) {
        for m in marks.as_array().unwrap() {
            let (a, b) = (m[0].as_u64().unwrap() as usize, m[1].as_u64().unwrap() as usize);
            page.push(format!("{}{}", &line[..1], &line[1..][a..b]));
        }
    }
    let porcelain = r
        .t3(&[&crate::util::TURN_1_DIFF[1..], &["--word-diff=porcelain"]].concat())
        .out();
    let git: Vec<String> = porcelain
        .lines()
        .skip_while(|l| !l.starts_with("@@"))
        .filter(|l| {
            (l.starts_with('-') || l.starts_with('+')) && !l.starts_with("---") && !l.starts_with("+++")
        })
        .map(str::to_owned)
        .collect();
    let mut page_sorted = page.clone();
    page_sorted.sort();
    let mut git_sorted = git.clone();
    git_sorted.sort();
    assert_eq!(page_sorted, git_sorted, "page {page:?}, git {git:?}");
    assert!(git.len() >= 4, "setup: {porcelain}");
    s.stop();
}

#[test]
fn browsing_changes_nothing_and_revert_needs_the_flag() {
    let r = TestRepo::seeded();
    thread(&r);
    // `git status` may refresh the user's index itself: before the index
    // is read, and after it is compared.
    let status = r.git(&["status", "--porcelain", "--untracked-files=all"]);
    let refs = r.git(&["for-each-ref", "refs/t3", "refs/notes"]);
    let user = r.user_state();
    let lib = std::fs::read(r.root.join("src/lib.rs")).unwrap();
    let s = Server::start(&r, &[]);
    let id = url_escape(THREAD);
    for path in [
        String::new(),
        "app.css".into(),
        "api/threads".into(),
        format!("api/turns?thread={id}"),
        format!("api/diff?thread={id}"),
        format!("api/diff?thread={id}&turn=1"),
        format!("api/patch?thread={id}&turn=1"),
        format!("api/diff?mode=full&thread={id}"),
        "api/diff?mode=worktree".into(),
        "api/patch?mode=worktree&ws=0".into(),
        "api/diff?mode=branch".into(),
    ] {
        s.get(&s.url(&path));
    }
    let body = format!("thread={id}&to=0&files_only=1&csrf=x");
    let (code, _, body) = s.request("POST", &s.url("api/revert"), None, &body);
    assert_eq!(code, 403, "{}", String::from_utf8_lossy(&body));
    assert!(String::from_utf8_lossy(&body).contains("--allow-revert"));
    s.stop();
    assert_eq!(r.user_state(), user);
    assert_eq!(r.git(&["for-each-ref", "refs/t3", "refs/notes"]), refs);
    assert_eq!(r.git(&["status", "--porcelain", "--untracked-files=all"]), status);
    assert_eq!(std::fs::read(r.root.join("src/lib.rs")).unwrap(), lib);
    assert!(r.t3_json(&["op", "log"])["ops"].as_array().unwrap().is_empty());
}

#[test]
fn revert_from_the_page_goes_through_the_saga() {
    let r = TestRepo::seeded();
    thread(&r);
    r.t3(&["capture", "--thread", THREAD, "--turn", "2"]).ok();
    let s = Server::start(&r, &["--allow-revert"]);
    let csrf = s.csrf();
    assert!(csrf.len() >= 32);
    let id = url_escape(THREAD);
    let form = |csrf: &str| format!("thread={id}&to=1&files_only=1&csrf={csrf}");
    let post = |body: &str, origin: Option<&str>| {
        let origin = origin.map(|o| format!("Origin: {o}\r\n")).unwrap_or_default();
        s.raw(&format!(
            "POST {} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{origin}Connection: close\r\nContent-Length: \
             {}\r\n\r\n{body}",
            s.url("api/revert"),
            s.port,
            body.len()
        ))
    };
    let before = r.git(&["for-each-ref", "refs/t3"]);
    // No CSRF token, a wrong one, a foreign origin, a huge form: refused.
    assert_eq!(post(&format!("thread={id}&to=1&files_only=1"), None).0, 400);
    assert_eq!(post(&form(&"x".repeat(csrf.len())), None).0, 403);
    assert_eq!(post(&form(&csrf), Some("http://evil.example")).0, 403);
    assert_eq!(post(&"a".repeat(5000), None).0, 413);
    assert_eq!(r.git(&["for-each-ref", "refs/t3"]), before);
    let origin = format!("http://127.0.0.1:{}", s.port);
    let (code, _, body) = post(&form(&csrf), Some(&origin));
    assert_eq!(code, 200, "{}", String::from_utf8_lossy(&body));
    let done: serde_json::Value = serde_json::from_slice(&body).unwrap();
    s.stop();
    // As the command line's: the files of turn 1, a revert in the op log
    // with its safety checkpoint, and the same JSON shape.
    assert_eq!(
        r.git(&["show", &format!("{}:README.md", ref_for(THREAD, 1))]),
        std::fs::read_to_string(r.root.join("README.md"))
            .unwrap()
            .trim_end()
    );
    assert_eq!(
        r.git(&["show", &format!("{}:src/lib.rs", ref_for(THREAD, 1))]),
        std::fs::read_to_string(r.root.join("src/lib.rs"))
            .unwrap()
            .trim_end()
    );
    let ops = r.t3_json(&["op", "log"]);
    let op = &ops["ops"][0];
    assert_eq!(op["kind"], "revert");
    assert!(op["safety"].is_string(), "{op}");
    let undo = r.t3_json(&["revert", "--thread", THREAD, "--undo"]);
    let keys = |v: &serde_json::Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
    let cli = r.t3_json(&["revert", "--thread", THREAD, "--to", "1", "--files-only"]);
    assert_eq!(keys(&done), keys(&cli), "page {done}\ncli {cli}\n(undo {undo})");
}

#[test]
fn stops_when_idle_and_refuses_bad_options() {
    let r = TestRepo::seeded();
    thread(&r);
    let mut s = Server::start(&r, &["--idle-timeout", "1s"]);
    let started = std::time::Instant::now();
    let status = s.child.wait().unwrap();
    assert!(status.success());
    assert!(started.elapsed() < Duration::from_secs(30));
    r.t3(&["review", "--no-open", "--idle-timeout", "0"]).fails(2);
    r.t3(&["review", "--no-open", "--thread", "no-such-thread"])
        .fails(1);
    let outside = tempfile::tempdir().unwrap();
    r.t3_in(outside.path(), &["review", "--no-open"]).fails(1);
}

fn url_escape(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// No client, with the token or without, can stop the server: a declared
/// body of 100 TB, a head that never ends or is too large, a connection
/// that sends nothing, duplicate `Host` headers.
#[test]
fn hostile_connections_do_not_stop_or_hold_the_server() {
    let r = TestRepo::seeded();
    thread(&r);
    let s = Server::start(&r, &[]);
    let port = s.port;
    // A huge declared body, without the token: refused, nothing allocated.
    let (status, _, _) = s.raw(&format!(
        "POST /x HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 100000000000000\r\n\r\n"
    ));
    assert_eq!(status, 403);
    assert_eq!(s.status(&s.url("api/threads")), 200, "the server died");
    // The same with the token, on the revert route.
    let (status, _, _) = s.raw(&format!(
        "POST {} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 100000000000000\r\n\r\n",
        s.url("api/revert")
    ));
    assert!(status == 403 || status == 413, "{status}");
    // Headers beyond 16 KiB.
    let (status, _, _) = s.raw(&format!(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Big: {}\r\n\r\n",
        "a".repeat(20_000)
    ));
    assert_eq!(status, 431);
    // Two Host headers, the first one right.
    let (status, _, _) = s.raw(&format!(
        "GET {} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: evil.example\r\n\r\n",
        s.url("api/threads")
    ));
    assert_eq!(status, 400);
    // Connections that stall mid-head or mid-body, and one that sends
    // nothing: the server answers others meanwhile.
    let mut stalled = Vec::new();
    for partial in [
        "GET / HTTP/1.1\r\nHost: 127.0.0.1".to_owned(),
        format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 5000\r\n\r\n"),
        String::new(),
    ] {
        let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
        c.write_all(partial.as_bytes()).unwrap();
        stalled.push(c);
    }
    let started = std::time::Instant::now();
    assert_eq!(s.status(&s.url("api/threads")), 200);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "a stalled connection held the server for {:?}",
        started.elapsed()
    );
    drop(stalled);
    assert!(s.stop().success());
}

/// The browser is started on a page only this user can read, never on
/// the URL with its token (any user can read a command line).
#[cfg(unix)]
#[test]
fn the_browser_never_sees_the_token_on_its_command_line() {
    use std::os::unix::fs::PermissionsExt as _;
    let r = TestRepo::seeded();
    thread(&r);
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("args");
    let browser = dir.path().join("browser");
    std::fs::write(
        &browser,
        format!(
            "#!/bin/sh\nf=\"${{1#file://}}\"\nprintf '%s\\n' \"$1\" > {0}.tmp\nstat -c %a \"$f\" >> {0}.tmp\ncat \"$f\" >> {0}.tmp\nmv {0}.tmp {0}\n",
            seen.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let browser_var = browser.display().to_string();
    let s = Server::spawn(
        &r,
        &["review", "--port", "0"],
        &[("BROWSER", browser_var.as_str())],
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !seen.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let got = std::fs::read_to_string(&seen).expect("the browser was not started");
    let mut lines = got.lines();
    let arg = lines.next().unwrap();
    assert!(arg.starts_with("file://"), "{arg}");
    assert!(!arg.contains(&s.token), "the token is on the command line: {arg}");
    assert_eq!(lines.next(), Some("600"), "the page is readable by others");
    let page: String = lines.collect();
    assert!(
        page.contains(&format!("http://127.0.0.1:{}/{}/", s.port, s.token)),
        "{page}"
    );
    assert!(s.stop().success());
}

/// One GET on a connection of its own, answered whole within `within`.
fn get_within(port: u16, path: &str, within: Duration) -> Result<u16, String> {
    let started = std::time::Instant::now();
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let mut s = TcpStream::connect_timeout(&addr, within).map_err(|e| format!("connect: {e}"))?;
    let left = || {
        within
            .saturating_sub(started.elapsed())
            .max(Duration::from_millis(1))
    };
    s.set_write_timeout(Some(left())).map_err(|e| e.to_string())?;
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .map_err(|e| format!("send: {e}"))?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        s.set_read_timeout(Some(left())).map_err(|e| e.to_string())?;
        match s.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) => return Err(format!("read after {:?}: {e}", started.elapsed())),
        }
    }
    if started.elapsed() > within {
        return Err(format!("answered after {:?}", started.elapsed()));
    }
    let head = String::from_utf8_lossy(&buf);
    head.split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no answer: {head:?}"))
}

/// Connections that never send a request take no real request's place:
/// with 64 of them open, 200 requests from 4 clients are each answered
/// within 2 s, and the idle ones are closed (the oldest as newer ones come,
/// the rest at their deadline).
#[test]
fn idle_connections_never_keep_real_requests_waiting() {
    let r = TestRepo::seeded();
    thread(&r);
    // Idle connections are closed after 3 s here, not 5 (an injected
    // deadline): still longer than a request may wait below (2 s), so a
    // server that kept requests behind the idle ones still fails.
    let args = ["review", "--no-open", "--port", "0"];
    let s = Server::spawn(&r, &args, &[("T3_TEST_WAIT_HEAD_WITHIN_MS", "3000")]);
    let port = s.port;
    let idle: Vec<TcpStream> = (0..64)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    let (asset, api) = (s.url("app.js"), s.url("api/threads"));
    std::thread::scope(|scope| {
        let clients: Vec<_> = (0..4)
            .map(|client| {
                let (asset, api) = (&asset, &api);
                scope.spawn(move || {
                    for i in 0..50 {
                        // One in ten runs a command (`list`), the rest are cheap.
                        let path = if i % 10 == client { api } else { asset };
                        match get_within(port, path, Duration::from_secs(2)) {
                            Ok(status) => assert_eq!(status, 200, "request {i} of client {client}"),
                            Err(e) => panic!("request {i} of client {client} ({path}): {e}"),
                        }
                    }
                })
            })
            .collect();
        for c in clients {
            c.join().unwrap();
        }
    });
    // Every idle connection is closed by the server, none later than its
    // deadline (3 s) and some slack.
    let started = std::time::Instant::now();
    for (i, mut c) in idle.into_iter().enumerate() {
        c.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
        let mut byte = [0u8; 1];
        match c.read(&mut byte) {
            Ok(0) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
            other => panic!(
                "idle connection {i} was kept after {:?}: {other:?}",
                started.elapsed()
            ),
        }
    }
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(s.stop().success());
}

/// What a look at the page could change in the repository's storage: the
/// objects (`git count-objects -v`), every ref and HEAD, and the files
/// under `.git/t3` with their sizes and times.
fn storage(r: &TestRepo) -> (String, String, Vec<String>) {
    fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let md = std::fs::symlink_metadata(e.path()).unwrap();
            let mtime = md.modified().unwrap();
            out.push(format!("{} {} {mtime:?}", e.path().display(), md.len()));
            if md.is_dir() {
                walk(&e.path(), out);
            }
        }
    }
    let mut t3 = Vec::new();
    walk(&r.root.join(".git/t3"), &mut t3);
    t3.sort();
    let refs = format!(
        "{}\n{}",
        r.git(&["for-each-ref", "--format=%(refname) %(objectname)"]),
        r.git(&["rev-parse", "HEAD"])
    );
    (r.git(&["count-objects", "-v"]), refs, t3)
}

/// Every kind of page and API answer, for thread `id` (URL-escaped) whose
/// turn 1 is a real turn (its latest may be a placeholder); each must
/// answer 200.
fn every_page(id: &str) -> Vec<String> {
    let mut pages = vec![
        String::new(),
        "app.js".into(),
        "app.css".into(),
        "api/threads".into(),
        format!("api/turns?thread={id}"),
    ];
    for query in [
        format!("mode=turn&thread={id}&turn=1"),
        format!("mode=turn&thread={id}&turn=1&ws=0"),
        format!("mode=full&thread={id}&turn=1"),
        format!("mode=full&thread={id}&turn=1&ws=0"),
        "mode=worktree".into(),
        "mode=worktree&ws=0".into(),
        "mode=branch".into(),
        "mode=branch&base=main".into(),
    ] {
        pages.push(format!("api/diff?{query}"));
        pages.push(format!("api/patch?{query}"));
        pages.push(format!("api/patch?{query}&start=1"));
    }
    pages
}

/// A GET writes nothing: no object (the live worktree's new files
/// included, large ones too), no cache file, no ref; the answers are the
/// command line's all the same.
#[test]
fn browsing_writes_no_object_cache_file_or_ref() {
    let r = TestRepo::seeded();
    // Above the size a capture streams (8 MiB), binary.
    let big = |seed: u8| -> Vec<u8> { (0..9u32 << 20).map(|i| (i % 251) as u8 ^ seed).collect() };
    r.write_bytes("data/big.bin", &big(0));
    r.commit_all("a big file");
    thread(&r);
    // Live changes whose contents no object holds yet.
    r.write("notes/new.txt", "a file never captured\n");
    r.write_bytes("data/big.bin", &big(1));
    r.write_bytes("data/new-big.bin", &big(2));
    let before = storage(&r);
    let s = Server::start(&r, &[]);
    let id = url_escape(THREAD);
    for path in every_page(&id) {
        let (status, _, body) = s.get(&s.url(&path));
        assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
    }
    let worktree = s.json("api/diff?mode=worktree&ws=0");
    let patch = s.json("api/patch?mode=worktree&ws=0");
    s.stop();
    let after = storage(&r);
    assert_eq!(after.0, before.0, "objects were written");
    assert_eq!(after.1, before.1, "refs moved");
    assert_eq!(after.2, before.2, "files under .git/t3 changed");
    // Computed in memory, the live diff is the command line's (which
    // writes the objects).
    assert_eq!(worktree, r.t3_json(&["diff", "--worktree"]));
    let paths: Vec<&str> = worktree["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    for p in ["data/big.bin", "data/new-big.bin", "notes/new.txt", "src/lib.rs"] {
        assert!(paths.contains(&p), "{p} not in {paths:?}");
    }
    let text: String = patch["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, r.t3(&["diff", "--worktree", "--no-color"]).out());
}

/// Puts back the modes of everything under a folder made read-only.
struct ReadOnly(Vec<(std::path::PathBuf, u32)>);

impl ReadOnly {
    /// `chmod -R a-w dir`, undone on drop.
    fn make(dir: &std::path::Path) -> Self {
        use std::os::unix::fs::PermissionsExt as _;
        fn walk(p: &std::path::Path, out: &mut Vec<(std::path::PathBuf, u32)>) {
            let md = std::fs::symlink_metadata(p).unwrap();
            if md.is_symlink() {
                return;
            }
            out.push((p.to_owned(), md.permissions().mode()));
            if md.is_dir() {
                for e in std::fs::read_dir(p).unwrap() {
                    walk(&e.unwrap().path(), out);
                }
            }
        }
        let mut modes = Vec::new();
        walk(dir, &mut modes);
        for (p, mode) in &modes {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode & !0o222)).unwrap();
        }
        ReadOnly(modes)
    }
}

impl Drop for ReadOnly {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt as _;
        for (p, mode) in &self.0 {
            let _ = std::fs::set_permissions(p, std::fs::Permissions::from_mode(*mode));
        }
    }
}

/// The page works in a repository the user can only read (`chmod -R a-w
/// .git`, the server without root's power to write anyway).
#[cfg(unix)]
#[test]
fn a_repository_the_user_can_only_read_can_be_reviewed() {
    let r = TestRepo::seeded();
    thread(&r);
    r.write("notes/new.txt", "a file never captured\n");
    let read_only = ReadOnly::make(&r.root.join(".git"));
    let Some(child) = r.spawn_t3_unprivileged_piped(&["review", "--no-open", "--port", "0"]) else {
        eprintln!("skipped: running as root without setpriv");
        return;
    };
    let s = Server::of(child);
    // The command line's live diff writes objects: here it cannot.
    let cli = r.t3_unprivileged(&["diff", "--worktree"]).unwrap();
    assert_ne!(cli.code, 0, "the repository is writable after all");
    let id = url_escape(THREAD);
    for path in every_page(&id) {
        let (status, _, body) = s.get(&s.url(&path));
        assert_eq!(status, 200, "{path}: {}", String::from_utf8_lossy(&body));
    }
    let worktree = s.json("api/diff?mode=worktree");
    assert!(s.stop().success());
    drop(read_only);
    assert_eq!(worktree, r.t3_json(&["diff", "--worktree", "-w"]));
}

/// A thread whose id is `.` or `..`, or whose title is `.`, opens like any
/// other: its id travels in the query, as the page sends it (a browser
/// resolves `.` and `..` path segments, escaped or not, before sending).
#[test]
fn threads_named_with_dots_open_in_the_page() {
    let r = TestRepo::seeded();
    let threads = [("..", "two dots"), (".", "one dot"), ("dotted", ".")];
    for (n, (thread, title)) in threads.iter().enumerate() {
        r.t3(&["baseline", "--thread", thread]).ok();
        r.write("README.md", &format!("# turn of thread {n}\n"));
        r.t3(&["capture", "--thread", thread, "--title", title]).ok();
    }
    let s = Server::start(&r, &[]);
    let listed = s.json("api/threads");
    for (thread, title) in threads {
        let row = listed["threads"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["thread"] == thread)
            .unwrap_or_else(|| panic!("{thread:?} not listed: {listed}"));
        assert_eq!(row["title"], title);
        // What the page's URLSearchParams sends: dots as they are.
        let turns = s.json(&format!("api/turns?thread={thread}"));
        assert_eq!(turns["thread"], thread);
        assert_eq!(turns, r.t3_json(&["list", "--thread", thread]));
        // Escaped, the same.
        assert_eq!(
            s.json(&format!("api/turns?thread={}", url_escape_all(thread))),
            turns
        );
        let diff = s.json(&format!("api/diff?mode=turn&thread={thread}&turn=1"));
        assert_eq!(diff["to"], ref_for(thread, 1));
    }
    assert!(s.stop().success());
}

/// Every byte percent-escaped, dots included.
fn url_escape_all(s: &str) -> String {
    s.bytes().map(|b| format!("%{b:02X}")).collect()
}

/// The page previews a revert (its dry run: the files it would change and
/// the uncaptured work among them) and undoes operations from the log, both
/// as the command line does, both behind the page's CSRF token.
#[test]
fn preview_revert_and_undo_from_the_operation_log() {
    let r = TestRepo::seeded();
    thread(&r);
    r.t3(&["capture", "--thread", THREAD, "--turn", "2"]).ok();
    r.write("scratch.txt", "never captured\n");
    let s = Server::start(&r, &["--allow-revert"]);
    let csrf = s.csrf();
    let origin = format!("http://127.0.0.1:{}", s.port);
    let post = |path: &str, body: &str| {
        let (code, _, body) = s.raw(&format!(
            "POST {} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nOrigin: {origin}\r\nConnection: close\r\nContent-Length: \
             {}\r\n\r\n{body}",
            s.url(path),
            s.port,
            body.len()
        ));
        (
            code,
            serde_json::from_slice::<serde_json::Value>(&body).unwrap_or_default(),
        )
    };
    let id = url_escape(THREAD);
    // The preview changes nothing and names what the revert would replace.
    let refs = r.git(&["for-each-ref", "refs/t3", "refs/notes"]);
    let (code, preview) = post(
        "api/revert",
        &format!("thread={id}&to=1&files_only=1&dry_run=1&csrf={csrf}"),
    );
    assert_eq!(code, 200, "{preview}");
    let cli = r.t3_json(&[
        "revert",
        "--thread",
        THREAD,
        "--to",
        "1",
        "--files-only",
        "--dry-run",
    ]);
    assert_eq!(preview, cli);
    assert_eq!(preview["action"], "dry-run");
    assert!(
        preview["uncaptured"].to_string().contains("scratch.txt"),
        "{preview}"
    );
    assert_eq!(r.git(&["for-each-ref", "refs/t3", "refs/notes"]), refs);
    assert!(r.root.join("scratch.txt").exists());
    // The op log, as `op log --json`; then the revert, and its undo.
    assert_eq!(s.json("api/ops"), r.t3_json(&["op", "log"]));
    let (code, done) = post(
        "api/revert",
        &format!("thread={id}&to=1&files_only=1&csrf={csrf}"),
    );
    assert_eq!(code, 200, "{done}");
    assert!(!r.root.join("scratch.txt").exists());
    let ops = s.json("api/ops");
    assert_eq!(ops, r.t3_json(&["op", "log"]));
    let op = ops["ops"][0]["id"].as_str().unwrap().to_owned();
    // An undo needs the token, and an op id.
    assert_eq!(
        post("api/undo", &format!("op={op}&csrf={}", "x".repeat(csrf.len()))).0,
        403
    );
    assert_eq!(post("api/undo", &format!("op=--force&csrf={csrf}")).0, 400);
    let (code, undone) = post("api/undo", &format!("op={op}&csrf={csrf}"));
    assert_eq!(code, 200, "{undone}");
    assert_eq!(
        std::fs::read_to_string(r.root.join("scratch.txt")).unwrap(),
        "never captured\n"
    );
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 3);
    assert!(s.stop().success());
}

/// A 1×1 PNG of one colour (the smallest image a browser draws).
fn png(rgb: [u8; 3]) -> Vec<u8> {
    // Stored (uncompressed) deflate of one row: filter byte + 3 bytes.
    let raw = [0u8, rgb[0], rgb[1], rgb[2]];
    let mut idat = vec![0x78, 0x01, 0x01, 0x04, 0x00, 0xfb, 0xff];
    idat.extend_from_slice(&raw);
    let adler = {
        let (mut a, mut b) = (1u32, 0u32);
        for x in raw {
            a = (a + u32::from(x)) % 65521;
            b = (b + a) % 65521;
        }
        (b << 16) | a
    };
    idat.extend_from_slice(&adler.to_be_bytes());
    let chunk = |kind: &[u8], data: &[u8]| {
        let mut c = (data.len() as u32).to_be_bytes().to_vec();
        c.extend_from_slice(kind);
        c.extend_from_slice(data);
        let crc = crc32(&c[4..]);
        c.extend_from_slice(&crc.to_be_bytes());
        c
    };
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    out.extend(chunk(b"IHDR", &[0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]));
    out.extend(chunk(b"IDAT", &idat));
    out.extend(chunk(b"IEND", &[]));
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// The page's image diff reads each side's image from the checkpoints
/// compared, with an image's content type; nothing else is served.
#[test]
fn images_of_a_diff_are_served_side_by_side() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let (red, blue) = (png([255, 0, 0]), png([0, 0, 255]));
    r.write_bytes("img/dot.png", &red);
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.write_bytes("img/dot.png", &blue);
    r.t3(&["capture", "--thread", THREAD]).ok();
    let s = Server::start(&r, &[]);
    let id = url_escape(THREAD);
    let file = |q: &str| s.get(&s.url(&format!("api/file?thread={id}&{q}")));
    let (code, headers, body) = file("turn=2&side=old&path=img%2Fdot.png");
    assert_eq!(code, 200, "{}", String::from_utf8_lossy(&body));
    assert!(
        headers.to_ascii_lowercase().contains("content-type: image/png"),
        "{headers}"
    );
    assert_eq!(body, red);
    let (code, _, body) = file("turn=2&side=new&path=img%2Fdot.png");
    assert_eq!((code, body), (200, blue));
    // Turn 1 added it: no old side.
    assert_eq!(file("turn=1&side=old&path=img%2Fdot.png").0, 404);
    // Not an image, not a path in the repository, no side: refused.
    assert_eq!(file("turn=2&side=new&path=src%2Flib.rs").0, 415);
    assert_eq!(file("turn=2&side=new&path=..%2Fsecret.png").0, 400);
    assert_eq!(file("turn=2&side=new&path=%2Fetc%2Fx.png").0, 400);
    assert_eq!(file("turn=2&path=img%2Fdot.png").0, 400);
    assert_eq!(
        s.status(&s.url("api/file?mode=worktree&side=new&path=img%2Fdot.png")),
        404
    );
    assert!(s.stop().success());
}
