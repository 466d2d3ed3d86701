//! Whose work a restore would overwrite: two agents (two threads) in one
//! worktree.
//!
//! Every capture snapshots the whole worktree, so one thread's checkpoints
//! hold the files another thread's agent wrote. Before a revert or restore
//! of thread T changes a file, its current content is traced to the turn
//! that wrote it:
//!
//! - a turn *wrote* a path when the path differs between the worktree at its
//!   prompt (`pre_turn_tree`, else the thread's previous checkpoint) and the
//!   turn's checkpoint;
//! - of the turns (T's after the target, every other thread's captured since
//!   the target) that wrote the path's current content, the first captured
//!   is its author. Captures are ordered by time, and within one second by
//!   the order their notes were added to `refs/notes/t3` (one notes commit
//!   per capture);
//! - content no checkpoint holds, changed after T's latest checkpoint while
//!   another thread works here, may be that agent's turn in progress.
//!
//! Such a file is another thread's work: the revert names it (in `--dry-run`
//! too) and refuses without `--force`. The safety checkpoint keeps it either
//! way. With a single thread nothing here applies, and a revert keeps its
//! old contract (whatever it overwrites is in the safety checkpoint).

use std::collections::HashMap;
use std::path::PathBuf;

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use serde::Serialize;

use crate::diff::changes;
use crate::error::Result;
use crate::model::path::PathText;
use crate::model::thread::{NOTES_REF, ThreadId};
use crate::repo::{self, NotesReader};
use crate::restore::Plan;
use crate::store::{self, TurnRef};

/// A file a restore would overwrite or delete that holds another thread's work.
#[derive(Debug, Clone, Serialize)]
pub struct Foreign {
    /// The path.
    pub path: PathText,
    /// The thread whose turn wrote it (absent: no checkpoint holds it yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    /// That turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn: Option<u64>,
}

impl Foreign {
    /// `path (thread 5a1e0000 turn 2)`, or `path (not captured yet)`.
    pub fn describe(&self) -> String {
        let path = crate::model::path::quoted(&self.path.0);
        match (&self.thread, self.turn) {
            (Some(t), Some(turn)) => format!("{path} (thread {} turn {turn})", t.get(..8).unwrap_or(t)),
            _ => format!("{path} (not captured by any thread yet)"),
        }
    }
}

/// Refuse with [`Error::OthersWork`] naming `found` (at most ten), unless
/// there is nothing to name.
pub fn refuse(action: &'static str, found: &[Foreign]) -> Result<()> {
    if found.is_empty() {
        return Ok(());
    }
    let mut files: Vec<String> = found.iter().take(10).map(Foreign::describe).collect();
    if found.len() > 10 {
        files.push(format!("and {} more", found.len() - 10));
    }
    Err(crate::error::Error::OthersWork {
        action,
        files: files.join(", "),
    })
}

/// One capture: a thread's turn, its checkpoint tree and where it stands
/// in the order of captures.
struct Capture {
    thread: ThreadId,
    turn: TurnRef,
    tree: ObjectId,
    /// The worktree at its prompt (or the previous checkpoint).
    before: Option<ObjectId>,
    /// Seconds since the epoch.
    time: i64,
}

/// Which captures may have written what is there now.
#[derive(Debug, Clone, Copy)]
pub struct Since {
    /// Other threads' captures from this time on (seconds; `i64::MIN`: all).
    pub time: i64,
    /// The thread's own turns after this one (`None`: those from `time` on).
    pub own_after: Option<u64>,
}

impl Since {
    /// For a revert or restore of a thread to `target` (its turn, or
    /// `None` for HEAD: every turn).
    pub fn target(repo: &gix::Repository, target: Option<TurnRef>) -> Result<Since> {
        Ok(match target {
            Some(t) => Since {
                time: commit_seconds(repo, t.commit)?,
                own_after: Some(t.turn),
            },
            None => Since {
                time: i64::MIN,
                own_after: None,
            },
        })
    }
}

/// The files of `plan` (from the worktree snapshot `now` to its target)
/// whose current content is another thread's work, for a revert or restore
/// of `thread` (see [`Since`]).
pub fn foreign(
    repo: &gix::Repository,
    thread: &ThreadId,
    since: Since,
    now: ObjectId,
    plan: &Plan,
) -> Result<Vec<Foreign>> {
    let paths: Vec<&BString> = plan.writes().iter().chain(plan.deletes()).collect();
    foreign_paths(repo, thread, since, now, &paths)
}

