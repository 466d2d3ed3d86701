//! The scan `push` runs before anything leaves the machine: the checkpoints
//! about to be sent are looked through for paths that look like secrets
//! ([`crate::snapshot::secrets`]), and any found stop the push unless
//! `--allow-secrets`.
//!
//! What is scanned, and what is not:
//! - only checkpoints the remote does not have (a commit its refs under the
//!   pushed prefix already point at was sent before);
//! - of those, only the paths new or changed against the thread's previous
//!   checkpoint here (which is either sent too, and scanned, or already on
//!   the remote); the first checkpoint of a thread is scanned whole. Each
//!   comparison is gix's tree diff, which skips equal subtrees, and is
//!   bounded like every diff ([`crate::diff::changes::MAX_CHANGES`]);
//! - a path whose content is the same as in the commit that was HEAD when
//!   the checkpoint was taken (its note's `head`) is part of the user's own
//!   history, not something git-t3 adds: not reported;
//! - at most [`MAX_FINDINGS`] are collected: one is enough to stop.

use std::collections::{BTreeMap, HashSet};

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use gix::objs::tree::EntryKind;

use crate::diff::changes;
use crate::error::Result;
use crate::model::note::{ChangeKind, Note};
use crate::model::thread::{ThreadId, parse_checkpoint_ref};
use crate::repo::{self, NotesReader};
use crate::snapshot::secrets::Secrets;

/// Findings collected before the scan stops.
pub const MAX_FINDINGS: usize = 20;

/// A checkpoint about to be pushed that records a secret-looking path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The thread.
    pub thread: String,
    /// The turn.
    pub turn: u64,
    /// The path, worktree-relative.
    pub path: BString,
}

/// The secret-looking paths that pushing the checkpoints under `prefix`
/// would send, given the commits the remote's refs already point at.
pub fn scan(
    repo: &gix::Repository,
    prefix: &str,
    remote_has: &HashSet<ObjectId>,
    interrupt: crate::interrupt::Interrupt,
) -> Result<Vec<Finding>> {
    let patterns = Secrets::of(repo);
    let mut threads: BTreeMap<String, (ThreadId, Vec<(u64, ObjectId)>)> = BTreeMap::new();
    for r in repo::list_refs(repo, prefix)? {
        let (Ok(name), Some(id)) = (r.name.to_str(), r.target) else {
            continue;
        };
        let Ok(parsed) = parse_checkpoint_ref(name) else {
            continue;
        };
        threads
            .entry(parsed.thread.to_string())
            .or_insert_with(|| (parsed.thread.clone(), Vec::new()))
            .1
            .push((parsed.turn, id));
    }
    let empty = ObjectId::empty_tree(repo.object_hash());
    let mut notes = NotesReader::open(repo)?;
    let mut found = Vec::new();
    for (thread, mut turns) in threads.into_values() {
        turns.sort();
        let mut previous = empty;
        for (turn, commit) in turns {
            interrupt.check()?;
            // Not a commit (or unreadable): git itself will say so when pushing.
            let Ok(tree) = repo::commit_tree(repo, commit) else {
                continue;
            };
            if !remote_has.contains(&commit) && tree != previous {
                let candidates = new_secret_paths(repo, &patterns, previous, tree)?;
                if !candidates.is_empty() {
                    let head = head_tree(repo, &mut notes, commit);
                    for (path, id) in candidates {
                        if head.is_some_and(|h| in_head(repo, h, &path, id)) {
                            continue;
                        }
                        found.push(Finding {
                            thread: thread.to_string(),
                            turn,
                            path,
                        });
                        if found.len() >= MAX_FINDINGS {
                            return Ok(found);
                        }
                    }
                }
            }
            // A placeholder holds no snapshot: the next turn compares with
            // the last real one.
            if tree != empty {
                previous = tree;
            }
        }
    }
    Ok(found)
}

/// Paths new or changed from tree `from` to tree `to` (files and symlinks)
/// that look like secrets, with their new blob.
fn new_secret_paths(
    repo: &gix::Repository,
    patterns: &Secrets,
    from: ObjectId,
    to: ObjectId,
) -> Result<Vec<(BString, ObjectId)>> {
    Ok(changes::tree_changes_with(repo, from, to, false)?
        .into_iter()
        .filter(|c| c.kind != ChangeKind::Deleted)
        .filter_map(|c| {
            let new = c.new?;
            (new.kind != EntryKind::Commit && new.kind != EntryKind::Tree).then_some((c.path, new.id))
        })
        .filter(|(path, _)| patterns.matches(path.as_bstr()))
        .collect())
}

/// The tree of the commit that was HEAD when `checkpoint` was taken, from
/// its note; `None` when unknown or not here.
fn head_tree(repo: &gix::Repository, notes: &mut NotesReader<'_>, checkpoint: ObjectId) -> Option<ObjectId> {
    let data = notes.get(checkpoint).ok()??;
    let head = Note::parse(&data).ok()?.head?;
    let head = ObjectId::from_hex(head.as_bytes()).ok()?;
    repo::commit_tree(repo, head).ok()
}

/// Whether tree `head` has blob `id` at `path`.
fn in_head(repo: &gix::Repository, head: ObjectId, path: &BString, id: ObjectId) -> bool {
    changes::blob_at(repo, head, path).is_ok_and(|found| found.is_some_and(|(blob, _)| blob == id))
}

/// The refs under `prefix` on the remote, from `git ls-remote` output.
pub fn remote_commits(listing: &[u8]) -> HashSet<ObjectId> {
    listing
        .lines()
        .filter_map(|l| l.to_str().ok()?.split_once('\t'))
        .filter_map(|(id, _)| ObjectId::from_hex(id.as_bytes()).ok())
        .collect()
}

/// One line naming what was found: the first few, and how many more (paths
/// in their display form; output escapes control characters).
pub fn describe(found: &[Finding]) -> String {
    const NAMED: usize = 3;
    let mut parts: Vec<String> = found
        .iter()
        .take(NAMED)
        .map(|f| {
            format!(
                "{} (turn {} of thread '{}')",
                crate::model::path::to_text(&f.path).0,
                f.turn,
                f.thread
            )
        })
        .collect();
    if found.len() > NAMED {
        let more = found.len() - NAMED;
        parts.push(if found.len() >= MAX_FINDINGS {
            format!("and {more} or more others")
        } else {
            format!("and {more} more")
        });
    }
    parts.join(", ")
}
