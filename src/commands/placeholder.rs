//! `git t3 placeholder`: record a turn whose snapshot has not been taken
//! (the use case is [`crate::record::placeholder`]).

use crate::commands::Context;
use crate::error::Result;
use crate::record::{self, CaptureOutcome};
use crate::repo;

pub use crate::record::Placeholder as Options;

/// Write a `missing` placeholder (an empty tree) unless a real checkpoint is there.
pub fn run(ctx: &Context, opts: Options) -> Result<CaptureOutcome> {
    repo::workdir(&ctx.repo)?;
    let lock = ctx.lock("placeholder")?;
    record::placeholder(&lock, opts)
}
