//! `git t3 list`: all threads, or one thread's turns.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::thread::ThreadId;
use crate::repo::NotesReader;
use crate::store::{self, Checkpoint, ThreadSummary};

/// The threads of the repository holding `dir` with their number of
/// checkpoints, for shell completion: empty outside a repository or on
/// any error (a completion never fails loudly).
pub fn thread_ids_near(dir: &std::path::Path) -> Vec<(String, usize)> {
    crate::repo::open(dir, &[])
        .and_then(|repo| store::thread_ids(&repo))
        .map(|ids| ids.into_iter().map(|(t, n)| (t.to_string(), n)).collect())
        .unwrap_or_default()
}

/// One thread's checkpoints.
#[derive(Debug, Serialize)]
pub struct TurnsOutcome {
    /// The thread id.
    pub thread: String,
    /// Its checkpoints by turn; a turn whose metadata is unreadable is left out
    /// and named in `problems`.
    pub turns: Vec<Checkpoint>,
    /// Turns that could not be read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
    /// A revert that stopped half-way, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revert_in_progress: Option<RevertInProgress>,
    /// How to show it (the edge fills in the time zone).
    #[serde(skip)]
    pub view: ListView,
}

/// A half-done revert, as `list` and `show` report it.
#[derive(Debug, Serialize)]
pub struct RevertInProgress {
    /// The step that has not run yet.
    pub step: crate::revert::Step,
    /// The latest turn before the revert.
    pub from_turn: u64,
    /// The turn it goes back to.
    pub to_turn: u64,
}

/// The half-done revert of `thread`, if any.
pub fn revert_in_progress(repo: &gix::Repository, thread: &ThreadId) -> Result<Option<RevertInProgress>> {
    Ok(
        crate::revert::in_progress(repo, thread)?.map(|j| RevertInProgress {
            step: j.step,
            from_turn: j.from_turn,
            to_turn: j.to_turn,
        }),
    )
}

/// All threads.
#[derive(Debug, Serialize)]
pub struct ThreadsOutcome {
    /// One row per thread, newest first.
    pub threads: Vec<ThreadSummary>,
    /// How to show it (the edge fills it in).
    #[serde(skip)]
    pub view: ListView,
}

/// What the text of `list` needs besides the data.
#[derive(Debug, Clone, Default)]
pub struct ListView {
    /// Now, for "2 hours ago".
    pub now: Option<jiff::Timestamp>,
    /// The time zone times are shown in (`None`: UTC).
    pub time_zone: Option<jiff::tz::TimeZone>,
    /// The worktree `list` runs in (canonical), to mark threads of others.
    pub here: Option<String>,
}

/// The turns of `thread`.
pub fn turns(repo: &gix::Repository, thread: &ThreadId) -> Result<TurnsOutcome> {
    let refs = store::thread_refs(repo, thread)?;
    if refs.is_empty() {
        return Err(Error::UnknownThread {
            thread: thread.to_string(),
        });
    }
    let mut notes = NotesReader::open(repo)?;
    let mut turns = Vec::with_capacity(refs.len());
    let mut problems = Vec::new();
    for t in refs {
        match store::load(repo, &mut notes, thread, t) {
            Ok(cp) => turns.push(cp),
            Err(e @ Error::BadMetadata { .. }) => problems.push(e.to_string()),
            Err(e) => return Err(e),
        }
    }
    Ok(TurnsOutcome {
        thread: thread.to_string(),
        turns,
        problems,
        revert_in_progress: revert_in_progress(repo, thread)?,
        view: ListView::default(),
    })
}

/// Every thread with checkpoints.
pub fn threads(repo: &gix::Repository) -> Result<ThreadsOutcome> {
    Ok(ThreadsOutcome {
        threads: store::list_threads(repo)?,
        view: ListView {
            now: Some(jiff::Timestamp::now()),
            time_zone: None,
            here: repo
                .workdir()
                .map(|w| crate::repo::canonical(w).to_string_lossy().into_owned()),
        },
    })
}
