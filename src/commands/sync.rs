//! `git t3 push` and `git t3 fetch`, under the repository lock; the
//! transport and the notes merge live in [`crate::sync`].

use crate::commands::Context;
use crate::error::{Error, Result};
use crate::model::thread::ThreadId;
use crate::sync;

/// Which way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// `git t3 push`.
    Push {
        /// `--allow-secrets`: send checkpoints that record secret-looking files.
        allow_secrets: bool,
    },
    /// `git t3 fetch`.
    Fetch,
}

/// What a push or fetch did: the transport's report as it is.
pub type SyncOutcome = sync::Report;

/// Refuse a remote name that git would take for an option.
pub fn check_remote(remote: Option<&str>) -> Result<()> {
    if remote.is_some_and(|r| r.starts_with('-')) {
        return Err(Error::usage("a remote name cannot start with '-'"));
    }
    Ok(())
}

/// Push or fetch the checkpoints (of `thread`, or all) to or from `remote`
/// (default: the branch's remote, else `origin`).
pub fn run(
    ctx: &Context,
    direction: Direction,
    remote: Option<&str>,
    thread: Option<&ThreadId>,
) -> Result<SyncOutcome> {
    check_remote(remote)?;
    let remote = sync::default_remote(&ctx.repo, remote);
    let report = match direction {
        Direction::Push { allow_secrets } => sync::push(
            &ctx.lock("push")?,
            &remote,
            thread,
            sync::PushOptions { allow_secrets },
        )?,
        Direction::Fetch => sync::fetch(&ctx.lock("fetch")?, &remote, thread)?,
    };
    Ok(report)
}
