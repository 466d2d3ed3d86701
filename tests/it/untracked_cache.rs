//! The untracked-walk cache: a directory whose stat data did not change is
//! not read again, and every way its cached listing can go stale makes it
//! read again. Each capture is checked against git's own tree (a private
//! index from HEAD, `add -A`, `write-tree`: what `oracle/ref-capture` does).

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::util::{THREAD, TestRepo};

/// Capture, check the tree against git's, and return how many directories
/// the untracked walk read (from the trace).
#[track_caller]
fn capture_checked(r: &TestRepo, what: &str) -> (u64, u64) {
    let trace = capture_traced(r, what);
    dirs_read(&trace).unwrap_or_else(|| panic!("{what}: no untracked-walk trace in {trace}"))
}

/// `(read, of)` from the trace line `untracked walk: read R of N directories`.
fn dirs_read(stderr: &str) -> Option<(u64, u64)> {
    let line = stderr.lines().find(|l| l.contains("untracked walk: read"))?;
    let mut words = line.split_whitespace().skip_while(|w| *w != "read").skip(1);
    let read = words.next()?.parse().ok()?;
    let of = words.nth(1)?.parse().ok()?;
    Some((read, of))
}

fn set_mtime(path: &Path, t: SystemTime) {
    std::fs::File::open(path).unwrap().set_modified(t).unwrap();
}

fn mtime(path: &Path) -> SystemTime {
    std::fs::symlink_metadata(path).unwrap().modified().unwrap()
}

/// A repository with a few levels of untracked and ignored directories, all
/// dated an hour ago (so nothing is racy), with a first capture done.
fn settled() -> TestRepo {
    let r = TestRepo::seeded();
    for (path, data) in [
        ("a/b/c/tracked.txt", "t\n"),
        ("a/b/c/untracked.txt", "u\n"),
        ("a/b/d/x.tmp", "scratch\n"),
        ("a/e/notes.md", "n\n"),
        ("lib/one.rs", "1\n"),
        ("lib/two/three.rs", "3\n"),
        ("z/deep/er/file.txt", "f\n"),
    ] {
        r.write(path, data);
    }
    r.write("a/.gitignore", "*.tmp\n");
    r.git(&["add", "a/b/c/tracked.txt", "a/.gitignore"]);
    r.git(&["commit", "-q", "-m", "tracked"]);
    settle(&r);
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let (read, of) = capture_checked(&r, "a second capture");
    assert!(of > 10, "the walk saw {of} directories");
    assert!(
        read < of,
        "a settled second capture read all {of} directories again"
    );
    r
}

/// Date every directory and file of the worktree an hour back.
fn settle(r: &TestRepo) {
    let past = SystemTime::now() - Duration::from_secs(3600);
    fn walk(dir: &Path, t: SystemTime) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            let ty = e.file_type().unwrap();
            if p.file_name().is_some_and(|n| n == ".git") || ty.is_symlink() {
                continue;
            }
            if ty.is_dir() {
                walk(&p, t);
            }
            set_mtime(&p, t);
        }
    }
    walk(&r.root, past);
    set_mtime(&r.root, past);
    // Setting an mtime sets the ctime to now: a walk starting within the
    // same file-system timestamp would rightly find them all racy.
    r.wait_past_ctime(&r.root);
}

#[test]
fn an_unchanged_directory_is_not_read_again() {
    let r = settled();
    let (read, _) = capture_checked(&r, "nothing changed");
    assert!(read <= 1, "read {read} directories with nothing changed");
    // A new file changes its directory's mtime: that directory is read.
    r.write("z/deep/er/new.txt", "new\n");
    let (read, _) = capture_checked(&r, "a new file deep down");
    assert!(read >= 1, "the changed directory was not read");
    r.remove("lib/two/three.rs");
    capture_checked(&r, "a file removed");
    std::fs::create_dir_all(r.root.join("lib/two/four/five")).unwrap();
    r.write("lib/two/four/five/six.rs", "6\n");
    capture_checked(&r, "a new directory tree");
}

