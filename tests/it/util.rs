//! Test fixtures: real temporary git repositories with an isolated config,
//! and a runner for the built `git-t3` binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

pub const THREAD: &str = "thread-7f3c";
/// `git t3 diff` of `THREAD`'s turn 1 with whitespace changes shown (as
/// `git diff` shows them), to run through `git`.
pub const TURN_1_DIFF: [&str; 7] = [
    "t3",
    "diff",
    "--thread",
    THREAD,
    "--turn",
    "1",
    "--keep-whitespace",
];

/// The binary under test: the one cargo built, or `$T3_TEST_BIN` (to show
/// that a new test fails against an older build).
pub fn bin() -> PathBuf {
    match std::env::var_os("T3_TEST_BIN") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(env!("CARGO_BIN_EXE_git-t3")),
    }
}

/// Make a FIFO at `path`.
pub fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(
        unsafe { libc::mkfifo(c.as_ptr(), 0o644) },
        0,
        "mkfifo {}",
        path.display()
    );
}

/// What git-t3 processes run with `T3_TEST_EVENTS=<path>` recorded (see
/// `fault::record`), in order: `(pid, event, detail)` per line.
pub fn events(path: &Path) -> Vec<(u32, String, String)> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            let mut words = line.splitn(3, ' ');
            let pid = words.next()?.parse().ok()?;
            let event = words.next()?.to_owned();
            Some((pid, event, words.next().unwrap_or("").to_owned()))
        })
        .collect()
}

