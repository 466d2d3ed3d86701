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

/// Date every note of `thread` `hours` hours back (as if its turns were
/// taken then).
fn age_thread(r: &TestRepo, thread: &str, hours: i64) {
    let when = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(hours);
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
    age_thread(&r, "old", 40 * 24);
    // A pending prompt of the old thread, as old, goes with it.
    let forty_days_ago = (jiff::Timestamp::now() - jiff::SignedDuration::from_hours(40 * 24)).to_string();
    r.extra_env_set("GIT_COMMITTER_DATE", &forty_days_ago);
    let prompt = r.git(&[
        "commit-tree",
        "-m",
        "t3 prompts",
        &r.git(&["rev-parse", "HEAD^{tree}"]),
    ]);
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

    // A prune is recorded, and undone like any op: refs and notes come
    // back, and nothing else changes.
    let ops = r.t3_json(&["op", "log"]);
    assert_eq!(ops["ops"][0]["kind"], "prune");
    let before_undo = r.refs("refs/t3/checkpoints/");
    r.t3(&["op", "undo"]).ok();
    assert_eq!(
        checkpoint_refs(&r, "old").len(),
        2,
        "undo did not bring the pruned thread back"
    );
    assert_eq!(checkpoint_refs(&r, "new").len(), 2);
    let notes = noted(&r);
    assert!(
        old.iter().all(|c| notes.contains(c)),
        "the pruned notes did not come back"
    );
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), before_undo.len() + 2);
    // Pruned again, and the log forgets the ops: gc may collect the commits.
    r.t3(&["prune", "--older-than", "30d"]).ok();
    assert!(checkpoint_refs(&r, "old").is_empty());
    // Seen from 5 s later (an injected clock, not a sleep).
    r.t3_env(
        &["prune", "--older-than", "1s", "--dry-run"],
        &[("T3_TEST_CLOCK_AHEAD", "5")],
    )
    .ok();
    let trimmed = r
        .t3_env(
            &["--json", "prune", "--older-than", "1s"],
            &[("T3_TEST_CLOCK_AHEAD", "5")],
        )
        .ok()
        .json();
    assert!(trimmed["ops_removed"].as_u64().unwrap() >= 1, "{trimmed}");
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
    // a is 10 days old, b 8.5, c 7 (the newest).
    for (t, hours) in [("a", 240), ("b", 204), ("c", 168)] {
        thread_with_file(&r, t, &format!("{t}.txt"), t);
        age_thread(&r, t, hours);
    }
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
    age_thread(&r, "stuck", 60 * 24);
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
    // Seen from 5 s later (an injected clock, not a sleep).
    r.t3_env(
        &["prune", "--older-than", "1s", "--keep-last", "5"],
        &[("T3_TEST_CLOCK_AHEAD", "5")],
    )
    .ok();
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
    let before = packs(r);
    r.t3(&["baseline", "--thread", thread]).ok();
    // A capture writes its objects as a pack: made loose again, as an
    // older git-t3 or many small captures would leave them.
    for stem in packs(r).into_iter().filter(|p| !before.contains(p)) {
        let pack = r.root.join(".git/objects/pack").join(&stem);
        let moved = r.tmp().join(format!("{stem}.pack"));
        std::fs::rename(pack.with_extension("pack"), &moved).unwrap();
        std::fs::remove_file(pack.with_extension("idx")).unwrap();
        r.git_input(
            &r.root,
            &["unpack-objects", "-q"],
            &std::fs::read(&moved).unwrap(),
        )
        .ok();
    }
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
    age_thread(&r, "ancient", 90 * 24);
    loose_checkpoint(&r, "many", 1500);
    r.git(&["config", "gc.auto", "1"]);
    // The prune last ran two days ago.
    let stamp = r.root.join(".git/t3/prune-stamp");
    std::fs::File::create(&stamp)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(2 * 86_400))
        .unwrap();
    // Every command says what maintenance it starts (see below).
    let events = r.tmp().join("events");
    r.extra_env_set("T3_TEST_EVENTS", events.to_str().unwrap());
    let prunes_started = || {
        crate::util::events(&events)
            .iter()
            .filter(|e| e.1 == "maintenance-started" && e.2 == "prune")
            .count()
    };
    r.t3(&["baseline", "--thread", "fresh"]).ok();
    assert_eq!(prunes_started(), 1, "{:?}", crate::util::events(&events));
    wait_for("the daily prune", || checkpoint_refs(&r, "ancient").is_empty());
    wait_for("git gc --auto", || count_objects(&r)["count"] < 100);
    // (This test is about starting maintenance: let it end before going on;
    // captures beside a running gc are `captures_go_on_while_git_packs_refs_and_objects`.)
    wait_for("the maintenance lock", || {
        std::fs::File::open(r.root.join(".git/t3/maintenance.lock")).is_ok_and(|f| f.try_lock().is_ok())
    });
    assert_eq!(checkpoint_refs(&r, "fresh").len(), 1);
    assert_eq!(checkpoint_refs(&r, "many").len(), 1);
    let age = std::fs::metadata(&stamp)
        .unwrap()
        .modified()
        .unwrap()
        .elapsed()
        .unwrap();
    assert!(age < Duration::from_secs(3600), "the stamp was not renewed");

    // Within the day, a capture starts no prune (it decides before it
    // exits, and says what it starts).
    thread_with_file(&r, "ancient2", "b.txt", "b\n");
    age_thread(&r, "ancient2", 90 * 24);
    r.t3(&["capture", "--thread", "fresh"]).ok();
    // The capture decided before it exited: no second prune was started.
    assert_eq!(prunes_started(), 1, "{:?}", crate::util::events(&events));
    assert_eq!(checkpoint_refs(&r, "ancient2").len(), 2);
}

