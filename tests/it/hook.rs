//! `git t3 hook`: recorded agent payloads (shaped like each agent's
//! documentation, `tests/it/payloads/`) drive baselines, prompts and
//! captures; a hook never fails the agent and answers it in its own terms.

use std::path::Path;

use crate::util::{TestRepo, ref_for};

fn payload(name: &str, cwd: &Path) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/payloads");
    std::fs::read_to_string(dir.join(name))
        .unwrap()
        .replace("CWD", cwd.to_str().unwrap())
}

/// What a hook printed: exit status, stdout, stderr.
struct Hooked {
    code: i32,
    out: String,
    err: String,
}

/// Run `git t3 hook <agent>` from `cwd` with `input` on stdin and `env`.
fn hook_in(r: &TestRepo, cwd: &Path, agent: &str, input: &str, env: &[(&str, &str)]) -> Hooked {
    let run = r.t3_with(cwd, &["hook", agent], Some(input.as_bytes()), env);
    Hooked {
        code: run.code,
        out: run.out(),
        err: run.stderr,
    }
}

/// Run a hook from outside the repository (agents run hooks from anywhere)
/// and require a silent success: exit 0, nothing on stdout.
#[track_caller]
fn hook_ok(r: &TestRepo, agent: &str, input: &str) {
    let h = hook_in(r, r.tmp(), agent, input, &[]);
    assert_eq!((h.code, h.out.as_str()), (0, ""), "{agent} {input}: {}", h.err);
}

fn hook_stdin(r: &TestRepo, agent: &str, input: &str) -> (i32, String, String) {
    let h = hook_in(r, r.tmp(), agent, input, &[]);
    (h.code, h.out, h.err)
}

/// A failure is exactly one JSON object `{"systemMessage": "git t3: …"}` on
/// stdout, exit 0; its message is returned.
#[track_caller]
fn system_message(h: &Hooked) -> String {
    assert_eq!(h.code, 0, "a hook exits 0 whatever happens: {}", h.err);
    assert_eq!(h.out.lines().count(), 1, "want one line on stdout: {:?}", h.out);
    let v: serde_json::Value = serde_json::from_str(&h.out).unwrap_or_else(|e| panic!("{e}: {:?}", h.out));
    let obj = v.as_object().expect("a JSON object");
    assert_eq!(obj.keys().collect::<Vec<_>>(), ["systemMessage"], "{v}");
    let m = obj["systemMessage"].as_str().unwrap().to_owned();
    assert!(m.starts_with("git t3: "), "{m}");
    m
}

/// The note of `reference` as TOML.
fn note(r: &TestRepo, reference: &str) -> toml::Table {
    r.note(reference).parse().unwrap()
}

fn field<'a>(note: &'a toml::Table, key: &str) -> Option<&'a str> {
    note.get(key).and_then(toml::Value::as_str)
}

/// The prompts ref of `thread` (base64url, no padding, like its checkpoints).
fn prompts_ref(thread: &str) -> String {
    let encoded = ref_for(thread, 0);
    let encoded = encoded
        .strip_prefix("refs/t3/checkpoints/")
        .unwrap()
        .strip_suffix("/turn/0")
        .unwrap();
    format!("refs/t3/prompts/{encoded}")
}

const CLAUDE: &str = "abc123-session";
const CODEX: &str = "0199a213-81c0-7800-8aa1-bbab2a035a53";
const CURSOR: &str = "668320d2-2fd8-4888-b33c-2a466fec86e7";
const OPENCODE: &str = "ses_7a9c2f1e0ffeAbCdEf123456";

#[test]
fn claude_code_events_take_baselines_and_captures() {
    let r = TestRepo::seeded();
    let sub = r.root.join("src");
    hook_ok(&r, "claude-code", &payload("claude-session-start.json", &sub));
    assert!(r.refs("refs/t3/").is_empty(), "SessionStart does nothing");
    hook_ok(
        &r,
        "claude-code",
        &payload("claude-user-prompt-submit.json", &sub),
    );
    assert_eq!(r.refs("refs/t3/"), vec![ref_for(CLAUDE, 0), prompts_ref(CLAUDE)]);
    let n0 = note(&r, &ref_for(CLAUDE, 0));
    assert_eq!(field(&n0, "provider"), Some("claude-code"));
    assert_eq!(field(&n0, "agent"), Some("claude-code"));
    r.t3(&["verify"]).ok();
    r.write("feature.txt", "new\n");
    for p in ["claude-pre-tool-use.json", "claude-subagent-stop.json"] {
        hook_ok(&r, "claude-code", &payload(p, &sub));
    }
    hook_ok(&r, "claude-code", &payload("claude-stop.json", &sub));
    assert_eq!(r.ref_tree(&ref_for(CLAUDE, 1)), r.oracle_tree());
    let n1 = note(&r, &ref_for(CLAUDE, 1));
    assert_eq!(field(&n1, "title"), Some("add a feature"));
    assert_eq!(field(&n1, "agent"), Some("claude-code"));
    assert_eq!(field(&n1, "status"), Some("ready"));
    assert_eq!(
        field(&n1, "prompt_id"),
        Some("6f2a1c3e-9b1d-4c4e-8d2a-1f0e5b7c9a01")
    );
    assert_eq!(
        field(&n1, "transcript"),
        Some("/home/user/.claude/projects/-repo/abc123-session.jsonl")
    );
    assert_eq!(field(&n1, "pre_turn_tree"), None, "no edits between turns");
    // The prompt is consumed: nothing is left to keep.
    assert_eq!(r.refs("refs/t3/").len(), 2, "{:?}", r.refs("refs/t3/"));
    hook_ok(&r, "claude-code", &payload("claude-session-end.json", &sub));
    assert_eq!(r.refs("refs/t3/").len(), 2);
    r.t3(&["verify"]).ok();
}

#[test]
fn codex_notify_captures_from_an_argument_or_stdin() {
    let r = TestRepo::seeded();
    let p = payload("codex-turn-complete.json", &r.root);
    let run = r.t3_in(r.tmp(), &["hook", "codex", &p]).ok();
    assert!(run.stdout.is_empty());
    let n = note(&r, &ref_for(CODEX, 1));
    assert_eq!(field(&n, "turn_id"), Some("turn-7"));
    assert_eq!(field(&n, "agent"), Some("codex"));
    assert_eq!(field(&n, "title"), Some("fix the tests"), "from input-messages");
    // Another turn, by stdin, and by the older installation's extra word.
    r.write("more.txt", "more\n");
    let other = p.replace("turn-7", "turn-8");
    let (code, out, err) = hook_stdin(&r, "codex", &other);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    r.write("more.txt", "more and more\n");
    let third = p.replace("turn-7", "turn-9");
    r.t3_in(r.tmp(), &["hook", "codex", "notify", &third]).ok();
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 3);
}

