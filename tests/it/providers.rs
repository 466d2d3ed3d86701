//! The built-in providers: Claude Code's and Codex's conversations rolled
//! back on transcripts shaped like theirs (tests/it/transcripts/),
//! opencode's through a stand-in of its commands (tests/it/fakes/), the
//! backup kept with the revert and put back by `op undo`, `revert --undo`
//! and `revert --abort`, and every transcript path a note may name that is
//! not this thread's conversation file refused before anything changes.

use std::path::{Path, PathBuf};

use crate::util::{TestRepo, ref_for};

/// The session of tests/it/transcripts/claude-session.jsonl.
const CLAUDE: &str = "5f0c9d2e-1b7a-4c1e-9a53-0d6f3e2b8a11";
/// The session of tests/it/transcripts/codex-rollout.jsonl.
const CODEX: &str = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b";

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/it/transcripts")
            .join(name),
    )
    .unwrap()
}

/// The first `n` lines of `data`, terminators included.
fn first_lines(data: &[u8], n: usize) -> Vec<u8> {
    data.split_inclusive(|b| *b == b'\n')
        .take(n)
        .flatten()
        .copied()
        .collect()
}

/// Claude Code's transcript of session `CLAUDE` where Claude Code keeps it.
fn claude_transcript(r: &TestRepo) -> PathBuf {
    let path = r
        .home
        .join(".claude/projects/-home-dev-src-demo")
        .join(format!("{CLAUDE}.jsonl"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, fixture("claude-session.jsonl")).unwrap();
    path
}

/// Codex's rollout of session `CODEX` where Codex keeps it.
fn codex_rollout(r: &TestRepo) -> PathBuf {
    let path = r
        .home
        .join(".codex/sessions/2026/08/01")
        .join(format!("rollout-2026-08-01T10-00-00-{CODEX}.jsonl"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, fixture("codex-rollout.jsonl")).unwrap();
    path
}

/// Set `fields` (strings) in the note of `turn` of `thread`, as the agent
/// hooks record them.
fn set_note(r: &TestRepo, thread: &str, turn: u64, fields: &[(&str, &str)]) {
    let reference = ref_for(thread, turn);
    let commit = r.git(&["rev-parse", &reference]);
    let mut note: toml::Table = r.note(&reference).parse().unwrap();
    for (k, v) in fields {
        note.insert((*k).to_owned(), toml::Value::String((*v).to_owned()));
    }
    let blob = r.hash_object(&[], toml::to_string(&note).unwrap().as_bytes());
    r.git(&["notes", "--ref=refs/notes/t3", "add", "-f", "-C", &blob, &commit]);
}

/// A thread of three turns driven by `provider`, whose notes name
/// `transcript` and the prompt ids `prompts` (turn 1, 2, 3).
fn agent_thread(r: &TestRepo, thread: &str, provider: &str, transcript: &Path, prompts: [&str; 3]) {
    r.t3(&["baseline", "--thread", thread, "--provider", provider])
        .ok();
    for (i, prompt) in prompts.iter().enumerate() {
        let turn = i as u64 + 1;
        r.write(&format!("t{turn}.txt"), &format!("turn {turn}\n"));
        r.t3(&["capture", "--thread", thread, "--agent", provider]).ok();
        set_note(
            r,
            thread,
            turn,
            &[
                ("transcript", transcript.to_str().unwrap()),
                ("prompt_id", prompt),
            ],
        );
    }
}

fn claude_thread(r: &TestRepo) -> PathBuf {
    let path = claude_transcript(r);
    agent_thread(r, CLAUDE, "claude-code", &path, ["p-1", "p-2", "p-3"]);
    path
}

/// What a refused revert must leave alone.
fn state(r: &TestRepo) -> (Vec<String>, String, String) {
    (
        r.refs("refs/"),
        r.oracle_tree(),
        r.git(&["rev-parse", "refs/notes/t3"]),
    )
}

#[test]
fn claude_revert_cuts_the_transcript_and_op_undo_puts_it_back_byte_for_byte() {
    let r = TestRepo::seeded();
    let path = claude_thread(&r);
    let original = fixture("claude-session.jsonl");
    let out = r.t3_json(&["revert", "--thread", CLAUDE, "--to", "1"]);
    // The conversation before turn 2's prompt: its first 7 lines, the
    // prompt's file-history-snapshot (line 8) gone with the prompt.
    let cut = first_lines(&original, 7);
    assert_eq!(std::fs::read(&path).unwrap(), cut);
    assert_eq!(out["rolled_back_turns"], 2);
    let t = &out["transcripts"][0];
    assert_eq!(t["agent"], "claude-code");
    assert_eq!(
        Path::new(t["path"].as_str().unwrap()),
        std::fs::canonicalize(&path).unwrap()
    );
    assert!(
        t["how"]
            .as_str()
            .unwrap()
            .contains("turn 2's prompt on, cut before line 9"),
        "{t}"
    );
    // The backup is a blob of the revert's op, and so survives gc.
    let backup = t["backup"].as_str().unwrap();
    let op = r.git(&["rev-parse", "refs/t3/ops"]);
    assert_eq!(
        r.git(&["rev-parse", &format!("{op}:transcripts/0.before")]),
        backup
    );
    let shown = r.t3_json(&["op", "show", &op]);
    assert_eq!(shown["transcripts"][0]["before"], backup, "{shown}");
    assert_eq!(shown["provider"], "claude-code");
    r.git(&["gc", "--quiet", "--prune=now"]);
    let kept = r.git_in(&r.root, &["cat-file", "blob", backup]).ok();
    assert_eq!(kept.stdout, original);

    r.t3(&["op", "undo"]).ok();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        original,
        "not put back byte for byte"
    );
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 4);
    // The undo is an op too: undoing it (by name: a bare `op undo` walks
    // further back) cuts the conversation again.
    let undo = r.git(&["rev-parse", "refs/t3/ops"]);
    r.t3(&["op", "undo", &undo]).ok();
    assert_eq!(std::fs::read(&path).unwrap(), cut);
    r.git(&["fsck", "--no-progress"]);
}

