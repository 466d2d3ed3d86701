//! What a provider's planner makes of a transcript: the [`Edit`] it
//! computes, or why it found no place to cut ([`PlanError`]), and the line
//! splitting the JSON-lines planners share. Below both the planners
//! ([`super::claude`], [`super::codex`], [`super::opencode`]) and
//! [`super::transcript`], which calls them.

/// The new content of a transcript, as an agent's planner computes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The bytes after the rollback.
    pub after: Vec<u8>,
    /// What the change does, for people.
    pub how: String,
    /// Prompts of the conversation it takes back.
    pub prompts: u64,
}

/// Why a planner found no place to cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// The prompt is not in the transcript.
    PromptNotFound,
    /// The transcript is not shaped as expected there.
    Format(String),
}

/// The file's lines, each with its terminator.
pub(super) fn lines(data: &[u8]) -> Vec<&[u8]> {
    data.split_inclusive(|b| *b == b'\n').collect()
}