#[test]
fn a_hook_never_fails_the_agent() {
    let r = TestRepo::new();
    for (agent, input) in [
        ("claude-code", "this is not json".to_owned()),
        ("claude-code", String::new()),
        ("claude-code", "[1, 2]".to_owned()),
        ("claude-code", "{\"hook_event_name\":\"Stop\"}".to_owned()),
        (
            "claude-code",
            "{\"hook_event_name\":\"Stop\",\"session_id\":7}".to_owned(),
        ),
        (
            "claude-code",
            "{\"hook_event_name\":\"Stop\",\"session_id\":\"a\\u0007b\"}".to_owned(),
        ),
        (
            "codex",
            "{\"hook_event_name\":\"Stop\",\"session_id\":null}".to_owned(),
        ),
        (
            "opencode",
            "{\"event\":\"chat.message\",\"sessionID\":{}}".to_owned(),
        ),
    ] {
        let h = hook_in(&r, r.tmp(), agent, &input, &[]);
        let m = system_message(&h);
        assert!(!m.contains("panicked"), "{m}");
        assert_eq!(h.err.trim().lines().count(), 1, "{agent}: {:?}", h.err);
    }
    assert!(r.refs("refs/t3/").is_empty());
}

/// `git t3 hook claude-code` in `r`, with its stdin, stdout and stderr piped.
fn spawn_claude_hook(r: &TestRepo, env: &[(&str, &str)]) -> std::process::Child {
    use std::process::{Command, Stdio};
    Command::new(crate::util::bin())
        .args(["hook", "claude-code"])
        .current_dir(&r.root)
        .env("HOME", &r.home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Wait for `child`, failing the test after 30 s; its status and how long.
fn wait_at_most_30s(child: &mut std::process::Child) -> (std::process::ExitStatus, std::time::Duration) {
    let start = std::time::Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return (s, start.elapsed());
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "the hook hung"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// An agent that never closes the hook's stdin does not hang it: the hook
/// gives up after a few seconds, says why, and exits 0.
#[test]
fn a_hook_whose_stdin_never_closes_gives_up_and_exits_0() {
    let r = TestRepo::seeded();
    // It gives up after 200 ms here, not 2 s (an injected deadline).
    let mut child = spawn_claude_hook(&r, &[("T3_TEST_WAIT_HOOK_STDIN_MS", "200")]);
    let _keep_open = child.stdin.take();
    let (status, _) = wait_at_most_30s(&mut child);
    assert!(status.success(), "a hook exits 0 whatever happens");
}

/// A whole payload is acted on at once, though the agent keeps the pipe
/// open: the turn is captured and the hook returns without waiting.
#[test]
fn a_whole_payload_on_a_pipe_left_open_is_captured_at_once() {
    use std::io::Write as _;
    let r = TestRepo::seeded();
    let mut child = spawn_claude_hook(&r, &[]);
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(payload("claude-stop.json", &r.root).as_bytes())
        .unwrap();
    stdin.flush().unwrap();
    let (status, took) = wait_at_most_30s(&mut child);
    drop(stdin);
    assert!(status.success());
    assert!(
        took < std::time::Duration::from_millis(1500),
        "the hook waited {took:?} for the pipe to close"
    );
    assert!(
        !r.refs("refs/t3/checkpoints/").is_empty(),
        "the turn was not captured"
    );
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
    let h = Hooked {
        code: 0,
        out: String::from_utf8_lossy(&out.stdout).into_owned(),
        err: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    system_message(&h);
}

/// The DESIGN's Claude Code flow: titles, the user's edits between turns
/// kept apart (and from `git gc`), a Stop re-entry capturing the same turn.
#[test]
fn claude_code_titles_user_edits_and_stop_reentry() {
    let r = TestRepo::seeded();
    let at = |p: &str| payload(p, &r.root);
    hook_ok(&r, "claude-code", &at("claude-user-prompt-submit.json"));
    r.write("agent1.txt", "the agent's first edit\n");
    hook_ok(&r, "claude-code", &at("claude-stop.json"));
    // The user edits between turns, then sends the next prompt.
    r.write("README.md", "# demo\n\nthe user's edit\n");
    let pre = r.oracle_tree();
    let second = at("claude-user-prompt-submit.json")
        .replace("add a feature\\n\\nwith tests, please", "second prompt")
        .replace("6f2a1c3e", "7a3b2d4f");
    hook_ok(&r, "claude-code", &second);
    r.write("agent2.txt", "the agent's second edit\n");
    let stop2 = at("claude-stop.json").replace("6f2a1c3e", "7a3b2d4f");
    hook_ok(&r, "claude-code", &stop2);
    let n2 = note(&r, &ref_for(CLAUDE, 2));
    assert_eq!(field(&n2, "title"), Some("second prompt"));
    assert_eq!(field(&n2, "pre_turn_tree"), Some(pre.as_str()));
    // The pre-turn tree outlives `git gc`, which keeps nothing a note names.
    r.git(&["gc", "-q", "--prune=now"]);
    r.git(&["cat-file", "-e", &format!("{pre}^{{tree}}")]);
    r.t3(&["verify"]).ok();
    // The agent's own work, and a word about the user's edits.
    let d = r
        .t3(&["diff", "--thread", CLAUDE, "--turn", "2", "--name-only"])
        .ok();
    assert_eq!(d.out(), "agent2.txt\n");
    assert!(
        d.stderr
            .contains("1 file changed between turn 1 and the prompt of turn 2"),
        "{}",
        d.stderr
    );
    assert!(d.stderr.contains("--include-user-edits"), "{}", d.stderr);
    let all = r
        .t3(&[
            "diff",
            "--thread",
            CLAUDE,
            "--turn",
            "2",
            "--name-only",
            "--include-user-edits",
        ])
        .ok();
    assert_eq!(all.out(), "README.md\nagent2.txt\n");
    assert!(!all.stderr.contains("include-user-edits"), "{}", all.stderr);
    let j = r.t3_json(&["diff", "--thread", CLAUDE, "--turn", "2"]);
    assert_eq!(j["from"], pre.as_str());
    assert_eq!(j["pre_turn_tree"], pre.as_str());
    assert_eq!(j["user_edits"], 1);
    assert_eq!(j["files"].as_array().unwrap().len(), 1);
    let j = r.t3_json(&["diff", "--thread", CLAUDE, "--turn", "2", "--include-user-edits"]);
    assert_eq!(j["from"], ref_for(CLAUDE, 1));
    assert_eq!(j["from_turn"], 1);
    assert!(j.get("user_edits").is_none(), "{j}");
    // Another Stop hook made Claude go on: the same turn, captured again.
    let c2 = r.git(&["rev-parse", &ref_for(CLAUDE, 2)]);
    r.write("agent2b.txt", "more work after a blocked stop\n");
    hook_ok(&r, "claude-code", &at("claude-stop-reentry.json"));
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 3);
    assert_ne!(r.git(&["rev-parse", &ref_for(CLAUDE, 2)]), c2);
    assert_eq!(r.ref_tree(&ref_for(CLAUDE, 2)), r.oracle_tree());
    let n2 = note(&r, &ref_for(CLAUDE, 2));
    assert_eq!(field(&n2, "title"), Some("second prompt"));
    assert_eq!(field(&n2, "pre_turn_tree"), Some(pre.as_str()));
    // A Stop repeated with the same prompt id is the same turn too.
    r.write("agent2c.txt", "still more\n");
    hook_ok(&r, "claude-code", &stop2);
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 3);
    r.t3(&["verify"]).ok();
}

/// A prompt from an older Claude Code (no `prompt_id`) still titles its
/// turn; a Stop after an API error is `StopFailure`: status error.
#[test]
fn claude_code_without_prompt_id_and_stop_failure() {
    let r = TestRepo::seeded();
    hook_ok(
        &r,
        "claude-code",
        &payload("claude-user-prompt-submit-old.json", &r.root),
    );
    r.write("half.txt", "half done\n");
    hook_ok(&r, "claude-code", &payload("claude-stop-failure.json", &r.root));
    let n1 = note(&r, &ref_for(CLAUDE, 1));
    assert_eq!(field(&n1, "title"), Some("add a feature"));
    assert_eq!(field(&n1, "status"), Some("error"));
    assert_eq!(field(&n1, "prompt_id"), None);
    assert_eq!(r.ref_tree(&ref_for(CLAUDE, 1)), r.oracle_tree());
}

/// `$CLAUDE_PROJECT_DIR` names the repository, whatever the payload's `cwd`
/// (Claude's shell may have `cd`'d into another one); when it is no
/// repository, `cwd` is used.
#[test]
fn claude_project_dir_wins_over_cwd() {
    let project = TestRepo::seeded();
    let other = TestRepo::seeded();
    let env = [("CLAUDE_PROJECT_DIR", project.root.to_str().unwrap())];
    let prompt = payload("claude-user-prompt-submit.json", &other.root);
    let h = hook_in(&project, &other.root, "claude-code", &prompt, &env);
    assert_eq!((h.code, h.out.as_str()), (0, ""), "{}", h.err);
    project.write("p.txt", "edit in the project\n");
    let stop = payload("claude-stop.json", &other.root);
    let h = hook_in(&project, &other.root, "claude-code", &stop, &env);
    assert_eq!((h.code, h.out.as_str()), (0, ""), "{}", h.err);
    assert!(other.refs("refs/t3/").is_empty(), "{:?}", other.refs("refs/t3/"));
    assert_eq!(project.refs("refs/t3/checkpoints/").len(), 2);
    assert_eq!(project.ref_tree(&ref_for(CLAUDE, 1)), project.oracle_tree());
    // A project directory that is no repository: the payload's cwd.
    let plain = project.tmp().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let env = [("CLAUDE_PROJECT_DIR", plain.to_str().unwrap())];
    let h = hook_in(&other, other.tmp(), "claude-code", &prompt, &env);
    assert_eq!((h.code, h.out.as_str()), (0, ""), "{}", h.err);
    assert_eq!(other.refs("refs/t3/checkpoints/"), vec![ref_for(CLAUDE, 0)]);
}

/// A turn that never got its Stop (interrupted) is captured when the next
/// prompt comes, as interrupted, with its own title; a prompt recorded
/// before a capture by hand is stale and titles nothing.
#[test]
fn an_interrupted_turn_is_captured_at_the_next_prompt_and_stale_prompts_are_ignored() {
    let r = TestRepo::seeded();
    let prompt = |text: &str, id: &str| {
        payload("claude-user-prompt-submit.json", &r.root)
            .replace("add a feature\\n\\nwith tests, please", text)
            .replace("6f2a1c3e-9b1d-4c4e-8d2a-1f0e5b7c9a01", id)
    };
    hook_ok(&r, "claude-code", &prompt("first", "p1"));
    r.write("a.txt", "interrupted work\n");
    let at_interrupt = r.oracle_tree();
    // Esc: no Stop. The next prompt captures turn 1 first.
    hook_ok(&r, "claude-code", &prompt("second", "p2"));
    let n1 = note(&r, &ref_for(CLAUDE, 1));
    assert_eq!(field(&n1, "title"), Some("first"));
    assert_eq!(field(&n1, "status"), Some("interrupted"));
    assert_eq!(r.ref_tree(&ref_for(CLAUDE, 1)), at_interrupt);
    r.write("b.txt", "second turn\n");
    hook_ok(
        &r,
        "claude-code",
        &payload("claude-stop.json", &r.root).replace("6f2a1c3e-9b1d-4c4e-8d2a-1f0e5b7c9a01", "p2"),
    );
    let n2 = note(&r, &ref_for(CLAUDE, 2));
    assert_eq!(field(&n2, "title"), Some("second"));
    assert_eq!(field(&n2, "pre_turn_tree"), None);
    // A prompt that changed nothing before the next one is no turn.
    hook_ok(&r, "claude-code", &prompt("blocked", "p3"));
    hook_ok(&r, "claude-code", &prompt("fourth", "p4"));
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 3);
    // A capture by hand in between makes the pending prompt stale.
    r.write("c.txt", "by hand\n");
    r.t3(&["capture", "--thread", CLAUDE]).ok();
    r.write("d.txt", "after\n");
    hook_ok(&r, "claude-code", &payload("claude-stop.json", &r.root));
    let n4 = note(&r, &ref_for(CLAUDE, 4));
    assert_eq!(field(&n4, "title"), None, "a stale prompt titled a turn");
    assert!(!r.refs("refs/t3/").contains(&prompts_ref(CLAUDE)));
}

/// Codex lifecycle hooks (JSON on stdin): SessionStart and UserPromptSubmit
/// take the baseline, the prompt titles the turn, Stop captures it with
/// its `turn_id`; a re-entry captures the same turn again.
#[test]
fn codex_lifecycle_hooks() {
    let r = TestRepo::seeded();
    let at = |p: &str| payload(p, &r.root);
    hook_ok(&r, "codex", &at("codex-session-start.json"));
    assert_eq!(r.refs("refs/t3/"), vec![ref_for(CODEX, 0)]);
    let n0 = note(&r, &ref_for(CODEX, 0));
    assert_eq!(field(&n0, "provider"), Some("codex"));
    r.write("README.md", "# demo\n\nedited before the prompt\n");
    hook_ok(&r, "codex", &at("codex-user-prompt-submit.json"));
    hook_ok(&r, "codex", &at("codex-pre-tool-use.json"));
    r.write("c1.txt", "codex edit\n");
    hook_ok(&r, "codex", &at("codex-stop.json"));
    let n1 = note(&r, &ref_for(CODEX, 1));
    assert_eq!(field(&n1, "turn_id"), Some("turn-7"));
    assert_eq!(field(&n1, "prompt_id"), Some("turn-7"));
    assert_eq!(field(&n1, "agent"), Some("codex"));
    assert_eq!(field(&n1, "title"), Some("fix the tests"));
    assert!(field(&n1, "transcript").is_some_and(|t| t.ends_with(".jsonl")));
    assert!(field(&n1, "pre_turn_tree").is_some());
    let d = r
        .t3(&["diff", "--thread", CODEX, "--turn", "1", "--name-only"])
        .ok();
    assert_eq!(d.out(), "c1.txt\n");
    r.write("c2.txt", "after the re-entry\n");
    hook_ok(&r, "codex", &at("codex-stop-reentry.json"));
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 2);
    assert_eq!(r.ref_tree(&ref_for(CODEX, 1)), r.oracle_tree());
    assert_eq!(
        field(&note(&r, &ref_for(CODEX, 1)), "title"),
        Some("fix the tests")
    );
    r.t3(&["verify"]).ok();
}

