//! Patches as data: for each changed file, a typed header (paths, modes, ids
//! and what happened), then either hunks with 3 lines of context and git's
//! default function context, or the binary content `git apply` needs.
//!
//! No text is made here: `output::patch` writes git's patch format.

use gix::ObjectId;

use crate::diff::attributes::Treatment;
use crate::diff::changes::{self, Side, TreeChange};
use crate::diff::{delta, lines};
use crate::error::{Context as _, Result};
use crate::model::note::ChangeKind;
use crate::model::whitespace;

mod emit;
mod funcs;
mod hunks;
mod settings;
mod types;
pub use hunks::*;
use settings::{Settings, settings, short_len};
pub use types::*;

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

/// How hunks are found: whitespace, context, the algorithm, function lines.
#[derive(Debug, Clone, Copy)]
struct HunkOptions<'a> {
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
    /// How function lines are found.
    funcs: funcs::Funcs<'a>,
}

/// Lines added and deleted by each of `changes` as its patch shows them
/// (what git's stat counts when `--ignore-blank-lines` leaves changes out);
/// `None` for a binary or too large file.
pub fn shown_counts(
    repo: &gix::Repository,
    changes: &[TreeChange],
    treatments: &[Treatment],
    opts: Options,
) -> Result<Vec<Option<[u64; 2]>>> {
    let settings = settings(repo, opts)?;
    changes
        .iter()
        .enumerate()
        .map(|(i, change)| {
            settings.opts.interrupt.check()?;
            Ok(
                match file_patch(repo, change, treatment(treatments, i), &settings)? {
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
                },
            )
        })
        .collect()
}

/// The treatment of change `i` (none: as without attributes).
fn treatment(treatments: &[Treatment], i: usize) -> &Treatment {
    static PLAIN: std::sync::OnceLock<Treatment> = std::sync::OnceLock::new();
    treatments
        .get(i)
        .unwrap_or_else(|| PLAIN.get_or_init(Treatment::default))
}

/// Build the patches of `changes`, each treated as its attributes say
/// (`treatments`, one a change).
pub fn build(
    repo: &gix::Repository,
    changes: &[TreeChange],
    treatments: &[Treatment],
    opts: Options,
) -> Result<Vec<FilePatch>> {
    Ok(build_each(repo, changes, treatments, opts)?
        .into_iter()
        .flatten()
        .collect())
}

/// [`build`], each change's patches apart: none when git shows nothing
/// for it, two for a type change.
pub fn build_each(
    repo: &gix::Repository,
    changes: &[TreeChange],
    treatments: &[Treatment],
    opts: Options,
) -> Result<Vec<Vec<FilePatch>>> {
    let opts = settings(repo, opts)?;
    let opts = &opts;
    let mut out = Vec::with_capacity(changes.len());
    for (i, change) in changes.iter().enumerate() {
        opts.opts.interrupt.check()?;
        let treat = treatment(treatments, i);
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
            let mut both: Vec<FilePatch> = file_patch(repo, &deletion, treat, opts)?.into_iter().collect();
            both.extend(file_patch(repo, &addition, treat, opts)?);
            out.push(both);
        } else {
            out.push(file_patch(repo, change, treat, opts)?.into_iter().collect());
        }
    }
    Ok(out)
}

/// The lines one change's patches (from [`build_each`]) add and delete:
/// the counts of the same comparison, so a patch needs no counting pass
/// of its own; binary when a patch is.
pub fn counts_of(patches: &[FilePatch]) -> lines::Counts {
    let mut counts = lines::Counts::default();
    for p in patches {
        match &p.body {
            Body::Text(hunks) => {
                for line in hunks.iter().flat_map(|h| &h.lines) {
                    match line.kind {
                        LineKind::Added => counts.additions += 1,
                        LineKind::Removed => counts.deletions += 1,
                        LineKind::Context => {}
                    }
                }
            }
            Body::Binary(_) => counts.binary = true,
        }
    }
    counts
}

/// The patch of one change; `None` when git shows nothing for it.
fn file_patch(
    repo: &gix::Repository,
    change: &TreeChange,
    treat: &Treatment,
    settings: &Settings,
) -> Result<Option<FilePatch>> {
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
        short_len(&settings.lookup, header.old_id, settings.abbrev),
        short_len(&settings.lookup, header.new_id, settings.abbrev),
    ];
    if header.old_id != header.new_id
        && (lines::is_large(repo, change.old)? || lines::is_large(repo, change.new)?)
    {
        // Too large to read whole: named like a binary file, never loaded.
        return Ok(Some(FilePatch {
            header,
            body: Body::Binary(Binary::Differ),
            blank_at_eof: None,
            written: Written::default(),
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
            written: Written::default(),
        }));
    }
    if treat.counts.is_binary(&old, &new) && old == new {
        // Binary by attribute, and the same bytes (an empty file added or
        // deleted): git writes the header alone, full ids with --binary.
        header.full_ids = opts.binary;
        return Ok(Some(FilePatch {
            header,
            body: Body::Text(Vec::new()),
            blank_at_eof: None,
            written: Written::default(),
        }));
    }
    if treat.counts.is_binary(&old, &new) {
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
            written: Written::default(),
        }));
    }
    let how = HunkOptions {
        space: opts.space,
        context: opts.context,
        inter_hunk: opts.inter_hunk,
        function_context: opts.function_context,
        ignore_blank_lines: opts.ignore_blank_lines,
        algorithm: treat.counts.algorithm.unwrap_or(settings.algorithm),
        indent_heuristic: settings.indent_heuristic,
        funcs: match treat.funcname.as_ref().and_then(|d| d.funcname()) {
            Some(compiled) => funcs::Funcs::Driver(compiled?),
            None => funcs::Funcs::Default,
        },
    };
    let hunks = hunks_with(&old, &new, how);
    let same_mode = matches!(event, Event::Modified { old_mode, new_mode } if old_mode == new_mode);
    if hunks.is_empty() && same_mode {
        // Only whitespace changed: git shows nothing for this file.
        return Ok(None);
    }
    let whitespace =
        treat
            .whitespace
            .rule(settings.whitespace)
            .map_err(|problem| crate::Error::BadInput {
                source_name: format!("the whitespace attribute of {}", change.path),
                problem,
            })?;
    Ok(Some(FilePatch {
        header,
        body: Body::Text(hunks),
        blank_at_eof: blank_at_eof(&old, &new),
        written: Written {
            whitespace,
            driver_word_regex: treat.word_regex.clone(),
            word_regex: None,
        },
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
