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
//! Only the end of the file is read (the last [`TAIL`] bytes), and only
//! what belongs to the turn: Claude Code's lines from the first that
//! carries the turn's `promptId` on, Codex's events of the turn's
//! `turn_id` (an earlier turn's failure is not this one's).

use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::Path;

use serde_json::Value;

/// How much of a transcript's end is read.
const TAIL: u64 = 4 << 20;

/// The agent's ids of the turn asked about (from its prompt's hook).
#[derive(Debug, Clone, Copy, Default)]
pub struct Turn<'a> {
    /// Claude Code's `prompt_id`.
    pub prompt_id: Option<&'a str>,
    /// Codex's `turn_id`.
    pub turn_id: Option<&'a str>,
}

/// The agent's turn state of a turn that ended without its end event:
/// `failed` when the transcript says the model call failed, else
/// `interrupted`. `agent` is the agent's name (`claude-code`, `codex`).
pub fn unended_turn_state(agent: &str, transcript: Option<&Path>, turn: Turn<'_>) -> &'static str {
    let (data, whole) = transcript.and_then(|p| tail(p).ok()).unwrap_or_default();
    let failed = match agent {
        "claude-code" => claude_failed(turn_lines(&data, turn.prompt_id, whole)),
        "codex" => codex_failed(&data, turn.turn_id),
        _ => false,
    };
    if failed { "failed" } else { "interrupted" }
}

/// Claude Code's lines of the turn `prompt_id`: from the first line that
/// carries it; none when no line does and `whole` (the turn wrote nothing
/// yet); all when the file's start was not read (the turn began before).
fn turn_lines<'a>(data: &'a [u8], prompt_id: Option<&str>, whole: bool) -> &'a [u8] {
    let Some(prompt) = prompt_id else { return data };
    let mut at = 0;
    for line in data.split_inclusive(|b| *b == b'\n') {
        let ours = serde_json::from_slice::<Value>(line.trim_ascii())
            .is_ok_and(|v| v.get("promptId").and_then(Value::as_str) == Some(prompt));
        if ours {
            return data.get(at..).unwrap_or_default();
        }
        at += line.len();
    }
    if whole { &[] } else { data }
}

/// The last [`TAIL`] bytes of the regular file at `path`, from a line
/// start, and whether that is the whole file.
fn tail(path: &Path) -> std::io::Result<(Vec<u8>, bool)> {
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
    Ok((data, start == 0))
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

fn codex_failed(data: &[u8], turn_id: Option<&str>) -> bool {
    objects_from_the_end(data)
        .filter(|v| v.get("type").and_then(Value::as_str) == Some("event_msg"))
        .filter_map(|v| v.get("payload").cloned())
        // An event of another turn says nothing of this one.
        .filter(|p| match (turn_id, p.get("turn_id").and_then(Value::as_str)) {
            (Some(ours), Some(theirs)) => ours == theirs,
            _ => true,
        })
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
        assert!(codex_failed(codex_err, None));
        assert!(codex_failed(codex_err, Some("t")));
        // The failure of an earlier turn is not this turn's.
        assert!(!codex_failed(codex_err, Some("t2")));
        let codex_ok = br#"{"ordinal":9,"type":"event_msg","payload":{"type":"task_complete","turn_id":"t","error":null}}"#;
        assert!(!codex_failed(codex_ok, None));
        let codex_int =
            br#"{"ordinal":15,"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}"#;
        assert!(!codex_failed(codex_int, None));
        assert_eq!(unended_turn_state("codex", None, Turn::default()), "interrupted");
        assert!(!claude_failed(b"\xff\xfe not json\n"));
        // Claude Code: an earlier turn's API error, then this turn's prompt
        // and nothing else yet.
        let earlier = br#"{"type":"user","promptId":"p1","message":{"content":"go"}}
{"type":"assistant","isApiErrorMessage":true,"promptId":"p1","message":{"content":[]}}
{"type":"user","promptId":"p2","message":{"content":"again"}}
"#;
        assert!(!claude_failed(turn_lines(earlier, Some("p2"), true)));
        assert!(claude_failed(turn_lines(earlier, Some("p1"), true)));
        // A turn whose prompt is not in the file wrote nothing yet.
        assert!(!claude_failed(turn_lines(earlier, Some("p3"), true)));
        assert!(claude_failed(turn_lines(earlier, None, true)));
    }
}
