//! Arguments of the commands that read or write turns: baseline, capture, placeholder, list, show, log, restore, diff, revert.

use super::*;

/// The thread a command writes: named, always.
#[derive(Debug, Args)]
pub struct ThreadArg {
    /// Thread id (1-190 bytes of UTF-8), or @ for the current thread (the newest captured in this worktree)
    #[arg(long, env = "T3_THREAD", value_name = "ID", add = thread_completer())]
    pub thread: String,
}

/// The thread a command reads or reverts: the current one unless named.
#[derive(Debug, Args)]
pub struct ThreadSel {
    /// Thread id, a unique prefix of one, or @ (default: the current thread, the newest captured in this worktree)
    #[arg(long, env = "T3_THREAD", value_name = "ID", add = thread_completer())]
    pub thread: Option<String>,
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
    /// Who drives the thread: claude-code, codex, opencode, cursor (default: cli)
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
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
    /// What the turn was about (the first line is kept, at most 200 characters)
    #[arg(long, value_name = "TEXT")]
    pub title: Option<String>,
    /// Who drove the turn: claude-code, codex, opencode, cursor (default: cli)
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
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
    #[arg(long, env = "T3_THREAD", value_name = "ID", add = thread_completer())]
    pub thread: Option<String>,
    /// The turns `fetch` kept apart from this remote (threads it has otherwise than here)
    #[arg(long, value_name = "NAME")]
    pub remote: Option<String>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub counts: CountArgs,
}

/// How a turn's figures are counted, as `diff --turn N` counts them.
#[derive(Debug, Args, Clone, Copy)]
pub struct CountArgs {
    /// Count whitespace-only changes too (like `diff --keep-whitespace`)
    #[arg(long)]
    pub keep_whitespace: bool,
    /// Count the files the user changed between turns too (like `diff --include-user-edits`)
    #[arg(long)]
    pub include_user_edits: bool,
}

/// Arguments of `show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadSel,
    /// Turn number (default: latest)
    #[arg(long, value_name = "N")]
    pub turn: Option<u64>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub counts: CountArgs,
}

/// Arguments of `rev`.
#[derive(Debug, Args)]
pub struct RevArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadSel,
    /// Turn number (default: latest)
    #[arg(long, value_name = "N")]
    pub turn: Option<u64>,
}

/// Arguments of `log`.
#[derive(Debug, Args)]
pub struct LogArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadSel,
    /// One line per turn
    #[arg(long)]
    pub oneline: bool,
    /// The thread's turns that `fetch` kept apart from this remote
    #[arg(long, value_name = "NAME", conflicts_with_all = ["patch", "paths"])]
    pub remote: Option<String>,
    /// Show each turn's patch (what `diff --turn N` shows)
    #[arg(short = 'p', long = "patch")]
    pub patch: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub counts: CountArgs,
    /// Only the turns that changed these paths, and only those paths' changes (git's pathspec syntax)
    #[arg(last = true, value_name = "PATH")]
    pub paths: Vec<String>,
}

/// Arguments of `restore`.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadSel,
    /// The turn to take the paths from
    #[arg(long, value_name = "N")]
    pub turn: u64,
    /// Take the turn from those `fetch` kept apart from this remote (`list --remote NAME`)
    #[arg(long, value_name = "NAME")]
    pub remote: Option<String>,
    /// Restore a thread of another worktree here; move nested repositories in the way aside instead of refusing
    #[arg(long)]
    pub force: bool,
    /// Files or folders to put back (relative to the current directory); absent in the turn: deleted
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<std::path::PathBuf>,
}

