//! The checkpoint note: TOML in `refs/notes/t3`, schema 1 (see DESIGN.md).
//!
//! Notes may come from other machines, so parsing is strict about types and
//! size and never panics; writing always produces every field in a stable order.

use serde::{Deserialize, Serialize};

mod records;
pub use records::*;

/// The schema version this build writes and understands.
pub const SCHEMA: u32 = 1;
/// Largest note accepted when reading; anything bigger is treated as corrupt.
pub const MAX_NOTE_BYTES: usize = 32 << 20;
/// Warning recorded when a capture has nothing to count against.
pub const NO_BASELINE_WARNING: &str = "no baseline: summary unavailable";

/// Status of a checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The turn completed and its snapshot is there.
    Ready,
    /// The turn's snapshot was never taken (a placeholder).
    Missing,
    /// The turn failed (the agent's model call or the agent itself); the
    /// snapshot is the worktree as the failure left it.
    Error,
    /// The turn was interrupted or cancelled before it finished; the
    /// snapshot is the worktree as the interruption left it.
    Interrupted,
}

impl Status {
    /// Map an agent's turn state to a status as DESIGN's contract says
    /// (`capture --state`): `failed` → error; `cancelled`, `interrupted` →
    /// missing; anything else → ready.
    pub fn from_turn_state(state: Option<&str>) -> Self {
        match state.map(str::trim).map(str::to_ascii_lowercase).as_deref() {
            Some("failed") => Status::Error,
            Some("cancelled" | "canceled" | "interrupted") => Status::Missing,
            _ => Status::Ready,
        }
    }

    /// The status a hook records for a turn that ended in `state`: as
    /// [`Status::from_turn_state`], except that a turn the hook saw
    /// interrupted or cancelled, with its snapshot taken, is `interrupted`.
    pub fn from_hook_state(state: &str) -> Self {
        match state {
            "cancelled" | "canceled" | "interrupted" => Status::Interrupted,
            other => Status::from_turn_state(Some(other)),
        }
    }

    /// The lowercase name used in notes and output.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ready => "ready",
            Status::Missing => "missing",
            Status::Error => "error",
            Status::Interrupted => "interrupted",
        }
    }
}

/// How a file changed between two checkpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeKind {
    /// The path is new.
    Added,
    /// The path is gone.
    Deleted,
    /// Content or mode changed.
    Modified,
    /// The path moved from `old_path` (with 50% or more similarity).
    Renamed,
    /// The path is new, a copy of `old_path` (which stays), as `git diff
    /// -C` finds it; never in a note (whose summary pairs renames only).
    Copied,
    /// File, symlink or gitlink became another of these.
    TypeChanged,
}

impl ChangeKind {
    /// The name used in notes and output.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Deleted => "deleted",
            ChangeKind::Modified => "modified",
            ChangeKind::Renamed => "renamed",
            ChangeKind::Copied => "copied",
            ChangeKind::TypeChanged => "type-changed",
        }
    }
}

/// One changed file in a summary.
///
/// Paths are git's bytes. `path` is their display form; when the bytes are
/// not UTF-8, `path_b64` holds them exactly (see [`crate::model::path::to_text`]),
/// so two files never collide. Readers ignore fields they do not know.
#[derive(Debug, Clone, Eq, Serialize, Deserialize)]
pub struct FileChange {
    /// Path relative to the worktree root, for display.
    pub path: String,
    /// The path's bytes in base64, only when they are not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_b64: Option<String>,
    /// What happened to it.
    pub kind: ChangeKind,
    /// The source path of a rename or copy, for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_path: Option<String>,
    /// The source path's bytes in base64, only when they are not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_path_b64: Option<String>,
    /// Lines added.
    pub additions: u64,
    /// Lines deleted.
    pub deletions: u64,
    /// Whether either side is binary (counts are then 0).
    pub binary: bool,
    /// For a rename or copy found now: git's similarity index in percent (not stored).
    #[serde(skip)]
    pub similarity: Option<u8>,
    /// The old and new modes as git writes them (`100644`; `None`: no such
    /// side), when found now (not stored).
    #[serde(skip)]
    pub modes: Option<[Option<&'static str>; 2]>,
}

/// Equal when what a note stores is equal (the similarity is not stored).
impl PartialEq for FileChange {
    fn eq(&self, other: &Self) -> bool {
        (
            &self.path,
            &self.path_b64,
            self.kind,
            &self.old_path,
            &self.old_path_b64,
            self.additions,
            self.deletions,
            self.binary,
        ) == (
            &other.path,
            &other.path_b64,
            other.kind,
            &other.old_path,
            &other.old_path_b64,
            other.additions,
            other.deletions,
            other.binary,
        )
    }
}

impl FileChange {
    /// A change of `path` (renamed from `old_path`) with these counts.
    pub fn new(
        path: &[u8],
        old_path: Option<&[u8]>,
        kind: ChangeKind,
        [additions, deletions]: [u64; 2],
        binary: bool,
    ) -> Self {
        let (path, path_b64) = crate::model::path::to_text(path);
        let (old_path, old_path_b64) = old_path.map(crate::model::path::to_text).unzip();
        FileChange {
            path,
            path_b64,
            kind,
            old_path,
            old_path_b64: old_path_b64.flatten(),
            additions,
            deletions,
            binary,
            similarity: None,
            modes: None,
        }
    }