#[test]
fn a_new_file_in_a_racy_directory_is_seen_though_its_mtime_did_not_change() {
    let r = settled();
    // A directory whose mtime is not older than the walk that records it
    // may change again within the same timestamp after it was read, so its
    // listing is never trusted. Seen here with a future mtime…
    let dir = r.root.join("z/deep/er");
    let racy = SystemTime::now() + Duration::from_secs(3600);
    set_mtime(&dir, racy);
    capture_checked(&r, "the racy directory recorded");
    r.write("z/deep/er/late.txt", "written within the timestamp\n");
    set_mtime(&dir, racy);
    capture_checked(&r, "a file added without a visible mtime change");
    // …and as on a file system with one-second timestamps (ext3, HFS+,
    // some network file systems), where a file created in the same second
    // as the capture that read its directory changes neither the
    // directory's mtime nor its ctime.
    r.extra_env_set("T3_TEST_COARSE_TIMESTAMPS", "1");
    capture_checked(&r, "coarse timestamps");
    let mut within = 0;
    for attempt in 0..30 {
        // Start early in a second, so capture and edit can share it.
        while SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .subsec_millis()
            > 150
        {
            std::thread::sleep(Duration::from_millis(10));
        }
        let second = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        r.write(&format!("racy{attempt}/first.txt"), "1\n");
        r.t3(&["capture", "--thread", THREAD]).ok();
        r.write(&format!("racy{attempt}/second.txt"), "2\n");
        let after = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        capture_checked(&r, "a file written in the same second as the capture before");
        if after == second {
            within += 1;
            if within == 3 {
                break;
            }
        }
    }
    assert!(within > 0, "no capture and edit ever shared a second");
}

#[test]
fn a_gitignore_edited_in_a_parent_reads_the_directories_below_again() {
    let r = settled();
    // a/b/d/x.tmp is ignored by a/.gitignore; editing that file in place
    // changes neither a/ nor a/b/d/'s mtime.
    let a = r.root.join("a");
    let a_time = mtime(&a);
    std::fs::write(a.join(".gitignore"), "*.md\n").unwrap();
    set_mtime(&a, a_time);
    capture_checked(&r, ".gitignore edited in place");
    // And back, with the file's own mtime put back too (its ctime moves).
    let ignore_time = mtime(&a.join(".gitignore"));
    std::fs::write(a.join(".gitignore"), "*.tmp\n").unwrap();
    set_mtime(&a.join(".gitignore"), ignore_time);
    set_mtime(&a, a_time);
    capture_checked(&r, ".gitignore edited back, mtime put back");
    // A .gitignore created in an untracked directory deep down.
    let e = r.root.join("a/e");
    let e_time = mtime(&e);
    r.write("a/e/.gitignore", "notes.md\n");
    set_mtime(&e, e_time);
    capture_checked(&r, "a new .gitignore");
}

#[test]
fn changed_global_ignore_rules_read_everything_again() {
    let r = settled();
    let excludes = r.tmp().join("global-excludes");
    std::fs::write(&excludes, "*.rs\n").unwrap();
    r.git(&["config", "core.excludesFile", excludes.to_str().unwrap()]);
    let (read, of) = capture_checked(&r, "core.excludesFile set");
    assert_eq!(read, of, "new rules must read every directory");
    std::fs::write(&excludes, "*.txt\n").unwrap();
    capture_checked(&r, "core.excludesFile edited");
    let other = r.tmp().join("other-excludes");
    std::fs::write(&other, "notes.md\n").unwrap();
    r.git(&["config", "core.excludesFile", other.to_str().unwrap()]);
    capture_checked(&r, "core.excludesFile pointed elsewhere");
    r.git(&["config", "--unset", "core.excludesFile"]);
    capture_checked(&r, "core.excludesFile unset");
    std::fs::write(r.root.join(".git/info/exclude"), "lib/\n").unwrap();
    capture_checked(&r, "info/exclude edited");
    std::fs::write(r.root.join(".git/info/exclude"), "").unwrap();
    capture_checked(&r, "info/exclude emptied");
}

