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
    // Written in place, and emptied when done rather than removed: no new
    // file (an inode to allocate, a rename) for every ref update. A torn
    // record only names fewer lock files.
    if write_in_place(&record, text.as_bytes()).is_err() {
        crate::atomic::write(&record, text.as_bytes(), None, crate::atomic::Durability::Cache)?;
    }
    Ok(InFlight { record })
}

/// Overwrite the regular file `path` (created when missing) with `data`;
/// anything else there (a FIFO, a symlink) is an error.
fn write_in_place(path: &Path, data: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    // Emptied first: a record cut short never names an older write's locks.
    f.set_len(0)?;
    f.write_all(data)
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if write_in_place(&self.record, b"").is_err() {
            let _ = std::fs::remove_file(&self.record);
        }
    }
}

/// Remove the lock files a killed git-t3 process left behind (see the
/// module docs); returns them. Called with the repository lock held.
pub fn recover(common_dir: &Path) -> Vec<PathBuf> {
    let record = record_path(common_dir);
    let Ok(meta) = std::fs::symlink_metadata(&record) else {
        return Vec::new();
    };
    if meta.is_file() && meta.len() == 0 {
        // The last write finished.
        return Vec::new();
    }
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
    if write_in_place(&record, b"").is_err() {
        let _ = std::fs::remove_file(&record);
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_write_empties_its_record_and_a_killed_one_is_recovered() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("t3")).unwrap();
        let lock = dir.path().join("refs-x.lock");
        let record = record_path(dir.path());
        // Done: the record stays, empty, and names nothing.
        drop(begin(dir.path(), std::slice::from_ref(&lock)).unwrap());
        assert_eq!(std::fs::read(&record).unwrap(), b"");
        std::fs::write(&lock, b"").unwrap();
        assert!(recover(dir.path()).is_empty());
        assert!(lock.exists(), "a lock no record names is left alone");
        // Killed while holding the lock: the next holder removes it.
        std::mem::forget(begin(dir.path(), std::slice::from_ref(&lock)).unwrap());
        std::fs::write(&lock, b"").unwrap();
        assert_eq!(recover(dir.path()).len(), 1);
        assert!(!lock.exists());
        assert_eq!(std::fs::read(&record).unwrap(), b"");
    }
}
