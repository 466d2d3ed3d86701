//! `refs/t3/prompts/<b64>`: what an agent's prompt hook learned about a
//! thread's next turn, kept until the turn-end hook captures that turn, and
//! the pre-turn snapshots of captured turns, kept from `git gc`.
//!
//! The ref points at a parentless commit (fixed identity, message
//! `t3 prompts ref=<ref>`) whose tree holds:
//! - `prompt.toml`: the pending prompt ([`Pending`]), while there is one;
//! - `next`: the worktree when that prompt was submitted, when it differed
//!   from the thread's latest checkpoint (the next turn's `pre_turn_tree`);
//! - `<n>`: the `pre_turn_tree` of captured turn `n` (its note names it; a
//!   note names a tree but does not keep it).
//!
//! The ref is local: `push` and `fetch` move checkpoints and notes only, so
//! a fetched turn whose `pre_turn_tree` is not here is diffed from the turn
//! before it. A pending prompt whose `base` is no longer the thread's latest
//! checkpoint is stale (the thread moved on since: a capture by hand, a
//! revert) and is ignored.

use std::collections::BTreeMap;

use gix::ObjectId;
use gix::objs::tree::EntryKind;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::thread::{T3_PREFIX, ThreadId};
use crate::repo::{self, Expect, Locked, Recorder, RefUpdate};

/// Where the prompts refs live.
pub const PROMPTS_PREFIX: &str = "refs/t3/prompts/";
/// The largest `prompt.toml` read.
pub const MAX_PROMPT_BYTES: u64 = 64 << 10;
/// The entry holding the pending prompt's pre-turn tree.
const NEXT: &str = "next";
/// The entry holding the pending prompt.
const PROMPT_TOML: &str = "prompt.toml";

/// The prompts ref of `thread`.
pub fn prompts_ref(thread: &ThreadId) -> String {
    format!("{T3_PREFIX}prompts/{}", thread.encoded())
}

/// A prompt submitted to the agent whose turn has not been captured yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    /// The agent that sent it (`claude-code`, `codex`, …).
    pub agent: String,
    /// The thread's latest checkpoint when the prompt was submitted: the turn…
    pub base_turn: u64,
    /// …and its commit.
    pub base: String,
    /// When the prompt was submitted (RFC 3339, UTC).
    pub submitted_at: String,
    /// The next turn's title (the prompt's first line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The agent's id of the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_id: Option<String>,
    /// The agent's id of the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// The agent's transcript file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    /// The worktree when the prompt was submitted, when it differed from
    /// the latest checkpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_turn_tree: Option<String>,
}

impl Pending {
    /// Whether the prompt still starts the thread's next turn: its base is
    /// the thread's latest checkpoint `latest` (turn and commit).
    pub fn is_fresh(&self, latest: Option<(u64, ObjectId)>) -> bool {
        latest.is_some_and(|(turn, commit)| {
            turn == self.base_turn && ObjectId::from_hex(self.base.as_bytes()).is_ok_and(|b| b == commit)
        })
    }

    /// The pre-turn tree as an id (`None` when absent or not an id).
    pub fn pre_turn_tree(&self) -> Option<ObjectId> {
        self.pre_turn_tree
            .as_deref()
            .and_then(|s| ObjectId::from_hex(s.as_bytes()).ok())
    }
}

/// What a thread's prompts ref holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prompts {
    /// The commit the ref points at now (`None`: no ref).
    pub commit: Option<ObjectId>,
    /// The pending prompt, if any (`None` as well when `prompt.toml` is
    /// damaged: `verify` says so).
    pub pending: Option<Pending>,
    /// Pre-turn trees of captured turns, by turn.
    pub kept: BTreeMap<u64, ObjectId>,
}

impl Prompts {
    /// The pending prompt, when it is fresh against `latest` (see [`Pending::is_fresh`]).
    pub fn fresh(&self, latest: Option<(u64, ObjectId)>) -> Option<&Pending> {
        self.pending.as_ref().filter(|p| p.is_fresh(latest))
    }
}

/// Read the prompts ref of `thread` (nothing there: empty). A ref at
/// anything but a readable commit is an error.
pub fn read(repo: &gix::Repository, thread: &ThreadId) -> Result<Prompts> {
    let reference = prompts_ref(thread);
    let Some(commit) = repo::find_direct_ref(repo, &reference)? else {
        return Ok(Prompts::default());
    };
    let (pending, kept) = read_commit(repo, commit).map_err(|problem| Error::BadMetadata {
        reference: reference.clone(),
        problem,
    })?;
    Ok(Prompts {
        commit: Some(commit),
        pending: pending.ok(),
        kept,
    })
}

type Contents = (std::result::Result<Pending, String>, BTreeMap<u64, ObjectId>);

/// The pending prompt (or why it cannot be read) and the kept trees of the
/// prompts commit `commit`; `Err` when it is not such a commit at all.
pub fn read_commit(repo: &gix::Repository, commit: ObjectId) -> std::result::Result<Contents, String> {
    let tree = repo::commit_tree(repo, commit).map_err(|e| format!("does not point at a commit ({e})"))?;
    let tree = repo
        .find_tree(tree)
        .map_err(|e| format!("its tree cannot be read ({e})"))?;
    let decoded = tree
        .decode()
        .map_err(|e| format!("its tree does not parse ({e})"))?;
    let mut pending = Err("no prompt.toml".to_owned());
    let mut kept = BTreeMap::new();
    for entry in &decoded.entries {
        let name = entry.filename.to_string();
        if name == PROMPT_TOML && entry.mode.is_blob() {
            pending = read_pending(repo, entry.oid.to_owned());
        } else if entry.mode.is_tree()
            && let Some(turn) = crate::model::thread::parse_turn(&name)
        {
            kept.insert(turn, entry.oid.to_owned());
        }
    }
    Ok((pending, kept))
}