#[test]
fn a_directory_replaced_by_a_symlink_and_back() {
    let r = settled();
    // An untracked directory becomes a symlink to a directory.
    let lib = r.root.join("lib");
    let parent_time = mtime(&r.root);
    std::fs::rename(&lib, r.root.join("lib-moved")).unwrap();
    std::os::unix::fs::symlink("z", &lib).unwrap();
    capture_checked(&r, "an untracked directory replaced by a symlink");
    // And the symlink by a directory again, the parent's mtime put back.
    std::fs::remove_file(&lib).unwrap();
    std::fs::create_dir(&lib).unwrap();
    r.write("lib/back.rs", "b\n");
    set_mtime(&r.root, parent_time);
    capture_checked(&r, "the symlink replaced by a directory");
    // A directory holding tracked files becomes a symlink.
    let c = r.root.join("a/b/c");
    std::fs::remove_dir_all(&c).unwrap();
    std::os::unix::fs::symlink("../e", &c).unwrap();
    capture_checked(&r, "a tracked directory replaced by a symlink");
}

#[test]
fn head_moving_and_nested_repositories_are_seen() {
    let r = settled();
    // Committing an untracked file makes it tracked; checking out the old
    // commit makes it untracked again, with no directory mtime changed.
    r.git(&["add", "a/b/c/untracked.txt"]);
    r.git(&["commit", "-q", "-m", "track it"]);
    capture_checked(&r, "a file became tracked");
    r.git(&["rm", "-q", "--cached", "a/b/c/untracked.txt"]);
    r.git(&["commit", "-q", "-m", "untrack it"]);
    capture_checked(&r, "a file became untracked");
    // A repository initialised inside an untracked directory.
    let z = r.root.join("lib");
    let z_time = mtime(&z);
    r.git_in(&z, &["init", "-q"]).ok();
    set_mtime(&z, z_time);
    capture_checked(&r, "a nested repository appeared");
    std::fs::remove_dir_all(z.join(".git")).unwrap();
    set_mtime(&z, z_time);
    capture_checked(&r, "the nested repository went away");
}

/// A fake fsmonitor hook (protocol 2): it logs the token git-t3 asks it
/// with (git, which runs it too, is not logged) and answers what the test put in `answer` (or fails when that file
/// is missing).
struct Hook {
    log: std::path::PathBuf,
    answer: std::path::PathBuf,
}

impl Hook {
    fn install(r: &TestRepo) -> Hook {
        let dir = r.tmp().join("hook");
        std::fs::create_dir_all(&dir).unwrap();
        let (log, answer) = (dir.join("log"), dir.join("answer"));
        let script = dir.join("fsmonitor");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\ncase $(cat /proc/$PPID/comm) in git-t3*) printf '%s\\n' \"$1 $2\" >> '{}';; esac\nexec cat '{}'\n",
                log.display(),
                answer.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        r.git(&["config", "core.fsmonitor", script.to_str().unwrap()]);
        Hook { log, answer }
    }

    /// Answer `token` and `paths` next time.
    fn answer(&self, token: &str, paths: &[&str]) {
        let mut out = format!("{token}\0");
        for p in paths {
            out.push_str(p);
            out.push('\0');
        }
        std::fs::write(&self.answer, out).unwrap();
    }

    /// The last token asked with.
    fn last_asked(&self) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        log.lines().last().unwrap_or_default().to_owned()
    }
}

/// Capture with the trace on; the tree is checked against git's.
#[track_caller]
fn capture_traced(r: &TestRepo, what: &str) -> String {
    let run = r
        .t3_env(&["capture", "--thread", THREAD, "--json"], &[("T3_TRACE", "1")])
        .ok();
    let reference = run.json()["ref"].as_str().unwrap().to_owned();
    assert_eq!(
        r.ref_tree(&reference),
        r.oracle_tree(),
        "{what}: the capture differs from git's tree\n{}",
        run.stderr
    );
    run.stderr
}

