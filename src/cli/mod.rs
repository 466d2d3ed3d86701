//! The command line, as clap types. Nothing outside `cli` and `app` uses clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

mod args;
mod complete;
mod diff_args;
mod diff_replay;
mod dispatch;
mod edge;
mod env;
mod hook;
mod renames;
mod seen;
mod thread;
mod turns;
pub use complete::*;
pub use diff_args::GitDiffArgs;
pub use dispatch::run;
pub use env::{Environment, start_maintenance};
pub use renames::{RenameArgs, git_diff_shorts};
pub use seen::{Seen, parse};
pub use turns::*;

pub mod man;

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
    /// Print how long each step took on stderr (as `T3_TRACE=1`)
    #[arg(long, global = true)]
    pub timings: bool,
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
    /// Show what a turn, a range of turns or the whole thread changed, or the live worktree or branch
    Diff(DiffArgs),
    /// A thread's turns, newest first: title, agent, time, status and what each changed
    Log(LogArgs),
    /// This worktree's threads: latest turn, changes not captured yet, a revert in progress
    Status,
    /// Print a checkpoint's commit id (for git diff, git restore --source, git difftool)
    Rev(RevArgs),
    /// Put back only some paths from a turn (kept first in a safety checkpoint; see op undo)
    Restore(RestoreArgs),
    /// Put the workspace and the agent's conversation back to an earlier turn
    Revert(RevertArgs),
    /// Serve a local, read-only web page (127.0.0.1 only, a token in its URL) to review threads and diffs
    Review(ReviewArgs),
    /// Delete a thread's checkpoints (kept in the operation log until pruned)
    Drop(DropArgs),
    /// Disk used by each thread (bytes only it holds), by all of git-t3, and loose objects
    Du(DuArgs),
    /// Remove old threads (by age or beyond the N most recent), their notes, old operation-log entries
    Prune(PruneArgs),
    /// Background housekeeping a capture starts when due: the daily prune, then `git gc --auto`
    #[command(hide = true)]
    Maintenance(MaintenanceArgs),
    /// The operation log: every revert, restore, abort, undo, drop, prune and fetch; show one, or undo one (not a prune)
    Op(OpArgs),
    /// Checkpoint notes: `backfill` writes ours for checkpoints T3 Code wrote without one
    Notes(NotesArgs),
    /// Check refs and notes under refs/t3/ (for CI): exit 1 with one line per problem
    Verify(VerifyArgs),
    /// Push checkpoint refs and notes (merging the remote's notes first); refuses checkpoints recording secret-looking files
    Push(PushArgs),
    /// Fetch checkpoint refs and notes (merging them into yours)
    Fetch(SyncArgs),
    /// Entry point for agent hooks (claude-code, codex, opencode, cursor: JSON on stdin; codex notify: JSON argument)
    Hook(HookArgs),
    /// Set up an agent's hooks (Claude Code, Codex, Cursor, opencode) or the git pre-push block
    InstallHooks(InstallArgs),
    /// Remove exactly what install-hooks added
    UninstallHooks(InstallArgs),
    /// Print a completion script for bash, zsh or fish
    Completions(CompletionsArgs),
    /// Install the man pages (git-t3.1 and one per command), by default where man finds them
    Mangen(MangenArgs),
}

/// Arguments of `review`.
#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// The port on 127.0.0.1 to listen on (default: a free one the system picks)
    #[arg(long, value_name = "P")]
    pub port: Option<u16>,
    /// Print the URL but do not open a browser (else $BROWSER, xdg-open or open)
    #[arg(long)]
    pub no_open: bool,
    /// The thread to show first (default: the newest)
    #[arg(long, env = "T3_THREAD", value_name = "ID", add = thread_completer())]
    pub thread: Option<String>,
    /// Offer a revert button (asks for confirmation; the same saga, safety
    /// checkpoint and operation log as `git t3 revert`)
    #[arg(long)]
    pub allow_revert: bool,
    /// Stop after this long without a request (30s, 30m, 12h; default 30m)
    #[arg(long, value_name = "AGE", default_value = "30m")]
    pub idle_timeout: String,
}

/// Arguments of `notes`.
#[derive(Debug, Args)]
pub struct NotesArgs {
    /// What to do with the notes
    #[command(subcommand)]
    pub action: NotesAction,
}

