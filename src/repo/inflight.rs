//! Lock files gix creates while git-t3 writes (`<ref>.lock`,
//! `packed-refs.lock`, `index.lock`): recorded before the write, so that a
//! git-t3 process killed while holding them does not block every later
//! capture, revert and `git add`.
//!
//! Before such a write, [`begin`] records the lock files it may create in
//! `<common dir>/t3/inflight`; the record is removed when the write is done.
//! Whoever takes the repository lock next knows that no git-t3 process is
//! writing (the lock is held by no one else), so a record still there was
//! left by a killed process: [`recover`] removes the lock files it names that
//! were created within seconds after the record — never an older one, nor
//! one a later git command created.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::error::Result;

/// How long after the record a lock file counts as ours.
const WINDOW: Duration = Duration::from_secs(10);

/// A write in flight; its record is removed on drop.
#[derive(Debug)]
pub struct InFlight {
    record: PathBuf,
}

fn record_path(common_dir: &Path) -> PathBuf {
    common_dir.join("t3").join("inflight")
}

/// Record that the lock files `locks` may be created until the returned
/// value is dropped. The caller holds the repository lock.
pub fn begin(common_dir: &Path, locks: &[PathBuf]) -> Result<InFlight> {
    let record = record_path(common_dir);
    let mut text = String::new();
    // Absolute: the next holder may run from another directory.
    for l in locks {
        let l = std::path::absolute(l).unwrap_or_else(|_| l.clone());
        text.push_str(&l.to_string_lossy());
        text.push('\n');
    }
    crate::atomic::write(&record, text.as_bytes(), None, crate::atomic::Durability::Cache)?;
    Ok(InFlight { record })
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.record);
    }
}

/// Remove the lock files a killed git-t3 process left behind (see the
/// module docs); returns them. Called with the repository lock held.
pub fn recover(common_dir: &Path) -> Vec<PathBuf> {
    let record = record_path(common_dir);
    let Ok(meta) = std::fs::metadata(&record) else {
        return Vec::new();
    };
    let written = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
    let text = crate::fsread::read_regular(&record, false)
        .ok()
        .and_then(|d| String::from_utf8(d).ok())
        .unwrap_or_default();
    let mut removed = Vec::new();
    for line in text.lines().filter(|l| l.ends_with(".lock")) {
        let lock = PathBuf::from(line);
        let ours = std::fs::symlink_metadata(&lock)
            .ok()
            .filter(|m| m.is_file())
            .and_then(|m| m.modified().ok())
            .is_some_and(|t| t + Duration::from_secs(1) >= written && t <= written + WINDOW);
        if ours && std::fs::remove_file(&lock).is_ok() {
            removed.push(lock);
        }
    }
    let _ = std::fs::remove_file(&record);
    removed
}
