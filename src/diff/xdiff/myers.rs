//! xdiff's Myers diff, line for line as git's `xdiffi.c` and `xprepare.c`
//! compute it: the ends both files share are trimmed, lines the other file
//! lacks (and frequent lines amid them) are set aside by the pre-pass, and
//! the rest is split at middle snakes, with the cost cut-offs unless
//! `minimal` is asked for.
//!
//! gix's port is used for git's default diff; this one exists for
//! `--minimal`, whose meaning changed in git 2.50 (before it, the pre-pass
//! kept its frequency limit; since, it has none), and for the fallback of
//! the histogram diff, which must be xdiff's own.

use gix::diff::blob::Token;

use super::Mode;
use super::prepare::{bogosqrt, prepare};

/// `XDL_MAX_COST_MIN`, `XDL_HEUR_MIN_COST`, `XDL_SNAKE_CNT`, `XDL_K_HEUR`.
const MAX_COST_MIN: isize = 256;
const HEUR_MIN_COST: isize = 256;
const SNAKE_CNT: isize = 20;
const K_HEUR: isize = 4;

/// The lines of `before` removed and of `after` added, as xdiff's Myers
/// diff marks them (before hunks are slid into place).
pub fn diff(before: &[Token], after: &[Token], num_tokens: u32, mode: Mode) -> (Vec<bool>, Vec<bool>) {
    let mut removed = vec![false; before.len()];
    let mut added = vec![false; after.len()];
    let (kept1, kept2) = prepare(before, after, num_tokens, mode, &mut removed, &mut added);
    let ha1: Vec<Token> = kept1.iter().filter_map(|&i| before.get(i).copied()).collect();
    let ha2: Vec<Token> = kept2.iter().filter_map(|&i| after.get(i).copied()).collect();
    let mut search = Search::new(&ha1, &ha2, mode.minimal);
    let mut boxes = vec![(0, ha1.len() as isize, 0, ha2.len() as isize, mode.minimal)];
    while let Some((mut off1, mut lim1, mut off2, mut lim2, need_min)) = boxes.pop() {
        while off1 < lim1 && off2 < lim2 && search.same(off1, off2) {
            off1 += 1;
            off2 += 1;
        }
        while off1 < lim1 && off2 < lim2 && search.same(lim1 - 1, lim2 - 1) {
            lim1 -= 1;
            lim2 -= 1;
        }
        if off1 == lim1 {
            mark(&mut added, &kept2, off2..lim2);
        } else if off2 == lim2 {
            mark(&mut removed, &kept1, off1..lim1);
        } else {
            let s = search.split(off1, lim1, off2, lim2, need_min);
            boxes.push((s.i1, lim1, s.i2, lim2, s.min_hi));
            boxes.push((off1, s.i1, off2, s.i2, s.min_lo));
        }
    }
    (removed, added)
}

/// Mark the lines `kept[range]` stand for.
fn mark(marks: &mut [bool], kept: &[usize], range: std::ops::Range<isize>) {
    let range = range.start.max(0) as usize..range.end.max(0) as usize;
    for &i in kept.get(range).unwrap_or_default() {
        if let Some(m) = marks.get_mut(i) {
            *m = true;
        }
    }
}

/// Where `xdl_split` cut a box, and whether each half must be minimal.
struct Split {
    i1: isize,
    i2: isize,
    min_lo: bool,
    min_hi: bool,
}

/// The searched lines and the two k-vectors of `xdl_split`.
struct Search<'a> {
    ha1: &'a [Token],
    ha2: &'a [Token],
    kvdf: Vec<isize>,
    kvdb: Vec<isize>,
    /// Where diagonal 0 sits in the vectors.
    zero: isize,
    mxcost: isize,
}

impl<'a> Search<'a> {
    fn new(ha1: &'a [Token], ha2: &'a [Token], _minimal: bool) -> Self {
        let ndiags = ha1.len() + ha2.len() + 3;
        Search {
            ha1,
            ha2,
            kvdf: vec![-1; ndiags],
            kvdb: vec![isize::MAX; ndiags],
            zero: ha2.len() as isize + 1,
            mxcost: (bogosqrt(ndiags) as isize).max(MAX_COST_MIN),
        }
    }