#[test]
fn a_watcher_is_asked_since_its_token_and_its_reset_walks_everything() {
    let r = settled();
    let hook = Hook::install(&r);
    // First use: asked with an empty token, only the token counts.
    hook.answer("t1", &[]);
    let trace = capture_traced(&r, "first use of the hook");
    assert_eq!(hook.last_asked(), "2 ");
    assert!(trace.contains("everything may have changed"), "{trace}");
    // Then asked since t1; what it lists is looked at.
    r.write("README.md", "# demo\n\nchanged\n");
    r.write("z/deep/er/new.txt", "new\n");
    hook.answer("t2", &["README.md", "z/deep/er/new.txt", "z/deep/er"]);
    let trace = capture_traced(&r, "the listed changes");
    assert_eq!(hook.last_asked(), "2 t1");
    assert!(trace.contains("watcher listed 3 paths"), "{trace}");
    let (read, _) = dirs_read(&trace).unwrap();
    assert!(read <= 2, "read {read} directories for one listed one:\n{trace}");
    // What it does not list is not even looked at: a watcher is trusted,
    // as git trusts it.
    r.write("src/lib.rs", "unlisted\n");
    hook.answer("t3", &[]);
    let run = r.t3_json(&["capture", "--thread", THREAD]);
    let turn = run["turn"].as_u64().unwrap();
    let shown = r.git(&[
        "show",
        &format!("{}:src/lib.rs", crate::util::ref_for(THREAD, turn)),
    ]);
    assert_ne!(
        shown, "unlisted",
        "an unlisted file was looked at: the watcher went unused"
    );
    assert_eq!(hook.last_asked(), "2 t2");
    // A token reset ("/": everything may have changed) walks everything,
    // and so does a hook that fails; both then see what went unlisted.
    hook.answer("t4", &["/"]);
    let trace = capture_traced(&r, "after a token reset");
    assert!(trace.contains("everything may have changed"), "{trace}");
    r.write("lib/one.rs", "changed while the watcher failed\n");
    std::fs::remove_file(&hook.answer).unwrap();
    let run = r
        .t3_env(&["capture", "--thread", THREAD], &[("T3_TRACE", "1")])
        .ok();
    assert!(
        run.stderr.contains("the whole worktree was walked instead"),
        "{}",
        run.stderr
    );
    assert_eq!(
        r.ref_tree(&crate::util::ref_for(THREAD, turn + 2)),
        r.oracle_tree()
    );
    // After a failure there is no token: the next ask is a first use.
    hook.answer("t5", &[]);
    capture_traced(&r, "after the failure");
    assert_eq!(hook.last_asked(), "2 ");
}

#[test]
fn a_watcher_token_is_used_only_with_the_cache_it_was_taken_for() {
    let r = settled();
    let hook = Hook::install(&r);
    hook.answer("t1", &[]);
    capture_traced(&r, "first use");
    // The cache goes away (or is damaged): the token is not used.
    std::fs::remove_file(r.root.join(".git/t3/index.dirs")).unwrap();
    r.write("a/e/notes.md", "changed, unlisted\n");
    hook.answer("t2", &[]);
    let trace = capture_traced(&r, "without index.dirs");
    assert_eq!(hook.last_asked(), "2 ", "{trace}");
    // Another watcher's token is not given to this one.
    let other = r.tmp().join("other-hook");
    std::fs::copy(r.tmp().join("hook/fsmonitor"), &other).unwrap();
    r.git(&["config", "core.fsmonitor", other.to_str().unwrap()]);
    r.write("a/e/notes.md", "changed again, unlisted\n");
    hook.answer("t3", &[]);
    capture_traced(&r, "another hook");
    assert_eq!(hook.last_asked(), "2 ");
    // HEAD moved: what became tracked is looked at though nothing is listed.
    r.git(&["add", "lib/one.rs"]);
    r.git(&["commit", "-q", "-m", "track lib/one.rs"]);
    hook.answer("t4", &[]);
    capture_traced(&r, "HEAD moved, nothing listed");
}