fn read_pending(repo: &gix::Repository, blob: ObjectId) -> std::result::Result<Pending, String> {
    let header = repo
        .find_header(blob)
        .map_err(|e| format!("prompt.toml cannot be read ({e})"))?;
    if header.size() > MAX_PROMPT_BYTES {
        return Err(format!(
            "prompt.toml is {} bytes, more than the {MAX_PROMPT_BYTES} accepted",
            header.size()
        ));
    }
    let blob = repo
        .find_blob(blob)
        .map_err(|e| format!("prompt.toml cannot be read ({e})"))?;
    use crate::model::document::{self, DocumentError};
    document::read(
        &blob.data,
        usize::try_from(MAX_PROMPT_BYTES).unwrap_or(usize::MAX),
    )
    .map_err(|e| match e {
        DocumentError::TooLarge { len } => {
            format!("prompt.toml is {len} bytes, more than the {MAX_PROMPT_BYTES} accepted")
        }
        DocumentError::NotUtf8 => "prompt.toml is not UTF-8".to_owned(),
        DocumentError::Toml(m) => format!("prompt.toml does not parse: {m}"),
    })
}

/// Make the prompts ref of `thread` hold `new`, if `old.commit` is still
/// what it points at (compare-and-swap): a ref with nothing to hold is
/// deleted. Writes through `rec`, which must hold every tree `new` names
/// that this process wrote (they are flushed before the ref moves).
pub fn write(
    lock: &Locked<'_>,
    rec: &Recorder<'_>,
    thread: &ThreadId,
    old: &Prompts,
    new: &Prompts,
) -> Result<()> {
    let Some(update) = update(rec, thread, old, new)? else {
        return Ok(());
    };
    repo::update_refs_with_objects(lock, rec, &[update], "t3: prompts")
}

/// The ref update [`write`] makes (`None`: nothing to change), its objects
/// written through `rec` and not flushed: for a caller that moves it with
/// other refs, after one flush of everything `rec` wrote.
pub fn update(
    rec: &Recorder<'_>,
    thread: &ThreadId,
    old: &Prompts,
    new: &Prompts,
) -> Result<Option<RefUpdate>> {
    if old.pending == new.pending && old.kept == new.kept {
        return Ok(None);
    }
    let reference = prompts_ref(thread);
    let expect = old.commit.map_or(Expect::Absent, Expect::Is);
    if new.pending.is_none() && new.kept.is_empty() {
        return Ok(old.commit.map(|_| RefUpdate {
            name: reference,
            new: None,
            expect,
        }));
    }
    let mut tree = gix::objs::Tree::empty();
    for (turn, id) in &new.kept {
        tree.entries.push(gix::objs::tree::Entry {
            mode: EntryKind::Tree.into(),
            filename: turn.to_string().into(),
            oid: *id,
        });
    }
    if let Some(p) = &new.pending {
        if let Some(pre) = p.pre_turn_tree() {
            tree.entries.push(gix::objs::tree::Entry {
                mode: EntryKind::Tree.into(),
                filename: NEXT.into(),
                oid: pre,
            });
        }
        let text =
            toml::to_string(p).map_err(|e| Error::Internal(format!("could not write prompt.toml: {e}")))?;
        tree.entries.push(gix::objs::tree::Entry {
            mode: EntryKind::Blob.into(),
            filename: PROMPT_TOML.into(),
            oid: rec.write_blob(text.as_bytes())?,
        });
    }
    // git's order: by name, a tree compared as if its name ended in '/'.
    tree.entries.sort();
    for e in &tree.entries {
        if e.mode.is_tree() {
            repo::ensure_tree_object(rec, e.oid)?;
        }
    }
    let tree = rec.write_object(&tree)?;
    let commit = repo::write_commit(rec, tree, Vec::new(), &format!("t3 prompts ref={reference}"))?;
    Ok(Some(RefUpdate {
        name: reference,
        new: Some(commit),
        expect,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(base_turn: u64, base: &str) -> Pending {
        Pending {
            agent: "claude-code".into(),
            base_turn,
            base: base.into(),
            submitted_at: "2026-12-01T12:00:00Z".into(),
            title: Some("t".into()),
            prompt_id: None,
            turn_id: None,
            transcript: None,
            pre_turn_tree: Some("not an id".into()),
        }
    }

    #[test]
    fn a_prompt_is_fresh_only_on_its_base() {
        let id = ObjectId::empty_tree(gix::hash::Kind::Sha1);
        let p = pending(2, &id.to_string());
        assert!(p.is_fresh(Some((2, id))));
        assert!(!p.is_fresh(Some((3, id))));
        assert!(!p.is_fresh(Some((2, ObjectId::null(gix::hash::Kind::Sha1)))));
        assert!(!p.is_fresh(None));
        assert_eq!(p.pre_turn_tree(), None);
    }

    #[test]
    fn a_pending_prompt_reads_back_from_toml() {
        let p = pending(0, "abc");
        let text = toml::to_string(&p).unwrap();
        assert_eq!(toml::from_str::<Pending>(&text).unwrap(), p);
    }
}
