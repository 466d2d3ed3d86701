//! The command line, as clap types. Nothing outside `cli` and `app` uses clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

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
    /// The operation log: list, show or undo reverts, aborts, undos and drops
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

/// The thread a command works on.
#[derive(Debug, Args)]
pub struct ThreadArg {
    /// Thread id (1-190 bytes of UTF-8)
    #[arg(long, env = "T3_THREAD", value_name = "ID", add = thread_completer())]
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

/// Arguments of `log`.
#[derive(Debug, Args)]
pub struct LogArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadArg,
    /// One line per turn
    #[arg(long)]
    pub oneline: bool,
    /// The thread's turns that `fetch` kept apart from this remote
    #[arg(long, value_name = "NAME", conflicts_with_all = ["patch", "paths"])]
    pub remote: Option<String>,
    /// Show each turn's patch (against the turn before it, whitespace ignored)
    #[arg(short = 'p', long = "patch")]
    pub patch: bool,
    /// Only the turns that changed these paths, and only those paths' changes (git's pathspec syntax)
    #[arg(last = true, value_name = "PATH")]
    pub paths: Vec<String>,
}

/// Arguments of `rev`: the same as `show`'s.
pub type RevArgs = ShowArgs;

/// Arguments of `restore`.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadArg,
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
#[command(group = clap::ArgGroup::new("format").args(["stat", "numstat", "name_only"]))]
#[command(group = clap::ArgGroup::new("algorithm").args(["diff_algorithm", "patience", "histogram", "minimal"]))]
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
    /// Include binary patches that `git apply` can apply
    #[arg(long)]
    pub binary: bool,
    /// Show a diffstat instead of the patch (like git: --stat[=<width>[,<name-width>]])
    #[arg(long, value_name = "WIDTH", num_args = 0..=1, default_missing_value = "", require_equals = true)]
    pub stat: Option<String>,
    /// Show added and deleted lines per file, like `git diff --numstat`
    #[arg(long)]
    pub numstat: bool,
    /// Show only the names of changed files
    #[arg(long)]
    pub name_only: bool,
    /// Show the names and how each changed (A, D, M, R<score>, T)
    #[arg(long)]
    pub name_status: bool,
    /// Colour the output: always, never or auto (default: git's colour settings)
    #[arg(long, value_name = "WHEN", num_args = 0..=1, default_missing_value = "always", require_equals = true)]
    pub color: Option<String>,
    /// Never colour the output
    #[arg(long, conflicts_with = "color")]
    pub no_color: bool,
    /// Lines of context in the patch (git's default: 3)
    #[arg(short = 'U', long = "unified", value_name = "N")]
    pub unified: Option<u32>,
    /// The diff algorithm, as git's: myers (or default), minimal, patience
    /// or histogram (default: git's diff.algorithm)
    #[arg(long, value_name = "ALGORITHM", value_parser = ["default", "myers", "minimal", "patience", "histogram"])]
    pub diff_algorithm: Option<String>,
    /// Use the patience diff algorithm (--diff-algorithm=patience)
    #[arg(long)]
    pub patience: bool,
    /// Use the histogram diff algorithm (--diff-algorithm=histogram)
    #[arg(long)]
    pub histogram: bool,
    /// Spend extra time to find the smallest diff (--diff-algorithm=minimal)
    #[arg(long)]
    pub minimal: bool,
    /// Exit 1 when there are differences, 0 when there are none (like git;
    /// `-q`/`--quiet` implies it and prints nothing)
    #[arg(long)]
    pub exit_code: bool,
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
}

impl DiffArgs {
    /// The `diff.algorithm` the flags ask for, if any.
    pub fn algorithm(&self) -> Option<&str> {
        if self.patience {
            Some("patience")
        } else if self.histogram {
            Some("histogram")
        } else if self.minimal {
            Some("minimal")
        } else {
            self.diff_algorithm.as_deref()
        }
    }
}

