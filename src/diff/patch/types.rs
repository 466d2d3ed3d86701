//! A patch's data: for each file, its header's facts, then its hunks or
//! its binary change.

use gix::ObjectId;
use gix::bstr::BString;
use gix::objs::tree::EntryKind;

/// The patch of one file (a type change is two of these).
#[derive(Debug, Clone)]
pub struct FilePatch {
    /// Who the file is on each side and what happened to it.
    pub header: Header,
    /// The change of its content.
    pub body: Body,
    /// When the new content ends in more blank lines than the old one: the
    /// first of the old content's trailing blank lines and of the new
    /// one's, counted from 1 (a count past the end when there are none).
    /// Added blank lines from there on are git's `blank-at-eof` errors.
    pub blank_at_eof: Option<[u32; 2]>,
    /// What its attributes change in how it is written.
    pub written: Written,
}

/// What a file's attributes change in how its patch is written.
#[derive(Debug, Clone, Default)]
pub struct Written {
    /// Its whitespace rule, when its `whitespace` attribute sets one
    /// (else `core.whitespace`'s).
    pub whitespace: Option<crate::model::whitespace::Rule>,
    /// The word regex of its diff driver, if it has one.
    pub driver_word_regex: Option<Vec<u8>>,
    /// What `--word-diff` splits its lines into words with (git's
    /// whitespace-separated words when `None`); set once a word diff is
    /// asked for.
    pub word_regex: Option<std::sync::Arc<crate::diff::posix::Posix>>,
}

/// The facts of a file's patch header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The path before: the source of a rename, else the path.
    pub old_path: BString,
    /// The path after (for a deletion: the deleted path).
    pub new_path: BString,
    /// The object before; the null id for a new file.
    pub old_id: ObjectId,
    /// The object after; the null id for a deleted file.
    pub new_id: ObjectId,
    /// What happened, with the modes involved.
    pub event: Event,
    /// The ids must be shown in full (a binary patch needs them).
    pub full_ids: bool,
    /// Hex digits of the old and new ids in the `index` line: git's
    /// `core.abbrev` (auto: growing with the object count), lengthened
    /// until unique.
    pub abbrev: [usize; 2],
}

/// What happened to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The file is new.
    Added {
        /// Its mode.
        mode: EntryKind,
    },
    /// The file is gone.
    Deleted {
        /// Its mode before.
        mode: EntryKind,
    },
    /// The file stayed at its path; its content or mode changed.
    Modified {
        /// The mode before.
        old_mode: EntryKind,
        /// The mode after.
        new_mode: EntryKind,
    },
    /// The file moved from `old_path` to `new_path`.
    Renamed {
        /// The mode before.
        old_mode: EntryKind,
        /// The mode after.
        new_mode: EntryKind,
        /// git's similarity index, in percent.
        similarity: u8,
    },
    /// The file is a copy of `old_path` (which stays).
    Copied {
        /// The source's mode.
        old_mode: EntryKind,
        /// The copy's mode.
        new_mode: EntryKind,
        /// git's similarity index, in percent.
        similarity: u8,
    },
}

/// The change of a file's content.
#[derive(Debug, Clone)]
pub enum Body {
    /// Text hunks; none when the content did not change (a pure rename or
    /// mode change) or when only ignored whitespace did.
    Text(Vec<Hunk>),
    /// Either side is binary.
    Binary(Binary),
}

/// A binary change.
#[derive(Debug, Clone)]
pub enum Binary {
    /// Only that the contents differ.
    Differ,
    /// How to rebuild each side from the other, so that the patch applies
    /// either way.
    Patch {
        /// The content after, from the content before.
        forward: Payload,
        /// The content before, from the content after.
        reverse: Payload,
    },
}

/// One direction of a binary patch, as `git diff --binary` chooses it: a
/// delta against the other side when both sides have content and the
/// deflated delta is smaller than the deflated content, else the content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payload {
    /// Whole content or delta.
    pub kind: PayloadKind,
    /// The inflated size: the content's, or the delta's.
    pub size: usize,
    /// The content or the delta, zlib-deflated.
    pub deflated: Vec<u8>,
}

/// What a [`Payload`] carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayloadKind {
    /// The whole content (`literal <size>`).
    Literal,
    /// A pack delta against the other side (`delta <size>`, see [`delta`]).
    Delta,
}

/// A run of changes with their context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// The first old line, counted from 1 (for an empty range: the line
    /// that follows it).
    pub old_start: u32,
    /// Old lines covered.
    pub old_len: u32,
    /// The first new line, counted from 1 (for an empty range: the line
    /// that follows it).
    pub new_start: u32,
    /// New lines covered.
    pub new_len: u32,
    /// git's function-name context, if a line before the hunk qualifies.
    pub function: Option<Vec<u8>>,
    /// The lines.
    pub lines: Vec<Line>,
}

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Its role.
    pub kind: LineKind,
    /// The text without its newline.
    pub text: Vec<u8>,
    /// The line had no newline (the file ended there).
    pub no_newline: bool,
}

/// The role of a hunk line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// Unchanged, shown for context.
    Context,
    /// Only in the old content.
    Removed,
    /// Only in the new content.
    Added,
}
