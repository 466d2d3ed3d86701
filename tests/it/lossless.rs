//! Nothing saved is ever lost: every object a checkpoint names exists and
//! stays (against the real `git gc`), and an undo undoes only what its
//! operation did.

use std::time::{Duration, SystemTime};

use crate::util::{THREAD, TestRepo, ref_for};

/// Every blob and tree of `reference`'s tree exists (git's own check).
fn every_object_exists(r: &TestRepo, reference: &str) {
    let listed = r.git(&["ls-tree", "-r", "-t", reference]);
    for line in listed.lines() {
        let Some((meta, path)) = line.split_once('\t') else {
            continue;
        };
        let fields: Vec<&str> = meta.split_whitespace().collect();
        if fields[1] == "commit" {
            continue;
        }
        let run = r.git_in(&r.root, &["cat-file", "-e", fields[2]]);
        assert_eq!(
            run.code, 0,
            "{reference}: the object of {path} ({}) is missing",
            fields[2]
        );
    }
}

/// Set the mtime of `path` to `ago` before now (opened for reading: the
/// owner may set the times of a read-only file, such as a loose object).
fn age(path: &std::path::Path, ago: Duration) {
    std::fs::File::open(path)
        .unwrap()
        .set_modified(SystemTime::now() - ago)
        .unwrap();
}

/// Let the op log forget everything older than now, then let git collect
/// whatever nothing reaches.
fn expire_and_gc(r: &TestRepo) {
    r.git(&["config", "gc.auto", "0"]);
    // Seen from 5 s later (an injected clock, not a sleep).
    r.t3_env(&["prune", "--older-than", "1s"], &[("T3_TEST_CLOCK_AHEAD", "5")])
        .ok();
    r.git(&["reflog", "expire", "--expire=now", "--all"]);
    r.git(&["gc", "-q", "--prune=now"]);
}

#[test]
fn a_capture_after_gc_names_only_objects_that_exist() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", "first"]).ok();
    r.write("notes/untracked.txt", "only the first thread held this\n");
    r.write("README.md", "# edited, uncommitted\n");
    // Not racy: an hour old, so the next capture reuses the cached ids.
    for f in ["notes/untracked.txt", "README.md"] {
        age(&r.root.join(f), Duration::from_secs(3600));
    }
    r.t3(&["capture", "--thread", "first"]).ok();
    r.t3(&["drop", "--thread", "first"]).ok();
    expire_and_gc(&r);
    let blob = r.blob_id(b"only the first thread held this\n");
    assert_ne!(
        r.git_in(&r.root, &["cat-file", "-e", &blob]).code,
        0,
        "setup: gc kept the dropped thread's blob"
    );

    // The same files, unchanged: the capture cache knows their ids.
    r.t3(&["baseline", "--thread", THREAD]).ok();
    every_object_exists(&r, &ref_for(THREAD, 0));
    r.t3(&["verify"]).ok();
    r.remove("notes/untracked.txt");
    r.write("README.md", "something else\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.t3(&["revert", "--thread", THREAD, "--to", "0", "--files-only"])
        .ok();
    assert_eq!(
        read(&r, "notes/untracked.txt").as_deref(),
        Some("only the first thread held this\n")
    );
    assert_eq!(read(&r, "README.md").as_deref(), Some("# edited, uncommitted\n"));
}

#[test]
fn a_thread_with_checkpoints_still_checks_what_its_last_one_does_not_hold() {
    // The thread's last checkpoint keeps its objects alive, so only what a
    // capture adds beyond it is looked up: a cached id from a thread since
    // dropped and collected is still found missing.
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("notes/untracked.txt", "only the other thread held this\n");
    age(&r.root.join("notes/untracked.txt"), Duration::from_secs(3600));
    r.t3(&["baseline", "--thread", "other"]).ok();
    r.t3(&["drop", "--thread", "other"]).ok();
    r.git(&["config", "gc.auto", "0"]);
    r.t3_env(
        &["prune", "--older-than", "1s", "--keep-last", "1"],
        &[("T3_TEST_CLOCK_AHEAD", "5")],
    )
    .ok();
    r.git(&["reflog", "expire", "--expire=now", "--all"]);
    r.git(&["gc", "-q", "--prune=now"]);
    let blob = r.blob_id(b"only the other thread held this\n");
    assert_ne!(
        r.git_in(&r.root, &["cat-file", "-e", &blob]).code,
        0,
        "setup: gc kept the dropped thread's blob"
    );
    assert_eq!(
        r.refs("refs/t3/checkpoints/").len(),
        1,
        "setup: the thread's turn is gone"
    );
    // HEAD moved since: the cache is not edited in place, its ids are reused.
    r.git(&["commit", "-q", "--allow-empty", "-m", "moved"]);
    r.t3(&["capture", "--thread", THREAD]).ok();
    every_object_exists(&r, &ref_for(THREAD, 1));
    r.t3(&["verify"]).ok();
}

