//! `git t3 verify`: every finding, and that a sound repository passes.

use crate::util::{THREAD, TestRepo, ref_for};

fn sound() -> TestRepo {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("a.txt", "a\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.t3(&["placeholder", "--thread", THREAD]).ok();
    r
}

fn problems(r: &TestRepo) -> (i32, Vec<serde_json::Value>) {
    let out = r.t3(&["--json", "verify"]);
    let v = out.json();
    (out.code, v["findings"].as_array().unwrap().clone())
}

fn has(findings: &[serde_json::Value], severity: &str, needle: &str) -> bool {
    findings
        .iter()
        .any(|f| f["severity"] == severity && f["problem"].as_str().unwrap().contains(needle))
}

#[test]
fn a_sound_repository_passes() {
    let r = sound();
    let (code, findings) = problems(&r);
    assert_eq!(code, 0, "{findings:?}");
    assert!(findings.is_empty(), "{findings:?}");
    r.t3(&["verify", "--thread", THREAD]).ok();
}

#[test]
fn each_kind_of_damage_is_reported() {
    let r = sound();
    let c1 = r.git(&["rev-parse", &ref_for(THREAD, 1)]);
    // A corrupt note.
    r.git(&[
        "notes",
        "--ref=refs/notes/t3",
        "add",
        "-f",
        "-m",
        "not = [toml",
        &c1,
    ]);
    let (code, f) = problems(&r);
    assert_eq!(code, 1);
    assert!(has(&f, "error", "TOML"), "{f:?}");
    // A summary that does not match the trees.
    let note = r.t3_json(&["show", "--thread", THREAD, "--turn", "0"]); // turn 0 is still sound
    assert_eq!(note["turn"], 0);
    let c0 = r.git(&["rev-parse", &ref_for(THREAD, 0)]);
    r.git(&[
        "notes",
        "--ref=refs/notes/t3",
        "add",
        "-f",
        "-m",
        &r.note(&ref_for(THREAD, 0)).replace("from_turn", "x_from"),
        &c0,
    ]);
    let good1 = format!(
        "schema = 1\nthread = \"{THREAD}\"\nturn = 1\nref = \"{}\"\nstatus = \"ready\"\nplaceholder = false\ncompleted_at = \"2026-01-01T00:00:00Z\"\nfrom_turn = 0\nwarnings = []\n\n[[files]]\npath = \"a.txt\"\nkind = \"added\"\nadditions = 5\ndeletions = 0\nbinary = false\n",
        ref_for(THREAD, 1)
    );
    r.git(&["notes", "--ref=refs/notes/t3", "add", "-f", "-m", &good1, &c1]);
    let (_, f) = problems(&r);
    assert!(has(&f, "error", "differs from the one recomputed"), "{f:?}");
    // A foreign ref name, and a commit by someone else.
    let head = r.git(&["rev-parse", "HEAD"]);
    r.git(&["update-ref", "refs/t3/checkpoints/@@@/turn/1", &c0]);
    r.git(&["update-ref", "refs/t3/elsewhere", &c0]);
    r.git(&["update-ref", &ref_for("by-someone", 0), &head]);
    let (_, f) = problems(&r);
    assert!(has(&f, "error", "not a checkpoint ref name"), "{f:?}");
    assert!(has(&f, "error", "not a ref git t3 writes"), "{f:?}");
    assert!(has(&f, "error", "is by Tester"), "{f:?}");
    // One line per problem in human output, on stdout, exit 1.
    let human = r.t3(&["verify"]);
    assert_eq!(human.code, 1);
    assert!(human.out().lines().count() >= 4, "{}", human.out());
}

#[test]
fn stale_journals_fail_and_orphan_notes_are_only_information() {
    let r = sound();
    // A note on a commit no ref points to (what a capture killed between
    // its notes ref and its ref leaves): a checkpoint whose ref is gone.
    r.write("b.txt", "b\n");
    r.t3(&["capture", "--thread", THREAD, "--turn", "3"]).ok();
    r.git(&["update-ref", "-d", &crate::util::ref_for(THREAD, 3)]);
    let (code, f) = problems(&r);
    assert_eq!(code, 0, "{f:?}");
    assert!(has(&f, "info", "no ref or operation keeps it"), "{f:?}");
    // A half-done revert is fine while young, a problem when old.
    let _ = r.t3_env(
        &["revert", "--thread", THREAD, "--to", "1", "--files-only"],
        &[("T3_TEST_FAULT", "after-restore")],
    );
    assert_eq!(r.refs("refs/t3/reverts/").len(), 1);
    assert_eq!(r.t3(&["verify"]).code, 0);
    let out = r.t3(&["verify", "--max-journal-age", "0s"]);
    assert_eq!(out.code, 1);
    assert!(out.out().contains("half-done"), "{}", out.out());
    assert_eq!(r.t3(&["verify", "--max-journal-age", "soon"]).code, 2);
}

#[test]
fn verifying_a_thread_that_does_not_exist_fails() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", "real"]).ok();
    let out = r.t3(&["verify", "--thread", "nosuch"]).fails(1);
    assert!(out.stderr.contains("nosuch"), "{}", out.stderr);
    r.t3(&["verify", "--thread", "real"]).ok();
}