/// `--then CMD [ARG…] --`: Codex runs one notify program, so git t3's
/// chains the one the user had, with the same payload as last argument,
/// without waiting for it.
#[test]
fn codex_notify_chains_the_previous_notifier() {
    let r = TestRepo::seeded();
    let p = payload("codex-turn-complete.json", &r.root);
    let out = r.tmp().join("notified");
    let script = format!("printf '%s|%s' \"$1\" \"$2\" > '{}'", out.display());
    let run = r
        .t3_in(
            r.tmp(),
            &[
                "hook", "codex", "--then", "sh", "-c", &script, "sh", "--", "--", &p,
            ],
        )
        .ok();
    assert!(run.stdout.is_empty(), "{}", run.out());
    assert_eq!(r.refs("refs/t3/checkpoints/"), vec![ref_for(CODEX, 1)]);
    let start = std::time::Instant::now();
    while !out.exists() || std::fs::read_to_string(&out).unwrap().is_empty() {
        assert!(start.elapsed().as_secs() < 20, "the chained notifier never ran");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Its arguments up to the last `--`, then the payload.
    assert_eq!(std::fs::read_to_string(&out).unwrap(), format!("--|{p}"));
    // A notifier that cannot start is said; the capture happens anyway.
    r.write("x.txt", "x\n");
    let next = p.replace("turn-7", "turn-8");
    let run = r
        .t3_in(
            r.tmp(),
            &["hook", "codex", "--then", "/nonexistent/notifier", "--", &next],
        )
        .ok();
    let h = Hooked {
        code: run.code,
        out: run.out(),
        err: run.stderr.clone(),
    };
    assert!(system_message(&h).contains("/nonexistent/notifier"), "{}", h.out);
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 2);
}

