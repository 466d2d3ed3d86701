//! `git t3 baseline`: turn 0, written only when the thread has no
//! checkpoint (the use case is [`crate::record::baseline`]).

use crate::commands::Context;
use crate::error::Result;
use crate::record::{self, CaptureOutcome};
use crate::repo;

pub use crate::record::Baseline as Options;

/// Write turn 0 of the thread unless it already has a checkpoint (then return the latest).
pub fn run(ctx: &Context, opts: Options) -> Result<CaptureOutcome> {
    if let Some(p) = &opts.provider {
        record::check_provider(p)?;
    }
    repo::workdir(&ctx.repo)?;
    let lock = ctx.lock("baseline")?;
    record::baseline(&lock, opts)
}
