//! The unit tests of the watcher.

use std::io::Write as _;
use std::process::Stdio;

use super::*;

// --- hooks ------------------------------------------------------------

/// A hook script `name` in `dir` running `body` after recording its
/// arguments, `[arg]` each, into `dir/args`.
fn hook(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    let args = dir.join("args");
    let script = format!("#!/bin/sh\nprintf '[%s]' \"$@\" > '{}'\n{body}\n", args.display());
    // Written by another process: a file this one had open for writing
    // could be inherited by a child another test thread forks at that
    // moment, and exec'ing the script would fail with ETXTBSY.
    let mut writer = Command::new("/bin/sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(&path)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    writer.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    assert!(writer.wait().unwrap().success());
    path
}

fn args(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("args")).unwrap_or_default()
}

fn ask(watcher: &Watcher, dir: &Path, since: Option<&str>) -> Result<Changes, WatchError> {
    let ask = Ask {
        timeout: Duration::from_secs(10),
        ..Ask::default()
    };
    watcher.changes_with(dir, since, &ask)
}

fn paths(list: &[&[u8]]) -> Option<Vec<BString>> {
    Some(list.iter().map(|p| BString::from(*p)).collect())
}

#[test]
fn hook_lists_paths_since_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let h = hook(dir.path(), "hook", r"printf 'tok-2\0a.txt\0dir/\0sub/b\0a.txt\0'");
    let c = ask(&Watcher::Hook(h), dir.path(), Some("tok-1")).unwrap();
    assert_eq!(args(dir.path()), "[2][tok-1]");
    assert_eq!(c.token.as_deref(), Some("tok-2"));
    assert_eq!(c.paths, paths(&[b"a.txt", b"dir", b"sub/b"]));
    assert!(c.subtrees);
}

#[test]
fn hook_with_no_changes_and_without_a_final_nul() {
    let dir = tempfile::tempdir().unwrap();
    for out in [r"printf 'tok-2\0'", r"printf 'tok-2'"] {
        let h = hook(dir.path(), "hook", out);
        let c = ask(&Watcher::Hook(h), dir.path(), Some("tok-1")).unwrap();
        assert_eq!(c.token.as_deref(), Some("tok-2"));
        assert_eq!(c.paths, Some(vec![]), "{out}");
    }
}

#[test]
fn hook_first_use_gets_an_empty_token_and_only_the_token_counts() {
    let dir = tempfile::tempdir().unwrap();
    let h = hook(dir.path(), "hook", r"printf 'tok-1\0a\0'");
    for since in [None, Some("")] {
        let c = ask(&Watcher::Hook(h.clone()), dir.path(), since).unwrap();
        assert_eq!(args(dir.path()), "[2][]");
        assert_eq!(c.token.as_deref(), Some("tok-1"));
        assert_eq!(c.paths, None);
    }
}

#[test]
fn hook_trivial_answer_means_everything() {
    let dir = tempfile::tempdir().unwrap();
    for out in [
        r"printf 'tok-2\0/\0'",
        r"printf 'tok-2\0/'",
        r"printf 'tok-2\0/\0a\0'",
    ] {
        let h = hook(dir.path(), "hook", out);
        let c = ask(&Watcher::Hook(h), dir.path(), Some("tok-1")).unwrap();
        assert_eq!(c.token.as_deref(), Some("tok-2"), "{out}");
        assert_eq!(c.paths, None, "{out}");
    }
}

#[test]
fn hook_paths_in_doubt_mean_everything() {
    let dir = tempfile::tempdir().unwrap();
    for bad in [
        "../x",
        "a/../../x",
        "a/./b",
        "a//b",
        // "a/" is a directory; "a//" is not a path.
        "a//",
        // Paths after the first that start with '/', or are '.' or '..'.
        "x\\0/etc/passwd",
        "x\\0/",
        "x\\0.",
        "x\\0a/..",
    ] {
        let h = hook(dir.path(), "hook", &format!(r"printf 'tok-2\0ok\0{bad}\0'"));
        let c = ask(&Watcher::Hook(h), dir.path(), Some("tok-1")).unwrap();
        assert_eq!(c.token.as_deref(), Some("tok-2"), "{bad}");
        assert_eq!(c.paths, None, "{bad}");
    }
}

#[test]
fn hook_paths_keep_any_bytes_and_leave_out_the_git_dir() {
    let dir = tempfile::tempdir().unwrap();
    let h = hook(
        dir.path(),
        "hook",
        r"printf 'tok-2\0caf\351\0.git/index\0.git/\0.git\0.GIT/x\0x\0sub/.git/HEAD\0.gitignore\0'",
    );
    let c = ask(&Watcher::Hook(h), dir.path(), Some("tok-1")).unwrap();
    assert_eq!(
        c.paths,
        paths(&[b".gitignore", b"caf\xe9", b"sub/.git/HEAD", b"x"])
    );
}

#[test]
fn hook_failures() {
    let dir = tempfile::tempdir().unwrap();
    let run = |body: &str| {
        let h = hook(dir.path(), "hook", body);
        ask(&Watcher::Hook(h), dir.path(), Some("tok-1")).unwrap_err()
    };
    let e = run("echo 'watchman is down' >&2; printf 'tok\\0'; exit 1");
    assert!(matches!(e, WatchError::Failed { .. }), "{e:?}");
    let text = e.to_string();
    assert!(text.contains("exited with 1: watchman is down"), "{text}");
    assert!(text.starts_with("the fsmonitor hook '"), "{text}");

    for garbage in ["true", r"printf '\0a\0'", r"printf 'tok\351\0a\0'"] {
        let e = run(garbage);
        assert!(matches!(e, WatchError::Malformed { .. }), "{garbage}: {e:?}");
        assert!(e.to_string().contains("malformed answer"), "{e}");
    }

    let e = run("kill -9 $$");
    assert!(e.to_string().contains("exited with signal 9"), "{e}");

    let e = ask(
        &Watcher::Hook(dir.path().join("no-such-hook")),
        dir.path(),
        Some("tok-1"),
    )
    .unwrap_err();
    assert!(matches!(e, WatchError::Spawn { .. }), "{e:?}");
}

