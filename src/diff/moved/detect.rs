//! `add_lines_to_move_detection`: each removed and added line's class of
//! equal lines, and the lists move detection walks.

use std::collections::HashMap;

use super::{BLANK, Settings, Sym};
use crate::diff::space;

/// One removed or added line, as move detection sees it.
pub(super) struct Entry {
    /// Its index in the stream.
    pub(super) at: usize,
    /// Its class of equal lines.
    pub(super) id: usize,
    /// Added (true) or removed.
    pub(super) plus: bool,
    /// The indentation width, [`BLANK`] for a blank line.
    pub(super) width: i64,
    /// The next line of the same kind, when adjacent in the stream.
    pub(super) next_line: Option<usize>,
    /// The next line of the same kind and class.
    pub(super) next_match: Option<usize>,
}

/// The heads of each class's lists of removed and added lines.
pub(super) type Heads = Vec<[Option<usize>; 2]>;

/// `add_lines_to_move_detection`: the entries, the entry of each stream
/// line, and the lists of each class.
pub(super) fn detect(
    stream: &[Sym<'_>],
    settings: Settings,
    tab_width: usize,
) -> (Vec<Entry>, Vec<Option<usize>>, Heads) {
    let mut ids: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut entries: Vec<Entry> = Vec::new();
    let mut by_symbol = vec![None; stream.len()];
    let mut heads: Heads = Vec::new();
    let mut prev: Option<usize> = None;
    let mut line = Vec::new();
    for (at, sym) in stream.iter().enumerate() {
        let (text, plus) = match *sym {
            Sym::Minus(t) => (t, false),
            Sym::Plus(t) => (t, true),
            Sym::Other => {
                prev = None;
                continue;
            }
        };
        // git's line carries its newline (xdiff adds one to a last line
        // without).
        line.clear();
        line.extend_from_slice(text);
        line.push(b'\n');
        let (off, width) = if settings.indentation {
            indent(&line, tab_width)
        } else {
            (0, 0)
        };
        let key = space::squeeze_line(line.get(off..).unwrap_or_default(), settings.space);
        let next_id = ids.len();
        let id = *ids.entry(key).or_insert(next_id);
        if id == heads.len() {
            heads.push([None, None]);
        }
        let e = entries.len();
        if let Some(p) = prev
            && let Some(pe) = entries.get_mut(p)
            && pe.plus == plus
        {
            pe.next_line = Some(e);
        }
        prev = Some(e);
        let head = heads.get_mut(id).map(|h| &mut h[usize::from(plus)]);
        let next_match = head.as_deref().copied().flatten();
        if let Some(head) = head {
            *head = Some(e);
        }
        entries.push(Entry {
            at,
            id,
            plus,
            width,
            next_line: None,
            next_match,
        });
        if let Some(slot) = by_symbol.get_mut(at) {
            *slot = Some(e);
        }
    }
    (entries, by_symbol, heads)
}

/// `fill_es_indent_data`: where `line`'s indentation ends and its width
/// (TABs to the next multiple of `tab_width`), or [`BLANK`] (and the
/// line's end) when it is all whitespace.
pub(super) fn indent(line: &[u8], tab_width: usize) -> (usize, i64) {
    let at = |i: usize| line.get(i).copied().unwrap_or(0);
    let tab = i64::try_from(tab_width.max(1)).unwrap_or(8);
    let mut off = 0;
    while matches!(at(off), b'\x0c' | b'\x0b') || (at(off) == b'\r' && off + 1 < line.len()) {
        off += 1;
    }
    let mut width = 0i64;
    loop {
        match at(off) {
            b' ' => {
                width += 1;
                off += 1;
            }
            b'\t' => {
                width += tab - width % tab;
                off += 1;
                while at(off) == b'\t' {
                    width += tab;
                    off += 1;
                }
            }
            _ => break,
        }
    }
    if line
        .get(off..)
        .unwrap_or_default()
        .iter()
        .all(|&b| space::is_git_space(b))
    {
        (line.len(), BLANK)
    } else {
        (off, width)
    }
}