#[test]
fn verify_names_the_path_of_a_missing_object() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("deep/er/lost.txt", "about to be lost\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    // Damage: the blob removed behind git's back (loose or packed).
    let blob = r.blob_id(b"about to be lost\n");
    r.git(&["repack", "-a", "-d", "-q"]);
    let packs = r.packs();
    assert!(!packs.is_empty());
    // Rewrite every pack without that blob.
    let keep: String = r
        .git(&["cat-file", "--batch-all-objects", "--batch-check=%(objectname)"])
        .lines()
        .filter(|id| *id != blob)
        .map(|id| format!("{id}\n"))
        .collect();
    let pack_dir = r.root.join(".git").join("objects/pack");
    let packed = r.git_input(
        &r.root,
        &["pack-objects", "-q", pack_dir.join("fresh").to_str().unwrap()],
        keep.as_bytes(),
    );
    assert_eq!(packed.code, 0, "{}", packed.stderr);
    for p in packs {
        for ext in ["pack", "idx", "rev", "bitmap"] {
            let _ = std::fs::remove_file(pack_dir.join(format!("{p}.{ext}")));
        }
    }
    assert_ne!(r.git_in(&r.root, &["cat-file", "-e", &blob]).code, 0, "setup");
    let out = r.t3(&["--json", "verify"]).fails(1);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(text.contains("deep/er/lost.txt"), "{text}");
    // --quick checks trees only: the blob is not looked for.
    r.t3(&["verify", "--quick"]).ok();
}

