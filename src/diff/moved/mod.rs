//! Moved lines, as `git diff --color-moved` finds them (a port of diff.c's
//! `add_lines_to_move_detection`, `mark_color_as_moved` and
//! `dim_moved_lines`).
//!
//! The patch is one stream of lines over all its files: removed and added
//! lines, and everything else (headers, hunk ranges, context, the
//! no-newline marker), which ends a block. A removed line equal to an
//! added one somewhere in the diff (and the other way round) is a
//! candidate; consecutive candidates that stay equal to consecutive lines
//! on the other side form a block; a block with fewer than 20 alphanumeric
//! characters is not a move (except in `plain` mode). `zebra` alternates
//! the colour of adjacent blocks, `dimmed-zebra` dims the lines inside a
//! block. Lines compare as `--color-moved-ws` says: with whitespace
//! ignored as `-w`, `-b` or `--ignore-space-at-eol` would, or with the
//! indentation allowed to change by the same amount over a block.

use crate::diff::patch::{Body, FilePatch, Hunk, LineKind};
use crate::diff::space::Space;

mod detect;
mod marker;

use detect::detect;
use marker::{Marker, dim};

/// `--color-moved`'s modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Every moved line, however short its block.
    Plain,
    /// Blocks of at least 20 alphanumeric characters, one colour.
    Blocks,
    /// Blocks, adjacent ones in alternating colours (git's default).
    Zebra,
    /// Zebra, with the lines inside a block dimmed.
    DimmedZebra,
}

/// How moved lines are found: `--color-moved` and `--color-moved-ws`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// The mode.
    pub mode: Mode,
    /// Whitespace ignored when comparing lines.
    pub space: Space,
    /// Lines may differ in their indentation, by the same amount over a
    /// block (`allow-indentation-change`).
    pub indentation: bool,
}

impl Mode {
    /// git's `parse_color_moved`: a boolean (true: `zebra`), `no` or a
    /// mode's name; `Ok(None)` for off.
    pub fn parse(value: &str) -> Result<Option<Mode>, String> {
        if let Some(on) = maybe_bool(value) {
            return Ok(on.then_some(Mode::Zebra));
        }
        Ok(Some(match value {
            "no" => return Ok(None),
            "plain" => Mode::Plain,
            "blocks" => Mode::Blocks,
            "zebra" | "default" => Mode::Zebra,
            "dimmed-zebra" | "dimmed_zebra" => Mode::DimmedZebra,
            _ => {
                return Err("color moved setting must be one of 'no', 'default', 'blocks', \
                            'zebra', 'dimmed-zebra', 'plain'"
                    .into());
            }
        }))
    }
}

/// git's `git_parse_maybe_bool`: `true`, `yes`, `on`, `false`, `no`,
/// `off` (any case), the empty value (false) or an integer (true unless 0).
fn maybe_bool(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" => Some(true),
        "false" | "no" | "off" | "" => Some(false),
        v => v.parse::<i64>().ok().map(|n| n != 0),
    }
}

/// git's `parse_color_moved_ws`: a comma-separated list of
/// `ignore-space-change`, `ignore-space-at-eol`, `ignore-all-space`,
/// `allow-indentation-change` (alone) and `no` (clears what came before).
pub fn parse_ws(value: &str) -> Result<(Space, bool), String> {
    let (mut space, mut indentation) = (Space::Exact, false);
    for mode in value.split(',').map(str::trim) {
        match mode {
            "no" => (space, indentation) = (Space::Exact, false),
            "ignore-space-change" => space = space.max(Space::Change),
            "ignore-space-at-eol" => space = space.max(Space::AtEol),
            "ignore-all-space" => space = space.max(Space::All),
            "allow-indentation-change" => indentation = true,
            other => {
                return Err(format!(
                    "unknown color-moved-ws mode '{other}', possible values are \
                     'ignore-space-change', 'ignore-space-at-eol', 'ignore-all-space', \
                     'allow-indentation-change'"
                ));
            }
        }
    }
    if indentation && space != Space::Exact {
        return Err(
            "color-moved-ws: allow-indentation-change cannot be combined with other \
                    whitespace modes"
                .into(),
        );
    }
    Ok((space, indentation))
}

/// One line of the patch stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sym<'a> {
    /// A removed line's text (without its newline).
    Minus(&'a [u8]),
    /// An added line's text (without its newline).
    Plus(&'a [u8]),
    /// Anything else.
    Other,
}

/// The line is part of a moved block.
pub const MOVED: u8 = 1;
/// Its block has the alternative colour.
pub const ALT: u8 = 1 << 1;
/// It is inside its block (dimmed).
pub const DIM: u8 = 1 << 2;

/// A minimum of alphanumeric characters a block needs to count as moved.
const MIN_ALNUM: usize = 20;
/// The indentation width of a blank line.
const BLANK: i64 = i64::MIN;

/// The flags ([`MOVED`], [`ALT`], [`DIM`]) of each line of `stream`.
pub fn mark(stream: &[Sym<'_>], settings: Settings, tab_width: usize) -> Vec<u8> {
    let (entries, by_symbol, heads) = detect(stream, settings, tab_width);
    let mut marker = Marker {
        stream,
        settings,
        flags: vec![0; stream.len()],
        entries: &entries,
    };
    marker.mark(&by_symbol, &heads);
    if settings.mode == Mode::DimmedZebra {
        dim(stream, &mut marker.flags);
    }
    marker.flags
}

/// The flags of each hunk line of each of `patches` (context lines
/// included, with none), found over the whole patch as git does.
pub fn by_file(patches: &[FilePatch], settings: Settings, tab_width: usize) -> Vec<Vec<u8>> {
    let mut stream = Vec::new();
    for p in patches {
        stream.push(Sym::Other);
        for hunk in hunks(p) {
            stream.push(Sym::Other);
            for l in &hunk.lines {
                stream.push(match l.kind {
                    LineKind::Context => Sym::Other,
                    LineKind::Removed => Sym::Minus(&l.text),
                    LineKind::Added => Sym::Plus(&l.text),
                });
                if l.no_newline {
                    stream.push(Sym::Other);
                }
            }
        }
    }
    let flags = mark(&stream, settings, tab_width);
    let mut at = flags.iter().copied();
    patches
        .iter()
        .map(|p| {
            at.next();
            let mut mine = Vec::new();
            for hunk in hunks(p) {
                at.next();
                for l in &hunk.lines {
                    mine.push(at.next().unwrap_or(0));
                    if l.no_newline {
                        at.next();
                    }
                }
            }
            mine
        })
        .collect()
}

/// The text hunks of `p`, none for a binary file.
fn hunks(p: &FilePatch) -> &[Hunk] {
    match &p.body {
        Body::Text(h) => h,
        Body::Binary(_) => &[],
    }
}

#[cfg(test)]
mod tests;