/// Cursor wants JSON on every path: `{"continue": true}` for a prompt,
/// `{}` for the rest, a failure in `user_message`.
#[test]
fn cursor_hooks_answer_json_and_capture() {
    let r = TestRepo::seeded();
    let at = |p: &str| payload(p, &r.root);
    let json = |h: &Hooked| -> serde_json::Value {
        assert_eq!(h.code, 0, "{}", h.err);
        assert_eq!(h.out.lines().count(), 1, "{:?}", h.out);
        serde_json::from_str(&h.out).unwrap()
    };
    // Cursor runs user hooks from ~/.cursor: the payload names the workspace.
    let home = r.home.clone();
    let h = hook_in(&r, &home, "cursor", &at("cursor-session-start.json"), &[]);
    assert_eq!(json(&h), serde_json::json!({"continue": true}));
    let h = hook_in(&r, &home, "cursor", &at("cursor-before-submit-prompt.json"), &[]);
    assert_eq!(json(&h), serde_json::json!({"continue": true}));
    assert_eq!(field(&note(&r, &ref_for(CURSOR, 0)), "provider"), Some("cursor"));
    r.write("src/lib.rs", "fn load() {}\n");
    let h = hook_in(&r, &home, "cursor", &at("cursor-after-file-edit.json"), &[]);
    assert_eq!(json(&h), serde_json::json!({"continue": true}));
    let h = hook_in(&r, &home, "cursor", &at("cursor-stop.json"), &[]);
    assert_eq!(json(&h), serde_json::json!({}));
    let n1 = note(&r, &ref_for(CURSOR, 1));
    assert_eq!(field(&n1, "title"), Some("rename the config loader"));
    assert_eq!(
        field(&n1, "turn_id"),
        Some("490b90b7-a2ce-4c2c-bb76-cb77b125df2f")
    );
    assert_eq!(field(&n1, "agent"), Some("cursor"));
    r.write("broken.txt", "x\n");
    let h = hook_in(&r, &home, "cursor", &at("cursor-stop-error.json"), &[]);
    assert_eq!(json(&h), serde_json::json!({}));
    assert_eq!(field(&note(&r, &ref_for(CURSOR, 2)), "status"), Some("error"));
    // CURSOR_PROJECT_DIR first; outside any repository the hook is silent.
    let nowhere = r.tmp().join("nowhere");
    std::fs::create_dir_all(&nowhere).unwrap();
    let env = [("CURSOR_PROJECT_DIR", nowhere.to_str().unwrap())];
    let lost =
        at("cursor-before-submit-prompt.json").replace(r.root.to_str().unwrap(), nowhere.to_str().unwrap());
    let v = json(&hook_in(&r, &home, "cursor", &lost, &env));
    assert_eq!(v, serde_json::json!({"continue": true}));
    // A failure is shown in user_message.
    let v = json(&hook_in(&r, &home, "cursor", "not json", &[]));
    assert_eq!(v["continue"], true, "{v}");
    assert!(v["user_message"].as_str().unwrap().starts_with("git t3: "), "{v}");
}

