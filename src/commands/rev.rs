//! `git t3 rev`: a checkpoint's commit id, for git's own commands
//! (`git diff $(git t3 rev --thread T --turn 1)`, `git restore --source`).

use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::thread::ThreadId;
use crate::store;

/// The checkpoint named.
#[derive(Debug, Serialize)]
pub struct RevOutcome {
    /// The thread.
    pub thread: String,
    /// The turn.
    pub turn: u64,
    /// Its ref.
    #[serde(rename = "ref")]
    pub reference: String,
    /// The checkpoint commit.
    pub commit: String,
}

/// The commit of `turn` (default: the latest) of `thread`. A placeholder
/// is refused: its commit holds the empty tree, which git would take for
/// "every file deleted".
pub fn run(repo: &gix::Repository, thread: &ThreadId, turn: Option<u64>) -> Result<RevOutcome> {
    let turn = match turn {
        Some(t) => t,
        None => store::latest_turn(repo, thread)?.ok_or_else(|| Error::UnknownThread {
            thread: thread.to_string(),
        })?,
    };
    let found = store::require_turn(repo, thread, turn)?;
    store::snapshot_tree(repo, thread, found)?;
    Ok(RevOutcome {
        thread: thread.to_string(),
        turn,
        reference: thread.checkpoint_ref(turn),
        commit: found.commit.to_string(),
    })
}
