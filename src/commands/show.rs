//! `git t3 show`: one checkpoint's summary.

use serde::Serialize;

use crate::error::Result;
use crate::store::{self, Checkpoint};
use crate::thread::ThreadId;

/// The checkpoint shown.
#[derive(Debug, Serialize)]
pub struct ShowOutcome {
    /// It.
    #[serde(flatten)]
    pub checkpoint: Checkpoint,
}

/// The checkpoint of `turn` (default: the latest) of `thread`.
pub fn run(repo: &gix::Repository, thread: &ThreadId, turn: Option<u64>) -> Result<ShowOutcome> {
    Ok(ShowOutcome {
        checkpoint: store::load_turn(repo, thread, turn)?,
    })
}
