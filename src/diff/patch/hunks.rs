//! Hunks: the edits of two texts grouped with their context, function lines, binary payloads.

use super::emit::{Change, Conf, Sides, Span, spans};
use super::funcs::Funcs;
use super::*;

/// The hunks between two texts, with [`CONTEXT`] lines of context, merged
/// when their contexts touch (as xdiff does).
pub fn hunks(old: &[u8], new: &[u8], ignore_whitespace: bool) -> Vec<Hunk> {
    let how = HunkOptions {
        space: ignore_whitespace.into(),
        context: CONTEXT,
        inter_hunk: 0,
        algorithm: lines::Algorithm::Myers,
        indent_heuristic: true,
        function_context: false,
        ignore_blank_lines: false,
        funcs: Funcs::Default,
    };
    hunks_with(old, new, how)
}

/// The hunks between two texts, found as `how` says.
pub(super) fn hunks_with(old: &[u8], new: &[u8], how: HunkOptions<'_>) -> Vec<Hunk> {
    let HunkOptions {
        space,
        context,
        inter_hunk,
        algorithm,
        indent_heuristic,
        function_context,
        ignore_blank_lines,
        funcs,
    } = how;
    if old == new {
        return Vec::new();
    }
    // Without context, xdiff-interface first drops the ends both texts share
    // in whole 1024-byte blocks (`trim_common_tail`), which can change what
    // the diff pairs.
    let (old, new) = if context == 0 && !function_context {
        let drop = crate::diff::xdiff::common_tail(old, new);
        (&old[..old.len() - drop], &new[..new.len() - drop])
    } else {
        (old, new)
    };
    let old_lines: Vec<&[u8]> = old.split_inclusive(|b| *b == b'\n').collect();
    let new_lines: Vec<&[u8]> = new.split_inclusive(|b| *b == b'\n').collect();
    let mut scratch = lines::Squeezed::default();
    let input = lines::intern(old, new, space, &mut scratch);
    let mut diff = lines::compute(algorithm, &input);
    if indent_heuristic {
        let heuristic =
            crate::diff::slider::RealIndent::new(&input.before, &input.after, &old_lines, &new_lines);
        diff.postprocess_with_heuristic(&input, heuristic);
    } else {
        diff.postprocess_with_heuristic(&input, gix::diff::blob::NoSliderHeuristic);
    }
    let changes: Vec<Change> = diff
        .hunks()
        .map(|e| {
            let ignore = ignore_blank_lines
                && old_lines
                    .get(e.before.start as usize..e.before.end as usize)
                    .unwrap_or_default()
                    .iter()
                    .chain(
                        new_lines
                            .get(e.after.start as usize..e.after.end as usize)
                            .unwrap_or_default(),
                    )
                    .all(|l| is_blank_line(l, space));
            Change {
                i1: e.before.start as isize,
                chg1: e.before.len() as isize,
                i2: e.after.start as isize,
                chg2: e.after.len() as isize,
                ignore,
            }
        })
        .collect();
    let sides = Sides {
        old: &old_lines,
        new: &new_lines,
        funcs,
    };
    let conf = Conf {
        context: context as isize,
        inter_hunk: inter_hunk as isize,
        function_context,
    };
    spans(&changes, &sides, &conf)
        .iter()
        .map(|span| hunk(span, &changes, &sides))
        .collect()
}

/// xdiff's `xdl_blankline`: with a whitespace rule, only whitespace; without,
/// at most one byte (the newline; git's own rule).
fn is_blank_line(line: &[u8], space: lines::Space) -> bool {
    if space == lines::Space::Exact {
        line.len() <= 1
    } else {
        line.iter().all(|b| crate::diff::space::is_git_space(*b))
    }
}

