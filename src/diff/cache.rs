//! Summaries already computed, by `(from tree, to tree, whitespace mode)`.
//!
//! Trees are content-addressed and counting is deterministic, so an entry can
//! never go stale; the directory name carries a version for changes to the
//! counting itself. Capture fills in its own turn (the blobs are at hand
//! then), so reviewing the latest turn costs one small read, whatever its size.

use std::path::PathBuf;

use gix::ObjectId;

use crate::model::note::FileChange;

/// Changes when counting does, so old entries are never read (v3: empty
/// files are renamed, as git's `rename_empty`).
const VERSION: &str = "summaries-v3";
/// Entries kept; older ones are pruned now and then.
const KEEP: usize = 2048;
/// Bytes the entries may take in all (a summary of 100,000 files is a few
/// MiB); the oldest go first.
const KEEP_BYTES: u64 = 64 << 20;

/// The entry of one summary.
fn path(repo: &gix::Repository, from: ObjectId, to: ObjectId, ignore_whitespace: bool) -> PathBuf {
    let mode = if ignore_whitespace { "w" } else { "exact" };
    dir_of(repo).join(format!("{from}-{to}.{mode}.json"))
}

/// The directory of the entries.
fn dir_of(repo: &gix::Repository) -> PathBuf {
    crate::repo::t3_common_dir(repo).join(VERSION)
}

/// The cached summary, if any (an unreadable entry is a miss).
pub fn get(
    repo: &gix::Repository,
    from: ObjectId,
    to: ObjectId,
    ignore_whitespace: bool,
) -> Option<Vec<FileChange>> {
    let data = crate::fsread::read_regular(&path(repo, from, to, ignore_whitespace), false).ok()?;
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
    if let Some(entry) = entry(repo, from, to, ignore_whitespace, files)
        && entry.write()
    {
        prune_now_and_then(&dir_of(repo), to);
    }
}

/// [`put`] of summaries of `from` → `to` (each with whether it ignores
/// whitespace) on another thread, so that a capture writes its pack
/// meanwhile: they are written when the returned handle is dropped.
pub fn put_behind(
    repo: &gix::Repository,
    from: ObjectId,
    to: ObjectId,
    summaries: &[(bool, &[FileChange])],
) -> Behind {
    let entries: Vec<Entry> = summaries
        .iter()
        .filter_map(|(ignore_whitespace, files)| entry(repo, from, to, *ignore_whitespace, files))
        .collect();
    let dir = dir_of(repo);
    let thread = std::thread::Builder::new()
        .name("t3-summary-cache".into())
        .spawn(move || {
            // Pruned once for all of them.
            let written = entries.into_iter().map(Entry::write).filter(|ok| *ok).count();
            if written > 0 {
                prune_now_and_then(&dir, to);
            }
        })
        .ok();
    Behind(thread)
}

/// Summaries being written by [`put_behind`]; dropping it waits for them.
#[derive(Debug, Default)]
pub struct Behind(Option<std::thread::JoinHandle<()>>);

impl Drop for Behind {
    fn drop(&mut self) {
        if let Some(thread) = self.0.take() {
            let _ = thread.join();
        }
    }
}

/// One summary, serialized, and where it goes.
struct Entry {
    target: PathBuf,
    data: Vec<u8>,
}

fn entry(
    repo: &gix::Repository,
    from: ObjectId,
    to: ObjectId,
    ignore_whitespace: bool,
    files: &[FileChange],
) -> Option<Entry> {
    Some(Entry {
        target: path(repo, from, to, ignore_whitespace),
        data: serde_json::to_vec(files).ok()?,
    })
}

impl Entry {
    /// Write it; whether that worked.
    fn write(self) -> bool {
        crate::atomic::write(&self.target, &self.data, None, crate::atomic::Durability::Cache).is_ok()
    }
}

/// Prune `dir` now and then (after about one write of summaries to `to`
/// in 64), oldest first.
fn prune_now_and_then(dir: &std::path::Path, to: ObjectId) {
    if to.as_bytes().first().is_some_and(|b| b % 64 == 0) {
        prune(dir);
    }
}

/// Bound the cache now (what `prune` does): entries beyond [`KEEP`] or
/// [`KEEP_BYTES`] go, oldest first, and so do the directories of older
/// versions. Returns how many files were removed.
pub fn trim(repo: &gix::Repository) -> usize {
    let root = crate::repo::t3_common_dir(repo);
    let mut removed = 0;
    if let Ok(entries) = std::fs::read_dir(&root) {
        for e in entries.filter_map(|e| e.ok()) {
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with("summaries-") && name != VERSION && e.path().is_dir() {
                removed += std::fs::read_dir(e.path()).map_or(0, |d| d.count());
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    removed + prune(&root.join(VERSION))
}

/// Delete the oldest entries beyond [`KEEP`] entries or [`KEEP_BYTES`].
fn prune(dir: &std::path::Path) -> usize {
    prune_to(dir, KEEP, KEEP_BYTES)
}

/// Delete the oldest entries of `dir` beyond `keep` entries or `keep_bytes`.
fn prune_to(dir: &std::path::Path, keep: usize, keep_bytes: u64) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut all: Vec<_> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let m = e.metadata().ok()?;
            Some((m.modified().ok()?, m.len(), e.path()))
        })
        .collect();
    // Newest first: keep while within both bounds.
    all.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut bytes = 0u64;
    let mut removed = 0;
    for (i, (_, len, path)) in all.iter().enumerate() {
        bytes = bytes.saturating_add(*len);
        if (i >= keep || bytes > keep_bytes) && std::fs::remove_file(path).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    #[test]
    fn pruning_keeps_the_newest_within_both_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        for i in 0..6u64 {
            let p = dir.path().join(format!("{i}.json"));
            std::fs::write(&p, vec![b'x'; 100]).unwrap();
            // 0 is the oldest, 5 the newest.
            std::fs::File::options()
                .write(true)
                .open(&p)
                .unwrap()
                .set_modified(now - Duration::from_secs(100 - i))
                .unwrap();
        }
        let left = |d: &std::path::Path| {
            let mut v: Vec<String> = std::fs::read_dir(d)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            v.sort();
            v
        };
        assert_eq!(super::prune_to(dir.path(), 4, u64::MAX), 2);
        assert_eq!(left(dir.path()), ["2.json", "3.json", "4.json", "5.json"]);
        assert_eq!(super::prune_to(dir.path(), 10, 250), 2);
        assert_eq!(left(dir.path()), ["4.json", "5.json"]);
        assert_eq!(super::prune_to(dir.path(), 10, 250), 0);
    }
}