    /// The path's exact bytes.
    pub fn path_bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        crate::model::path::from_text(&self.path, self.path_b64.as_deref())
    }

    /// The rename source's exact bytes.
    pub fn old_path_bytes(&self) -> Option<std::borrow::Cow<'_, [u8]>> {
        let old = self.old_path.as_deref()?;
        Some(crate::model::path::from_text(old, self.old_path_b64.as_deref()))
    }
}

/// The metadata of one checkpoint, stored as its note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Note {
    /// Always [`SCHEMA`].
    pub schema: u32,
    /// The raw thread id.
    pub thread: String,
    /// The turn number.
    pub turn: u64,
    /// The checkpoint's ref.
    #[serde(rename = "ref")]
    pub reference: String,
    /// ready, missing or error.
    pub status: Status,
    /// True when no snapshot was taken yet.
    pub placeholder: bool,
    /// The agent's turn id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// The assistant message this turn produced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assistant_message_id: Option<String>,
    /// On the baseline: the thread's provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// When the checkpoint was written (RFC 3339, UTC).
    pub completed_at: String,
    /// The checkpoint `files` is counted against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_turn: Option<u64>,
    /// The first line of the prompt that started the turn (`log` shows it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Who drove the turn: claude-code, codex, opencode, cursor, cli.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The worktree captured (on the baseline it binds the thread; `status`
    /// lists only this worktree's threads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
    /// The branch checked out when the checkpoint was taken (`""` when
    /// HEAD was detached).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// HEAD's commit then (absent when HEAD was unborn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// The worktree when the prompt of this turn was submitted, when it
    /// differed from the checkpoint before (the user edited between turns):
    /// `diff --turn N` shows the agent's own changes from there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_turn_tree: Option<String>,
    /// The agent's conversation transcript when the turn began (Claude
    /// Code's `transcript_path`, Codex's rollout file): what its provider
    /// rolls back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    /// The agent's id of the prompt that started the turn (Claude Code's
    /// `prompt_id`, Codex's `turn_id`, opencode's message id, Cursor's
    /// `generation_id`): where a rollback to the turn before cuts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_id: Option<String>,
    /// Things a reader should know, e.g. that no baseline existed.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// How many changed files the summary leaves out of `files` to keep the
    /// note bounded (DESIGN's `files_truncated`; their counts are in
    /// `files_omitted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_truncated: Option<u64>,
    /// Reverts that landed on this checkpoint.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reverts: Vec<RevertRecord>,
    /// Untracked files left out of the snapshot for their size, sorted by
    /// path bytes (a revert never deletes or overwrites them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedFile>,
    /// Changed files against `from_turn`, sorted by path bytes.
    #[serde(default)]
    pub files: Vec<FileChange>,
    /// When the summary was too large to store whole: the files left out at
    /// the end of `files`, counted (the note stays readable, the turn
    /// revertible).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_omitted: Option<Omitted>,
}

/// Files a note leaves out of its summary, counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Omitted {
    /// How many files.
    pub files: u64,
    /// Their lines added.
    pub additions: u64,
    /// Their lines deleted.
    pub deletions: u64,
}

