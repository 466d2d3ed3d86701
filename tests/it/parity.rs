//! A checkpoint is exactly what git records (`read-tree HEAD; add -A;
//! write-tree` into a private index), in the cases a differential fuzzer
//! found it was not: ignore rules that match directories, nested
//! repositories seen through the cache, skip-worktree entries, attribute
//! changes, FIFOs. Each test compares with git itself.

use crate::util::{THREAD, TestRepo};

/// Capture and return the checkpoint's tree.
fn captured_tree(r: &TestRepo) -> String {
    let out = r.t3_json(&["capture", "--thread", THREAD]);
    out["tree"].as_str().expect("capture reports its tree").to_owned()
}

/// Forget the capture caches, so the next capture is a cold one.
fn cold(r: &TestRepo) {
    for e in std::fs::read_dir(r.root.join(".git/t3"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.contains("index") || name.contains("cache") || name.contains("dirs") {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[test]
fn ignore_rules_that_match_directories_keep_the_root_files_as_git_does() {
    let r = TestRepo::seeded();
    r.write("root-untracked.txt", "kept by git\n");
    r.write("deep/er/file.txt", "in a folder\n");
    let excludes_file = r.tmp().join("global-excludes");
    r.git(&["config", "core.excludesFile", excludes_file.to_str().unwrap()]);
    let sources: [(&str, std::path::PathBuf, bool); 4] = [
        (".t3ignore", r.root.join(".t3ignore"), true),
        ("info/t3-exclude", r.root.join(".git/info/t3-exclude"), true),
        ("info/exclude", r.root.join(".git/info/exclude"), false),
        ("core.excludesFile", excludes_file.clone(), false),
    ];
    for pattern in ["*/", "**/", "/*/", "/"] {
        for (name, path, t3) in &sources {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, format!("{pattern}\n")).unwrap();
            let ours = captured_tree(&r);
            // git's tree, with a t3 source's rule given to git as its own
            // (a t3 rule only ever removes paths, as a git rule does).
            let info = r.root.join(".git/info/exclude");
            if *t3 {
                std::fs::write(&info, format!("{pattern}\n")).unwrap();
            }
            let git = r.oracle_tree();
            if *t3 {
                std::fs::remove_file(&info).unwrap();
            }
            let listed = r.git(&["ls-tree", "-r", "--name-only", &ours]);
            assert_eq!(ours, git, "`{pattern}` in {name}: captured {listed:?}");
            assert!(listed.contains("root-untracked.txt"), "`{pattern}` in {name}");
            std::fs::remove_file(path).unwrap();
            cold(&r);
        }
    }
}

#[test]
fn a_skip_worktree_file_is_recorded_the_same_with_a_warm_or_a_cold_cache() {
    let r = TestRepo::seeded();
    r.write("s.txt", "in HEAD\n");
    r.commit_all("s");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.git(&["update-index", "--skip-worktree", "s.txt"]);
    r.write("s.txt", "the user's hidden edit\n");
    let show = |tree: &str| r.git(&["show", &format!("{tree}:s.txt")]);
    // It exists: the worktree's content (what a safety checkpoint needs).
    let warm = captured_tree(&r);
    cold(&r);
    let fresh = captured_tree(&r);
    assert_eq!(show(&warm), "the user's hidden edit");
    assert_eq!(warm, fresh, "warm and cold captures differ");
    // Gone: the index entry (HEAD's), warm and cold.
    std::fs::remove_file(r.root.join("s.txt")).unwrap();
    let warm = captured_tree(&r);
    cold(&r);
    let fresh = captured_tree(&r);
    assert_eq!(show(&warm), "in HEAD");
    assert_eq!(warm, fresh, "warm and cold captures differ");
    // Without the mark, a deleted file is deleted.
    r.git(&["update-index", "--no-skip-worktree", "s.txt"]);
    let warm = captured_tree(&r);
    cold(&r);
    let fresh = captured_tree(&r);
    assert!(!r.git(&["ls-tree", "--name-only", &warm]).contains("s.txt"));
    assert_eq!(warm, fresh, "warm and cold captures differ");
}

#[test]
fn a_new_attribute_rule_reaches_files_the_cache_already_hashed() {
    let r = TestRepo::seeded();
    r.write_bytes("crlf.txt", b"one\r\ntwo\r\n");
    r.write_bytes("tracked.txt", b"tracked\r\n");
    r.git(&["add", "tracked.txt"]);
    r.commit_all("crlf");
    r.write_bytes("crlf.txt", b"one\r\ntwo\r\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    assert_eq!(captured_tree(&r), r.oracle_tree());
    // An eol rule, then a change of mind, then a rule in a subfolder and
    // in info/attributes: each time the same tree as git's.
    for (path, rule) in [
        (".gitattributes", "*.txt text eol=lf\n"),
        (".gitattributes", "*.txt -text\n"),
        ("sub/.gitattributes", "* text eol=lf\n"),
        (".git/info/attributes", "crlf.txt text\n"),
    ] {
        if path.starts_with("sub/") {
            r.write_bytes("sub/inner.txt", b"inner\r\n");
            captured_tree(&r);
        }
        r.write(path, rule);
        assert_eq!(captured_tree(&r), r.oracle_tree(), "after {rule:?} in {path}");
    }
}
