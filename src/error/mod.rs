//! The error type of every git-t3 operation, and how it maps to an exit status.
//!
//! Variants name the problem in words a user can act on; `main` prints one
//! line per error and exits with [`Error::exit_code`].

use std::path::PathBuf;

mod context;
pub use context::*;

/// Exit status of a successful command.
pub const EXIT_OK: i32 = 0;
/// Exit status of a command that failed (message on stderr, nothing half-written).
pub const EXIT_FAILED: i32 = 1;
/// Exit status of a usage error (bad arguments or thread id).
pub const EXIT_USAGE: i32 = 2;

/// Result alias for git-t3 operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can make a git-t3 command fail.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The command line was wrong: a bad thread id, turn, or combination of options.
    #[error("{0}")]
    Usage(String),
    /// No git repository contains the current directory.
    #[error("not a git repository (or any parent up to the filesystem root): {}", path.display())]
    NotARepository {
        /// Where the search started.
        path: PathBuf,
    },
    /// The repository is owned by someone else and not marked safe.
    #[error(
        "detected dubious ownership in repository at '{}'; if it is yours, mark it safe with \
         `git config --global --add safe.directory {}`",
        path.display(),
        path.display()
    )]
    DubiousOwnership {
        /// The repository's worktree (or git dir).
        path: PathBuf,
    },
    /// The repository has no working tree to capture or restore.
    #[error("{} is a bare repository: git t3 needs a working tree", path.display())]
    Bare {
        /// The bare repository's git dir.
        path: PathBuf,
    },
    /// The thread has no checkpoint at all.
    #[error("thread '{thread}' has no checkpoints (`git t3 list` shows the threads there are)")]
    UnknownThread {
        /// The thread id as given.
        thread: String,
    },
    /// No thread was named and none has been captured in this worktree.
    #[error(
        "no thread has a checkpoint in this worktree ({worktree}): start one by installing an agent's hooks \
         (`git t3 install-hooks --claude-code`, `--codex`, `--opencode` or `--cursor`) and working with it, or by hand \
         with `git t3 baseline --thread <ID>`; name a thread with --thread <ID> (`git t3 list` shows them)"
    )]
    NoCurrentThread {
        /// This worktree.
        worktree: String,
    },
    /// A thread id abbreviates several threads.
    #[error(
        "thread id '{prefix}' is ambiguous: it starts {}",
        list_candidates(candidates)
    )]
    AmbiguousThread {
        /// The abbreviation as given.
        prefix: String,
        /// Every thread it starts.
        candidates: Vec<String>,
    },
    /// The named turn has no checkpoint.
    #[error("thread '{thread}' has no checkpoint for turn {turn}{}", latest.map(|l| format!(" (latest is turn {l})")).unwrap_or_default())]
    NoSuchTurn {
        /// The thread id.
        thread: String,
        /// The turn asked for.
        turn: u64,
        /// The latest turn, if any.
        latest: Option<u64>,
    },
    /// A real checkpoint exists where a new one was to be written.
    #[error(
        "turn {turn} of thread '{thread}' already has a checkpoint ({reference}); pass --replace to overwrite it"
    )]
    TurnExists {
        /// The thread id.
        thread: String,
        /// The turn.
        turn: u64,
        /// The existing ref.
        reference: String,
    },
    /// A placeholder was asked for where a real checkpoint exists.
    #[error(
        "turn {turn} of thread '{thread}' already holds a real checkpoint; a placeholder never replaces one"
    )]
    PlaceholderOverReal {
        /// The thread id.
        thread: String,
        /// The turn.
        turn: u64,
    },
    /// The checkpoint is a placeholder: its snapshot was never taken.
    #[error(
        "turn {turn} of thread '{thread}' is a placeholder ({reference}): its snapshot was never taken; capture it with `git t3 capture --turn {turn}`"
    )]
    Placeholder {
        /// The thread id.
        thread: String,
        /// The turn.
        turn: u64,
        /// Its ref.
        reference: String,
    },
    /// Objects a tree names do not exist (removed by `git gc`, or never written).
    #[error(
        "the capture names {count} object(s) that do not exist in the object database (first: \
         {first}); `git gc` may have removed them, or the repository is damaged"
    )]
    MissingObjects {
        /// The first path whose object is missing (C-quoted).
        first: String,
        /// How many are missing.
        count: usize,
    },
    /// A git operation (merge, rebase, cherry-pick, …) is in progress in the repository.
    #[error("a {state} is in progress in this repository; finish or abort it first")]
    RepositoryBusy {
        /// What git is in the middle of.
        state: String,
    },
    /// A revert of the thread stopped half-way and must be finished first.
    #[error(
        "a revert of thread '{thread}' to turn {to_turn} stopped before its {step} step; \
         run `git t3 revert --continue --thread {thread}` or `--abort`"
    )]
    RevertInProgress {
        /// The thread.
        thread: String,
        /// The turn it reverts to.
        to_turn: u64,
        /// The step that has not run yet.
        step: String,
    },
    /// A revert or restore would overwrite or delete another thread's work
    /// in this worktree (two agents in one worktree).
    #[error(
        "{action} would overwrite another thread's work in this worktree: {files}; \
         nothing was changed: see them with --dry-run, or pass --force \
         (their content is kept in the safety checkpoint)"
    )]
    OthersWork {
        /// `revert` or `restore`.
        action: &'static str,
        /// The files, each with the thread and turn that wrote it.
        files: String,
    },
    /// `--continue` or `--abort` without a revert in progress.
    #[error("no revert of thread '{thread}' is in progress")]
    NoRevertInProgress {
        /// The thread.
        thread: String,
    },
    /// `--undo` without a completed revert to reverse.
    #[error("thread '{thread}' has no completed revert to undo")]
    NothingToUndo {
        /// The thread.
        thread: String,
    },
    /// `restore`: a path that neither the turn nor the worktree has.
    #[error(
        "{path} matches no file in turn {turn} of thread '{thread}' nor in the worktree; \
         `git ls-tree -r --name-only <id>` with the id from `git t3 rev --turn {turn}` lists the turn's files"
    )]
    PathNotInTurn {
        /// The path, as the user gave it (worktree-relative).
        path: String,
        /// The thread.
        thread: String,
        /// The turn.
        turn: u64,
    },
    /// `restore`: a path that is not inside the worktree, or not one git can hold.
    #[error("{path}: {problem}; give paths inside the worktree {}", workdir.display())]
    BadPath {
        /// The path as given.
        path: String,
        /// What is wrong with it.
        problem: String,
        /// The worktree.
        workdir: PathBuf,
    },
    /// A provider helper could not roll the conversation back.
    #[error("provider '{name}': {problem}")]
    Provider {
        /// The provider's name.
        name: String,
        /// What went wrong, with the helper's stderr when it said something.
        problem: String,
    },
    /// `git push` or `git fetch` failed.
    #[error("git {action} failed: {message}")]
    Remote {
        /// `push` or `fetch`.
        action: &'static str,
        /// The remote.
        remote: String,
        /// git's own words.
        message: String,
    },
    /// `push` found checkpoints about to leave the machine that record paths
    /// looking like secrets; nothing was sent.
    #[error(
        "refusing to push to {remote}: the checkpoints record files that look like secrets: {found}; \
         leave such files out with .t3ignore, remove the checkpoints that hold them \
         (git t3 drop --thread <id>), or push them anyway with --allow-secrets"
    )]
    SecretsInPush {
        /// The remote.
        remote: String,
        /// What was found, for a person (see `sync::secrets::describe`).
        found: String,
    },
    /// Data read from a hook payload, a settings file or another outside
    /// source is malformed.
    #[error("{source_name}: {problem}")]
    BadInput {
        /// Where the data came from (a file, "the claude-code hook payload").
        source_name: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A git setting has a value git itself would refuse (a colour it
    /// cannot parse, rules that contradict each other).
    #[error("bad config value '{value}' for {key} ({origin}): {problem}")]
    BadConfig {
        /// The key as written (`color.diff.old`).
        key: String,
        /// Its value.
        value: String,
        /// The file that sets it, or `git -c`.
        origin: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The request makes no sense for this data (e.g. the diff of a baseline);
    /// nothing was changed.
    #[error("{0}")]
    Refused(String),
    /// SIGINT or SIGTERM stopped the command at a safe point.
    #[error(
        "interrupted by signal {signal}; nothing was left half-written (a revert keeps its journal: --continue or --abort)"
    )]
    Interrupted {
        /// The signal's number.
        signal: i32,
    },
    /// A bug in git-t3 (a worker thread panicked, an impossible state).
    #[error("internal error: {0}")]
    Internal(String),
    /// Another process changed a ref between our read and our write.
    #[error(
        "{reference} was changed by another process while this one was writing it; run the command again"
    )]
    Conflict {
        /// The contended ref.
        reference: String,
    },
    /// The repository-wide lock could not be taken in time.
    #[error("another git t3 process{} holds {}; gave up after {secs}s", holder.as_deref().map(|h| format!(" ({h})")).unwrap_or_default(), path.display())]
    LockTimeout {
        /// The lock file.
        path: PathBuf,
        /// What the lock file says about its holder.
        holder: Option<String>,
        /// How long we waited.
        secs: u64,
    },
    /// A note that should describe a checkpoint is missing or does not parse.
    #[error("{reference}: {problem}")]
    BadMetadata {
        /// The ref or object the note belongs to.
        reference: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A file-system operation failed.
    #[error("{context}{}: {source}", path.as_ref().map(|p| format!(" {}", p.display())).unwrap_or_default())]
    Io {
        /// What was being done ("could not write").
        context: String,
        /// The file concerned, when there is one.
        path: Option<PathBuf>,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A gix operation failed.
    #[error("{context}: {source}")]
    Git {
        /// What was being done.
        context: String,
        /// The underlying error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
}

/// What kind of failure an [`Error`] is, for callers that decide what to do
/// next (and for the `kind` of `--json` errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// Bad arguments: fix the command line.
    Usage,
    /// Not inside a git repository with a working tree.
    NotARepository,
    /// The thread or turn does not exist.
    NotFound,
    /// Someone else holds the lock or moved a ref, or the data already exists.
    Conflict,
    /// The repository's state forbids it now (a revert or git operation in
    /// progress, a placeholder, nothing to undo); nothing was changed.
    Refused,
    /// Data read from the repository or from outside is malformed or hostile.
    UntrustedData,
    /// A provider helper failed.
    Provider,
    /// A remote refused or could not be reached.
    Remote,
    /// A file-system operation failed.
    Io,
    /// A git (gix) operation failed.
    Git,
    /// A signal stopped it.
    Interrupted,
    /// A bug in git-t3.
    Internal,
}

impl ErrorKind {
    /// The name used in JSON (`not_a_repository`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Usage => "usage",
            ErrorKind::NotARepository => "not_a_repository",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Refused => "refused",
            ErrorKind::UntrustedData => "untrusted_data",
            ErrorKind::Provider => "provider",
            ErrorKind::Remote => "remote",
            ErrorKind::Io => "io",
            ErrorKind::Git => "git",
            ErrorKind::Interrupted => "interrupted",
            ErrorKind::Internal => "internal",
        }
    }
}

