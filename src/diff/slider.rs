//! git's indent heuristic for placing ambiguous hunks, measured on the
//! lines as they are written.
//!
//! gix's heuristic reads a line's indent from its token; when lines are
//! compared without whitespace, a token no longer knows its indent (two
//! lines that differ only in indentation share one). xdiff measures the real
//! line at each position, so this heuristic does too: it hands gix's scoring
//! a sequence of position tokens whose indents are those of the real lines.

use gix::diff::blob::{IndentHeuristic, IndentLevel, SliderHeuristic, Token};

/// git's tab width for the indent heuristic.
const TAB_WIDTH: u8 = 8;

/// One side: where its tokens live, and its lines' indents by position.
struct Side {
    tokens: *const Token,
    positions: Vec<Token>,
    indents: Vec<IndentLevel>,
}

impl Side {
    fn new(tokens: &[Token], lines: &[&[u8]]) -> Self {
        let positions = (0..u32::try_from(lines.len()).unwrap_or(u32::MAX))
            .map(Token)
            .collect();
        let indents = lines
            .iter()
            .map(|l| IndentLevel::for_ascii_line(l.iter().copied(), TAB_WIDTH))
            .collect();
        Side {
            tokens: tokens.as_ptr(),
            positions,
            indents,
        }
    }
}

/// The indent heuristic over the real lines of both sides.
pub struct RealIndent {
    before: Side,
    after: Side,
}

impl RealIndent {
    /// For a diff of `before`/`after` tokens whose lines are `old`/`new`.
    pub fn new(before: &[Token], after: &[Token], old: &[&[u8]], new: &[&[u8]]) -> Self {
        RealIndent {
            before: Side::new(before, old),
            after: Side::new(after, new),
        }
    }
}

impl SliderHeuristic for RealIndent {
    fn best_slider_end(&mut self, tokens: &[Token], hunk: std::ops::Range<u32>, earliest_end: u32) -> u32 {
        // gix slides each side over the token slice it was given: which one
        // this is shows in its address.
        let side = if std::ptr::eq(tokens.as_ptr(), self.before.tokens) {
            &self.before
        } else if std::ptr::eq(tokens.as_ptr(), self.after.tokens) {
            &self.after
        } else {
            return hunk.end;
        };
        if side.positions.len() != tokens.len() {
            return hunk.end;
        }
        let indents = &side.indents;
        IndentHeuristic::new(|t: Token| {
            indents
                .get(t.0 as usize)
                .copied()
                .unwrap_or(IndentLevel::for_ascii_line([], TAB_WIDTH))
        })
        .best_slider_end(&side.positions, hunk, earliest_end)
    }
}
