//! The current thread: with no `--thread` (and no `T3_THREAD`), a thread
//! command works on the thread of the newest checkpoint captured in this
//! worktree and names it on stderr; `@` names it; a unique prefix names a
//! thread; `list` marks it.

use crate::util::TestRepo;

const A: &str = "3f2a9c1e-0000-4000-8000-00000000000a";
const B: &str = "b7d41e90-0000-4000-8000-00000000000b";

/// A thread `A` with turns 1 ("Fix the parser": writes a.txt) and 2
/// (changes it again).
fn one_thread() -> TestRepo {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", A]).ok();
    r.write("a.txt", "one\n");
    r.t3(&["capture", "--thread", A, "--title", "Fix the parser"])
        .ok();
    r.write("a.txt", "one\ntwo\n");
    r.t3(&["capture", "--thread", A]).ok();
    r
}

/// The stderr line that names the thread a command took unnamed.
fn named_line(stderr: &str) -> Option<&str> {
    stderr.lines().find(|l| l.starts_with("thread "))
}

#[test]
fn thread_commands_work_without_naming_the_only_thread() {
    let r = one_thread();
    for args in [
        &["diff"][..],
        &["show"],
        &["log"],
        &["rev"],
        &["revert", "--to", "1", "--dry-run", "--files-only"],
    ] {
        let run = r.t3(args).ok();
        assert_eq!(
            named_line(&run.stderr),
            Some("thread \"Fix the parser\" (3f2a9c1)"),
            "{args:?}: {}",
            run.stderr
        );
    }
    // Each equals the command with the thread named, which says nothing
    // (compared as JSON: a text's "1 second ago" may tick in between).
    for args in [&["diff"][..], &["show"], &["log"], &["rev"]] {
        let named: Vec<&str> = args.iter().copied().chain(["--thread", A]).collect();
        let explicit = r.t3(&named).ok();
        assert_eq!(named_line(&explicit.stderr), None, "{}", explicit.stderr);
        assert_eq!(r.t3_json(args), r.t3_json(&named), "{args:?}");
    }
    assert!(r.t3(&["diff"]).ok().out().contains("+two"));
    assert_eq!(
        r.t3(&["rev"]).ok().out().trim(),
        r.git(&["rev-parse", &crate::util::ref_for(A, 2)]).trim()
    );
    // The dry run changed nothing, and JSON output is not interrupted by
    // the line (it goes to stderr, and only for people).
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 3);
    let json = r.t3(&["--json", "show"]).ok();
    assert_eq!(json.json()["turn"], 2);
    assert_eq!(named_line(&json.stderr), None, "{}", json.stderr);
    let quiet = r.t3(&["-q", "show"]).ok();
    assert_eq!(named_line(&quiet.stderr), None, "{}", quiet.stderr);
}

#[test]
fn with_two_threads_the_newest_captured_here_is_current() {
    let r = one_thread();
    r.t3(&["baseline", "--thread", B]).ok();
    r.write("b.txt", "b\n");
    // Captured within the same second as A's turns: still the newest.
    r.t3(&["capture", "--thread", B, "--title", "Write the docs"])
        .ok();
    let show = r.t3(&["--json", "show"]).ok().json();
    assert_eq!(show["thread"], B);
    let said = r.t3(&["show"]).ok();
    assert_eq!(
        named_line(&said.stderr),
        Some("thread \"Write the docs\" (b7d41e9)")
    );
    // A captures again: A is current.
    r.write("a.txt", "three\n");
    r.t3(&["capture", "--thread", A]).ok();
    assert_eq!(r.t3(&["--json", "show"]).ok().json()["thread"], A);
    // `list` marks it, in text and JSON.
    let listed = r.t3(&["list"]).ok().out();
    let marked: Vec<&str> = listed.lines().filter(|l| l.starts_with("* ")).collect();
    assert_eq!(marked.len(), 1, "{listed}");
    assert!(marked[0].contains(A), "{listed}");
    let threads = r.t3_json(&["list"]);
    let current: Vec<&serde_json::Value> = threads["threads"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["current"] == true)
        .collect();
    assert_eq!(current.len(), 1, "{threads}");
    assert_eq!(current[0]["thread"], A);
    // T3_THREAD and --thread still win.
    let by_env = r.t3_env(&["--json", "show"], &[("T3_THREAD", B)]).ok();
    assert_eq!(by_env.json()["thread"], B);
    assert_eq!(r.t3_json(&["show", "--thread", B])["thread"], B);
}

