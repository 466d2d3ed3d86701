//! Disk and retention: `du` against git's own figures, `prune` by age and
//! by count, orphaned notes (`prune`, `verify --fix`), and the background
//! maintenance a capture starts (never two at once).

use std::time::{Duration, SystemTime};

use crate::util::{TestRepo, ref_for};

/// The refs of `thread`'s checkpoints.
fn checkpoint_refs(r: &TestRepo, thread: &str) -> Vec<String> {
    let prefix = ref_for(thread, 0);
    let prefix = prefix.trim_end_matches('0');
    r.refs(prefix)
}

/// `git rev-list --objects --disk-usage` of `refs`.
fn git_disk_usage(r: &TestRepo, refs: &[String]) -> u64 {
    let mut args = vec!["rev-list", "--objects", "--disk-usage"];
    args.extend(refs.iter().map(String::as_str));
    r.git(&args).trim().parse().unwrap()
}

fn du_bytes(r: &TestRepo, thread: &str) -> u64 {
    let du = r.t3_json(&["du"]);
    du["threads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["thread"] == thread)
        .unwrap_or_else(|| panic!("du does not list {thread}: {du}"))["bytes"]
        .as_u64()
        .unwrap()
}

/// `git count-objects -v` as key → value.
fn count_objects(r: &TestRepo) -> std::collections::HashMap<String, u64> {
    r.git(&["count-objects", "-v"])
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(": ")?;
            Some((k.to_owned(), v.trim().parse().ok()?))
        })
        .collect()
}