    fn same(&self, i1: isize, i2: isize) -> bool {
        let a = usize::try_from(i1).ok().and_then(|i| self.ha1.get(i));
        let b = usize::try_from(i2).ok().and_then(|i| self.ha2.get(i));
        a.is_some() && a == b
    }

    fn f(&self, d: isize) -> isize {
        usize::try_from(d + self.zero)
            .ok()
            .and_then(|i| self.kvdf.get(i))
            .copied()
            .unwrap_or(-1)
    }

    fn b(&self, d: isize) -> isize {
        usize::try_from(d + self.zero)
            .ok()
            .and_then(|i| self.kvdb.get(i))
            .copied()
            .unwrap_or(isize::MAX)
    }

    fn set_f(&mut self, d: isize, v: isize) {
        if let Some(slot) = usize::try_from(d + self.zero)
            .ok()
            .and_then(|i| self.kvdf.get_mut(i))
        {
            *slot = v;
        }
    }

    fn set_b(&mut self, d: isize, v: isize) {
        if let Some(slot) = usize::try_from(d + self.zero)
            .ok()
            .and_then(|i| self.kvdb.get_mut(i))
        {
            *slot = v;
        }
    }

    /// `xdl_split`: the middle snake of box `off1..lim1` × `off2..lim2`.
    #[allow(clippy::too_many_lines)]
    fn split(&mut self, off1: isize, lim1: isize, off2: isize, lim2: isize, need_min: bool) -> Split {
        let (dmin, dmax) = (off1 - lim2, lim1 - off2);
        let (fmid, bmid) = (off1 - off2, lim1 - lim2);
        let odd = (fmid - bmid) & 1 != 0;
        let (mut fmin, mut fmax, mut bmin, mut bmax) = (fmid, fmid, bmid, bmid);
        self.set_f(fmid, off1);
        self.set_b(bmid, lim1);
        let mut ec: isize = 1;
        loop {
            let mut got_snake = false;
            if fmin > dmin {
                fmin -= 1;
                self.set_f(fmin - 1, -1);
            } else {
                fmin += 1;
            }
            if fmax < dmax {
                fmax += 1;
                self.set_f(fmax + 1, -1);
            } else {
                fmax -= 1;
            }
            let mut d = fmax;
            while d >= fmin {
                let mut i1 = if self.f(d - 1) >= self.f(d + 1) {
                    self.f(d - 1) + 1
                } else {
                    self.f(d + 1)
                };
                let prev1 = i1;
                let mut i2 = i1 - d;
                while i1 < lim1 && i2 < lim2 && self.same(i1, i2) {
                    i1 += 1;
                    i2 += 1;
                }
                if i1 - prev1 > SNAKE_CNT {
                    got_snake = true;
                }
                self.set_f(d, i1);
                if odd && bmin <= d && d <= bmax && self.b(d) <= i1 {
                    return Split {
                        i1,
                        i2,
                        min_lo: true,
                        min_hi: true,
                    };
                }
                d -= 2;
            }
            if bmin > dmin {
                bmin -= 1;
                self.set_b(bmin - 1, isize::MAX);
            } else {
                bmin += 1;
            }
            if bmax < dmax {
                bmax += 1;
                self.set_b(bmax + 1, isize::MAX);
            } else {
                bmax -= 1;
            }
            let mut d = bmax;
            while d >= bmin {
                let mut i1 = if self.b(d - 1) < self.b(d + 1) {
                    self.b(d - 1)
                } else {
                    self.b(d + 1) - 1
                };
                let prev1 = i1;
                let mut i2 = i1 - d;
                while i1 > off1 && i2 > off2 && self.same(i1 - 1, i2 - 1) {
                    i1 -= 1;
                    i2 -= 1;
                }
                if prev1 - i1 > SNAKE_CNT {
                    got_snake = true;
                }
                self.set_b(d, i1);
                if !odd && fmin <= d && d <= fmax && i1 <= self.f(d) {
                    return Split {
                        i1,
                        i2,
                        min_lo: true,
                        min_hi: true,
                    };
                }
                d -= 2;
            }
            if !need_min {
                if got_snake && ec > HEUR_MIN_COST {
                    if let Some(s) = self.forward_snake(ec, [off1, lim1, off2, lim2], fmin, fmax, fmid) {
                        return s;
                    }
                    if let Some(s) = self.backward_snake(ec, [off1, lim1, off2, lim2], bmin, bmax, bmid) {
                        return s;
                    }
                }
                if ec >= self.mxcost {
                    return self.furthest([off1, lim1, off2, lim2], [fmin, fmax, bmin, bmax]);
                }
            }
            ec += 1;
        }
    }

