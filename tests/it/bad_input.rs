//! Bad input: exit 1 or 2, one line on stderr, nothing written, no panic.

use crate::util::{THREAD, TestRepo, ref_for};

#[test]
fn outside_a_repository_and_in_a_bare_one() {
    let r = TestRepo::new();
    let plain = r.tmp().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let out = r.t3_in(&plain, &["baseline", "--thread", THREAD]).fails(1);
    assert!(out.stderr.contains("not a git repository"), "{}", out.stderr);
    let bare = r.tmp().join("bare.git");
    r.git_in(r.tmp(), &["init", "-q", "--bare", bare.to_str().unwrap()])
        .ok();
    let out = r.t3_in(&bare, &["capture", "--thread", THREAD]).fails(1);
    assert!(out.stderr.contains("bare repository"), "{}", out.stderr);
}

#[test]
fn bad_thread_ids_and_turns_are_usage_errors() {
    let r = TestRepo::seeded();
    let long = "x".repeat(191);
    for args in [
        vec!["capture", "--thread", ""],
        vec!["capture", "--thread", &long],
        vec!["capture", "--thread", "a\u{1}b"],
        vec!["baseline", "--thread", "ok", "--provider", "../evil"],
    ] {
        r.t3(&args).fails(2);
    }
    for args in [
        vec!["capture", "--thread", THREAD, "--turn", "-1"],
        vec!["capture", "--thread", THREAD, "--turn", "abc"],
        vec!["show", "--thread", THREAD, "--turn", "1.5"],
        vec!["capture"],
        vec!["frobnicate"],
    ] {
        let out = r.t3(&args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
    }
    assert!(
        r.refs("refs/")
            .iter()
            .all(|r| !r.starts_with("refs/t3") && !r.starts_with("refs/notes"))
    );
}

#[test]
fn unknown_threads_and_turns_name_the_problem() {
    let r = TestRepo::seeded();
    let out = r.t3(&["show", "--thread", "nope"]).fails(1);
    assert!(out.stderr.contains("'nope' has no checkpoints"), "{}", out.stderr);
    r.t3(&["list", "--thread", "nope"]).fails(1);
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let out = r.t3(&["show", "--thread", THREAD, "--turn", "5"]).fails(1);
    assert!(
        out.stderr.contains("turn 5") && out.stderr.contains("latest is turn 0"),
        "{}",
        out.stderr
    );
    let out = r.t3(&["capture", "--thread", THREAD, "--turn", "0"]).fails(1);
    assert!(out.stderr.contains("--replace"), "{}", out.stderr);
}

#[test]
fn malformed_notes_and_foreign_refs_do_not_panic() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.t3(&["capture", "--thread", THREAD]).ok();
    let c1 = r.git(&["rev-parse", &ref_for(THREAD, 1)]);
    r.git(&[
        "notes",
        "--ref=refs/notes/t3",
        "add",
        "-f",
        "-m",
        "schema = [[[ not toml",
        &c1,
    ]);
    let out = r.t3(&["show", "--thread", THREAD, "--turn", "1"]).fails(1);
    assert!(out.stderr.contains("not valid schema-1 TOML"), "{}", out.stderr);
    let list = r.t3_json(&["list", "--thread", THREAD]);
    assert_eq!(list["turns"].as_array().unwrap().len(), 1);
    assert!(list["problems"][0].as_str().unwrap().contains("turn/1"));
    // A note that lies about its turn.
    let c0 = r.git(&["rev-parse", &ref_for(THREAD, 0)]);
    let lie = r.note(&ref_for(THREAD, 0)).replace("turn = 0", "turn = 7");
    r.git(&["notes", "--ref=refs/notes/t3", "add", "-f", "-m", &lie, &c0]);
    let out = r.t3(&["show", "--thread", THREAD, "--turn", "0"]).fails(1);
    assert!(out.stderr.contains("describes turn 7"), "{}", out.stderr);
    // Foreign names under refs/t3/checkpoints/ and a ref to a blob.
    let blob = r.git(&["hash-object", "-w", "README.md"]);
    r.git(&["update-ref", "refs/t3/checkpoints/!!!/turn/1", &c0]);
    r.git(&[
        "update-ref",
        &format!("{}/turn/01", ref_for(THREAD, 0).rsplit_once("/turn/").unwrap().0),
        &c0,
    ]);
    r.git(&["update-ref", &ref_for("blobby", 0), &blob]);
    let all = r.t3_json(&["list"]);
    assert!(
        all["threads"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["thread"] == THREAD)
    );
    r.t3(&["show", "--thread", "blobby"]).fails(1);
    // Capturing on top of damaged metadata still works and counts against the real snapshot.
    r.write("new.txt", "n\n");
    let s = r.t3_json(&["capture", "--thread", THREAD]);
    assert_eq!(s["turn"], 2);
    assert_eq!(s["from_turn"], 1);
}

