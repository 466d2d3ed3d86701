//! Ports of git's own xdiff algorithms where gix's differ from them: the
//! Myers search of `--minimal` and the histogram diff. Each marks the lines
//! removed and added; hunks are then slid into place like any other diff's.

pub mod histogram;
pub mod myers;
mod prepare;

#[cfg(test)]
mod tests;

/// How the search runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    /// No cost cut-off: xdiff's `XDF_NEED_MINIMAL`.
    pub minimal: bool,
    /// The pre-pass sets frequent lines aside (always, before git 2.50;
    /// since, only without `minimal`).
    pub frequency_limit: bool,
}

/// xdiff-interface's `trim_common_tail` for a diff without context: whole
/// 1024-byte blocks both sides end with are left out, less the part up to
/// the first newline in them. How many bytes to drop from each side.
pub fn common_tail(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 1024;
    let smaller = a.len().min(b.len());
    let mut trimmed = 0;
    while BLOCK + trimmed <= smaller
        && a[a.len() - trimmed - BLOCK..a.len() - trimmed] == b[b.len() - trimmed - BLOCK..b.len() - trimmed]
    {
        trimmed += BLOCK;
    }
    let tail = &a[a.len() - trimmed..];
    let recovered = tail.iter().position(|c| *c == b'\n').map_or(trimmed, |i| i + 1);
    trimmed - recovered
}

/// xdiff's Myers of one region (`xdl_fall_back_diff`: the region diffed
/// as files of their own, its pre-pass counting only their lines), its
/// marks written into `removed` and `added` (the region's own slices).
pub fn myers_into(
    scratch: &mut gix::diff::blob::Diff,
    (old, new): (&[gix::diff::blob::Token], &[gix::diff::blob::Token]),
    num_tokens: u32,
    removed: &mut [bool],
    added: &mut [bool],
) {
    scratch.compute_with(gix::diff::blob::Algorithm::Myers, old, new, num_tokens);
    for (k, m) in removed.iter_mut().enumerate() {
        *m = scratch.is_removed(k as u32);
    }
    for (k, m) in added.iter_mut().enumerate() {
        *m = scratch.is_added(k as u32);
    }
}