    /// The heuristic's "interesting" forward path, if any.
    fn forward_snake(
        &self,
        ec: isize,
        [off1, lim1, off2, lim2]: [isize; 4],
        fmin: isize,
        fmax: isize,
        fmid: isize,
    ) -> Option<Split> {
        let mut best = 0;
        let mut at = None;
        let mut d = fmax;
        while d >= fmin {
            let dd = (d - fmid).abs();
            let i1 = self.f(d);
            let i2 = i1 - d;
            let v = (i1 - off1) + (i2 - off2) - dd;
            if v > K_HEUR * ec
                && v > best
                && off1 + SNAKE_CNT <= i1
                && i1 < lim1
                && off2 + SNAKE_CNT <= i2
                && i2 < lim2
            {
                let mut k = 1;
                while self.same(i1 - k, i2 - k) {
                    if k == SNAKE_CNT {
                        best = v;
                        at = Some((i1, i2));
                        break;
                    }
                    k += 1;
                }
            }
            d -= 2;
        }
        at.map(|(i1, i2)| Split {
            i1,
            i2,
            min_lo: true,
            min_hi: false,
        })
    }

    /// The heuristic's "interesting" backward path, if any.
    fn backward_snake(
        &self,
        ec: isize,
        [off1, lim1, off2, lim2]: [isize; 4],
        bmin: isize,
        bmax: isize,
        bmid: isize,
    ) -> Option<Split> {
        let mut best = 0;
        let mut at = None;
        let mut d = bmax;
        while d >= bmin {
            let dd = (d - bmid).abs();
            let i1 = self.b(d);
            let i2 = i1 - d;
            let v = (lim1 - i1) + (lim2 - i2) - dd;
            if v > K_HEUR * ec
                && v > best
                && off1 < i1
                && i1 <= lim1 - SNAKE_CNT
                && off2 < i2
                && i2 <= lim2 - SNAKE_CNT
            {
                let mut k = 0;
                while self.same(i1 + k, i2 + k) {
                    if k == SNAKE_CNT - 1 {
                        best = v;
                        at = Some((i1, i2));
                        break;
                    }
                    k += 1;
                }
            }
            d -= 2;
        }
        at.map(|(i1, i2)| Split {
            i1,
            i2,
            min_lo: false,
            min_hi: true,
        })
    }

    /// "Enough is enough": the furthest reaching path either way.
    fn furthest(&self, [off1, lim1, off2, lim2]: [isize; 4], [fmin, fmax, bmin, bmax]: [isize; 4]) -> Split {
        let (mut fbest, mut fbest1) = (-1, -1);
        let mut d = fmax;
        while d >= fmin {
            let mut i1 = self.f(d).min(lim1);
            let mut i2 = i1 - d;
            if lim2 < i2 {
                i1 = lim2 + d;
                i2 = lim2;
            }
            if fbest < i1 + i2 {
                fbest = i1 + i2;
                fbest1 = i1;
            }
            d -= 2;
        }
        let (mut bbest, mut bbest1) = (isize::MAX, isize::MAX);
        let mut d = bmax;
        while d >= bmin {
            let mut i1 = off1.max(self.b(d));
            let mut i2 = i1 - d;
            if i2 < off2 {
                i1 = off2 + d;
                i2 = off2;
            }
            if i1 + i2 < bbest {
                bbest = i1 + i2;
                bbest1 = i1;
            }
            d -= 2;
        }
        if (lim1 + lim2) - bbest < fbest - (off1 + off2) {
            Split {
                i1: fbest1,
                i2: fbest - fbest1,
                min_lo: true,
                min_hi: false,
            }
        } else {
            Split {
                i1: bbest1,
                i2: bbest - bbest1,
                min_lo: false,
                min_hi: true,
            }
        }
    }
}
