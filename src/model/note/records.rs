//! What a note records besides the summary: files left out, reverts, removed refs.

use super::*;

/// An untracked file a capture left out for its size (`t3.maxFileSize`).
///
/// Paths are stored like [`FileChange`]'s: `path` for display, `path_b64`
/// with the exact bytes only when they are not UTF-8.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedFile {
    /// Path relative to the worktree root, for display.
    pub path: String,
    /// The path's bytes in base64, only when they are not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_b64: Option<String>,
    /// Its size on disk, in bytes.
    pub size: u64,
    /// Why, when not for its size: `unreadable` (permissions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl SkippedFile {
    /// The file at `path` of `size` bytes.
    pub fn new(path: &[u8], size: u64) -> Self {
        let (path, path_b64) = crate::model::path::to_text(path);
        SkippedFile {
            path,
            path_b64,
            size,
            reason: None,
        }
    }

    /// The path's exact bytes.
    pub fn path_bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        crate::model::path::from_text(&self.path, self.path_b64.as_deref())
    }
}

/// A revert that landed on this checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevertRecord {
    /// The latest turn before the revert.
    pub from: u64,
    /// The turn reverted to.
    pub to: u64,
    /// When it completed (RFC 3339, UTC).
    pub at: String,
    /// Commit ids of the refs the revert removed, by turn.
    #[serde(default)]
    pub removed: Vec<RemovedRef>,
}

/// A checkpoint ref removed by a revert.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemovedRef {
    /// Its turn.
    pub turn: u64,
    /// The commit it pointed at.
    pub commit: String,
    /// The blob of its note, to put back on abort or undo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
