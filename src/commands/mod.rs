//! One module per subcommand. Each exposes plain `Options` (no clap), one
//! `run` function that returns a typed outcome and never prints, and the
//! outcome type that the `output` module renders (it sits above).

pub mod baseline;
pub mod capture;
pub mod diff;
pub mod drop;
pub mod du;
pub mod hook;
pub mod install;
pub mod list;
pub mod log;
pub mod notes;
pub mod op;
pub mod placeholder;
pub mod prune;
pub mod restore;
pub mod rev;
pub mod revert;
pub mod review;
pub mod show;
pub mod status;
pub mod sync;
pub mod verify;

use serde::Serialize;

pub use crate::context::{Context, Settings};

/// What a command produced, for `output::render` (above this module).
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Outcome {
    /// `baseline`, `capture`, `placeholder`: the checkpoint written (or found).
    Checkpoint(capture::CaptureOutcome),
    /// `list --thread T`.
    Turns(list::TurnsOutcome),
    /// `list`.
    Threads(list::ThreadsOutcome),
    /// `list --remote NAME`, `log --remote NAME`.
    Remote(list::RemoteOutcome),
    /// `show`.
    Show(show::ShowOutcome),
    /// `diff`.
    Diff(diff::DiffOutcome),
    /// `log`.
    Log(log::LogOutcome),
    /// `status`.
    Status(status::StatusOutcome),
    /// `rev`.
    Rev(rev::RevOutcome),
    /// `restore`.
    Restore(restore::RestoreOutcome),
    /// `revert` and its `--continue`, `--abort`, `--undo`, `--dry-run`.
    Revert(revert::RevertOutcome),
    /// `drop`.
    Drop(drop::DropOutcome),
    /// `review`, once its server stopped.
    Review(review::ReviewOutcome),
    /// `du`.
    Du(du::DuOutcome),
    /// `prune`.
    Prune(prune::PruneOutcome),
    /// `maintenance`.
    Maintenance(prune::MaintenanceOutcome),
    /// `notes backfill`.
    Notes(notes::BackfillOutcome),
    /// `op log`, `op show`, `op undo`.
    Op(op::OpOutcome),
    /// `verify`.
    Verify(verify::VerifyOutcome),
    /// `push` and `fetch`.
    Sync(sync::SyncOutcome),
    /// `install-hooks`, `uninstall-hooks`.
    Install(install::InstallOutcome),
    /// Text to print as it is (`completions`).
    Text(String),
    /// Files written (`mangen`).
    Files(Vec<String>),
    /// `hook`: what was done, or why nothing could be (reported, exit 0).
    Hook(hook::HookReport),
}

impl Outcome {
    /// Warnings for stderr (suppressed by `-q`).
    pub fn warnings(&self) -> &[String] {
        match self {
            Outcome::Checkpoint(c) => &c.notices,
            Outcome::Diff(d) => &d.notices,
            Outcome::Log(l) => &l.notices,
            Outcome::Restore(r) => &r.restored.notices,
            Outcome::Revert(r) | Outcome::Op(op::OpOutcome::Undo(r)) => &r.report.notices,
            Outcome::Review(r) => &r.notices,
            Outcome::Hook(h) => match &h.result {
                Err(e) => std::slice::from_ref(e),
                Ok(o) => &o.notices,
            },
            _ => &[],
        }
    }
}
