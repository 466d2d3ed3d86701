//! `git t3 revert`: start a revert, or `--continue`, `--abort` or `--undo`
//! one; the saga itself lives in [`crate::revert`]. The lock is taken first,
//! before anything the revert decides on is read.

use serde::Serialize;

use crate::commands::Context;
use crate::error::Result;
use crate::model::note::RemovedRef;
use crate::model::thread::ThreadId;
use crate::restore;
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

/// What a revert did (or, with `--dry-run`, would do).
#[derive(Debug, Serialize)]
pub struct RevertOutcome {
    /// The thread.
    pub thread: String,
    /// `revert`, `continue`, `abort`, `undo` or `dry-run`.
    pub action: &'static str,
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
    pub safety_commit: Option<String>,
    /// Messages for stderr.
    #[serde(skip)]
    pub notices: Vec<String>,
}

/// Run `action` on `thread`.
pub fn run(ctx: &Context, thread: &ThreadId, action: Action) -> Result<RevertOutcome> {
    let (name, what) = match &action {
        Action::To { dry_run: true, .. } => ("dry-run", "revert --dry-run"),
        Action::To { .. } => ("revert", "revert"),
        Action::Continue => ("continue", "revert --continue"),
        Action::Abort { .. } => ("abort", "revert --abort"),
        Action::Undo { .. } => ("undo", "revert --undo"),
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
        Action::Abort { force } => revert::abort(&lock, thread, force)?,
        Action::Undo { force } => revert::undo(&lock, thread, force)?,
    };
    Ok(outcome(name, report))
}

pub(crate) fn outcome(action: &'static str, r: revert::Report) -> RevertOutcome {
    let revert::Report {
        thread,
        from_turn,
        to_turn,
        target,
        files,
        refs,
        rolled_back_turns,
        safety_commit,
        notices,
    } = r;
    RevertOutcome {
        thread,
        action,
        from_turn,
        to_turn,
        target,
        files,
        refs,
        rolled_back_turns,
        safety_commit,
        notices,
    }
}
