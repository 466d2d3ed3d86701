//! Crash safety, locking and concurrency.

use std::time::{Duration, Instant};

use crate::util::{THREAD, TestRepo, ref_for};

#[test]
fn a_killed_capture_leaves_no_ref_and_the_user_index_intact() {
    // Killed once the objects are flushed, and holding the notes ref's lock
    // file (the refs move in one transaction: the next capture removes it).
    for fault in ["after-objects", "refs-locked"] {
        let r = TestRepo::seeded();
        r.t3(&["baseline", "--thread", THREAD]).ok();
        r.write("work.txt", "w\n");
        let before = r.user_state();
        let out = r.t3_env(&["capture", "--thread", THREAD], &[("T3_TEST_FAULT", fault)]);
        assert_ne!(out.code, 0, "{fault}: the fault did not fire");
        assert_eq!(
            r.refs("refs/t3/"),
            vec![ref_for(THREAD, 0)],
            "{fault}: a partial ref exists"
        );
        assert_eq!(r.user_state(), before, "{fault}: the user's index changed");
        let s = r.t3_json(&["capture", "--thread", THREAD]);
        assert_eq!(s["turn"], 1, "{fault}: the next capture takes the same turn");
        assert_eq!(r.ref_tree(&ref_for(THREAD, 1)), r.oracle_tree());
        r.git(&["fsck", "--no-progress"]);
    }
}

#[test]
fn a_lock_held_by_a_killed_process_is_not_stale() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let mut holder = r.spawn_t3(
        &["capture", "--thread", THREAD],
        &[("T3_TEST_FAULT", "pause-after-lock")],
    );
    // Wait until the holder has the lock.
    let lock = r.root.join(".git/t3/lock");
    let start = Instant::now();
    while std::fs::read_to_string(&lock)
        .map(|s| s.is_empty())
        .unwrap_or(true)
    {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the holder never took the lock"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // While it lives, others wait and then give up with a clear message.
    let out = r
        .t3_env(&["capture", "--thread", "other"], &[("T3_LOCK_TIMEOUT", "0.3")])
        .fails(1);
    assert!(
        out.stderr.contains("holds") && out.stderr.contains("pid"),
        "{}",
        out.stderr
    );
    holder.kill().unwrap(); // SIGKILL: no chance to clean up
    holder.wait().unwrap();
    let start = Instant::now();
    r.t3_env(&["capture", "--thread", THREAD], &[("T3_LOCK_TIMEOUT", "5")])
        .ok();
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "the lock of a killed process blocked"
    );
}

#[test]
fn parallel_captures_lose_nothing() {
    let r = TestRepo::seeded();
    let threads: Vec<String> = (0..6).map(|i| format!("thread-{i}")).collect();
    std::thread::scope(|s| {
        for t in &threads {
            let r = &r;
            s.spawn(move || {
                r.t3(&["baseline", "--thread", t]).ok();
                for _ in 0..3 {
                    r.t3(&["capture", "--thread", t]).ok();
                }
            });
        }
    });
    let refs = r.refs("refs/t3/checkpoints/");
    assert_eq!(refs.len(), 24);
    for reference in refs {
        let note = r.note(&reference);
        assert!(
            note.contains(&format!("ref = \"{reference}\"")),
            "{reference}: {note}"
        );
    }
    r.git(&["fsck", "--no-progress"]);
}

#[test]
fn notes_written_by_others_meanwhile_are_kept() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    // Another tool annotates HEAD in the same notes ref.
    r.git(&[
        "notes",
        "--ref=refs/notes/t3",
        "add",
        "-m",
        "foreign note",
        "HEAD",
    ]);
    r.t3(&["capture", "--thread", THREAD]).ok();
    assert_eq!(
        r.git(&["notes", "--ref=refs/notes/t3", "show", "HEAD"]),
        "foreign note"
    );
    assert!(r.note(&ref_for(THREAD, 1)).contains("turn = 1"));
    assert!(r.note(&ref_for(THREAD, 0)).contains("turn = 0"));
}
