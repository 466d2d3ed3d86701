//! A checkpoint is exactly what git records (`read-tree HEAD; add -A;
//! write-tree` into a private index), in the cases a differential fuzzer
//! found it was not: ignore rules that match directories, nested
//! repositories seen through the cache, skip-worktree entries, attribute
//! changes, FIFOs. Each test compares with git itself.

use crate::util::{THREAD, TestRepo, mkfifo, ref_for};

/// Capture and return the checkpoint's tree.
fn captured_tree(r: &TestRepo) -> String {
    let out = r.t3_json(&["capture", "--thread", THREAD]);
    out["tree"].as_str().expect("capture reports its tree").to_owned()
}

/// `git t3 revert --to <turn> --files-only` on the test thread.
fn revert_files(r: &TestRepo, turn: u64) {
    r.t3(&[
        "revert",
        "--thread",
        THREAD,
        "--to",
        &turn.to_string(),
        "--files-only",
    ])
    .ok();
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

/// Run git-t3 with a deadline: a command that blocks (on a FIFO) is killed
/// and the test fails, instead of hanging the suite.
fn t3_within(r: &TestRepo, args: &[&str], secs: u64) -> i32 {
    r.t3_within(args, secs).code
}

#[test]
fn a_revert_writes_new_files_so_a_hard_link_keeps_its_own_content() {
    let r = TestRepo::seeded();
    r.write(".gitignore", "*.key\n");
    r.write("a", "v1\n");
    r.commit_all("a");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    // An ignored hard link to the same file, then the agent's edit.
    std::fs::hard_link(r.root.join("a"), r.root.join("b.key")).unwrap();
    r.write("a", "v2\n");
    captured_tree(&r);
    r.t3(&["revert", "--thread", THREAD, "--to", "0", "--files-only"])
        .ok();
    let read = |p: &str| std::fs::read_to_string(r.root.join(p)).unwrap();
    assert_eq!(read("a"), "v1\n");
    // git's checkout unlinks and creates: the ignored link is untouched.
    assert_eq!(read("b.key"), "v2\n");
}

#[test]
fn a_revert_to_a_gitlink_where_a_plain_folder_is_now_works() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let nested = r.root.join("Dir");
    std::fs::create_dir_all(&nested).unwrap();
    r.git_in(&nested, &["init", "-q"]).ok();
    std::fs::write(nested.join("n.txt"), "nested\n").unwrap();
    std::fs::write(nested.join(".gitignore"), "*.tmp\n").unwrap();
    r.git_in(&nested, &["add", "."]).ok();
    r.git_in(&nested, &["commit", "-qm", "n"]).ok();
    let with_gitlink = captured_tree(&r);
    assert!(r.git(&["ls-tree", &with_gitlink, "Dir"]).starts_with("160000"));
    // Its .git goes: a plain folder whose files are captured.
    std::fs::remove_dir_all(nested.join(".git")).unwrap();
    captured_tree(&r);
    let turn = r.t3_json(&["show", "--thread", THREAD])["turn"].as_u64().unwrap();
    r.t3(&[
        "revert",
        "--thread",
        THREAD,
        "--to",
        &(turn - 1).to_string(),
        "--files-only",
    ])
    .ok();
    assert!(
        !nested.join("n.txt").exists(),
        "the folder's files were captured after the target"
    );
}

