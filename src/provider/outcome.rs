//! How a turn that never got its end event ended, as the agent's transcript
//! tells it. Claude Code sends no `Stop` after an interrupt, and in `-p`
//! mode kills a slow `StopFailure` hook; Codex sends neither `Stop` nor a
//! failure event when its model call fails. Both then send `SessionEnd`,
//! and the transcript says what happened:
//!
//! - Claude Code: the last assistant line carries `"isApiErrorMessage": true`
//!   when the model call failed; otherwise the turn was interrupted (its
//!   last lines are `[Request interrupted by user…]`).
//! - Codex (0.171): the turn's `task_complete` event carries an `error`
//!   when the model call failed; `turn_aborted` when it was interrupted.
//!
//! Only the end of the file is read (the last [`TAIL`] bytes).

use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::Path;

use serde_json::Value;

/// How much of a transcript's end is read.
const TAIL: u64 = 4 << 20;

/// The agent's turn state of a turn that ended without its end event:
/// `failed` when the transcript says the model call failed, else
/// `interrupted`. `agent` is the agent's name (`claude-code`, `codex`).
pub fn unended_turn_state(agent: &str, transcript: Option<&Path>) -> &'static str {
    let data = transcript.and_then(|p| tail(p).ok()).unwrap_or_default();
    let failed = match agent {
        "claude-code" => claude_failed(&data),
        "codex" => codex_failed(&data),
        _ => false,
    };
    if failed { "failed" } else { "interrupted" }
}

/// The last [`TAIL`] bytes of the regular file at `path`, from a line start.
fn tail(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut file = crate::fsread::open_regular(path, true)?;
    let len = file.metadata()?.len();
    let start = len.saturating_sub(TAIL);
    file.seek(SeekFrom::Start(start))?;
    let mut data = Vec::new();
    file.take(TAIL).read_to_end(&mut data)?;
    if start > 0 {
        let cut = data
            .iter()
            .position(|b| *b == b'\n')
            .map_or(data.len(), |i| i + 1);
        data.drain(..cut);
    }
    Ok(data)
}

/// The JSON objects of `data`'s lines, last first.
fn objects_from_the_end(data: &[u8]) -> impl Iterator<Item = Value> + '_ {
    data.split(|b| *b == b'\n')
        .rev()
        .filter_map(|l| serde_json::from_slice::<Value>(l.trim_ascii()).ok())
}

fn claude_failed(data: &[u8]) -> bool {
    objects_from_the_end(data)
        .find(|v| v.get("type").and_then(Value::as_str) == Some("assistant"))
        .is_some_and(|v| v.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true))
}

fn codex_failed(data: &[u8]) -> bool {
    objects_from_the_end(data)
        .filter(|v| v.get("type").and_then(Value::as_str) == Some("event_msg"))
        .filter_map(|v| v.get("payload").cloned())
        .find(|p| {
            matches!(
                p.get("type").and_then(Value::as_str),
                Some("task_complete" | "turn_aborted")
            )
        })
        .is_some_and(|p| {
            p.get("type").and_then(Value::as_str) == Some("task_complete")
                && p.get("error").is_some_and(|e| !e.is_null())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_and_interrupts_are_told_apart() {
        let claude_err = br#"{"type":"user","message":{"content":"go"}}
{"type":"assistant","isApiErrorMessage":true,"message":{"content":[{"type":"text","text":"API Error: 500"}]}}
{"type":"last-prompt","lastPrompt":"go"}
"#;
        assert!(claude_failed(claude_err));
        let claude_int = br#"{"type":"assistant","message":{"content":[{"type":"tool_use"}]}}
{"type":"user","message":{"content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}
"#;
        assert!(!claude_failed(claude_int));
        let codex_err = br#"{"ordinal":9,"type":"event_msg","payload":{"type":"task_complete","turn_id":"t","error":{"message":"x"}}}"#;
        assert!(codex_failed(codex_err));
        let codex_ok = br#"{"ordinal":9,"type":"event_msg","payload":{"type":"task_complete","turn_id":"t","error":null}}"#;
        assert!(!codex_failed(codex_ok));
        let codex_int =
            br#"{"ordinal":15,"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}"#;
        assert!(!codex_failed(codex_int));
        assert_eq!(unended_turn_state("codex", None), "interrupted");
        assert!(!claude_failed(b"\xff\xfe not json\n"));
    }
}
