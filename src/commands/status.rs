//! `git t3 status`: this worktree's threads, the latest turn of each, what
//! changed in the worktree since it (not captured yet), and whether a revert
//! stopped half-way.

use gix::ObjectId;
use serde::Serialize;

use crate::commands::Context;
use crate::diff::changes::tree_changes;
use crate::error::Result;
use crate::model::note::ChangeKind;
use crate::model::path::PathText;
use crate::model::thread::ThreadId;
use crate::repo::{self, NotesReader, Recorder};
use crate::store;

/// One thread of this worktree.
#[derive(Debug, Serialize)]
pub struct ThreadStatus {
    /// The thread id.
    pub thread: String,
    /// Its latest turn.
    pub latest: u64,
    /// Paths that differ between the worktree and the latest real checkpoint
    /// (both sides of a rename), sorted by bytes.
    pub uncaptured: Vec<PathText>,
    /// Whether a revert of the thread stopped half-way (its journal exists).
    pub revert_in_progress: bool,
    /// The turn compared with, when the latest is a placeholder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compared_with: Option<u64>,
    /// What happened to each of `uncaptured`, in the same order.
    #[serde(skip)]
    pub kinds: Vec<ChangeKind>,
}

/// What `status` found.
#[derive(Debug, Serialize)]
pub struct StatusOutcome {
    /// One row per thread of this worktree, sorted by id.
    pub threads: Vec<ThreadStatus>,
}

/// The status of every thread of this worktree. Takes the lock: the
/// worktree is snapshotted like a capture (blobs and the capture cache are
/// written, never a ref).
pub fn run(ctx: &Context) -> Result<StatusOutcome> {
    let repo = &ctx.repo;
    repo::workdir(repo)?;
    let lock = ctx.lock("status")?;
    let mut notes = NotesReader::open(repo)?;
    let mut mine = Vec::new();
    for summary in store::list_threads(repo)? {
        let Ok(thread) = ThreadId::parse(&summary.thread) else {
            continue;
        };
        let refs = store::thread_refs(repo, &thread)?;
        if store::bound_worktree(repo, &mut notes, &thread, &refs).is_some_and(|w| !store::is_here(repo, &w))
        {
            continue;
        }
        let base =
            store::real_checkpoint_below(repo, &mut notes, &thread, &refs, summary.latest.saturating_add(1))?;
        let (tree, turn) = match base {
            Some(cp) => (cp.tree, Some(cp.note.turn)),
            None => (ObjectId::empty_tree(repo.object_hash()), None),
        };
        mine.push((thread, summary.latest, tree, turn));
    }
    if mine.is_empty() {
        return Ok(StatusOutcome { threads: Vec::new() });
    }
    let rec = Recorder::new(repo);
    let snapshot = crate::snapshot::snapshot(&lock, &rec)?;
    snapshot.keep_cache(&rec)?;
    let mut threads = Vec::with_capacity(mine.len());
    for (thread, latest, tree, turn) in mine {
        let mut changed: Vec<(PathText, ChangeKind)> = Vec::new();
        for c in tree_changes(repo, tree, snapshot.tree)? {
            if let Some(old) = c.old_path {
                changed.push((PathText(old.into()), ChangeKind::Deleted));
                changed.push((PathText(c.path.into()), ChangeKind::Added));
            } else {
                changed.push((PathText(c.path.into()), c.kind));
            }
        }
        changed.sort_by(|a, b| a.0.cmp(&b.0));
        let (uncaptured, kinds) = changed.into_iter().unzip();
        threads.push(ThreadStatus {
            revert_in_progress: repo::find_ref(repo, &thread.revert_journal_ref())?.is_some(),
            thread: thread.to_string(),
            latest,
            uncaptured,
            compared_with: turn.filter(|t| *t != latest),
            kinds,
        });
    }
    Ok(StatusOutcome { threads })
}