/// Whether `watchman` runs here; with `T3_REQUIRE_WATCHMAN=1` (CI installs
/// it) its absence is a failure, not a skip.
fn watchman_or_skip(test: &str) -> bool {
    let found = std::process::Command::new("watchman")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("T3_REQUIRE_WATCHMAN").is_none_or(|v| v != "1"),
            "T3_REQUIRE_WATCHMAN=1, but watchman is not on PATH"
        );
        eprintln!("skipping {test}: watchman is not on PATH");
    }
    found
}

#[test]
fn captures_with_watchman_equal_git() {
    if !watchman_or_skip("captures_with_watchman_equal_git") {
        return;
    }
    let r = settled();
    let root = std::fs::canonicalize(&r.root).unwrap();
    struct Unwatch(std::path::PathBuf);
    impl Drop for Unwatch {
        fn drop(&mut self) {
            let _ = std::process::Command::new("watchman")
                .arg("watch-del")
                .arg(&self.0)
                .output();
        }
    }
    let _unwatch = Unwatch(root);
    r.git(&["config", "t3.fsmonitor", "watchman"]);
    let trace = capture_traced(&r, "first use of watchman");
    assert!(trace.contains("everything may have changed"), "{trace}");
    assert!(!trace.contains("walked instead"), "{trace}");
    let edits: [&dyn Fn(); 6] = [
        &|| r.write("README.md", "# changed under watchman\n"),
        &|| r.write("z/deep/er/brand/new.txt", "new dir\n"),
        &|| r.remove("a/b/c/untracked.txt"),
        &|| {
            std::fs::rename(r.root.join("lib/two"), r.root.join("lib/renamed")).unwrap();
        },
        &|| r.write("a/.gitignore", "*.md\n"),
        &|| {
            std::fs::remove_dir_all(r.root.join("a/b/c")).unwrap();
            std::os::unix::fs::symlink("../e", r.root.join("a/b/c")).unwrap();
        },
    ];
    for (i, edit) in edits.iter().enumerate() {
        edit();
        let trace = capture_traced(&r, &format!("watchman, edit {i}"));
        assert!(
            trace.contains("watcher listed"),
            "edit {i}: no focused walk\n{trace}"
        );
    }
}

#[test]
fn a_directory_that_becomes_a_repository_stays_in_the_capture() {
    let r = settled();
    r.write("u/x/f1", "1\n");
    settle(&r);
    capture_checked(&r, "u/x, a plain directory");
    capture_checked(&r, "u/x again");
    // Its parent does not change at all (not even its ctime): u/x is read
    // again on its own.
    r.git_in(&r.root.join("u/x"), &["init", "-q"]).ok();
    r.git_in(&r.root.join("u/x"), &["commit", "-q", "--allow-empty", "-m", "n"])
        .ok();
    capture_checked(&r, "u/x became a repository");
    capture_checked(&r, "and stays one");
}

#[test]
fn a_hook_listing_a_file_in_a_new_directory_finds_the_directory() {
    let r = settled();
    let hook = Hook::install(&r);
    hook.answer("t1", &[]);
    capture_traced(&r, "first use");
    hook.answer("t2", &[]);
    capture_traced(&r, "nothing changed");
    // A hook lists changed files; the new directories they are in are
    // found through the directories above them.
    r.write("a/b/new/deeper/f", "1\n");
    hook.answer("t3", &["a/b/new/deeper/f"]);
    capture_traced(&r, "a file in two new directories");
    hook.answer("t4", &[]);
    capture_traced(&r, "and after");
}

#[test]
fn a_capture_that_fails_before_publishing_leaves_no_cache_naming_its_objects() {
    let r = settled();
    let meta = r.root.join(".git/t3/cache");
    let before = std::fs::read(&meta).unwrap();
    r.write("README.md", "# changed, never published\n");
    r.write("z/new.txt", "new\n");
    // The checkpoint ref cannot move: the capture fails after writing its
    // objects and its cache files.
    let turn_dir = r.root.join(".git/refs/t3/checkpoints");
    std::fs::remove_dir_all(&turn_dir).unwrap();
    std::fs::write(&turn_dir, "not a directory\n").unwrap();
    let run = r.t3(&["capture", "--thread", THREAD]);
    assert_ne!(run.code, 0, "the capture did not fail: {}", run.stderr);
    assert_eq!(
        std::fs::read(&meta).unwrap(),
        before,
        "a failed capture bound its cache, whose objects it never flushed"
    );
    std::fs::remove_file(&turn_dir).unwrap();
    let run = r
        .t3_env(&["capture", "--thread", THREAD], &[("T3_TRACE", "1")])
        .ok();
    assert!(run.stderr.contains("cache rebuilt: true"), "{}", run.stderr);
}

