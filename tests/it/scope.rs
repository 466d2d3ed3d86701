//! What goes into a checkpoint besides git's rules: the size cap
//! (`t3.maxFileSize`), `.t3ignore` and `info/t3-exclude`, and the secret
//! warnings of `capture` and the secret scan of `push`.

use crate::util::{THREAD, TestRepo, ref_for};

/// The paths of a tree, one per file.
fn paths(r: &TestRepo, tree: &str) -> Vec<String> {
    let out = r.git(&["ls-tree", "-r", "-z", "--name-only", tree]);
    out.split('\0')
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The tree `git add -A` would record, without `gone`.
fn oracle_without(r: &TestRepo, gone: &[&str]) -> Vec<String> {
    let mut want = paths(r, &r.oracle_tree());
    for g in gone {
        assert!(want.iter().any(|p| p == g), "setup: git would not record {g}");
    }
    want.retain(|p| !gone.contains(&p.as_str()));
    want
}

fn note_of(r: &TestRepo, turn: u64) -> toml::Value {
    toml::from_str(&r.note(&ref_for(THREAD, turn))).unwrap()
}

fn skipped_of(r: &TestRepo, turn: u64) -> Vec<(String, i64)> {
    note_of(r, turn)
        .get("skipped")
        .and_then(|s| s.as_array())
        .map(|a| {
            a.iter()
                .map(|s| {
                    (
                        s["path"].as_str().unwrap().to_owned(),
                        s["size"].as_integer().unwrap(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_cap_keeps_a_file_of_exactly_the_size_and_skips_one_byte_more() {
    let r = TestRepo::seeded();
    r.git(&["config", "t3.maxFileSize", "1k"]);
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write_bytes("exact.bin", &[7u8; 1024]);
    r.write_bytes("over.bin", &[7u8; 1025]);
    r.write_bytes("data/big.csv", &[b'x'; 5000]);
    let run = r.t3(&["capture", "--thread", THREAD]).ok();
    let turn1 = r.ref_tree(&ref_for(THREAD, 1));
    assert_eq!(
        paths(&r, &turn1),
        oracle_without(&r, &["data/big.csv", "over.bin"]),
        "the cap of 1k (1024 bytes, git's suffix) was not applied exactly"
    );
    assert_eq!(
        skipped_of(&r, 1),
        [("data/big.csv".to_owned(), 5000), ("over.bin".to_owned(), 1025)]
    );
    assert!(
        run.stderr
            .contains("skipped 2 files over 1 KiB: data/big.csv (4.8 KiB), over.bin (1 KiB); raise t3.maxFileSize to keep them"),
        "{}",
        run.stderr
    );
    // `git -c t3.maxFileSize=0`: no cap.
    r.git_in(
        &r.root,
        &["-c", "t3.maxFileSize=0", "t3", "capture", "--thread", THREAD],
    )
    .ok();
    assert_eq!(r.ref_tree(&ref_for(THREAD, 2)), r.oracle_tree());
    assert!(skipped_of(&r, 2).is_empty());
    // The next capture under the cap leaves them out again.
    r.t3(&["capture", "--thread", THREAD]).ok();
    assert_eq!(
        paths(&r, &r.ref_tree(&ref_for(THREAD, 3))),
        oracle_without(&r, &["data/big.csv", "over.bin"])
    );
    let json = r.t3_json(&["show", "--thread", THREAD, "--turn", "3"]);
    assert_eq!(json["skipped"][1]["path"], "over.bin", "{json}");
    assert_eq!(json["skipped"][1]["size"], 1025, "{json}");
}

#[test]
fn the_default_cap_is_ten_mebibytes_and_a_bad_value_is_named() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    // Sparse files: memory this test process held would count in the peak
    // of the children other tests measure.
    let sparse = |name: &str, len: u64| {
        std::fs::File::create(r.root.join(name))
            .unwrap()
            .set_len(len)
            .unwrap();
    };
    sparse("ten.bin", 10 << 20);
    sparse("more.bin", (10 << 20) + 1);
    let run = r.t3(&["capture", "--thread", THREAD]).ok();
    assert_eq!(
        paths(&r, &r.ref_tree(&ref_for(THREAD, 1))),
        oracle_without(&r, &["more.bin"])
    );
    assert!(
        run.stderr
            .contains("skipped 1 file over 10 MiB: more.bin (10 MiB); raise t3.maxFileSize to keep it"),
        "{}",
        run.stderr
    );
    r.git(&["config", "t3.maxFileSize", "lots"]);
    let bad = r.t3(&["capture", "--thread", THREAD]).fails(1);
    assert!(
        bad.stderr.contains("t3.maxFileSize") && bad.stderr.contains("lots"),
        "{}",
        bad.stderr
    );
}

#[test]
fn tracked_files_are_captured_whatever_their_size() {
    let r = TestRepo::seeded();
    r.git(&["config", "t3.maxFileSize", "100"]);
    r.write("tracked.txt", &"committed\n".repeat(50));
    r.commit_all("a tracked file over the cap");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("tracked.txt", &"changed\n".repeat(50));
    // Added to the user's index, not committed: tracked too.
    r.write("staged.txt", &"staged\n".repeat(50));
    r.git(&["add", "staged.txt"]);
    r.write("untracked.txt", &"untracked\n".repeat(50));
    r.t3(&["capture", "--thread", THREAD]).ok();
    let c = ref_for(THREAD, 1);
    assert_eq!(
        r.git(&["cat-file", "-p", &format!("{c}:tracked.txt")]),
        "changed\n".repeat(50).trim_end()
    );
    let got = paths(&r, &r.ref_tree(&c));
    assert!(got.iter().any(|p| p == "staged.txt"), "{got:?}");
    assert!(!got.iter().any(|p| p == "untracked.txt"), "{got:?}");
    assert_eq!(skipped_of(&r, 1), [("untracked.txt".to_owned(), 500)]);
}

#[test]
fn a_skipped_file_survives_revert_undo_op_undo_and_restore() {
    let r = TestRepo::seeded();
    r.git(&["config", "t3.maxFileSize", "1000"]);
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let big: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
    r.write_bytes("big.bin", &big);
    r.write("src/lib.rs", "fn turn_one() {}\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    assert_eq!(skipped_of(&r, 1), [("big.bin".to_owned(), 5000)]);
    let kept = |what: &str| {
        assert_eq!(
            std::fs::read(r.root.join("big.bin")).ok().as_deref(),
            Some(big.as_slice()),
            "{what} deleted or changed the skipped big.bin"
        );
    };
    r.t3(&["revert", "--thread", THREAD, "--to", "0"]).ok();
    kept("revert");
    assert_eq!(
        std::fs::read_to_string(r.root.join("src/lib.rs")).unwrap(),
        "fn a() {}\nfn b() {}\nfn c() {}\n"
    );
    r.t3(&["revert", "--thread", THREAD, "--undo"]).ok();
    kept("revert --undo");
    assert_eq!(
        std::fs::read_to_string(r.root.join("src/lib.rs")).unwrap(),
        "fn turn_one() {}\n"
    );
    r.t3(&["revert", "--thread", THREAD, "--to", "0"]).ok();
    r.t3(&["op", "undo"]).ok();
    kept("op undo");
    r.t3(&["restore", "--thread", THREAD, "--turn", "0", "--", "src"])
        .ok();
    kept("restore");
    r.t3(&["op", "undo"]).ok();
    kept("op undo of a restore");
    // A revert with nothing else to change leaves it alone too.
    r.t3(&["restore", "--thread", THREAD, "--turn", "1", "--", "src/lib.rs"])
        .ok();
    kept("restore of an unchanged path");
    // A revert stopped half-way, then aborted.
    let stopped = r.t3_env(
        &["revert", "--thread", THREAD, "--to", "0"],
        &[("T3_TEST_FAULT", "after-restore")],
    );
    assert_ne!(stopped.code, 0, "the fault did not fire");
    kept("a revert stopped half-way");
    r.t3(&["revert", "--abort", "--thread", THREAD]).ok();
    kept("revert --abort");
    assert_eq!(
        std::fs::read_to_string(r.root.join("src/lib.rs")).unwrap(),
        "fn turn_one() {}\n"
    );
}

#[test]
fn a_skipped_file_where_the_target_has_one_is_kept_in_the_safety_checkpoint() {
    let r = TestRepo::seeded();
    r.git(&["config", "t3.maxFileSize", "1000"]);
    r.write("data.bin", "small at turn 0\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let big = vec![b'z'; 4000];
    r.write_bytes("data.bin", &big);
    r.t3(&["capture", "--thread", THREAD]).ok();
    assert_eq!(skipped_of(&r, 1), [("data.bin".to_owned(), 4000)]);
    let out = r.t3_json(&["revert", "--thread", THREAD, "--to", "0"]);
    assert_eq!(
        std::fs::read_to_string(r.root.join("data.bin")).unwrap(),
        "small at turn 0\n"
    );
    let safety = out["safety_commit"].as_str().unwrap().to_owned();
    assert_eq!(
        r.git(&["cat-file", "-p", &format!("{safety}:data.bin")]).len(),
        4000,
        "the safety checkpoint does not hold the skipped file the revert overwrote"
    );
    r.t3(&["revert", "--thread", THREAD, "--undo"]).ok();
    assert_eq!(std::fs::read(r.root.join("data.bin")).unwrap(), big);
}

#[test]
fn t3ignore_only_removes_paths_whatever_gitignore_negates() {
    let r = TestRepo::seeded();
    // .gitignore: *.log and build/ (seeded), plus negations.
    r.write(".gitignore", "*.log\nbuild/\n!keep.log\n!build-info/\n");
    r.commit_all("gitignore negations");
    r.write(
        ".t3ignore",
        "# t3 rules\nkeep.log\n*.cache\n!wanted.cache\n!debug.log\n!build/\nvendor/\n",
    );
    r.write("keep.log", "un-ignored by .gitignore, t3-ignored\n");
    r.write(
        "debug.log",
        "ignored by .gitignore; a t3 `!` must not bring it back\n",
    );
    r.write(
        "build/out.o",
        "ignored by .gitignore; `!build/` in .t3ignore must not bring it back\n",
    );
    r.write("a.cache", "t3-ignored\n");
    r.write("wanted.cache", "taken back by a later t3 `!` line\n");
    r.write("vendor/lib/x.js", "under a t3-ignored folder\n");
    r.write("vendor.txt", "not under it\n");
    r.write("normal.txt", "normal\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let want = oracle_without(&r, &["keep.log", "a.cache", "vendor/lib/x.js"]);
    assert_eq!(paths(&r, &r.ref_tree(&ref_for(THREAD, 0))), want);
    // Incremental: the same answer from the cache, and a new rule removes a
    // file captured before.
    r.write("normal.txt", "normal, turn 1\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    assert_eq!(paths(&r, &r.ref_tree(&ref_for(THREAD, 1))), want);
    r.write(
        ".t3ignore",
        "keep.log\n*.cache\n!wanted.cache\nvendor/\nnormal.txt\n",
    );
    r.t3(&["capture", "--thread", THREAD]).ok();
    assert_eq!(
        paths(&r, &r.ref_tree(&ref_for(THREAD, 2))),
        oracle_without(&r, &["keep.log", "a.cache", "vendor/lib/x.js", "normal.txt"])
    );
}

#[test]
fn tracked_files_stay_captured_and_info_t3_exclude_applies() {
    let r = TestRepo::seeded();
    r.write("tracked.cache", "tracked\n");
    r.commit_all("a tracked file the t3 rules match");
    r.write(".t3ignore", "*.cache\n");
    std::fs::create_dir_all(r.root.join(".git/info")).unwrap();
    std::fs::write(r.root.join(".git/info/t3-exclude"), "local-only.txt\nsecrets/\n").unwrap();
    r.write("tracked.cache", "tracked, changed\n");
    r.write("new.cache", "t3-ignored\n");
    r.write("local-only.txt", "mine\n");
    r.write("secrets/key.txt", "k\n");
    r.write("normal.txt", "n\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let c = ref_for(THREAD, 0);
    assert_eq!(
        paths(&r, &r.ref_tree(&c)),
        oracle_without(&r, &["new.cache", "local-only.txt", "secrets/key.txt"])
    );
    assert_eq!(
        r.git(&["cat-file", "-p", &format!("{c}:tracked.cache")]),
        "tracked, changed"
    );
    // A `!` line in .t3ignore wins over info/t3-exclude, as .gitignore over info/exclude.
    r.write(".t3ignore", "*.cache\n!local-only.txt\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    assert_eq!(
        paths(&r, &r.ref_tree(&ref_for(THREAD, 1))),
        oracle_without(&r, &["new.cache", "secrets/key.txt"])
    );
}

#[test]
fn t3_ignored_files_are_kept_by_revert_undo_and_restore() {
    let r = TestRepo::seeded();
    r.write(".t3ignore", "*.cache\n");
    r.write("notes.txt", "turn 0\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("a.cache", "made after turn 0, t3-ignored\n");
    r.write("notes.txt", "turn 1\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let check = |what: &str| {
        assert_eq!(
            std::fs::read_to_string(r.root.join("a.cache")).ok().as_deref(),
            Some("made after turn 0, t3-ignored\n"),
            "{what} touched the t3-ignored a.cache"
        );
    };
    r.t3(&["revert", "--thread", THREAD, "--to", "0"]).ok();
    check("revert");
    assert_eq!(
        std::fs::read_to_string(r.root.join("notes.txt")).unwrap(),
        "turn 0\n"
    );
    r.t3(&["revert", "--thread", THREAD, "--undo"]).ok();
    check("revert --undo");
    r.t3(&["restore", "--thread", THREAD, "--turn", "0", "--", "notes.txt"])
        .ok();
    check("restore");
    r.t3(&["op", "undo"]).ok();
    check("op undo");
}

#[test]
fn a_file_the_targets_t3ignore_excludes_is_not_deleted() {
    let r = TestRepo::seeded();
    // Turn 0's .t3ignore leaves *.cache out; then the rule goes and the file
    // is captured. Reverting to turn 0 must not delete it: its rules ignore it.
    r.write(".t3ignore", "*.cache\n");
    r.write("a.cache", "precious\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write(".t3ignore", "# nothing\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    assert!(paths(&r, &r.ref_tree(&ref_for(THREAD, 1))).contains(&"a.cache".to_owned()));
    r.t3(&["revert", "--thread", THREAD, "--to", "0"]).ok();
    assert_eq!(
        std::fs::read_to_string(r.root.join("a.cache")).ok().as_deref(),
        Some("precious\n"),
        "revert deleted a file the target's .t3ignore excludes"
    );
    assert_eq!(
        std::fs::read_to_string(r.root.join(".t3ignore")).unwrap(),
        "*.cache\n"
    );
}

#[test]
fn capture_warns_about_secrets_once_per_thread() {
    let r = TestRepo::seeded();
    r.git(&["config", "--add", "t3.secretPattern", "*.token"]);
    r.git(&["config", "--add", "t3.secretPattern", "!.env.example"]);
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write(".env.example", "A=\n");
    let quiet = r.t3(&["capture", "--thread", THREAD]).ok();
    assert!(!quiet.stderr.contains("secret"), "{}", quiet.stderr);
    r.write(".env", "API_KEY=1\n");
    r.write("keys/deploy.token", "t\n");
    let first = r.t3(&["capture", "--thread", THREAD]).ok();
    assert!(
        first
            .stderr
            .contains("turn 2 records paths that look like secrets: .env, keys/deploy.token")
            && first.stderr.contains("--allow-secrets"),
        "{}",
        first.stderr
    );
    r.write("README.md", "turn 3\n");
    let second = r.t3(&["capture", "--thread", THREAD]).ok();
    assert!(
        !second.stderr.contains("secret"),
        "warned twice: {}",
        second.stderr
    );
    // The notes of both turns say so; the marker makes it once.
    for turn in [2, 3] {
        let warnings = note_of(&r, turn)["warnings"].clone();
        assert!(
            warnings.to_string().contains("look like secrets: .env"),
            "turn {turn}: {warnings}"
        );
    }
    // Another thread is warned on its own (its baseline records them).
    let other = r.t3(&["baseline", "--thread", "other"]).ok();
    assert!(
        other
            .stderr
            .contains("turn 0 records paths that look like secrets"),
        "{}",
        other.stderr
    );
    let again = r.t3(&["capture", "--thread", "other"]).ok();
    assert!(!again.stderr.contains("secret"), "{}", again.stderr);
    // An ignored secret is never recorded, so never warned about.
    r.write(".t3ignore", ".env\nkeys/\n");
    r.t3(&["baseline", "--thread", "third"]).ok();
    let third = r.t3(&["capture", "--thread", "third"]).ok();
    assert!(!third.stderr.contains("secret"), "{}", third.stderr);
}

/// A repository with a bare remote in the same temporary directory.
fn with_remote() -> (TestRepo, std::path::PathBuf) {
    let r = TestRepo::seeded();
    let remote = r.tmp().join("remote.git");
    r.git_in(r.tmp(), &["init", "-q", "--bare", remote.to_str().unwrap()])
        .ok();
    r.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    (r, remote)
}

fn remote_refs(r: &TestRepo) -> String {
    r.git(&["ls-remote", "origin"])
}

#[test]
fn push_refuses_secret_looking_files_unless_allowed() {
    let (r, _remote) = with_remote();
    // Committed in the branch the remote has: not reported.
    r.write("tests/fixtures/server.pem", "fixture\n");
    r.commit_all("a test certificate");
    r.git(&["push", "-q", "origin", "main"]);
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("notes.txt", "turn 1\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.t3(&["push", "origin"]).ok();
    r.write(".env", "API_KEY=1\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let before = remote_refs(&r);
    let refused = r.t3(&["push", "origin"]).fails(1);
    assert!(
        refused.stderr.contains(".env (turn 2 of thread 'thread-7f3c')")
            && refused.stderr.contains("--allow-secrets"),
        "{}",
        refused.stderr
    );
    assert!(!refused.stderr.contains("server.pem"), "{}", refused.stderr);
    assert_eq!(remote_refs(&r), before, "a refused push changed the remote");
    let json = r.t3(&["--json", "push", "origin"]).fails(1);
    assert!(json.stderr.contains("\"kind\":\"refused\""), "{}", json.stderr);
    // A later turn without it still sends turn 2: still refused.
    r.remove(".env");
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.t3(&["push", "origin"]).fails(1);
    r.t3(&["push", "origin", "--allow-secrets"]).ok();
    let after = remote_refs(&r);
    assert!(after.contains(&ref_for(THREAD, 3)), "{after}");
    // What the remote has is not scanned again.
    r.write("notes.txt", "turn 4\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.t3(&["push", "origin"]).ok();
    // A changed secret is new content: refused again.
    r.write(".env", "API_KEY=2\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let again = r.t3(&["push", "origin", "--thread", THREAD]).fails(1);
    assert!(again.stderr.contains(".env (turn 5"), "{}", again.stderr);
}
