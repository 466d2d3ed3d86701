//! `git t3 op log|show|undo`: the operation log (see [`crate::oplog`]).

use serde::Serialize;

use crate::commands::Context;
use crate::error::{Error, Result};
use crate::model::thread::ThreadId;
use crate::oplog::{self, Entry};
use crate::revert::{Ran, RevertOutcome};

/// What an `op` command produced.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum OpOutcome {
    /// `op log`: newest first.
    Log {
        /// The operations.
        ops: Vec<Entry>,
    },
    /// `op show`.
    Show(Entry),
    /// `op undo`: what was put back.
    Undo(RevertOutcome),
}

/// The operations (of `thread`, or all), newest first.
pub fn log(repo: &gix::Repository, thread: Option<&ThreadId>) -> Result<OpOutcome> {
    let ops = oplog::log(repo, oplog::MAX_LOG)?
        .into_iter()
        .filter(|e| thread.is_none_or(|t| e.op.thread.as_deref() == Some(t.as_str())))
        .collect();
    Ok(OpOutcome::Log { ops })
}

/// One operation.
pub fn show(repo: &gix::Repository, spec: &str) -> Result<OpOutcome> {
    Ok(OpOutcome::Show(oplog::find(repo, spec)?))
}

/// Reverse the operation `spec` (default: the latest one not yet undone,
/// walking back past the undos of earlier bare `op undo`s), under the lock.
pub fn undo(ctx: &Context, spec: Option<&str>, force: bool) -> Result<OpOutcome> {
    let lock = ctx.lock("op undo")?;
    // An interrupted put-back is finished first (and is all this run does).
    if let Some(finished) = crate::revert::put_back::complete_pending(&lock, &ctx.settings.provider.homes)? {
        return Ok(OpOutcome::Undo(RevertOutcome {
            action: Ran::Undo,
            report: finished,
        }));
    }
    let entry = match spec {
        Some(s) => oplog::find(&ctx.repo, s)?,
        None => oplog::latest_to_undo(&ctx.repo)?
            .ok_or_else(|| Error::Refused("the operation log has nothing to undo".into()))?,
    };
    let report = crate::revert::undo_op(
        &lock,
        &entry,
        force,
        (false, spec.is_none()),
        &ctx.settings.provider.homes,
    )?;
    Ok(OpOutcome::Undo(RevertOutcome {
        action: Ran::Undo,
        report,
    }))
}
