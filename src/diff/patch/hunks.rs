//! Hunks: the edits of two texts grouped with their context, function lines, binary payloads.

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
    };
    hunks_with(old, new, how)
}

/// The hunks between two texts, found as `how` says.
pub(super) fn hunks_with(old: &[u8], new: &[u8], how: HunkOptions) -> Vec<Hunk> {
    let HunkOptions {
        space,
        context,
        inter_hunk,
        algorithm,
        indent_heuristic,
    } = how;
    if old == new {
        return Vec::new();
    }
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
    group(diff.hunks(), context, inter_hunk)
        .iter()
        .filter_map(|g| hunk(g, &old_lines, &new_lines, context))
        .collect()
}

/// Edits whose contexts would touch or overlap (or come closer than
/// `inter_hunk` lines), together.
pub(super) fn group(edits: impl Iterator<Item = Edit>, context: u32, inter_hunk: u32) -> Vec<Vec<Edit>> {
    let mut groups: Vec<Vec<Edit>> = Vec::new();
    for e in edits {
        match groups.last_mut() {
            Some(g)
                if g.last().is_some_and(|l| {
                    e.before.start.saturating_sub(l.before.end)
                        <= context.saturating_mul(2).saturating_add(inter_hunk)
                }) =>
            {
                g.push(e);
            }
            _ => groups.push(vec![e]),
        }
    }
    groups
}

/// One hunk: a group of edits with the context around and between them.
pub(super) fn hunk(group: &[Edit], old_lines: &[&[u8]], new_lines: &[&[u8]], context: u32) -> Option<Hunk> {
    let (first, last) = (group.first()?, group.last()?);
    let old_total = u32::try_from(old_lines.len()).unwrap_or(u32::MAX);
    let new_total = u32::try_from(new_lines.len()).unwrap_or(u32::MAX);
    let pre = first.before.start.min(context).min(first.after.start);
    let post = old_total
        .saturating_sub(last.before.end)
        .min(context)
        .min(new_total.saturating_sub(last.after.end));
    let (o_start, n_start) = (first.before.start - pre, first.after.start - pre);
    let (o_end, n_end) = (last.before.end + post, last.after.end + post);
    let mut lines = Vec::new();
    // Context comes from the new side, as git prints it.
    let mut n = n_start;
    for e in group {
        push_lines(&mut lines, LineKind::Context, new_lines, n..e.after.start);
        push_lines(&mut lines, LineKind::Removed, old_lines, e.before.clone());
        push_lines(&mut lines, LineKind::Added, new_lines, e.after.clone());
        n = e.after.end;
    }
    push_lines(&mut lines, LineKind::Context, new_lines, n..n_end);
    Some(Hunk {
        old_start: o_start + 1,
        old_len: o_end - o_start,
        new_start: n_start + 1,
        new_len: n_end - n_start,
        function: function_line(old_lines, o_start),
        lines,
    })
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

/// git's default function context: the closest line above the hunk that
/// starts with a letter, `_` or `$`, cut to 80 bytes, trailing space dropped.
pub(super) fn function_line(old_lines: &[&[u8]], hunk_start: u32) -> Option<Vec<u8>> {
    let before = old_lines.get(..hunk_start as usize)?;
    let line = before.iter().rev().find(|l| {
        l.first()
            .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_' || *b == b'$')
    })?;
    let mut l = &line[..line.len().min(80)];
    while let Some((last, rest)) = l.split_last() {
        if last.is_ascii_whitespace() {
            l = rest;
        } else {
            break;
        }
    }
    Some(l.to_vec())
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
