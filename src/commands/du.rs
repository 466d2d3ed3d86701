//! `git t3 du`: what each thread costs on disk (the bytes only it holds),
//! its turns and age, what all of git-t3's refs hold, and the loose objects.

use serde::Serialize;

use crate::error::Result;
use crate::model::thread::ThreadId;
use crate::retention::usage;
use crate::store;

/// One thread's line.
#[derive(Debug, Clone, Serialize)]
pub struct ThreadDisk {
    /// The thread.
    pub thread: String,
    /// Bytes on disk of the objects only this thread holds (freed when it
    /// is pruned and git collects).
    pub bytes: u64,
    /// Its checkpoints (the baseline included).
    pub turns: usize,
    /// When its latest checkpoint was written.
    pub updated_at: Option<String>,
}

/// What `du` measured.
#[derive(Debug, Serialize)]
pub struct DuOutcome {
    /// By thread, largest first.
    pub threads: Vec<ThreadDisk>,
    /// Bytes of everything git-t3's refs, notes and operation log hold that
    /// no branch, tag or other ref of the user's does.
    pub total_bytes: u64,
    /// Loose objects in the repository (`git count-objects`).
    pub loose_objects: u64,
    /// Their bytes.
    pub loose_bytes: u64,
}

/// Measure (all threads are measured: "only it holds" is against the
/// others; `only` limits the lines shown).
pub fn run(repo: &gix::Repository, only: Option<&ThreadId>) -> Result<DuOutcome> {
    let measured = usage::measure(repo)?;
    let summaries = store::list_threads(repo)?;
    let mut threads: Vec<ThreadDisk> = measured
        .threads
        .iter()
        .filter(|u| only.is_none_or(|t| *t == u.thread))
        .map(|u| {
            let summary = summaries.iter().find(|s| s.thread == u.thread.as_str());
            ThreadDisk {
                thread: u.thread.to_string(),
                bytes: u.bytes,
                turns: summary.map_or(0, |s| s.turns),
                updated_at: summary.and_then(|s| s.updated_at.clone()),
            }
        })
        .collect();
    if let Some(t) = only
        && threads.is_empty()
    {
        return Err(crate::Error::UnknownThread {
            thread: t.to_string(),
        });
    }
    threads.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.thread.cmp(&b.thread)));
    let (loose_objects, loose_bytes) = crate::repo::disk::loose_objects(repo)?;
    Ok(DuOutcome {
        threads,
        total_bytes: measured.total_bytes,
        loose_objects,
        loose_bytes,
    })
}
