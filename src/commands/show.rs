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

/// The checkpoint of `turn` (default: the latest) of `thread`.
pub fn run(repo: &gix::Repository, thread: &ThreadId, turn: Option<u64>) -> Result<ShowOutcome> {
    Ok(ShowOutcome {
        checkpoint: store::load_turn(repo, thread, turn)?,
        revert_in_progress: crate::revert::progress(repo, thread)?,
    })
}
