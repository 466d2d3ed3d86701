//! Codex's session rollout, `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<session>.jsonl`:
//! one `{"timestamp", "type", "payload"}` object per line (`session_meta`,
//! `turn_context`, `response_item`, `compacted`, `event_msg`, …), appended
//! as the session goes; from Codex 0.171 each line also carries its
//! `ordinal` (0, 1, 2, …), and a line appended without the next one makes
//! Codex refuse to resume the session. A turn is the lines from its
//! `event_msg` `task_started` (`turn_started`) with its `turn_id` to the
//! next one; it counts as a user turn when it holds a `user_message` event
//! (up to 0.16x) or an `item_completed` event of a `UserMessage` item
//! (0.171 on, which writes no `user_message`).
//!
//! Codex rolls a thread back itself by appending
//! `{"type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":N}}`,
//! and when it resumes a session it replays the rollout with such a marker
//! dropping the last N user turns that were still there (app server
//! `thread/rollback`; `codex-rs/core/src/session/rollout_reconstruction.rs`).
//! git-t3 does the same: N is the number of user turns, from the prompt's
//! turn to the end, that earlier markers left standing, so a thread Codex
//! already rolled back in part is counted right. The file only grows, and
//! the discarded turns stay in it as with Codex's own rollback.
//!
//! One exception: when the conversation was compacted after the prompt,
//! the compaction's summary (which a marker does not remove) would still
//! tell the model about the discarded turns, so the file is cut instead,
//! just before the prompt's turn starts: what is left is exactly what the
//! file held when the prompt was submitted.

use serde::Deserialize;

use super::edit::{Edit, PlanError, lines};

#[derive(Debug, Default, Deserialize)]
struct Line {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    /// The line's place in the file (Codex 0.171 on): 0, 1, 2, … and a
    /// line without one after lines with them makes Codex refuse to resume.
    #[serde(default)]
    ordinal: Option<u64>,
    #[serde(default)]
    payload: Option<Payload>,
}

#[derive(Debug, Default, Deserialize)]
struct Payload {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    turn_id: Option<String>,
    #[serde(default)]
    num_turns: Option<u64>,
    /// The item of an `item_completed` event.
    #[serde(default)]
    item: Option<Typed>,
}

#[derive(Debug, Default, Deserialize)]
struct Typed {
    #[serde(rename = "type", default)]
    kind: Option<String>,
}

/// What the replay sees, in file order.
#[derive(Debug)]
enum Item {
    /// A turn starting at a line; whether it holds a user message.
    Turn {
        line: usize,
        turn_id: Option<String>,
        user: bool,
    },
    /// A rollback marker dropping this many user turns.
    RolledBack(u64),
    /// A compaction.
    Compacted { line: usize },
}

fn parse(line: &[u8]) -> Option<Line> {
    serde_json::from_slice(line.trim_ascii()).ok()
}

/// The rollout `data` rolled back to the state before the turn `turn_id`
/// (the `turn_id` of the prompt's turn); `now` dates the marker.
pub fn plan(data: &[u8], turn_id: &str, now: &str) -> Result<Edit, PlanError> {
    let lines = lines(data);
    let (items, last_ordinal) = replay_items(&lines)?;
    let start = prompt_turn(&items, turn_id)?;
    let standing = standing_turns(&items, start);
    let compacted_since = items
        .iter()
        .any(|i| matches!(i, Item::Compacted { line } if *line >= start));
    if compacted_since {
        let keep: usize = lines[..start].iter().map(|l| l.len()).sum();
        return Ok(Edit {
            after: data[..keep].to_vec(),
            how: format!(
                "cut before line {} ({} line(s) removed; the conversation was compacted since, \
                 which a rollback marker cannot take back)",
                start + 1,
                lines.len() - start
            ),
            prompts: standing.max(1),
        });
    }
    if standing == 0 {
        // Codex's own rollback already took these turns back.
        return Ok(Edit {
            after: data.to_vec(),
            how: "already rolled back".into(),
            prompts: 0,
        });
    }
    Ok(Edit {
        after: with_marker(data, last_ordinal, now, standing),
        how: format!("appended a thread_rolled_back marker dropping the last {standing} turn(s)"),
        prompts: standing,
    })
}