#[test]
fn captures_go_on_while_git_packs_refs_and_objects() {
    // `git gc` (the background one a capture starts, or the user's) moves
    // loose refs into packed-refs and deletes their files meanwhile.
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", "busy"]).ok();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let packer = {
        let (stop, root) = (stop.clone(), r.root.clone());
        std::thread::spawn(move || {
            let mut round = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                // Now and then the gc a capture starts (`gc --auto`, here
                // always due): packs loose objects, deletes them and their
                // emptied folders.
                round += 1;
                let args: &[&str] = if round % 4 == 0 {
                    &[
                        "-c",
                        "gc.auto=1",
                        "-c",
                        "gc.autoDetach=false",
                        "gc",
                        "--auto",
                        "-q",
                    ]
                } else {
                    &["pack-refs", "--all"]
                };
                let _ = std::process::Command::new("git")
                    .args(args)
                    .current_dir(&root)
                    .env("GIT_CONFIG_NOSYSTEM", "1")
                    .status();
            }
        })
    };
    let mut failed = Vec::new();
    for i in 0..120 {
        r.write("README.md", &format!("turn {i}\n"));
        let run = r.t3(&["capture", "--thread", "busy"]);
        if run.code != 0 {
            failed.push(run.stderr);
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    packer.join().unwrap();
    assert!(
        failed.is_empty(),
        "{} of 120 captures failed: {:?}",
        failed.len(),
        failed.first()
    );
    assert_eq!(checkpoint_refs(&r, "busy").len(), 121);
}

/// Write `n` unreachable loose objects.
fn unreachable_blobs(r: &TestRepo, n: usize) {
    let dir = r.tmp().join("blobs");
    std::fs::create_dir_all(&dir).unwrap();
    let mut paths = String::new();
    for i in 0..n {
        let p = dir.join(format!("{i}"));
        std::fs::write(&p, format!("unreachable {i}\n")).unwrap();
        paths.push_str(&format!("{}\n", p.display()));
    }
    r.git_input(&r.root, &["hash-object", "-w", "--stdin-paths"], paths.as_bytes())
        .ok();
}

fn modified(path: &std::path::Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

#[test]
fn gc_is_started_at_most_once_an_hour_and_a_busy_lock_leaves_the_prune_due() {
    let r = TestRepo::seeded();
    r.git(&["config", "gc.auto", "1"]);
    // Unreachable objects: git keeps them loose, so its estimate stays high.
    unreachable_blobs(&r, 1500);
    let gc_stamp = r.root.join(".git/t3/gc-stamp");
    // Every command says what maintenance it starts, and a run that finds
    // the lock taken says so.
    let events = r.tmp().join("events");
    r.extra_env_set("T3_TEST_EVENTS", events.to_str().unwrap());
    let started = || {
        crate::util::events(&events)
            .into_iter()
            .filter(|e| e.1 == "maintenance-started")
            .map(|e| e.2)
            .collect::<Vec<_>>()
    };
    r.t3(&["baseline", "--thread", "t"]).ok();
    assert_eq!(started(), ["gc"]);
    wait_for("the background gc", || modified(&gc_stamp).is_some());
    let first = modified(&gc_stamp);
    r.write("README.md", "again\n");
    r.t3(&["capture", "--thread", "t"]).ok();
    // The capture decided before it exited.
    assert_eq!(started(), ["gc"], "a second gc started within the hour");
    assert_eq!(modified(&gc_stamp), first, "a second gc started within the hour");

    // A run that finds the lock taken leaves the daily prune due.
    thread_with_file(&r, "ancient", "a.txt", "a\n");
    age_thread(&r, "ancient", 90 * 24);
    let prune_stamp = r.root.join(".git/t3/prune-stamp");
    let two_days_ago = SystemTime::now() - Duration::from_secs(2 * 86_400);
    std::fs::File::create(&prune_stamp)
        .unwrap()
        .set_modified(two_days_ago)
        .unwrap();
    let held = std::fs::File::create(r.root.join(".git/t3/maintenance.lock")).unwrap();
    // The background gc started above may still hold it on a busy machine.
    wait_for("the background gc to finish", || held.try_lock().is_ok());
    r.t3(&["capture", "--thread", "t"]).ok();
    // The run it started found the lock taken, and left.
    assert_eq!(started(), ["gc", "prune"]);
    crate::util::wait_for_event(&events, "maintenance-busy");
    assert_eq!(
        modified(&prune_stamp),
        Some(two_days_ago),
        "the prune was claimed but not run"
    );
    assert_eq!(checkpoint_refs(&r, "ancient").len(), 2);
    drop(held);
    r.t3(&["capture", "--thread", "t"]).ok();
    wait_for("the daily prune", || checkpoint_refs(&r, "ancient").is_empty());
}

/// The packs of `r` that `git gc --auto` counts (no `.keep`).
fn packs(r: &TestRepo) -> Vec<String> {
    let dir = r.root.join(".git/objects/pack");
    r.packs()
        .into_iter()
        .filter(|stem| !dir.join(format!("{stem}.keep")).exists())
        .collect()
}

#[test]
fn captures_write_a_pack_each_and_gc_folds_them_past_the_pack_limit() {
    let r = TestRepo::seeded();
    r.git(&["config", "gc.autoPackLimit", "3"]);
    r.t3(&["baseline", "--thread", "t"]).ok();
    let gc_stamp = r.root.join(".git/t3/gc-stamp");
    let mut seen = packs(&r).len();
    let mut i = 0u64;
    // One pack a capture, until there are more than the limit.
    while seen <= 3 {
        r.write(&format!("src/f{i}.txt"), &format!("file {i}\n"));
        r.t3(&["capture", "--thread", "t"]).ok();
        if seen < 3 {
            assert_eq!(packs(&r).len(), seen + 1, "capture {i} did not write one pack");
        }
        seen += 1;
        i += 1;
    }
    // Past the limit: the capture started `git gc --auto`, which folds them.
    wait_for("the background gc", || modified(&gc_stamp).is_some());
    wait_for("the packs folded into one", || packs(&r).len() == 1);
    assert!(
        !std::fs::read_dir(r.root.join(".git/objects/pack"))
            .unwrap()
            .any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".keep")),
        "a capture left a .keep file"
    );
    r.git(&["fsck", "--strict", "--no-dangling"]);
    let last = ref_for("t", i);
    let blob = r.git(&["rev-parse", &format!("{last}:src/f{}.txt", i - 1)]);
    assert_eq!(r.git(&["cat-file", "-p", blob.trim()]), format!("file {}", i - 1));
}