/// Wait until a process recorded `event` in `path` (failing the test
/// after 30 s); its pid and detail.
#[track_caller]
pub fn wait_for_event(path: &Path, event: &str) -> (u32, String) {
    let start = std::time::Instant::now();
    loop {
        if let Some((pid, _, detail)) = events(path).into_iter().find(|e| e.1 == event) {
            return (pid, detail);
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "no {event} recorded in 30 s: {:?}",
            events(path)
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// The ref of `turn` in `thread`, computed independently of the crate.
pub fn ref_for(thread: &str, turn: u64) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let bytes = thread.as_bytes();
    let mut enc = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            enc.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    format!("refs/t3/checkpoints/{enc}/turn/{turn}")
}

/// What a command printed and how it exited.
pub struct Run {
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub what: String,
    /// Where it ran, listed in failure messages.
    pub cwd: PathBuf,
}

/// The files under `dir` (without `.git/objects`), one per line, for failure messages.
pub fn listing(dir: &Path) -> String {
    fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(base).unwrap_or(&p).display().to_string();
            if rel.ends_with(".git/objects") || out.len() > 400 {
                continue;
            }
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            out.push(if is_dir { format!("{rel}/") } else { rel });
            if is_dir {
                walk(&p, base, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out.join("\n")
}

impl Run {
    #[track_caller]
    pub fn ok(self) -> Self {
        assert_eq!(
            self.code,
            0,
            "{} failed in {}:\nstdout: {}\nstderr: {}\nfiles:\n{}",
            self.what,
            self.cwd.display(),
            self.out(),
            self.stderr,
            listing(&self.cwd)
        );
        self
    }
    #[track_caller]
    pub fn fails(self, code: i32) -> Self {
        assert_eq!(
            self.code,
            code,
            "{} in {}: want exit {code}\nstdout: {}\nstderr: {}\nfiles:\n{}",
            self.what,
            self.cwd.display(),
            self.out(),
            self.stderr,
            listing(&self.cwd)
        );
        assert!(
            !self.stderr.trim().is_empty(),
            "{}: failed without a message",
            self.what
        );
        assert_eq!(
            self.stderr.trim().lines().count(),
            1,
            "{}: want one line on stderr, got {:?}",
            self.what,
            self.stderr
        );
        assert!(
            !self.stderr.contains("panicked"),
            "{} panicked: {}",
            self.what,
            self.stderr
        );
        self
    }
    pub fn out(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.stdout)
            .unwrap_or_else(|e| panic!("{}: not JSON ({e}): {}", self.what, self.out()))
    }
}

/// A small deterministic generator (xorshift64*), so a failure replays.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    /// Between 1 and `max` random bytes, none of them in `except`.
    pub fn some_bytes(&mut self, max: u64, except: &[u8]) -> Vec<u8> {
        let len = 1 + self.below(max) as usize;
        self.bytes(len, except)
    }
    /// `len` random bytes, none of them in `except`.
    pub fn bytes(&mut self, len: usize, except: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(len);
        while out.len() < len {
            let b = self.next().to_le_bytes()[3];
            if !except.contains(&b) {
                out.push(b);
            }
        }
        out
    }
}

pub struct TestRepo {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
    pub extra_env: Vec<(String, String)>,
    extra: std::sync::Mutex<Vec<(String, String)>>,
}

impl TestRepo {
    /// An empty repository on branch main.
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().join("repo");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let r = TestRepo {
            _tmp: tmp,
            root,
            home,
            extra_env: Vec::new(),
            extra: Default::default(),
        };
        r.git(&["init", "-q", "-b", "main"]);
        r
    }

    /// A repository with history, an ignore file and a mix of files.
    pub fn seeded() -> Self {
        let r = Self::new();
        r.write(".gitignore", "*.log\nbuild/\n");
        r.write("README.md", "# demo\n\nline two\n");
        r.write("src/lib.rs", "fn a() {}\nfn b() {}\nfn c() {}\n");
        r.write("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n");
        r.write("docs/old name.txt", "alpha\nbeta\ngamma\ndelta\n");
        r.write_bytes(
            "assets/logo.bin",
            &(0..=255u8).cycle().take(1024).collect::<Vec<_>>(),
        );
        r.commit_all("initial");
        r
    }

    /// Set an environment variable for every later command of this repository.
    pub fn extra_env_set(&self, key: &str, value: &str) {
        self.extra
            .lock()
            .unwrap()
            .push((key.to_owned(), value.to_owned()));
    }

    pub fn tmp(&self) -> &Path {
        self._tmp.path()
    }

    /// Wait until the file system's clock (the mtime it gives a file
    /// written now) is past the ctime of `path`, which setting its mtime
    /// made now: from then on nothing sees `path` as changed within the
    /// timestamp it started in (racy). A poll, not a guessed sleep.
    #[track_caller]
    pub fn wait_past_ctime(&self, path: &Path) {
        use std::os::unix::fs::MetadataExt as _;
        let md = std::fs::metadata(path).unwrap();
        let ctime = (md.ctime(), md.ctime_nsec());
        let probe = self.tmp().join("clock-probe");
        let start = std::time::Instant::now();
        loop {
            let _ = std::fs::remove_file(&probe);
            std::fs::write(&probe, b"now").unwrap();
            let now = std::fs::metadata(&probe).unwrap();
            if (now.mtime(), now.mtime_nsec()) > ctime {
                return;
            }
            assert!(
                start.elapsed() < std::time::Duration::from_secs(10),
                "the file system's clock stands still"
            );
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// The packs in `.git/objects/pack`, by name without `.pack`, sorted.
    pub fn packs(&self) -> Vec<String> {
        let mut stems: Vec<String> = std::fs::read_dir(self.root.join(".git/objects/pack"))
            .map(|d| {
                d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .filter_map(|n| n.strip_suffix(".pack").map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        stems.sort();
        stems
    }

    fn command(&self, program: &Path, args: &[&str], cwd: &Path) -> Command {
        let mut c = Command::new(program);
        c.args(args).current_dir(cwd).env_clear();
        let path = format!(
            "{}:{}",
            bin().parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        c.env("PATH", path)
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", self.home.join(".gitconfig"))
            .env("GIT_AUTHOR_DATE", "2026-12-01T12:00:00Z")
            .env("GIT_COMMITTER_DATE", "2026-12-01T12:00:00Z")
            .env("TZ", "UTC")
            .env("GIT_AUTHOR_NAME", "Tester")
            .env("GIT_AUTHOR_EMAIL", "tester@example.invalid")
            .env("GIT_COMMITTER_NAME", "Tester")
            .env("GIT_COMMITTER_EMAIL", "tester@example.invalid")
            .env("LC_ALL", "C")
            .env("NO_COLOR", "1");
        for (k, v) in self.extra_env.iter().chain(self.extra.lock().unwrap().iter()) {
            c.env(k, v);
        }
        c
    }

    fn finish(mut c: Command, what: String, stdin: Option<&[u8]>) -> Run {
        c.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let cwd = c.get_current_dir().map(Path::to_owned).unwrap_or_default();
        let mut child = c.spawn().unwrap_or_else(|e| panic!("spawn {what}: {e}"));
        if let Some(input) = stdin {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(input).unwrap();
        }
        let Output {
            status,
            stdout,
            stderr,
        } = child.wait_with_output().unwrap();
        Run {
            code: status.code().unwrap_or(-1),
            stdout,
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
            what,
            cwd,
        }
    }

    /// Run git; panics on failure.
    #[track_caller]
    pub fn git(&self, args: &[&str]) -> String {
        let r = self.git_in(&self.root, args).ok();
        String::from_utf8_lossy(&r.stdout).trim_end().to_owned()
    }

    #[must_use = "check the exit status with .ok() or .fails()"]
    pub fn git_in(&self, cwd: &Path, args: &[&str]) -> Run {
        Self::finish(
            self.command(Path::new("git"), args, cwd),
            format!("git {args:?}"),
            None,
        )
    }

    /// Run `git-t3 args` in the repository root.
    #[must_use = "check the exit status with .ok() or .fails()"]
    pub fn t3(&self, args: &[&str]) -> Run {
        self.t3_in(&self.root, args)
    }

    #[must_use = "check the exit status with .ok() or .fails()"]
    pub fn t3_in(&self, cwd: &Path, args: &[&str]) -> Run {
        Self::finish(self.command(&bin(), args, cwd), format!("git-t3 {args:?}"), None)
    }

    /// Run `git-t3 args` without the power to read what file modes forbid:
    /// as root, with `CAP_DAC_OVERRIDE` and `CAP_DAC_READ_SEARCH` dropped
    /// (needs `setpriv`; `None` without it).
    #[must_use = "check the exit status with .ok() or .fails()"]
    pub fn t3_unprivileged(&self, args: &[&str]) -> Option<Run> {
        if rustix::process::geteuid().as_raw() != 0 {
            return Some(self.t3(args));
        }
        let c = self.unprivileged_command(args)?;
        Some(Self::finish(c, format!("git-t3 {args:?} unprivileged"), None))
    }

    /// `git-t3 args` through `setpriv`, without root's override of file
    /// permissions; `None` without `setpriv`.
    fn unprivileged_command(&self, args: &[&str]) -> Option<Command> {
        let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
            .into_iter()
            .map(Path::new)
            .find(|p| p.exists())?;
        let bin = bin();
        let mut all = vec!["--bounding-set=-dac_override,-dac_read_search", bin.to_str()?];
        all.extend_from_slice(args);
        Some(self.command(setpriv, &all, &self.root))
    }

    /// Spawn `git-t3 args` like [`TestRepo::t3_unprivileged`] runs it,
    /// with its stdout piped (stderr dropped); `None` without `setpriv`.
    pub fn spawn_t3_unprivileged_piped(&self, args: &[&str]) -> Option<std::process::Child> {
        if rustix::process::geteuid().as_raw() != 0 {
            return Some(self.spawn_t3_piped(args, &[]));
        }
        let mut c = self.unprivileged_command(args)?;
        Some(
            c.stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn setpriv git-t3"),
        )
    }

    /// Run `git-t3 args` in the repository root with `input` on stdin.
    #[must_use = "check the exit status with .ok() or .fails()"]
    pub fn t3_input(&self, args: &[&str], input: &[u8]) -> Run {
        let c = self.command(&bin(), args, &self.root);
        Self::finish(c, format!("git-t3 {args:?} with input"), Some(input))
    }

    /// Run `git-t3 args` in `cwd` with `input` on stdin (none: closed) and
    /// `env` on top of the isolated environment.
    #[must_use = "check the exit status with .ok() or .fails()"]
    pub fn t3_with(&self, cwd: &Path, args: &[&str], input: Option<&[u8]>, env: &[(&str, &str)]) -> Run {
        let mut c = self.command(&bin(), args, cwd);
        for (k, v) in env {
            c.env(k, v);
        }
        Self::finish(
            c,
            format!("git-t3 {args:?} in {} with {env:?}", cwd.display()),
            input,
        )
    }

    /// Run `git-t3 args` in `cwd` with the file `input` as stdin (a large
    /// input never sits in this process's memory: see `peak_rss_and_code`).
    #[must_use = "check the exit status with .ok() or .fails()"]
    pub fn t3_stdin_file(&self, cwd: &Path, args: &[&str], input: &Path) -> Run {
        let mut c = self.command(&bin(), args, cwd);
        c.stdin(std::fs::File::open(input).unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let Output {
            status,
            stdout,
            stderr,
        } = c.output().unwrap();
        Run {
            code: status.code().unwrap_or(-1),
            stdout,
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
            what: format!("git-t3 {args:?} < {}", input.display()),
            cwd: cwd.to_owned(),
        }
    }

    /// Run `git-t3 args` with `env`, pinned to one CPU (`taskset`), as on a
    /// one-core machine.
    #[must_use = "check the exit status with .ok() or .fails()"]
    pub fn t3_on_one_cpu(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        // The first CPU this process may use (in a container, not always 0).
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let cpu = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .and_then(|l| l.trim().split([',', '-']).next())
            .unwrap()
            .to_owned();
        let program = bin();
        let mut taskset_args = vec!["-c", cpu.as_str(), program.to_str().unwrap()];
        taskset_args.extend_from_slice(args);
        let mut c = self.command(Path::new("taskset"), &taskset_args, &self.root);
        c.envs(env.iter().copied());
        Self::finish(c, format!("taskset -c {cpu} git-t3 {args:?} with {env:?}"), None)
    }

    #[must_use = "check the exit status with .ok() or .fails()"]
    pub fn t3_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut c = self.command(&bin(), args, &self.root);
        for (k, v) in env {
            c.env(k, v);
        }
        Self::finish(c, format!("git-t3 {args:?} with {env:?}"), None)
    }

    /// Spawn `git-t3 args` without waiting.
    pub fn spawn_t3(&self, args: &[&str], env: &[(&str, &str)]) -> std::process::Child {
        self.spawn_t3_with(args, env, Stdio::null())
    }

    /// Spawn `git-t3 args` with `env` and its stdout piped (stderr dropped).
    pub fn spawn_t3_piped(&self, args: &[&str], env: &[(&str, &str)]) -> std::process::Child {
        self.spawn_t3_with(args, env, Stdio::piped())
    }

    pub fn spawn_t3_with(&self, args: &[&str], env: &[(&str, &str)], stdout: Stdio) -> std::process::Child {
        let mut c = self.command(&bin(), args, &self.root);
        c.envs(env.iter().copied());
        c.stdout(stdout)
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn git-t3")
    }

    /// Run `git-t3 args` in the repository root, killed after `secs`
    /// seconds: a command that blocks (on a FIFO) fails the test instead
    /// of hanging the suite.
    #[track_caller]
    pub fn t3_within(&self, args: &[&str], secs: u64) -> Run {
        use std::io::Read as _;
        let mut c = self.command(&bin(), args, &self.root);
        c.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().expect("spawn git-t3");
        let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
            std::thread::spawn(move || {
                let mut data = Vec::new();
                let _ = pipe.read_to_end(&mut data);
                data
            })
        };
        let stdout = drain(Box::new(child.stdout.take().unwrap()));
        let stderr = drain(Box::new(child.stderr.take().unwrap()));
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > std::time::Duration::from_secs(secs) {
                let _ = child.kill();
                let _ = child.wait();
                panic!("git-t3 {args:?} blocked for {secs} s");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        Run {
            code: status.code().unwrap_or(-1),
            stdout: stdout.join().unwrap(),
            stderr: String::from_utf8_lossy(&stderr.join().unwrap()).into_owned(),
            what: format!("git-t3 {args:?}"),
            cwd: self.root.clone(),
        }
    }

    #[track_caller]
    pub fn t3_json(&self, args: &[&str]) -> serde_json::Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        self.t3(&all).ok().json()
    }

    /// The turns `list --thread <thread>` shows, in its order.
    #[track_caller]
    pub fn listed_turns(&self, thread: &str) -> Vec<u64> {
        turn_numbers(&self.t3_json(&["list", "--thread", thread]))
    }

    #[track_caller]
    pub fn t3_json_in(&self, cwd: &Path, args: &[&str]) -> serde_json::Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        self.t3_in(cwd, &all).ok().json()
    }

    /// The peak resident memory (KiB) of `git-t3 args`, which must succeed.
    #[track_caller]
    pub fn peak_rss_kib(&self, args: &[&str]) -> i64 {
        let (code, peak) = self.peak_rss_and_code(args);
        assert_eq!(code, 0, "{args:?} failed");
        peak
    }

    /// The exit code and peak resident memory (KiB) of `git-t3 args`.
    /// Linux carries a parent's peak into a child it starts, so tests keep
    /// their own memory small (no large buffers).
    pub fn peak_rss_and_code(&self, args: &[&str]) -> (i32, i64) {
        // The program reports its own peak (test builds: `fault::report_peak`);
        // `ru_maxrss` below also holds this test process's peak.
        let report = self
            .tmp()
            .join(format!("peak-{}", NEXT_PEAK.fetch_add(1, Ordering::Relaxed)));
        let child = self.spawn_t3(args, &[("T3_TEST_PEAK_FILE", report.to_str().unwrap())]);
        let pid = i32::try_from(child.id()).unwrap();
        let mut status = 0;
        // SAFETY: an all-zero rusage is valid; wait4 writes into the two locals.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: pid is our own unwaited child; the pointers are to live locals.
        let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        assert_eq!(waited, pid, "wait4 failed");
        std::mem::forget(child); // already reaped
        let code = if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            -1
        };
        let own = std::fs::read_to_string(&report)
            .ok()
            .and_then(|s| s.trim().parse::<i64>().ok());
        (code, own.unwrap_or(usage.ru_maxrss))
    }

    /// Turn `turn` of `thread` now points at a forged checkpoint commit of
    /// `tree`, carrying a copy of the real turn's note (so it stays readable).
    pub fn forge_turn(&self, thread: &str, turn: u64, tree: &str) {
        let reference = ref_for(thread, turn);
        let real = self.git(&["rev-parse", &reference]);
        let commit = self.git(&[
            "commit-tree",
            tree,
            "-m",
            &format!("t3 checkpoint ref={reference}"),
        ]);
        let note = self.git_in(&self.root, &["notes", "--ref=refs/notes/t3", "show", &real]);
        if note.code == 0 {
            let blob = self.hash_object(&[], &note.stdout);
            self.git(&["notes", "--ref=refs/notes/t3", "add", "-f", "-C", &blob, &commit]);
        }
        self.git(&["update-ref", &reference, &commit]);
    }

    /// Write a raw tree object of `entries` (mode, name, hex id) — names git's
    /// own tools would refuse included; returns its id.
    pub fn raw_tree(&self, entries: &[(&str, &[u8], String)]) -> String {
        let mut data = Vec::new();
        for (mode, name, id) in entries {
            data.extend_from_slice(mode.as_bytes());
            data.push(b' ');
            data.extend_from_slice(name);
            data.push(0);
            for i in (0..id.len()).step_by(2) {
                data.push(u8::from_str_radix(&id[i..i + 2], 16).unwrap());
            }
        }
        self.hash_object(&["-t", "tree", "--literally"], &data)
    }

    /// Store `content` as a blob; returns its id.
    pub fn blob(&self, content: &str) -> String {
        self.hash_object(&[], content.as_bytes())
    }

    /// Run git in `cwd` with `data` on its stdin.
    #[must_use = "check the exit status with .ok() or .fails()"]
    pub fn git_input(&self, cwd: &Path, args: &[&str], data: &[u8]) -> Run {
        Self::finish(
            self.command(Path::new("git"), args, cwd),
            format!("git {args:?}"),
            Some(data),
        )
    }

    /// `git hash-object -w --stdin` with `args`, fed `data`.
    pub fn hash_object(&self, args: &[&str], data: &[u8]) -> String {
        let mut all = vec!["hash-object"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["-w", "--stdin"]);
        let c = self.command(Path::new("git"), &all, &self.root);
        let run = Self::finish(c, format!("git {all:?}"), Some(data)).ok();
        String::from_utf8_lossy(&run.stdout).trim().to_owned()
    }

    /// The blob id of `data`, without writing it (`git hash-object --stdin`).
    pub fn blob_id(&self, data: &[u8]) -> String {
        let c = self.command(Path::new("git"), &["hash-object", "--stdin"], &self.root);
        let run = Self::finish(c, "git hash-object --stdin".into(), Some(data)).ok();
        String::from_utf8_lossy(&run.stdout).trim().to_owned()
    }

    pub fn write(&self, rel: &str, data: &str) {
        self.write_bytes(rel, data.as_bytes());
    }

    pub fn write_bytes(&self, rel: &str, data: &[u8]) {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, data).unwrap();
    }

    pub fn remove(&self, rel: &str) {
        let p = self.root.join(rel);
        if p.is_dir() {
            std::fs::remove_dir_all(p).unwrap();
        } else {
            std::fs::remove_file(p).unwrap();
        }
    }

    pub fn chmod(&self, rel: &str, mode: u32) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(self.root.join(rel), std::fs::Permissions::from_mode(mode)).unwrap();
    }

    pub fn commit_all(&self, msg: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", msg]);
        self.git(&["rev-parse", "HEAD"])
    }

    /// The tree git itself builds: private index from HEAD, `add -A`, `write-tree`.
    pub fn oracle_tree(&self) -> String {
        let idx = self.tmp().join(format!("oracle-index-{}", std::process::id()));
        let _ = std::fs::remove_file(&idx);
        let idx_s = idx.to_str().unwrap();
        let env = |args: &[&str]| {
            // git's truth, whatever fsmonitor hook a test set up.
            let args: Vec<&str> = ["-c", "core.fsmonitor=false"]
                .into_iter()
                .chain(args.iter().copied())
                .collect();
            let args = &args[..];
            let mut c = self.command(Path::new("git"), args, &self.root);
            c.env("GIT_INDEX_FILE", idx_s);
            Self::finish(c, format!("oracle git {args:?}"), None)
        };
        if self
            .git_in(&self.root, &["rev-parse", "-q", "--verify", "HEAD^{commit}"])
            .code
            == 0
        {
            env(&["read-tree", "HEAD"]).ok();
        }
        if env(&["-c", "advice.addEmbeddedRepo=false", "add", "-A"]).code != 0 {
            // Nested repositories without a commit: leave them out, as git-t3 does.
            let others = env(&["ls-files", "--others", "--exclude-standard", "--directory", "-z"]).ok();
            let mut args = vec!["add".to_owned(), "-A".into(), "--".into(), ".".into()];
            for p in others.stdout.split(|b| *b == 0).filter(|p| p.ends_with(b"/")) {
                let d = String::from_utf8_lossy(&p[..p.len() - 1]).into_owned();
                if self.root.join(&d).join(".git").exists()
                    && self
                        .git_in(&self.root.join(&d), &["rev-parse", "-q", "--verify", "HEAD"])
                        .code
                        != 0
                {
                    args.push(format!(":(exclude,literal){d}"));
                }
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            env(&args).ok();
        }
        let out = env(&["write-tree"]).ok();
        let _ = std::fs::remove_file(&idx);
        out.out().trim().to_owned()
    }

    pub fn ref_tree(&self, reference: &str) -> String {
        self.git(&["rev-parse", "--verify", &format!("{reference}^{{tree}}")])
    }

    pub fn refs(&self, prefix: &str) -> Vec<String> {
        let out = self.git(&["for-each-ref", "--format=%(refname)", prefix]);
        out.lines().map(str::to_owned).filter(|l| !l.is_empty()).collect()
    }

    pub fn note(&self, reference: &str) -> String {
        let c = self.git(&["rev-parse", reference]);
        self.git(&["notes", "--ref=refs/notes/t3", "show", &c])
    }

    /// HEAD, branch, the user's index bytes and mtime.
    pub fn user_state(&self) -> (String, String, Option<Vec<u8>>, Option<std::time::SystemTime>) {
        let head = self
            .git_in(&self.root, &["rev-parse", "-q", "--verify", "HEAD"])
            .out();
        let branch = self.git_in(&self.root, &["symbolic-ref", "-q", "HEAD"]).out();
        let idx = self.root.join(".git/index");
        let bytes = std::fs::read(&idx).ok();
        let mtime = std::fs::metadata(&idx).and_then(|m| m.modified()).ok();
        (head, branch, bytes, mtime)
    }

    /// `git diff --numstat -M` between two refs, as (path, add, del).
    pub fn numstat(&self, a: &str, b: &str, ignore_ws: bool) -> Vec<(String, u64, u64)> {
        let mut args = vec!["diff", "--numstat", "-z", "--no-ext-diff", "--no-textconv", "-M"];
        if ignore_ws {
            args.push("--ignore-all-space");
        }
        args.extend([a, b]);
        let raw = self.git_in(&self.root, &args).ok().stdout;
        let parts: Vec<&[u8]> = raw.split(|b| *b == 0).collect();
        let mut rows = Vec::new();
        let mut i = 0;
        while i < parts.len() && !parts[i].is_empty() {
            let head: Vec<&[u8]> = parts[i].splitn(3, |b| *b == b'\t').collect();
            let num = |s: &[u8]| String::from_utf8_lossy(s).parse::<u64>().unwrap_or(0);
            let (add, del) = (num(head[0]), num(head[1]));
            let path = if head[2].is_empty() {
                i += 3;
                parts[i - 1]
            } else {
                i += 1;
                head[2]
            };
            rows.push((String::from_utf8_lossy(path).into_owned(), add, del));
        }
        rows.sort();
        rows
    }
}

/// Rows (path, additions, deletions) of a summary's `files`.
pub fn rows(files: &serde_json::Value) -> Vec<(String, u64, u64)> {
    let mut v: Vec<_> = files
        .as_array()
        .expect("files is an array")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_owned(),
                f["additions"].as_u64().unwrap(),
                f["deletions"].as_u64().unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// `git t3 diff --turn 1 ARGS` of `THREAD` (with `--keep-whitespace`
/// unless `-w`: turn diffs hide whitespace changes unless asked) and `git
/// diff GIT_ARGS ARGS A B` of the same checkpoints, each under `config`
/// (`git -c` pairs): the two runs, as they ended.
pub fn turn_diff_and_git(
    r: &TestRepo,
    (a, b): (&str, &str),
    config: &[&str],
    git_args: &[&str],
    args: &[&str],
) -> (Run, Run) {
    let conf: Vec<&str> = config.iter().flat_map(|c| ["-c", *c]).collect();
    // `-w` is a turn diff's default, without --keep-whitespace.
    let turn = if args.contains(&"-w") {
        &TURN_1_DIFF[..6]
    } else {
        &TURN_1_DIFF[..]
    };
    let mine = r.git_in(&r.root, &[&conf[..], turn, args].concat());
    let theirs = r.git_in(&r.root, &[&conf[..], &["diff"], git_args, args, &[a, b]].concat());
    (mine, theirs)
}

/// Names the peak reports of `peak_rss_and_code` apart.
static NEXT_PEAK: AtomicU64 = AtomicU64::new(0);

/// The `turn` of each entry of a JSON document's `turns`, in order.
#[track_caller]
pub fn turn_numbers(doc: &serde_json::Value) -> Vec<u64> {
    doc["turns"]
        .as_array()
        .expect("a turns array")
        .iter()
        .map(|t| t["turn"].as_u64().expect("a turn number"))
        .collect()
}