/// What the replay sees in the rollout's `lines`, in file order, and the
/// highest `ordinal` a line carries (Codex 0.171 on).
fn replay_items(lines: &[&[u8]]) -> Result<(Vec<Item>, Option<u64>), PlanError> {
    let mut items = Vec::new();
    let mut last_ordinal = None;
    for (i, line) in lines.iter().enumerate() {
        let Some(l) = parse(line) else { continue };
        if l.ordinal.is_some() {
            last_ordinal = last_ordinal.max(l.ordinal);
        }
        let payload = l.payload.unwrap_or_default();
        // A user prompt: `user_message` (Codex up to 0.16x), or a completed
        // `UserMessage` item (0.171 on, which writes no `user_message`).
        let user_message = payload.kind.as_deref() == Some("user_message")
            || (payload.kind.as_deref() == Some("item_completed")
                && payload.item.as_ref().and_then(|i| i.kind.as_deref()) == Some("UserMessage"));
        match (l.kind.as_deref(), payload.kind.as_deref()) {
            (Some("event_msg"), Some("task_started" | "turn_started")) => items.push(Item::Turn {
                line: i,
                turn_id: payload.turn_id,
                user: false,
            }),
            (Some("event_msg"), _) if user_message => {
                if let Some(Item::Turn { user, .. }) =
                    items.iter_mut().rev().find(|i| matches!(i, Item::Turn { .. }))
                {
                    *user = true;
                }
            }
            (Some("event_msg"), Some("thread_rolled_back")) => {
                items.push(Item::RolledBack(payload.num_turns.ok_or_else(|| {
                    PlanError::Format(format!("line {}: a rollback marker without num_turns", i + 1))
                })?));
            }
            (Some("compacted"), _) => items.push(Item::Compacted { line: i }),
            _ => {}
        }
    }
    Ok((items, last_ordinal))
}

/// The line the turn `turn_id` starts at, refused unless it holds a user
/// message (Codex counts only those as turns).
fn prompt_turn(items: &[Item], turn_id: &str) -> Result<usize, PlanError> {
    let (start, user) = items
        .iter()
        .find_map(|i| match i {
            Item::Turn {
                line,
                turn_id: Some(t),
                user,
            } if t == turn_id => Some((*line, *user)),
            _ => None,
        })
        .ok_or(PlanError::PromptNotFound)?;
    if !user {
        return Err(PlanError::Format(format!(
            "the turn {turn_id} starting at line {} has no user message, so Codex would not count it as a turn",
            start + 1
        )));
    }
    Ok(start)
}

/// How many user turns from line `start` on earlier markers left standing.
fn standing_turns(items: &[Item], start: usize) -> u64 {
    // Replay from the end as Codex does: a marker drops the newest user
    // turns still standing before it.
    let mut pending = 0u64;
    let mut standing = 0u64;
    for item in items.iter().rev() {
        match item {
            Item::RolledBack(n) => pending = pending.saturating_add(*n),
            Item::Turn { line, user: true, .. } => {
                if pending > 0 {
                    pending -= 1;
                } else if *line >= start {
                    standing += 1;
                }
            }
            Item::Turn { .. } | Item::Compacted { .. } => {}
        }
    }
    standing
}

