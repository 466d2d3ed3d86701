//! Each agent's hook payload, as its documentation shapes it, turned into
//! one agent-neutral [`Event`]. Payloads are untrusted: any JSON, of any
//! size, with fields of the wrong type. A field of the wrong type counts as
//! absent; only a thread id the event needs is required.

use std::path::PathBuf;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::model::thread::ThreadId;
use crate::record;

mod opencode_cursor;
use opencode_cursor::*;

pub use crate::model::agent::Agent;

/// What the hook was told, agent-neutral.
#[derive(Debug)]
pub struct Event {
    /// The agent's name for the event (`UserPromptSubmit`, `stop`, …; the
    /// `type` of a Codex notify payload).
    pub name: String,
    /// Where the repository is, in order of preference (the first that is a
    /// repository with a worktree wins); empty: the current directory.
    pub dirs: Vec<PathBuf>,
    /// What to do.
    pub action: Action,
}

/// What an event asks for.
#[derive(Debug)]
pub enum Action {
    /// Not an event git t3 acts on.
    Nothing,
    /// A session started: a baseline if the thread has none.
    Start {
        /// The thread.
        thread: ThreadId,
    },
    /// A prompt was submitted: a baseline if the thread has none, and what
    /// the next turn's note will say.
    Prompt {
        /// The thread.
        thread: ThreadId,
        /// What the prompt says about the turn it starts.
        prompt: PromptInfo,
    },
    /// The turn ended: capture it.
    End {
        /// The thread.
        thread: ThreadId,
        /// How it ended.
        end: TurnEnd,
    },
    /// The session ended (Claude Code's and Codex's `SessionEnd`): a turn
    /// still pending never got its end (interrupted, or its model call
    /// failed): capture it, with what its transcript says.
    Close {
        /// The thread.
        thread: ThreadId,
        /// The agent's transcript file, when the payload names it.
        transcript: Option<String>,
    },
}

/// What a prompt tells about the turn it starts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptInfo {
    /// The title: the prompt's first line.
    pub title: Option<String>,
    /// The agent's id of the prompt.
    pub prompt_id: Option<String>,
    /// The agent's id of the turn.
    pub turn_id: Option<String>,
    /// The agent's transcript file.
    pub transcript: Option<String>,
    /// A prompt the agent made up itself to say a background task (a
    /// subagent) finished (Claude Code's `<task-notification>`): the task's
    /// description. Its edits since the last turn are the agent's.
    pub background: Option<String>,
}

