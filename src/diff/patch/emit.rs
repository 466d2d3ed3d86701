//! Which changes make up each hunk and how far its context reaches, as
//! git's `xemit.c` decides: changes closer than twice the context (plus
//! `--inter-hunk-context`) share a hunk; with `--ignore-blank-lines`,
//! changes of blank lines only are left out unless they sit within the
//! context of another; with `--function-context` (`-W`), a hunk grows to the
//! whole function around it, git's way (function lines as [`Funcs`] finds
//! them).

use super::funcs::Funcs;

/// One change: `chg1` old lines from `i1` replaced by `chg2` new lines from
/// `i2`; `ignore` when all of them are blank (`--ignore-blank-lines`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Change {
    pub i1: isize,
    pub chg1: isize,
    pub i2: isize,
    pub chg2: isize,
    pub ignore: bool,
}

/// How hunks are cut.
#[derive(Debug, Clone, Copy)]
pub(super) struct Conf {
    pub context: isize,
    pub inter_hunk: isize,
    pub function_context: bool,
}

/// One hunk: old lines `s1..e1`, new lines `s2..e2`, made of the changes
/// `first..=last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    pub s1: isize,
    pub e1: isize,
    pub s2: isize,
    pub e2: isize,
    pub first: usize,
    pub last: usize,
}

/// xdiff's `is_empty_rec`: nothing but whitespace.
fn is_empty(line: &[u8]) -> bool {
    line.iter().all(|b| crate::diff::space::is_git_space(*b))
}

/// The old and new lines of a diff, and how function lines are found.
pub(super) struct Sides<'a> {
    pub old: &'a [&'a [u8]],
    pub new: &'a [&'a [u8]],
    pub funcs: Funcs<'a>,
}

impl Sides<'_> {
    fn nrec1(&self) -> isize {
        self.old.len() as isize
    }

    fn nrec2(&self) -> isize {
        self.new.len() as isize
    }

    fn old_at(&self, i: isize) -> &[u8] {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.old.get(i))
            .copied()
            .unwrap_or_default()
    }

    fn new_at(&self, i: isize) -> &[u8] {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.new.get(i))
            .copied()
            .unwrap_or_default()
    }

    /// `get_func_line`: the first old function line from `start` towards
    /// `limit` (not included), or -1.
    fn func_line(&self, start: isize, limit: isize) -> isize {
        let step = if start > limit { -1 } else { 1 };
        let mut l = start;
        while l != limit && 0 <= l && l < self.nrec1() {
            if self.funcs.is_func(self.old_at(l)) {
                return l;
            }
            l += step;
        }
        -1
    }
}

/// `xdl_get_hunk`: from change `*start` (moved past ignorable changes too
/// far from the next), the last change of the hunk.
fn get_hunk(changes: &[Change], start: &mut usize, conf: &Conf) -> Option<usize> {
    let max_common = 2 * conf.context + conf.inter_hunk;
    let max_ignorable = conf.context;
    let end = |c: &Change| c.i1 + c.chg1;
    let mut p = *start;
    while let Some(c) = changes.get(p).filter(|c| c.ignore) {
        let next = p + 1;
        if changes.get(next).is_none_or(|n| n.i1 - end(c) >= max_ignorable) {
            *start = next;
        }
        p = next;
    }
    changes.get(*start)?;
    let (mut last, mut prev) = (*start, *start);
    let mut ignored = 0;
    for (x, c) in changes.iter().enumerate().skip(*start + 1) {
        let (Some(pc), Some(lc)) = (changes.get(prev), changes.get(last)) else {
            break;
        };
        let distance = c.i1 - end(pc);
        if distance > max_common {
            break;
        }
        if distance < max_ignorable && (!c.ignore || last == prev) {
            last = x;
            ignored = 0;
        } else if distance < max_ignorable && c.ignore {
            ignored += c.chg2;
        } else if last != prev && c.i1 + ignored - end(lc) > max_common {
            break;
        } else if !c.ignore {
            last = x;
            ignored = 0;
        } else {
            ignored += c.chg2;
        }
        prev = x;
    }
    Some(last)
}

/// The hunks of `changes` (`xdl_emit_diff` without the printing).
pub(super) fn spans(changes: &[Change], sides: &Sides<'_>, conf: &Conf) -> Vec<Span> {
    let mut out = Vec::new();
    let mut x = 0;
    while x < changes.len() {
        let mut xchp = x;
        let mut xch = x;
        let Some(mut xche) = get_hunk(changes, &mut xch, conf) else {
            break;
        };
        let (s1, s2) = loop {
            let Some(c) = changes.get(xch) else { return out };
            let (mut s1, mut s2) = ((c.i1 - conf.context).max(0), (c.i2 - conf.context).max(0));
            if !conf.function_context {
                break (s1, s2);
            }
            let mut i1 = c.i1;
            if i1 >= sides.nrec1() {
                // A whole function added needs no more context.
                if (c.i2..sides.nrec2()).any(|i2| sides.funcs.is_func(sides.new_at(i2))) {
                    break (s1, s2);
                }
                i1 = sides.nrec1() - 1;
            }
            let mut fs1 = sides.func_line(i1, -1);
            while fs1 > 0 && !is_empty(sides.old_at(fs1 - 1)) && !sides.funcs.is_func(sides.old_at(fs1 - 1)) {
                fs1 -= 1;
            }
            let fs1 = fs1.max(0);
            if fs1 < s1 {
                s2 = (s2 - (s1 - fs1)).max(0);
                s1 = fs1;
                // Grown into an ignored change? Then show it after all.
                while xchp != xch
                    && changes
                        .get(xchp)
                        .is_some_and(|p| p.i1 + p.chg1 <= s1 && p.i2 + p.chg2 <= s2)
                {
                    xchp += 1;
                }
                if xchp != xch {
                    xch = xchp;
                    continue;
                }
            }
            break (s1, s2);
        };
        let (e1, e2) = loop {
            let Some(c) = changes.get(xche) else { return out };
            let lctx = conf
                .context
                .min(sides.nrec1() - (c.i1 + c.chg1))
                .min(sides.nrec2() - (c.i2 + c.chg2));
            let (mut e1, mut e2) = (c.i1 + c.chg1 + lctx, c.i2 + c.chg2 + lctx);
            if conf.function_context {
                let mut fe1 = sides.func_line(c.i1 + c.chg1, sides.nrec1());
                while fe1 > 0 && is_empty(sides.old_at(fe1 - 1)) {
                    fe1 -= 1;
                }
                if fe1 < 0 {
                    fe1 = sides.nrec1();
                }
                if fe1 > e1 {
                    e2 = (e2 + (fe1 - e1)).min(sides.nrec2());
                    e1 = fe1;
                }
                // Overlapping the next change: it joins, and the end is found again.
                if let Some(next) = changes.get(xche + 1) {
                    let l = next.i1.min(sides.nrec1() - 1);
                    if l - conf.context <= e1 || sides.func_line(l, e1) < 0 {
                        xche += 1;
                        continue;
                    }
                }
            }
            break (e1, e2);
        };
        out.push(Span {
            s1,
            e1,
            s2,
            e2,
            first: xch,
            last: xche,
        });
        x = xche + 1;
    }
    out
}
