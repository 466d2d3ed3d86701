//! Checkpoints fetched from someone else are untrusted: a tree with a path
//! git refuses to write is refused whole, before any file changes, and
//! `verify` names it. The hostile trees are built with git plumbing.

use crate::util::{THREAD, TestRepo, ref_for};

/// A repository whose thread has a baseline and one turn (adding a.txt).
fn turns_0_and_1() -> TestRepo {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("a.txt", "1\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    r
}

#[test]
fn trees_with_paths_git_refuses_are_refused_whole() {
    let names: [&[u8]; 6] = [b".git", b".GIT", b"git~1", b".git. ", b"..", b"."];
    for name in names {
        let r = TestRepo::seeded();
        r.t3(&["baseline", "--thread", THREAD]).ok();
        r.write("a.txt", "turn 1\n");
        r.t3(&["capture", "--thread", THREAD]).ok();
        r.write("a.txt", "turn 2\n");
        r.t3(&["capture", "--thread", THREAD]).ok();
        let hook = r.blob("#!/bin/sh\ntouch ../hook-ran\n");
        let hooks = r.raw_tree(&[("100755", b"post-checkout", hook)]);
        let inner = r.raw_tree(&[("40000", b"hooks", hooks)]);
        let readme = r.blob("forged\n");
        let tree = r.raw_tree(&[("40000", name, inner), ("100644", b"README.md", readme)]);
        r.forge_turn(THREAD, 1, &tree);
        let before = crate::util::listing(&r.root);
        let out = r
            .t3(&["revert", "--thread", THREAD, "--to", "1", "--files-only"])
            .fails(1);
        let shown = String::from_utf8_lossy(name);
        assert!(out.stderr.contains("refused"), "{shown}: {}", out.stderr);
        assert_eq!(crate::util::listing(&r.root), before, "{shown}: files changed");
        assert!(!r.tmp().join("hook-ran").exists());
        let v = r.t3(&["verify"]);
        assert_eq!(v.code, 1, "{shown}: verify passed a hostile tree");
        assert!(v.out().contains(&ref_for(THREAD, 1)), "{shown}: {}", v.out());
    }
}

#[test]
fn a_long_symlink_target_is_refused() {
    let r = turns_0_and_1();
    let target = r.blob(&"x".repeat(10_000));
    let tree = r.raw_tree(&[("120000", b"link", target)]);
    r.forge_turn(THREAD, 1, &tree);
    r.t3(&["capture", "--thread", THREAD]).ok();
    let out = r
        .t3(&["revert", "--thread", THREAD, "--to", "1", "--files-only"])
        .fails(1);
    assert!(out.stderr.contains("symlink target"), "{}", out.stderr);
}

/// Refs anyone who can push could plant: a symbolic ref, refs at a blob, a
/// tree and a tag, a turn number at the end of u64. None blocks a capture
/// or a revert; `verify` reports each; nothing follows the symbolic ref.
#[test]
fn refs_that_are_not_checkpoints_are_skipped_and_reported() {
    let r = turns_0_and_1();
    let blob_id = r.blob("not a commit\n");
    let tree = r.git(&["rev-parse", "HEAD^{tree}"]);
    r.git(&["tag", "-a", "-m", "a tag", "t3tag", "HEAD"]);
    let tag = r.git(&["rev-parse", "t3tag"]);
    let base = ref_for(THREAD, 0);
    let prefix = &base[..base.len() - 1];
    r.git(&["update-ref", &format!("{prefix}2"), &blob_id]);
    r.git(&["update-ref", &format!("{prefix}3"), &tree]);
    r.git(&["update-ref", &format!("{prefix}4"), &tag]);
    r.git(&[
        "update-ref",
        &format!("{prefix}18446744073709551615"),
        &r.git(&["rev-parse", "HEAD"]),
    ]);
    r.git(&["symbolic-ref", &format!("{prefix}5"), "refs/heads/main"]);
    r.write("b.txt", "2\n");
    let s = r.t3_json(&["capture", "--thread", THREAD]);
    assert_eq!(s["turn"], 6, "the next turn skips the planted numbers");
    // Its summary is against turn 1, the real checkpoint below the planted
    // refs (each object is looked up only as the capture reaches it).
    assert_eq!(s["from_turn"], 1, "{s}");
    let listed = r.listed_turns(THREAD);
    assert_eq!(listed, [0, 1, 6]);
    r.t3(&["diff", "--thread", THREAD, "--turn", "5"]).fails(1);
    r.t3(&["revert", "--thread", THREAD, "--to", "1", "--files-only"])
        .ok();
    let v = r.t3(&["verify"]);
    assert_eq!(v.code, 1);
    for turn in ["2", "3", "4", "5", "18446744073709551615"] {
        assert!(
            v.out().contains(&format!("{prefix}{turn}")),
            "verify misses turn {turn}: {}",
            v.out()
        );
    }
}

/// The hooks pass over the same planted refs, from the bottom and the top
/// of the thread: the prompt and the stop still record the next turn, with
/// its summary against the real turn below, and the thread stays bound to
/// its worktree.
#[test]
fn hooks_pass_over_refs_that_are_not_checkpoints() {
    let r = turns_0_and_1();
    let hook = |event: &str| {
        let out = r.t3_input(
            &["hook", "claude-code"],
            format!(
                r#"{{"hook_event_name":"{event}","session_id":"{THREAD}","cwd":"{}","prompt":"go"}}"#,
                r.root.display()
            )
            .as_bytes(),
        );
        assert_eq!(out.code, 0, "{event}: {}", out.stderr);
        out
    };
    let base = ref_for(THREAD, 0);
    let prefix = &base[..base.len() - 1];
    let blob_id = r.blob("not a commit\n");
    let tree = r.git(&["rev-parse", "HEAD^{tree}"]);
    r.git(&["update-ref", &format!("{prefix}2"), &blob_id]);
    r.git(&["update-ref", &format!("{prefix}3"), &tree]);
    hook("UserPromptSubmit");
    r.write("b.txt", "2\n");
    let stop = hook("Stop");
    let listed = r.listed_turns(THREAD);
    assert_eq!(listed, [0, 1, 4], "{}", stop.stderr);
    let s = r.t3_json(&["show", "--thread", THREAD, "--turn", "4"]);
    assert_eq!(s["from_turn"], 1, "{s}");
    assert_eq!(s["title"], "go", "{s}");
}

#[test]
fn thread_ids_that_could_fool_a_terminal_are_refused() {
    let r = TestRepo::seeded();
    for bad in [" ", "a\u{202e}b", "a\u{2066}b", "a\u{1b}[2Jb"] {
        r.t3(&["baseline", "--thread", bad]).fails(2);
    }
}

#[test]
fn absurd_timeouts_do_not_panic() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    for v in ["1e300", "inf", "NaN", "-1", "99999999999999999999"] {
        r.t3_env(
            &["capture", "--thread", THREAD],
            &[("T3_LOCK_TIMEOUT", v), ("T3_PROVIDER_TIMEOUT", v)],
        )
        .ok();
    }
}