/// opencode through git t3's plugin payload: `chat.message` titles the turn
/// (its `messageID` is the turn's id), `session.idle` captures it; a
/// subagent's session and other events do nothing.
#[test]
fn opencode_plugin_events() {
    let r = TestRepo::seeded();
    let at = |p: &str| payload(p, &r.root);
    hook_ok(&r, "opencode", &at("opencode-chat-message.json"));
    assert_eq!(
        field(&note(&r, &ref_for(OPENCODE, 0)), "provider"),
        Some("opencode")
    );
    r.write("flag.txt", "--verbose\n");
    hook_ok(&r, "opencode", &at("opencode-session-idle-child.json"));
    hook_ok(&r, "opencode", &at("opencode-session-error.json"));
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 1);
    hook_ok(&r, "opencode", &at("opencode-session-idle.json"));
    let n1 = note(&r, &ref_for(OPENCODE, 1));
    assert_eq!(field(&n1, "title"), Some("add a --verbose flag"));
    assert_eq!(field(&n1, "prompt_id"), Some("msg_7a9c2f3b1001XyZ987654321"));
    assert_eq!(field(&n1, "agent"), Some("opencode"));
    assert_eq!(r.ref_tree(&ref_for(OPENCODE, 1)), r.oracle_tree());
    assert_eq!(field(&n1, "status"), Some("ready"));
    // A turn whose session.error the plugin passes on: aborted, or failed.
    for (n, error, status) in [
        (2, "MessageAbortedError", "interrupted"),
        (3, "APIError", "error"),
    ] {
        hook_ok(
            &r,
            "opencode",
            &at("opencode-chat-message.json").replace("msg_7a9c2f3b1001XyZ987654321", &format!("m{n}")),
        );
        r.write("o.txt", error);
        let idle = at("opencode-session-idle.json")
            .replace("\"directory\"", &format!("\"error\":\"{error}\",\"directory\""));
        hook_ok(&r, "opencode", &idle);
        assert_eq!(
            field(&note(&r, &ref_for(OPENCODE, n)), "status"),
            Some(status),
            "{error}"
        );
    }
}

/// An agent we do not know: a line on stderr, nothing on stdout, exit 0.
#[test]
fn an_unknown_agent_is_said_on_stderr() {
    let r = TestRepo::seeded();
    let h = hook_in(&r, &r.root, "aider", &payload("claude-stop.json", &r.root), &[]);
    assert_eq!((h.code, h.out.as_str()), (0, ""));
    assert_eq!(h.err.trim().lines().count(), 1, "{:?}", h.err);
    assert!(h.err.contains("unknown agent 'aider'"), "{}", h.err);
    assert!(
        h.err.contains("claude-code, codex, opencode, cursor"),
        "{}",
        h.err
    );
    assert!(r.refs("refs/t3/").is_empty());
}

/// `--json` and `-q` do not change what a hook prints: the agent reads it.
#[test]
fn json_and_quiet_do_not_change_a_hook_answer() {
    let r = TestRepo::seeded();
    for flags in [&["--json"][..], &["-q"][..]] {
        let mut args = flags.to_vec();
        args.extend(["hook", "claude-code"]);
        let input = payload("claude-user-prompt-submit.json", &r.root);
        let run = r.t3_with(r.tmp(), &args, Some(input.as_bytes()), &[]).ok();
        assert!(run.stdout.is_empty(), "{flags:?}: {}", run.out());
        let run = r.t3_with(r.tmp(), &args, Some(b"{"), &[]).ok();
        let h = Hooked {
            code: run.code,
            out: run.out(),
            err: run.stderr,
        };
        system_message(&h);
    }
}

/// Untrusted payloads: 20 MB (a huge paste) works and titles the turn with
/// its first line, cut; control and bidi characters never reach a title.
#[test]
fn huge_and_hostile_payloads() {
    use std::io::Write as _;
    let r = TestRepo::seeded();
    // Written in pieces to a file: a test holding 20 MB would be counted in
    // the memory peaks other tests measure (see `peak_rss_and_code`).
    let file = r.tmp().join("big.json");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
    let head =
        serde_json::json!({"session_id": CLAUDE, "cwd": r.root, "hook_event_name": "UserPromptSubmit"});
    let head = head.to_string();
    write!(
        w,
        "{},\"prompt\":\"{}\\u202e\\u0007\\n",
        &head[..head.len() - 1],
        "x".repeat(300)
    )
    .unwrap();
    let chunk = "y".repeat(64 << 10);
    for _ in 0..(20 << 20) / chunk.len() {
        w.write_all(chunk.as_bytes()).unwrap();
    }
    write!(
        w,
        "\",\"prompt_id\":\"{}\",\"transcript_path\":\"",
        "p".repeat(100_000)
    )
    .unwrap();
    for _ in 0..16 {
        w.write_all(chunk.replace('y', "t").as_bytes()).unwrap();
    }
    w.write_all(b"\"}").unwrap();
    drop(w);
    assert!(std::fs::metadata(&file).unwrap().len() > 20 << 20);
    let run = r.t3_stdin_file(r.tmp(), &["hook", "claude-code"], &file).ok();
    assert!(run.stdout.is_empty(), "{} {}", run.out(), run.stderr);
    r.write("f.txt", "f\n");
    hook_ok(&r, "claude-code", &payload("claude-stop.json", &r.root));
    let n1 = note(&r, &ref_for(CLAUDE, 1));
    assert_eq!(field(&n1, "title"), Some("x".repeat(200).as_str()));
    assert_eq!(field(&n1, "prompt_id"), None, "an id of 100 000 bytes is dropped");
    assert_eq!(field(&n1, "transcript"), None, "a path of 1 MiB is dropped");
    let bidi = payload("claude-user-prompt-submit.json", &r.root).replace(
        "add a feature\\n\\nwith tests, please",
        "\\u001b[31mred\\u202e evil\\u0000",
    );
    hook_ok(&r, "claude-code", &bidi);
    r.write("g.txt", "g\n");
    hook_ok(
        &r,
        "claude-code",
        &payload("claude-stop.json", &r.root).replace("6f2a", "0000"),
    );
    assert_eq!(
        field(&note(&r, &ref_for(CLAUDE, 2)), "title"),
        Some("[31mred evil")
    );
    r.t3(&["verify"]).ok();
}

/// A thread belongs to the worktree of its baseline: a hook run for it in
/// another worktree records nothing and says why.
#[test]
fn a_hook_in_another_worktree_of_a_thread_refuses() {
    let r = TestRepo::seeded();
    hook_ok(
        &r,
        "claude-code",
        &payload("claude-user-prompt-submit.json", &r.root),
    );
    let wt = r.tmp().join("linked");
    r.git(&["worktree", "add", "-q", "-b", "side", wt.to_str().unwrap()]);
    let before = r.refs("refs/t3/");
    let h = hook_in(&r, &wt, "claude-code", &payload("claude-stop.json", &wt), &[]);
    let m = system_message(&h);
    assert!(m.contains("belongs to the worktree"), "{m}");
    assert_eq!(r.refs("refs/t3/"), before);
}