#[test]
fn a_bad_or_zero_prune_after_never_prunes_everything_nor_stops_gc() {
    let r = TestRepo::seeded();
    thread_with_file(&r, "t", "a.txt", "a\n");
    r.git(&["config", "t3.pruneAfter", "30days"]);
    // The setting is not needed here: these work.
    r.t3(&["prune", "--keep-last", "5"]).ok();
    r.t3(&["prune", "--older-than", "2d"]).ok();
    r.t3(&["maintenance"]).ok();
    // Captures go on, and the prune that needs it says what is wrong.
    r.write("a.txt", "b\n");
    r.t3(&["capture", "--thread", "t"]).ok();
    let bad = r.t3(&["prune"]).fails(1);
    assert!(bad.stderr.contains("t3.pruneAfter"), "{}", bad.stderr);
    let maint = r.t3(&["maintenance", "--prune"]).fails(1);
    assert!(maint.stderr.contains("t3.pruneAfter"), "{}", maint.stderr);
    assert!(
        modified(&r.root.join(".git/t3/gc-stamp")).is_some(),
        "gc did not run"
    );
    for zero in ["0", "0d", "0s", "never"] {
        r.git(&["config", "t3.pruneAfter", zero]);
        r.t3(&["prune"]).fails(2);
        r.t3(&["maintenance", "--prune"]).ok();
        assert_eq!(checkpoint_refs(&r, "t").len(), 3, "t3.pruneAfter={zero} pruned");
    }
}