#[test]
fn revert_undo_puts_the_conversation_back_and_refuses_over_newer_work_without_force() {
    let r = TestRepo::seeded();
    let path = claude_thread(&r);
    let original = fixture("claude-session.jsonl");
    r.t3(&["revert", "--thread", CLAUDE, "--to", "2"]).ok();
    let cut = first_lines(&original, 15);
    assert_eq!(std::fs::read(&path).unwrap(), cut);
    let out = r.t3(&["revert", "--undo", "--thread", CLAUDE]).ok();
    assert!(!out.stderr.contains("not restored"), "{}", out.stderr);
    assert_eq!(std::fs::read(&path).unwrap(), original);

    // Revert again, then the agent goes on in the same session.
    r.t3(&["revert", "--thread", CLAUDE, "--to", "2"]).ok();
    let went_on = [
        cut.clone(),
        b"{\"type\":\"user\",\"uuid\":\"u-9\",\"parentUuid\":\"a-2b\",\"promptId\":\"p-9\",\"message\":{\"role\":\"user\",\"content\":\"and now?\"}}\n".to_vec(),
    ]
    .concat();
    std::fs::write(&path, &went_on).unwrap();
    let before = state(&r);
    let out = r.t3(&["revert", "--undo", "--thread", CLAUDE]).fails(1);
    assert!(
        out.stderr.contains("changed since") && out.stderr.contains("--force"),
        "{}",
        out.stderr
    );
    assert_eq!(state(&r), before, "a refused undo changed something");
    assert_eq!(std::fs::read(&path).unwrap(), went_on);
    // --force puts the backup back and keeps what the agent wrote in the log.
    r.t3(&["revert", "--undo", "--force", "--thread", CLAUDE]).ok();
    assert_eq!(std::fs::read(&path).unwrap(), original);
    r.t3(&["op", "undo"]).ok();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        went_on,
        "the newer conversation was lost"
    );
}