impl Error {
    /// What kind of failure this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Usage(_) => ErrorKind::Usage,
            Error::NotARepository { .. } | Error::Bare { .. } => ErrorKind::NotARepository,
            Error::DubiousOwnership { .. } => ErrorKind::UntrustedData,
            Error::UnknownThread { .. } | Error::NoSuchTurn { .. } | Error::PathNotInTurn { .. } => {
                ErrorKind::NotFound
            }
            Error::BadPath { .. } | Error::AmbiguousThread { .. } | Error::NoCurrentThread { .. } => {
                ErrorKind::Usage
            }
            Error::TurnExists { .. }
            | Error::PlaceholderOverReal { .. }
            | Error::Conflict { .. }
            | Error::LockTimeout { .. } => ErrorKind::Conflict,
            Error::Placeholder { .. }
            | Error::RepositoryBusy { .. }
            | Error::RevertInProgress { .. }
            | Error::OthersWork { .. }
            | Error::NoRevertInProgress { .. }
            | Error::NothingToUndo { .. }
            | Error::SecretsInPush { .. }
            | Error::Refused(_) => ErrorKind::Refused,
            Error::BadMetadata { .. } | Error::BadInput { .. } | Error::BadConfig { .. } => {
                ErrorKind::UntrustedData
            }
            Error::Provider { .. } => ErrorKind::Provider,
            Error::Remote { .. } => ErrorKind::Remote,
            Error::Io { .. } => ErrorKind::Io,
            Error::Git { .. } | Error::MissingObjects { .. } => ErrorKind::Git,
            Error::Interrupted { .. } => ErrorKind::Interrupted,
            Error::Internal(_) => ErrorKind::Internal,
        }
    }

    /// The process exit status for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Interrupted { signal } => 128 + signal,
            _ if self.kind() == ErrorKind::Usage => EXIT_USAGE,
            _ => EXIT_FAILED,
        }
    }

    /// A usage error with the given message.
    pub fn usage(msg: impl Into<String>) -> Self {
        Error::Usage(msg.into())
    }

    /// Whether this error is a broken pipe on output, which is not worth reporting.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// Attach a context message to errors from gix or std.
pub trait Context<T> {
    /// Wrap the error with `context`, computed only on failure.
    fn context(self, context: impl FnOnce() -> String) -> Result<T>;
}
