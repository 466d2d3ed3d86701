//! `git t3 capture`: snapshot the worktree as a turn and record its
//! summary (the use case is [`crate::record::capture`]).

use crate::commands::Context;
use crate::error::Result;
use crate::repo;

pub use crate::record::{CaptureOutcome, Options};

/// Capture the worktree as a turn of `opts.thread`.
pub fn run(ctx: &Context, opts: Options) -> Result<CaptureOutcome> {
    let _t = crate::trace::span("capture total (after open)");
    repo::workdir(&ctx.repo)?;
    let lock = ctx.lock("capture")?;
    crate::record::capture(&lock, opts)
}