#[test]
fn fifos_never_block_a_capture_or_a_revert() {
    let r = TestRepo::seeded();
    r.write("a.txt", "v1\n");
    r.commit_all("a");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("a.txt", "v2\n");
    captured_tree(&r);
    // In the worktree: untracked, and where git reads ignore rules.
    mkfifo(&r.root.join("pipe"));
    std::fs::create_dir_all(r.root.join("sub")).unwrap();
    r.write("sub/file.txt", "kept\n");
    mkfifo(&r.root.join("sub/.gitignore"));
    mkfifo(&r.root.join(".t3ignore"));
    assert_eq!(t3_within(&r, &["capture", "--thread", THREAD], 20), 0);
    let tree = r.t3_json(&["show", "--thread", THREAD])["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    // git itself blocks on a FIFO at .gitignore: compare without it.
    std::fs::remove_file(r.root.join("sub/.gitignore")).unwrap();
    assert_eq!(r.ref_tree(&tree), r.oracle_tree(), "git skips FIFOs");
    // In the git dir: the capture cache.
    for name in ["cache", "index.dirs"] {
        let p = r.root.join(".git/t3").join(name);
        let _ = std::fs::remove_file(&p);
        mkfifo(&p);
        assert_eq!(t3_within(&r, &["capture", "--thread", THREAD], 20), 0, "{name}");
    }
    // Where the target has a file: replaced, never opened.
    std::fs::remove_file(r.root.join("a.txt")).unwrap();
    mkfifo(&r.root.join("a.txt"));
    assert_eq!(
        t3_within(
            &r,
            &["revert", "--thread", THREAD, "--to", "0", "--files-only"],
            20
        ),
        0
    );
    assert_eq!(std::fs::read_to_string(r.root.join("a.txt")).unwrap(), "v1\n");
}

/// The capture cache is disposable: a FIFO where one of its files should
/// be is never opened (the capture would wait for a writer forever, holding
/// the repository lock); the capture succeeds as without a cache and writes
/// a regular file in its place. So are the maintenance stamps.
#[test]
fn a_fifo_where_a_cache_file_is_is_replaced_never_opened() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let t3 = r.root.join(".git/t3");
    // Both slots of index.tracked: one of them is written in place.
    for name in ["index.tracked", "index.tracked.alt"] {
        let _ = std::fs::remove_file(t3.join(name));
        mkfifo(&t3.join(name));
    }
    for turn in 1..=2 {
        r.write("a.txt", &format!("v{turn}\n"));
        r.t3_within(&["capture", "--thread", THREAD], 10).ok();
        r.t3_within(&["status"], 10).ok();
    }
    for name in ["index.tracked", "index.tracked.alt"] {
        assert!(t3.join(name).is_file(), "{name} is not a regular file again");
    }
    let tree = r.t3_json(&["show", "--thread", THREAD])["ref"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(r.ref_tree(&tree), r.oracle_tree());
    // The prune and gc stamps: their time is all they hold.
    for name in ["prune-stamp", "gc-stamp"] {
        let _ = std::fs::remove_file(t3.join(name));
        mkfifo(&t3.join(name));
    }
    r.t3_within(&["prune"], 10).ok();
    r.t3_within(&["maintenance"], 60).ok();
    for name in ["prune-stamp", "gc-stamp"] {
        assert!(t3.join(name).is_file(), "{name} is not a regular file again");
    }
}

/// Where git t3 keeps state that is not disposable — its locks, the
/// operation log, a revert's journal, the prompts a hook recorded — a FIFO,
/// socket or device is an error naming it, at once, and nothing is changed.
#[test]
fn a_fifo_where_state_is_kept_is_an_error_at_once() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("a.txt", "v1\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.write("a.txt", "v2\n");
    let turn1 = ref_for(THREAD, 1);
    let encoded = turn1.split('/').nth(3).unwrap();
    let cases: [(&str, &[&str]); 5] = [
        (".git/t3/lock", &["capture", "--thread", THREAD]),
        (".git/t3/maintenance.lock", &["maintenance"]),
        (".git/refs/t3/ops", &["op", "log"]),
        (
            &format!(".git/refs/t3/reverts/{encoded}"),
            &["capture", "--thread", THREAD],
        ),
        (
            &format!(".git/refs/t3/prompts/{encoded}"),
            &["drop", "--thread", THREAD],
        ),
    ];
    for (fifo, args) in cases {
        let path = r.root.join(fifo);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let _ = std::fs::remove_file(&path);
        mkfifo(&path);
        let before = r.git(&["for-each-ref"]);
        let run = r.t3_within(args, 10).fails(1);
        let name = std::path::Path::new(fifo).file_name().unwrap().to_str().unwrap();
        assert!(run.stderr.contains(name), "{fifo}: {}", run.stderr);
        assert!(
            run.stderr.contains("not a regular file"),
            "{fifo}: {}",
            run.stderr
        );
        assert_eq!(r.git(&["for-each-ref"]), before, "{fifo}: refs changed");
        std::fs::remove_file(&path).unwrap();
    }
}

#[test]
fn an_unreadable_file_is_named_tracked_and_listed_untracked() {
    let r = TestRepo::seeded();
    r.write("locked.txt", "private\n");
    r.commit_all("locked");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    // A tracked file it may not read fails the capture, naming it.
    r.chmod("locked.txt", 0o000);
    let Some(run) = r.t3_unprivileged(&["capture", "--thread", THREAD]) else {
        eprintln!("skipped: running as root without setpriv");
        return;
    };
    let run = run.fails(1);
    assert!(run.stderr.contains("locked.txt"), "{}", run.stderr);
    assert!(run.stderr.contains("ermission denied"), "{}", run.stderr);
    // An untracked one is left out and listed in the note, like a big one.
    r.chmod("locked.txt", 0o644);
    r.write("mine-only.txt", "untracked\n");
    r.chmod("mine-only.txt", 0o000);
    let run = r.t3_unprivileged(&["capture", "--thread", THREAD]).unwrap().ok();
    assert!(run.stderr.contains("mine-only.txt"), "{}", run.stderr);
    let shown = r
        .t3_unprivileged(&["--json", "show", "--thread", THREAD])
        .unwrap()
        .ok()
        .json();
    r.chmod("mine-only.txt", 0o644);
    let skipped = if shown["note"]["skipped"].is_null() {
        &shown["skipped"]
    } else {
        &shown["note"]["skipped"]
    };
    assert_eq!(skipped[0]["path"], "mine-only.txt", "{shown}");
    assert_eq!(skipped[0]["reason"], "unreadable", "{shown}");
}

#[test]
fn a_tracked_gitlink_is_recorded_as_git_records_it_now() {
    let r = TestRepo::seeded();
    let n = r.root.join("n");
    std::fs::create_dir_all(&n).unwrap();
    r.git_in(&n, &["init", "-q"]).ok();
    r.git_in(&n, &["commit", "-q", "--allow-empty", "-m", "1"]).ok();
    r.git(&["add", "n"]);
    r.git(&["commit", "-qm", "gitlink"]);
    r.t3(&["baseline", "--thread", THREAD]).ok();
    // Moved away, then back: a gitlink again, not "deleted" from the cache.
    let away = r.tmp().join("n-away");
    std::fs::rename(&n, &away).unwrap();
    assert_eq!(captured_tree(&r), r.oracle_tree(), "moved away");
    std::fs::rename(&away, &n).unwrap();
    assert_eq!(captured_tree(&r), r.oracle_tree(), "moved back");
    // Its HEAD moves, then its .git goes: HEAD's gitlink, not the last seen.
    r.git_in(&n, &["commit", "-q", "--allow-empty", "-m", "2"]).ok();
    assert_eq!(captured_tree(&r), r.oracle_tree(), "HEAD moved");
    std::fs::remove_dir_all(n.join(".git")).unwrap();
    assert_eq!(captured_tree(&r), r.oracle_tree(), ".git removed");
}

#[test]
fn an_attribute_rule_that_head_brings_renormalizes_what_the_cache_hashed() {
    let r = TestRepo::seeded();
    r.write_bytes("c.txt", b"b\r\nb\r\n");
    // An hour old (set, not slept for): the cache's stat data would hold.
    std::fs::File::options()
        .write(true)
        .open(r.root.join("c.txt"))
        .unwrap()
        .set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
    r.wait_past_ctime(&r.root.join("c.txt"));
    r.commit_all("crlf");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    captured_tree(&r);
    r.write(".gitattributes", "*.txt text\n");
    r.commit_all("attributes");
    assert_eq!(captured_tree(&r), r.oracle_tree());
}

#[test]
fn a_revert_to_a_gitlink_whose_folder_is_gone_makes_the_folder_as_git_does() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let n = r.root.join("n");
    // And one whose folders above are gone too.
    let deep = r.root.join("up/er/n");
    for repo in [&n, &deep] {
        std::fs::create_dir_all(repo).unwrap();
        r.git_in(repo, &["init", "-q"]).ok();
        r.git_in(repo, &["commit", "-q", "--allow-empty", "-m", "1"]).ok();
    }
    captured_tree(&r);
    let with_link = r.t3_json(&["show", "--thread", THREAD])["turn"].as_u64().unwrap();
    std::fs::remove_dir_all(&n).unwrap();
    std::fs::remove_dir_all(r.root.join("up")).unwrap();
    captured_tree(&r);
    revert_files(&r, with_link);
    // git's checkout of a gitlink: an empty folder (the repository is elsewhere).
    assert!(n.is_dir(), "no folder for the gitlink");
    assert!(deep.is_dir(), "no folder for the deep gitlink");
}

