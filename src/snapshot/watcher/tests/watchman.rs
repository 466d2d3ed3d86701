//! Watchman: the real one when it is installed, and a stand-in for its
//! client.

use super::*;
use crate::testing::git;

/// Whether `watchman` can be run; when it cannot, the test is skipped,
/// unless `T3_REQUIRE_WATCHMAN=1` (CI) makes that a failure.
fn watchman_or_skip(test: &str) -> bool {
    let found = Command::new("watchman")
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

/// Stops watching `0` when dropped (also when a test fails).
struct WatchDel(PathBuf);

impl Drop for WatchDel {
    fn drop(&mut self) {
        let _ = Command::new("watchman")
            .arg("watch-del")
            .arg(&self.0)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap()
}

#[test]
fn watchman_reports_changes_since_its_clock() {
    if !watchman_or_skip("watchman_reports_changes_since_its_clock") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = real(dir.path());
    git(&root, &["init", "-q"]);
    let _unwatch = WatchDel(root.clone());
    std::fs::write(root.join("a"), "a").unwrap();
    std::fs::create_dir_all(root.join("d")).unwrap();
    std::fs::write(root.join("d/b"), "b").unwrap();
    std::fs::write(root.join("gone"), "x").unwrap();
    std::fs::create_dir_all(root.join("old/deep")).unwrap();
    std::fs::write(root.join("old/deep/f"), "f").unwrap();

    let w = Watcher::Watchman;
    let start = Instant::now();
    let first = w.changes(&root, None).unwrap();
    eprintln!(
        "watchman: first use (watch-project + clock) took {:?}",
        start.elapsed()
    );
    assert_eq!(first.paths, None);
    let clock = first.token.unwrap();
    assert!(clock.starts_with("c:"), "{clock}");

    std::fs::write(root.join("a"), "changed").unwrap();
    std::fs::write(root.join("new"), "n").unwrap();
    std::fs::remove_file(root.join("gone")).unwrap();
    std::fs::remove_file(root.join("d/b")).unwrap();
    std::fs::create_dir_all(root.join("e/f")).unwrap();
    std::fs::write(root.join("e/f/g"), "g").unwrap();
    std::fs::rename(root.join("old"), root.join("moved")).unwrap();
    let outside = tempfile::tempdir_in(root.parent().unwrap()).unwrap();
    std::fs::create_dir_all(outside.path().join("x/y")).unwrap();
    std::fs::write(outside.path().join("x/y/z"), "z").unwrap();
    std::fs::rename(outside.path().join("x"), root.join("came-in")).unwrap();
    std::fs::write(root.join(".git/t3-test"), "x").unwrap();
    git(&root, &["add", "-A"]);

    let start = Instant::now();
    let next = w.changes(&root, Some(&clock)).unwrap();
    eprintln!(
        "watchman: a query (watch-project + query) took {:?}",
        start.elapsed()
    );
    let changed = next.paths.unwrap();
    for p in [
        "a",
        "new",
        "gone",
        "d",
        "d/b",
        "e",
        "e/f",
        "e/f/g",
        "old",
        "moved",
        "moved/deep/f",
        "old/deep/f",
        "came-in",
        "came-in/y",
        "came-in/y/z",
    ] {
        assert!(changed.iter().any(|c| c == p), "{p} not in {changed:?}");
    }
    assert!(!changed.iter().any(|c| c.starts_with(b".git")), "{changed:?}");
    assert!(!next.subtrees);
    let clock2 = next.token.unwrap();
    assert_ne!(clock, clock2);

    // Nothing since.
    let quiet = w.changes(&root, Some(&clock2)).unwrap();
    assert_eq!(quiet.paths, Some(vec![]));

    // Not a clock of ours: first use.
    for token in ["tok-from-a-hook", "1700000000", "n:cursor"] {
        let c = w.changes(&root, Some(token)).unwrap();
        assert_eq!(c.paths, None, "{token}");
        assert!(c.token.is_some_and(|t| t.starts_with("c:")));
    }

    // The watch is gone (and so is its history): a fresh instance.
    drop(WatchDel(root.clone()));
    let fresh = w.changes(&root, Some(&clock2)).unwrap();
    assert_eq!(fresh.paths, None);
    let clock3 = fresh.token.unwrap();
    std::fs::write(root.join("after"), "x").unwrap();
    let after = w.changes(&root, Some(&clock3)).unwrap();
    assert_eq!(after.paths, paths(&[b"after"]));
}

#[test]
fn watchman_below_a_project_root() {
    if !watchman_or_skip("watchman_below_a_project_root") {
        return;
    }
    // A `.watchmanconfig` above makes Watchman watch there; the answer
    // is still relative to the worktree, and its `.git` is left out.
    let dir = tempfile::tempdir().unwrap();
    let outer = real(dir.path());
    std::fs::write(outer.join(".watchmanconfig"), "{}").unwrap();
    let root = outer.join("inner");
    std::fs::create_dir(&root).unwrap();
    git(&root, &["init", "-q"]);
    let _unwatch = WatchDel(outer.clone());
    let w = Watcher::Watchman;
    let clock = w.changes(&root, None).unwrap().token.unwrap();
    std::fs::write(root.join("x"), "x").unwrap();
    std::fs::write(root.join(".git/y"), "y").unwrap();
    std::fs::write(outer.join("z"), "z").unwrap();
    let c = w.changes(&root, Some(&clock)).unwrap();
    assert_eq!(c.paths, paths(&[b"x"]));
}

#[test]
fn watchman_missing() {
    let ask = Ask {
        timeout: Duration::from_secs(1),
        watchman: OsStr::new("/nonexistent/watchman"),
    };
    let dir = tempfile::tempdir().unwrap();
    let e = Watcher::Watchman
        .changes_with(dir.path(), None, &ask)
        .unwrap_err();
    assert!(matches!(e, WatchError::WatchmanMissing), "{e:?}");
    assert!(e.to_string().starts_with("watchman is not installed"));
}

#[test]
fn watchman_errors_and_odd_answers() {
    // A stand-in for the client: what it answers, and how it exits.
    let dir = tempfile::tempdir().unwrap();
    let fake = |body: &str| {
        let p = hook(dir.path(), "watchman", body);
        let ask = Ask {
            timeout: Duration::from_secs(10),
            watchman: p.as_os_str(),
        };
        Watcher::Watchman.changes_with(dir.path(), Some("c:1:2"), &ask)
    };
    let e = fake(r#"echo '{"version":"4.9.0","error":"unable to resolve root"}'; exit 1"#).unwrap_err();
    assert_eq!(e.to_string(), "watchman: unable to resolve root");
    let e = fake("echo 'cannot connect' >&2; exit 1").unwrap_err();
    assert_eq!(e.to_string(), "watchman exited with 1: cannot connect");
    let e = fake("echo '[1]'").unwrap_err();
    assert!(matches!(e, WatchError::Malformed { .. }), "{e:?}");
    // One answer for both calls: a root, a clock, and files.
    let answer = |files: &str, fresh: &str| {
        format!(r#"echo '{{"watch":"/w","clock":"c:1:3","is_fresh_instance":{fresh},"files":{files}}}'"#)
    };
    let c = fake(&answer(r#"["b","a",".git/x","a"]"#, "false")).unwrap();
    // The token keeps the project root it was taken in.
    assert_eq!(c.token.as_deref(), Some("c:1:3\t/w\t"));
    assert_eq!(c.paths, paths(&[b"a", b"b"]));
    let c = fake(&answer(r#"["a","/etc"]"#, "false")).unwrap();
    assert_eq!(c.paths, None);
    let c = fake(&answer("[]", "true")).unwrap();
    assert_eq!((c.token.as_deref(), c.paths), (Some("c:1:3\t/w\t"), None));
    let e = fake(&answer(r#"[{"name":"a"}]"#, "false")).unwrap_err();
    assert!(matches!(e, WatchError::Malformed { .. }), "{e:?}");
    // What it was sent: one JSON command per call, on stdin.
    let log = dir.path().join("requests");
    fake(&format!(
        "cat >> '{}'; echo >> '{}'; {}",
        log.display(),
        log.display(),
        answer("[]", "false")
    ))
    .unwrap();
    let sent = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<Value> = sent.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "{sent}");
    assert_eq!(
        lines.first(),
        Some(&json!(["watch-project", dir.path().to_str().unwrap()]))
    );
    assert_eq!(
        lines.get(1),
        Some(&json!(["query", "/w", {
            "since": "c:1:2",
            "fields": ["name"],
            "expression": ["not", ["anyof", ["dirname", ".git"], ["name", ".git", "wholename"]]],
            "empty_on_fresh_instance": true,
            "sync_timeout": 8000,
            "lock_timeout": 8000,
        }]))
    );
}

#[test]
fn watchman_token_naming_the_project_sends_the_query_alone() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("requests");
    // A token naming this worktree's project: the query alone.
    let here = std::fs::canonicalize(dir.path()).unwrap();
    let root = here.parent().unwrap().to_str().unwrap().to_owned();
    let name = here.file_name().unwrap().to_str().unwrap().to_owned();
    let token = format!("c:1:2\t{root}\t{name}");
    let logged = |body: &str| {
        let _ = std::fs::remove_file(&log);
        let p = hook(
            dir.path(),
            "watchman",
            &format!("cat >> '{}'; echo >> '{}'; {body}", log.display(), log.display()),
        );
        let ask = Ask {
            timeout: Duration::from_secs(10),
            watchman: p.as_os_str(),
        };
        let got = Watcher::Watchman.changes_with(dir.path(), Some(&token), &ask);
        let sent = std::fs::read_to_string(&log).unwrap();
        let sent: Vec<Value> = sent.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (got, sent)
    };
    let answer_at = format!(
        r#"echo '{{"watch":"{root}","relative_path":"{name}","clock":"c:1:4","is_fresh_instance":false,"files":["x"]}}'"#
    );
    let (got, sent) = logged(&answer_at);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0][0], "query");
    assert_eq!(sent[0][1], root.as_str());
    assert_eq!(sent[0][2]["relative_root"], name.as_str());
    let got = got.unwrap();
    assert_eq!(got.paths, paths(&[b"x"]));
    assert_eq!(got.token, Some(format!("c:1:4\t{root}\t{name}")));
    // Watchman no longer watches there: the whole way (watch-project,
    // then the query).
    let (got, sent) = logged(&format!(
        r#"if grep -q watch-project '{}'; then {answer_at}; else echo '{{"error":"unable to resolve root"}}'; exit 1; fi"#,
        log.display()
    ));
    assert_eq!(sent.len(), 3, "{sent:?}");
    assert_eq!(sent[1][0], "watch-project");
    assert_eq!(got.unwrap().paths, paths(&[b"x"]));
    // A token of another worktree's project: the whole way at once.
    let other = "c:1:2\t/elsewhere\t".to_owned();
    let p = hook(dir.path(), "watchman", &answer_at);
    let ask = Ask {
        timeout: Duration::from_secs(10),
        watchman: p.as_os_str(),
    };
    assert!(
        Watcher::Watchman
            .changes_with(dir.path(), Some(&other), &ask)
            .is_ok()
    );
}

#[test]
fn watchman_tokens_keep_their_project() {
    let p = Project {
        root: "/w".into(),
        relative: Some("sub/dir".into()),
    };
    assert_eq!(p.token("c:1:2"), "c:1:2\t/w\tsub/dir");
    assert_eq!(
        Token::parse(&p.token("c:1:2")),
        Token {
            clock: "c:1:2".into(),
            project: Some(p.clone())
        }
    );
    let top = Project {
        root: "/w".into(),
        relative: None,
    };
    assert_eq!(Token::parse(&top.token("c:9")).project, Some(top.clone()));
    // Names that do not fit on the line: the clock alone.
    let odd = Project {
        root: "/w\tx".into(),
        relative: None,
    };
    assert_eq!(odd.token("c:1"), "c:1");
    // Older tokens, and odd ones, have no project.
    for t in ["c:1:2", "c:1\trelative\tx", "c:1\t/w", "c:1\t/w\tx\ty"] {
        assert_eq!(Token::parse(t).project, None, "{t}");
    }
    assert!(p.is(Path::new("/w/sub/dir")));
    assert!(!p.is(Path::new("/w/sub")));
}
