//! Ctrl-C (SIGINT) and SIGTERM stop every long command at once — diff,
//! verify, push, fetch and maintenance (capture's own test is in
//! `lossless.rs`) — with git's status for the signal and nothing left
//! behind: no lock, no temporary file, no half-written ref.

use std::process::Child;
use std::time::{Duration, Instant};

use crate::util::TestRepo;

const THREAD: &str = "5a1e0000-0000-4000-8000-000000000001";

/// The most a stop may take here: the promise is 500 ms; a debug build on a
/// loaded two-core machine gets a margin.
const AT_ONCE: Duration = Duration::from_millis(1500);

/// Send `signal` to `child` once `under_way` says its long work has begun
/// (polled, at most 30 s), and return its exit code and how long it took
/// to stop.
fn stop(
    mut child: Child,
    mut under_way: impl FnMut(u32) -> bool,
    signal: i32,
    what: &str,
) -> (Option<i32>, Duration) {
    let start = Instant::now();
    while !under_way(child.id()) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "setup: {what} finished before its work was seen"
        );
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "setup: {what} never got under way"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "setup: {what} finished before the signal"
    );
    let sent = Instant::now();
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, signal) };
    let status = child.wait().unwrap();
    (status.code(), sent.elapsed())
}

/// Whether process `pid` has mapped a pack of the object database (it is
/// reading objects).
fn reads_packs(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/maps")).is_ok_and(|m| m.contains("/objects/pack/pack-"))
}

/// Whether a `sleep` runs among the descendants of process `pid` (the
/// remote's git, or a hook, stalled as the test asked).
fn sleep_below(pid: u32) -> bool {
    let mut parent_of = std::collections::HashMap::new();
    let mut sleeping = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(p) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        // `pid (comm) state ppid ...`
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let (Some((head, rest)), Some(comm_start)) = (stat.rsplit_once(") "), stat.find(" (")) else {
            continue;
        };
        let Some(ppid) = rest.split_whitespace().nth(1).and_then(|v| v.parse::<u32>().ok()) else {
            continue;
        };
        parent_of.insert(p, ppid);
        if &head[comm_start + 2..] == "sleep" {
            sleeping.push(p);
        }
    }
    sleeping.into_iter().any(|mut p| {
        while let Some(&up) = parent_of.get(&p) {
            if up == pid {
                return true;
            }
            if up <= 1 {
                break;
            }
            p = up;
        }
        false
    })
}

/// Files under `.git` a stopped command must not leave: locks, temporary
/// files, and the staging refs of a fetch.
fn leftovers(r: &TestRepo) -> Vec<String> {
    let git = r.root.join(".git");
    let mut out = Vec::new();
    let mut dirs = vec![git.clone()];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(&git).unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                dirs.push(p);
            } else if rel == "t3/maintenance.lock" {
                // An flock(2) file that lives on; the kernel lets go of the lock.
            } else if rel.ends_with(".lock") || rel.contains("tmp_") || rel.contains("t3-incoming") {
                out.push(rel);
            }
        }
    }
    out
}