#[test]
fn replacing_a_file_never_removes_through_a_symlinked_folder() {
    let r = TestRepo::seeded();
    let outside = r.tmp().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("x"), "outside, must stay\n").unwrap();
    r.write("b/x", "in the turn\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    // An ignored symlink where the turn has the folder b.
    r.write(".gitignore", "b\n");
    std::fs::remove_dir_all(r.root.join("b")).unwrap();
    std::os::unix::fs::symlink(&outside, r.root.join("b")).unwrap();
    captured_tree(&r);
    r.t3(&["revert", "--thread", THREAD, "--to", "0", "--files-only"])
        .ok();
    assert_eq!(
        std::fs::read_to_string(outside.join("x")).unwrap(),
        "outside, must stay\n"
    );
}

#[test]
fn automatic_line_endings_check_heads_blob_not_the_last_captures() {
    let r = TestRepo::seeded();
    // HEAD holds CRLF (committed before the rule), so `text=auto` leaves
    // CRLF alone for this path: git's "safe autocrlf" reads the index's
    // blob, HEAD's in a fresh private index.
    r.write_bytes("dos.txt", b"a\r\n");
    r.commit_all("crlf in HEAD");
    r.write(".gitattributes", "* text=auto\n");
    r.commit_all("auto");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    // The last capture's blob has no CRLF...
    r.write("dos.txt", "b\n");
    assert_eq!(captured_tree(&r), r.oracle_tree());
    // ...but HEAD's has: CRLF is kept, warm and cold.
    r.write_bytes("dos.txt", b"c\r\n");
    let warm = captured_tree(&r);
    assert_eq!(warm, r.oracle_tree(), "warm capture");
    let kept = r.hash_object(&["--no-filters"], b"c\r\n");
    assert_eq!(r.git(&["rev-parse", &format!("{warm}:dos.txt")]), kept);
    cold(&r);
    assert_eq!(captured_tree(&r), warm, "cold capture");
    // And the other way round, with core.autocrlf instead of an attribute.
    r.remove(".gitattributes");
    r.write("dos.txt", "a\n");
    r.commit_all("lf in HEAD, no attributes");
    r.git(&["config", "core.autocrlf", "input"]);
    r.write_bytes("dos.txt", b"b\r\n");
    captured_tree(&r);
    r.write_bytes("dos.txt", b"c\r\nd\r\n");
    assert_eq!(captured_tree(&r), r.oracle_tree(), "autocrlf, warm");
}

