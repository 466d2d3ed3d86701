//! `git t3 maintenance` (what a capture starts in the background when due):
//! the daily prune by `t3.pruneAfter`, then git's `gc --auto`, never two
//! runs at once.

use serde::Serialize;

use crate::commands::{Context, prune};
use crate::error::Result;
use crate::retention::{self, maintenance};

/// What a maintenance run did.
#[derive(Debug, Serialize)]
pub struct MaintenanceOutcome {
    /// Another run holds the lock: this one did nothing.
    pub already_running: bool,
    /// The prune, when asked for and `t3.pruneAfter` is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pruned: Option<prune::PruneOutcome>,
    /// Whether `git gc --auto` ran and succeeded.
    pub gc: bool,
}

/// Run maintenance (with the daily prune when `prune`).
pub fn run(ctx: &Context, prune: bool) -> Result<MaintenanceOutcome> {
    let Some(_held) = maintenance::try_lock(&ctx.repo)? else {
        return Ok(MaintenanceOutcome {
            already_running: true,
            pruned: None,
            gc: false,
        });
    };
    let pruned = match (prune, retention::prune_after(&ctx.repo)?) {
        (true, Some(age)) => Some(prune::run(
            ctx,
            prune::Options {
                older_than: Some(age),
                ..prune::Options::default()
            },
        )?),
        _ => None,
    };
    let dir = ctx.repo.workdir().unwrap_or_else(|| ctx.repo.git_dir());
    let gc = maintenance::git_gc_auto(dir)?;
    Ok(MaintenanceOutcome {
        already_running: false,
        pruned,
        gc,
    })
}
