//! What git-t3 still keeps, and the notes nothing keeps any more.
//!
//! A note is needed while its commit is kept: named by a ref under
//! `refs/t3/`, a parent of such a commit (a revert's journal keeps the turns
//! it removes), or a parent of an op in the operation log (what the op
//! removed, its safety checkpoint). A note on any other commit — a capture
//! killed between its note and its ref, a thread pruned or dropped long ago —
//! is orphaned.

use std::collections::HashSet;

use gix::ObjectId;

use crate::error::Result;
use crate::model::thread::{NOTES_REF, T3_PREFIX};
use crate::oplog;
use crate::repo;

/// Every commit whose note is still needed: git-t3's (and T3 Code's)
/// commits reachable from the refs under `refs/t3/` — the op log's chain
/// and what each op keeps, a journal's kept turns, also when the journal
/// itself is only kept by an op (a dropped thread's half-done revert).
/// A commit by anyone else is not followed.
pub fn kept_commits(repo: &gix::Repository) -> Result<HashSet<ObjectId>> {
    let mut kept = HashSet::new();
    // The op log is walked op by op below: a prune keeps the commits it
    // removed (for its undo) but not their notes, which it keeps itself.
    let mut stack: Vec<ObjectId> = repo::list_refs(repo, T3_PREFIX)?
        .into_iter()
        .filter(|r| r.name != oplog::OPS_REF && r.name != oplog::PENDING_REF)
        .filter_map(|r| r.target)
        .collect();
    for entry in oplog::walk(repo)? {
        let entry = entry?;
        kept.insert(entry.id);
        // Ids the op names without keeping them as parents (older logs).
        stack.extend(entry.op.safety_commit());
        if entry.op.kind == oplog::Kind::Prune {
            continue;
        }
        if let Ok(c) = repo.find_commit(entry.id) {
            // The first parent is the previous op (or the log's root).
            stack.extend(c.parent_ids().skip(1).map(gix::Id::detach));
        }
    }
    while let Some(id) = stack.pop() {
        if !kept.insert(id) {
            continue;
        }
        let Ok(c) = repo.find_commit(id) else { continue };
        let Ok(decoded) = c.decode() else { continue };
        if decoded
            .author()
            .is_ok_and(|a| repo::is_t3_identity(a.name, a.email))
        {
            stack.extend(decoded.parents());
        }
    }
    Ok(kept)
}

/// The objects that have a note in `refs/notes/t3` but are not kept.
pub fn orphaned_notes(repo: &gix::Repository) -> Result<Vec<ObjectId>> {
    let Some(notes) = repo::find_ref(repo, NOTES_REF)? else {
        return Ok(Vec::new());
    };
    let kept = kept_commits(repo)?;
    let mut orphans: Vec<ObjectId> = repo::list_notes(repo, notes)?
        .into_iter()
        .map(|(object, _)| object)
        .filter(|o| !kept.contains(o))
        .collect();
    orphans.sort();
    Ok(orphans)
}
