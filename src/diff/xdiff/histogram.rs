//! xdiff's histogram diff, as git's `xhistogram.c` computes it: in a
//! region, every line of the old side is indexed with how often it occurs
//! there; for each line of the new side, the runs of equal lines through
//! its occurrences are grown both ways, and the longest run whose rarest
//! line is rarest (a line occurring more than 64 times never anchors) splits
//! the region in two. A region whose shared lines are all that frequent
//! falls back to xdiff's Myers diff of it; one that shares none is wholly
//! changed. No ends are trimmed first: git's histogram skips that pass.

use gix::diff::blob::{Diff, Token};

/// `max_chain_length`: lines occurring more often than this never anchor.
const MAX_CHAIN: u32 = 64;
/// No record, no next occurrence.
const NONE: u32 = u32::MAX;

/// One distinct line of the old side of a region: its first occurrence
/// and how many there are.
#[derive(Clone, Copy)]
struct Record {
    ptr: u32,
    cnt: u32,
}

/// The longest common run found so far (`begin..=end` on each side).
#[derive(Clone, Copy, Default)]
struct Lcs {
    begin1: u32,
    end1: u32,
    begin2: u32,
    end2: u32,
    found: bool,
}

/// The region's index: its records, each old line's record and next
/// occurrence, and the search's state.
struct Index<'a> {
    a: &'a [Token],
    b: &'a [Token],
    /// Token → record, reset after each region (the touched tokens are kept).
    by_token: Vec<u32>,
    touched: Vec<Token>,
    records: Vec<Record>,
    /// Per old line of the region (from `line1`): its record, its next occurrence.
    line_map: Vec<u32>,
    next: Vec<u32>,
    line1: u32,
    cnt: u32,
    has_common: bool,
}

/// The lines of `a` removed and of `b` added by git's histogram diff.
pub fn diff(a: &[Token], b: &[Token], num_tokens: u32) -> (Vec<bool>, Vec<bool>) {
    let mut removed = vec![false; a.len()];
    let mut added = vec![false; b.len()];
    let mut index = Index {
        a,
        b,
        by_token: vec![NONE; num_tokens as usize],
        touched: Vec::new(),
        records: Vec::new(),
        line_map: Vec::new(),
        next: Vec::new(),
        line1: 0,
        cnt: 0,
        has_common: false,
    };
    let len = |s: &[Token]| u32::try_from(s.len()).unwrap_or(u32::MAX);
    let mut regions = vec![(0u32, len(a), 0u32, len(b))];
    let mut scratch = Diff::default();
    while let Some((line1, count1, line2, count2)) = regions.pop() {
        if count1 == 0 {
            fill(&mut added, line2, count2);
            continue;
        }
        if count2 == 0 {
            fill(&mut removed, line1, count1);
            continue;
        }
        let (lcs, fall_back) = index.find_lcs(line1, count1, line2, count2);
        if fall_back {
            let r1 = line1 as usize..(line1 + count1) as usize;
            let r2 = line2 as usize..(line2 + count2) as usize;
            let (Some(old), Some(new)) = (a.get(r1.clone()), b.get(r2.clone())) else {
                continue;
            };
            let (r, a) = (
                removed.get_mut(r1).unwrap_or_default(),
                added.get_mut(r2).unwrap_or_default(),
            );
            super::myers_into(&mut scratch, (old, new), num_tokens, r, a);
        } else if !lcs.found {
            fill(&mut removed, line1, count1);
            fill(&mut added, line2, count2);
        } else {
            regions.push((
                lcs.end1 + 1,
                line1 + count1 - (lcs.end1 + 1),
                lcs.end2 + 1,
                line2 + count2 - (lcs.end2 + 1),
            ));
            regions.push((line1, lcs.begin1 - line1, line2, lcs.begin2 - line2));
        }
    }
    (removed, added)
}

fn fill(marks: &mut [bool], start: u32, count: u32) {
    if let Some(s) = marks.get_mut(start as usize..(start + count) as usize) {
        s.fill(true);
    }
}

