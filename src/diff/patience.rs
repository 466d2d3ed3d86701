//! Patience diff (Bram Cohen's), as git's `diff.algorithm=patience` uses it:
//! in a region, the lines that occur exactly once on each side are paired;
//! the longest run of pairs in the same order on both sides (a longest
//! increasing subsequence, found by patience sorting) anchors the diff; each
//! anchor grows over the equal lines beside it, and the gaps between anchors
//! are diffed the same way. A region whose sides share no line at all is
//! wholly changed; one that shares lines but no unique ones falls back to
//! git's default diff (Myers with its pre-pass) of that region alone.
//!
//! The result is an imara [`Diff`], so that counting, hunk compaction and the
//! indent heuristic are the same as for the other algorithms.

use gix::diff::blob::{Diff, Token};

/// How many lines patience may examine, over all its regions, per line of
/// input; past that, the regions left are diffed with Myers. A hostile file
/// (unique lines nested so that every level anchors a single line) would
/// otherwise take quadratic time.
const WORK_PER_LINE: usize = 64;
/// Work always allowed, whatever the input size.
const WORK_MIN: usize = 1 << 22;

/// A region still to diff: lines `before[b]` against `after[a]`.
struct Region {
    b: std::ops::Range<usize>,
    a: std::ops::Range<usize>,
}

/// What a region knows of one token: how often it occurs on each side
/// (counted up to 2, that is "more than once"), and where.
#[derive(Clone, Copy, Default)]
struct Slot {
    in_before: u8,
    in_after: u8,
    at_before: usize,
    at_after: usize,
}

/// The patience diff of two token sequences (`num_tokens` bounds their ids).
pub fn diff(before: &[Token], after: &[Token], num_tokens: u32) -> Diff {
    let budget = (before.len() + after.len())
        .saturating_mul(WORK_PER_LINE)
        .max(WORK_MIN);
    diff_within(before, after, num_tokens, budget).0
}

/// [`diff`], examining regions for at most `budget` lines in all (the
/// regions left are diffed with Myers); says whether the budget ran out.
fn diff_within(before: &[Token], after: &[Token], num_tokens: u32, budget: usize) -> (Diff, bool) {
    let mut marks = Marks {
        removed: vec![false; before.len()],
        added: vec![false; after.len()],
    };
    let mut slots = vec![Slot::default(); num_tokens as usize];
    let mut scratch = Diff::default();
    let mut pairs = Vec::new();
    let mut regions = vec![Region {
        b: 0..before.len(),
        a: 0..after.len(),
    }];
    let mut work = 0usize;
    while let Some(r) = regions.pop() {
        let (Some(old), Some(new)) = (before.get(r.b.clone()), after.get(r.a.clone())) else {
            continue;
        };
        if old.is_empty() || new.is_empty() {
            marks.all(&r);
            continue;
        }
        work = work.saturating_add(old.len() + new.len());
        if work > budget {
            marks.myers(&mut scratch, &r, old, new, num_tokens);
            continue;
        }
        let shared = unique_pairs(old, new, &r, &mut slots, &mut pairs);
        if !shared {
            marks.all(&r);
        } else if pairs.is_empty() {
            marks.myers(&mut scratch, &r, old, new, num_tokens);
        } else {
            let anchors = longest_increasing(&pairs);
            split(&r, &anchors, before, after, &mut regions);
        }
    }
    (diff_from_marks(&marks.removed, &marks.added), work > budget)
}

