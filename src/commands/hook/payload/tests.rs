//! The unit tests of `payload.rs`.

use super::*;
use serde_json::json;

fn ev(agent: Agent, v: Value) -> Event {
    event(agent, &v, &HookEnv::default()).unwrap()
}

#[test]
fn wrong_types_count_as_absent_but_a_thread_is_required() {
    let e = ev(
        Agent::ClaudeCode,
        json!({"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": 5,
                   "prompt_id": ["x"], "transcript_path": null, "cwd": {"a": 1}}),
    );
    match e.action {
        Action::Prompt { prompt, .. } => assert_eq!(prompt, PromptInfo::default()),
        other => panic!("{other:?}"),
    }
    assert!(e.dirs.is_empty());
    let err = event(
        Agent::ClaudeCode,
        &json!({"hook_event_name": "Stop", "session_id": 7}),
        &HookEnv::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("session_id is not a string"), "{err}");
    assert!(event(Agent::Cursor, &json!([1]), &HookEnv::default()).is_err());
}

#[test]
fn the_project_dir_comes_before_the_payload() {
    let env = HookEnv {
        claude_project_dir: Some("/p".into()),
        cursor_project_dir: Some("/c".into()),
    };
    let v = json!({"hook_event_name": "Stop", "session_id": "s", "cwd": "/w"});
    assert_eq!(
        event(Agent::ClaudeCode, &v, &env).unwrap().dirs,
        [PathBuf::from("/p"), "/w".into()]
    );
    let v = json!({"hook_event_name": "stop", "conversation_id": "c", "workspace_roots": ["/a", 3, "/b"]});
    assert_eq!(
        event(Agent::Cursor, &v, &env).unwrap().dirs,
        [PathBuf::from("/c"), "/a".into(), "/b".into()]
    );
}

#[test]
fn events_map_to_actions() {
    let end = |agent, v| match ev(agent, v).action {
        Action::End { end, .. } => end,
        other => panic!("{other:?}"),
    };
    let e = end(
        Agent::Codex,
        json!({"type": "agent-turn-complete", "thread-id": "t", "turn-id": "7",
                   "input-messages": ["fix it\nplease", "more"]}),
    );
    assert_eq!(
        (e.turn_id.as_deref(), e.title.as_deref()),
        (Some("7"), Some("fix it"))
    );
    let e = end(
        Agent::ClaudeCode,
        json!({"hook_event_name": "StopFailure", "session_id": "s"}),
    );
    assert_eq!(e.state, "failed");
    let e = end(
        Agent::Cursor,
        json!({"hook_event_name": "stop", "conversation_id": "c", "status": "aborted"}),
    );
    assert_eq!(e.state, "cancelled");
    assert!(matches!(
        ev(
            Agent::Opencode,
            json!({"event": "session.idle", "sessionID": "s", "parentID": "p"})
        )
        .action,
        Action::Nothing
    ));
    assert!(matches!(
        ev(
            Agent::Codex,
            json!({"hook_event_name": "SessionStart", "session_id": "s"})
        )
        .action,
        Action::Start { .. }
    ));
    assert!(matches!(
        ev(
            Agent::ClaudeCode,
            json!({"hook_event_name": "PreToolUse", "session_id": "s"})
        )
        .action,
        Action::Nothing
    ));
    assert!(matches!(
        ev(
            Agent::ClaudeCode,
            json!({"hook_event_name": "SessionEnd", "session_id": "s"})
        )
        .action,
        Action::Close { .. }
    ));
    assert!(matches!(
        ev(
            Agent::Codex,
            json!({"hook_event_name": "Interrupt", "session_id": "s", "turn_id": "t"})
        )
        .action,
        Action::End {
            end: TurnEnd {
                state: "interrupted",
                ..
            },
            ..
        }
    ));
    let note = "<task-notification>\n<task-id>a1</task-id>\n<summary>Agent \"bg helper\" finished</summary>\n</task-notification>";
    match ev(
        Agent::ClaudeCode,
        json!({"hook_event_name": "UserPromptSubmit", "session_id": "s", "prompt": note}),
    )
    .action
    {
        Action::Prompt { prompt, .. } => {
            assert_eq!(prompt.background.as_deref(), Some("bg helper"));
            assert_eq!(
                prompt.title.as_deref(),
                Some("bg helper finished (background agent)")
            );
        }
        other => panic!("{other:?}"),
    }
}