/// Date every note of `thread` `days` days back (as if its turns were
/// taken then).
fn age_thread(r: &TestRepo, thread: &str, days: i64) {
    let when = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(24 * days);
    let when = when.strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    for reference in checkpoint_refs(r, thread) {
        let note = r.note(&reference);
        let aged: String = note
            .lines()
            .map(|l| {
                if l.starts_with("completed_at = ") {
                    format!("completed_at = \"{when}\"\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        let commit = r.git(&["rev-parse", &reference]);
        r.git_input(
            &r.root,
            &["notes", "--ref=refs/notes/t3", "add", "-f", "-F", "-", &commit],
            aged.as_bytes(),
        )
        .ok();
    }
}

fn noted(r: &TestRepo) -> Vec<String> {
    r.git(&["notes", "--ref=refs/notes/t3", "list"])
        .lines()
        .filter_map(|l| l.split_whitespace().nth(1).map(str::to_owned))
        .collect()
}

fn thread_with_file(r: &TestRepo, thread: &str, file: &str, content: &str) -> Vec<String> {
    r.t3(&["baseline", "--thread", thread]).ok();
    r.write(file, content);
    r.t3(&["capture", "--thread", thread]).ok();
    [0, 1]
        .iter()
        .map(|n| r.git(&["rev-parse", &ref_for(thread, *n)]))
        .collect()
}

#[test]
fn du_counts_what_git_counts_loose_and_packed() {
    // No branch: everything a thread reaches is its own, so git's
    // rev-list --disk-usage of its refs is the same figure.
    let r = TestRepo::new();
    let random: String = (0..20_000u32)
        .map(|i| format!("{:08x}\n", i.wrapping_mul(2_654_435_761)))
        .collect();
    thread_with_file(&r, "solo", "data.txt", &random);
    let refs = checkpoint_refs(&r, "solo");
    assert_eq!(du_bytes(&r, "solo"), git_disk_usage(&r, &refs), "loose");
    let du = r.t3_json(&["du"]);
    assert_eq!(
        du["loose_objects"].as_u64(),
        count_objects(&r).get("count").copied()
    );
    assert!(du["total_bytes"].as_u64().unwrap() >= du_bytes(&r, "solo"));

    r.git(&["gc", "-q"]);
    assert_eq!(du_bytes(&r, "solo"), git_disk_usage(&r, &refs), "packed");
    let du = r.t3_json(&["du"]);
    assert_eq!(du["loose_objects"].as_u64(), Some(0));
    let packed = count_objects(&r)["size-pack"] * 1024;
    assert!(
        du["total_bytes"].as_u64().unwrap() <= packed,
        "git-t3's objects ({}) cannot exceed the pack ({packed})",
        du["total_bytes"]
    );
}

#[test]
fn du_leaves_out_what_branches_and_other_threads_hold() {
    let r = TestRepo::seeded();
    let big: String = (0..30_000u32).map(|i| format!("line {i}\n")).collect();
    r.write("committed.txt", &big);
    r.commit_all("big file");
    let shared: String = (0..30_000u32).map(|i| format!("shared {i}\n")).collect();
    r.write("shared.txt", &shared);
    thread_with_file(&r, "one", "one.txt", "only one\n");
    thread_with_file(&r, "two", "two.txt", "only two\n");
    let blob_size = |path: &str| -> u64 {
        let id = r.git(&["hash-object", path]);
        r.git_input(
            &r.root,
            &["cat-file", "--batch-check=%(objectsize:disk)"],
            format!("{id}\n").as_bytes(),
        )
        .ok()
        .out()
        .trim()
        .parse()
        .unwrap()
    };
    let (committed, shared) = (blob_size("committed.txt"), blob_size("shared.txt"));
    for t in ["one", "two"] {
        let mine = du_bytes(&r, t);
        // The committed file is the branch's; shared.txt both threads hold.
        assert!(mine < committed.min(shared), "{t} counts {mine} bytes");
        assert!(mine > 0, "{t} holds its own file, trees and commits");
        // git's rev-list cannot tell: it counts them for each thread.
        assert!(git_disk_usage(&r, &checkpoint_refs(&r, t)) > committed + shared);
    }
    let total = r.t3_json(&["du"])["total_bytes"].as_u64().unwrap();
    assert!(total >= shared, "the shared file counts once in the total");
    assert!(total < shared * 2 + committed);

    let one = r.t3(&["du", "--thread", "one"]).ok().out();
    assert!(one.contains("one") && !one.contains(" two"), "{one}");
    r.t3(&["du", "--thread", "nope"]).fails(1);
}

#[test]
fn prune_by_age_removes_old_threads_their_notes_and_prompts() {
    let r = TestRepo::seeded();
    let old = thread_with_file(&r, "old", "a.txt", "a\n");
    let new = thread_with_file(&r, "new", "b.txt", "b\n");
    age_thread(&r, "old", 40);
    // A pending prompt of the old thread goes with it.
    let prompt = r.git(&["rev-parse", &ref_for("old", 1)]);
    let encoded = ref_for("old", 0).split('/').nth(3).unwrap().to_owned();
    r.git(&["update-ref", &format!("refs/t3/prompts/{encoded}"), &prompt]);

    let dry = r.t3(&["prune", "--older-than", "30d", "--dry-run"]).ok().out();
    assert!(
        dry.contains("would prune thread old") && !dry.contains("thread new"),
        "{dry}"
    );
    assert_eq!(checkpoint_refs(&r, "old").len(), 2, "--dry-run removed refs");

    let out = r.t3(&["prune", "--older-than", "30d"]).ok().out();
    assert!(out.contains("pruned thread old"), "{out}");
    assert!(checkpoint_refs(&r, "old").is_empty());
    assert!(r.refs("refs/t3/prompts/").is_empty(), "the prompts ref stayed");
    assert_eq!(checkpoint_refs(&r, "new").len(), 2);
    let notes = noted(&r);
    assert!(
        old.iter().all(|c| !notes.contains(c)),
        "notes of the pruned thread stayed"
    );
    assert!(
        new.iter().all(|c| notes.contains(c)),
        "notes of the kept thread went"
    );
    // The notes history starts anew, so git can collect the removed notes.
    assert_eq!(r.git(&["rev-list", "--count", "refs/notes/t3"]), "1");
    let listed = r.t3_json(&["list"]);
    assert_eq!(listed["threads"].as_array().unwrap().len(), 1);
    r.t3(&["verify"]).ok();

    // A prune is recorded, and refused by op undo (its notes are gone).
    let ops = r.t3_json(&["op", "log"]);
    assert_eq!(ops["ops"][0]["kind"], "prune");
    let undo = r.t3(&["op", "undo"]).fails(1);
    assert!(undo.stderr.contains("prune"), "{}", undo.stderr);
    // Pruned commits are not kept by the log: gc may collect them.
    r.git(&[
        "-c",
        "gc.reflogExpire=now",
        "-c",
        "gc.reflogExpireUnreachable=now",
        "gc",
        "-q",
        "--prune=now",
    ]);
    for c in &old {
        assert!(
            r.git_in(&r.root, &["cat-file", "-e", c]).code != 0,
            "{c} survived gc --prune=now"
        );
    }
}

#[test]
fn prune_by_count_keeps_the_most_recent() {
    let r = TestRepo::seeded();
    for (i, t) in ["a", "b", "c"].iter().enumerate() {
        thread_with_file(&r, t, &format!("{t}.txt"), t);
        age_thread(&r, t, 10 - i as i64);
    }
    // c is the newest, a the oldest.
    let before = r.refs("refs/t3/");
    let dry = r.t3(&["prune", "--keep-last", "1", "--dry-run"]).ok().out();
    assert!(
        dry.contains("thread a") && dry.contains("thread b") && !dry.contains("thread c"),
        "{dry}"
    );
    assert_eq!(r.refs("refs/t3/"), before);
    // With an age too, only threads beyond the count and older go.
    r.t3(&["prune", "--keep-last", "1", "--older-than", "9d"]).ok();
    assert!(checkpoint_refs(&r, "a").is_empty());
    assert_eq!(checkpoint_refs(&r, "b").len(), 2, "b is younger than 9 days");
    r.t3(&["prune", "--keep-last", "1"]).ok();
    assert!(checkpoint_refs(&r, "b").is_empty());
    assert_eq!(checkpoint_refs(&r, "c").len(), 2);
    assert_eq!(r.t3(&["prune", "--keep-last", "x"]).code, 2);
    r.t3(&["prune", "--older-than", "soon"]).fails(2);
}

#[test]
fn prune_keeps_a_thread_with_a_half_done_revert() {
    let r = TestRepo::seeded();
    thread_with_file(&r, "stuck", "s.txt", "s\n");
    r.write("s.txt", "changed\n");
    r.t3(&["capture", "--thread", "stuck"]).ok();
    let _ = r.t3_env(
        &["revert", "--thread", "stuck", "--to", "1", "--files-only"],
        &[("T3_TEST_FAULT", "after-journal")],
    );
    assert!(
        !r.refs("refs/t3/reverts/").is_empty(),
        "setup: the revert is not half-done"
    );
    age_thread(&r, "stuck", 60);
    let out = r.t3(&["prune", "--older-than", "30d"]).ok().out();
    assert!(
        out.contains("kept thread stuck") && out.contains("half-done"),
        "{out}"
    );
    assert_eq!(checkpoint_refs(&r, "stuck").len(), 3);
}

#[test]
fn prune_trims_the_operation_log_and_what_only_it_kept() {
    let r = TestRepo::seeded();
    let dropped = thread_with_file(&r, "gone", "g.txt", "g\n");
    thread_with_file(&r, "stays", "k.txt", "k\n");
    r.t3(&["drop", "--thread", "gone"]).ok();
    // The drop keeps the commits and their notes (op undo brings them back).
    assert!(dropped.iter().all(|c| noted(&r).contains(c)));
    std::thread::sleep(Duration::from_millis(2100));
    r.t3(&["prune", "--older-than", "1s", "--keep-last", "5"]).ok();
    let ops = r.t3_json(&["op", "log"]);
    assert_eq!(ops["ops"].as_array().unwrap().len(), 0, "{ops}");
    let notes = noted(&r);
    assert!(
        dropped.iter().all(|c| !notes.contains(c)),
        "notes only the trimmed op kept stayed"
    );
    assert_eq!(checkpoint_refs(&r, "stays").len(), 2);
    r.t3(&["verify"]).ok();
}

#[test]
fn verify_fix_removes_orphaned_notes_only() {
    let r = TestRepo::seeded();
    let kept = thread_with_file(&r, "t", "x.txt", "x\n");
    let head = r.git(&["rev-parse", "HEAD"]);
    r.git(&[
        "notes",
        "--ref=refs/notes/t3",
        "add",
        "-m",
        "left by a killed capture",
        &head,
    ]);
    let out = r.t3(&["verify"]).ok().out();
    assert!(out.contains(&head) && out.contains("--fix"), "{out}");
    let fixed = r.t3(&["verify", "--fix"]).ok().out();
    assert!(fixed.contains("removed 1 orphaned note"), "{fixed}");
    let notes = noted(&r);
    assert!(!notes.contains(&head));
    assert!(kept.iter().all(|c| notes.contains(c)));
    assert!(!r.t3(&["verify"]).ok().out().contains(&head));
}

/// `n` files in the worktree, captured as the baseline of `thread`: as
/// many loose objects, reachable (git packs them).
fn loose_checkpoint(r: &TestRepo, thread: &str, n: usize) {
    for i in 0..n {
        r.write(&format!("many/{i}.txt"), &format!("file {i}\n"));
    }
    r.t3(&["baseline", "--thread", thread]).ok();
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn maintenance_never_runs_twice_at_once() {
    let r = TestRepo::seeded();
    loose_checkpoint(&r, "many", 1500);
    r.git(&["config", "gc.auto", "1"]);
    let loose = || count_objects(&r)["count"];
    assert!(loose() >= 1500);
    let dir = r.root.join(".git/t3");
    std::fs::create_dir_all(&dir).unwrap();
    let held = std::fs::File::create(dir.join("maintenance.lock")).unwrap();
    held.try_lock().unwrap();
    let busy = r.t3_json(&["maintenance"]);
    assert_eq!(busy["already_running"], true, "{busy}");
    assert!(
        loose() >= 1500,
        "git gc ran while another maintenance held the lock"
    );
    drop(held);
    let done = r.t3_json(&["maintenance"]);
    assert_eq!(done["already_running"], false, "{done}");
    assert_eq!(done["gc"], true);
    assert!(loose() < 100, "git gc --auto did not pack: {} loose", loose());
}

#[test]
fn capture_starts_packing_and_the_daily_prune_in_the_background() {
    let r = TestRepo::seeded();
    thread_with_file(&r, "ancient", "a.txt", "a\n");
    age_thread(&r, "ancient", 90);
    loose_checkpoint(&r, "many", 1500);
    r.git(&["config", "gc.auto", "1"]);
    // The prune last ran two days ago.
    let stamp = r.root.join(".git/t3/prune-stamp");
    std::fs::File::create(&stamp)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(2 * 86_400))
        .unwrap();
    r.t3(&["baseline", "--thread", "fresh"]).ok();
    wait_for("the daily prune", || checkpoint_refs(&r, "ancient").is_empty());
    wait_for("git gc --auto", || count_objects(&r)["count"] < 100);
    assert_eq!(checkpoint_refs(&r, "fresh").len(), 1);
    assert_eq!(checkpoint_refs(&r, "many").len(), 1);
    let age = std::fs::metadata(&stamp)
        .unwrap()
        .modified()
        .unwrap()
        .elapsed()
        .unwrap();
    assert!(age < Duration::from_secs(3600), "the stamp was not renewed");

    // Within the day, a capture starts no prune.
    thread_with_file(&r, "ancient2", "b.txt", "b\n");
    age_thread(&r, "ancient2", 90);
    r.t3(&["capture", "--thread", "fresh"]).ok();
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(checkpoint_refs(&r, "ancient2").len(), 2);
}