#[test]
fn abort_puts_the_transcript_back_once_the_provider_step_ran() {
    for (fault, changed) in [("after-restore", false), ("after-provider", true)] {
        for finish in ["--abort", "--continue"] {
            let r = TestRepo::seeded();
            let path = claude_thread(&r);
            let original = fixture("claude-session.jsonl");
            let out = r.t3_env(
                &["revert", "--thread", CLAUDE, "--to", "1"],
                &[("T3_TEST_FAULT", fault)],
            );
            assert_ne!(out.code, 0, "{fault}: the fault did not fire");
            let now = std::fs::read(&path).unwrap();
            assert_eq!(now != original, changed, "{fault}: the transcript");
            r.t3(&["revert", finish, "--thread", CLAUDE]).ok();
            let want = if finish == "--abort" {
                original.clone()
            } else {
                first_lines(&original, 7)
            };
            assert_eq!(std::fs::read(&path).unwrap(), want, "{fault} {finish}");
            assert!(r.refs("refs/t3/reverts/").is_empty());
        }
    }
}

#[test]
fn codex_revert_appends_a_rollback_marker_and_undo_takes_it_away() {
    let r = TestRepo::seeded();
    let path = codex_rollout(&r);
    agent_thread(&r, CODEX, "codex", &path, ["turn-1", "turn-2", "turn-3"]);
    let original = fixture("codex-rollout.jsonl");
    let out = r.t3_json(&["revert", "--thread", CODEX, "--to", "1"]);
    let now = std::fs::read(&path).unwrap();
    assert!(now.starts_with(&original), "the rollout was not appended to");
    let added = &now[original.len()..];
    assert!(added.ends_with(b"\n") && added.iter().filter(|b| **b == b'\n').count() == 1);
    let marker: serde_json::Value = serde_json::from_slice(added).unwrap();
    assert_eq!(marker["type"], "event_msg");
    assert_eq!(marker["payload"]["type"], "thread_rolled_back");
    assert_eq!(marker["payload"]["num_turns"], 2);
    assert!(marker["timestamp"].as_str().unwrap().ends_with('Z'));
    assert_eq!(out["transcripts"][0]["agent"], "codex");
    r.t3(&["revert", "--undo", "--thread", CODEX]).ok();
    assert_eq!(std::fs::read(&path).unwrap(), original);
    // Back to turn 0: every turn of the conversation.
    r.t3(&["revert", "--thread", CODEX, "--to", "0"]).ok();
    let now = std::fs::read(&path).unwrap();
    let marker: serde_json::Value = serde_json::from_slice(&now[original.len()..]).unwrap();
    assert_eq!(marker["payload"]["num_turns"], 3);
}

