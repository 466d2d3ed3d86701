//! Recovery after crashes, garbage collection and awkward worktrees: each
//! case was found by trying to make git-t3 lose work, and failed before its fix.

use crate::util::{THREAD, TestRepo, ref_for};

/// Baseline, then turn 1 with `f` changed.
fn two_turns(r: &TestRepo) {
    r.write("f", "base\n");
    r.commit_all("f");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("f", "t1\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
}

/// Make `dir` a repository with one commit holding `p`: "precious".
fn precious_repository(r: &TestRepo, dir: &std::path::Path) {
    if dir.exists() && !dir.is_dir() {
        std::fs::remove_file(dir).unwrap();
    }
    std::fs::create_dir_all(dir).unwrap();
    r.git_in(dir, &["init", "-q", "-b", "main"]).ok();
    std::fs::write(dir.join("p"), "precious\n").unwrap();
    r.git_in(dir, &["add", "p"]).ok();
    r.git_in(dir, &["commit", "-qm", "precious"]).ok();
}

/// Whether a blob with exactly `content` is reachable from a ref.
fn kept(r: &TestRepo, content: &str) -> bool {
    let blob = gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, content.as_bytes())
        .unwrap()
        .to_string();
    r.git(&["rev-list", "--objects", "--all"])
        .lines()
        .any(|l| l.starts_with(&blob))
}

#[test]
fn a_killed_revert_survives_gc_with_staged_work_and_removed_turns() {
    for fault in ["after-journal", "after-restore", "after-refs", "after-record"] {
        let r = TestRepo::seeded();
        two_turns(&r);
        r.write("f", "STAGED\n");
        r.git(&["add", "f"]);
        r.write("f", "WORKTREE\n");
        let out = r.t3_env(
            &["revert", "--thread", THREAD, "--to", "0", "--files-only"],
            &[("T3_TEST_FAULT", fault)],
        );
        assert_ne!(out.code, 0, "{fault}: the fault did not fire");
        r.git(&["reflog", "expire", "--expire=now", "--all"]);
        r.git(&["gc", "-q", "--prune=now"]);
        assert!(kept(&r, "STAGED\n"), "{fault}: gc took the staged work");
        r.t3(&["revert", "--abort", "--thread", THREAD]).ok();
        assert_eq!(r.git(&["show", ":f"]), "STAGED", "{fault}: the index is not back");
        assert_eq!(std::fs::read_to_string(r.root.join("f")).unwrap(), "WORKTREE\n");
        assert_eq!(r.refs("refs/t3/checkpoints/").len(), 2, "{fault}");
        r.git(&["fsck", "--no-progress"]);
    }
}

#[test]
fn continue_keeps_work_done_after_the_crash() {
    let r = TestRepo::seeded();
    two_turns(&r);
    let _ = r.t3_env(
        &["revert", "--thread", THREAD, "--to", "0", "--files-only"],
        &[("T3_TEST_FAULT", "after-journal")],
    );
    r.write("f", "EDIT AFTER THE CRASH\n");
    r.write("n", "NEW AFTER THE CRASH\n");
    r.t3(&["revert", "--continue", "--thread", THREAD]).ok();
    r.git(&["gc", "-q", "--prune=now"]);
    assert!(kept(&r, "EDIT AFTER THE CRASH\n") && kept(&r, "NEW AFTER THE CRASH\n"));
    let kinds = r.t3_json(&["op", "log"]);
    assert!(
        kinds["ops"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["kind"] == "restore"),
        "the work kept before resuming is not an op: {kinds}"
    );
}

#[test]
fn finishing_an_interrupted_undo_keeps_work_done_since() {
    let r = TestRepo::seeded();
    two_turns(&r);
    r.t3(&["revert", "--thread", THREAD, "--to", "0", "--files-only"])
        .ok();
    let _ = r.t3_env(
        &["revert", "--undo", "--thread", THREAD],
        &[("T3_TEST_FAULT", "after-op")],
    );
    r.write("f", "EDIT2\n");
    // Any put-back finishes it, even one for another thread.
    let _ = r.t3(&["revert", "--abort", "--thread", "other"]);
    r.git(&["gc", "-q", "--prune=now"]);
    assert!(
        kept(&r, "EDIT2\n"),
        "finishing the undo lost the edit made after the crash"
    );
}