/// Arguments of `diff`.
#[derive(Debug, Args)]
#[command(args_override_self = true)]
pub struct DiffArgs {
    /// Thread id (for the checkpoint modes)
    #[arg(long, env = "T3_THREAD", value_name = "ID", add = thread_completer())]
    pub thread: Option<String>,
    /// What turn N did: turn N-1 against N (default: the latest turn); when
    /// N's prompt came after edits of the user's, from the worktree then
    #[arg(long, value_name = "N", conflicts_with_all = ["from", "to", "full", "worktree", "branch"])]
    pub turn: Option<u64>,
    /// With --turn: compare from turn N-1 even when the user edited files
    /// between N-1 and N's prompt (their edits are shown too)
    #[arg(long, conflicts_with_all = ["from", "to", "full", "worktree", "branch"])]
    pub include_user_edits: bool,
    /// The older checkpoint of a range
    #[arg(long, value_name = "A", conflicts_with_all = ["full", "worktree", "branch"])]
    pub from: Option<u64>,
    /// The newer checkpoint (default: the latest), or `worktree` for the live files
    #[arg(long, value_name = "B", conflicts_with_all = ["worktree", "branch"])]
    pub to: Option<String>,
    /// The whole thread: turn 0 against --to (default: the latest)
    #[arg(long, conflicts_with_all = ["worktree", "branch"])]
    pub full: bool,
    /// The live worktree (untracked files included) against HEAD
    #[arg(long, conflicts_with = "branch")]
    pub worktree: bool,
    /// HEAD against its merge base with BASE (default: the upstream, else main, else master)
    #[arg(long, value_name = "BASE", num_args = 0..=1, default_missing_value = "")]
    pub branch: Option<String>,
    /// Count and show whitespace changes (ignored by default in turn diffs;
    /// `git config t3.diff.ignoreWhitespace false` changes the default)
    #[arg(long, conflicts_with = "ignore_all_space")]
    pub keep_whitespace: bool,
    /// Ignore whitespace when comparing lines (the default of turn diffs;
    /// the live modes show whitespace unless asked)
    #[arg(short = 'w', long = "ignore-all-space")]
    pub ignore_all_space: bool,
    /// Show the patch (the default when no other output is asked for); `-u` too
    #[arg(short = 'p', long = "patch", short_alias = 'u')]
    pub patch: bool,
    /// Show no diff at all (formats given after it still are)
    #[arg(short = 's', long = "no-patch")]
    pub no_patch: bool,
    /// Show the patch, with binary patches that `git apply` can apply
    #[arg(long)]
    pub binary: bool,
    /// Show a diffstat (like git: --stat[=<width>[,<name-width>[,<count>]]])
    #[arg(long, value_name = "WIDTH", num_args = 0..=1, default_missing_value = super::seen::ABSENT, require_equals = true)]
    pub stat: Vec<String>,
    /// --stat and the patch
    #[arg(long)]
    pub patch_with_stat: bool,
    /// Show added and deleted lines per file, like `git diff --numstat`
    #[arg(long)]
    pub numstat: bool,
    /// Show only the names of changed files
    #[arg(long)]
    pub name_only: bool,
    /// Show the names and how each changed (A, C<score>, D, M, R<score>, T)
    #[arg(long)]
    pub name_status: bool,
    /// Colour the output: always, never or auto (default: git's colour settings)
    #[arg(long, value_name = "WHEN", num_args = 0..=1, default_missing_value = "always", require_equals = true)]
    pub color: Option<String>,
    /// Never colour the output
    #[arg(long)]
    pub no_color: bool,
    /// Show the patch with N lines of context (git's default: 3; -U<N>, --unified=<N>)
    #[arg(short = 'U', long = "unified", value_name = "N", num_args = 0..=1, default_missing_value = super::seen::ABSENT, require_equals = true)]
    pub unified: Vec<String>,
    /// The diff algorithm, as git's: myers (or default), minimal, patience
    /// or histogram (default: git's diff.algorithm)
    #[arg(long, value_name = "ALGORITHM", ignore_case = true, value_parser = ["default", "myers", "minimal", "patience", "histogram"], overrides_with_all = ["patience", "histogram", "minimal"])]
    pub diff_algorithm: Option<String>,
    /// Use the patience diff algorithm (--diff-algorithm=patience)
    #[arg(long, overrides_with_all = ["diff_algorithm", "histogram", "minimal"])]
    pub patience: bool,
    /// Use the histogram diff algorithm (--diff-algorithm=histogram)
    #[arg(long, overrides_with_all = ["diff_algorithm", "patience", "minimal"])]
    pub histogram: bool,
    /// Spend extra time to find the smallest diff (--diff-algorithm=minimal)
    #[arg(long, overrides_with_all = ["diff_algorithm", "patience", "histogram"])]
    pub minimal: bool,
    /// Exit 1 when there are differences, 0 when there are none (like git;
    /// `-q`/`--quiet` implies it and prints nothing)
    #[arg(long, overrides_with = "no_exit_code")]
    pub exit_code: bool,
    /// Exit 0 whatever the differences (over --exit-code)
    #[arg(long, overrides_with = "exit_code")]
    pub no_exit_code: bool,
    /// With --to worktree: compare even when the thread belongs to another worktree
    #[arg(long)]
    pub force: bool,
    /// Only changes under the current directory (or under PATH, named from
    /// the top), with paths shown relative to it, like git (`diff.relative`
    /// makes it the default)
    #[arg(long, value_name = "PATH", num_args = 0..=1, require_equals = true, overrides_with = "no_relative")]
    pub relative: Option<Option<String>>,
    /// All changes, paths from the top (over `--relative` and `diff.relative`)
    #[arg(long, overrides_with = "relative")]
    pub no_relative: bool,
    /// Limit the diff to these paths (git's pathspec syntax, relative to the current directory)
    #[arg(last = true, value_name = "PATH")]
    pub paths: Vec<String>,
    /// With --numstat or --name-only: NUL-terminated, unquoted paths
    #[arg(short = 'z')]
    pub null: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub git: Box<super::GitDiffArgs>,
    /// Where on the command line each option was last given (git's "the
    /// last one wins" between options that contradict each other).
    #[arg(skip)]
    pub seen: super::seen::Seen,
}

impl DiffArgs {
    /// The `diff.algorithm` the flags ask for, if any (the last one given).
    pub fn algorithm(&self) -> Option<String> {
        if self.patience {
            Some("patience".into())
        } else if self.histogram {
            Some("histogram".into())
        } else if self.minimal {
            Some("minimal".into())
        } else {
            self.diff_algorithm.as_deref().map(str::to_ascii_lowercase)
        }
    }
}

/// Arguments of `revert`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("action").args(["to", "resume", "abort", "undo"]).required(true))]
pub struct RevertArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadSel,
    /// The turn to go back to
    #[arg(long, value_name = "N")]
    pub to: Option<u64>,
    /// Restore files and refs but leave the agent's conversation alone
    #[arg(long, requires = "to")]
    pub files_only: bool,
    /// Say what would be written, deleted and removed; change nothing
    #[arg(long, requires = "to")]
    pub dry_run: bool,
    /// Resume a revert that stopped half-way, from the step that failed
    #[arg(long = "continue")]
    pub resume: bool,
    /// Undo a revert that stopped half-way: files, refs and the conversation a built-in provider (Claude Code, Codex, opencode) had already changed, as they were before it
    #[arg(long)]
    pub abort: bool,
    /// Reverse the last completed revert: files, index, refs, and the conversation when a built-in provider (Claude Code, Codex, opencode) rolled it back (a provider helper's rollback stays)
    #[arg(long)]
    pub undo: bool,
    /// Revert a thread of another worktree here; move nested repositories in the way aside; undo even when turns were captured again since
    #[arg(long)]
    pub force: bool,
}
