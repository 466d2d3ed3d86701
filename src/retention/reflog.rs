//! Trimming the reflogs that grow with every capture.
//!
//! git logs every update of `refs/notes/t3` (`core.logAllRefUpdates` is on
//! in a repository with a worktree): one line a capture, never expired but
//! by `git gc`'s `reflog expire` (90 days, `gc.reflogExpire`: thousands of
//! lines at an agent's pace, and nothing runs it with `gc.auto = 0`). With
//! `core.logAllRefUpdates = always` the operation log's refs and each
//! thread's prompt ref grow the same way. Nothing in git-t3 reads them (the
//! operation log is how git-t3 goes back), and an entry keeps an old notes
//! commit from git's gc after a prune wrote a notes commit without parent.
//!
//! So the background maintenance keeps the newest [`KEEP`] entries of each
//! of those reflogs once it is over [`DUE_BYTES`]: as `git reflog expire`
//! does it, holding the repository lock (no git-t3 process updates a ref
//! meanwhile) and the ref's own `<ref>.lock` (nor does git), writing the
//! new log to `logs/<ref>.lock` and renaming it over the old one.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::{Context as _, Result};
use crate::repo::{self, RepoLock};

/// The entries a trimmed reflog keeps.
pub const KEEP: usize = 100;
/// A reflog past this many bytes (some 380 entries) is trimmed.
pub const DUE_BYTES: u64 = 64 << 10;
/// How long the trim waits for the repository lock before leaving the
/// reflogs for the next run.
const LOCK_WAIT: Duration = Duration::from_secs(5);

/// The notes ref's reflog.
fn notes_log(repo: &gix::Repository) -> PathBuf {
    repo.common_dir()
        .join("logs")
        .join(crate::model::thread::NOTES_REF)
}

/// Whether the notes ref's reflog is due a trim: one `stat` (the capture's
/// check).
pub fn due(repo: &gix::Repository) -> bool {
    std::fs::metadata(notes_log(repo)).is_ok_and(|m| m.len() > DUE_BYTES)
}

/// The refs whose reflogs grow with use, as names under the common dir.
fn growing(repo: &gix::Repository) -> Vec<String> {
    let mut names: Vec<String> = [
        crate::model::thread::NOTES_REF,
        crate::oplog::OPS_REF,
        crate::oplog::PENDING_REF,
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let prompts = crate::prompts::PROMPTS_PREFIX;
    let dir = repo.common_dir().join("logs").join(prompts.trim_end_matches('/'));
    if let Ok(entries) = std::fs::read_dir(dir) {
        names.extend(
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .filter_map(|e| Some(format!("{prompts}{}", e.file_name().to_str()?))),
        );
    }
    names
}

/// Trim every growing reflog past [`DUE_BYTES`] to its newest [`KEEP`]
/// entries; returns the entries dropped. A reflog whose ref is locked (a
/// git command updating it) is left for the next run, as are all of them
/// when the repository lock stays taken.
pub fn trim(repo: &gix::Repository) -> Result<usize> {
    let common = repo.common_dir();
    let due: Vec<String> = growing(repo)
        .into_iter()
        .filter(|name| std::fs::metadata(common.join("logs").join(name)).is_ok_and(|m| m.len() > DUE_BYTES))
        .collect();
    if due.is_empty() {
        return Ok(0);
    }
    let Ok(lock) = RepoLock::acquire(repo, "maintenance", LOCK_WAIT) else {
        return Ok(0);
    };
    let mut dropped = 0;
    for name in due {
        dropped += trim_one(common, &name)?;
    }
    drop(lock);
    Ok(dropped)
}

/// Trim the reflog of ref `name` (the repository lock held).
fn trim_one(common: &Path, name: &str) -> Result<usize> {
    let ref_lock = common.join(format!("{name}.lock"));
    let log = common.join("logs").join(name);
    let log_lock = common.join("logs").join(format!("{name}.lock"));
    // A git-t3 process killed meanwhile leaves no lock file behind: the
    // next one to take the repository lock removes them.
    let _in_flight = repo::inflight::begin(common, &[ref_lock.clone(), log_lock.clone()])?;
    let Some(_held) = Held::create(&ref_lock) else {
        return Ok(0);
    };
    // Not a regular file (a link, a FIFO): not ours to rewrite.
    let Ok(text) = crate::fsread::read_regular(&log, false) else {
        return Ok(0);
    };
    let lines: Vec<&[u8]> = text.split_inclusive(|b| *b == b'\n').collect();
    let Some(drop_n) = lines.len().checked_sub(KEEP).filter(|n| *n > 0) else {
        return Ok(0);
    };
    let Some(mut held_log) = Held::create(&log_lock) else {
        return Ok(0);
    };
    let kept = lines.get(drop_n..).unwrap_or_default().concat();
    let file = held_log.file.as_mut();
    file.map_or(Ok(()), |f| f.write_all(&kept))
        .and_then(|()| std::fs::rename(&log_lock, &log))
        .context(|| format!("could not rewrite {}", log.display()))?;
    held_log.path = None;
    Ok(drop_n)
}

/// A lock file made here, removed on drop unless renamed into place.
struct Held {
    path: Option<PathBuf>,
    file: Option<std::fs::File>,
}

impl Held {
    /// Create `path` unless it is there (`None`: someone holds it, or it
    /// cannot be made).
    fn create(path: &Path) -> Option<Held> {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .ok()?;
        Some(Held {
            path: Some(path.to_owned()),
            file: Some(file),
        })
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(p) = self.path.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}