#[test]
fn a_rule_converting_line_endings_added_in_a_turn_counts_for_that_turn() {
    // The capture reads the attributes beside its walk, which goes by what
    // the cache says of them meanwhile: here that nothing converts.
    let r = TestRepo::seeded();
    r.write_bytes("dos.txt", b"a\r\n");
    r.commit_all("crlf in HEAD, no attributes");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    // The last capture's blob has no CRLF, HEAD's has.
    r.write("dos.txt", "b\n");
    assert_eq!(captured_tree(&r), r.oracle_tree());
    // One turn brings `text=auto` and CRLF: git's "safe autocrlf" reads
    // HEAD's blob and keeps CRLF; a walk by the cache alone would read the
    // last capture's and convert.
    r.write(".gitattributes", "* text=auto\n");
    r.write_bytes("dos.txt", b"c\r\n");
    let tree = captured_tree(&r);
    assert_eq!(tree, r.oracle_tree());
    let kept = r.hash_object(&["--no-filters"], b"c\r\n");
    assert_eq!(r.git(&["rev-parse", &format!("{tree}:dos.txt")]), kept);
}

#[test]
fn an_ignored_or_t3_ignored_attributes_file_still_applies() {
    let r = TestRepo::seeded();
    r.write_bytes("dos.txt", b"a\r\nb\r\n");
    r.commit_all("crlf in HEAD");
    std::fs::write(r.root.join(".git/info/exclude"), ".gitattributes\n").unwrap();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    // git reads .gitattributes whether or not it is ignored.
    r.write(".gitattributes", "*.txt text\n");
    assert_eq!(captured_tree(&r), r.oracle_tree(), "an ignored .gitattributes");
    // A t3-ignored one (everything untracked t3-ignored) in a subfolder.
    r.write_bytes("sub/more.txt", b"x\r\n");
    r.git(&["add", "sub/more.txt"]);
    r.commit_all("sub");
    std::fs::write(r.root.join(".git/info/t3-exclude"), "*\n").unwrap();
    captured_tree(&r);
    r.write("sub/.gitattributes", "*.txt -text\n");
    let ours = captured_tree(&r);
    // git's tree, with the t3 rule given to git as its own.
    std::fs::write(r.root.join(".git/info/exclude"), ".gitattributes\n*\n").unwrap();
    assert_eq!(ours, r.oracle_tree(), "a t3-ignored .gitattributes");
}