#[test]
fn at_and_unique_prefixes_name_threads() {
    let r = one_thread();
    r.t3(&["baseline", "--thread", B]).ok();
    r.write("b.txt", "b\n");
    r.t3(&["capture", "--thread", B]).ok();
    assert_eq!(r.t3_json(&["show", "--thread", "@"])["thread"], B);
    assert_eq!(r.t3_json(&["list", "--thread", "@"])["thread"], B);
    assert_eq!(r.t3_json(&["show", "--thread", "3f2"])["thread"], A);
    assert_eq!(r.t3_json(&["diff", "--thread", "3f2a9"])["to_turn"], 2);
    // `@` is named, so nothing is said.
    let at = r.t3(&["show", "--thread", "@"]).ok();
    assert_eq!(named_line(&at.stderr), None, "{}", at.stderr);
    // `capture --thread @` writes the current thread's next turn.
    r.write("b.txt", "b2\n");
    assert_eq!(r.t3_json(&["capture", "--thread", "@"])["turn"], 2);
    let prefix = crate::util::ref_for(B, 0);
    let prefix = prefix.trim_end_matches("0");
    assert_eq!(r.refs(prefix).len(), 3);
}

#[test]
fn without_a_thread_here_the_error_says_how_to_start_one() {
    let r = TestRepo::seeded();
    for args in [
        &["diff"][..],
        &["show"],
        &["log"],
        &["rev"],
        &["revert", "--to", "0"],
    ] {
        let run = r.t3(args).fails(2);
        assert!(
            run.stderr.contains("install-hooks") && run.stderr.contains("git t3 baseline"),
            "{args:?}: {}",
            run.stderr
        );
    }
    // A thread of another worktree is not this one's current thread.
    let side = r.tmp().join("side");
    r.git(&["worktree", "add", "-q", "--detach", side.to_str().unwrap()]);
    r.t3_in(&side, &["baseline", "--thread", A]).ok();
    r.t3(&["show"]).fails(2);
    assert_eq!(r.t3_json_in(&side, &["show"])["thread"], A);
    // `drop` always needs a thread named (clap's usage error).
    let drop = r.t3(&["drop"]);
    assert_eq!(drop.code, 2, "{}", drop.stderr);
    assert!(drop.stderr.contains("--thread"), "{}", drop.stderr);
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 1);
}

#[test]
fn a_thread_without_a_baseline_is_diffed_from_head_and_says_so() {
    let r = TestRepo::seeded();
    r.write("b.txt", "b\n");
    r.t3(&["capture", "--thread", A]).ok();
    r.write("c.txt", "c\n");
    r.t3(&["capture", "--thread", A]).ok();
    // Turn 1 has no turn before it: from HEAD, as git diff HEAD would.
    let first = r.t3(&["diff", "--turn", "1", "--numstat"]).ok();
    assert_eq!(first.out(), "1\t0\tb.txt\n");
    assert!(first.stderr.contains("comparing from HEAD"), "{}", first.stderr);
    assert!(first.stderr.contains("git t3 baseline"), "{}", first.stderr);
    let json = r.t3_json(&["diff", "--turn", "1"]);
    assert_eq!(json["from"], "HEAD");
    // The whole thread too, and turn 2 from turn 1 as always.
    let full = r.t3(&["diff", "--full", "--numstat"]).ok().out();
    assert_eq!(full, "1\t0\tb.txt\n1\t0\tc.txt\n");
    assert_eq!(
        r.t3(&["diff", "--turn", "2", "--numstat"]).ok().out(),
        "1\t0\tc.txt\n"
    );
    // A turn whose turn before was removed is compared from the one below.
    r.write("d.txt", "d\n");
    r.t3(&["capture", "--thread", A]).ok();
    r.git(&["update-ref", "-d", &crate::util::ref_for(A, 2)]);
    let skipped = r.t3(&["diff", "--turn", "3", "--numstat"]).ok();
    assert_eq!(skipped.out(), "1\t0\tc.txt\n1\t0\td.txt\n");
    assert!(skipped.stderr.contains("from turn 1"), "{}", skipped.stderr);
}
