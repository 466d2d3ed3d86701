//! The payloads of opencode (from git t3 plugin) and Cursor.

use super::*;

/// opencode, through git t3's plugin (opencode's plugin hooks run in
/// process; the plugin runs `git t3 hook opencode` with this JSON on stdin):
///
/// - `{"event": "chat.message", "sessionID", "messageID", "prompt",
///   "directory", "parentID"?}` from the `chat.message` hook: the prompt
///   (`messageID` is the user message, the turn's id and where opencode's
///   own revert starts);
/// - `{"event": "session.idle", "sessionID", "directory", "parentID"?,
///   "error"?}` from the `event` hook: the turn ended; `error` is the name
///   of the `session.error` the turn had (`MessageAbortedError`: it was
///   interrupted; any other: it failed).
///
/// A session with a `parentID` is a subagent's (the task tool): nothing.
pub(super) fn opencode(v: &Value) -> Result<Event> {
    let agent = Agent::Opencode;
    let name = event_name(agent, v);
    let child = text(v, "parentID").is_some_and(|p| !p.is_empty());
    let action = match name.as_str() {
        _ if child => Action::Nothing,
        "chat.message" => Action::Prompt {
            thread: thread(agent, v, "sessionID")?,
            prompt: PromptInfo {
                title: title(v, "prompt"),
                prompt_id: id(v, "messageID"),
                turn_id: id(v, "messageID"),
                transcript: None,
                background: None,
            },
        },
        "session.idle" => Action::End {
            thread: thread(agent, v, "sessionID")?,
            end: TurnEnd {
                // The plugin names the session's error, if the turn had one.
                state: match text(v, "error") {
                    None => "completed",
                    Some("MessageAbortedError") => "interrupted",
                    Some(_) => "failed",
                },
                again: false,
                prompt_id: None,
                turn_id: None,
                title: None,
            },
        },
        _ => Action::Nothing,
    };
    Ok(Event {
        name,
        dirs: dirs([dir_field(v, "directory")]),
        action,
    })
}

/// Cursor (`hooks.json`): `beforeSubmitPrompt` (`prompt`), `stop`
/// (`status`: completed, aborted, error); thread `conversation_id`, turn
/// `generation_id`; the repository `$CURSOR_PROJECT_DIR`, else the
/// workspace roots in order.
pub(super) fn cursor(v: &Value, env: &HookEnv) -> Result<Event> {
    let agent = Agent::Cursor;
    let name = event_name(agent, v);
    let action = match name.as_str() {
        "beforeSubmitPrompt" => Action::Prompt {
            thread: thread(agent, v, "conversation_id")?,
            prompt: PromptInfo {
                title: title(v, "prompt"),
                prompt_id: id(v, "generation_id"),
                turn_id: id(v, "generation_id"),
                transcript: path(v, "transcript_path"),
                background: None,
            },
        },
        "stop" => Action::End {
            thread: thread(agent, v, "conversation_id")?,
            end: TurnEnd {
                state: match text(v, "status") {
                    Some("aborted") => "cancelled",
                    Some("error") => "failed",
                    _ => "completed",
                },
                again: false,
                prompt_id: None,
                turn_id: id(v, "generation_id"),
                title: None,
            },
        },
        _ => Action::Nothing,
    };
    let roots = v
        .get("workspace_roots")
        .and_then(Value::as_array)
        .map(|roots| {
            roots
                .iter()
                .filter_map(Value::as_str)
                .filter(|s| s.len() <= MAX_PATH_BYTES && !s.contains('\0'))
                .take(16)
                .map(|s| Some(PathBuf::from(s)))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    Ok(Event {
        name,
        dirs: dirs(std::iter::once(env.cursor_project_dir.clone()).chain(roots)),
        action,
    })
}
