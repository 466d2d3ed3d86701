//! `git t3 hook`: recorded agent payloads drive baselines and captures; a
//! hook never fails the agent.

use crate::util::{TestRepo, ref_for};

fn payload(name: &str, cwd: &std::path::Path) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/payloads");
    std::fs::read_to_string(dir.join(name))
        .unwrap()
        .replace("CWD", cwd.to_str().unwrap())
}

fn hook_stdin(r: &TestRepo, agent: &str, input: &str) -> (i32, String, String) {
    let mut c = std::process::Command::new(crate::util::bin());
    c.args(["hook", agent])
        .current_dir(r.tmp())
        .env("HOME", &r.home)
        .env("GIT_CONFIG_NOSYSTEM", "1");
    c.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn claude_code_events_take_baselines_and_captures() {
    let r = TestRepo::seeded();
    let sub = r.root.join("src");
    let (code, out, err) = hook_stdin(
        &r,
        "claude-code",
        &payload("claude-user-prompt-submit.json", &sub),
    );
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert_eq!(r.refs("refs/t3/"), vec![ref_for("abc123-session", 0)]);
    assert!(
        r.note(&ref_for("abc123-session", 0))
            .contains("provider = \"claude-code\"")
    );
    r.write("feature.txt", "new\n");
    let (code, out, err) = hook_stdin(&r, "claude-code", &payload("claude-stop.json", &sub));
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert_eq!(r.ref_tree(&ref_for("abc123-session", 1)), r.oracle_tree());
    // A re-entry and the end of the session do nothing.
    for p in ["claude-stop-reentry.json", "claude-session-end.json"] {
        let (code, _, err) = hook_stdin(&r, "claude-code", &payload(p, &sub));
        assert_eq!(code, 0, "{p}: {err}");
    }
    assert_eq!(r.refs("refs/t3/").len(), 2);
    // The next prompt finds the thread and writes nothing new.
    hook_stdin(
        &r,
        "claude-code",
        &payload("claude-user-prompt-submit.json", &sub),
    );
    assert_eq!(r.refs("refs/t3/").len(), 2);
}

#[test]
fn codex_notify_captures_from_an_argument_or_stdin() {
    let r = TestRepo::seeded();
    let p = payload("codex-turn-complete.json", &r.root);
    let run = r.t3_in(r.tmp(), &["hook", "codex", &p]).ok();
    assert!(run.stdout.is_empty());
    let thread = "0199a213-81c0-7800-8aa1-bbab2a035a53";
    let note = r.note(&ref_for(thread, 1));
    assert!(note.contains("turn_id = \"turn-7\""), "{note}");
    r.write("more.txt", "more\n");
    let (code, _, err) = hook_stdin(&r, "codex", &p);
    assert_eq!(code, 0, "{err}");
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 2);
}

#[test]
fn a_hook_never_fails_the_agent() {
    let r = TestRepo::new();
    let outside = r.tmp().join("not-a-repo");
    std::fs::create_dir_all(&outside).unwrap();
    for (agent, input) in [
        ("claude-code", payload("claude-stop.json", &outside)),
        ("claude-code", "this is not json".to_owned()),
        ("claude-code", r#"{"hook_event_name":"Stop"}"#.to_owned()),
        ("codex", payload("codex-turn-complete.json", &outside)),
    ] {
        let (code, out, err) = hook_stdin(&r, agent, &input);
        assert_eq!(code, 0, "{agent} {input}: {err}");
        assert!(out.is_empty());
        assert_eq!(
            err.trim().lines().count(),
            1,
            "{agent}: want one line on stderr, got {err:?}"
        );
    }
}

/// An agent that never closes the hook's stdin does not hang it: the hook
/// gives up after a few seconds, says why, and exits 0.
#[test]
fn a_hook_whose_stdin_never_closes_gives_up_and_exits_0() {
    use std::process::{Command, Stdio};
    let r = TestRepo::seeded();
    let mut child = Command::new(crate::util::bin())
        .args(["hook", "claude-code"])
        .current_dir(&r.root)
        .env("HOME", &r.home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _keep_open = child.stdin.take();
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "the hook hung"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.success(), "a hook exits 0 whatever happens");
}

/// `-C` naming a folder that does not exist is still a hook's failure to
/// report, never the agent's: exit 0, one line on stderr.
#[test]
fn a_hook_with_a_missing_directory_still_exits_0() {
    let r = TestRepo::new();
    let out = std::process::Command::new(crate::util::bin())
        .args(["-C", "/nonexistent/folder", "hook", "claude-code"])
        .current_dir(r.tmp())
        .env("HOME", &r.home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
}