impl Omitted {
    /// The counts of `files`.
    pub fn of(files: &[FileChange]) -> Self {
        files.iter().fold(Omitted::default(), |o, f| Omitted {
            files: o.files + 1,
            additions: o.additions.saturating_add(f.additions),
            deletions: o.deletions.saturating_add(f.deletions),
        })
    }
}

impl Note {
    /// A `ready` note for turn `turn` of `thread`, written now, with no files.
    pub fn new(thread: &crate::model::thread::ThreadId, turn: u64) -> Self {
        Note {
            schema: SCHEMA,
            thread: thread.to_string(),
            turn,
            reference: thread.checkpoint_ref(turn),
            status: Status::Ready,
            placeholder: false,
            turn_id: None,
            assistant_message_id: None,
            provider: None,
            completed_at: now_rfc3339(),
            from_turn: None,
            title: None,
            agent: None,
            worktree: None,
            branch: None,
            head: None,
            pre_turn_tree: None,
            transcript: None,
            prompt_id: None,
            warnings: Vec::new(),
            reverts: Vec::new(),
            skipped: Vec::new(),
            files: Vec::new(),
            files_truncated: None,
            files_omitted: None,
        }
    }

    /// Serialize as the TOML stored in the note blob.
    pub fn to_toml(&self) -> crate::Result<String> {
        toml::to_string(self).map_err(|e| crate::Error::Internal(format!("could not serialize a note: {e}")))
    }

    /// Parse a note blob, refusing oversized or malformed input.
    pub fn parse(data: &[u8]) -> Result<Self, ParseError> {
        use crate::model::document::{self, DocumentError};
        let note: Note = document::read(data, MAX_NOTE_BYTES).map_err(|e| match e {
            DocumentError::TooLarge { len } => ParseError::TooLarge { len },
            DocumentError::NotUtf8 => ParseError::NotUtf8,
            DocumentError::Toml(m) => ParseError::Toml(m),
        })?;
        if note.schema != SCHEMA {
            return Err(ParseError::Schema(note.schema));
        }
        Ok(note)
    }

    /// Total lines added and deleted over all files (omitted ones included).
    pub fn totals(&self) -> (u64, u64) {
        let omitted = self.files_omitted.unwrap_or_default();
        self.files
            .iter()
            .fold((omitted.additions, omitted.deletions), |(a, d), f| {
                (a.saturating_add(f.additions), d.saturating_add(f.deletions))
            })
    }

    /// Keep the note's TOML within `max` bytes, so that every reader (which
    /// refuses notes over [`MAX_NOTE_BYTES`]) can read it: files are left
    /// out from the end of the summary and counted in `files_omitted`.
    /// Returns the TOML.
    pub fn fit(&mut self, max: usize) -> crate::Result<String> {
        let text = self.to_toml()?;
        if text.len() <= max {
            return Ok(text);
        }
        let all = std::mem::take(&mut self.files);
        let (mut lo, mut hi) = (0, all.len());
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            self.keep_files(&all, mid);
            if self.to_toml()?.len() <= max {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        self.keep_files(&all, lo);
        self.to_toml()
    }

    fn keep_files(&mut self, all: &[FileChange], n: usize) {
        let (kept, rest) = all.split_at(n.min(all.len()));
        self.files = kept.to_vec();
        self.files_omitted = (!rest.is_empty()).then(|| Omitted::of(rest));
        self.files_truncated = self.files_omitted.map(|o| o.files);
    }
}

/// Why a note blob is not a note this build can read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Bigger than [`MAX_NOTE_BYTES`].
    #[error("note is {len} bytes, more than the {MAX_NOTE_BYTES} accepted")]
    TooLarge {
        /// Its size.
        len: usize,
    },
    /// Not UTF-8 text.
    #[error("note is not UTF-8")]
    NotUtf8,
    /// Not TOML of the schema.
    #[error("note is not valid schema-1 TOML: {0}")]
    Toml(String),
    /// Another schema version.
    #[error("note has schema {0}, this git-t3 understands 1")]
    Schema(u32),
}

/// The current time as RFC 3339 UTC with second precision (a test's
/// injected clock in builds with fault injection: [`crate::fault::now`]).
pub fn now_rfc3339() -> String {
    crate::fault::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests;
