//! What a revert command reports: which action ran with the saga's report,
//! and a half-done revert as `list` and `show` name it.

use serde::Serialize;

use super::{Report, Step, in_progress};
use crate::error::Result;
use crate::model::thread::ThreadId;

/// Which revert action ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ran {
    /// `revert --to N`.
    Revert,
    /// `revert --dry-run`: nothing changed.
    DryRun,
    /// `revert --continue`.
    Continue,
    /// `revert --abort`.
    Abort,
    /// `revert --undo`, `op undo`.
    Undo,
}

/// What a revert did (or, with `--dry-run`, would do): the saga's report
/// and which action ran.
#[derive(Debug, Serialize)]
pub struct RevertOutcome {
    /// `revert`, `continue`, `abort`, `undo` or `dry-run`.
    pub action: Ran,
    /// What it did.
    #[serde(flatten)]
    pub report: Report,
}

/// A half-done revert, as `list` and `show` report it.
#[derive(Debug, Serialize)]
pub struct RevertInProgress {
    /// The step that has not run yet.
    pub step: Step,
    /// The latest turn before the revert.
    pub from_turn: u64,
    /// The turn it goes back to.
    pub to_turn: u64,
}

/// The half-done revert of `thread`, if any.
pub fn progress(repo: &gix::Repository, thread: &ThreadId) -> Result<Option<RevertInProgress>> {
    Ok(in_progress(repo, thread)?.map(|j| RevertInProgress {
        step: j.step,
        from_turn: j.from_turn,
        to_turn: j.to_turn,
    }))
}