/// Arguments of `revert`.
#[derive(Debug, Args)]
#[command(group = clap::ArgGroup::new("action").args(["to", "resume", "abort", "undo"]).required(true))]
pub struct RevertArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub thread: ThreadArg,
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
    /// Undo a revert that stopped half-way: files and refs as they were before it
    #[arg(long)]
    pub abort: bool,
    /// Reverse the last completed revert (files, index and refs; not the conversation)
    #[arg(long)]
    pub undo: bool,
    /// Revert a thread of another worktree here; move nested repositories in the way aside; undo even when turns were captured again since
    #[arg(long)]
    pub force: bool,
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
    /// Reverse an operation (default: the latest): files, index and refs
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
    /// The folder to write the pages into (default: share/man/man1 beside
    /// the bin folder holding git-t3, e.g. ~/.cargo/share/man/man1)
    pub dir: Option<std::path::PathBuf>,
}

/// The environment variable that asks `git-t3` for completions instead of
/// running a command (clap's dynamic completion protocol).
pub const COMPLETE_VAR: &str = "GIT_T3_COMPLETE";

/// When the shell asks for completions (`GIT_T3_COMPLETE=<shell>`), print
/// them and exit; otherwise return and let the command run.
pub fn complete_if_asked() {
    use clap::CommandFactory as _;
    clap_complete::CompleteEnv::with_factory(Cli::command)
        .var(COMPLETE_VAR)
        .bin("git-t3")
        .completer("git-t3")
        .complete();
}

/// `--thread <TAB>`: the ids of the threads in the repository around the
/// current directory (nothing outside a repository).
fn thread_completer() -> clap_complete::ArgValueCompleter {
    clap_complete::ArgValueCompleter::new(|current: &std::ffi::OsStr| {
        let prefix = current.to_string_lossy();
        crate::commands::list::thread_ids_near(std::path::Path::new("."))
            .into_iter()
            .filter(|(id, _)| id.starts_with(prefix.as_ref()))
            .map(|(id, turns)| {
                clap_complete::CompletionCandidate::new(id).help(Some(
                    format!("{turns} turn{}", if turns == 1 { "" } else { "s" }).into(),
                ))
            })
            .collect()
    })
}

/// The completion script for `shell`: it asks `git-t3` itself for the
/// candidates (subcommands, options, thread ids) each time.
///
/// bash: a `_git_t3` function lets git's own completion complete
/// `git t3 <TAB>` through the same protocol.
pub fn completions(shell: &str) -> Result<String, String> {
    use clap_complete::env::EnvCompleter as _;
    let mut buf = Vec::new();
    let written = match shell {
        "bash" => {
            clap_complete::env::Bash.write_registration(COMPLETE_VAR, "git-t3", "git-t3", "git-t3", &mut buf)
        }
        "zsh" => {
            clap_complete::env::Zsh.write_registration(COMPLETE_VAR, "git-t3", "git-t3", "git-t3", &mut buf)
        }
        "fish" => {
            clap_complete::env::Fish.write_registration(COMPLETE_VAR, "git-t3", "git-t3", "git-t3", &mut buf)
        }
        other => return Err(format!("no completions for '{other}': use bash, zsh or fish")),
    };
    written.map_err(|e| format!("could not write the completion script: {e}"))?;
    let mut script = String::from_utf8_lossy(&buf).into_owned();
    if shell == "bash" {
        script.push_str(GIT_BASH_BRIDGE);
    }
    Ok(script)
}

/// git's bash completion completes `git t3 …` by calling `_git_t3`, with
/// the words in `words` and the current one's index in `cword`: hand the
/// words after `t3` to `git-t3` as if it had been typed alone.
const GIT_BASH_BRIDGE: &str = r#"
# git t3 <TAB>: git's completion calls _git_t3.
_git_t3() {
    local IFS=$'\013'
    local i at=0
    for ((i = 1; i < cword; i++)); do
        if [[ "${words[i]}" == t3 ]]; then at=$i; break; fi
    done
    ((at > 0)) || return
    COMPREPLY=( $( \
        _CLAP_IFS="$IFS" \
        _CLAP_COMPLETE_INDEX=$((cword - at)) \
        _CLAP_COMPLETE_COMP_TYPE="${COMP_TYPE:-9}" \
        _CLAP_COMPLETE_SPACE=true \
        GIT_T3_COMPLETE=bash \
        git-t3 -- git-t3 "${words[@]:at+1}" \
    ) )
    # `--thread=al<TAB>`: bash replaces only what follows the `=`.
    if [[ "${words[cword]}" == *=* && "${COMP_WORDBREAKS:-=}" == *=* ]]; then
        COMPREPLY=( "${COMPREPLY[@]#*=}" )
    fi
}
"#;

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
