//! xdiff's preparation of two files for its Myers search (`xprepare.c`):
//! the ends both share are trimmed, and lines the other file lacks, or
//! frequent lines amid those, are set aside as changed before the search.

use gix::diff::blob::Token;

use super::Mode;

/// xdiff's `XDL_MAX_EQLIMIT`: a line occurring this often in the other file
/// (or its square root of lines) is "frequent".
const MAX_EQLIMIT: usize = 1024;
/// `XDL_SIMSCAN_WINDOW`: how far the pre-pass looks around a frequent line.
const SIMSCAN_WINDOW: usize = 100;
/// `XDL_KPDIS_RUN`.
const KPDIS_RUN: usize = 4;

/// `xdl_bogosqrt`.
pub(super) fn bogosqrt(mut n: usize) -> usize {
    let mut i = 1;
    while n > 0 {
        i <<= 1;
        n >>= 2;
    }
    i
}

/// xdiff's `xdl_trim_ends` and `xdl_cleanup_records`: marks the lines set
/// aside, returns the positions of the lines left to search on each side.
pub(super) fn prepare(
    before: &[Token],
    after: &[Token],
    num_tokens: u32,
    mode: Mode,
    removed: &mut [bool],
    added: &mut [bool],
) -> (Vec<usize>, Vec<usize>) {
    let mut in1 = vec![0usize; num_tokens as usize];
    let mut in2 = vec![0usize; num_tokens as usize];
    for t in before {
        if let Some(c) = in1.get_mut(t.0 as usize) {
            *c += 1;
        }
    }
    for t in after {
        if let Some(c) = in2.get_mut(t.0 as usize) {
            *c += 1;
        }
    }
    let shorter = before.len().min(after.len());
    let start = before.iter().zip(after).take_while(|(a, b)| a == b).count();
    let tail = before
        .iter()
        .rev()
        .zip(after.iter().rev())
        .take(shorter - start)
        .take_while(|(a, b)| a == b)
        .count();
    let limit = |n: usize| {
        if mode.frequency_limit {
            bogosqrt(n).min(MAX_EQLIMIT)
        } else {
            usize::MAX
        }
    };
    let side = |tokens: &[Token], other: &[usize], marks: &mut [bool]| {
        let end = tokens.len() - tail;
        let mlim = limit(tokens.len());
        // 0: not in the other file, 1: in it, 2: frequent in it.
        let dis: Vec<u8> = (0..tokens.len())
            .map(|i| {
                if i < start || i >= end {
                    return 0;
                }
                let nm = tokens
                    .get(i)
                    .and_then(|t| other.get(t.0 as usize))
                    .copied()
                    .unwrap_or(0);
                if nm == 0 {
                    0
                } else if nm >= mlim {
                    2
                } else {
                    1
                }
            })
            .collect();
        let mut kept = Vec::new();
        for i in start..end {
            let keep = match dis.get(i) {
                Some(1) => true,
                Some(2) => !clean_mmatch(&dis, i, start, end.saturating_sub(1)),
                _ => false,
            };
            if keep {
                kept.push(i);
            } else if let Some(m) = marks.get_mut(i) {
                *m = true;
            }
        }
        kept
    };
    let kept1 = side(before, &in2, removed);
    let kept2 = side(after, &in1, added);
    (kept1, kept2)
}

/// `xdl_clean_mmatch`: whether frequent line `i` sits amid lines with no
/// match, so that it is better set aside.
fn clean_mmatch(dis: &[u8], i: usize, s: usize, e: usize) -> bool {
    let s = s.max(i.saturating_sub(SIMSCAN_WINDOW));
    let e = e.min(i + SIMSCAN_WINDOW);
    let at = |k: usize| dis.get(k).copied().unwrap_or(0);
    let (mut rdis0, mut rpdis0) = (0usize, 1usize);
    let mut r = 1;
    while i >= r && i - r >= s {
        match at(i - r) {
            0 => rdis0 += 1,
            2 => rpdis0 += 1,
            _ => break,
        }
        r += 1;
    }
    if rdis0 == 0 {
        return false;
    }
    let (mut rdis1, mut rpdis1) = (0usize, 1usize);
    let mut r = 1;
    while i + r <= e {
        match at(i + r) {
            0 => rdis1 += 1,
            2 => rpdis1 += 1,
            _ => break,
        }
        r += 1;
    }
    if rdis1 == 0 {
        return false;
    }
    let (rdis, rpdis) = (rdis1 + rdis0, rpdis1 + rpdis0);
    rpdis * KPDIS_RUN < rpdis + rdis
}
