//! The error type of every git-t3 operation, and how it maps to an exit status.
//!
//! Variants name the problem in words a user can act on; `main` prints one
//! line per error and exits with [`Error::exit_code`].

use std::path::PathBuf;

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
    /// The repository has no working tree to capture or restore.
    #[error("{} is a bare repository: git t3 needs a working tree", path.display())]
    Bare {
        /// The bare repository's git dir.
        path: PathBuf,
    },
    /// The thread has no checkpoint at all.
    #[error("thread '{thread}' has no checkpoints")]
    UnknownThread {
        /// The thread id as given.
        thread: String,
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
    /// The operation cannot be done, for the reason given.
    #[error("{0}")]
    Failed(String),
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
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
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

impl Error {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => EXIT_USAGE,
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

impl<T> Context<T> for std::result::Result<T, gix::Error> {
    fn context(self, context: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| Error::Git {
            context: context(),
            source: Box::new(e),
        })
    }
}

impl<T> Context<T> for std::result::Result<T, std::io::Error> {
    fn context(self, context: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|source| Error::Io {
            context: context(),
            source,
        })
    }
}

/// Wrap any error from a gix sub-crate with a context message.
pub(crate) fn git_err<E: std::error::Error + Send + Sync + 'static>(
    context: impl Into<String>,
) -> impl FnOnce(E) -> Error {
    let context = context.into();
    move |source| Error::Git {
        context,
        source: Box::new(source),
    }
}

/// The error and its causes on one line, for stderr.
pub fn one_line(e: &Error) -> String {
    let mut msg = e.to_string();
    let mut source = std::error::Error::source(e);
    // `Io` and `Git` already print their source; skip it once.
    if matches!(e, Error::Io { .. } | Error::Git { .. }) {
        source = source.and_then(std::error::Error::source);
    }
    while let Some(s) = source {
        let text = s.to_string();
        if !msg.contains(&text) {
            msg.push_str(": ");
            msg.push_str(&text);
        }
        source = s.source();
    }
    msg.split_whitespace().collect::<Vec<_>>().join(" ")
}
