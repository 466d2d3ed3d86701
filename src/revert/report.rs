//! What a revert, `--continue`, `--abort` or an undo reports.

use serde::Serialize;

use crate::model::note::RemovedRef;
use crate::model::oid::Oid;
use crate::restore;

/// What a revert, `--continue`, `--abort` or `--undo` did (or, for a dry
/// run, would do).
#[derive(Debug, Serialize)]
pub struct Report {
    /// The thread.
    pub thread: String,
    /// The latest turn before the revert.
    pub from_turn: u64,
    /// The turn reverted to.
    pub to_turn: u64,
    /// The target's ref, or `HEAD`.
    pub target: String,
    /// Files written and deleted.
    pub files: restore::Plan,
    /// Refs removed (or put back, for abort and undo).
    pub refs: Vec<RemovedRef>,
    /// Turns the provider rolled back.
    pub rolled_back_turns: u64,
    /// The safety checkpoint holding the worktree as it was.
    pub safety_commit: Option<Oid>,
    /// Agents' conversation transcripts changed (or, for a dry run, that
    /// would be), with their backups.
    pub transcripts: Vec<TranscriptReport>,
    /// For an undo: the operation undone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undid: Option<Undid>,
    /// For an undo with `--force`: paths changed since the operation that
    /// were put back anyway (their content is in the safety checkpoint).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub overwritten: Vec<crate::model::path::PathText>,
    /// Files holding another thread's work that the restore overwrites or
    /// deletes (`--dry-run` names them; a revert does only with `--force`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<super::owners::Foreign>,
    /// Files it overwrites or deletes (`--dry-run`: would) whose content no
    /// checkpoint of the thread holds — edited since its latest turn, or
    /// never captured; the safety checkpoint keeps them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uncaptured: Vec<crate::model::path::PathText>,
    /// Messages for stderr.
    #[serde(skip)]
    pub notices: Vec<String>,
}

/// The operation an undo reversed.
#[derive(Debug, Clone, Serialize)]
pub struct Undid {
    /// Its op id.
    pub op: Oid,
    /// Its kind (revert, restore, drop, prune, fetch, abort, undo).
    pub kind: &'static str,
    /// Its thread, when it had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    /// The thread's title (the first prompt's first line), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The thread's latest turn before the undo (absent: no turns).
    pub latest_before: Option<u64>,
    /// The thread's latest turn after it.
    pub latest_after: Option<u64>,
    /// Refs the undo changed, over every thread.
    pub refs_changed: usize,
}

/// A conversation transcript a revert, abort or undo changed.
#[derive(Debug, Clone, Serialize)]
pub struct TranscriptReport {
    /// The agent.
    pub agent: String,
    /// The file.
    pub path: String,
    /// What was done to it.
    pub how: String,
    /// The blob holding its content before (absent for a dry run or a
    /// file that was not there).
    pub backup: Option<Oid>,
}

impl TranscriptReport {
    pub(super) fn of(c: &crate::oplog::TranscriptChange) -> Self {
        TranscriptReport {
            agent: c.agent.clone(),
            path: c.path.clone(),
            how: c.how.clone(),
            backup: c.before,
        }
    }
}