/// The `notes` subcommands.
#[derive(Debug, Subcommand)]
pub enum NotesAction {
    /// Write a note (the summary against the turn before) for each checkpoint T3 Code wrote without one
    Backfill {
        /// Only this thread (default: every thread)
        #[arg(long, value_name = "ID", add = thread_completer())]
        thread: Option<String>,
        /// List the notes that would be written; write nothing
        #[arg(long)]
        dry_run: bool,
    },
}

/// Arguments of `op`.
#[derive(Debug, Args)]
pub struct OpArgs {
    /// What to do with the operation log
    #[command(subcommand)]
    pub action: OpAction,
}

/// The `op` subcommands.
#[derive(Debug, Subcommand)]
pub enum OpAction {
    /// List the operations, newest first
    Log {
        /// Only this thread's operations
        #[arg(long, value_name = "ID")]
        thread: Option<String>,
    },
    /// Show one operation
    Show {
        /// The op id (as `op log` shows it; a unique prefix will do)
        op: String,
    },
    /// Reverse an operation (default: the latest): files, index, refs, and a conversation a built-in provider (Claude Code, Codex, opencode) changed
    Undo {
        /// The op id (default: the latest operation)
        op: Option<String>,
        /// Undo even when refs it would put back changed since (the newer commits stay in the log)
        #[arg(long)]
        force: bool,
    },
}

/// Arguments of `verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Only this thread
    #[arg(long, value_name = "ID", add = thread_completer())]
    pub thread: Option<String>,
    /// A half-done revert older than this fails (e.g. 30m, 12h, 2d; default 1d)
    #[arg(long, value_name = "AGE", default_value = "1d")]
    pub max_journal_age: String,
    /// Remove notes no ref or operation keeps (left by killed captures and old threads)
    #[arg(long)]
    pub fix: bool,
    /// Check that each checkpoint's trees exist, not every file's blob
    #[arg(long)]
    pub quick: bool,
}

/// Arguments of `du`.
#[derive(Debug, Args)]
pub struct DuArgs {
    /// Only this thread's line (still measured against the others)
    #[arg(long, value_name = "ID", add = thread_completer())]
    pub thread: Option<String>,
}

/// Arguments of `prune`.
#[derive(Debug, Args)]
pub struct PruneArgs {
    /// Threads whose latest checkpoint is older than AGE (30m, 12h, 30d, 2w; default: t3.pruneAfter, 30d)
    #[arg(long, value_name = "AGE")]
    pub older_than: Option<String>,
    /// Keep the N most recently used threads (with --older-than: only older ones beyond them go)
    #[arg(long, value_name = "N")]
    pub keep_last: Option<usize>,
    /// Show what would be removed; change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,
    /// Also threads with checkpoints T3 Code wrote
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `maintenance`.
#[derive(Debug, Args)]
pub struct MaintenanceArgs {
    /// Prune threads older than t3.pruneAfter first
    #[arg(long)]
    pub prune: bool,
    /// Run git gc --auto only when due (the run a capture starts)
    #[arg(long)]
    pub auto: bool,
}

/// Arguments of `push` and `fetch`.
#[derive(Debug, Args)]
pub struct SyncArgs {
    /// The remote (default: the branch's upstream remote, else origin)
    pub remote: Option<String>,
    /// Only this thread's checkpoints (notes always travel whole)
    #[arg(long, value_name = "ID", add = thread_completer())]
    pub thread: Option<String>,
}

/// Arguments of `push`.
#[derive(Debug, Args)]
pub struct PushArgs {
    #[allow(missing_docs)]
    #[command(flatten)]
    pub sync: SyncArgs,
    /// Push even checkpoints that record files looking like secrets (.env, *.pem, id_rsa…, t3.secretPattern)
    #[arg(long)]
    pub allow_secrets: bool,
}

/// Arguments of `hook`.
#[derive(Debug, Args)]
pub struct HookArgs {
    /// The agent: claude-code, codex, opencode or cursor
    pub agent: String,
    /// The payload, when the agent passes it as the last argument (Codex's
    /// notify); else it is read from stdin. `--then CMD [ARG…] --` first
    /// also starts CMD with the payload as its last argument, without
    /// waiting for it (Codex runs one notify program: chain the one it ran
    /// before)
    #[arg(
        value_name = "[--then CMD [ARG]... --] PAYLOAD",
        trailing_var_arg = true,
        allow_hyphen_values = true,
        num_args = 0..
    )]
    pub args: Vec<String>,
}