#[test]
fn a_reused_loose_object_is_freshened() {
    let r = TestRepo::seeded();
    // Loose objects, as a repository that keeps them loose writes them.
    r.git(&["config", "core.sharedRepository", "group"]);
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("kept.txt", "an untracked file\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let blob = r.blob_id(b"an untracked file\n");
    let loose = r
        .root
        .join(".git")
        .join("objects")
        .join(&blob[..2])
        .join(&blob[2..]);
    assert!(loose.is_file(), "setup: {} is not loose", loose.display());
    age(&loose, Duration::from_secs(30 * 24 * 3600));
    assert!(
        std::fs::metadata(&loose).unwrap().modified().unwrap()
            < SystemTime::now() - Duration::from_secs(3600)
    );
    r.write("other.txt", "another change\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let mtime = std::fs::metadata(&loose).unwrap().modified().unwrap();
    assert!(
        mtime > SystemTime::now() - Duration::from_secs(600),
        "the reused loose object was not freshened: mtime {mtime:?}"
    );
}

fn read(r: &TestRepo, rel: &str) -> Option<String> {
    std::fs::read_to_string(r.root.join(rel)).ok()
}

/// Turns 0..=n of THREAD, turn k writing `t{k}.txt` and editing README.md.
fn turns(r: &TestRepo, n: u64) {
    r.t3(&["baseline", "--thread", THREAD]).ok();
    for k in 1..=n {
        r.write(&format!("t{k}.txt"), &format!("turn {k}\n"));
        r.write("README.md", &format!("# README as turn {k} left it\n"));
        r.t3(&["capture", "--thread", THREAD]).ok();
    }
}

#[test]
fn prune_then_bare_undo_restores_only_what_prune_removed() {
    let r = TestRepo::seeded();
    r.git(&["config", "gc.auto", "0"]);
    // All this is written 10 s ago (an injected clock, not a sleep).
    r.extra_env_set("T3_TEST_CLOCK_AHEAD", "-10");
    turns(&r, 2);
    // An older op of another kind: a bare undo must not reach it.
    r.t3(&["revert", "--thread", THREAD, "--to", "1", "--files-only"])
        .ok();
    r.t3(&["baseline", "--thread", "other"]).ok();
    r.write("other.txt", "the other thread's file\n");
    r.t3(&["capture", "--thread", "other"]).ok();
    // And from here on, now.
    r.extra_env_set("T3_TEST_CLOCK_AHEAD", "0");
    r.write("fresh.txt", "keeps the current thread young\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let refs_before = r.refs("refs/t3/checkpoints/");
    let files_before = r.oracle_tree();
    // Only "other" is older than 2 seconds (a thread's age is its latest turn's).
    let pruned = r.t3(&["--json", "prune", "--older-than", "2s"]).ok().json();
    let threads: Vec<&str> = pruned["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["thread"].as_str().unwrap())
        .collect();
    assert_eq!(threads, ["other"], "{pruned}");
    let out = r.t3(&["op", "undo"]).ok();
    assert!(out.out().contains("undid the prune"), "{}", out.out());
    assert_eq!(
        r.refs("refs/t3/checkpoints/"),
        refs_before,
        "refs are not as before the prune"
    );
    assert_eq!(r.oracle_tree(), files_before, "the undo of a prune changed files");
    assert_eq!(
        read(&r, "other.txt").as_deref(),
        Some("the other thread's file\n")
    );
    // The other thread's notes came back with it.
    let shown = r.t3_json(&["show", "--thread", "other", "--turn", "1"]);
    assert_eq!(shown["turn"], 1, "{shown}");
    r.t3(&["verify"]).ok();
}

#[test]
fn undo_of_a_restore_keeps_edits_made_since_to_other_files() {
    let r = TestRepo::seeded();
    turns(&r, 2);
    r.write("t1.txt", "edited by the user\n");
    r.t3(&["restore", "--thread", THREAD, "--turn", "1", "--", "t1.txt"])
        .ok();
    assert_eq!(read(&r, "t1.txt").as_deref(), Some("turn 1\n"));
    // After the restore, the user edits another file, and creates one.
    r.write("README.md", "the user's edit after the restore\n");
    r.write("new.txt", "made after the restore\n");
    let out = r.t3(&["op", "undo"]).ok();
    assert_eq!(
        read(&r, "t1.txt").as_deref(),
        Some("edited by the user\n"),
        "A did not come back"
    );
    assert_eq!(
        read(&r, "README.md").as_deref(),
        Some("the user's edit after the restore\n"),
        "the undo of a one-file restore lost an edit to another file"
    );
    assert_eq!(read(&r, "new.txt").as_deref(), Some("made after the restore\n"));
    let text = out.out();
    assert!(text.contains("undid the restore"), "{text}");
    assert!(
        !text.contains(" to turn "),
        "an undo of a restore names turns it did not move: {text}"
    );
    let json = r.t3_json(&["op", "log"]);
    assert_eq!(json["ops"][0]["kind"], "undo");
}

#[test]
fn undo_keeps_unrelated_edits_and_names_changed_paths() {
    let r = TestRepo::seeded();
    turns(&r, 2);
    r.t3(&["revert", "--thread", THREAD, "--to", "1", "--files-only"])
        .ok();
    // An unrelated edit (a file the revert did not touch) and a new file.
    r.write("src/lib.rs", "fn unrelated() {}\n");
    r.write("later.txt", "created after the revert\n");
    // And an edit to a file the revert wrote.
    r.write("README.md", "edited after the revert\n");
    let refs = r.refs("refs/t3/");
    // `op undo` refuses, naming the changed path only.
    let out = r.t3(&["op", "undo"]).fails(1);
    assert!(out.stderr.contains("README.md"), "{}", out.stderr);
    assert!(!out.stderr.contains("src/lib.rs"), "{}", out.stderr);
    assert_eq!(r.refs("refs/t3/"), refs, "a refused undo changed refs");
    assert_eq!(
        read(&r, "README.md").as_deref(),
        Some("edited after the revert\n")
    );
    assert_eq!(read(&r, "t2.txt"), None, "a refused undo changed files");
    // `revert --undo` (which exists to go back) and `op undo --force` put
    // it back, the edit kept in the undo's safety checkpoint.
    let out = r.t3(&["--json", "revert", "--undo", "--thread", THREAD]).ok();
    let v = out.json();
    assert_eq!(read(&r, "t2.txt").as_deref(), Some("turn 2\n"));
    assert_eq!(
        read(&r, "README.md").as_deref(),
        Some("# README as turn 2 left it\n")
    );
    assert_eq!(read(&r, "src/lib.rs").as_deref(), Some("fn unrelated() {}\n"));
    assert_eq!(
        read(&r, "later.txt").as_deref(),
        Some("created after the revert\n")
    );
    let safety = v["safety_commit"].as_str().unwrap();
    assert_eq!(
        r.git(&["show", &format!("{safety}:README.md")]),
        "edited after the revert"
    );
    assert_eq!(v["overwritten"][0], "README.md", "{v}");
}

#[test]
fn repeated_bare_undo_walks_further_back() {
    let r = TestRepo::seeded();
    turns(&r, 3);
    r.t3(&["revert", "--thread", THREAD, "--to", "2", "--files-only"])
        .ok();
    r.t3(&["revert", "--thread", THREAD, "--to", "1", "--files-only"])
        .ok();
    assert_eq!(read(&r, "t2.txt"), None);
    r.t3(&["op", "undo"]).ok();
    assert_eq!(read(&r, "t2.txt").as_deref(), Some("turn 2\n"));
    assert_eq!(read(&r, "t3.txt"), None);
    let out = r.t3(&["op", "undo"]).ok();
    assert_eq!(read(&r, "t3.txt").as_deref(), Some("turn 3\n"), "{}", out.out());
    assert_eq!(r.refs(&ref_for(THREAD, 3)).len(), 1);
    // Nothing older to undo: the thread's captures are not operations.
    r.t3(&["op", "undo"]).fails(1);
    // An op already undone is refused by name.
    let ops = r.t3_json(&["op", "log"]);
    let first_revert = ops["ops"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|o| o["kind"] == "revert")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let out = r.t3(&["op", "undo", &first_revert]).fails(1);
    assert!(out.stderr.contains("undone already"), "{}", out.stderr);
}

#[test]
fn op_undo_force_puts_back_a_changed_path_and_keeps_it() {
    let r = TestRepo::seeded();
    turns(&r, 2);
    r.t3(&["restore", "--thread", THREAD, "--turn", "1", "--", "README.md"])
        .ok();
    r.write("README.md", "edited after the restore\n");
    let out = r.t3(&["op", "undo"]).fails(1);
    assert!(
        out.stderr.contains("README.md") && out.stderr.contains("--force"),
        "{}",
        out.stderr
    );
    let v = r.t3(&["--json", "op", "undo", "--force"]).ok().json();
    assert_eq!(
        read(&r, "README.md").as_deref(),
        Some("# README as turn 2 left it\n")
    );
    let safety = v["safety_commit"].as_str().unwrap();
    assert_eq!(
        r.git(&["show", &format!("{safety}:README.md")]),
        "edited after the restore"
    );
    // And that undo is undone in turn: the edit comes back.
    let undo = r.git(&["rev-parse", "refs/t3/ops"]);
    r.t3(&["op", "undo", &undo]).ok();
    assert_eq!(
        read(&r, "README.md").as_deref(),
        Some("edited after the restore\n")
    );
}

#[test]
fn sigint_stops_a_long_capture_at_once_and_leaves_nothing_behind() {
    let r = TestRepo::seeded();
    // Enough untracked files (8,000, 19 MB) that the first capture runs
    // for a good part of a second: the signal comes within milliseconds of
    // the lock, so a busy machine still signals a capture at work.
    for d in 0..16 {
        let dir = r.root.join(format!("many/d{d}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..500 {
            std::fs::write(dir.join(format!("f{f}.txt")), format!("{d} {f}\n").repeat(200)).unwrap();
        }
    }
    let mut child = r.spawn_t3(&["capture", "--thread", THREAD], &[]);
    // Under way: it holds the lock (taken before the walk) and says so in it.
    let lock = r.root.join(".git/t3/lock");
    let start = std::time::Instant::now();
    while std::fs::read_to_string(&lock).map_or(true, |s| !s.contains("capture")) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the capture never took the lock"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "setup: the capture finished before the signal"
    );
    let sent = std::time::Instant::now();
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    let took = sent.elapsed();
    assert_eq!(status.code(), Some(130), "{status:?}");
    assert!(
        took < Duration::from_millis(1500),
        "SIGINT took {took:?} to stop the capture"
    );
    assert!(
        r.refs("refs/t3/").is_empty(),
        "an interrupted capture published a ref"
    );
    // No lock or temporary file left: the next capture runs at once.
    let git = r.root.join(".git").to_string_lossy().into_owned();
    let leftovers: Vec<String> = walk(&r.root.join(".git"))
        .into_iter()
        .map(|p| p[git.len()..].to_owned())
        .filter(|p| p.ends_with(".lock") || p.contains("tmp") || p.ends_with(".keep"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    r.t3(&["capture", "--thread", THREAD]).ok();
}

fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p.to_string_lossy().into_owned());
        }
    }
    out
}
