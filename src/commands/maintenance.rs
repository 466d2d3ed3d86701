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

/// Run maintenance (with the daily prune when `prune`). A failed prune
/// does not keep git from packing: gc runs, then the prune's error is
/// returned.
pub fn run(ctx: &Context, prune: bool) -> Result<MaintenanceOutcome> {
    let repo = &ctx.repo;
    maintenance::lower_priority();
    let Some(_held) = maintenance::try_lock(repo)? else {
        return Ok(MaintenanceOutcome {
            already_running: true,
            pruned: None,
            gc: false,
        });
    };
    let pruned = if prune {
        maintenance::touch(repo, maintenance::Stamp::Prune)?;
        match retention::prune_after(repo) {
            Ok(Some(age)) => Some(prune::run(
                ctx,
                prune::Options {
                    older_than: Some(age),
                    ..prune::Options::default()
                },
            )),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    } else {
        None
    };
    // A signal ends the run here, before git is started.
    if let Some(Err(e @ crate::error::Error::Interrupted { .. })) = pruned {
        return Err(e);
    }
    maintenance::touch(repo, maintenance::Stamp::Gc)?;
    let dir = repo.workdir().unwrap_or_else(|| repo.git_dir());
    let gc = maintenance::git_gc_auto(dir, ctx.settings.interrupt)?;
    Ok(MaintenanceOutcome {
        already_running: false,
        pruned: pruned.transpose()?,
        gc,
    })
}