#[test]
fn a_resumed_or_reverted_thread_counts_as_used() {
    let r = TestRepo::seeded();
    thread_with_file(&r, "resumed", "a.txt", "a\n");
    thread_with_file(&r, "reverted", "b.txt", "b\n");
    r.write("b.txt", "b2\n");
    r.t3(&["capture", "--thread", "reverted"]).ok();
    age_thread(&r, "resumed", 40 * 24);
    age_thread(&r, "reverted", 40 * 24);
    // An agent's prompt hook recorded a prompt today.
    let today = r.git(&[
        "commit-tree",
        "-m",
        "t3 prompts",
        &r.git(&["rev-parse", "HEAD^{tree}"]),
    ]);
    let encoded = ref_for("resumed", 0).split('/').nth(3).unwrap().to_owned();
    r.git(&["update-ref", &format!("refs/t3/prompts/{encoded}"), &today]);
    r.t3(&["revert", "--thread", "reverted", "--to", "1", "--files-only"])
        .ok();
    let dry = r.t3(&["prune", "--older-than", "30d", "--dry-run"]).ok().out();
    assert!(!dry.contains("resumed") && !dry.contains("reverted"), "{dry}");
}

#[test]
fn notes_a_dropped_half_done_revert_keeps_survive_prune() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", "T"]).ok();
    for i in 1..=3 {
        r.write(&format!("f{i}"), &format!("{i}\n"));
        r.t3(&["capture", "--thread", "T"]).ok();
    }
    let removed: Vec<String> = [2, 3]
        .iter()
        .map(|n| r.git(&["rev-parse", &ref_for("T", *n)]))
        .collect();
    let _ = r.t3_env(
        &["revert", "--thread", "T", "--to", "1", "--files-only"],
        &[("T3_TEST_FAULT", "after-record")],
    );
    assert!(!r.refs("refs/t3/reverts/").is_empty(), "setup: no journal");
    r.t3(&["drop", "--thread", "T", "--force"]).ok();
    r.t3(&["prune", "--keep-last", "100"]).ok();
    let notes = noted(&r);
    assert!(
        removed.iter().all(|c| notes.contains(c)),
        "the notes of the journal's turns went"
    );
    r.t3(&["verify", "--fix"]).ok();
    assert!(removed.iter().all(|c| noted(&r).contains(c)));
}

