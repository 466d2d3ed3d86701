//! Threads know where they were taken (worktree, branch, HEAD, agent,
//! title) and belong to the worktree of their baseline: reverting,
//! restoring or diffing against live files from another worktree is
//! refused, naming the right one, unless --force.

use crate::util::{THREAD, TestRepo, ref_for};

fn note_field(r: &TestRepo, turn: u64, key: &str) -> Option<toml::Value> {
    let note: toml::Table = toml::from_str(&r.note(&ref_for(THREAD, turn))).unwrap();
    note.get(key).cloned()
}

#[test]
fn notes_say_where_and_by_whom_a_checkpoint_was_taken() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("a.txt", "a\n");
    r.t3(&[
        "capture",
        "--thread",
        THREAD,
        "--title",
        "\n  fix the flaky test\u{1b}[31m  \nand more lines",
        "--agent",
        "codex",
    ])
    .ok();
    let root = std::fs::canonicalize(&r.root).unwrap();
    let head = r.git(&["rev-parse", "HEAD"]);
    for turn in [0, 1] {
        assert_eq!(note_field(&r, turn, "worktree").unwrap().as_str(), root.to_str());
        assert_eq!(note_field(&r, turn, "branch").unwrap().as_str(), Some("main"));
        assert_eq!(note_field(&r, turn, "head").unwrap().as_str(), Some(head.trim()));
    }
    assert_eq!(note_field(&r, 0, "agent").unwrap().as_str(), Some("cli"));
    assert_eq!(note_field(&r, 1, "agent").unwrap().as_str(), Some("codex"));
    // The first non-empty line, trimmed, without control characters.
    assert_eq!(
        note_field(&r, 1, "title").unwrap().as_str(),
        Some("fix the flaky test[31m")
    );
    // Detached HEAD: an empty branch.
    r.git(&["checkout", "-q", "--detach"]);
    r.write("a.txt", "b\n");
    r.t3(&["capture", "--thread", THREAD, "--title", &"x".repeat(500)])
        .ok();
    assert_eq!(note_field(&r, 2, "branch").unwrap().as_str(), Some(""));
    assert_eq!(
        note_field(&r, 2, "title").unwrap().as_str().map(str::len),
        Some(200)
    );
}

#[test]
fn a_thread_belongs_to_the_worktree_of_its_baseline() {
    let r = TestRepo::seeded();
    let wt = r.tmp().join("linked");
    r.git(&["worktree", "add", "-q", "-b", "side", wt.to_str().unwrap()]);
    std::fs::write(wt.join("wt.txt"), "0\n").unwrap();
    r.t3_in(&wt, &["baseline", "--thread", THREAD]).ok();
    std::fs::write(wt.join("wt.txt"), "1\n").unwrap();
    r.t3_in(&wt, &["capture", "--thread", THREAD]).ok();
    let before = (crate::util::listing(&r.root), r.refs("refs/t3/"));
    let named = std::fs::canonicalize(&wt).unwrap().display().to_string();
    for args in [
        &["revert", "--thread", THREAD, "--to", "0", "--files-only"][..],
        &["revert", "--thread", THREAD, "--to", "0", "--dry-run"],
        &["restore", "--thread", THREAD, "--turn", "0", "--", "wt.txt"],
        &["diff", "--thread", THREAD, "--to", "worktree"],
    ] {
        let out = r.t3(args).fails(1);
        assert!(out.stderr.contains(&named), "{args:?}: {}", out.stderr);
        assert_eq!(
            (crate::util::listing(&r.root), r.refs("refs/t3/")),
            before,
            "{args:?} changed something"
        );
    }
    // Reading commands work anywhere; in its own worktree everything works.
    r.t3(&["diff", "--thread", THREAD]).ok();
    r.t3_in(&wt, &["diff", "--thread", THREAD, "--to", "worktree"])
        .ok();
    r.t3_in(&wt, &["revert", "--thread", THREAD, "--to", "0", "--files-only"])
        .ok();
    assert_eq!(std::fs::read_to_string(wt.join("wt.txt")).unwrap(), "0\n");
    // --force: here anyway.
    r.t3(&["diff", "--thread", THREAD, "--to", "worktree", "--force"])
        .ok();
    r.t3(&[
        "restore", "--thread", THREAD, "--turn", "0", "--force", "--", "wt.txt",
    ])
    .ok();
    assert_eq!(std::fs::read_to_string(r.root.join("wt.txt")).unwrap(), "0\n");
}