/// `drop` removes the prompts ref with the thread; `op undo` brings it back;
/// `verify` checks it.
#[test]
fn drop_verify_and_undo_know_the_prompts_ref() {
    let r = TestRepo::seeded();
    hook_ok(
        &r,
        "claude-code",
        &payload("claude-user-prompt-submit.json", &r.root),
    );
    r.t3(&["verify", "--thread", CLAUDE]).ok();
    r.t3(&["drop", "--thread", CLAUDE]).ok();
    assert!(r.refs("refs/t3/prompts/").is_empty());
    r.t3(&["op", "undo"]).ok();
    assert_eq!(r.refs("refs/t3/prompts/"), vec![prompts_ref(CLAUDE)]);
    // A prompts ref at something else is a problem verify names.
    let blob = r.blob("junk\n");
    r.git(&["update-ref", &prompts_ref("other"), &blob]);
    let v = r.t3(&["verify"]);
    assert_eq!(v.code, 1);
    assert!(v.out().contains(&prompts_ref("other")), "{}", v.out());
}

#[test]
fn what_a_hooks_capture_has_to_say_reaches_the_user() {
    let r = TestRepo::seeded();
    r.git(&["config", "t3.maxFileSize", "1k"]);
    let sub = r.root.join("src");
    hook_ok(
        &r,
        "claude-code",
        &payload("claude-user-prompt-submit.json", &sub),
    );
    r.write("dataset.bin", &"x".repeat(4096));
    r.write(".env", "TOKEN=1\n");
    let h = hook_in(
        &r,
        r.tmp(),
        "claude-code",
        &payload("claude-stop.json", &sub),
        &[],
    );
    let m = system_message(&h);
    assert!(m.contains("skipped 1 file") && m.contains("dataset.bin"), "{m}");
    assert!(m.contains(".env"), "{m}");
    assert_eq!(r.refs(&ref_for(CLAUDE, 1)).len(), 1, "the turn was captured");
    // A turn with nothing to say stays silent.
    r.remove("dataset.bin");
    hook_ok(
        &r,
        "claude-code",
        &payload("claude-user-prompt-submit.json", &sub),
    );
    r.write("more.txt", "more\n");
    hook_ok(&r, "claude-code", &payload("claude-stop.json", &sub));
}

/// An empty file in the test's scratch folder (a transcript to be).
fn empty_file(r: &TestRepo, name: &str) -> std::path::PathBuf {
    let path = r.tmp().join(name);
    std::fs::write(&path, "").unwrap();
    path
}

/// A payload recorded from the real agent (Claude Code 2.1.332, Codex
/// 0.171.0), with its transcript path pointing at `transcript`.
fn recorded(name: &str, cwd: &Path, transcript: &Path) -> String {
    payload(name, cwd).replace("TRANSCRIPT", transcript.to_str().unwrap())
}

#[test]
fn a_codex_interrupt_captures_the_turn_at_once_as_interrupted() {
    let r = TestRepo::seeded();
    let thread = "01a24e7c-106d-7ce1-b41c-baf059f4de37";
    let t = empty_file(&r, "rollout.jsonl");
    hook_ok(
        &r,
        "codex",
        &recorded("codex-0171-user-prompt-submit.json", &r.root, &t),
    );
    r.write("half.txt", "the first tool call's edit\n");
    let at_interrupt = r.oracle_tree();
    hook_ok(&r, "codex", &recorded("codex-0171-interrupt.json", &r.root, &t));
    let n1 = note(&r, &ref_for(thread, 1));
    assert_eq!(field(&n1, "status"), Some("interrupted"));
    assert_eq!(field(&n1, "title"), Some("PROMPT-INT"));
    assert_eq!(r.ref_tree(&ref_for(thread, 1)), at_interrupt);
    // The session's end then has nothing left to capture.
    hook_ok(&r, "codex", &recorded("codex-0171-session-end.json", &r.root, &t));
    assert_eq!(r.refs(&ref_for(thread, 2)), Vec::<String>::new());
}

#[test]
fn a_turn_whose_model_call_failed_is_captured_at_session_end_as_an_error() {
    // Codex 0.171 sends no Stop when its model call fails: only SessionEnd,
    // and the rollout's task_complete carries the error.
    let r = TestRepo::seeded();
    let thread = "01a24e7c-106d-7ce1-b41c-baf059f4de37";
    let t = empty_file(&r, "rollout.jsonl");
    hook_ok(
        &r,
        "codex",
        &recorded("codex-0171-user-prompt-submit.json", &r.root, &t),
    );
    r.write("partial.txt", "before the failure\n");
    std::fs::write(
        &t,
        r#"{"timestamp":"2026-12-07T03:10:55.377Z","ordinal":9,"type":"event_msg","payload":{"type":"task_complete","turn_id":"01a24e7c-1088-7c33-ad38-d4a3e6fa5dca","last_agent_message":null,"error":{"message":"We're currently experiencing high demand","codex_error_info":"internal_server_error"}}}
"#,
    )
    .unwrap();
    hook_ok(&r, "codex", &recorded("codex-0171-session-end.json", &r.root, &t));
    let n1 = note(&r, &ref_for(thread, 1));
    assert_eq!(field(&n1, "status"), Some("error"));
    assert_eq!(field(&n1, "title"), Some("PROMPT-INT"));
    // Claude Code: an interrupt sends only SessionEnd too.
    let claude = "be180a0b-7a3c-486a-9650-b8980928024b";
    let ct = empty_file(&r, "claude.jsonl");
    hook_ok(
        &r,
        "claude-code",
        &recorded("claude-2.1-user-prompt-submit.json", &r.root, &ct),
    );
    r.write("claude.txt", "interrupted\n");
    std::fs::write(
        &ct,
        "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"[Request interrupted by user for tool use]\"}]}}\n",
    )
    .unwrap();
    let end = recorded("claude-2.1-session-end.json", &r.root, &ct)
        .replace("00000006-0000-0000-0000-000000000000", claude);
    hook_ok(&r, "claude-code", &end);
    assert_eq!(
        field(&note(&r, &ref_for(claude, 1)), "status"),
        Some("interrupted")
    );
    // A failed model call, as Claude Code's transcript records it.
    hook_ok(
        &r,
        "claude-code",
        &recorded("claude-2.1-user-prompt-submit.json", &r.root, &ct),
    );
    r.write("claude.txt", "then an API error\n");
    std::fs::write(
        &ct,
        "{\"type\":\"user\",\"promptId\":\"bd147bcf-6a49-46f8-abe1-03984827fabd\",\"message\":{\"content\":\"go\"}}\n\
         {\"type\":\"assistant\",\"isApiErrorMessage\":true,\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"API Error: 500\"}]}}\n",
    )
    .unwrap();
    hook_ok(&r, "claude-code", &end);
    assert_eq!(field(&note(&r, &ref_for(claude, 2)), "status"), Some("error"));
    // The next prompt is interrupted before it wrote anything: the API error
    // above is the turn before's, not this one's.
    let mut next: serde_json::Value =
        serde_json::from_str(&recorded("claude-2.1-user-prompt-submit.json", &r.root, &ct)).unwrap();
    next["prompt_id"] = "p-next".into();
    hook_ok(&r, "claude-code", &next.to_string());
    r.write("claude.txt", "interrupted at once\n");
    hook_ok(&r, "claude-code", &end);
    assert_eq!(
        field(&note(&r, &ref_for(claude, 3)), "status"),
        Some("interrupted")
    );
}