#[test]
fn trimming_the_log_keeps_it_readable_and_old_op_ids_valid() {
    let r = TestRepo::seeded();
    // This drop is made 10 s ago (an injected clock, not a sleep): surely
    // older than 3 s, as op times have whole seconds.
    r.extra_env_set("T3_TEST_CLOCK_AHEAD", "-10");
    thread_with_file(&r, "first", "a.txt", "a\n");
    r.t3(&["drop", "--thread", "first"]).ok();
    r.extra_env_set("T3_TEST_CLOCK_AHEAD", "0");
    // A fetched checkpoint whose message passes for an op's.
    let evil = r.git(&[
        "commit-tree",
        "-m",
        "t3 op evil",
        &r.git(&["rev-parse", "HEAD^{tree}"]),
    ]);
    r.git(&["update-ref", &ref_for("evil", 0), &evil]);
    r.t3(&["drop", "--thread", "evil", "--force"]).ok();
    thread_with_file(&r, "second", "b.txt", "b\n");
    let drop = r.t3_json(&["drop", "--thread", "second"]);
    let ops = r.t3_json(&["op", "log"]);
    let second_drop = ops["ops"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(ops["ops"].as_array().unwrap().len(), 3, "{ops} {drop}");
    r.t3(&["prune", "--older-than", "3s", "--keep-last", "10"]).ok();
    let ops = r.t3_json(&["op", "log"]);
    let kinds: Vec<&str> = ops["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["thread"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(kinds, ["second", "evil"], "{ops}");
    r.t3(&["verify"]).ok();
    // The id printed before the trim still names the op.
    r.t3(&["op", "show", &second_drop]).ok();
    r.t3(&["op", "undo", &second_drop]).ok();
    assert_eq!(checkpoint_refs(&r, "second").len(), 2);
}

#[test]
fn du_counts_what_the_operation_log_keeps_for_no_thread() {
    let r = TestRepo::seeded();
    let big: String = (0..30_000u32).map(|i| format!("row {i}\n")).collect();
    r.write("big.txt", &big);
    r.t3(&["baseline", "--thread", "dropped"]).ok();
    r.t3(&["baseline", "--thread", "alive"]).ok();
    r.t3(&["drop", "--thread", "dropped"]).ok();
    // big.txt is in both baselines; the dropped one is kept by the log.
    let alive = du_bytes(&r, "alive");
    assert!(alive < 10_000, "alive counts the file the log keeps too: {alive}");
}

#[test]
fn push_after_prune_leaves_the_remote_threads_alone() {
    let r = TestRepo::seeded();
    let remote = r.tmp().join("remote.git");
    r.git_in(r.tmp(), &["init", "-q", "--bare", remote.to_str().unwrap()])
        .ok();
    r.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    thread_with_file(&r, "shared", "a.txt", "a\n");
    thread_with_file(&r, "mine", "b.txt", "b\n");
    r.t3(&["push", "origin"]).ok();
    age_thread(&r, "shared", 40 * 24);
    r.t3(&["prune", "--older-than", "30d"]).ok();
    assert!(checkpoint_refs(&r, "shared").is_empty());
    r.write("b.txt", "b2\n");
    r.t3(&["capture", "--thread", "mine"]).ok();
    r.t3(&["push", "origin"]).ok();
    let on_remote = r.git(&["ls-remote", "origin", "refs/t3/checkpoints/*"]);
    let shared = ref_for("shared", 0);
    assert!(
        on_remote.contains(&shared),
        "the push removed the pruned thread from the remote:\n{on_remote}"
    );
    // And a fetch does not bring it back here.
    r.t3(&["fetch", "origin"]).ok();
    assert!(checkpoint_refs(&r, "shared").is_empty());
}

#[test]
fn maintenance_runs_git_at_the_lowest_priority() {
    let r = TestRepo::seeded();
    let fake = r.tmp().join("fakebin");
    std::fs::create_dir_all(&fake).unwrap();
    let seen = r.tmp().join("nice");
    let real_git = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let script = format!(
        "#!/bin/sh\nawk '{{print $19}}' /proc/$$/stat > '{}'\nexec '{}' \"$@\"\n",
        seen.display(),
        real_git.trim()
    );
    let git = fake.join("git");
    std::fs::write(&git, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&git, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", fake.display(), std::env::var("PATH").unwrap_or_default());
    r.t3_env(&["maintenance"], &[("PATH", &path)]).ok();
    let nice = std::fs::read_to_string(&seen).expect("maintenance did not run git");
    assert_eq!(nice.trim(), "19", "git gc ran at niceness {nice}");
}

#[test]
fn du_leaves_out_what_a_linked_worktrees_detached_head_holds() {
    let r = TestRepo::seeded();
    let side = r.tmp().join("side");
    r.git(&["worktree", "add", "-q", "--detach", side.to_str().unwrap()]);
    let big: String = (0..30_000u32).map(|i| format!("{i}\n")).collect();
    std::fs::write(side.join("big.txt"), &big).unwrap();
    r.git_in(&side, &["add", "big.txt"]).ok();
    r.git_in(&side, &["commit", "-q", "-m", "big, on a detached HEAD"])
        .ok();
    // The same content, untracked here, in a checkpoint.
    r.write("big.txt", &big);
    r.t3(&["baseline", "--thread", "t"]).ok();
    let bytes = du_bytes(&r, "t");
    assert!(
        bytes < 10_000,
        "the detached HEAD's file counted as the thread's: {bytes}"
    );
}

#[test]
fn a_damaged_operation_log_is_a_finding_and_fix_removes_no_note() {
    let r = TestRepo::seeded();
    thread_with_file(&r, "x", "x.txt", "x\n");
    r.t3(&["drop", "--thread", "x"]).ok();
    let head = r.git(&["rev-parse", "HEAD"]);
    r.git(&["notes", "--ref=refs/notes/t3", "add", "-m", "orphan", &head]);
    let empty = r
        .git_input(&r.root, &["mktree"], b"")
        .ok()
        .out()
        .trim()
        .to_owned();
    let ops = r.git(&["rev-parse", "refs/t3/ops"]);
    let bad = r.git(&["commit-tree", "-m", "t3 op drop", "-p", &ops, &empty]);
    r.git(&["update-ref", "refs/t3/ops", &bad]);
    let before = noted(&r);
    let out = r.t3(&["verify"]).fails(1);
    assert!(
        out.out().contains("refs/t3/ops") && out.out().contains("op.toml"),
        "{}",
        out.out()
    );
    r.t3(&["verify", "--fix"]).fails(1);
    r.t3(&["prune", "--keep-last", "0"]).fails(1);
    assert_eq!(noted(&r), before, "notes went while the log could not be read");
}

#[test]
fn turns_are_read_from_packed_and_loose_refs_as_git_reads_them() {
    let r = TestRepo::seeded();
    let thread = "mixed";
    for i in 1..=5 {
        r.write("f.txt", &format!("{i}\n"));
        r.t3(&["capture", "--thread", thread]).ok();
    }
    // Packed, with a tag among them so `packed-refs` holds peeled lines.
    r.git(&["tag", "-a", "-m", "t", "v1"]);
    r.git(&["pack-refs", "--all"]);
    let packed_two = r.git(&["rev-parse", &ref_for(thread, 2)]);
    // Loose over packed: turn 2 written again; turn 4 deleted (gone from
    // packed-refs); turn 7 loose only; a symbolic turn 9, a ref below a
    // turn's folder and one of another thread whose name begins the same,
    // none of them a turn of this thread.
    r.write("f.txt", "two again\n");
    r.t3(&["capture", "--thread", thread, "--turn", "2", "--replace"])
        .ok();
    r.git(&["update-ref", "-d", &ref_for(thread, 4)]);
    r.write("f.txt", "7\n");
    r.t3(&["capture", "--thread", thread, "--turn", "7"]).ok();
    r.git(&["symbolic-ref", &ref_for(thread, 9), &ref_for(thread, 7)]);
    let five = r.git(&["rev-parse", &ref_for(thread, 5)]);
    r.git(&["update-ref", &format!("{}/x", ref_for(thread, 12)), &five]);
    r.git(&["update-ref", &ref_for(&format!("{thread}x"), 20), &five]);
    // The turns and commits git lists.
    let prefix = ref_for(thread, 0);
    let prefix = prefix.trim_end_matches('0');
    let mut from_git: Vec<(u64, String)> = r
        .git(&[
            "for-each-ref",
            "--format=%(refname) %(objectname) %(symref)",
            prefix,
        ])
        .lines()
        .filter_map(|line| {
            let mut words = line.split(' ');
            let turn = words.next()?.strip_prefix(prefix)?.parse().ok()?;
            let commit = words.next()?.to_owned();
            words.next().is_none_or(str::is_empty).then_some((turn, commit))
        })
        .collect();
    from_git.sort();
    let turns: Vec<u64> = from_git.iter().map(|(t, _)| *t).collect();
    assert_eq!(turns, [1, 2, 3, 5, 7]);
    let listed = r.t3_json(&["list", "--thread", thread]);
    let from_t3: Vec<(u64, String)> = listed["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["turn"].as_u64().unwrap(),
                t["commit"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(from_t3, from_git);
    assert_ne!(
        from_t3[1].1, packed_two,
        "the loose turn 2 wins over the packed one"
    );
    // The next turn is above the highest checkpoint, past numbers other
    // refs hold: 8; then 10, past the symbolic 9.
    for next in [8, 10] {
        r.write("f.txt", &format!("next {next}\n"));
        let out = r.t3_json(&["capture", "--thread", thread]);
        assert_eq!(out["turn"].as_u64(), Some(next));
    }
}