#[test]
fn hook_that_hangs_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    // Hangs itself; or answers but leaves a child holding its stdout.
    for body in ["sleep 30", r"sleep 30 & printf 'tok\0'"] {
        let h = hook(dir.path(), "hook", body);
        let ask = Ask {
            timeout: Duration::from_millis(300),
            ..Ask::default()
        };
        let start = Instant::now();
        let e = Watcher::Hook(h)
            .changes_with(dir.path(), Some("t"), &ask)
            .unwrap_err();
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{body}: {:?}",
            start.elapsed()
        );
        assert!(matches!(e, WatchError::TimedOut { .. }), "{body}: {e:?}");
        assert_eq!(
            e.to_string(),
            format!(
                "the fsmonitor hook '{}' timed out after 0.3 s and was stopped",
                dir.path().join("hook").display()
            )
        );
    }
}

#[test]
fn hook_runs_like_git_runs_it() {
    let dir = tempfile::tempdir().unwrap();
    // Relative to the worktree root, wherever we are.
    hook(dir.path(), ".git/hooks/query", r"printf 'tok\0%s\0' ${PWD##*/}");
    let c = ask(&Watcher::Hook(".git/hooks/query".into()), dir.path(), Some("t")).unwrap();
    let name = dir.path().file_name().unwrap().as_bytes();
    assert_eq!(c.paths, paths(&[name]));
    assert_eq!(args(dir.path()), "[2][t]");

    // A value with shell metacharacters is a shell snippet; the
    // arguments still arrive as arguments.
    let h = hook(dir.path(), "hook", r#"printf 'tok\0%s\0' "$T3_X""#);
    let snippet = format!("T3_X=from-the-snippet '{}'", h.display());
    let c = ask(&Watcher::Hook(snippet.into()), dir.path(), Some("a b;$(x)")).unwrap();
    assert_eq!(c.paths, paths(&[b"from-the-snippet"]));
    assert_eq!(args(dir.path()), "[2][a b;$(x)]");
}

// --- configuration ----------------------------------------------------

use crate::testing::git;

fn configured_with(config: &[(&str, &str)]) -> (Option<Watcher>, Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    for (key, value) in config {
        git(dir.path(), &["config", key, value]);
    }
    let repo = gix::open_opts(dir.path(), gix::open::Options::isolated()).unwrap();
    configured(&repo)
}

#[test]
fn configured_watchers() {
    let hook = || Some(Watcher::Hook(".git/hooks/query-watchman".into()));
    let core = ("core.fsmonitor", ".git/hooks/query-watchman");
    assert_eq!(configured_with(&[]), (None, None));
    assert_eq!(configured_with(&[core]), (hook(), None));
    for value in ["true", "false", "yes", "off", "1", "0", ""] {
        assert_eq!(
            configured_with(&[("core.fsmonitor", value)]),
            (None, None),
            "{value}"
        );
    }
    assert_eq!(
        configured_with(&[("t3.fsmonitor", "watchman")]),
        (Some(Watcher::Watchman), None)
    );
    assert_eq!(
        configured_with(&[core, ("t3.fsmonitor", "Watchman")]),
        (Some(Watcher::Watchman), None)
    );
    for value in ["hook", "true"] {
        assert_eq!(
            configured_with(&[core, ("t3.fsmonitor", value)]),
            (hook(), None),
            "{value}"
        );
    }
    for core in [None, Some("true"), Some("false")] {
        let mut config = vec![("t3.fsmonitor", "hook")];
        config.extend(core.map(|v| ("core.fsmonitor", v)));
        let (w, warning) = configured_with(&config);
        assert_eq!(w, None);
        assert!(warning.unwrap().contains("core.fsmonitor names none"), "{core:?}");
    }
    for value in ["false", "off", "0"] {
        assert_eq!(
            configured_with(&[core, ("t3.fsmonitor", value)]),
            (None, None),
            "{value}"
        );
    }
    let (w, warning) = configured_with(&[core, ("t3.fsmonitor", "fanotify\x1b[31m")]);
    assert_eq!(w, None);
    let warning = warning.unwrap();
    assert!(
        warning.contains("t3.fsmonitor = fanotify\\u{1b}[31m"),
        "{warning}"
    );
    assert!(warning.contains("expected watchman, hook or false"), "{warning}");

    let (w, warning) = configured_with(&[core, ("core.fsmonitorHookVersion", "1")]);
    assert_eq!(w, None);
    assert!(warning.unwrap().contains("version 2"));
    assert_eq!(
        configured_with(&[core, ("core.fsmonitorHookVersion", "2")]),
        (hook(), None)
    );
}

#[test]
fn configured_implicit_true_is_gits_daemon() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    let config = dir.path().join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("[core]\n\tfsmonitor\n");
    std::fs::write(&config, text).unwrap();
    let repo = gix::open_opts(dir.path(), gix::open::Options::isolated()).unwrap();
    assert_eq!(configured(&repo), (None, None));
}

// --- Watchman ---------------------------------------------------------

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