impl HookArgs {
    /// The program to chain (`--then` up to the last `--`) and the payload
    /// argument: the last argument after those, when it is a JSON object
    /// (a word such as `stop` or `notify` from a hand-written configuration
    /// is ignored, and the payload is read from stdin).
    pub fn split(&self) -> (Option<Vec<String>>, Option<String>) {
        let (then, rest) = match self.args.split_first() {
            Some((first, rest)) if first == "--then" => match rest.iter().rposition(|a| a == "--") {
                Some(end) => (Some(rest[..end].to_vec()), &rest[end + 1..]),
                // No `--`: the payload Codex appends is the last argument.
                None => match rest.split_last() {
                    Some((last, cmd)) if last.trim_start().starts_with('{') => {
                        (Some(cmd.to_vec()), &rest[cmd.len()..])
                    }
                    _ => (Some(rest.to_vec()), &[][..]),
                },
            },
            _ => (None, &self.args[..]),
        };
        let payload = rest.last().filter(|p| p.trim_start().starts_with('{')).cloned();
        (then, payload)
    }
}

/// Arguments of `install-hooks` and `uninstall-hooks`: at least one of
/// the agents or `--git`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Claude Code: UserPromptSubmit, Stop, StopFailure and SessionEnd hooks in its settings (scope: local, project or user)
    #[arg(long)]
    pub claude_code: bool,
    /// Codex: lifecycle hooks in hooks.json (scope: user or project) and the hooks feature in ~/.codex/config.toml
    #[arg(long)]
    pub codex: bool,
    /// Codex before lifecycle hooks: `notify` in ~/.codex/config.toml, chaining the notifier already there
    #[arg(long)]
    pub codex_notify: bool,
    /// Cursor: beforeSubmitPrompt and stop hooks in hooks.json (scope: user or project)
    #[arg(long)]
    pub cursor: bool,
    /// opencode: a plugin file (scope: user or project)
    #[arg(long)]
    pub opencode: bool,
    /// git: a pre-push block pushing checkpoints when t3.pushCheckpoints is true
    #[arg(long)]
    pub git: bool,
    /// Whose configuration: local (Claude Code's .claude/settings.local.json, its default),
    /// project (the repository's, shared through git) or user (your home's; the default of the others)
    #[arg(long, value_name = "SCOPE")]
    pub scope: Option<String>,
}

/// Arguments of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// bash, zsh or fish
    pub shell: String,
}

/// Arguments of `mangen`.
#[derive(Debug, Args)]
pub struct MangenArgs {
    /// A man folder: the pages go into its man1/, where `man -M DIR` looks
    /// (default: share/man beside the bin folder holding git-t3, e.g.
    /// ~/.cargo/share/man, so they land in ~/.cargo/share/man/man1)
    pub dir: Option<std::path::PathBuf>,
}

/// Arguments of `drop`.
#[derive(Debug, Args)]
pub struct DropArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadArg,
    /// Also drop a half-done revert's journal (its safety checkpoint goes
    /// with it) and checkpoints written by T3 Code
    #[arg(long)]
    pub force: bool,
}

#[cfg(test)]
mod tests {
    #[test]
    fn then_chains_with_or_without_the_closing_dashes() {
        let args = |v: &[&str]| super::HookArgs {
            agent: "codex".into(),
            args: v.iter().map(|s| s.to_string()).collect(),
        };
        let payload = r#"{"type":"agent-turn-complete"}"#;
        let want = (
            Some(vec!["notify.py".to_owned(), "-v".to_owned()]),
            Some(payload.to_owned()),
        );
        assert_eq!(args(&["--then", "notify.py", "-v", "--", payload]).split(), want);
        assert_eq!(args(&["--then", "notify.py", "-v", payload]).split(), want);
        assert_eq!(args(&[payload]).split(), (None, Some(payload.to_owned())));
        assert_eq!(
            args(&["--then", "notify.py"]).split(),
            (Some(vec!["notify.py".to_owned()]), None)
        );
    }

    #[test]
    fn clap_definition_is_consistent() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
