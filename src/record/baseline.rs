//! The baseline: turn 0, written only when the thread has no checkpoint.

use crate::error::{Error, Result};
use crate::model::thread::ThreadId;
use crate::repo::Locked;
use crate::store;

use super::capture::{CaptureOutcome, Options, capture};

/// What a baseline records.
#[derive(Debug, Clone)]
pub struct Baseline {
    /// The thread.
    pub thread: ThreadId,
    /// The provider that can roll the thread's conversation back.
    pub provider: Option<String>,
    /// Who drives the thread (`claude-code`, `codex`, …; `cli` by hand).
    pub agent: Option<String>,
}

/// Validate a provider name: it becomes part of a helper's file name.
pub fn check_provider(name: &str) -> Result<()> {
    if crate::provider::is_valid_name(name) {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "provider '{name}' is not a valid name: use 1-64 lowercase letters, digits and '-', \
             starting with a letter or digit"
        )))
    }
}

/// Write turn 0 of the thread unless it already has a checkpoint (then
/// return the latest, `created: false`).
pub fn baseline(lock: &Locked<'_>, b: Baseline) -> Result<CaptureOutcome> {
    let repo = lock.repo();
    let Baseline {
        thread,
        provider,
        agent,
    } = b;
    if let Some(p) = &provider {
        check_provider(p)?;
    }
    if let Some(latest) = store::thread_refs(repo, &thread)?.last() {
        let checkpoint = store::load_turn(repo, &thread, Some(latest.turn))?;
        return Ok(CaptureOutcome {
            checkpoint,
            created: false,
            notices: Vec::new(),
            scope_notices: Vec::new(),
        });
    }
    capture(
        lock,
        Options {
            turn: Some(0),
            provider,
            agent,
            ..Options::new(thread)
        },
    )
}
