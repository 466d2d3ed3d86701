//! `du`'s figures: per thread the bytes only its refs hold (objects not
//! reachable from the branches', tags' and other refs' tips, nor from
//! another thread or the operation log: what pruning it frees), and the
//! bytes everything git-t3 keeps holds.
//!
//! The user's side is every object of the trees at the tips of refs outside
//! `refs/t3/` and `refs/notes/t3` (and HEAD); like `git rev-list --objects
//! --not`, older history of a branch is not walked, so a blob only an old
//! commit holds counts as the thread's.

use std::collections::{HashMap, HashSet};

use gix::ObjectId;
use gix::objs::tree::EntryKind;

use crate::error::{Context as _, Result};
use crate::model::thread::{NOTES_REF, T3_PREFIX, ThreadId};
use crate::repo::{self, disk::DiskSizes};
use crate::store;

/// One thread's share.
#[derive(Debug, Clone)]
pub struct ThreadUsage {
    /// The thread.
    pub thread: ThreadId,
    /// Bytes on disk of the objects only this thread holds.
    pub bytes: u64,
    /// How many such objects.
    pub objects: u64,
}

/// Every thread's share and the whole.
#[derive(Debug, Clone)]
pub struct Usage {
    /// By thread, in thread id order.
    pub threads: Vec<ThreadUsage>,
    /// Bytes of every object git-t3's refs, notes and operation log hold
    /// that the user's refs do not.
    pub total_bytes: u64,
    /// How many such objects.
    pub total_objects: u64,
}

/// Measure what git-t3 holds in `repo`.
pub fn measure(repo: &gix::Repository) -> Result<Usage> {
    let sizes = DiskSizes::open(repo)?;
    let user = user_side(repo)?;
    let mut walker = Walker { repo, user: &user };

    // Which thread holds each object: `Some(i)` one, `None` several.
    let mut holders: HashMap<ObjectId, Option<usize>> = HashMap::new();
    let threads = store::all_thread_refs(repo)?;
    for (i, (thread, turns)) in threads.iter().enumerate() {
        let mut roots: Vec<ObjectId> = turns.iter().map(|t| t.commit).collect();
        for name in store::side_refs(thread) {
            roots.extend(repo::find_direct_ref(repo, &name)?);
        }
        walker.walk(roots, &mut |id| hold(&mut holders, id, i))?;
    }
    // What the operation log keeps (removed turns, safety checkpoints)
    // stays when a thread goes: a holder of its own.
    let log_roots: Vec<ObjectId> = [crate::oplog::OPS_REF, crate::oplog::PENDING_REF]
        .iter()
        .map(|r| repo::find_direct_ref(repo, r))
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .flatten()
        .collect();
    let log = threads.len();
    walker.walk(log_roots, &mut |id| hold(&mut holders, id, log))?;
    let mut per = vec![(0u64, 0u64); threads.len()];
    for (id, holder) in &holders {
        if let Some(slot) = holder.and_then(|i| per.get_mut(i)) {
            slot.0 += sizes.size(id);
            slot.1 += 1;
        }
    }

    let mut roots: Vec<ObjectId> = repo::list_refs(repo, T3_PREFIX)?
        .into_iter()
        .filter_map(|r| r.target)
        .collect();
    roots.extend(repo::find_direct_ref(repo, NOTES_REF)?);
    let (mut total_bytes, mut total_objects) = (0, 0);
    walker.walk(roots, &mut |id| {
        total_bytes += sizes.size(&id);
        total_objects += 1;
    })?;

    Ok(Usage {
        threads: threads
            .into_iter()
            .zip(per)
            .map(|((thread, _), (bytes, objects))| ThreadUsage {
                thread,
                bytes,
                objects,
            })
            .collect(),
        total_bytes,
        total_objects,
    })
}

/// Record that `who` holds `id`: its only holder so far, or one of several.
fn hold(holders: &mut HashMap<ObjectId, Option<usize>>, id: ObjectId, who: usize) {
    holders
        .entry(id)
        .and_modify(|h| {
            if *h != Some(who) {
                *h = None;
            }
        })
        .or_insert(Some(who));
}

