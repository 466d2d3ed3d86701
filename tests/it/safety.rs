//! Never losing work: what the safety checkpoint keeps, what undo, abort and
//! `op undo` put back, and what the operation log keeps reachable.

use crate::util::{THREAD, TestRepo, ref_for};

/// Baseline and `n` turns, each adding t<i>.txt and rewriting README.md;
/// returns the oracle tree of each turn.
fn turns(r: &TestRepo, n: u64) -> Vec<String> {
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let mut trees = vec![r.oracle_tree()];
    for i in 1..=n {
        r.write(&format!("t{i}.txt"), &format!("turn {i}\n"));
        r.write("README.md", &format!("readme at {i}\n"));
        r.t3(&["capture", "--thread", THREAD]).ok();
        trees.push(r.oracle_tree());
    }
    trees
}

fn read(r: &TestRepo, rel: &str) -> Option<String> {
    std::fs::read_to_string(r.root.join(rel)).ok()
}

fn op_kinds(r: &TestRepo) -> Vec<String> {
    r.t3_json(&["op", "log"])["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn undo_and_abort_keep_work_done_after_the_revert() {
    let r = TestRepo::seeded();
    let trees = turns(&r, 2);
    r.t3(&["revert", "--thread", THREAD, "--to", "1"]).ok();
    r.write("after.txt", "work done after the revert\n");
    r.t3(&["revert", "--undo", "--thread", THREAD]).ok();
    // Turn 2's files are back; the file made after the revert stays.
    assert_eq!(
        read(&r, "after.txt").as_deref(),
        Some("work done after the revert\n"),
        "the undo deleted work done after the revert"
    );
    std::fs::rename(r.root.join("after.txt"), r.tmp().join("after.txt")).unwrap();
    assert_eq!(r.oracle_tree(), trees[2], "undo did not bring turn 2 back");
    std::fs::rename(r.tmp().join("after.txt"), r.root.join("after.txt")).unwrap();
    assert_eq!(op_kinds(&r), ["undo", "revert"]);
    // The undo can be undone: back to turn 1, the work done after stays.
    r.t3(&["op", "undo"]).ok();
    assert_eq!(
        read(&r, "after.txt").as_deref(),
        Some("work done after the revert\n")
    );
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 2);
    // Abort keeps work done while the revert was stopped.
    let r = TestRepo::seeded();
    turns(&r, 2);
    let _ = r.t3_env(
        &["revert", "--thread", THREAD, "--to", "0", "--files-only"],
        &[("T3_TEST_FAULT", "after-restore")],
    );
    r.write("meanwhile.txt", "written while the revert was stopped\n");
    r.t3(&["revert", "--abort", "--thread", THREAD]).ok();
    assert_eq!(
        read(&r, "meanwhile.txt").as_deref(),
        Some("written while the revert was stopped\n"),
        "the abort deleted work done while the revert was stopped"
    );
    assert_eq!(op_kinds(&r)[0], "abort");
    r.t3(&["op", "undo"]).ok();
    assert_eq!(
        read(&r, "meanwhile.txt").as_deref(),
        Some("written while the revert was stopped\n"),
        "undoing the abort lost the work done while the revert was stopped"
    );
    r.git(&["fsck", "--no-progress"]);
}