/// With more than one core the untracked walk runs on a thread of its own
/// beside the status walk; on one core, after it: the same trees.
#[test]
fn the_untracked_walk_runs_beside_the_status_walk_or_after_it_on_one_core() {
    let r = TestRepo::seeded();
    for i in 0..300 {
        r.write(&format!("big/d{}/f{i}.txt", i % 30), &format!("{i}\n"));
    }
    r.git(&["add", "-A"]);
    r.git(&["commit", "-q", "-m", "many"]);
    settle(&r);
    r.t3(&["baseline", "--thread", THREAD]).ok();
    capture_checked(&r, "nothing changed");
    let mut turn = 1;
    for (round, one_cpu) in [(0, false), (1, true), (2, false), (3, true)] {
        r.write(&format!("big/d7/untracked{round}.txt"), "u\n");
        r.write(&format!("big/new{round}/deeper/n.txt"), "n\n");
        r.write("big/d3/f3.txt", &format!("changed {round}\n"));
        r.remove(&format!("big/d4/f{}.txt", 4 + 30 * round));
        let args = ["capture", "--thread", THREAD];
        let run = if one_cpu {
            r.t3_on_one_cpu(&args, &[("T3_TRACE", "1")]).ok()
        } else {
            r.t3_env(&args, &[("T3_TRACE", "1")]).ok()
        };
        turn += 1;
        let mode = if one_cpu { "after" } else { "beside" };
        let many_cores = std::thread::available_parallelism().map_or(1, usize::from) > 1;
        if one_cpu || many_cores {
            assert!(
                run.stderr
                    .contains(&format!("untracked walk ({mode} the status walk)")),
                "round {round}: {}",
                run.stderr
            );
        }
        assert_eq!(
            r.ref_tree(&crate::util::ref_for(THREAD, turn)),
            r.oracle_tree(),
            "round {round} ({mode}): the capture differs from git's tree"
        );
        let (read, of) = dirs_read(&run.stderr).unwrap();
        assert!(
            read >= 2 && read < of,
            "round {round}: read {read} of {of} directories"
        );
    }
}

/// With a watcher naming only files whose directories did not change, the
/// last walk's listing is kept as it is (`index.dirs` not even rewritten);
/// anything that changes a directory's listing walks it again.
#[test]
fn a_watcher_listing_only_edits_keeps_the_last_walk() {
    let r = settled();
    let hook = Hook::install(&r);
    hook.answer("t1", &[]);
    capture_traced(&r, "first use");
    let dirs = r.root.join(".git/t3/index.dirs");
    let written = std::fs::read(&dirs).unwrap();
    // Edits in place: a tracked file and an untracked one.
    r.write("README.md", "# demo\n\nedited in place\n");
    r.write("a/b/c/untracked.txt", "edited untracked\n");
    hook.answer("t2", &["README.md", "a/b/c/untracked.txt"]);
    let trace = capture_traced(&r, "in-place edits");
    assert!(trace.contains("index.dirs kept"), "{trace}");
    assert_eq!(dirs_read(&trace).map(|(read, _)| read), Some(0), "{trace}");
    assert_eq!(std::fs::read(&dirs).unwrap(), written);
    // The worktree root (which holds .git) is not volatile: nothing listed,
    // nothing read.
    hook.answer("t3", &[]);
    let trace = capture_traced(&r, "nothing listed");
    assert!(trace.contains("index.dirs kept"), "{trace}");
    // A new untracked file in a listed directory: that directory is read.
    r.write("lib/two/new.rs", "new\n");
    hook.answer("t4", &["lib/two/new.rs", "lib/two"]);
    let trace = capture_traced(&r, "a new file");
    assert!(!trace.contains("index.dirs kept"), "{trace}");
    // A removed untracked file and a new directory, listed as files only.
    r.remove("a/e/notes.md");
    r.write("a/e/sub/more.md", "more\n");
    hook.answer("t5", &["a/e/notes.md", "a/e/sub/more.md"]);
    capture_traced(&r, "a removal and a new directory");
    hook.answer("t6", &[]);
    let trace = capture_traced(&r, "settled again");
    assert!(trace.contains("index.dirs kept"), "{trace}");
}