/// [`foreign`] for some paths.
pub fn foreign_paths(
    repo: &gix::Repository,
    thread: &ThreadId,
    scope: Since,
    now: ObjectId,
    paths: &[&BString],
) -> Result<Vec<Foreign>> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let all = store::all_thread_refs(repo)?;
    let mut notes = NotesReader::open(repo)?;
    let others: Vec<&(ThreadId, Vec<TurnRef>)> = all
        .iter()
        .filter(|(t, refs)| {
            t != thread
                && store::bound_worktree(repo, &mut notes, t, refs).is_none_or(|b| store::is_here(repo, &b))
        })
        .collect();
    if others.is_empty() {
        return Ok(Vec::new());
    }
    let own: Vec<TurnRef> = all
        .iter()
        .find(|(t, _)| t == thread)
        .map(|(_, refs)| refs.clone())
        .unwrap_or_default();
    let mut captures = captures_in_scope(repo, &mut notes, (thread, &own), &others, scope)?;
    let active = prompted_since(repo, &others, scope.time) || captures.iter().any(|c| &c.thread != thread);
    let order = capture_order(repo, scope.time)?;
    captures.sort_by_key(|c| (c.time, order.get(&c.turn.commit).copied().unwrap_or(u64::MAX)));

    let current = current_blobs(repo, now, paths)?;
    if current.is_empty() {
        return Ok(Vec::new());
    }
    let author = first_authors(repo, &captures, &current)?;
    let uncaptured = Uncaptured::new(repo, &own, &others, &captures)?;
    let mut out = Vec::new();
    let mut paths: Vec<&BString> = current.keys().collect();
    paths.sort();
    for path in paths {
        match author.get(path) {
            Some(c) if &c.thread != thread => out.push(Foreign {
                path: PathText(path.to_vec()),
                thread: Some(c.thread.to_string()),
                turn: Some(c.turn.turn),
            }),
            Some(_) => {}
            None if active && uncaptured.is_uncaptured_work(repo, path, current.get(path).copied())? => {
                out.push(Foreign {
                    path: PathText(path.to_vec()),
                    thread: None,
                    turn: None,
                });
            }
            None => {}
        }
    }
    Ok(out)
}

/// The captures that may have written what is there now: the thread's own
/// (`own`: the thread and its turns) and the `others`' turns that `scope`
/// takes in, in the threads' order.
fn captures_in_scope(
    repo: &gix::Repository,
    notes: &mut NotesReader,
    (thread, own): (&ThreadId, &[TurnRef]),
    others: &[&(ThreadId, Vec<TurnRef>)],
    scope: Since,
) -> Result<Vec<Capture>> {
    let mut captures = Vec::new();
    for (t, refs) in std::iter::once(&(thread.clone(), own.to_vec())).chain(others.iter().copied()) {
        for (i, turn) in refs.iter().enumerate() {
            let time = commit_seconds(repo, turn.commit)?;
            let relevant = match scope.own_after {
                Some(after) if t == thread => turn.turn > after,
                _ => time >= scope.time,
            };
            if !relevant {
                continue;
            }
            let Ok(tree) = repo::commit_tree(repo, turn.commit) else {
                continue;
            };
            let pre = store::load(repo, notes, t, *turn)
                .ok()
                .and_then(|cp| cp.note.pre_turn_tree)
                .and_then(|h| ObjectId::from_hex(h.as_bytes()).ok());
            let previous = i
                .checked_sub(1)
                .and_then(|p| refs.get(p))
                .and_then(|p| repo::commit_tree(repo, p.commit).ok());
            captures.push(Capture {
                thread: t.clone(),
                turn: *turn,
                tree,
                before: pre.or(previous),
                time,
            });
        }
    }
    Ok(captures)
}

/// Whether one of the `others`' agents' prompt hook recorded a prompt
/// since `since` (seconds): a turn in progress.
fn prompted_since(repo: &gix::Repository, others: &[&(ThreadId, Vec<TurnRef>)], since: i64) -> bool {
    others.iter().any(|(t, _)| {
        repo::find_direct_ref(repo, &crate::prompts::prompts_ref(t))
            .ok()
            .flatten()
            .and_then(|id| commit_seconds(repo, id).ok())
            .is_some_and(|time| time >= since)
    })
}

/// The `paths` that hold a file in the worktree snapshot `now`, and its blob.
fn current_blobs(
    repo: &gix::Repository,
    now: ObjectId,
    paths: &[&BString],
) -> Result<HashMap<BString, ObjectId>> {
    let mut current = HashMap::new();
    for path in paths {
        if let Some((id, _)) = changes::blob_at(repo, now, path)? {
            current.insert((*path).clone(), id);
        }
    }
    Ok(current)
}

/// The first of `captures` (in order) that wrote each path's `current` content.
fn first_authors<'c>(
    repo: &gix::Repository,
    captures: &'c [Capture],
    current: &HashMap<BString, ObjectId>,
) -> Result<HashMap<BString, &'c Capture>> {
    let mut author: HashMap<BString, &Capture> = HashMap::new();
    for c in captures {
        let Some(before) = c.before else { continue };
        for change in changes::tree_changes_with(repo, before, c.tree, false)? {
            let Some(new) = change.new else { continue };
            if current.get(&change.path) == Some(&new.id) && !author.contains_key(&change.path) {
                author.insert(change.path, c);
            }
        }
    }
    Ok(author)
}