/// One hunk: its changes with the context around and between them, as
/// `xdl_emit_diff` writes it (context from the new side).
fn hunk(span: &Span, changes: &[Change], sides: &Sides<'_>) -> Hunk {
    let (old_lines, new_lines) = (sides.old, sides.new);
    let r = |a: isize, b: isize| a.max(0) as u32..b.max(0) as u32;
    let mut lines = Vec::new();
    let first = changes.get(span.first);
    let mut s2 = span.s2;
    if let Some(c) = first {
        push_lines(&mut lines, LineKind::Context, new_lines, r(s2, c.i2));
    }
    let (mut s1, mut last_end2) = (first.map_or(0, |c| c.i1), 0);
    s2 = first.map_or(0, |c| c.i2);
    for c in changes.get(span.first..=span.last).unwrap_or_default() {
        let between = (c.i1 - s1).min(c.i2 - s2).max(0);
        push_lines(&mut lines, LineKind::Context, new_lines, r(s2, s2 + between));
        push_lines(&mut lines, LineKind::Removed, old_lines, r(c.i1, c.i1 + c.chg1));
        push_lines(&mut lines, LineKind::Added, new_lines, r(c.i2, c.i2 + c.chg2));
        s1 = c.i1 + c.chg1;
        s2 = c.i2 + c.chg2;
        last_end2 = s2;
    }
    push_lines(&mut lines, LineKind::Context, new_lines, r(last_end2, span.e2));
    Hunk {
        old_start: (span.s1 + 1) as u32,
        old_len: (span.e1 - span.s1) as u32,
        new_start: (span.s2 + 1) as u32,
        new_len: (span.e2 - span.s2) as u32,
        function: function_line(old_lines, span.s1.max(0) as u32, sides.funcs),
        lines,
    }
}

/// Append `source[range]` as lines of `kind` (an empty or reversed range adds none).
pub(super) fn push_lines(
    lines: &mut Vec<Line>,
    kind: LineKind,
    source: &[&[u8]],
    range: std::ops::Range<u32>,
) {
    let range = range.start as usize..range.end as usize;
    for l in source.get(range).unwrap_or_default() {
        lines.push(Line {
            kind,
            text: l.strip_suffix(b"\n").unwrap_or(l).to_vec(),
            no_newline: !l.ends_with(b"\n"),
        });
    }
}

/// git's function context: the closest function line above the hunk (by
/// `funcs`), its text cut to 80 bytes with trailing space dropped, then
/// cut where its UTF-8 stops being whole.
pub(super) fn function_line(old_lines: &[&[u8]], hunk_start: u32, funcs: Funcs<'_>) -> Option<Vec<u8>> {
    let before = old_lines.get(..hunk_start as usize)?;
    let l = before.iter().rev().find_map(|l| funcs.find(l, 80))?;
    if l.is_empty() {
        // A pattern that matched nothing to show: xdiff writes no name.
        return None;
    }
    // git's `sane_truncate_line`: the header ends where its UTF-8 stops
    // being whole (a character cut at 80 bytes, or bytes that are not UTF-8).
    let valid = match std::str::from_utf8(l) {
        Ok(_) => l.len(),
        Err(e) => e.valid_up_to(),
    };
    // git also refuses U+FFFE and U+FFFF.
    let whole = std::str::from_utf8(&l[..valid])
        .ok()
        .and_then(|t| {
            t.char_indices()
                .find(|(_, c)| matches!(c, '\u{fffe}' | '\u{ffff}'))
        })
        .map_or(valid, |(i, _)| i);
    Some(l[..whole].to_vec())
}

/// How a binary patch rebuilds `to` from `from`: git's choice between a
/// delta and the whole content. The delta is tried when both sides have
/// content, abandoned as soon as it is longer than the deflated content
/// (git's bound too), and taken when it deflates smaller than the content.
pub(super) fn payload(from: &[u8], to: &[u8], level: flate2::Compression) -> Result<Payload> {
    let literal = deflate(to, level)?;
    if !from.is_empty()
        && !to.is_empty()
        && let Some(delta) = delta::encode(from, to, literal.len())
    {
        let deflated = deflate(&delta, level)?;
        if deflated.len() < literal.len() {
            return Ok(Payload {
                kind: PayloadKind::Delta,
                size: delta.len(),
                deflated,
            });
        }
    }
    Ok(Payload {
        kind: PayloadKind::Literal,
        size: to.len(),
        deflated: literal,
    })
}

/// `data`, zlib-deflated at `level`.
///
/// zlib itself, in one call with `Z_FINISH` as git's `deflate_it` makes it,
/// so that the bytes are git's.
pub(super) fn deflate(data: &[u8], level: flate2::Compression) -> Result<Vec<u8>> {
    let mut z = flate2::Compress::new(level, true);
    let mut out = Vec::with_capacity(data.len() / 2 + 64);
    loop {
        let consumed = usize::try_from(z.total_in()).unwrap_or(usize::MAX);
        let rest = data.get(consumed..).unwrap_or_default();
        if out.capacity() - out.len() < 64 {
            out.reserve(out.capacity().max(1024));
        }
        let status = z
            .compress_vec(rest, &mut out, flate2::FlushCompress::Finish)
            .map_err(std::io::Error::other)
            .context(|| "could not compress a binary patch".into())?;
        if status == flate2::Status::StreamEnd {
            return Ok(out);
        }
    }
}