impl Index<'_> {
    fn same(&self, i1: u32, i2: u32) -> bool {
        let x = self.a.get(i1 as usize);
        x.is_some() && x == self.b.get(i2 as usize)
    }

    /// The record of old line `i` (of the region).
    fn count_at(&self, i: u32) -> u32 {
        self.line_map
            .get((i - self.line1) as usize)
            .and_then(|&r| self.records.get(r as usize))
            .map_or(0, |r| r.cnt)
    }

    fn next_of(&self, i: u32) -> u32 {
        self.next.get((i - self.line1) as usize).copied().unwrap_or(NONE)
    }

    /// `scanA`: index the old side of the region, last line first.
    fn scan(&mut self, line1: u32, count1: u32) {
        for t in self.touched.drain(..) {
            if let Some(slot) = self.by_token.get_mut(t.0 as usize) {
                *slot = NONE;
            }
        }
        self.records.clear();
        self.line1 = line1;
        self.line_map.clear();
        self.line_map.resize(count1 as usize, NONE);
        self.next.clear();
        self.next.resize(count1 as usize, NONE);
        for ptr in (line1..line1 + count1).rev() {
            let Some(&t) = self.a.get(ptr as usize) else {
                continue;
            };
            let Some(slot) = self.by_token.get_mut(t.0 as usize) else {
                continue;
            };
            let at = (ptr - line1) as usize;
            if *slot == NONE {
                *slot = u32::try_from(self.records.len()).unwrap_or(NONE);
                self.touched.push(t);
                self.records.push(Record { ptr, cnt: 1 });
            } else if let Some(rec) = self.records.get_mut(*slot as usize) {
                if let Some(n) = self.next.get_mut(at) {
                    *n = rec.ptr;
                }
                rec.ptr = ptr;
                rec.cnt = rec.cnt.saturating_add(1);
            }
            if let Some(m) = self.line_map.get_mut(at) {
                *m = *slot;
            }
        }
    }

    /// `find_lcs`: the run to split the region at, or that it must fall back.
    fn find_lcs(&mut self, line1: u32, count1: u32, line2: u32, count2: u32) -> (Lcs, bool) {
        self.scan(line1, count1);
        self.cnt = MAX_CHAIN + 1;
        self.has_common = false;
        let mut lcs = Lcs::default();
        let mut b_ptr = line2;
        while b_ptr < line2 + count2 {
            b_ptr = self.try_lcs(&mut lcs, b_ptr, [line1, count1, line2, count2]);
        }
        (lcs, self.has_common && MAX_CHAIN < self.cnt)
    }

    /// `try_lcs`: the runs through new line `b_ptr`; returns the next new
    /// line to try.
    fn try_lcs(&mut self, lcs: &mut Lcs, b_ptr: u32, [line1, count1, line2, count2]: [u32; 4]) -> u32 {
        let mut b_next = b_ptr + 1;
        let rec = self
            .b
            .get(b_ptr as usize)
            .and_then(|t| self.by_token.get(t.0 as usize))
            .and_then(|&r| self.records.get(r as usize))
            .copied();
        let Some(rec) = rec else { return b_next };
        if rec.cnt > self.cnt {
            self.has_common = true;
            return b_next;
        }
        self.has_common = true;
        let (end1, end2) = (line1 + count1 - 1, line2 + count2 - 1);
        let mut as_ = rec.ptr;
        loop {
            let mut np = self.next_of(as_);
            let mut bs = b_ptr;
            let mut ae = as_;
            let mut be = bs;
            let mut rc = rec.cnt;
            while line1 < as_ && line2 < bs && self.same(as_ - 1, bs - 1) {
                as_ -= 1;
                bs -= 1;
                if 1 < rc {
                    rc = rc.min(self.count_at(as_));
                }
            }
            while ae < end1 && be < end2 && self.same(ae + 1, be + 1) {
                ae += 1;
                be += 1;
                if 1 < rc {
                    rc = rc.min(self.count_at(ae));
                }
            }
            if b_next <= be {
                b_next = be + 1;
            }
            if lcs.end1 - lcs.begin1 < ae - as_ || rc < self.cnt {
                *lcs = Lcs {
                    begin1: as_,
                    end1: ae,
                    begin2: bs,
                    end2: be,
                    found: true,
                };
                self.cnt = rc;
            }
            if np == NONE {
                break;
            }
            while np <= ae {
                np = self.next_of(np);
                if np == NONE {
                    return b_next;
                }
            }
            as_ = np;
        }
        b_next
    }
}
