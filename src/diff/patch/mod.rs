//! Patches as data: for each changed file, a typed header (paths, modes, ids
//! and what happened), then either hunks with 3 lines of context and git's
//! default function context, or the binary content `git apply` needs.
//!
//! No text is made here: `output::patch` writes git's patch format.

use gix::ObjectId;
use gix::bstr::BString;
use gix::objs::tree::EntryKind;

use crate::diff::changes::{self, Side, TreeChange};
use crate::diff::{delta, lines};
use crate::error::{Context as _, Result};
use crate::model::note::ChangeKind;
use crate::model::whitespace;

mod emit;
mod hunks;
mod settings;
pub use hunks::*;
use settings::{Settings, settings, short_len};

/// Lines of context around changes, like git's default `-U3`.
pub const CONTEXT: u32 = 3;

/// How to build patches.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Which whitespace differences lines are compared without (`-w`, `-b`,
    /// `--ignore-space-at-eol`).
    pub space: lines::Space,
    /// Carry binary contents instead of "they differ" (implies full ids).
    pub binary: bool,
    /// Lines of context around changes (`-U<n>`; git's default is [`CONTEXT`]).
    pub context: u32,
    /// Hunks this many lines apart beyond their contexts are merged
    /// (`--inter-hunk-context`).
    pub inter_hunk: u32,
    /// Hunks grow to the whole functions around them (`-W`).
    pub function_context: bool,
    /// Changes of blank lines alone are left out (`--ignore-blank-lines`).
    pub ignore_blank_lines: bool,
    /// Stop between files when this fires.
    pub interrupt: crate::interrupt::Interrupt,
}

/// How hunks are found: whitespace, context and the algorithm.
#[derive(Debug, Clone, Copy)]
struct HunkOptions {
    space: lines::Space,
    context: u32,
    inter_hunk: u32,
    algorithm: lines::Algorithm,
    /// git's indent heuristic places ambiguous hunks (`diff.indentHeuristic`).
    indent_heuristic: bool,
    /// Hunks grow to whole functions (`-W`).
    function_context: bool,
    /// Changes of blank lines alone are left out (`--ignore-blank-lines`).
    ignore_blank_lines: bool,
}

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

/// Lines added and deleted by each of `changes` as its patch shows them
/// (what git's stat counts when `--ignore-blank-lines` leaves changes out);
/// `None` for a binary or too large file.
pub fn shown_counts(
    repo: &gix::Repository,
    changes: &[TreeChange],
    opts: Options,
) -> Result<Vec<Option<[u64; 2]>>> {
    let settings = settings(repo, opts)?;
    changes
        .iter()
        .map(|change| {
            settings.opts.interrupt.check()?;
            Ok(match file_patch(repo, change, &settings)? {
                None => Some([0, 0]),
                Some(FilePatch {
                    body: Body::Text(hunks),
                    ..
                }) => {
                    let count = |kind| {
                        hunks
                            .iter()
                            .flat_map(|h| &h.lines)
                            .filter(|l| l.kind == kind)
                            .count() as u64
                    };
                    Some([count(LineKind::Added), count(LineKind::Removed)])
                }
                Some(_) => None,
            })
        })
        .collect()
}

/// Build the patches of `changes`.
pub fn build(repo: &gix::Repository, changes: &[TreeChange], opts: Options) -> Result<Vec<FilePatch>> {
    let opts = settings(repo, opts)?;
    let opts = &opts;
    let mut out = Vec::with_capacity(changes.len());
    for change in changes {
        opts.opts.interrupt.check()?;
        if change.kind == ChangeKind::TypeChanged {
            // git shows a type change as a deletion and an addition.
            let deletion = TreeChange {
                kind: ChangeKind::Deleted,
                new: None,
                ..change.clone()
            };
            let addition = TreeChange {
                kind: ChangeKind::Added,
                old: None,
                ..change.clone()
            };
            out.extend(file_patch(repo, &deletion, opts)?);
            out.extend(file_patch(repo, &addition, opts)?);
        } else {
            out.extend(file_patch(repo, change, opts)?);
        }
    }
    Ok(out)
}

