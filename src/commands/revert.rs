//! `git t3 revert`: start a revert, or `--continue`, `--abort` or `--undo`
//! one; the saga itself lives in [`crate::revert`]. The lock is taken first,
//! before anything the revert decides on is read.

use crate::commands::Context;
use crate::error::Result;
use crate::model::thread::ThreadId;
use crate::revert;

/// What to do.
#[derive(Debug, Clone)]
pub enum Action {
    /// Revert to this turn.
    To {
        /// The turn.
        turn: u64,
        /// Leave the conversation alone.
        files_only: bool,
        /// Only say what would happen.
        dry_run: bool,
        /// Move nested repositories in the way aside instead of refusing.
        force: bool,
    },
    /// Resume a revert that stopped half-way.
    Continue,
    /// Put back what a half-done revert changed.
    Abort {
        /// Move nested repositories in the way aside instead of refusing.
        force: bool,
    },
    /// Reverse the last completed revert.
    Undo {
        /// Undo even when its turns were captured again since.
        force: bool,
    },
}

pub use crate::revert::{Ran, RevertOutcome};

/// Run `action` on `thread`.
pub fn run(ctx: &Context, thread: &ThreadId, action: Action) -> Result<RevertOutcome> {
    let (ran, what) = match &action {
        Action::To { dry_run: true, .. } => (Ran::DryRun, "revert --dry-run"),
        Action::To { .. } => (Ran::Revert, "revert"),
        Action::Continue => (Ran::Continue, "revert --continue"),
        Action::Abort { .. } => (Ran::Abort, "revert --abort"),
        Action::Undo { .. } => (Ran::Undo, "revert --undo"),
    };
    let lock = ctx.lock(what)?;
    let provider = &ctx.settings.provider;
    let report = match action {
        Action::To {
            turn,
            files_only,
            dry_run,
            force,
        } => revert::start(
            &lock,
            revert::Options {
                thread: thread.clone(),
                to: turn,
                files_only,
                dry_run,
                force,
                provider: provider.clone(),
            },
        )?,
        Action::Continue => revert::resume(&lock, thread, provider)?,
        Action::Abort { force } => revert::abort(&lock, thread, force, &provider.homes)?,
        Action::Undo { force } => revert::undo(&lock, thread, force, &provider.homes)?,
    };
    Ok(RevertOutcome { action: ran, report })
}
