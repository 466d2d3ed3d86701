//! `git t3 push` and `git t3 fetch`, under the repository lock; the
//! transport and the notes merge live in [`crate::sync`].

use serde::Serialize;

use crate::commands::Context;
use crate::error::{Error, Result};
use crate::model::thread::ThreadId;
use crate::sync;

/// Which way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// `git t3 push`.
    Push,
    /// `git t3 fetch`.
    Fetch,
}

/// What a push or fetch did.
#[derive(Debug, Serialize)]
pub struct SyncOutcome {
    /// `push` or `fetch`.
    pub action: &'static str,
    /// The remote.
    pub remote: String,
    /// Notes taken from the other side.
    pub notes_merged: usize,
    /// Checkpoints both sides annotated differently (the local note was kept).
    pub note_conflicts: Vec<String>,
    /// Checkpoint refs created (fetch) or deleted or replaced on the remote (push).
    pub refs_changed: Vec<String>,
    /// Checkpoints the remote has that the local operation log removed (not brought back).
    pub kept_removed: Vec<String>,
    /// Refs not taken, with the reason.
    pub refused: Vec<String>,
}

/// Push or fetch the checkpoints (of `thread`, or all) to or from `remote`
/// (default: the branch's remote, else `origin`).
pub fn run(
    ctx: &Context,
    direction: Direction,
    remote: Option<&str>,
    thread: Option<&ThreadId>,
) -> Result<SyncOutcome> {
    if remote.is_some_and(|r| r.starts_with('-')) {
        return Err(Error::usage("a remote name cannot start with '-'"));
    }
    let remote = sync::default_remote(&ctx.repo, remote);
    let report = match direction {
        Direction::Push => sync::push(&ctx.lock("push")?, &remote, thread)?,
        Direction::Fetch => sync::fetch(&ctx.lock("fetch")?, &remote, thread)?,
    };
    let sync::Report {
        action,
        remote,
        notes_merged,
        note_conflicts,
        refs_changed,
        kept_removed,
        refused,
    } = report;
    Ok(SyncOutcome {
        action,
        remote,
        notes_merged,
        note_conflicts,
        refs_changed,
        kept_removed,
        refused,
    })
}
