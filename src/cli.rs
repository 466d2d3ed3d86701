//! The command line, as clap types. Nothing outside `cli` and `app` uses clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Per-turn checkpoints of the working tree for coding agents, kept as plain git refs and notes.
#[derive(Debug, Parser)]
#[command(name = "git-t3", bin_name = "git t3", version, about, max_term_width = 100)]
pub struct Cli {
    /// Run as if started in <PATH>
    #[arg(short = 'C', value_name = "PATH", global = true)]
    pub directory: Option<PathBuf>,
    /// Print one JSON document on stdout
    #[arg(long, global = true)]
    pub json: bool,
    /// Print nothing but errors (and the data of list/show)
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// The command
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write turn 0 of a thread if it has no checkpoint yet
    Baseline(BaselineArgs),
    /// Snapshot the worktree as a turn of a thread
    Capture(CaptureArgs),
    /// Record a turn whose snapshot has not been taken (status missing)
    Placeholder(PlaceholderArgs),
    /// List threads, or one thread's turns
    List(ListArgs),
    /// Show one checkpoint's summary
    Show(ShowArgs),
}

/// The thread a command works on.
#[derive(Debug, Args)]
pub struct ThreadArg {
    /// Thread id (1-190 bytes of UTF-8)
    #[arg(long, env = "T3_THREAD", value_name = "ID")]
    pub thread: String,
}

/// Arguments of `baseline`.
#[derive(Debug, Args)]
pub struct BaselineArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadArg,
    /// Provider that rolls this thread's conversation back (see `git t3 revert`)
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,
}

/// Arguments of `capture`.
#[derive(Debug, Args)]
pub struct CaptureArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadArg,
    /// Turn number to write (default: latest + 1)
    #[arg(long, value_name = "N")]
    pub turn: Option<u64>,
    /// The agent's turn state: completed, failed, cancelled, interrupted, ...
    #[arg(long, value_name = "STATE")]
    pub state: Option<String>,
    /// The agent's id for this turn
    #[arg(long, value_name = "ID")]
    pub turn_id: Option<String>,
    /// The assistant message this turn produced
    #[arg(long, value_name = "ID")]
    pub message_id: Option<String>,
    /// Overwrite a real checkpoint of the same turn
    #[arg(long)]
    pub replace: bool,
}

/// Arguments of `placeholder`.
#[derive(Debug, Args)]
pub struct PlaceholderArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadArg,
    /// Turn number (default: latest + 1)
    #[arg(long, value_name = "N")]
    pub turn: Option<u64>,
    /// The agent's id for this turn
    #[arg(long, value_name = "ID")]
    pub turn_id: Option<String>,
}

/// Arguments of `list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only this thread's turns
    #[arg(long, env = "T3_THREAD", value_name = "ID")]
    pub thread: Option<String>,
}

/// Arguments of `show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadArg,
    /// Turn number (default: latest)
    #[arg(long, value_name = "N")]
    pub turn: Option<u64>,
}

#[cfg(test)]
mod tests {
    #[test]
    fn clap_definition_is_consistent() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
