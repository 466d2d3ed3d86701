//! The fsmonitor hook: its answers, its failures, how it is run.

use super::*;

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
