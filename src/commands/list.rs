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
    pub revert_in_progress: Option<crate::revert::RevertInProgress>,
    /// How to show it (the edge fills in the time zone).
    #[serde(skip)]
    pub view: ListView,
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

/// The turns of `thread`, each with its figures counted `how` (see
/// [`crate::compare::turn_counts`]).
pub fn turns(
    ctx: &crate::context::Context,
    thread: &ThreadId,
    how: crate::compare::Counting,
) -> Result<TurnsOutcome> {
    let repo = &ctx.repo;
    let (mut turns, problems) = store::load_thread(repo, thread)?;
    crate::compare::fill(ctx, thread, &mut turns, how);
    Ok(TurnsOutcome {
        thread: thread.to_string(),
        turns,
        problems,
        revert_in_progress: crate::revert::progress(repo, thread)?,
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

/// One turn a remote has that fetch kept apart.
#[derive(Debug, Serialize)]
pub struct RemoteTurn {
    /// The turn number.
    pub turn: u64,
    /// The ref.
    pub reference: String,
    /// Its commit.
    pub commit: String,
    /// Its note's title, status and time, when it has a readable note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The note's status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// The note's completion time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
}

/// One thread whose turns a remote has otherwise than here.
#[derive(Debug, Serialize)]
pub struct RemoteThread {
    /// The thread id.
    pub thread: String,
    /// The remote's turns kept apart, by number.
    pub turns: Vec<RemoteTurn>,
}

/// `list --remote NAME` (and `log --remote NAME`): what fetch kept apart
/// from `NAME` under `refs/t3/remotes/`.
#[derive(Debug, Serialize)]
pub struct RemoteOutcome {
    /// The remote.
    pub remote: String,
    /// Its threads kept apart.
    pub threads: Vec<RemoteThread>,
}

/// The turns fetch kept apart from `remote` (of `thread`, or all).
pub fn remote(repo: &gix::Repository, remote: &str, thread: Option<&ThreadId>) -> Result<RemoteOutcome> {
    use gix::bstr::ByteSlice as _;
    let component = crate::model::thread::remote_component(remote);
    let prefix = format!("{}{component}/", crate::model::thread::REMOTES_PREFIX);
    let mut notes = NotesReader::open(repo)?;
    let mut threads: std::collections::BTreeMap<ThreadId, Vec<RemoteTurn>> = Default::default();
    for r in crate::repo::list_refs(repo, &prefix)? {
        let (Ok(name), Some(id)) = (r.name.to_str(), r.target) else {
            continue;
        };
        let Some(rest) = name.strip_prefix(&prefix) else {
            continue;
        };
        let Ok(parsed) = crate::model::thread::parse_checkpoint_ref(&format!(
            "{}{rest}",
            crate::model::thread::CHECKPOINTS_PREFIX
        )) else {
            continue;
        };
        if thread.is_some_and(|t| *t != parsed.thread) {
            continue;
        }
        let note = notes
            .get(id)
            .ok()
            .flatten()
            .and_then(|d| crate::model::note::Note::parse(&d).ok());
        threads.entry(parsed.thread).or_default().push(RemoteTurn {
            turn: parsed.turn,
            reference: name.to_owned(),
            commit: id.to_string(),
            title: note.as_ref().and_then(|n| n.title.clone()),
            status: note.as_ref().map(|n| n.status.as_str().to_owned()),
            completed_at: note.map(|n| n.completed_at),
        });
    }
    if let Some(t) = thread
        && !threads.contains_key(t)
    {
        return Err(Error::usage(format!(
            "{remote} has no turns of thread '{t}' kept apart here (`git t3 list --remote {remote}` lists them)"
        )));
    }
    Ok(RemoteOutcome {
        remote: remote.to_owned(),
        threads: threads
            .into_iter()
            .map(|(thread, mut turns)| {
                turns.sort_by_key(|t| t.turn);
                RemoteThread {
                    thread: thread.to_string(),
                    turns,
                }
            })
            .collect(),
    })
}