/// The patch of one change; `None` when git shows nothing for it.
fn file_patch(repo: &gix::Repository, change: &TreeChange, settings: &Settings) -> Result<Option<FilePatch>> {
    let opts = settings.opts;
    let Some(event) = event(change) else {
        return Ok(None);
    };
    let null = ObjectId::null(repo.object_hash());
    let mut header = Header {
        old_path: change.old_path.clone().unwrap_or_else(|| change.path.clone()),
        new_path: change.path.clone(),
        old_id: change.old.map_or(null, |s| s.id),
        new_id: change.new.map_or(null, |s| s.id),
        event,
        full_ids: false,
        abbrev: [7, 7],
    };
    header.abbrev = [
        short_len(repo, header.old_id, settings.abbrev),
        short_len(repo, header.new_id, settings.abbrev),
    ];
    if header.old_id != header.new_id
        && (lines::is_large(repo, change.old)? || lines::is_large(repo, change.new)?)
    {
        // Too large to read whole: named like a binary file, never loaded.
        return Ok(Some(FilePatch {
            header,
            body: Body::Binary(Binary::Differ),
            blank_at_eof: None,
        }));
    }
    let old = content(repo, change.old)?;
    let new = content(repo, change.new)?;
    if header.old_id == header.new_id {
        // Mode change or pure rename: no content to show.
        return Ok(Some(FilePatch {
            header,
            body: Body::Text(Vec::new()),
            blank_at_eof: None,
        }));
    }
    if lines::is_binary(&old) || lines::is_binary(&new) {
        let binary = if opts.binary {
            header.full_ids = true;
            Binary::Patch {
                forward: payload(&old, &new, settings.compression)?,
                reverse: payload(&new, &old, settings.compression)?,
            }
        } else {
            Binary::Differ
        };
        return Ok(Some(FilePatch {
            header,
            body: Body::Binary(binary),
            blank_at_eof: None,
        }));
    }
    let how = HunkOptions {
        space: opts.space,
        context: opts.context,
        inter_hunk: opts.inter_hunk,
        function_context: opts.function_context,
        ignore_blank_lines: opts.ignore_blank_lines,
        algorithm: settings.algorithm,
        indent_heuristic: settings.indent_heuristic,
    };
    let hunks = hunks_with(&old, &new, how);
    let same_mode = matches!(event, Event::Modified { old_mode, new_mode } if old_mode == new_mode);
    if hunks.is_empty() && same_mode {
        // Only whitespace changed: git shows nothing for this file.
        return Ok(None);
    }
    Ok(Some(FilePatch {
        header,
        body: Body::Text(hunks),
        blank_at_eof: blank_at_eof(&old, &new),
    }))
}

/// [`FilePatch::blank_at_eof`] of two contents.
fn blank_at_eof(old: &[u8], new: &[u8]) -> Option<[u32; 2]> {
    // Lines (a last one without newline counts) and trailing blank lines.
    let count = |text: &[u8]| -> (u32, u32) {
        let lines: Vec<&[u8]> = text.split_inclusive(|b| *b == b'\n').collect();
        let blank = lines.iter().rev().take_while(|l| whitespace::is_blank(l)).count();
        (
            u32::try_from(lines.len()).unwrap_or(u32::MAX),
            u32::try_from(blank).unwrap_or(u32::MAX),
        )
    };
    let ((old_lines, old_blank), (new_lines, new_blank)) = (count(old), count(new));
    (new_blank > old_blank).then(|| [old_lines - old_blank + 1, new_lines - new_blank + 1])
}

/// What happened to the file of `change`; `None` when neither side is a file.
fn event(change: &TreeChange) -> Option<Event> {
    Some(match (change.old, change.new) {
        (None, Some(n)) => Event::Added { mode: n.kind },
        (Some(o), None) => Event::Deleted { mode: o.kind },
        (Some(o), Some(n)) if change.kind == ChangeKind::Renamed => Event::Renamed {
            old_mode: o.kind,
            new_mode: n.kind,
            similarity: change.similarity.unwrap_or(100),
        },
        (Some(o), Some(n)) if change.kind == ChangeKind::Copied => Event::Copied {
            old_mode: o.kind,
            new_mode: n.kind,
            similarity: change.similarity.unwrap_or(100),
        },
        (Some(o), Some(n)) => Event::Modified {
            old_mode: o.kind,
            new_mode: n.kind,
        },
        (None, None) => return None,
    })
}

/// The content git diffs for one side, empty when there is none.
fn content(repo: &gix::Repository, side: Option<Side>) -> Result<Vec<u8>> {
    Ok(changes::diffed(repo, side)?.unwrap_or_default())
}

#[cfg(test)]
mod tests;