#[test]
fn a_failure_without_ids_after_the_sessions_end_marks_that_turn_failed() {
    // An older Claude Code's StopFailure carries no prompt id; detached, it
    // may run after SessionEnd captured the turn as unended.
    let r = TestRepo::seeded();
    let claude = "be180a0b-7a3c-486a-9650-b8980928024b";
    let ct = empty_file(&r, "claude.jsonl");
    hook_ok(
        &r,
        "claude-code",
        &recorded("claude-2.1-user-prompt-submit.json", &r.root, &ct),
    );
    r.write("claude.txt", "edit\n");
    let end = recorded("claude-2.1-session-end.json", &r.root, &ct)
        .replace("00000006-0000-0000-0000-000000000000", claude);
    hook_ok(&r, "claude-code", &end);
    assert_eq!(
        field(&note(&r, &ref_for(claude, 1)), "status"),
        Some("interrupted")
    );
    let failure = serde_json::json!({"hook_event_name": "StopFailure", "session_id": claude,
                                     "transcript_path": ct, "cwd": r.root});
    hook_ok(&r, "claude-code", &failure.to_string());
    assert_eq!(field(&note(&r, &ref_for(claude, 1)), "status"), Some("error"));
    assert_eq!(r.refs(&ref_for(claude, 2)), Vec::<String>::new());
}

