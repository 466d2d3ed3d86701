//! `git t3 drop`: delete a thread's refs (kept in the operation log).

use serde::Serialize;

use crate::commands::Context;
use crate::error::{Error, Result};
use crate::model::thread::ThreadId;
use crate::oplog::{self, Kind};
use crate::repo;
use crate::revert::{self, Step};
use crate::store;

/// What `drop` removed.
#[derive(Debug, Serialize)]
pub struct DropOutcome {
    /// The thread.
    pub thread: String,
    /// Refs deleted (checkpoints, journal, undo slot, prompts).
    pub removed: usize,
}

/// Delete every ref of `thread` (recorded in the operation log, so `op
/// undo` brings them back); a half-done revert's journal only with `force`.
pub fn run(ctx: &Context, thread: &ThreadId, force: bool) -> Result<DropOutcome> {
    let lock = ctx.lock("drop")?;
    let repo = lock.repo();
    if let Some(j) = revert::in_progress(repo, thread)?
        && j.step != Step::Done
        && !force
    {
        return Err(Error::Refused(format!(
            "a revert of thread '{thread}' is half-done (its journal keeps the worktree as it was); \
             finish it with `git t3 revert --continue` or `--abort`, or drop it anyway with --force"
        )));
    }
    let turns = store::thread_refs(repo, thread)?;
    let t3code: Vec<u64> = turns
        .iter()
        .filter(|t| repo::is_t3code_commit(repo, t.commit))
        .map(|t| t.turn)
        .collect();
    if !t3code.is_empty() && !force {
        return Err(Error::Refused(format!(
            "turns {t3code:?} of thread '{thread}' were written by T3 Code (it may still use them); \
             drop them anyway with --force"
        )));
    }
    let mut targets: Vec<(String, gix::ObjectId)> = turns
        .into_iter()
        .map(|t| (thread.checkpoint_ref(t.turn), t.commit))
        .collect();
    for name in store::side_refs(thread) {
        if let Some(id) = repo::find_ref(repo, &name)? {
            targets.push((name, id));
        }
    }
    if targets.is_empty() {
        return Err(Error::UnknownThread {
            thread: thread.to_string(),
        });
    }
    // The op first: it keeps every dropped commit reachable (and `op undo`
    // brings the thread back). Notes stay: other threads' refs or the log may
    // keep the same commits; `prune` removes notes nothing keeps.
    oplog::record_deletion(&lock, Kind::Drop, Some(thread.as_str()), &targets)?;
    Ok(DropOutcome {
        thread: thread.to_string(),
        removed: targets.len(),
    })
}