#[test]
fn no_turn_is_captured_while_a_revert_is_stopped_half_way() {
    let r = TestRepo::seeded();
    two_turns(&r);
    r.write("f", "t2\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let _ = r.t3_env(
        &["revert", "--thread", THREAD, "--to", "0", "--files-only"],
        &[("T3_TEST_FAULT", "after-restore")],
    );
    let refs = r.refs("refs/t3/checkpoints/");
    r.write("f", "AGENT TURN 2 REDONE\n");
    // A manual capture: refused, saying how to go on.
    let out = r.t3(&["capture", "--thread", THREAD]).fails(1);
    assert!(
        out.stderr.contains("revert --continue") && out.stderr.contains("--abort"),
        "{}",
        out.stderr
    );
    r.t3(&["capture", "--thread", THREAD, "--turn", "2", "--replace"])
        .fails(1);
    // An agent's Stop hook: nothing captured, and the agent is told.
    let payload = format!(
        r#"{{"hook_event_name":"Stop","session_id":"{THREAD}","cwd":"{}","stop_hook_active":false}}"#,
        r.root.display()
    );
    let hook = r.t3_input(&["hook", "claude-code"], payload.as_bytes()).ok();
    let said = String::from_utf8_lossy(&hook.stdout).into_owned();
    assert!(
        said.contains("systemMessage") && said.contains("revert --continue"),
        "{said}"
    );
    assert_eq!(
        r.refs("refs/t3/checkpoints/"),
        refs,
        "a turn was captured mid-revert"
    );
    r.t3(&["revert", "--continue", "--thread", THREAD]).ok();
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 1);
}

#[test]
fn stale_lock_files_are_found_from_any_directory() {
    let r = TestRepo::seeded();
    two_turns(&r);
    r.write("g", "x\n");
    let _ = r.t3_env(
        &["capture", "--thread", THREAD],
        &[("T3_TEST_FAULT", "refs-locked")],
    );
    r.t3_in(&r.root.join("src"), &["capture", "--thread", THREAD])
        .ok();
    r.git(&["gc", "-q"]);
}

#[test]
fn nested_repositories_moved_aside_come_back_when_undone_from_a_subdirectory() {
    let r = TestRepo::seeded();
    two_turns(&r);
    for name in ["sub", "n\u{7f}x"] {
        r.write(name, "a file at turn 2\n");
    }
    r.t3(&["capture", "--thread", THREAD]).ok();
    let nested = r.root.join("sub");
    precious_repository(&r, &nested);
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.t3(&[
        "revert",
        "--thread",
        THREAD,
        "--to",
        "2",
        "--files-only",
        "--force",
    ])
    .ok();
    r.t3_in(&r.root.join("src"), &["revert", "--undo", "--thread", THREAD])
        .ok();
    assert_eq!(std::fs::read_to_string(nested.join("p")).unwrap(), "precious\n");
}

