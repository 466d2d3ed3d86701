//! Why a conversation cannot be rolled back (or put back).

use super::*;

/// Why a conversation cannot be rolled back (or put back); nothing was
/// changed when one is returned.
#[derive(Debug, thiserror::Error)]
pub enum RollbackError {
    /// No note says where the transcript is.
    #[error(
        "no note of this thread says where {agent} keeps its conversation (the hooks record it \
         when a prompt is submitted); revert the files with --files-only and the conversation {rewind}",
        agent = .agent.label(),
        rewind = .agent.own_rewind()
    )]
    NoTranscript {
        /// The agent.
        agent: Agent,
    },
    /// The notes name two different transcripts for the turns reverted.
    #[error(
        "the notes name two transcripts for the turns reverted ('{first}' and '{second}'); \
         revert the files with --files-only and the conversation {rewind}",
        rewind = .agent.own_rewind()
    )]
    NotesDisagree {
        /// The agent.
        agent: Agent,
        /// One.
        first: String,
        /// The other.
        second: String,
    },
    /// The first turn reverted has no prompt id, so where to cut is unknown.
    #[error(
        "turn {turn}'s note does not say which prompt started it, so where its conversation \
         begins is unknown; revert the files with --files-only and the conversation {rewind}",
        rewind = .agent.own_rewind()
    )]
    NoPromptId {
        /// The agent.
        agent: Agent,
        /// The turn.
        turn: u64,
    },
    /// The agent's program is not on `PATH`.
    #[error(
        "cannot roll back {agent}'s conversation: `{program}` is not on PATH (git t3 changes \
         the conversation through it); revert the files with --files-only and the conversation {rewind}",
        agent = .agent.label(),
        rewind = .agent.own_rewind()
    )]
    NoProgram {
        /// The agent.
        agent: Agent,
        /// The program.
        program: &'static str,
    },
    /// The data directory cannot be found (no `HOME`).
    #[error(
        "cannot tell where {agent} keeps your conversations (HOME is not set); \
         revert the files with --files-only",
        agent = .agent.label()
    )]
    NoDataDir {
        /// The agent.
        agent: Agent,
    },
    /// The path in the notes is not one git-t3 may change.
    #[error(
        "refused the transcript '{path}' named in the thread's notes: {why}; git t3 only changes \
         this thread's conversation file under {root} (a note from another machine or user?); \
         revert the files with --files-only",
        root = .root.display()
    )]
    Untrusted {
        /// The path as the note gives it.
        path: String,
        /// What is wrong with it.
        why: String,
        /// The agent's data directory.
        root: PathBuf,
    },
    /// The transcript is not there.
    #[error(
        "the conversation's transcript {} is gone ({agent} removes or archives old sessions); \
         nothing to roll back: revert the files with --files-only",
        .path.display(),
        agent = .agent.label()
    )]
    Missing {
        /// The agent.
        agent: Agent,
        /// The file.
        path: PathBuf,
    },
    /// The prompt that started the first reverted turn is not in the transcript.
    #[error(
        "the prompt '{prompt}' that started turn {turn} is not in {} (was the conversation \
         rewound, compacted into a new session or cleared?); revert the files with --files-only \
         and the conversation {rewind}",
        .path.display(),
        rewind = .agent.own_rewind()
    )]
    PromptNotFound {
        /// The agent.
        agent: Agent,
        /// The prompt id.
        prompt: String,
        /// The turn.
        turn: u64,
        /// The file.
        path: PathBuf,
    },
    /// The transcript ends in the middle of a line: the agent is writing it.
    #[error(
        "{} ends in the middle of a line: is {agent} still running in this session? \
         Quit it, then revert again (or revert the files with --files-only and the conversation {rewind})",
        .path.display(),
        agent = .agent.label(),
        rewind = .agent.own_rewind()
    )]
    MidLine {
        /// The agent.
        agent: Agent,
        /// The file.
        path: PathBuf,
    },
    /// The transcript is not in a shape git-t3 knows.
    #[error("{}: {problem}; revert the files with --files-only and the conversation {rewind}", .path.display(), rewind = .agent.own_rewind())]
    Format {
        /// The agent.
        agent: Agent,
        /// The file.
        path: PathBuf,
        /// What is unexpected.
        problem: String,
    },
    /// The transcript changed since the revert planned its change.
    #[error(
        "the conversation's transcript {} changed since the revert began (is {agent} still running \
         in this session?); quit it, run `git t3 revert --abort`, then revert again",
        .path.display(),
        agent = .agent.label()
    )]
    ChangedSince {
        /// The agent.
        agent: Agent,
        /// The file.
        path: PathBuf,
    },
    /// The file could not be read or written.
    #[error("{context} {}: {source}", .path.display())]
    Io {
        /// What was being done.
        context: &'static str,
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

impl RollbackError {
    /// As the crate's error: a failure of provider `agent`.
    pub fn into_error(self, agent: Agent) -> Error {
        Error::Provider {
            name: agent.name().to_owned(),
            problem: self.to_string(),
        }
    }
}
