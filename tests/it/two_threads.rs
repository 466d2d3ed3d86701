//! Two agents in one worktree: a revert or restore of one thread names the
//! files whose current content the other thread's agent wrote (or that no
//! checkpoint holds yet while it works), refuses without `--force`, and
//! keeps them in the safety checkpoint either way.

use crate::util::TestRepo;

const A: &str = "aaaa0000-0000-4000-8000-00000000000a";
const B: &str = "bbbb0000-0000-4000-8000-00000000000b";

fn capture(r: &TestRepo, thread: &str) {
    r.t3(&["-q", "capture", "--thread", thread]).ok();
}

fn read(r: &TestRepo, rel: &str) -> Option<String> {
    std::fs::read_to_string(r.root.join(rel))
        .ok()
        .map(|s| s.trim_end().to_owned())
}

/// A and B take turns in one worktree, captures in the same second:
/// A writes `a.txt` (turn 1), B writes `b.txt` (turn 1), A rewrites
/// `a.txt` (turn 2). Each capture holds the other's files too.
fn interleaved() -> TestRepo {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", A]).ok();
    r.t3(&["baseline", "--thread", B]).ok();
    r.write("a.txt", "A's first\n");
    capture(&r, A);
    r.write("b.txt", "B's work");
    capture(&r, B);
    r.write("a.txt", "A's second\n");
    capture(&r, A);
    r
}

#[test]
fn a_revert_names_the_other_threads_files_and_refuses_without_force() {
    let r = interleaved();
    let before = r.refs("refs/t3/");

    let plan = r.t3_json(&["revert", "--thread", A, "--to", "0", "--files-only", "--dry-run"]);
    let others = plan["others"].as_array().expect("others listed").clone();
    assert_eq!(others.len(), 1, "{plan}");
    assert_eq!(others[0]["path"], "b.txt");
    assert_eq!(others[0]["thread"], B);
    assert_eq!(others[0]["turn"], 1);
    let human = r
        .t3(&["revert", "--thread", A, "--to", "0", "--files-only", "--dry-run"])
        .ok()
        .out();
    assert!(human.contains("b.txt (thread bbbb0000 turn 1)"), "{human}");
    assert!(
        !human.contains("a.txt ("),
        "A's own file is not another's: {human}"
    );

    let refused = r
        .t3(&["revert", "--thread", A, "--to", "0", "--files-only"])
        .fails(1);
    assert!(refused.stderr.contains("b.txt"), "{}", refused.stderr);
    assert!(refused.stderr.contains("--force"), "{}", refused.stderr);
    // Nothing changed: files, refs.
    assert_eq!(read(&r, "a.txt").as_deref(), Some("A's second"));
    assert_eq!(read(&r, "b.txt").as_deref(), Some("B's work"));
    assert_eq!(r.refs("refs/t3/"), before);

    // B's revert of its own turn names A's files the same way.
    let plan = r.t3_json(&["revert", "--thread", B, "--to", "0", "--files-only", "--dry-run"]);
    let others: Vec<_> = plan["others"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["path"].as_str().unwrap().to_owned(), o["turn"].as_u64()))
        .collect();
    assert_eq!(others, [("a.txt".to_owned(), Some(2))], "{plan}");
}

#[test]
fn with_force_the_other_threads_work_is_in_the_safety_checkpoint_and_comes_back() {
    let r = interleaved();
    let done = r.t3_json(&["revert", "--thread", A, "--to", "0", "--files-only", "--force"]);
    assert_eq!(done["others"][0]["path"], "b.txt", "{done}");
    assert_eq!(read(&r, "b.txt"), None);
    let safety = done["safety_commit"].as_str().unwrap();
    assert_eq!(r.git(&["show", &format!("{safety}:b.txt")]), "B's work");
    r.t3(&["op", "undo"]).ok();
    assert_eq!(read(&r, "b.txt").as_deref(), Some("B's work"));
    assert_eq!(read(&r, "a.txt").as_deref(), Some("A's second"));
}