#[test]
fn a_first_capture_does_not_trust_the_users_index_after_an_attribute_change() {
    let r = TestRepo::seeded();
    r.write_bytes("dos.txt", b"a\r\nb\r\n");
    r.commit_all("crlf in HEAD");
    // The user's index says dos.txt is clean; the new rule says otherwise
    // (git status does not see it either: that is what --renormalize is
    // for), and git add -A into a fresh index converts it.
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let f = std::fs::File::options()
        .append(true)
        .open(r.root.join("dos.txt"))
        .unwrap();
    f.set_modified(past).unwrap();
    drop(f);
    r.wait_past_ctime(&r.root.join("dos.txt"));
    r.git(&["update-index", "--refresh"]);
    r.write(".gitattributes", "*.txt text\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let tree = r.ref_tree(&crate::util::ref_for(THREAD, 0));
    assert_eq!(tree, r.oracle_tree());
    assert_eq!(r.git(&["cat-file", "-p", &format!("{tree}:dos.txt")]), "a\nb");
}

#[test]
fn untracked_files_outside_the_sparse_patterns_are_left_out_as_git_add_leaves_them() {
    for cone in [true, false] {
        let r = TestRepo::seeded();
        r.write("d/x", "x\n");
        r.write("e/y", "y\n");
        r.commit_all("folders");
        r.write("keep/a.txt", "untracked, outside\n");
        r.write("top.txt", "untracked, at the root\n");
        if cone {
            r.git(&["sparse-checkout", "set", "d"]);
        } else {
            r.git(&["sparse-checkout", "set", "--no-cone", "/*", "!/e/", "!/keep/"]);
        }
        // An untracked file where the folder's tracked files are gone.
        r.write("e/new.txt", "untracked, in a skipped folder\n");
        r.write("d/new.txt", "untracked, inside\n");
        let ours = captured_tree(&r);
        let listed = r.git(&["ls-tree", "-r", "--name-only", &ours]);
        assert!(
            listed.contains("d/new.txt") && listed.contains("top.txt"),
            "cone {cone}: {listed}"
        );
        assert!(
            !listed.contains("keep/a.txt") && !listed.contains("e/new.txt"),
            "cone {cone}: {listed}"
        );
        assert!(listed.contains("e/y"), "cone {cone}: HEAD's entry kept: {listed}");
        cold(&r);
        assert_eq!(captured_tree(&r), ours, "cone {cone}: cold");
    }
}

#[test]
fn untracked_files_beside_skip_worktree_files_are_captured_without_a_sparse_checkout() {
    let r = TestRepo::seeded();
    r.write("s/one", "1\n");
    r.write("s/two", "2\n");
    r.commit_all("s");
    r.git(&["update-index", "--skip-worktree", "s/one", "s/two"]);
    r.remove("s/one");
    r.remove("s/two");
    r.write("s/new.txt", "git add -A takes it\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let tree = r.ref_tree(&crate::util::ref_for(THREAD, 0));
    // git's add -A takes the new file; the absent marked files keep the
    // index's entries (DESIGN), where git's fresh index would drop them.
    let listed = r.git(&["ls-tree", "-r", "--name-only", &tree]);
    assert_eq!(
        listed.lines().filter(|l| l.starts_with("s/")).collect::<Vec<_>>(),
        ["s/new.txt", "s/one", "s/two"]
    );
    r.write("s/newer.txt", "and this\n");
    let warm = captured_tree(&r);
    assert!(
        r.git(&["ls-tree", "-r", "--name-only", &warm])
            .contains("s/newer.txt")
    );
    cold(&r);
    assert_eq!(captured_tree(&r), warm, "cold");
}

#[test]
fn a_first_capture_does_not_trust_the_users_index_after_a_line_ending_setting_changed() {
    let r = TestRepo::seeded();
    r.write("lf.txt", "one\ntwo\n");
    r.commit_all("lf");
    // Checked out under core.autocrlf=true: CRLF on disk, and the user's
    // index says the file is clean (it is, under that setting).
    r.git(&["config", "core.autocrlf", "true"]);
    r.remove("lf.txt");
    r.git(&["checkout", "--", "lf.txt"]);
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let f = std::fs::File::options()
        .append(true)
        .open(r.root.join("lf.txt"))
        .unwrap();
    f.set_modified(past).unwrap();
    drop(f);
    r.wait_past_ctime(&r.root.join("lf.txt"));
    r.git(&["update-index", "--refresh"]);
    // Without the setting, git add -A into a fresh index records the CRLF.
    r.git(&["config", "core.autocrlf", "false"]);
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let tree = r.ref_tree(&crate::util::ref_for(THREAD, 0));
    assert_eq!(tree, r.oracle_tree());
    let crlf = r.hash_object(&["--no-filters"], b"one\r\ntwo\r\n");
    assert_eq!(r.git(&["rev-parse", &format!("{tree}:lf.txt")]), crlf);
}

#[test]
fn a_revert_that_changes_the_attributes_rewrites_the_files_they_governed() {
    let r = TestRepo::seeded();
    r.write_bytes("src/b.txt", b"b\r\nb\r\n");
    r.commit_all("crlf in HEAD");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    // Under an ignored `*.txt text` rule the turn records b.txt with LF...
    std::fs::write(r.root.join(".git/info/exclude"), ".gitattributes\n").unwrap();
    r.write(".gitattributes", "*.txt text\n");
    let turn = r.t3_json(&["capture", "--thread", THREAD])["turn"]
        .as_u64()
        .unwrap();
    // ...then the rule is seen, captured, and the revert takes it away: the
    // file must be what that turn recorded, under the attributes it leaves.
    std::fs::write(r.root.join(".git/info/exclude"), "").unwrap();
    captured_tree(&r);
    revert_files(&r, turn);
    assert!(!r.root.join(".gitattributes").exists());
    assert_eq!(std::fs::read(r.root.join("src/b.txt")).unwrap(), b"b\nb\n");
    let target = r.ref_tree(&crate::util::ref_for(THREAD, turn));
    assert_eq!(r.oracle_tree(), target);
}

#[test]
fn a_revert_reads_an_ignored_attributes_file_as_gits_checkout_does() {
    let r = TestRepo::seeded();
    r.git(&["config", "core.autocrlf", "true"]);
    std::fs::write(r.root.join(".git/info/exclude"), ".gitattributes\n").unwrap();
    r.write(".gitattributes", "* -text\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("notes.txt", "one\ntwo\n");
    let turn = r.t3_json(&["capture", "--thread", THREAD])["turn"]
        .as_u64()
        .unwrap();
    r.write("notes.txt", "changed\n");
    captured_tree(&r);
    revert_files(&r, turn);
    // `-text` from the worktree's (ignored) .gitattributes: no CRLF, as
    // git's checkout writes it.
    assert_eq!(std::fs::read(r.root.join("notes.txt")).unwrap(), b"one\ntwo\n");
    assert_eq!(r.oracle_tree(), r.ref_tree(&crate::util::ref_for(THREAD, turn)));
}

#[test]
fn a_t3ignore_a_revert_keeps_keeps_its_rules_for_what_else_it_keeps() {
    let r = TestRepo::seeded();
    std::fs::write(r.root.join(".git/info/t3-exclude"), "*\n").unwrap();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    // `.t3ignore` takes back the .txt files; it is itself t3-ignored.
    r.write(".t3ignore", "!*.txt\n");
    r.write("notes.txt", "captured\n");
    let tree = captured_tree(&r);
    assert!(r.git(&["ls-tree", "--name-only", &tree]).contains("notes.txt"));
    r.t3(&["revert", "--thread", THREAD, "--to", "0", "--files-only"])
        .ok();
    // `.t3ignore` stays (the turn's rules ignore it), so its rules still
    // hold: notes.txt, captured by them, is the turn's to take away.
    assert!(r.root.join(".t3ignore").exists());
    assert!(!r.root.join("notes.txt").exists(), "left behind");
    assert_eq!(captured_tree(&r), r.ref_tree(&crate::util::ref_for(THREAD, 0)));
}

#[test]
fn a_deleted_attributes_file_no_longer_applies_as_in_git() {
    let r = TestRepo::seeded();
    r.write(".gitattributes", "*.txt ident\n");
    r.write("sub/.gitattributes", "*.md ident\n");
    r.commit_all("attributes");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    // git add -A stages the deletions first: the rules are gone for the
    // files hashed after them, cold or warm.
    std::fs::remove_file(r.root.join(".gitattributes")).unwrap();
    std::fs::remove_dir_all(r.root.join("sub")).unwrap();
    std::fs::create_dir(r.root.join("sub")).unwrap();
    r.write("new.txt", "$Id: kept as written $\n");
    r.write("sub/new.md", "$Id: kept as written $\n");
    assert_eq!(captured_tree(&r), r.oracle_tree(), "warm");
    cold(&r);
    r.write("more.txt", "$Id: also kept $\n");
    assert_eq!(captured_tree(&r), r.oracle_tree(), "cold");
}