/// Every tree and blob at the tips of the user's refs (all refs but
/// git-t3's) and the HEAD of every worktree.
fn user_side(repo: &gix::Repository) -> Result<HashSet<ObjectId>> {
    let mut tips: Vec<ObjectId> = repo::list_refs(repo, "refs/")?
        .into_iter()
        .filter(|r| !r.name.starts_with(T3_PREFIX.as_bytes()) && !r.name.starts_with(NOTES_REF.as_bytes()))
        .filter_map(|r| r.target)
        .collect();
    tips.extend(repo::find_ref(repo, "HEAD").ok().flatten());
    // Every linked worktree's HEAD (a detached one is in no branch).
    if let Ok(linked) = std::fs::read_dir(repo.common_dir().join("worktrees")) {
        for w in linked.filter_map(|e| e.ok()) {
            let name = format!("worktrees/{}/HEAD", w.file_name().to_string_lossy());
            tips.extend(repo::find_ref(repo, &name).ok().flatten());
        }
    }
    let mut seen = HashSet::new();
    for mut id in tips {
        // Peel tags (a few levels at most) to what they name.
        for _ in 0..8 {
            let Ok(obj) = repo.find_object(id) else { break };
            match obj.kind {
                gix::object::Kind::Tag => match obj.into_tag().target_id() {
                    Ok(target) => id = target.detach(),
                    Err(_) => break,
                },
                gix::object::Kind::Commit => {
                    if let Ok(tree) = obj.into_commit().tree_id() {
                        tree_objects(repo, tree.detach(), &mut seen)?;
                    }
                    break;
                }
                gix::object::Kind::Tree => {
                    tree_objects(repo, id, &mut seen)?;
                    break;
                }
                gix::object::Kind::Blob => {
                    seen.insert(id);
                    break;
                }
            }
        }
    }
    Ok(seen)
}

/// Add `tree` and everything under it to `seen` (a subtree already there
/// is not read again).
fn tree_objects(repo: &gix::Repository, tree: ObjectId, seen: &mut HashSet<ObjectId>) -> Result<()> {
    let mut stack = vec![tree];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let Ok(tree) = repo.find_tree(id) else { continue };
        let decoded = tree.decode().context(|| format!("could not parse tree {id}"))?;
        for e in &decoded.entries {
            match e.mode.kind() {
                EntryKind::Tree => stack.push(e.oid.to_owned()),
                EntryKind::Commit => {}
                _ => {
                    seen.insert(e.oid.to_owned());
                }
            }
        }
    }
    Ok(())
}

/// What a walk expects an object to be (from the entry naming it).
#[derive(Clone, Copy)]
enum Node {
    Commit,
    Tree,
    Blob,
}

/// Walks what git-t3's commits hold, outside the user's side.
struct Walker<'r> {
    repo: &'r gix::Repository,
    user: &'r HashSet<ObjectId>,
}

impl Walker<'_> {
    /// Call `found` once for every object reachable from `roots` that is not
    /// on the user's side: commits written by git-t3 or T3 Code (their
    /// parents too), their trees and blobs. A commit by anyone else (a
    /// user's commit some ref of ours names) is not followed.
    fn walk(&mut self, roots: Vec<ObjectId>, found: &mut dyn FnMut(ObjectId)) -> Result<()> {
        let repo = self.repo;
        let mut seen = HashSet::new();
        let mut stack: Vec<(ObjectId, Node)> = roots.into_iter().map(|id| (id, Node::Commit)).collect();
        while let Some((id, node)) = stack.pop() {
            if self.user.contains(&id) || !seen.insert(id) {
                continue;
            }
            match node {
                Node::Commit => {
                    let Ok(c) = repo.find_commit(id) else { continue };
                    let Ok(decoded) = c.decode() else { continue };
                    let ours = decoded
                        .author()
                        .is_ok_and(|a| repo::is_t3_identity(a.name, a.email));
                    if !ours {
                        continue;
                    }
                    found(id);
                    stack.push((decoded.tree(), Node::Tree));
                    stack.extend(decoded.parents().map(|p| (p, Node::Commit)));
                }
                Node::Tree => {
                    let Ok(tree) = repo.find_tree(id) else { continue };
                    found(id);
                    let decoded = tree.decode().context(|| format!("could not parse tree {id}"))?;
                    for e in &decoded.entries {
                        match e.mode.kind() {
                            EntryKind::Tree => stack.push((e.oid.to_owned(), Node::Tree)),
                            EntryKind::Commit => {}
                            _ => stack.push((e.oid.to_owned(), Node::Blob)),
                        }
                    }
                }
                // Blobs are never read: only their size on disk counts.
                Node::Blob => found(id),
            }
        }
        Ok(())
    }
}