/// A fetched note's fields are data: escape sequences in them never reach
/// the terminal raw.
#[test]
fn note_fields_are_escaped_for_people() {
    let r = turns_0_and_1();
    let c = r.git(&["rev-parse", &ref_for(THREAD, 1)]);
    let note = r.git(&["notes", "--ref=refs/notes/t3", "show", &c]);
    let forged = note.replace(
        "warnings = []",
        "warnings = [\"\\u001b[2J\\u001b]0;owned\\u0007 fine\\nforged: line\\u202e\"]\nturn_id = \"\\u009b31m\"",
    );
    assert_ne!(forged, note, "setup: the note has no warnings line");
    let file = r.tmp().join("forged-note");
    std::fs::write(&file, forged).unwrap();
    r.git(&[
        "notes",
        "--ref=refs/notes/t3",
        "add",
        "-f",
        "-F",
        file.to_str().unwrap(),
        &c,
    ]);
    let out = r.t3(&["show", "--thread", THREAD, "--turn", "1"]).ok();
    let text = out.out();
    assert!(
        !text
            .chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'),
        "raw control characters reached the terminal: {text:?}"
    );
    assert!(
        !text.lines().any(|l| l.starts_with("forged")),
        "a forged line: {text}"
    );
    // JSON keeps the raw value, escaped by JSON itself.
    let v = r.t3_json(&["show", "--thread", THREAD, "--turn", "1"]);
    assert!(v["warnings"][0].as_str().unwrap().contains('\u{1b}'));
}