#[test]
fn work_no_checkpoint_holds_yet_is_named_while_another_thread_works_here() {
    let r = interleaved();
    // B's agent is in the middle of a turn: its file is not captured yet.
    r.write("c.txt", "B's turn in progress\n");
    let plan = r.t3_json(&["revert", "--thread", A, "--to", "1", "--files-only", "--dry-run"]);
    let paths: Vec<&str> = plan["others"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["b.txt", "c.txt"], "{plan}");
    assert!(plan["others"][1].get("thread").is_none(), "{plan}");
    r.t3(&["revert", "--thread", A, "--to", "1", "--files-only"])
        .fails(1);
    assert_eq!(read(&r, "c.txt").as_deref(), Some("B's turn in progress"));
}

#[test]
fn a_one_file_restore_over_the_other_threads_file_is_refused_without_force() {
    let r = interleaved();
    // A's turn 1 had no b.txt: restoring it from there deletes B's file.
    let refused = r.t3(&["restore", "--thread", A, "--turn", "1", "b.txt"]).fails(1);
    assert!(
        refused.stderr.contains("b.txt (thread bbbb0000 turn 1)"),
        "{}",
        refused.stderr
    );
    assert_eq!(read(&r, "b.txt").as_deref(), Some("B's work"));
    // Its own file it restores as before.
    r.t3(&["restore", "--thread", A, "--turn", "1", "a.txt"]).ok();
    assert_eq!(read(&r, "a.txt").as_deref(), Some("A's first"));
    r.t3(&["restore", "--thread", A, "--turn", "1", "b.txt", "--force"])
        .ok();
    assert_eq!(read(&r, "b.txt"), None);
}

#[test]
fn one_thread_alone_reverts_over_uncaptured_edits_as_before() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", A]).ok();
    r.write("a.txt", "agent\n");
    capture(&r, A);
    r.write("a.txt", "the user's edit, not captured\n");
    let done = r.t3_json(&["revert", "--thread", A, "--to", "0", "--files-only"]);
    assert!(done.get("others").is_none(), "{done}");
    assert_eq!(read(&r, "a.txt"), None);
    let safety = done["safety_commit"].as_str().unwrap();
    assert_eq!(
        r.git(&["show", &format!("{safety}:a.txt")]),
        "the user's edit, not captured"
    );
}

#[test]
fn an_undo_does_not_overwrite_what_the_other_thread_wrote_since_without_force() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", A]).ok();
    r.t3(&["baseline", "--thread", B]).ok();
    r.write("a.txt", "A1\n");
    capture(&r, A);
    r.write("a.txt", "A2\n");
    capture(&r, A);
    r.t3(&["revert", "--thread", A, "--to", "1", "--files-only"]).ok();
    assert_eq!(read(&r, "a.txt").as_deref(), Some("A1"));
    // B's agent then writes the same file, and its turn is captured.
    r.write("a.txt", "B\n");
    capture(&r, B);
    let refused = r.t3(&["revert", "--thread", A, "--undo"]).fails(1);
    assert!(
        refused.stderr.contains("a.txt (thread bbbb0000 turn 1)"),
        "{}",
        refused.stderr
    );
    assert_eq!(read(&r, "a.txt").as_deref(), Some("B"));
    let done = r.t3_json(&["revert", "--thread", A, "--undo", "--force"]);
    assert_eq!(read(&r, "a.txt").as_deref(), Some("A2"));
    let safety = done["safety_commit"].as_str().unwrap();
    assert_eq!(r.git(&["show", &format!("{safety}:a.txt")]), "B");
}

#[test]
fn content_another_threads_baseline_holds_is_not_named_as_uncaptured() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", A]).ok();
    r.write("a.txt", "there before B began\n");
    // B's baseline holds it: captured, and written by no turn.
    r.t3(&["baseline", "--thread", B]).ok();
    let done = r.t3_json(&["revert", "--thread", A, "--to", "0", "--files-only"]);
    assert!(done.get("others").is_none(), "{done}");
    assert_eq!(read(&r, "a.txt"), None);
}