/// With `--json`, a failure is one JSON object on stderr with a kind a
/// caller can match, and the exit status is still 1 (2 for usage).
#[test]
fn json_errors_are_one_object_with_a_kind() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let cases: [(&[&str], i32, &str); 4] = [
        (&["--json", "show", "--thread", "no-such-thread"], 1, "not_found"),
        (&["--json", "show", "--thread", ""], 2, "usage"),
        (
            &["--json", "revert", "--thread", THREAD, "--continue"],
            1,
            "refused",
        ),
        (
            &["--json", "-C", "/nonexistent/dir", "list"],
            1,
            "not_a_repository",
        ),
    ];
    for (args, code, kind) in cases {
        let out = r.t3(args).fails(code);
        let v: serde_json::Value = serde_json::from_str(out.stderr.trim())
            .unwrap_or_else(|e| panic!("{args:?}: stderr is not JSON ({e}): {}", out.stderr));
        assert_eq!(v["error"]["kind"], kind, "{args:?}: {v}");
        assert!(
            v["error"]["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{args:?}: {v}"
        );
        assert!(out.stdout.is_empty(), "{args:?}: stdout {:?}", out.out());
    }
}

/// A repository owned by another user is refused like git refuses it, before
/// its config (which could name a provider or a pager) is read.
#[test]
fn a_repository_owned_by_someone_else_is_refused() {
    // SAFETY: geteuid has no preconditions and touches no memory.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: needs root to chown");
        return;
    }
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let chown = std::process::Command::new("chown")
        .args(["-R", "nobody"])
        .arg(&r.root)
        .status()
        .unwrap();
    assert!(chown.success());
    let out = r.t3(&["list"]).fails(1);
    assert!(out.stderr.contains("dubious ownership"), "{}", out.stderr);
    let out = r.t3(&["revert", "--thread", THREAD, "--to", "0"]).fails(1);
    assert!(out.stderr.contains("safe.directory"), "{}", out.stderr);
}

#[test]
fn an_unreadable_tracked_file_is_named_and_nothing_is_written() {
    let r = TestRepo::seeded();
    r.write("secret.txt", "no peeking\n");
    r.commit_all("secret");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("secret.txt", "edited, still no peeking\n");
    r.chmod("secret.txt", 0o000);
    let Some(run) = r.t3_unprivileged(&["capture", "--thread", THREAD]) else {
        eprintln!("skipped: running as root without setpriv");
        return;
    };
    r.chmod("secret.txt", 0o644);
    let run = run.fails(1);
    assert!(run.stderr.contains("secret.txt"), "{}", run.stderr);
    assert!(r.refs(&ref_for(THREAD, 1)).is_empty(), "a turn was written");
}

#[test]
fn a_sha256_repository_is_refused_in_words() {
    let r = TestRepo::new();
    let dir = r.tmp().join("sha256");
    r.git_in(r.tmp(), &["init", "-q", "--object-format=sha256", "sha256"])
        .ok();
    let out = r.t3_in(&dir, &["list"]).fails(1);
    assert!(out.stderr.contains("only SHA-1 repositories"), "{}", out.stderr);
}