#[test]
fn paths_that_are_not_utf8_stay_distinct_end_to_end() {
    use std::os::unix::ffi::OsStrExt;
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    // Two names that read the same once decoded lossily.
    for (name, body) in [(&b"caf\xe9.txt"[..], "e9\n"), (&b"caf\xe8.txt"[..], "e8\n")] {
        std::fs::write(r.root.join(std::ffi::OsStr::from_bytes(name)), body).unwrap();
    }
    r.t3(&["capture", "--thread", THREAD]).ok();
    let z = r
        .t3(&["diff", "--thread", THREAD, "--name-only", "-z"])
        .ok()
        .stdout;
    assert_eq!(z, b"caf\xe8.txt\0caf\xe9.txt\0", "-z gives the raw bytes");
    let numstat = r.t3(&["diff", "--thread", THREAD, "--numstat", "-z"]).ok().stdout;
    assert_eq!(numstat, b"1\t0\tcaf\xe8.txt\x001\t0\tcaf\xe9.txt\0");
    // People see git's octal escapes, one distinct line per file.
    let shown = r.t3(&["show", "--thread", THREAD]).ok().out();
    assert!(
        shown.contains("\"caf\\350.txt\"") && shown.contains("\"caf\\351.txt\""),
        "{shown}"
    );
    let names = r.t3(&["diff", "--thread", THREAD, "--name-only"]).ok().out();
    assert_eq!(names, "\"caf\\350.txt\"\n\"caf\\351.txt\"\n");
    // JSON marks them with their bytes, and the stored note keeps them.
    let v = r.t3_json(&["show", "--thread", THREAD]);
    let b64: Vec<&str> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path_b64"].as_str().expect("a non-UTF-8 path is marked"))
        .collect();
    assert_eq!(b64, ["Y2Fm6C50eHQ=", "Y2Fm6S50eHQ="]);
    r.t3(&["verify", "--thread", THREAD]).ok();
    // Revert plans name them exactly too, and the files come and go intact.
    let plan = r.t3_json(&[
        "revert",
        "--thread",
        THREAD,
        "--to",
        "0",
        "--dry-run",
        "--files-only",
    ]);
    assert_eq!(plan["files"]["delete"][1]["path_b64"], "Y2Fm6S50eHQ=", "{plan}");
    r.t3(&["revert", "--thread", THREAD, "--to", "0", "--files-only"])
        .ok();
    assert!(!r.root.join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt")).exists());
    r.t3(&["revert", "--undo", "--thread", THREAD]).ok();
    let back = std::fs::read(r.root.join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt"))).unwrap();
    assert_eq!(back, b"e9\n");
}

#[test]
fn a_note_that_inflates_to_100_mib_is_refused_before_it_is_read() {
    let r = turns_0_and_1();
    // 100 MiB of zeros is a tiny object. (Made from a sparse file: memory
    // this test process holds would count in its children's peak.)
    let file = r.tmp().join("bomb");
    std::fs::File::create(&file).unwrap().set_len(100 << 20).unwrap();
    let bomb = r.git(&["hash-object", "-w", file.to_str().unwrap()]);
    let c = r.git(&["rev-parse", &ref_for(THREAD, 1)]);
    r.git(&["notes", "--ref=refs/notes/t3", "add", "-f", "-C", &bomb, &c]);
    let (code, peak) = r.peak_rss_and_code(&["show", "--thread", THREAD, "--turn", "1"]);
    assert_eq!(code, 1);
    assert!(peak < 40 * 1024, "show peaked at {} MiB", peak / 1024);
    let out = r.t3(&["show", "--thread", THREAD, "--turn", "1"]).fails(1);
    assert!(out.stderr.contains("more than the"), "{}", out.stderr);
}

/// Nine small trees that repeat one another stand for 16^8 paths: every
/// command refuses them at once instead of walking billions of paths.
#[test]
fn trees_that_expand_to_billions_of_paths_are_refused_at_once() {
    let r = turns_0_and_1();
    let mut tree = r.raw_tree(&[("100644", b"f", r.blob("p\n"))]);
    for _ in 0..8 {
        let names: Vec<[u8; 1]> = b"0123456789abcdef".iter().map(|b| [*b]).collect();
        let entries: Vec<(&str, &[u8], String)> = names
            .iter()
            .map(|n| ("40000", n.as_slice(), tree.clone()))
            .collect();
        tree = r.raw_tree(&entries);
    }
    r.forge_turn(THREAD, 1, &tree);
    r.write("c.txt", "y\n");
    let out = r
        .t3(&["diff", "--thread", THREAD, "--turn", "1", "--stat"])
        .fails(1);
    assert!(out.stderr.contains("more than"), "{}", out.stderr);
    let v = r.t3(&["verify", "--thread", THREAD]);
    assert_eq!(v.code, 1);
    assert!(v.out().contains("more than"), "{}", v.out());
    let before = crate::util::listing(&r.root);
    r.t3(&["revert", "--thread", THREAD, "--to", "1", "--files-only"])
        .fails(1);
    assert_eq!(
        crate::util::listing(&r.root),
        before,
        "the refused revert changed files"
    );
    // The agent's hook answers at once too.
    let hook = r.t3_input(
        &["hook", "claude-code"],
        format!(
            r#"{{"hook_event_name":"Stop","session_id":"{THREAD}","cwd":"{}"}}"#,
            r.root.display()
        )
        .as_bytes(),
    );
    assert_eq!(hook.code, 0);
}

#[test]
fn a_name_twice_in_one_tree_is_refused() {
    let r = turns_0_and_1();
    let inner = r.raw_tree(&[("100644", b"x", r.blob("x\n"))]);
    let tree = r.raw_tree(&[
        ("100644", b"a.txt", r.blob("1\n")),
        ("120000", b"d", r.blob("/tmp")),
        ("40000", b"d", inner),
    ]);
    r.forge_turn(THREAD, 1, &tree);
    let v = r.t3(&["verify", "--thread", THREAD]);
    assert!(v.out().contains("appears twice"), "{}", v.out());
    let out = r
        .t3(&["revert", "--thread", THREAD, "--to", "1", "--files-only"])
        .fails(1);
    assert!(out.stderr.contains("appears twice"), "{}", out.stderr);
}

#[test]
fn control_characters_in_any_note_field_or_message_stay_escaped() {
    let r = turns_0_and_1();
    let c = r.git(&["rev-parse", &ref_for(THREAD, 1)]);
    let note = r.git(&["notes", "--ref=refs/notes/t3", "show", &c]);
    let line = note
        .lines()
        .find(|l| l.starts_with("completed_at"))
        .unwrap()
        .to_owned();
    let forged = note.replace(&line, "completed_at = \"2026\\u001b]0;pwned\\u0007\"");
    let blob = r.hash_object(&[], forged.as_bytes());
    r.git(&["notes", "--ref=refs/notes/t3", "add", "-f", "-C", &blob, &c]);
    let list = r.t3(&["list", "--thread", THREAD]).ok().out();
    assert!(!list.contains('\u{1b}') && !list.contains('\u{7}'), "{list:?}");
    // A note that fails to parse quotes its bad value: escaped too.
    let bad = note.replace("status = \"ready\"", "status = \"ready\\u001b[2J\\u202e\"");
    let blob = r.hash_object(&[], bad.as_bytes());
    r.git(&["notes", "--ref=refs/notes/t3", "add", "-f", "-C", &blob, &c]);
    let show = r.t3(&["show", "--thread", THREAD, "--turn", "1"]).fails(1);
    assert!(
        !show.stderr.contains('\u{1b}') && !show.stderr.contains('\u{202e}'),
        "{:?}",
        show.stderr
    );
}