/// The [`Diff`] that removes the lines marked in `removed` and adds those
/// marked in `added` (the unmarked lines of both sides pair up in order).
///
/// gix builds a `Diff` only by computing one: this computes it over stand-in
/// tokens whose only common subsequence is the unmarked lines (each kept
/// pair shares a token found nowhere else, each marked line has a token of
/// its own), for which the minimal Myers diff is exactly the marking.
pub fn diff_from_marks(removed: &[bool], added: &[bool]) -> Diff {
    let stand_ins = |marks: &[bool], next_own: &mut u32| -> Vec<Token> {
        let mut kept = 0u32;
        marks
            .iter()
            .map(|&m| {
                let counter = if m { &mut *next_own } else { &mut kept };
                let t = Token(*counter);
                *counter = counter.saturating_add(1);
                t
            })
            .collect()
    };
    let kept = removed
        .iter()
        .filter(|m| !**m)
        .count()
        .max(added.iter().filter(|m| !**m).count());
    let mut next_own = u32::try_from(kept).unwrap_or(u32::MAX);
    let before = stand_ins(removed, &mut next_own);
    let after = stand_ins(added, &mut next_own);
    let mut diff = Diff::default();
    diff.compute_with(
        gix::diff::blob::Algorithm::MyersMinimal,
        &before,
        &after,
        next_own,
    );
    diff
}

/// The lines found removed from `before` and added to `after`.
struct Marks {
    removed: Vec<bool>,
    added: Vec<bool>,
}

impl Marks {
    /// Region `r` is changed on both sides.
    fn all(&mut self, r: &Region) {
        if let Some(s) = self.removed.get_mut(r.b.clone()) {
            s.fill(true);
        }
        if let Some(s) = self.added.get_mut(r.a.clone()) {
            s.fill(true);
        }
    }

    /// Region `r`, lines `old` against `new`, by git's default diff of the
    /// region alone (its pre-pass counts only the region's lines).
    fn myers(&mut self, scratch: &mut Diff, r: &Region, old: &[Token], new: &[Token], num_tokens: u32) {
        let removed = self.removed.get_mut(r.b.clone()).unwrap_or_default();
        let added = self.added.get_mut(r.a.clone()).unwrap_or_default();
        crate::diff::xdiff::myers_into(scratch, (old, new), num_tokens, removed, added);
    }
}

/// Fill `pairs` with the positions `(before, after)` of the lines that occur
/// once on each side of region `r`, in the order of `before`; say whether the
/// sides share any line at all. `slots` is left as it was found (all empty).
fn unique_pairs(
    old: &[Token],
    new: &[Token],
    r: &Region,
    slots: &mut [Slot],
    pairs: &mut Vec<(usize, usize)>,
) -> bool {
    pairs.clear();
    for (i, t) in r.b.clone().zip(old) {
        if let Some(s) = slots.get_mut(t.0 as usize) {
            if s.in_before == 0 {
                s.at_before = i;
            }
            s.in_before = s.in_before.saturating_add(1).min(2);
        }
    }
    let mut shared = false;
    for (j, t) in r.a.clone().zip(new) {
        if let Some(s) = slots.get_mut(t.0 as usize)
            && s.in_before > 0
        {
            shared = true;
            if s.in_after == 0 {
                s.at_after = j;
            }
            s.in_after = s.in_after.saturating_add(1).min(2);
        }
    }
    for t in old {
        if let Some(s) = slots.get(t.0 as usize)
            && s.in_before == 1
            && s.in_after == 1
        {
            pairs.push((s.at_before, s.at_after));
        }
    }
    for t in old.iter().chain(new) {
        if let Some(s) = slots.get_mut(t.0 as usize) {
            *s = Slot::default();
        }
    }
    shared
}

/// The longest sequence of `pairs` (ordered by their first member) whose
/// second members increase, by patience sorting: each pair goes on the
/// leftmost pile whose top is above it, remembering the top of the pile to
/// its left; the answer is read back from the top of the last pile.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut tops: Vec<usize> = Vec::new();
    let mut previous: Vec<Option<usize>> = Vec::with_capacity(pairs.len());
    for (k, &(_, j)) in pairs.iter().enumerate() {
        let pile = tops.partition_point(|&t| pairs.get(t).is_some_and(|p| p.1 < j));
        previous.push(pile.checked_sub(1).and_then(|p| tops.get(p).copied()));
        match tops.get_mut(pile) {
            Some(top) => *top = k,
            None => tops.push(k),
        }
    }
    let mut out = Vec::with_capacity(tops.len());
    let mut at = tops.last().copied();
    while let Some(k) = at {
        let Some(&p) = pairs.get(k) else { break };
        out.push(p);
        at = previous.get(k).copied().flatten();
    }
    out.reverse();
    out
}

