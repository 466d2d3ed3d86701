//! An untracked file as a capture records it: what hashing the untracked
//! files gives ([`super::hash`]), what their tree edits add
//! ([`super::tree`]) and what the next `index.untracked` keeps
//! ([`super::cache`]).

use gix::ObjectId;
use gix::bstr::BString;
use gix::index::entry::{Mode, Stat};

/// An untracked file as captured: its entry in the next `index.untracked`.
pub(super) struct Untracked {
    /// Path relative to the worktree.
    pub(super) path: BString,
    /// The blob (or, for a nested repository, the commit) recorded.
    pub(super) id: ObjectId,
    /// The mode recorded.
    pub(super) mode: Mode,
    /// The file's stat data, for reuse next time.
    pub(super) stat: Stat,
}