#[test]
fn dry_run_says_what_would_happen_to_the_conversation_and_changes_nothing() {
    let r = TestRepo::seeded();
    let path = claude_thread(&r);
    let before = state(&r);
    let out = r.t3_json(&["revert", "--thread", CLAUDE, "--to", "1", "--dry-run"]);
    assert_eq!(out["rolled_back_turns"], 2);
    assert!(
        out["transcripts"][0]["how"]
            .as_str()
            .unwrap()
            .contains("cut before"),
        "{out}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), fixture("claude-session.jsonl"));
    assert_eq!(state(&r), before);
    let text = r
        .t3(&["revert", "--thread", CLAUDE, "--to", "1", "--dry-run"])
        .ok()
        .out();
    assert!(
        text.contains("would change the claude-code conversation"),
        "{text}"
    );
}

#[test]
fn hostile_transcript_paths_are_refused_before_anything_changes() {
    let r = TestRepo::seeded();
    let real = claude_thread(&r);
    let bashrc = r.home.join(".bashrc");
    std::fs::write(&bashrc, "export PATH=$HOME/bin:$PATH\n").unwrap();
    let projects = r.home.join(".claude/projects");
    // A symlink named like this session's transcript, pointing at ~/.bashrc.
    let planted = projects.join("-planted").join(format!("{CLAUDE}.jsonl"));
    std::fs::create_dir_all(planted.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&bashrc, &planted).unwrap();
    // A symlinked project directory leading out of the data directory.
    let outside = r.tmp().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join(format!("{CLAUDE}.jsonl")),
        fixture("claude-session.jsonl"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&outside, projects.join("-linked")).unwrap();
    // Another conversation of the same user.
    let other = projects.join("-home-dev-src-demo/0b6e3c59-0000-4000-8000-000000000000.jsonl");
    std::fs::write(&other, fixture("claude-session.jsonl")).unwrap();
    let hostile = [
        bashrc.display().to_string(),
        format!("{}/-home-dev-src-demo/../../../.bashrc", projects.display()),
        planted.display().to_string(),
        projects
            .join("-linked")
            .join(format!("{CLAUDE}.jsonl"))
            .display()
            .to_string(),
        other.display().to_string(),
        format!("{}/{CLAUDE}.jsonl", outside.display()),
        "~/.claude/projects/x.jsonl".to_owned(),
    ];
    for path in &hostile {
        for turn in [2, 3] {
            set_note(&r, CLAUDE, turn, &[("transcript", path)]);
        }
        let before = state(&r);
        for args in [&["--dry-run"][..], &[]] {
            let mut all = vec!["revert", "--thread", CLAUDE, "--to", "1"];
            all.extend_from_slice(args);
            let out = r.t3(&all).fails(1);
            assert!(
                out.stderr.contains("refused the transcript") && out.stderr.contains("--files-only"),
                "{path}: {}",
                out.stderr
            );
        }
        assert_eq!(state(&r), before, "{path}: a refused revert changed something");
    }
    assert_eq!(
        std::fs::read_to_string(&bashrc).unwrap(),
        "export PATH=$HOME/bin:$PATH\n"
    );
    assert_eq!(std::fs::read(&other).unwrap(), fixture("claude-session.jsonl"));
    assert_eq!(std::fs::read(&real).unwrap(), fixture("claude-session.jsonl"));
    // The files alone can still be reverted.
    let out = r
        .t3(&["revert", "--thread", CLAUDE, "--to", "1", "--files-only"])
        .ok();
    assert!(out.stderr.contains("not rolled back"), "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(&bashrc).unwrap(),
        "export PATH=$HOME/bin:$PATH\n"
    );
}

#[test]
fn what_a_revert_cannot_find_stops_it_unless_files_only() {
    let r = TestRepo::seeded();
    let path = claude_transcript(&r);
    r.t3(&["baseline", "--thread", CLAUDE, "--provider", "claude-code"])
        .ok();
    for turn in 1..=3 {
        r.write(&format!("t{turn}.txt"), "x\n");
        r.t3(&["capture", "--thread", CLAUDE]).ok();
    }
    let refuses = |want: &str| {
        let before = state(&r);
        let out = r.t3(&["revert", "--thread", CLAUDE, "--to", "1"]).fails(1);
        assert!(
            out.stderr.contains(want) && out.stderr.contains("--files-only"),
            "{want}: {}",
            out.stderr
        );
        assert_eq!(state(&r), before, "{want}: a refused revert changed something");
    };
    // No note says where the conversation is (hooks that did not record it).
    refuses("no note of this thread says where Claude Code keeps its conversation");
    // Turn 2 says where, but not which prompt started it.
    set_note(&r, CLAUDE, 2, &[("transcript", path.to_str().unwrap())]);
    refuses("does not say which prompt started it");
    // A prompt that is not in the transcript.
    set_note(&r, CLAUDE, 2, &[("prompt_id", "p-elsewhere")]);
    refuses("is not in");
    // The transcript is gone (Claude Code removes old sessions).
    set_note(&r, CLAUDE, 2, &[("prompt_id", "p-2")]);
    std::fs::remove_file(&path).unwrap();
    refuses("is gone");
    // Half a line at the end: Claude Code is writing it.
    std::fs::write(
        &path,
        [&fixture("claude-session.jsonl")[..], b"{\"type\":\"us"].concat(),
    )
    .unwrap();
    refuses("still running");
    r.t3(&["revert", "--thread", CLAUDE, "--to", "1", "--files-only"])
        .ok();
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 2);
}

