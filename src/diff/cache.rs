//! Summaries already computed, by `(from tree, to tree, whitespace mode)`.
//!
//! Trees are content-addressed and counting is deterministic, so an entry can
//! never go stale; the directory name carries a version for changes to the
//! counting itself. Capture fills in its own turn (the blobs are at hand
//! then), so reviewing the latest turn costs one small read, whatever its size.

use std::path::PathBuf;

use gix::ObjectId;

use crate::model::note::FileChange;

/// Changes when counting does, so old entries are never read.
const VERSION: &str = "summaries-v2";
/// Entries kept; older ones are pruned now and then.
const KEEP: usize = 2048;

/// The entry of one summary.
fn path(repo: &gix::Repository, from: ObjectId, to: ObjectId, ignore_whitespace: bool) -> PathBuf {
    let mode = if ignore_whitespace { "w" } else { "exact" };
    crate::repo::t3_common_dir(repo)
        .join(VERSION)
        .join(format!("{from}-{to}.{mode}.json"))
}

/// The cached summary, if any (an unreadable entry is a miss).
pub fn get(
    repo: &gix::Repository,
    from: ObjectId,
    to: ObjectId,
    ignore_whitespace: bool,
) -> Option<Vec<FileChange>> {
    let data = std::fs::read(path(repo, from, to, ignore_whitespace)).ok()?;
    serde_json::from_slice(&data).ok()
}

/// Remember a summary; failures only cost a later recomputation.
pub fn put(
    repo: &gix::Repository,
    from: ObjectId,
    to: ObjectId,
    ignore_whitespace: bool,
    files: &[FileChange],
) {
    let target = path(repo, from, to, ignore_whitespace);
    let Some(dir) = target.parent() else { return };
    let Ok(data) = serde_json::to_vec(files) else {
        return;
    };
    if crate::atomic::write(&target, &data, None, crate::atomic::Durability::Cache).is_err() {
        return;
    }
    // Prune now and then (about one write in 64), oldest first.
    if to.as_bytes().first().is_some_and(|b| b % 64 == 0) {
        prune(dir);
    }
}

/// Delete the oldest entries beyond [`KEEP`].
fn prune(dir: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut all: Vec<_> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    if all.len() <= KEEP {
        return;
    }
    all.sort();
    for (_, p) in &all[..all.len() - KEEP] {
        let _ = std::fs::remove_file(p);
    }
}
