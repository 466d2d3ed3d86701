//! `git t3 hook <agent>`: the entry point for agent hooks.
//!
//! - Claude Code (JSON on stdin): `UserPromptSubmit` → baseline of thread
//!   `session_id` with provider `claude-code`; `Stop` → capture with state
//!   `completed` (a re-entry with `stop_hook_active` is ignored);
//!   `SessionEnd` and anything else → nothing.
//! - Codex `notify` (JSON as the last argument, or on stdin):
//!   `agent-turn-complete` → capture of thread `thread-id` with turn id
//!   `turn-id`, in `cwd`.
//!
//! A hook never blocks or breaks the agent: the caller turns every error into
//! one line on stderr and exit 0.

use std::path::Path;

use serde::Serialize;

use crate::commands::{Context, Settings, baseline, capture};
use crate::error::{Error, Result};
use crate::model::thread::ThreadId;

/// What a hook did.
#[derive(Debug, Serialize)]
pub struct HookOutcome {
    /// The agent.
    pub agent: String,
    /// The event handled.
    pub event: String,
    /// What was done: `baseline`, `capture` or `nothing`.
    pub action: &'static str,
    /// The thread, when one was touched.
    pub thread: Option<String>,
    /// The turn written or found.
    pub turn: Option<u64>,
}

fn field<'a>(v: &'a serde_json::Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(serde_json::Value::as_str)
}

/// Open the repository holding the hook's `cwd` (else `default_dir`).
fn open_in(cwd: Option<&str>, default_dir: &Path, settings: &Settings) -> Result<Context> {
    let dir = cwd.map_or(default_dir, Path::new);
    let ctx = Context::open(dir, settings.clone())?;
    crate::repo::workdir(&ctx.repo)?;
    Ok(ctx)
}

/// Handle one hook event of `agent` with `payload` (the raw JSON); a payload
/// without a `cwd` works in `default_dir`. The caller sets a lock timeout
/// that fits the agent's hook limit ([`crate::repo::lock::HOOK_TIMEOUT`]).
pub fn run(agent: &str, payload: &[u8], default_dir: &Path, settings: &Settings) -> Result<HookOutcome> {
    let v: serde_json::Value = serde_json::from_slice(payload).map_err(|e| Error::BadInput {
        source_name: format!("the {agent} hook payload"),
        problem: format!("not JSON: {e}"),
    })?;
    let open = |cwd: Option<&str>| open_in(cwd, default_dir, settings);
    match agent {
        "claude-code" => claude_code(&v, open),
        "codex" => codex(&v, open),
        other => Err(Error::usage(format!(
            "unknown agent '{other}': use claude-code or codex"
        ))),
    }
}

fn claude_code(v: &serde_json::Value, open: impl Fn(Option<&str>) -> Result<Context>) -> Result<HookOutcome> {
    let event = field(v, "hook_event_name").unwrap_or_default().to_owned();
    let nothing = |event: String| HookOutcome {
        agent: "claude-code".into(),
        event,
        action: "nothing",
        thread: None,
        turn: None,
    };
    let stop_reentry = v.get("stop_hook_active").and_then(serde_json::Value::as_bool) == Some(true);
    if !matches!(event.as_str(), "UserPromptSubmit" | "Stop") || (event == "Stop" && stop_reentry) {
        return Ok(nothing(event));
    }
    let session = field(v, "session_id").ok_or_else(|| Error::BadInput {
        source_name: "the claude-code hook payload".into(),
        problem: "no session_id".into(),
    })?;
    let thread = ThreadId::parse(session)?;
    let ctx = open(field(v, "cwd"))?;
    let (action, outcome) = if event == "UserPromptSubmit" {
        let out = baseline::run(
            &ctx,
            baseline::Options {
                thread: thread.clone(),
                provider: Some("claude-code".into()),
                agent: Some("claude-code".into()),
            },
        )?;
        ("baseline", out)
    } else {
        let out = capture_completed(&ctx, &thread, None, "claude-code")?;
        ("capture", out)
    };
    Ok(HookOutcome {
        agent: "claude-code".into(),
        event,
        action,
        thread: Some(thread.to_string()),
        turn: Some(outcome.checkpoint.note.turn),
    })
}

fn codex(v: &serde_json::Value, open: impl Fn(Option<&str>) -> Result<Context>) -> Result<HookOutcome> {
    let event = field(v, "type").unwrap_or_default().to_owned();
    if event != "agent-turn-complete" {
        return Ok(HookOutcome {
            agent: "codex".into(),
            event,
            action: "nothing",
            thread: None,
            turn: None,
        });
    }
    let id = field(v, "thread-id").ok_or_else(|| Error::BadInput {
        source_name: "the codex notify payload".into(),
        problem: "no thread-id".into(),
    })?;
    let thread = ThreadId::parse(id)?;
    let ctx = open(field(v, "cwd"))?;
    let out = capture_completed(&ctx, &thread, field(v, "turn-id"), "codex")?;
    Ok(HookOutcome {
        agent: "codex".into(),
        event,
        action: "capture",
        thread: Some(thread.to_string()),
        turn: Some(out.checkpoint.note.turn),
    })
}

/// Capture the next turn of `thread` as completed.
fn capture_completed(
    ctx: &Context,
    thread: &ThreadId,
    turn_id: Option<&str>,
    agent: &str,
) -> Result<capture::CaptureOutcome> {
    capture::run(
        ctx,
        capture::Options {
            state: Some("completed".into()),
            turn_id: turn_id.map(str::to_owned),
            agent: Some(agent.to_owned()),
            ..capture::Options::new(thread.clone())
        },
    )
}
