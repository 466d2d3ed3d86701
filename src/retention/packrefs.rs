//! Packing git-t3's refs: every turn is a ref, and a ref is a loose file
//! until something packs it. Listing a thread's turns reads each loose
//! file; after thousands of captures with `gc.auto = 0` (which also stops
//! git's own `pack-refs`) that listing was most of a capture (measured at
//! 3,376 turns: 20–66 ms of a 100–150 ms capture, 4–8 ms once packed).
//!
//! A capture checks one path ([`due_for`]): whether the ref
//! [`LOOSE_LIMIT`] turns below the one it wrote is still a loose file. The
//! background run then packs every ref under `refs/t3/` with git's own
//! `git pack-refs --include 'refs/t3/*'` (branches and tags are left as
//! they are), holding the repository lock so that no capture moves a ref
//! meanwhile.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::error::Result;
use crate::model::thread::ThreadId;
use crate::repo::RepoLock;

/// Loose turns a thread may have before its refs are packed.
pub const LOOSE_LIMIT: u64 = 64;

/// How long the packing waits for the repository lock before leaving the
/// work for the next run.
const LOCK_WAIT: Duration = Duration::from_secs(5);

/// Whether the refs should be packed after turn `turn` of `thread` was
/// written: its ref [`LOOSE_LIMIT`] turns below is still a loose file (one
/// `stat`).
pub fn due_for(repo: &gix::Repository, thread: &ThreadId, turn: u64) -> bool {
    turn.checked_sub(LOOSE_LIMIT)
        .is_some_and(|below| is_loose(repo.common_dir(), &thread.checkpoint_ref(below)))
}

fn is_loose(common: &Path, name: &str) -> bool {
    std::fs::symlink_metadata(common.join(name)).is_ok_and(|m| m.is_file())
}

/// The loose files under `refs/t3/`, counted up to `limit` (more is "many").
pub fn loose_count(repo: &gix::Repository, limit: usize) -> usize {
    let mut count = 0;
    let mut stack = vec![repo.common_dir().join("refs").join("t3")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.filter_map(|e| e.ok()) {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(t) if t.is_file() => count += 1,
                _ => {}
            }
            if count > limit {
                return count;
            }
        }
    }
    count
}

/// Pack the refs under `refs/t3/` when more than [`LOOSE_LIMIT`] are loose
/// files; returns whether they were packed. The repository lock staying
/// taken leaves them for the next run.
pub fn pack(repo: &gix::Repository, interrupt: crate::interrupt::Interrupt) -> Result<bool> {
    let limit = usize::try_from(LOOSE_LIMIT).unwrap_or(usize::MAX);
    if loose_count(repo, limit) <= limit {
        return Ok(false);
    }
    let Ok(lock) = RepoLock::acquire(repo, "maintenance", LOCK_WAIT) else {
        return Ok(false);
    };
    let dir = repo.workdir().unwrap_or_else(|| repo.git_dir());
    let run = |args: &[&str]| -> Result<bool> {
        let mut command = Command::new("git");
        command.arg("-C").arg(dir).args(args);
        Ok(crate::child::run(&mut command, crate::child::Options::default(), interrupt)?.success())
    };
    // `--include` came with git 2.42; an older git packs everything (as
    // its gc would).
    let packed = run(&["pack-refs", "--include", "refs/t3/*"])? || run(&["pack-refs", "--all"])?;
    drop(lock);
    Ok(packed)
}