#[test]
fn a_nested_repository_with_a_name_that_is_not_utf8_is_never_moved() {
    use std::os::unix::ffi::OsStrExt as _;
    let r = TestRepo::seeded();
    two_turns(&r);
    let name = std::ffi::OsStr::from_bytes(b"n\xff");
    std::fs::write(r.root.join(name), "turn 2\n").unwrap();
    r.t3(&["capture", "--thread", THREAD]).ok();
    let nested = r.root.join(name);
    precious_repository(&r, &nested);
    r.t3(&["capture", "--thread", THREAD]).ok();
    let out = r
        .t3(&[
            "revert",
            "--thread",
            THREAD,
            "--to",
            "2",
            "--files-only",
            "--force",
        ])
        .fails(1);
    assert!(out.stderr.contains("UTF-8"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(nested.join("p")).unwrap(), "precious\n");
}

#[test]
fn a_symlink_where_a_directory_was_does_not_block_the_revert() {
    let r = TestRepo::seeded();
    two_turns(&r);
    r.write("d/x", "turn 2\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let elsewhere = r.tmp().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("x"), "outside\n").unwrap();
    r.remove("d");
    std::os::unix::fs::symlink(&elsewhere, r.root.join("d")).unwrap();
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.t3(&["revert", "--thread", THREAD, "--to", "2", "--files-only"])
        .ok();
    assert_eq!(
        std::fs::read_to_string(elsewhere.join("x")).unwrap(),
        "outside\n",
        "wrote through the symlink"
    );
    r.t3(&["revert", "--undo", "--thread", THREAD]).ok();
    assert!(
        std::fs::symlink_metadata(r.root.join("d"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn undo_on_an_unborn_branch_puts_an_empty_index_back() {
    let r = TestRepo::new();
    r.write("a", "a\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("b", "b\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.t3(&["revert", "--thread", THREAD, "--to", "0", "--files-only"])
        .ok();
    r.t3(&["revert", "--undo", "--thread", THREAD]).ok();
    assert_eq!(r.git(&["ls-files"]), "", "undo staged files the user never added");
}

/// Three turns of `a`: base, one, two.
fn three(r: &TestRepo) {
    r.write("a", "base\n");
    r.commit_all("a");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("a", "one\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.write("a", "two\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
}

#[test]
fn finishing_an_interrupted_undo_never_overwrites_a_turn_captured_since() {
    let r = TestRepo::seeded();
    three(&r);
    r.t3(&["revert", "--thread", THREAD, "--to", "1", "--files-only"])
        .ok();
    let _ = r.t3_env(
        &["revert", "--undo", "--thread", THREAD],
        &[("T3_TEST_FAULT", "after-op")],
    );
    r.write("a", "my work\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let mine = r.git(&["rev-parse", &ref_for(THREAD, 2)]);
    r.t3(&["revert", "--undo", "--thread", THREAD]).ok();
    assert_eq!(
        r.git(&["rev-parse", &ref_for(THREAD, 2)]),
        mine,
        "the new turn 2 was replaced"
    );
}

#[test]
fn names_git_refuses_are_not_captured_and_do_not_block_put_backs() {
    let r = TestRepo::seeded();
    three(&r);
    r.write("x/.GIT/n", "p\n");
    r.write("git~1", "p\n");
    r.write("y/.git ", "p\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let paths = r.git(&["ls-tree", "-r", "--name-only", &ref_for(THREAD, 3)]);
    assert!(!paths.contains("git~1") && !paths.contains(".GIT"), "{paths}");
    r.t3(&["revert", "--thread", THREAD, "--to", "1", "--files-only"])
        .ok();
    assert!(
        r.root.join("git~1").exists(),
        "a file the checkpoint could not hold was deleted"
    );
    r.t3(&["revert", "--undo", "--thread", THREAD]).ok();
    assert!(r.refs("refs/t3/pending").is_empty());
}

#[test]
fn fetch_takes_only_checkpoints() {
    let r = TestRepo::seeded();
    three(&r);
    let mirror = r.tmp().join("evil.git");
    r.git(&[
        "clone",
        "-q",
        "--mirror",
        r.root.to_str().unwrap(),
        mirror.to_str().unwrap(),
    ]);
    let bad = format!("{}/x", ref_for(THREAD, 3));
    let head = r.git(&["rev-parse", "HEAD"]);
    r.git_in(
        &r.root,
        &["--git-dir", mirror.to_str().unwrap(), "update-ref", &bad, &head],
    )
    .ok();
    r.git(&["remote", "add", "evil", mirror.to_str().unwrap()]);
    // Refused and named; the command fails after taking the rest.
    let out = r.t3(&["fetch", "evil"]).fails(1);
    assert!(out.out().contains("not a checkpoint"), "{}", out.out());
    assert!(out.stderr.contains("1 ref(s) refused"), "{}", out.stderr);
    assert!(!r.refs("refs/t3/checkpoints/").contains(&bad));
    r.write("a", "three\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
}

#[test]
fn a_revert_is_recorded_once_whatever_came_between() {
    let r = TestRepo::seeded();
    three(&r);
    r.t3(&["baseline", "--thread", "other"]).ok();
    let _ = r.t3_env(
        &["revert", "--thread", THREAD, "--to", "1", "--files-only"],
        &[("T3_TEST_FAULT", "after-op")],
    );
    r.t3(&["drop", "--thread", "other"]).ok();
    r.t3(&["revert", "--continue", "--thread", THREAD]).ok();
    let ops = r.t3_json(&["op", "log"]);
    let reverts = ops["ops"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["kind"] == "revert")
        .count();
    assert_eq!(reverts, 1, "{ops}");
}

#[test]
fn an_op_from_a_newer_git_t3_is_read() {
    let r = TestRepo::seeded();
    three(&r);
    r.t3(&["revert", "--thread", THREAD, "--to", "1", "--files-only"])
        .ok();
    let text = "schema = 1\nkind = \"fetch\"\ntime = \"2026-01-01T00:00:00Z\"\nnewfield = 1\n";
    let file = r.tmp().join("op.toml");
    std::fs::write(&file, text).unwrap();
    let blob = r.git(&["hash-object", "-w", file.to_str().unwrap()]);
    let tree_in = r.tmp().join("tree");
    std::fs::write(&tree_in, format!("100644 blob {blob}\top.toml\n")).unwrap();
    let tree = {
        let out = std::process::Command::new("git")
            .args(["mktree"])
            .current_dir(&r.root)
            .stdin(std::fs::File::open(&tree_in).unwrap())
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
    let c = r.git(&["commit-tree", &tree, "-p", "refs/t3/ops", "-m", "t3 op fetch"]);
    r.git(&["update-ref", "refs/t3/ops", &c]);
    r.t3(&["op", "log"]).ok();
    r.t3(&["revert", "--undo", "--thread", THREAD]).ok();
}
