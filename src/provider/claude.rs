//! Claude Code's session transcript, `~/.claude/projects/<project>/<session>.jsonl`:
//! one JSON object per line, appended as the session goes. Messages
//! (`user`, `assistant`, `system`, `attachment`) carry `uuid` and
//! `parentUuid`, and `--resume` rebuilds the conversation by following the
//! `parentUuid` chain up from the newest leaf; each entry of a prompt's turn
//! carries the prompt's `promptId`. Flat metadata lines (`summary`,
//! `last-prompt`, `file-history-snapshot`, titles, modes, …) have no
//! `uuid`; some point at a message through `leafUuid` or `messageId`, and a
//! `summary` whose `leafUuid` names no message makes Claude Code report the
//! whole session missing.
//!
//! Rolling back to the state before a prompt: the file is cut just before
//! the first line of that prompt (the first message whose `promptId` is the
//! prompt id, or the `user` message whose `uuid` is), which leaves the file
//! as it was when the prompt was submitted, so the newest surviving message
//! is the end of the turn before; and the metadata lines kept before the cut
//! that point at a message cut away (the prompt's `file-history-snapshot`,
//! written just before it) go too. Nothing else is rewritten: every kept
//! line keeps its exact bytes. Lines that are not JSON (a damaged line,
//! which Claude Code skips) are kept when before the cut.
//!
//! Without a prompt id in the note there is no reliable way to find the
//! turn (counting `user` lines miscounts tool results, slash commands,
//! `/rewind` branches and compactions): the rollback refuses instead.

use std::collections::HashSet;

use serde::Deserialize;

use super::edit::{Edit, PlanError, lines};

/// The fields of a transcript line the rollback reads; the others are kept
/// as bytes.
#[derive(Debug, Default, Deserialize)]
struct Entry {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    uuid: Option<String>,
    #[serde(rename = "promptId", default)]
    prompt_id: Option<String>,
    #[serde(rename = "leafUuid", default)]
    leaf_uuid: Option<String>,
    #[serde(rename = "messageId", default)]
    message_id: Option<String>,
    #[serde(rename = "isSidechain", default)]
    is_sidechain: Option<bool>,
}

fn parse(line: &[u8]) -> Option<Entry> {
    serde_json::from_slice(line.trim_ascii()).ok()
}

/// The transcript `data` as it was before the prompt `prompt_id`.
pub fn plan(data: &[u8], prompt_id: &str) -> Result<Edit, PlanError> {
    let lines = lines(data);
    let entries: Vec<Option<Entry>> = lines.iter().map(|l| parse(l)).collect();
    let cut = entries
        .iter()
        .position(|e| {
            e.as_ref().is_some_and(|e| {
                e.uuid.is_some()
                    && (e.prompt_id.as_deref() == Some(prompt_id)
                        || (e.kind.as_deref() == Some("user") && e.uuid.as_deref() == Some(prompt_id)))
            })
        })
        .ok_or(PlanError::PromptNotFound)?;
    let uuids = |range: &[Option<Entry>]| -> HashSet<String> {
        range.iter().flatten().filter_map(|e| e.uuid.clone()).collect()
    };
    let (kept, removed) = entries.split_at(cut);
    let (kept_ids, removed_ids) = (uuids(kept), uuids(removed));
    let points_away = |id: &Option<String>| {
        id.as_deref()
            .is_some_and(|id| removed_ids.contains(id) && !kept_ids.contains(id))
    };
    let mut after = Vec::with_capacity(data.len());
    let mut dropped = 0usize;
    for (line, entry) in lines.iter().zip(kept) {
        let stale = entry
            .as_ref()
            .is_some_and(|e| e.uuid.is_none() && (points_away(&e.leaf_uuid) || points_away(&e.message_id)));
        if stale {
            dropped += 1;
        } else {
            after.extend_from_slice(line);
        }
    }
    // The prompts taken back: the main conversation's user prompts.
    let prompts: HashSet<&str> = removed
        .iter()
        .flatten()
        .filter(|e| e.kind.as_deref() == Some("user") && e.is_sidechain != Some(true))
        .filter_map(|e| e.prompt_id.as_deref())
        .collect();
    let removed_lines = lines.len() - cut;
    let mut how = format!("cut before line {} ({removed_lines} line(s) removed", cut + 1);
    if dropped > 0 {
        how.push_str(&format!(", and {dropped} metadata line(s) pointing at them"));
    }
    how.push(')');
    Ok(Edit {
        after,
        how,
        prompts: prompts.len().max(1) as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIXTURE: &str = include_str!("../../tests/it/transcripts/claude-session.jsonl");

    fn line_count(s: &[u8]) -> usize {
        lines(s).len()
    }

    #[test]
    fn cuts_before_the_prompt_and_drops_metadata_pointing_past_the_cut() {
        let data = FIXTURE.as_bytes();
        let edit = plan(data, "p-2").unwrap();
        let text = String::from_utf8(edit.after.clone()).unwrap();
        assert!(text.ends_with('\n'));
        assert!(data.starts_with(text.lines().next().unwrap().as_bytes()));
        assert!(!text.contains("\"p-2\"") && !text.contains("\"p-3\""), "{text}");
        assert!(
            !text.contains("\"messageId\":\"u-2\""),
            "the prompt's snapshot survived: {text}"
        );
        // The leading summary names a kept message: it stays.
        assert!(text.starts_with("{\"type\":\"summary\""), "{text}");
        assert_eq!(edit.prompts, 2);
        let first_lines = |n: usize| lines(data)[..n].concat();
        assert_eq!(edit.after, first_lines(7), "not the conversation before line 8");
        assert_eq!(plan(data, "p-3").unwrap().after, first_lines(15));
        // Every kept line is byte for byte a line of the original.
        for line in lines(&edit.after) {
            assert!(lines(data).contains(&line));
        }
        // The prompt's uuid finds the same place.
        assert_eq!(plan(data, "u-2").unwrap().after, edit.after);
        // The first prompt: the conversation before it.
        let first = plan(data, "p-1").unwrap();
        assert!(
            line_count(&first.after) < 3,
            "{}",
            String::from_utf8_lossy(&first.after)
        );
        assert_eq!(plan(data, "p-9"), Err(PlanError::PromptNotFound));
        // An assistant's uuid is not a prompt.
        assert_eq!(plan(data, "a-2").unwrap_err(), PlanError::PromptNotFound);
    }

    #[test]
    fn garbage_never_panics() {
        for bad in [
            &b""[..],
            b"\n\n",
            b"{\"uuid\":5,\"promptId\":\"x\"}\n",
            b"\xff\xfe\n",
            b"[1,2]\n",
        ] {
            let _ = plan(bad, "x");
        }
    }
}