/// Queue the gaps of region `r` between its `anchors`, after growing each
/// anchor backwards over the equal lines before it, then the stretch before
/// it forwards over the equal lines that follow the previous anchor.
fn split(
    r: &Region,
    anchors: &[(usize, usize)],
    before: &[Token],
    after: &[Token],
    regions: &mut Vec<Region>,
) {
    let same = |i: usize, j: usize| before.get(i).is_some_and(|x| after.get(j) == Some(x));
    let (mut b, mut a) = (r.b.start, r.a.start);
    let ends = anchors.iter().map(|&(i, j)| (i, j, true));
    for (anchor_b, anchor_a, is_anchor) in ends.chain([(r.b.end, r.a.end, false)]) {
        let (mut next_b, mut next_a) = (anchor_b, anchor_a);
        while is_anchor && next_b > b && next_a > a && same(next_b - 1, next_a - 1) {
            next_b -= 1;
            next_a -= 1;
        }
        while b < next_b && a < next_a && same(b, a) {
            b += 1;
            a += 1;
        }
        if b < next_b || a < next_a {
            regions.push(Region {
                b: b..next_b,
                a: a..next_a,
            });
        }
        (b, a) = (anchor_b + 1, anchor_a + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gix::diff::blob::{Algorithm, InternedInput};

    fn input<'a>(old: &'a str, new: &'a str) -> InternedInput<&'a [u8]> {
        let mut input = InternedInput::default();
        input.update_before(old.as_bytes().split_inclusive(|b| *b == b'\n'));
        input.update_after(new.as_bytes().split_inclusive(|b| *b == b'\n'));
        input
    }

    /// The patience diff of `input`.
    fn patience(input: &InternedInput<&[u8]>) -> Diff {
        diff(&input.before, &input.after, input.interner.num_tokens())
    }

    /// git's default diff of `input`.
    fn myers(input: &InternedInput<&[u8]>) -> Diff {
        Diff::compute(Algorithm::Myers, input)
    }

    /// The hunks, as `(old range, new range)` counted from 0.
    fn hunks(diff: &Diff) -> Vec<(std::ops::Range<u32>, std::ops::Range<u32>)> {
        diff.hunks().map(|h| (h.before, h.after)).collect()
    }

    /// The unchanged lines of both sides are the same lines, in order.
    fn is_edit_script(before: &[Token], after: &[Token], diff: &Diff) -> bool {
        let kept_b = before
            .iter()
            .enumerate()
            .filter(|(i, _)| !diff.is_removed(*i as u32));
        let kept_a = after
            .iter()
            .enumerate()
            .filter(|(j, _)| !diff.is_added(*j as u32));
        kept_b.map(|(_, t)| t).eq(kept_a.map(|(_, t)| t))
    }

    const OLD_C: &str = "#include <stdio.h>\n\n// Frobs foo heartily\nint frobnitz(int foo)\n{\n    int i;\n    for(i = 0; i < 10; i++)\n    {\n        printf(\"Your answer is: \");\n        printf(\"%d\\n\", foo);\n    }\n}\n\nint fact(int n)\n{\n    if(n > 1)\n    {\n        return fact(n-1) * n;\n    }\n    return 1;\n}\n\nint main(int argc, char **argv)\n{\n    frobnitz(fact(10));\n}\n";
    const NEW_C: &str = "#include <stdio.h>\n\nint fib(int n)\n{\n    if(n > 2)\n    {\n        return fib(n-1) + fib(n-2);\n    }\n    return 1;\n}\n\n// Frobs foo heartily\nint frobnitz(int foo)\n{\n    int i;\n    for(i = 0; i < 10; i++)\n    {\n        printf(\"%d\\n\", foo);\n    }\n}\n\nint main(int argc, char **argv)\n{\n    frobnitz(fib(10));\n}\n";

    #[test]
    fn moves_whole_functions_where_myers_matches_braces() {
        // `git diff --no-index --patience -U0` of this classic pair says
        // @@ -2,0 +3,9 @@, @@ -9 +17,0 @@, @@ -14,9 +21,0 @@, @@ -25 +24 @@.
        let input = input(OLD_C, NEW_C);
        let mut diff = patience(&input);
        assert!(is_edit_script(&input.before, &input.after, &diff));
        diff.postprocess_lines(&input);
        assert_eq!(
            hunks(&diff),
            [(2..2, 2..11), (8..9, 17..17), (13..22, 21..21), (24..25, 23..24)]
        );
        let mut myers = myers(&input);
        myers.postprocess_lines(&input);
        assert_eq!(hunks(&myers).len(), 9, "git's default diff of it has nine hunks");
    }

    #[test]
    fn no_shared_line_changes_the_whole_region_and_no_unique_one_falls_back_to_myers() {
        let input = input("a\nb\n", "c\nd\ne\n");
        let diff = patience(&input);
        assert_eq!((diff.count_removals(), diff.count_additions()), (2, 3));
        // Only repeated lines: Myers keeps the longest common run.
        let input = super::tests::input("x\nx\ny\nx\n", "y\nx\nx\ny\n");
        let diff = patience(&input);
        let myers = myers(&input);
        assert!(is_edit_script(&input.before, &input.after, &diff));
        assert_eq!(hunks(&diff), hunks(&myers));
        assert!(diff.count_removals() < 4, "the fallback found common lines");
    }

    #[test]
    fn a_diff_is_built_from_any_marking() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut bit = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed.is_multiple_of(3)
        };
        for len in [0usize, 1, 2, 7, 50, 300] {
            let removed: Vec<bool> = (0..len).map(|_| bit()).collect();
            let kept = removed.iter().filter(|m| !**m).count();
            // As many unmarked lines on the other side, marked lines between.
            let mut added = Vec::new();
            let mut left = kept;
            while left > 0 || added.len() < len / 2 {
                let m = left == 0 || bit();
                added.push(m);
                left -= usize::from(!m);
            }
            let diff = diff_from_marks(&removed, &added);
            let got_removed: Vec<bool> = (0..removed.len()).map(|i| diff.is_removed(i as u32)).collect();
            let got_added: Vec<bool> = (0..added.len()).map(|j| diff.is_added(j as u32)).collect();
            assert_eq!((got_removed, got_added), (removed, added), "length {len}");
        }
    }

    /// Unique lines nested so that each level anchors a single line: line
    /// `k` is unique only once the copies of it before line `k - 1` are cut
    /// off, so patience examines a region per line, each nearly as large as
    /// the file.
    fn nested(levels: u32) -> (Vec<Token>, Vec<Token>) {
        let c = |k: u32| Token(k);
        let blocker = |k: u32, side: u32| Token(levels + 2 * k + side);
        let before = (0..levels).flat_map(|k| [c(k), blocker(k, 0)]).collect();
        let after = (0..levels)
            .flat_map(|k| (k + 1..levels).map(c).chain([c(k), blocker(k, 1)]))
            .collect();
        (before, after)
    }

    #[test]
    fn hostile_nesting_is_cut_short_by_the_budget() {
        let levels = 60;
        let (before, after) = nested(levels);
        let tokens = 3 * levels;
        let (diff, cut) = diff_within(&before, &after, tokens, usize::MAX);
        assert!(!cut);
        assert!(is_edit_script(&before, &after, &diff));
        assert_eq!(
            diff.count_removals(),
            levels,
            "every level anchored its line, so only the blockers are removed"
        );
        let whole = before.len() + after.len();
        let (diff, cut) = diff_within(&before, &after, tokens, 4 * whole);
        assert!(cut, "the nesting needs more than four passes over the input");
        assert!(is_edit_script(&before, &after, &diff));
    }
}