/// A nested repository whose `.git` goes away becomes plain untracked
/// files, though the directory listing it changes nothing above it: at the
/// worktree root and below, with and without a watcher naming the `.git`.
#[test]
fn a_nested_repository_losing_its_git_dir_is_captured_as_files() {
    let r = settled();
    for (at, watched) in [("nested", false), ("lib/deeper", false), ("z/nested2", true)] {
        let dir = r.root.join(at);
        std::fs::create_dir_all(&dir).unwrap();
        r.git_in(&dir, &["init", "-q"]).ok();
        std::fs::write(dir.join("f"), "inside\n").unwrap();
        r.git_in(&dir, &["add", "f"]).ok();
        r.git_in(&dir, &["commit", "-q", "-m", "n"]).ok();
        settle(&r);
        let hook = watched.then(|| {
            let hook = Hook::install(&r);
            hook.answer("t1", &[]);
            capture_traced(&r, "first use of the hook");
            hook
        });
        capture_checked(&r, &format!("{at}: a nested repository"));
        capture_checked(&r, &format!("{at}: and again"));
        // Its parent's stat data does not change (not even its ctime).
        let parent = dir.parent().unwrap();
        let before = std::fs::symlink_metadata(parent).unwrap();
        std::fs::remove_dir_all(dir.join(".git")).unwrap();
        let after = std::fs::symlink_metadata(parent).unwrap();
        {
            use std::os::unix::fs::MetadataExt as _;
            assert_eq!(
                (before.mtime_nsec(), before.ctime_nsec()),
                (after.mtime_nsec(), after.ctime_nsec())
            );
        }
        if let Some(hook) = &hook {
            let git_dir = format!("{at}/.git");
            hook.answer("t2", &[&git_dir, at]);
        }
        capture_checked(&r, &format!("{at}: its .git removed"));
        if let Some(hook) = &hook {
            hook.answer("t3", &[]);
        }
        capture_checked(&r, &format!("{at}: plain files since"));
        if watched {
            r.git(&["config", "--unset", "core.fsmonitor"]);
        }
    }
}

#[test]
fn attribute_files_in_folders_first_seen_untracked_count_like_any_other() {
    let r = settled();
    r.git(&["config", "filter.up.clean", "tr a-z A-Z"]);
    r.git(&["config", "filter.up.smudge", "cat"]);
    // A new folder that brings its rule, captured with nothing racy (so
    // the next capture trusts what this one hashed), then that rule
    // removed, or changed in place with the same size. The filter keeps
    // the size, so only the attributes' fingerprint can tell.
    for (folder, change) in [("gone", None), ("changed", Some("*.txt filter=no\n"))] {
        r.write(&format!("{folder}/deep/b.txt"), "lower\n");
        r.write(&format!("{folder}/.gitattributes"), "*.txt filter=up\n");
        settle(&r);
        capture_checked(&r, &format!("{folder}: a new folder with its rule"));
        match change {
            Some(rule) => r.write(&format!("{folder}/.gitattributes"), rule),
            None => r.remove(&format!("{folder}/.gitattributes")),
        }
        capture_checked(&r, &format!("{folder}: its rule {change:?}"));
    }
    // A new folder with a file and no rule, then a rule added there.
    r.write_bytes("plain/a.txt", b"a\r\n");
    settle(&r);
    capture_checked(&r, "a new folder without rules");
    r.write("plain/.gitattributes", "* text eol=lf\n");
    capture_checked(&r, "a rule added to it");
}