#[test]
fn ignored_files_and_directories_in_the_way_are_kept() {
    let r = TestRepo::seeded();
    r.write("config.local", "turn 0 config\n");
    r.write("out", "a file at turn 0\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write(".gitignore", "*.log\nbuild/\nconfig.local\nout/\n");
    r.write("config.local", "my real settings\n");
    r.remove("out");
    r.write("out/cache.bin", "an ignored directory's data\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.t3(&["revert", "--thread", THREAD, "--to", "0"]).ok();
    assert_eq!(read(&r, "config.local").as_deref(), Some("turn 0 config\n"));
    assert_eq!(read(&r, "out").as_deref(), Some("a file at turn 0\n"));
    r.t3(&["revert", "--undo", "--thread", THREAD]).ok();
    assert_eq!(read(&r, "config.local").as_deref(), Some("my real settings\n"));
    assert_eq!(
        read(&r, "out/cache.bin").as_deref(),
        Some("an ignored directory's data\n")
    );
}

#[test]
fn a_nested_repository_in_the_way_is_refused_or_moved_aside() {
    let r = TestRepo::seeded();
    r.write("vendor/lib", "a file at turn 0\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.remove("vendor/lib");
    let nested = r.root.join("vendor/lib");
    std::fs::create_dir_all(&nested).unwrap();
    r.git_in(&nested, &["init", "-q", "-b", "main"]).ok();
    std::fs::write(nested.join("work.txt"), "unpushed work\n").unwrap();
    r.git_in(&nested, &["add", "."]).ok();
    r.git_in(&nested, &["commit", "-qm", "unpushed"]).ok();
    r.t3(&["capture", "--thread", THREAD]).ok();
    let before = r.refs("refs/t3/");
    let out = r.t3(&["revert", "--thread", THREAD, "--to", "0"]).fails(1);
    assert!(
        out.stderr.contains("vendor/lib") && out.stderr.contains("--force"),
        "{}",
        out.stderr
    );
    assert!(
        nested.join("work.txt").exists(),
        "a refused revert touched the nested repository"
    );
    assert_eq!(r.refs("refs/t3/"), before, "a refused revert changed refs");
    let out = r.t3(&["revert", "--thread", THREAD, "--to", "0", "--force"]).ok();
    assert!(out.stderr.contains("aside"), "{}", out.stderr);
    assert_eq!(read(&r, "vendor/lib").as_deref(), Some("a file at turn 0\n"));
    r.t3(&["revert", "--undo", "--thread", THREAD]).ok();
    assert_eq!(
        std::fs::read_to_string(nested.join("work.txt")).unwrap(),
        "unpushed work\n",
        "undo did not bring the nested repository back"
    );
}

#[test]
fn staged_work_and_skip_worktree_edits_come_back() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("README.md", "staged line\n");
    r.git(&["add", "README.md"]);
    r.write("README.md", "staged line\nunstaged line\n");
    r.git(&["update-index", "--skip-worktree", "src/main.rs"]);
    r.write("src/main.rs", "local edit hidden from git\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    // A commit rebuilds the capture cache from HEAD.
    r.write("docs/more.txt", "more\n");
    r.git(&["add", "docs/more.txt"]);
    r.git(&["commit", "-qm", "more"]);
    r.t3(&["capture", "--thread", THREAD]).ok();
    let index = r.git(&["write-tree"]);
    r.t3(&["revert", "--thread", THREAD, "--to", "1", "--files-only"])
        .ok();
    let bits = r.git(&["ls-files", "-v", "src/main.rs"]);
    assert!(
        bits.starts_with('S'),
        "the revert dropped the skip-worktree bit: {bits}"
    );
    r.t3(&["revert", "--undo", "--thread", THREAD]).ok();
    assert_eq!(
        r.git(&["write-tree"]),
        index,
        "undo did not put the staged work back"
    );
    assert_eq!(
        read(&r, "src/main.rs").as_deref(),
        Some("local edit hidden from git\n")
    );
}

#[test]
fn a_sparse_checkout_keeps_out_of_cone_files_out() {
    let r = TestRepo::seeded();
    r.git(&["sparse-checkout", "set", "--no-cone", "/*", "!/docs/"]);
    assert!(!r.root.join("docs").exists(), "setup: docs/ is in the cone");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("src/new.rs", "new\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.t3(&["revert", "--thread", THREAD, "--to", "0"]).ok();
    assert!(
        !r.root.join("docs").exists(),
        "the revert wrote out-of-cone files"
    );
    assert!(!r.root.join("src/new.rs").exists());
    let bits = r.git(&["ls-files", "-v", "docs"]);
    assert!(
        bits.lines().all(|l| l.starts_with('S')),
        "skip-worktree bits dropped: {bits}"
    );
}

#[test]
fn untracked_files_the_target_ignores_are_kept() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    // The agent deletes .gitignore; files it used to ignore become visible.
    r.remove(".gitignore");
    r.write("build/out.o", "object\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.t3(&["revert", "--thread", THREAD, "--to", "0"]).ok();
    assert_eq!(read(&r, "build/out.o").as_deref(), Some("object\n"));
    assert!(r.root.join(".gitignore").exists());
}

#[test]
fn undo_after_gc_and_reused_turns() {
    let r = TestRepo::seeded();
    let trees = turns(&r, 3);
    let before = r.refs("refs/t3/checkpoints/");
    r.t3(&["revert", "--thread", THREAD, "--to", "1"]).ok();
    r.git(&["reflog", "expire", "--expire=now", "--all"]);
    r.git(&["gc", "-q", "--prune=now"]);
    r.t3(&["revert", "--undo", "--thread", THREAD]).ok();
    assert_eq!(r.refs("refs/t3/checkpoints/"), before);
    assert_eq!(r.oracle_tree(), trees[3]);
    r.git(&["fsck", "--no-progress"]);
    // Reused turn numbers: refused, naming them; --force keeps them in the log.
    r.t3(&["revert", "--thread", THREAD, "--to", "1"]).ok();
    r.write("new-2.txt", "a new turn 2\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let new2 = r.git(&["rev-parse", &ref_for(THREAD, 2)]);
    let state = r.refs("refs/t3/");
    let out = r.t3(&["revert", "--undo", "--thread", THREAD]).fails(1);
    assert!(out.stderr.contains("turn 2"), "{}", out.stderr);
    assert_eq!(r.refs("refs/t3/"), state, "a refused undo changed refs");
    r.t3(&["revert", "--undo", "--force", "--thread", THREAD]).ok();
    assert_eq!(r.refs("refs/t3/checkpoints/"), before);
    let tip = r.git(&["rev-parse", "refs/t3/ops"]);
    let parents = r.git(&["rev-list", "--parents", "-n1", &tip]);
    assert!(
        parents.contains(&new2),
        "the displaced turn 2 is not kept by the log"
    );
}

#[test]
fn drop_keeps_notes_other_threads_share_and_can_be_undone() {
    let r = TestRepo::seeded();
    turns(&r, 1);
    // Another thread whose turn 0 is the same commit as ours.
    let c0 = r.git(&["rev-parse", &ref_for(THREAD, 0)]);
    r.git(&["update-ref", &ref_for("other", 0), &c0]);
    r.t3(&["drop", "--thread", "other"]).ok();
    assert!(
        r.note(&ref_for(THREAD, 0)).contains("turn = 0"),
        "drop removed a shared note"
    );
    r.t3(&["drop", "--thread", THREAD]).ok();
    assert!(r.refs("refs/t3/checkpoints/").is_empty());
    r.t3(&["op", "undo"]).ok();
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 2, "op undo of a drop");
    r.t3(&["show", "--thread", THREAD, "--turn", "1"]).ok();
}

#[test]
fn a_kill_at_any_step_of_a_put_back_is_finished_next_time() {
    for fault in ["after-op", "after-restore", "after-refs"] {
        for command in ["undo", "op undo", "abort"] {
            let r = TestRepo::seeded();
            let trees = turns(&r, 2);
            r.write("unsaved.txt", "not in any checkpoint\n");
            let before = r.oracle_tree();
            let args: Vec<&str> = match command {
                "abort" => {
                    let _ = r.t3_env(
                        &["revert", "--thread", THREAD, "--to", "1", "--files-only"],
                        &[("T3_TEST_FAULT", "after-refs")],
                    );
                    vec!["revert", "--abort", "--thread", THREAD]
                }
                "undo" => {
                    r.t3(&["revert", "--thread", THREAD, "--to", "1"]).ok();
                    vec!["revert", "--undo", "--thread", THREAD]
                }
                _ => {
                    r.t3(&["revert", "--thread", THREAD, "--to", "1"]).ok();
                    vec!["op", "undo"]
                }
            };
            let what = format!("{command} killed {fault}");
            let out = r.t3_env(&args, &[("T3_TEST_FAULT", fault)]);
            assert_ne!(out.code, 0, "{what}: the fault did not fire");
            // Running the same command again finishes it, and does nothing more.
            let out = r.t3(&args).ok();
            assert!(
                out.stderr.contains("finished the interrupted"),
                "{what}: {}",
                out.stderr
            );
            assert!(r.refs("refs/t3/pending").is_empty(), "{what}: left pending");
            assert_eq!(
                r.oracle_tree(),
                before,
                "{what}: not back to the work before the revert"
            );
            assert_ne!(before, trees[1]);
            assert_eq!(r.refs("refs/t3/checkpoints/").len(), 3, "{what}");
            assert!(r.refs("refs/t3/reverts/").is_empty(), "{what}: journal left");
            r.git(&["fsck", "--no-progress"]);
        }
    }
}

fn lock_files(r: &TestRepo) -> Vec<String> {
    crate::util::listing(&r.root.join(".git"))
        .lines()
        .filter(|l| l.ends_with(".lock"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn lock_files_left_by_a_killed_git_t3_are_removed_and_others_kept() {
    for fault in ["index-locked", "refs-locked"] {
        let r = TestRepo::seeded();
        let trees = turns(&r, 2);
        // Staged work makes the revert rewrite the index.
        r.git(&["add", "t2.txt"]);
        let out = r.t3_env(
            &["revert", "--thread", THREAD, "--to", "1", "--files-only"],
            &[("T3_TEST_FAULT", fault)],
        );
        assert_ne!(out.code, 0, "{fault}: the fault did not fire");
        assert!(!lock_files(&r).is_empty(), "{fault}: no lock file was left");
        let resumed = r.t3(&["revert", "--continue", "--thread", THREAD]);
        assert!(
            resumed.code == 0 || resumed.code == 1,
            "{fault}: {}",
            resumed.stderr
        );
        assert!(lock_files(&r).is_empty(), "{fault}: left {:?}", lock_files(&r));
        if resumed.code == 0 {
            assert_eq!(
                r.oracle_tree(),
                trees[1],
                "{fault}: --continue did not land on turn 1"
            );
        }
        r.write("later.txt", "later\n");
        r.t3(&["capture", "--thread", THREAD]).ok();
        r.git(&["add", "later.txt"]);
        r.git(&["fsck", "--no-progress"]);
    }
    // A lock file git-t3 did not create (a running git's) is never removed.
    let r = TestRepo::seeded();
    turns(&r, 1);
    r.git(&["add", "t1.txt"]);
    std::fs::write(r.root.join(".git/index.lock"), b"").unwrap();
    r.t3(&["capture", "--thread", THREAD]).ok();
    let out = r
        .t3(&["revert", "--thread", THREAD, "--to", "0", "--files-only"])
        .fails(1);
    assert!(out.stderr.contains("index.lock"), "{}", out.stderr);
    assert!(
        r.refs("refs/t3/reverts/").is_empty(),
        "a refused revert left a journal"
    );
    assert!(r.root.join("t1.txt").exists(), "a refused revert changed files");
    assert!(
        r.root.join(".git/index.lock").exists(),
        "a foreign index.lock was removed"
    );
}