/// A thread whose turn 2 (after turn 1, the first capture) adds `files` files of a few kilobytes each.
fn big_turn(files: usize) -> TestRepo {
    let r = TestRepo::seeded();
    r.t3(&["capture", "--thread", THREAD]).ok();
    for d in 0..files / 500 {
        let dir = r.root.join(format!("many/d{d}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..500 {
            let text: String = (0..400).map(|l| format!("{d} {f} line {l}\n")).collect();
            std::fs::write(dir.join(format!("f{f}.txt")), text).unwrap();
        }
    }
    r.t3(&["capture", "--thread", THREAD]).ok();
    r
}

#[test]
fn sigint_stops_a_long_diff_and_verify_at_once() {
    let r = big_turn(4_000);
    // Patches of 4,000 files of 400 lines, written to a file as fast as
    // they come.
    let written = r.tmp().join("diff.out");
    let out = std::fs::File::create(&written).unwrap();
    let child = r.spawn_t3_with(&["diff", "--thread", THREAD, "--turn", "2"], &[], out.into());
    // Under way: the first patches are out.
    let patches = |_| std::fs::metadata(&written).is_ok_and(|m| m.len() > 0);
    let (code, took) = stop(child, patches, libc::SIGINT, "diff");
    assert_eq!(code, Some(130));
    assert!(took < AT_ONCE, "SIGINT took {took:?} to stop diff");

    // verify reads every blob of every checkpoint and recomputes summaries.
    let child = r.spawn_t3(&["verify"], &[]);
    let (code, took) = stop(child, reads_packs, libc::SIGTERM, "verify");
    assert_eq!(code, Some(143));
    assert!(took < AT_ONCE, "SIGTERM took {took:?} to stop verify");
    assert!(leftovers(&r).is_empty(), "{:?}", leftovers(&r));
    // Both were only reading: the refs, notes and trees are whole (the
    // blobs were only read: `--quick` spares reading them all again).
    let v = r.t3_json(&["verify", "--quick"]);
    assert_eq!(v["ok"], true, "{v}");
}

/// A repository with a remote whose git (upload-pack and receive-pack, run
/// through the shell) waits 60 s before it answers.
fn slow_remote() -> TestRepo {
    let r = TestRepo::seeded();
    r.t3(&["capture", "--thread", THREAD]).ok();
    let remote = r.tmp().join("remote.git");
    r.git_in(r.tmp(), &["init", "-q", "--bare", remote.to_str().unwrap()])
        .ok();
    r.git(&["remote", "add", "slow", remote.to_str().unwrap()]);
    r.git(&["config", "remote.slow.uploadpack", "sleep 60; git-upload-pack"]);
    r.git(&["config", "remote.slow.receivepack", "sleep 60; git-receive-pack"]);
    r
}

#[test]
fn sigint_stops_push_and_fetch_waiting_on_the_remote() {
    let r = slow_remote();
    for args in [["fetch", "slow"], ["push", "slow"]] {
        let child = r.spawn_t3(&args, &[]);
        let (code, took) = stop(child, sleep_below, libc::SIGINT, args[0]);
        assert_eq!(code, Some(130), "{}", args[0]);
        assert!(took < AT_ONCE, "SIGINT took {took:?} to stop {}", args[0]);
        assert!(leftovers(&r).is_empty(), "{}: {:?}", args[0], leftovers(&r));
        // Nothing was recorded: the lock is free and the log has no fetch.
        let ops = r.t3_json(&["op", "log"]);
        assert!(
            !ops.to_string().contains("\"fetch\""),
            "{}: an interrupted fetch recorded an op: {ops}",
            args[0]
        );
    }
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 1);
}

#[test]
fn sigterm_stops_maintenance_and_the_git_gc_it_runs() {
    let r = TestRepo::seeded();
    r.t3(&["capture", "--thread", THREAD]).ok();
    // Two packs over a limit of one: `git gc --auto` has work, and its
    // pre-auto-gc hook holds it for a minute.
    r.git(&["repack", "-q"]);
    r.write("second.txt", "second\n");
    r.commit_all("second");
    r.git(&["repack", "-q"]);
    r.git(&["config", "gc.autoPackLimit", "1"]);
    let hook = r.root.join(".git/hooks/pre-auto-gc");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, "#!/bin/sh\nsleep 60\n").unwrap();
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let child = r.spawn_t3(&["maintenance"], &[]);
    let (code, took) = stop(child, sleep_below, libc::SIGTERM, "maintenance");
    assert_eq!(code, Some(143));
    assert!(took < AT_ONCE, "SIGTERM took {took:?} to stop maintenance");
    assert!(leftovers(&r).is_empty(), "{:?}", leftovers(&r));
    // The maintenance lock was let go: the next run is not "already running".
    std::fs::remove_file(&hook).unwrap();
    let m = r.t3_json(&["maintenance"]);
    assert_eq!(m["already_running"], false, "{m}");
}
