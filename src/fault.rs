//! Test-only fault injection: `T3_TEST_FAULT=<point>` stops the process at
//! that point, to prove that a kill anywhere leaves a consistent state.
//!
//! Compiled only with the cargo feature `fault-injection`, which the test
//! build enables (see `Cargo.toml`); in a release build [`point`] is an empty
//! function and nothing here is in the binary.

/// Stop here when the test asked for the fault `name`: `pause-…` points
/// wait until the file named by `T3_TEST_RELEASE` exists (at most 120 s);
/// every other point aborts the process, like a SIGKILL would.
#[cfg(feature = "fault-injection")]
pub fn point(name: &str) {
    if std::env::var_os("T3_TEST_FAULT").is_none_or(|v| v != name) {
        return;
    }
    if name.starts_with("pause") {
        let release = std::env::var_os("T3_TEST_RELEASE").map(std::path::PathBuf::from);
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_secs(120) {
            if release.as_deref().is_some_and(std::path::Path::exists) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        return;
    }
    std::process::abort();
}

/// Without the `fault-injection` feature this does nothing.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn point(_name: &str) {}

/// At the point `name`, die holding the lock file `lock`, as a kill in
/// the middle of gix's write would.
#[cfg(feature = "fault-injection")]
pub fn holding(name: &str, lock: &std::path::Path) {
    if std::env::var_os("T3_TEST_FAULT").is_some_and(|v| v == name) {
        let _ = std::fs::write(lock, b"");
        point(name);
    }
}

/// Without the `fault-injection` feature this does nothing.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn holding(_name: &str, _lock: &std::path::Path) {}

/// Whether the test asked to see timestamps as a file system with
/// one-second granularity has them (`T3_TEST_COARSE_TIMESTAMPS`), so a
/// change within the same timestamp, which the racy-git rules exist for,
/// can be made on purpose.
#[cfg(feature = "fault-injection")]
pub fn coarse_timestamps() -> bool {
    std::env::var_os("T3_TEST_COARSE_TIMESTAMPS").is_some()
}

/// Without the `fault-injection` feature timestamps are what they are.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn coarse_timestamps() -> bool {
    false
}

/// How far ahead of the system clock this process sees the time, in
/// seconds (`T3_TEST_CLOCK_AHEAD`, negative: behind), both where it judges
/// ages (`prune --older-than`) and where it stamps notes and ops: a test
/// makes an op or a thread "older than 1s" without sleeping, by judging
/// from the future or by writing it from the past.
#[cfg(feature = "fault-injection")]
pub fn clock_ahead() -> i64 {
    std::env::var("T3_TEST_CLOCK_AHEAD")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Without the `fault-injection` feature the clock is the system's.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn clock_ahead() -> i64 {
    0
}

/// Now, as commands that judge ages or stamp notes and ops see it (see
/// [`clock_ahead`]).
pub fn now() -> jiff::Timestamp {
    let now = jiff::Timestamp::now();
    now.checked_add(jiff::SignedDuration::from_secs(clock_ahead()))
        .unwrap_or(now)
}

/// Append `<pid> <event> <detail>` as one line to the file named by
/// `T3_TEST_EVENTS`, so a test can wait for what a process (or one it
/// started in the background) did, or see that it did not, instead of
/// sleeping.
#[cfg(feature = "fault-injection")]
pub fn record(event: &str, detail: &str) {
    use std::io::Write as _;
    let Some(path) = std::env::var_os("T3_TEST_EVENTS") else {
        return;
    };
    let line = format!("{} {event} {detail}\n", std::process::id());
    // One write to a file opened for appending: lines of processes writing
    // at once never mix.
    if let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = file.write_all(line.as_bytes());
    }
}

/// Without the `fault-injection` feature nothing is recorded.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn record(_event: &str, _detail: &str) {}

/// How long the wait `name` lasts: `T3_TEST_WAIT_<name>_MS` milliseconds
/// when a test set it (a deadline the test would otherwise sit through),
/// else `default`.
#[cfg(feature = "fault-injection")]
pub fn wait(name: &str, default: std::time::Duration) -> std::time::Duration {
    std::env::var(format!("T3_TEST_WAIT_{name}_MS"))
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(default, std::time::Duration::from_millis)
}

/// Without the `fault-injection` feature every wait is as long as it is.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn wait(_name: &str, default: std::time::Duration) -> std::time::Duration {
    default
}

/// Write this process's peak resident memory (`VmHWM`, KiB) to the file
/// `T3_TEST_PEAK_FILE` names, if any: the peak of this program alone. (The
/// `ru_maxrss` a parent gets from `wait4` also holds the parent's own peak
/// when the child was started by `vfork`, as Rust's `Command` does.)
#[cfg(feature = "fault-injection")]
pub fn report_peak() {
    let Some(path) = std::env::var_os("T3_TEST_PEAK_FILE") else {
        return;
    };
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .map(|v| v.trim().trim_end_matches("kB").trim().to_owned())
        .unwrap_or_default();
    let _ = std::fs::write(path, peak);
}

/// Without the `fault-injection` feature this does nothing.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub fn report_peak() {}
