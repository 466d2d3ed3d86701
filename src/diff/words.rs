//! git's word diff (`--word-diff`, `--color-words`): the removed and added
//! lines of a run are split into words (runs of non-whitespace, git's
//! default without a word regex; else what the regex matches, as git's
//! `find_word_boundaries` finds it), the words are diffed with xdiff's default
//! Myers as if each were a line, and the result is what to write in order:
//! unchanged text (taken from the new side, whitespace between words
//! included), removed words, added words. The page's word highlights use the
//! same engine.

use gix::diff::blob::{Diff, InternedInput};

use crate::diff::posix::Posix;

/// How word-diff output is marked (`--word-diff=<mode>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `[-removed-]{+added+}`.
    Plain,
    /// Colour alone (`--color-words`, `--word-diff=color`).
    Color,
    /// One piece per line, `-`, `+` or a space first, `~` for a newline.
    Porcelain,
}

/// What a piece of word-diff output is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    /// Unchanged text of the new side.
    Context,
    /// Removed words (and what lies between them).
    Old,
    /// Added words (and what lies between them).
    New,
}

/// Where each word of `text` begins and ends: git's `find_word_boundaries`,
/// by the word regex if there is one.
fn words(text: &[u8], regex: Option<&Posix>) -> Vec<(usize, usize)> {
    match regex {
        Some(r) => regex_words(text, r),
        None => space_words(text),
    }
}

/// Words as a regex matches them: from where the last one ended, the
/// leftmost-longest match of the rest (searched as a string of its own),
/// cut at a newline; an empty one skips a byte.
fn regex_words(text: &[u8], regex: &Posix) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut begin = 0;
    while begin < text.len() {
        let Some(m) = text.get(begin..).and_then(|rest| regex.find(rest)) else {
            break;
        };
        let (start, stop) = (begin + m.start, begin + m.end);
        let end = text
            .get(start..stop)
            .and_then(|w| w.iter().position(|b| *b == b'\n'))
            .map_or(stop, |p| start + p);
        if start == end {
            begin = start + 1;
            continue;
        }
        out.push((start, end));
        begin = end;
    }
    out
}

/// Words without a regex: whitespace separates them.
fn space_words(text: &[u8]) -> Vec<(usize, usize)> {
    let space = crate::diff::space::is_git_space;
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        while text.get(i).is_some_and(|b| space(*b)) {
            i += 1;
        }
        if i >= text.len() {
            break;
        }
        let start = i;
        while text.get(i).is_some_and(|b| !space(*b)) {
            i += 1;
        }
        out.push((start, i));
    }
    out
}

/// The word diff of `minus` (the removed lines, newlines included) and
/// `plus` (the added ones), words as `regex` says: the pieces to write, in
/// order, as git's `diff_words_show` writes them.
pub fn diff<'a>(minus: &'a [u8], plus: &'a [u8], regex: Option<&Posix>) -> Vec<(Piece, &'a [u8])> {
    diff_ranges(minus, plus, regex)
        .into_iter()
        .map(|(piece, r)| {
            let side = if piece == Piece::Old { minus } else { plus };
            (piece, side.get(r).unwrap_or_default())
        })
        .collect()
}

/// [`diff`] as byte ranges: of `minus` for [`Piece::Old`], of `plus` for
/// the others.
pub fn diff_ranges(minus: &[u8], plus: &[u8], regex: Option<&Posix>) -> Vec<(Piece, std::ops::Range<usize>)> {
    if plus.is_empty() {
        // Only removed: written whole.
        return vec![(Piece::Old, 0..minus.len())];
    }
    let (mw, pw) = (words(minus, regex), words(plus, regex));
    // Each word as a line of its own, as git feeds them to xdiff.
    let as_lines = |text: &[u8], w: &[(usize, usize)]| -> Vec<u8> {
        let mut out = Vec::with_capacity(text.len() + w.len());
        for &(s, e) in w {
            out.extend_from_slice(&text[s..e]);
            out.push(b'\n');
        }
        out
    };
    let (ml, pl) = (as_lines(minus, &mw), as_lines(plus, &pw));
    let drop = crate::diff::xdiff::common_tail(&ml, &pl);
    let kept = |lines: &[u8]| {
        lines[..lines.len() - drop]
            .iter()
            .filter(|c| **c == b'\n')
            .count()
    };
    let (mk, pk) = (kept(&ml), kept(&pl));
    let mut input = InternedInput::default();
    input.update_before(mw[..mk].iter().map(|&(s, e)| &minus[s..e]));
    input.update_after(pw[..pk].iter().map(|&(s, e)| &plus[s..e]));
    let mut d = Diff::compute(gix::diff::blob::Algorithm::Myers, &input);
    d.postprocess_with_heuristic(&input, gix::diff::blob::NoSliderHeuristic);
    let mut out = Vec::new();
    let mut current = 0;
    for h in d.hunks() {
        let (m0, m1, p0, p1) = (
            h.before.start as usize,
            h.before.end as usize,
            h.after.start as usize,
            h.after.end as usize,
        );
        // An empty side sits at the end of the word before it (or the start).
        let end_of = |w: &[(usize, usize)], k: usize| {
            if k == 0 {
                0
            } else {
                w.get(k - 1).map_or(0, |x| x.1)
            }
        };
        let (m_begin, m_end) = if m1 > m0 {
            (mw[m0].0, mw[m1 - 1].1)
        } else {
            (end_of(&mw, m0), end_of(&mw, m0))
        };
        let (p_begin, p_end) = if p1 > p0 {
            (pw[p0].0, pw[p1 - 1].1)
        } else {
            (end_of(&pw, p0), end_of(&pw, p0))
        };
        if current != p_begin {
            out.push((Piece::Context, current..p_begin));
        }
        if m_begin != m_end {
            out.push((Piece::Old, m_begin..m_end));
        }
        if p_begin != p_end {
            out.push((Piece::New, p_begin..p_end));
        }
        current = p_end;
    }
    if current != plus.len() {
        out.push((Piece::Context, current..plus.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_words_between_unchanged_text() {
        let pieces = diff(b"let x = 1;\n", b"let y = 1;\n", None);
        assert_eq!(
            pieces,
            [
                (Piece::Context, &b"let "[..]),
                (Piece::Old, b"x"),
                (Piece::New, b"y"),
                (Piece::Context, b" = 1;\n"),
            ]
        );
        assert_eq!(diff(b"gone\n", b"", None), [(Piece::Old, &b"gone\n"[..])]);
    }
}