/// What tells content no turn wrote from uncaptured work: the checkpoints
/// that may hold it and the time of the thread's latest checkpoint.
struct Uncaptured<'c> {
    /// The tree of the thread's latest checkpoint.
    latest_tree: Option<ObjectId>,
    /// The trees of every other thread's latest checkpoint.
    latest_trees: Vec<ObjectId>,
    /// The captures since the target.
    captures: &'c [Capture],
    /// When the thread's latest checkpoint was made (seconds).
    latest_time: i64,
    /// The worktree root.
    workdir: PathBuf,
}

impl<'c> Uncaptured<'c> {
    fn new(
        repo: &gix::Repository,
        own: &[TurnRef],
        others: &[&(ThreadId, Vec<TurnRef>)],
        captures: &'c [Capture],
    ) -> Result<Self> {
        let latest = own.last().copied();
        let latest_tree = latest.and_then(|t| repo::commit_tree(repo, t.commit).ok());
        let latest_time = match latest {
            Some(t) => commit_seconds(repo, t.commit)?,
            None => i64::MIN,
        };
        let workdir = repo::workdir(repo)?;
        let latest_trees: Vec<ObjectId> = others
            .iter()
            .filter_map(|(_, refs)| refs.last())
            .filter_map(|t| repo::commit_tree(repo, t.commit).ok())
            .collect();
        Ok(Uncaptured {
            latest_tree,
            latest_trees,
            captures,
            latest_time,
            workdir,
        })
    }

    /// Whether `path`, whose `content` no turn wrote, is uncaptured work:
    /// no checkpoint holds it (this thread's latest, any thread's latest,
    /// any capture since the target) and it is newer than this thread's
    /// latest checkpoint.
    fn is_uncaptured_work(
        &self,
        repo: &gix::Repository,
        path: &BString,
        content: Option<ObjectId>,
    ) -> Result<bool> {
        for tree in self
            .latest_tree
            .iter()
            .chain(&self.latest_trees)
            .chain(self.captures.iter().map(|c| &c.tree))
        {
            if changes::blob_at(repo, *tree, path)?.map(|b| b.0) == content {
                return Ok(false);
            }
        }
        let mtime = gix::path::from_bstr(path.as_bstr())
            .ok()
            .and_then(|rel| std::fs::symlink_metadata(self.workdir.join(&*rel)).ok())
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .and_then(|d| i64::try_from(d.as_secs()).ok());
        Ok(mtime.is_some_and(|m| m >= self.latest_time))
    }
}

/// A commit's time in seconds.
pub fn commit_seconds(repo: &gix::Repository, id: ObjectId) -> Result<i64> {
    repo.find_commit(id)
        .ok()
        .and_then(|c| c.time().ok())
        .map(|t| t.seconds)
        .ok_or_else(|| crate::error::Error::Internal(format!("commit {id} has no readable time")))
}

/// The order in which notes were added to `refs/notes/t3` since `since`
/// (seconds): annotated commit → position (higher is later). Only the
/// first-parent chain is walked, back to the first notes commit older
/// than `since`.
fn capture_order(repo: &gix::Repository, since: i64) -> Result<HashMap<ObjectId, u64>> {
    let mut order = HashMap::new();
    let Some(mut commit) = repo::find_ref(repo, NOTES_REF)? else {
        return Ok(order);
    };
    let mut added = Vec::new();
    // At most this many notes commits are looked at (a bound on the walk).
    for _ in 0..10_000 {
        let Ok(c) = repo.find_commit(commit) else { break };
        let time = c.time().map(|t| t.seconds).unwrap_or(i64::MIN);
        let parent = c.parent_ids().next().map(|p| p.detach());
        let tree = repo::commit_tree(repo, commit)?;
        let parent_tree = match parent {
            Some(p) => repo::commit_tree(repo, p)?,
            None => ObjectId::empty_tree(repo.object_hash()),
        };
        for change in changes::tree_changes_with(repo, parent_tree, tree, false)? {
            if change.old.is_none() {
                let hex: Vec<u8> = change.path.iter().copied().filter(|b| *b != b'/').collect();
                if let Ok(id) = ObjectId::from_hex(&hex) {
                    added.push(id);
                }
            }
        }
        match parent {
            Some(p) if time >= since => commit = p,
            _ => break,
        }
    }
    // `added` runs newest first.
    let n = added.len() as u64;
    for (i, id) in added.into_iter().enumerate() {
        order.entry(id).or_insert(n - i as u64);
    }
    Ok(order)
}