#[test]
fn cursor_threads_stop_before_changing_anything() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", "t", "--provider", "cursor"]).ok();
    r.write("a.txt", "a\n");
    r.t3(&["capture", "--thread", "t"]).ok();
    let before = state(&r);
    let out = r.t3(&["revert", "--thread", "t", "--to", "0"]).fails(1);
    assert!(
        out.stderr.contains("from outside")
            && out.stderr.contains("--files-only")
            && out.stderr.contains("Cursor"),
        "{}",
        out.stderr
    );
    assert_eq!(state(&r), before);
    r.t3(&["revert", "--thread", "t", "--to", "0", "--files-only"])
        .ok();
    assert!(!r.root.join("a.txt").exists());
}

/// The opencode session `OPENCODE` of three prompts, kept by the stand-in
/// opencode (tests/it/fakes/opencode, first on PATH), and a thread of three
/// turns whose notes name the prompts' message ids. Returns the session's
/// file.
const OPENCODE: &str = "ses_4c1e9a530d6f3e2b8a11Demo";

fn opencode_thread(r: &TestRepo) -> PathBuf {
    let message = |id: &str, role: &str| {
        serde_json::json!({"info": {"id": id, "sessionID": OPENCODE, "role": role, "time": {"created": 1}},
                           "parts": [{"id": format!("prt_{id}"), "type": "text", "text": id}]})
    };
    let mut messages = Vec::new();
    for turn in 1..=3 {
        messages.push(message(&format!("msg_{turn}0"), "user"));
        messages.push(message(&format!("msg_{turn}1"), "assistant"));
        messages.push(message(&format!("msg_{turn}2"), "assistant"));
    }
    let doc = serde_json::json!({"info": {"id": OPENCODE, "directory": r.root}, "messages": messages});
    let file = r.tmp().join("opencode-session.json");
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    fake_opencode_on_path(r);
    r.extra_env_set("T3_FAKE_OPENCODE", file.to_str().unwrap());
    r.t3(&["baseline", "--thread", OPENCODE, "--provider", "opencode"])
        .ok();
    for turn in 1..=3u64 {
        r.write(&format!("t{turn}.txt"), &format!("turn {turn}\n"));
        r.t3(&["capture", "--thread", OPENCODE, "--agent", "opencode"])
            .ok();
        set_note(r, OPENCODE, turn, &[("prompt_id", &format!("msg_{turn}0"))]);
    }
    file
}

/// The stand-in opencode (tests/it/fakes/opencode) first on PATH.
fn fake_opencode_on_path(r: &TestRepo) {
    let fakes = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fakes");
    let path = format!(
        "{}:{}",
        fakes.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    r.extra_env_set("PATH", &path);
}

fn opencode_messages(file: &Path) -> Vec<String> {
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["info"]["id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn opencode_revert_deletes_the_turns_messages_and_undo_imports_them_back() {
    let r = TestRepo::seeded();
    let file = opencode_thread(&r);
    let all = opencode_messages(&file);
    let out = r.t3_json(&["revert", "--thread", OPENCODE, "--to", "1"]);
    assert_eq!(out["rolled_back_turns"], 2, "{out}");
    assert_eq!(opencode_messages(&file), ["msg_10", "msg_11", "msg_12"]);
    assert!(!r.root.join("t2.txt").exists());
    // Only the messages of turns 2 and 3 were named in the query.
    let log = std::fs::read_to_string(file.with_extension("json.log")).unwrap();
    let query = log.lines().find(|l| l.contains("DELETE")).unwrap();
    assert!(
        query.contains("'msg_20'") && query.contains("'msg_32'") && !query.contains("'msg_12'"),
        "{query}"
    );
    r.t3(&["revert", "--thread", OPENCODE, "--undo"]).ok();
    assert_eq!(opencode_messages(&file), all);
    assert!(r.root.join("t3.txt").exists());
}

#[test]
fn opencode_without_its_program_or_with_a_hostile_session_stops_before_changing_anything() {
    let r = TestRepo::seeded();
    let file = opencode_thread(&r);
    let before = state(&r);
    let bytes = std::fs::read(&file).unwrap();
    // No opencode on PATH.
    r.extra_env_set("PATH", "/usr/bin:/bin");
    let out = r.t3(&["revert", "--thread", OPENCODE, "--to", "1"]).fails(1);
    assert!(
        out.stderr.contains("`opencode` is not on PATH") && out.stderr.contains("--files-only"),
        "{}",
        out.stderr
    );
    assert_eq!(state(&r), before);
    // A message id that is not a plain id, after the cut.
    fake_opencode_on_path(&r);
    let hostile = String::from_utf8(bytes.clone())
        .unwrap()
        .replace("msg_31", "msg_31') OR ('1'='1");
    std::fs::write(&file, &hostile).unwrap();
    let out = r.t3(&["revert", "--thread", OPENCODE, "--to", "1"]).fails(1);
    assert!(out.stderr.contains("no plain id"), "{}", out.stderr);
    assert_eq!(state(&r), before);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), hostile);
    // The prompt is not in the session (cleared in opencode).
    std::fs::write(&file, &bytes).unwrap();
    set_note(&r, OPENCODE, 2, &[("prompt_id", "msg_99")]);
    let out = r.t3(&["revert", "--thread", OPENCODE, "--to", "1"]).fails(1);
    assert!(out.stderr.contains("is not in"), "{}", out.stderr);
    assert_eq!(opencode_messages(&file).len(), 9);
}

