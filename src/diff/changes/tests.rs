//! The unit tests of `changes.rs`.

use super::*;

#[test]
fn tree_order_is_gits() {
    use std::cmp::Ordering::{Equal, Greater, Less};
    assert_eq!(tree_order(b"a", false, b"a.b", false), Less);
    // A tree compares as if it ended in '/', which sorts after '.'.
    assert_eq!(tree_order(b"a", true, b"a.b", false), Greater);
    assert_eq!(tree_order(b"a", true, b"a", true), Equal);
    assert_eq!(tree_order(b"a", false, b"a", true), Less);
    assert_eq!(tree_order(b"a-", false, b"a", true), Less);
    assert_eq!(tree_order(b"b", false, b"a", true), Greater);
}

/// The bound counts what git's diff lists (its only job is to be at
/// least that), through names that sort differently as files and as
/// trees, a file that became a tree, and a tree that became a file.
#[test]
fn the_bound_counts_what_git_lists() {
    use crate::testing::git;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    let tree_of = |files: &[(&str, &str)]| {
        let _ = std::fs::remove_dir_all(root.join("w"));
        for (path, data) in files {
            let p = root.join("w").join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, data).unwrap();
        }
        git(
            &root.join("w"),
            &["--git-dir", "../.git", "--work-tree", ".", "add", "-A"],
        );
        let id = String::from_utf8(git(root, &["write-tree"])).unwrap();
        git(root, &["rm", "-rq", "--cached", "."]);
        ObjectId::from_hex(id.trim().as_bytes()).unwrap()
    };
    let old = tree_of(&[
        ("a", "file a"),
        ("a.b", "1"),
        ("c/x", "x"),
        ("c/y", "y"),
        ("d-e", "2"),
        ("d/z", "z"),
        ("same/s", "s"),
    ]);
    let new = tree_of(&[
        ("a/in", "a is a tree now"),
        ("a/in2", "and holds two"),
        ("a.b", "1 changed"),
        ("c", "c is a file now"),
        ("d-e", "2"),
        ("d/z", "z changed"),
        ("d/new", "n"),
        ("same/s", "s"),
    ]);
    let repo = gix::open(root).unwrap();
    let listed = String::from_utf8(git(
        root,
        &[
            "diff",
            "--no-renames",
            "--name-status",
            &old.to_string(),
            &new.to_string(),
        ],
    ))
    .unwrap();
    let git_count = listed.lines().count() as u64;
    // a deleted, a/in and a/in2 added, a.b modified, c/x and c/y
    // deleted, c added, d/z modified, d/new added.
    assert_eq!(git_count, 9, "{listed}");
    assert_eq!(
        Bound::new(&repo).pair(Some(old), Some(new), 0).unwrap(),
        git_count
    );
    assert_eq!(
        Bound::new(&repo).pair(Some(new), Some(old), 0).unwrap(),
        git_count
    );
    assert_eq!(Bound::new(&repo).pair(Some(old), Some(old), 0).unwrap(), 0);
    assert_eq!(Bound::new(&repo).pair(None, Some(new), 0).unwrap(), 8);
}

#[test]
fn similarity_in_percent_like_git() {
    assert_eq!(percent(None), 100);
    assert_eq!(percent(Some(60_000)), 100);
    assert_eq!(percent(Some(30_000)), 50);
    assert_eq!(percent(Some(59_999)), 99);
}

#[test]
fn a_file_becoming_a_link_is_a_type_change() {
    let null = ObjectId::null(gix::hash::Kind::Sha1);
    let file = Side {
        id: null,
        kind: EntryKind::Blob,
    };
    let exe = Side {
        kind: EntryKind::BlobExecutable,
        ..file
    };
    let link = Side {
        kind: EntryKind::Link,
        ..file
    };
    let kind = |o, n| modified("p".into(), o, n).map(|c| c.kind);
    assert_eq!(kind(Some(file), Some(exe)), Some(ChangeKind::Modified));
    assert_eq!(kind(Some(file), Some(link)), Some(ChangeKind::TypeChanged));
    assert_eq!(kind(Some(file), None), Some(ChangeKind::Deleted));
    assert_eq!(kind(None, None), None);
}