#[test]
fn a_background_agents_edits_are_its_own_turn_and_a_notification_is_never_a_title() {
    let r = TestRepo::seeded();
    let thread = "be180a0b-7a3c-486a-9650-b8980928024b";
    let t = empty_file(&r, "claude.jsonl");
    hook_ok(
        &r,
        "claude-code",
        &recorded("claude-2.1-user-prompt-submit.json", &r.root, &t),
    );
    r.write("main.txt", "the main turn\n");
    hook_ok(&r, "claude-code", &recorded("claude-2.1-stop.json", &r.root, &t));
    // The background subagent writes after the main turn's Stop.
    r.write("sub.txt", "the subagent's work\n");
    hook_ok(
        &r,
        "claude-code",
        &recorded("claude-2.1-task-notification.json", &r.root, &t),
    );
    let n2 = note(&r, &ref_for(thread, 2));
    assert_eq!(field(&n2, "title"), Some("bg helper (background agent's edits)"));
    assert_eq!(field(&n2, "agent"), Some("claude-code"));
    let diff = r.t3_json(&["diff", "--thread", thread, "--turn", "2"]);
    let files: Vec<&str> = diff["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["sub.txt"]);
    // The turn that answers the notification is titled after it.
    r.write("after.txt", "the reply\n");
    hook_ok(
        &r,
        "claude-code",
        &recorded("claude-2.1-stop.json", &r.root, &t).replace(
            "bd147bcf-6a49-46f8-abe1-03984827fabd",
            "05e071f7-8202-4e38-ab10-82a41258d243",
        ),
    );
    let n3 = note(&r, &ref_for(thread, 3));
    assert_eq!(field(&n3, "title"), Some("bg helper finished (background agent)"));
    assert!(!field(&n3, "title").unwrap().contains('<'));
}

#[test]
fn the_hooks_claude_code_does_not_wait_for_detach() {
    // Claude Code kills its StopFailure and SessionEnd hooks as it exits:
    // the capture runs in a copy in its own session, which the hook waits
    // for, and which finishes when the hook is killed.
    use std::time::{Duration, Instant};
    let r = TestRepo::seeded();
    let thread = "be180a0b-7a3c-486a-9650-b8980928024b";
    let t = empty_file(&r, "claude.jsonl");
    let prompt = recorded("claude-2.1-user-prompt-submit.json", &r.root, &t);
    let end = recorded("claude-2.1-session-end.json", &r.root, &t)
        .replace("00000006-0000-0000-0000-000000000000", thread);
    let status = |turn: u64| {
        let want = ref_for(thread, turn);
        (r.git_in(&r.root, &["notes", "--ref=t3", "show", &want]).code == 0)
            .then(|| note(&r, &want)["status"].as_str().unwrap_or_default().to_owned())
    };
    // Waited for: the capture is there when the hook returns.
    hook_ok(&r, "claude-code", &prompt);
    r.write("a.txt", "work\n");
    let run = r.t3_with(r.tmp(), &["hook", "claude-code"], Some(end.as_bytes()), &[]);
    assert_eq!((run.code, run.out().as_str()), (0, ""), "{}", run.stderr);
    assert_eq!(status(1).as_deref(), Some("interrupted"));
    // Killed: the repository lock held here stalls the copy; the hook is
    // killed; the copy captures once the lock goes.
    hook_ok(&r, "claude-code", &prompt);
    r.write("b.txt", "more work\n");
    let lock = std::fs::File::options()
        .read(true)
        .write(true)
        .open(r.root.join(".git/t3/lock"))
        .unwrap();
    lock.lock().unwrap();
    let events = r.tmp().join("events");
    let mut hook = spawn_claude_hook(&r, &[("T3_TEST_EVENTS", events.to_str().unwrap())]);
    {
        use std::io::Write as _;
        let mut stdin = hook.stdin.take().unwrap();
        stdin.write_all(end.as_bytes()).unwrap();
    }
    // The copy (the hook itself takes no lock) waits for the lock.
    let (copy, _) = crate::util::wait_for_event(&events, "lock-wait");
    assert_ne!(copy, hook.id(), "the hook itself waited for the lock");
    hook.kill().unwrap();
    hook.wait().unwrap();
    assert_eq!(status(2), None, "captured while the lock was held");
    lock.unlock().unwrap();
    let started = Instant::now();
    while status(2).is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the detached copy did not capture"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(status(2).as_deref(), Some("interrupted"));
    // Let the copy finish before the repository goes.
    r.t3(&["verify"]).ok();
}

#[test]
fn a_hook_outside_a_repository_is_silent() {
    // A hook installed for the user runs wherever the agent is started.
    let r = TestRepo::seeded();
    let outside = r.tmp().join("not-a-repo");
    std::fs::create_dir_all(&outside).unwrap();
    for (agent, name) in [
        ("claude-code", "claude-user-prompt-submit.json"),
        ("claude-code", "claude-stop.json"),
        ("claude-code", "claude-2.1-session-end.json"),
        ("codex", "codex-user-prompt-submit.json"),
        ("codex", "codex-stop.json"),
        ("codex", "codex-0171-interrupt.json"),
    ] {
        let input = payload(name, &outside).replace("TRANSCRIPT", "/nonexistent");
        let h = hook_in(&r, &outside, agent, &input, &[]);
        assert_eq!(
            (h.code, h.out.as_str(), h.err.as_str()),
            (0, "", ""),
            "{agent} {name}"
        );
    }
}

#[test]
fn an_interrupt_without_a_running_turn_changes_nothing() {
    let r = TestRepo::seeded();
    let thread = "01a24e7c-106d-7ce1-b41c-baf059f4de37";
    let t = empty_file(&r, "rollout.jsonl");
    hook_ok(
        &r,
        "codex",
        &recorded("codex-0171-user-prompt-submit.json", &r.root, &t),
    );
    r.write("done.txt", "finished\n");
    let stop = recorded("codex-0171-interrupt.json", &r.root, &t).replace("\"Interrupt\"", "\"Stop\"");
    hook_ok(&r, "codex", &stop);
    assert_eq!(field(&note(&r, &ref_for(thread, 1)), "status"), Some("ready"));
    let before = r.refs("refs/t3/");
    // An interrupt after the turn ended, with its turn id or without one.
    hook_ok(&r, "codex", &recorded("codex-0171-interrupt.json", &r.root, &t));
    let no_id = recorded("codex-0171-interrupt.json", &r.root, &t)
        .replace("\"turn_id\": \"01a24e7c-1088-7c33-ad38-d4a3e6fa5dca\", ", "");
    hook_ok(&r, "codex", &no_id);
    assert_eq!(field(&note(&r, &ref_for(thread, 1)), "status"), Some("ready"));
    assert_eq!(r.refs("refs/t3/"), before);
}

/// One set of numbers: for each turn of a thread with the user's edits
/// between turns and whitespace-only changes, `list`, `log`, `show`, the
/// review page and `diff --turn N --numstat` give the same figures, and the
/// flags change all of them alike.
#[test]
fn every_view_counts_a_turn_as_diff_does() {
    let r = TestRepo::seeded();
    let at = |p: &str| payload(p, &r.root);
    hook_ok(&r, "claude-code", &at("claude-user-prompt-submit.json"));
    // Turn 1: a new file, and README.md changed only in whitespace.
    r.write("agent1.txt", "one\ntwo\n");
    r.write("README.md", "# demo\n\nline  two\n");
    hook_ok(&r, "claude-code", &at("claude-stop.json"));
    // The user edits src/lib.rs between turns; turn 2 edits agent1.txt.
    r.write("src/lib.rs", "fn a() {}\nfn b() {}\nfn user() {}\n");
    let second = at("claude-user-prompt-submit.json")
        .replace("add a feature\\n\\nwith tests, please", "second prompt")
        .replace("6f2a1c3e", "7a3b2d4f");
    hook_ok(&r, "claude-code", &second);
    r.write("agent1.txt", "one\ntwo\nthree\n");
    let stop2 = at("claude-stop.json").replace("6f2a1c3e", "7a3b2d4f");
    hook_ok(&r, "claude-code", &stop2);

    let numstat = |turn: u64, flags: &[&str]| -> (u64, u64, u64) {
        let t = turn.to_string();
        let mut args = vec!["diff", "--thread", CLAUDE, "--turn", &t, "--numstat"];
        args.extend_from_slice(flags);
        let out = r.t3(&args).ok().out();
        out.lines().fold((0, 0, 0), |(f, a, d), l| {
            let mut p = l.split('\t');
            let n = |x: Option<&str>| x.and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
            (f + 1, a + n(p.next()), d + n(p.next()))
        })
    };
    let of = |c: &serde_json::Value| {
        (
            c["files"].as_u64().unwrap(),
            c["additions"].as_u64().unwrap(),
            c["deletions"].as_u64().unwrap(),
        )
    };
    let server = crate::review_page::Server::start(&r, &[]);
    let page = server.json(&format!("api/turns?thread={CLAUDE}"));
    for (flags, expect) in [
        (&[][..], [(1, 2, 0), (1, 1, 0)]),
        (&["--keep-whitespace"][..], [(2, 3, 1), (1, 1, 0)]),
        (&["--include-user-edits"][..], [(1, 2, 0), (2, 2, 1)]),
    ] {
        let list = r.t3_json(&[&["list", "--thread", CLAUDE][..], flags].concat());
        let log = r.t3_json(&[&["log", "--thread", CLAUDE][..], flags].concat());
        for turn in [1u64, 2] {
            let want = numstat(turn, flags);
            assert_eq!(want, expect[turn as usize - 1], "{flags:?} turn {turn}");
            let t = turn.to_string();
            let show = r.t3_json(&[&["show", "--thread", CLAUDE, "--turn", &t][..], flags].concat());
            let listed = &list["turns"][turn as usize]["counts"];
            let logged = log["turns"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["turn"] == turn)
                .unwrap();
            assert_eq!(of(listed), want, "list {flags:?} turn {turn}: {listed}");
            assert_eq!(of(&logged["counts"]), want, "log {flags:?} turn {turn}");
            assert_eq!(of(&show["counts"]), want, "show {flags:?} turn {turn}");
            if flags.is_empty() {
                assert_eq!(
                    of(&page["turns"][turn as usize]["counts"]),
                    want,
                    "page turn {turn}"
                );
            }
        }
    }
    // What the default leaves out is said, as figures of their own.
    let list = r.t3_json(&["list", "--thread", CLAUDE]);
    assert_eq!(list["turns"][1]["counts"]["whitespace_only"], 1);
    assert_eq!(list["turns"][2]["counts"]["user_edits"], 1);
    let text = r.t3(&["log", "--thread", CLAUDE]).ok().out();
    assert!(text.contains("+ 1 file edited by you"), "{text}");
    assert!(text.contains("1 file changed only in whitespace"), "{text}");
    assert!(server.stop().success());
}
