//! Checkpoints fetched from someone else are untrusted: a tree with a path
//! git refuses to write is refused whole, before any file changes, and
//! `verify` names it. The hostile trees are built with git plumbing.

use std::process::{Command, Stdio};

use crate::util::{THREAD, TestRepo, ref_for};

/// Write a raw tree object of `entries` (mode, name, hex id) — names git's
/// own tools would refuse included.
fn raw_tree(r: &TestRepo, entries: &[(&str, &[u8], String)]) -> String {
    let mut data = Vec::new();
    for (mode, name, id) in entries {
        data.extend_from_slice(mode.as_bytes());
        data.push(b' ');
        data.extend_from_slice(name);
        data.push(0);
        for i in (0..id.len()).step_by(2) {
            data.push(u8::from_str_radix(&id[i..i + 2], 16).unwrap());
        }
    }
    let mut child = Command::new("git")
        .args(["hash-object", "-t", "tree", "--literally", "-w", "--stdin"])
        .current_dir(&r.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child.stdin.take().unwrap().write_all(&data).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

fn blob(r: &TestRepo, content: &str) -> String {
    let path = r.tmp().join("blob-input");
    std::fs::write(&path, content).unwrap();
    r.git(&["hash-object", "-w", path.to_str().unwrap()])
}

/// Turn 1 of the thread becomes a forged checkpoint whose tree is `tree`
/// (a copy of turn 1's note keeps it readable).
fn forge_turn_1(r: &TestRepo, tree: &str) {
    let real = r.git(&["rev-parse", &ref_for(THREAD, 1)]);
    let note = r.git(&["notes", "--ref=refs/notes/t3", "show", &real]);
    let commit = r.git(&[
        "commit-tree",
        tree,
        "-m",
        &format!("t3 checkpoint ref={}", ref_for(THREAD, 1)),
    ]);
    let file = r.tmp().join("note");
    std::fs::write(&file, note).unwrap();
    r.git(&[
        "notes",
        "--ref=refs/notes/t3",
        "add",
        "-f",
        "-F",
        file.to_str().unwrap(),
        &commit,
    ]);
    r.git(&["update-ref", &ref_for(THREAD, 1), &commit]);
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
        let hook = blob(&r, "#!/bin/sh\ntouch ../hook-ran\n");
        let hooks = raw_tree(&r, &[("100755", b"post-checkout", hook)]);
        let inner = raw_tree(&r, &[("40000", b"hooks", hooks)]);
        let readme = blob(&r, "forged\n");
        let tree = raw_tree(&r, &[("40000", name, inner), ("100644", b"README.md", readme)]);
        forge_turn_1(&r, &tree);
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
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("a.txt", "1\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let target = blob(&r, &"x".repeat(10_000));
    let tree = raw_tree(&r, &[("120000", b"link", target)]);
    forge_turn_1(&r, &tree);
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
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("a.txt", "1\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let blob_id = blob(&r, "not a commit\n");
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
    let turns = r.t3_json(&["list", "--thread", THREAD]);
    let listed: Vec<u64> = turns["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["turn"].as_u64().unwrap())
        .collect();
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
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("a.txt", "1\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
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
