//! `git t3 show`: one checkpoint's summary.

use serde::Serialize;

use crate::error::Result;
use crate::model::thread::ThreadId;
use crate::store::{self, Checkpoint};

/// The checkpoint shown.
#[derive(Debug, Serialize)]
pub struct ShowOutcome {
    /// It.
    #[serde(flatten)]
    pub checkpoint: Checkpoint,
    /// A revert of the thread that stopped half-way, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revert_in_progress: Option<crate::revert::RevertInProgress>,
}

/// The checkpoint of `turn` (default: the latest) of `thread`, with its
/// figures counted `how`.
pub fn run(
    ctx: &crate::context::Context,
    thread: &ThreadId,
    turn: Option<u64>,
    how: crate::compare::Counting,
) -> Result<ShowOutcome> {
    let repo = &ctx.repo;
    let mut checkpoint = store::load_turn(repo, thread, turn)?;
    crate::compare::fill(ctx, thread, std::slice::from_mut(&mut checkpoint), how);
    Ok(ShowOutcome {
        checkpoint,
        revert_in_progress: crate::revert::progress(repo, thread)?,
    })
}