/// `data` with a marker dropping the last `standing` user turns appended,
/// dated `now` and numbered after `last_ordinal` where the file numbers its
/// lines.
fn with_marker(data: &[u8], last_ordinal: Option<u64>, now: &str, standing: u64) -> Vec<u8> {
    let mut after = data.to_vec();
    if !after.is_empty() && !after.ends_with(b"\n") {
        after.push(b'\n');
    }
    // The next ordinal, where the file numbers its lines.
    let ordinal = last_ordinal
        .map(|o| format!("\"ordinal\":{},", o.saturating_add(1)))
        .unwrap_or_default();
    after.extend_from_slice(
        format!(
            "{{\"timestamp\":\"{now}\",{ordinal}\"type\":\"event_msg\",\"payload\":{{\"type\":\"thread_rolled_back\",\"num_turns\":{standing}}}}}\n"
        )
        .as_bytes(),
    );
    after
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../../tests/it/transcripts/codex-rollout.jsonl");
    const NOW: &str = "2026-08-02T09:00:00.000Z";

    fn marker(n: u64) -> String {
        format!(
            "{{\"timestamp\":\"{NOW}\",\"type\":\"event_msg\",\"payload\":{{\"type\":\"thread_rolled_back\",\"num_turns\":{n}}}}}\n"
        )
    }

    #[test]
    fn appends_a_marker_for_the_turns_from_the_prompt_on() {
        let data = FIXTURE.as_bytes();
        let edit = plan(data, "turn-2", NOW).unwrap();
        assert_eq!(edit.after, [data, marker(2).as_bytes()].concat());
        assert_eq!(edit.prompts, 2);
        let edit = plan(data, "turn-1", NOW).unwrap();
        assert_eq!(edit.after, [data, marker(3).as_bytes()].concat());
        assert_eq!(plan(data, "turn-9", NOW).unwrap_err(), PlanError::PromptNotFound);
        // The marker is a line Codex reads back as one.
        let last = lines(&edit.after).last().copied().unwrap();
        let l = parse(last).unwrap();
        assert_eq!(l.payload.unwrap().num_turns, Some(3));
    }

    /// A rollout Codex 0.171 wrote (three prompts, recorded against a
    /// scripted model): prompts are `UserMessage` items, lines have ordinals.
    const REAL_0171: &str = include_str!("../../tests/it/transcripts/codex-0.171-rollout.jsonl");

    #[test]
    fn a_codex_0171_rollout_gets_a_marker_with_the_next_ordinal() {
        let data = REAL_0171.as_bytes();
        // The second prompt's turn (ordinals 0..=53 in the file).
        let edit = plan(data, "01a24e7c-3d57-7ab3-9245-5bb5c84389b4", NOW).unwrap();
        assert_eq!(edit.prompts, 2);
        let appended = &edit.after[data.len()..];
        // The line Codex 0.171 was seen to resume from with prompts 2 and 3 gone.
        let want = format!(
            "{{\"timestamp\":\"{NOW}\",\"ordinal\":54,\"type\":\"event_msg\",\"payload\":{{\"type\":\"thread_rolled_back\",\"num_turns\":2}}}}\n"
        );
        assert_eq!(String::from_utf8_lossy(appended), want);
        let first = plan(data, "01a24e7c-3595-7473-8f45-9da75865c7e9", NOW).unwrap();
        assert_eq!(first.prompts, 3);
    }

    #[test]
    fn earlier_markers_are_counted_as_codex_replays_them() {
        let data = FIXTURE.as_bytes();
        // Codex already dropped turn 3: going back before turn 2 drops one more.
        let once = [data, marker(1).as_bytes()].concat();
        assert_eq!(
            plan(&once, "turn-2", NOW).unwrap().after,
            [&once[..], marker(1).as_bytes()].concat()
        );
        // Before turn 3: nothing is left to drop.
        let edit = plan(&once, "turn-3", NOW).unwrap();
        assert_eq!(edit.after, once);
        assert_eq!(edit.prompts, 0);
    }

    #[test]
    fn a_compaction_since_the_prompt_cuts_the_file_instead() {
        let data = FIXTURE.as_bytes();
        let compacted = [
            data,
            b"{\"timestamp\":\"2026-08-01T11:00:00.000Z\",\"type\":\"compacted\",\"payload\":{\"message\":\"summary of turns 1-3\",\"replacement_history\":[]}}\n",
        ]
        .concat();
        let edit = plan(&compacted, "turn-2", NOW).unwrap();
        let text = String::from_utf8(edit.after).unwrap();
        assert!(data.starts_with(text.as_bytes()));
        assert!(
            text.contains("\"turn_id\":\"turn-1\"") && !text.contains("\"turn_id\":\"turn-2\""),
            "{text}"
        );
        assert!(text.ends_with('\n'));
    }

    #[test]
    fn garbage_never_panics() {
        for bad in [
            &b""[..],
            b"\n",
            b"{\"type\":\"event_msg\",\"payload\":{\"type\":\"task_started\",\"turn_id\":7}}\n",
            b"{\"type\":\"event_msg\",\"payload\":{\"type\":\"thread_rolled_back\",\"num_turns\":-1}}\n",
            b"{\"type\":\"event_msg\",\"payload\":\"x\"}\n",
        ] {
            let _ = plan(bad, "x", NOW);
        }
    }
}