/// Claude Code's prompt telling that a background task finished:
/// `<task-notification>…<summary>Agent "NAME" finished</summary>…`; the
/// task's name (else its summary, else a generic one).
fn task_notification(prompt: &str) -> Option<String> {
    let body = prompt.trim_start().strip_prefix("<task-notification>")?;
    let summary = body
        .split_once("<summary>")
        .and_then(|(_, rest)| rest.split_once("</summary>"))
        .map(|(s, _)| s.trim());
    let name = summary.and_then(|s| {
        let (_, rest) = s.split_once('"')?;
        let (name, _) = rest.rsplit_once('"')?;
        Some(name)
    });
    let chosen = name
        .or(summary)
        .filter(|s| !s.is_empty())
        .unwrap_or("background task");
    record::title_of(chosen).or_else(|| Some("background task".to_owned()))
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnEnd {
    /// The agent's turn state (`completed`, `failed`, `cancelled`).
    pub state: &'static str,
    /// The agent went on after an earlier end of the same turn (Claude
    /// Code's and Codex's `stop_hook_active`): capture that turn again.
    pub again: bool,
    /// The agent's id of the prompt the turn answers, when the end says.
    pub prompt_id: Option<String>,
    /// The agent's id of the turn, when the end says.
    pub turn_id: Option<String>,
    /// A title, when the end tells the prompt (Codex notify's
    /// `input-messages`) and no prompt hook did.
    pub title: Option<String>,
}

/// The environment variables the hooks read (at the edge, `app`).
#[derive(Debug, Clone, Default)]
pub struct HookEnv {
    /// `CLAUDE_PROJECT_DIR`: the project Claude Code was started in.
    pub claude_project_dir: Option<PathBuf>,
    /// `CURSOR_PROJECT_DIR`: Cursor's workspace root.
    pub cursor_project_dir: Option<PathBuf>,
}

/// The longest id (prompt, turn) kept; a longer one is dropped.
const MAX_ID_BYTES: usize = 256;
/// The longest path (transcript, directory) kept; a longer one is dropped.
const MAX_PATH_BYTES: usize = 4096;

/// The payload as JSON, or why it is not.
pub fn parse_json(agent: Agent, payload: &[u8]) -> Result<Value> {
    serde_json::from_slice(payload).map_err(|e| Error::BadInput {
        source_name: format!("the {} hook payload", agent.name()),
        problem: if payload.iter().all(u8::is_ascii_whitespace) {
            "it is empty".to_owned()
        } else {
            format!("not JSON: {e}")
        },
    })
}

/// The event `v` describes for `agent`.
pub fn event(agent: Agent, v: &Value, env: &HookEnv) -> Result<Event> {
    if !v.is_object() {
        return Err(Error::BadInput {
            source_name: format!("the {} hook payload", agent.name()),
            problem: "not a JSON object".into(),
        });
    }
    match agent {
        Agent::ClaudeCode => claude_code(v, env),
        Agent::Codex => codex(v),
        Agent::Opencode => opencode(v),
        Agent::Cursor => cursor(v, env),
    }
}

/// The name of the event `v` carries for `agent` (`""` when none), as far
/// as the answer's shape depends on it.
pub fn event_name(agent: Agent, v: &Value) -> String {
    let key = match agent {
        Agent::Opencode => "event",
        _ if agent == Agent::Codex && v.get("hook_event_name").is_none() => "type",
        _ => "hook_event_name",
    };
    text(v, key).unwrap_or_default().to_owned()
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// A short id: a non-empty string of at most [`MAX_ID_BYTES`].
fn id(v: &Value, key: &str) -> Option<String> {
    text(v, key)
        .filter(|s| !s.trim().is_empty() && s.len() <= MAX_ID_BYTES)
        .map(str::to_owned)
}

/// A path: a non-empty string of at most [`MAX_PATH_BYTES`] without NUL.
fn path(v: &Value, key: &str) -> Option<String> {
    text(v, key)
        .filter(|s| !s.is_empty() && s.len() <= MAX_PATH_BYTES && !s.contains('\0'))
        .map(str::to_owned)
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool) == Some(true)
}

fn title(v: &Value, key: &str) -> Option<String> {
    text(v, key).and_then(record::title_of)
}

/// The thread id in `key`, required.
fn thread(agent: Agent, v: &Value, key: &str) -> Result<ThreadId> {
    let raw = match v.get(key) {
        Some(Value::String(s)) => s,
        Some(_) => {
            return Err(Error::BadInput {
                source_name: format!("the {} hook payload", agent.name()),
                problem: format!("{key} is not a string"),
            });
        }
        None => {
            return Err(Error::BadInput {
                source_name: format!("the {} hook payload", agent.name()),
                problem: format!("no {key}"),
            });
        }
    };
    ThreadId::parse(raw).map_err(|e| Error::BadInput {
        source_name: format!("the {} hook payload", agent.name()),
        problem: format!("{key}: {e}"),
    })
}

fn dirs(candidates: impl IntoIterator<Item = Option<PathBuf>>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for d in candidates.into_iter().flatten() {
        if !d.as_os_str().is_empty() && !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

fn dir_field(v: &Value, key: &str) -> Option<PathBuf> {
    path(v, key).map(PathBuf::from)
}

/// Claude Code (hooks reference, "Common input fields" and per-event
/// input): `UserPromptSubmit` (`prompt`, `prompt_id`, `transcript_path`),
/// `Stop` (`stop_hook_active`), `StopFailure` (an API error ended the turn);
/// thread `session_id`; the repository `$CLAUDE_PROJECT_DIR`, else `cwd`.
fn claude_code(v: &Value, env: &HookEnv) -> Result<Event> {
    let agent = Agent::ClaudeCode;
    let name = event_name(agent, v);
    let action = match name.as_str() {
        "UserPromptSubmit" => {
            let background = text(v, "prompt").and_then(task_notification);
            Action::Prompt {
                thread: thread(agent, v, "session_id")?,
                prompt: PromptInfo {
                    // Never the notification's markup as a title.
                    title: match &background {
                        Some(task) => Some(format!("{task} finished (background agent)")),
                        None => title(v, "prompt"),
                    },
                    prompt_id: id(v, "prompt_id"),
                    turn_id: None,
                    transcript: path(v, "transcript_path"),
                    background,
                },
            }
        }
        "SessionEnd" => Action::Close {
            thread: thread(agent, v, "session_id")?,
            transcript: path(v, "transcript_path"),
        },
        "Stop" | "StopFailure" => Action::End {
            thread: thread(agent, v, "session_id")?,
            end: TurnEnd {
                state: if name == "Stop" { "completed" } else { "failed" },
                again: flag(v, "stop_hook_active"),
                prompt_id: id(v, "prompt_id"),
                turn_id: None,
                title: None,
            },
        },
        _ => Action::Nothing,
    };
    Ok(Event {
        name,
        dirs: dirs([env.claude_project_dir.clone(), dir_field(v, "cwd")]),
        action,
    })
}

/// Codex: lifecycle hooks (`hook_event_name`: `SessionStart`,
/// `UserPromptSubmit` with `prompt` and `turn_id`, `Stop` with `turn_id`
/// and `stop_hook_active`, `StopFailure`; thread `session_id`), or the
/// legacy notify payload (`type: agent-turn-complete`, `thread-id`,
/// `turn-id`, `input-messages`); the repository is `cwd`.
fn codex(v: &Value) -> Result<Event> {
    let agent = Agent::Codex;
    let name = event_name(agent, v);
    let action = if v.get("hook_event_name").is_none() {
        match name.as_str() {
            "agent-turn-complete" => Action::End {
                thread: thread(agent, v, "thread-id")?,
                end: TurnEnd {
                    state: "completed",
                    again: false,
                    prompt_id: None,
                    turn_id: id(v, "turn-id"),
                    title: v
                        .get("input-messages")
                        .and_then(Value::as_array)
                        .and_then(|m| m.iter().find_map(Value::as_str))
                        .and_then(record::title_of),
                },
            },
            _ => Action::Nothing,
        }
    } else {
        match name.as_str() {
            "SessionStart" => Action::Start {
                thread: thread(agent, v, "session_id")?,
            },
            "UserPromptSubmit" => Action::Prompt {
                thread: thread(agent, v, "session_id")?,
                prompt: PromptInfo {
                    title: title(v, "prompt"),
                    prompt_id: id(v, "turn_id"),
                    turn_id: id(v, "turn_id"),
                    transcript: path(v, "transcript_path"),
                    background: None,
                },
            },
            // Ctrl-C (Codex 0.171): the turn ends here, with no Stop.
            "Interrupt" => Action::End {
                thread: thread(agent, v, "session_id")?,
                end: TurnEnd {
                    state: "interrupted",
                    again: false,
                    prompt_id: None,
                    turn_id: id(v, "turn_id"),
                    title: None,
                },
            },
            "SessionEnd" => Action::Close {
                thread: thread(agent, v, "session_id")?,
                transcript: path(v, "transcript_path"),
            },
            "Stop" | "StopFailure" => Action::End {
                thread: thread(agent, v, "session_id")?,
                end: TurnEnd {
                    state: if name == "Stop" { "completed" } else { "failed" },
                    again: flag(v, "stop_hook_active"),
                    prompt_id: None,
                    turn_id: id(v, "turn_id"),
                    title: None,
                },
            },
            _ => Action::Nothing,
        }
    };
    Ok(Event {
        name,
        dirs: dirs([dir_field(v, "cwd")]),
        action,
    })
}

#[cfg(test)]
mod tests;