#[test]
fn a_helper_of_the_same_name_overrides_the_built_in_provider() {
    let r = TestRepo::seeded();
    let path = claude_thread(&r);
    let dir = r.tmp().join("helpers");
    std::fs::create_dir_all(&dir).unwrap();
    let log = r.tmp().join("called");
    let helper = dir.join("git-t3-provider-claude-code");
    std::fs::write(&helper, format!("#!/bin/sh\ncat > '{}'\n", log.display())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&helper, std::fs::Permissions::from_mode(0o755)).unwrap();
    r.extra_env_set(
        "PATH",
        &format!("{}:{}", dir.display(), std::env::var("PATH").unwrap_or_default()),
    );
    let out = r.t3_json(&["revert", "--thread", CLAUDE, "--to", "1"]);
    assert!(log.exists(), "the helper did not run");
    assert_eq!(out["transcripts"], serde_json::json!([]));
    assert_eq!(std::fs::read(&path).unwrap(), fixture("claude-session.jsonl"));
}

#[test]
fn claude_config_dir_and_codex_home_move_the_accepted_directory() {
    let r = TestRepo::seeded();
    let path = claude_thread(&r);
    let elsewhere = r.tmp().join("claude-config");
    std::fs::create_dir_all(elsewhere.join("projects")).unwrap();
    // With CLAUDE_CONFIG_DIR set elsewhere, ~/.claude is not Claude Code's.
    let out = r
        .t3_env(
            &["revert", "--thread", CLAUDE, "--to", "1"],
            &[("CLAUDE_CONFIG_DIR", elsewhere.to_str().unwrap())],
        )
        .fails(1);
    assert!(out.stderr.contains("refused the transcript"), "{}", out.stderr);
    assert_eq!(std::fs::read(&path).unwrap(), fixture("claude-session.jsonl"));
    // Moved there, it is accepted.
    let moved = elsewhere.join("projects/-demo").join(format!("{CLAUDE}.jsonl"));
    std::fs::create_dir_all(moved.parent().unwrap()).unwrap();
    std::fs::rename(&path, &moved).unwrap();
    for turn in 1..=3 {
        set_note(&r, CLAUDE, turn, &[("transcript", moved.to_str().unwrap())]);
    }
    r.t3_env(
        &["revert", "--thread", CLAUDE, "--to", "1"],
        &[("CLAUDE_CONFIG_DIR", elsewhere.to_str().unwrap())],
    )
    .ok();
    assert_eq!(
        std::fs::read(&moved).unwrap(),
        first_lines(&fixture("claude-session.jsonl"), 7)
    );
}
