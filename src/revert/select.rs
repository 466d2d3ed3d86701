//! Which paths an undo puts back: exactly those its operation changed, and
//! only where they are still as the operation left them.
//!
//! An operation took the worktree (or the user's index) from `before` to a
//! state whose changed paths hold `after`'s entries. For each path where the
//! two trees differ, the path as it is now is compared with both: as `after`
//! has it, it goes back to `before`; as `before` has it, there is nothing to
//! do; anything else was changed since (by the user, an agent, another
//! operation) and is named — put back only with `--force`, the current
//! content being kept in the safety checkpoint first. Every other path is
//! left alone: work done after the operation stays.

use std::path::Path;

use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};
use gix::objs::tree::EntryKind;

use crate::diff::changes::{self, Side};
use crate::error::{Context as _, Result, git_err};
use crate::model::oid::Oid;
use crate::oplog::{Kind, Op};
use crate::repo::{self, Recorder};
use crate::restore;
use crate::revert::journal;

pub use crate::restore::index::Put;

/// A state before an operation, and what the operation left.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    /// The tree before it.
    pub before: ObjectId,
    /// The tree it left (absent for an op recorded before ops kept it:
    /// then the whole worktree goes back to `before`).
    pub after: Option<ObjectId>,
}

/// The user's index before an operation and after it, as trees.
#[derive(Debug, Clone, Copy)]
pub struct IndexSpan {
    /// Before it.
    pub before: ObjectId,
    /// What it left.
    pub after: ObjectId,
}

/// The index a revert's journal changed: from what it kept (`index_tree`,
/// absent: HEAD) to HEAD (or, on an unborn branch, the target).
pub fn journal_index(repo: &gix::Repository, j: &journal::Journal) -> Result<Option<IndexSpan>> {
    let head = restore::index::head_or(repo, j.target_tree())?;
    let before = j.index_tree.map_or(head, Oid::get);
    Ok((before != head).then_some(IndexSpan { before, after: head }))
}

/// The index `op` changed, as a span (see [`journal_index`]); `None` when
/// it did not change it.
pub fn op_index(repo: &gix::Repository, op: &Op) -> Result<Option<IndexSpan>> {
    let head = repo::head_tree_or_empty(repo)?;
    let before = op.index_tree().unwrap_or(head);
    let after = match (op.index_after, op.kind) {
        (Some(a), _) => a.get(),
        // Recorded before `index_after`: a revert reset the index to HEAD,
        // a put-back of the whole tree to its `restored_index`.
        (None, Kind::Revert) => head,
        (None, Kind::Abort | Kind::Undo) if !op.by_path => op.restored_index.map_or(head, Oid::get),
        (None, _) => return Ok(None),
    };
    Ok((before != after).then_some(IndexSpan { before, after }))
}

/// What [`worktree`] and [`index`] found.
#[derive(Debug, Default)]
pub struct Selection {
    /// Paths still as the operation left them (and, with `force`, the
    /// changed ones too), with what they go back to.
    pub put: Vec<Put>,
    /// Paths changed since the operation.
    pub changed: Vec<BString>,
}

/// A path as it is now.
#[derive(Debug, PartialEq, Eq)]
enum Now {
    Absent,
    Entry(Side),
    /// A folder: as a tree that has a folder there has it.
    Dir,
    /// A FIFO, a socket, a device, or a file that can't be read.
    Other,
}

fn same(now: &Now, side: Option<Side>) -> bool {
    match (now, side) {
        (Now::Absent, None) => true,
        (Now::Entry(a), Some(b)) => a.id == b.id && a.kind == b.kind,
        _ => false,
    }
}

/// The worktree paths to put back from `before`, of those where it differs
/// from `after`. Files are hashed like `git add` (objects written through
/// `rec`: a changed file's content is what the safety checkpoint keeps).
pub fn worktree(
    repo: &gix::Repository,
    rec: &Recorder<'_>,
    before: ObjectId,
    after: ObjectId,
    force: bool,
) -> Result<Selection> {
    let workdir = repo::workdir(repo)?;
    let (pipeline, _) = repo
        .filter_pipeline(None)
        .context(|| "could not set up clean filters".into())?;
    let mut pipeline = crate::snapshot::Clean::new(repo, pipeline, None);
    let find = |tree: ObjectId| {
        repo.find_tree(tree)
            .map_err(git_err(format!("could not read tree {tree}")))
    };
    let (after_root, before_root) = (find(after)?, find(before)?);
    let has_folder = |root: &gix::Tree<'_>, path: &BStr| {
        repo::entry_at(repo, root.id, path)
            .ok()
            .flatten()
            .is_some_and(|(mode, _)| mode.is_tree())
    };
    let mut sel = Selection::default();
    for c in changes::tree_changes_with(repo, after, before, false)? {
        // Nested repositories are moved, never written or deleted (see
        // `safety`): a file where one comes back goes.
        if c.old.is_some_and(|s| s.kind == EntryKind::Commit) {
            continue;
        }
        let gitlink = c.new.is_some_and(|s| s.kind == EntryKind::Commit);
        let c = changes::TreeChange {
            new: c.new.filter(|_| !gitlink),
            ..c
        };
        let mut now = now_in_worktree(repo, rec, &mut pipeline, &workdir, c.path.as_bstr());
        if now == Now::Dir {
            // A folder is as a side has it when that side has a folder there
            // (its files are compared one by one).
            now = if c.new.is_none() && has_folder(&before_root, c.path.as_bstr()) {
                Now::Absent
            } else if c.old.is_none() && has_folder(&after_root, c.path.as_bstr()) {
                // As the operation left it: the file goes back in its place.
                match c.new {
                    Some(_) => {
                        sel.put.push((c.path, c.new));
                        continue;
                    }
                    None => Now::Absent,
                }
            } else {
                Now::Other
            };
        }
        decide(&mut sel, c.path, now, c.old, c.new, force);
    }
    Ok(sel)
}

/// The index paths to put back from the tree `before`, of those where it
/// differs from `after`, compared with the user's index as it is now.
pub fn index(repo: &gix::Repository, before: ObjectId, after: ObjectId, force: bool) -> Result<Selection> {
    let path = repo.index_path();
    let idx = if path.is_file() {
        Some(
            repo.open_index()
                .context(|| format!("could not read the index {}", path.display()))?,
        )
    } else {
        None
    };
    let mut sel = Selection::default();
    for c in changes::tree_changes_with(repo, after, before, false)? {
        let now = match idx
            .as_ref()
            .and_then(|i| i.entry_by_path(c.path.as_bstr()).map(|e| (i, e)))
        {
            None => Now::Absent,
            Some((_, e)) if e.stage_raw() != 0 => Now::Other,
            Some((_, e)) => Now::Entry(Side {
                id: e.id,
                kind: repo::objects::mode_kind(e.mode),
            }),
        };
        decide(&mut sel, c.path, now, c.old, c.new, force);
    }
    Ok(sel)
}

fn decide(
    sel: &mut Selection,
    path: BString,
    now: Now,
    after: Option<Side>,
    before: Option<Side>,
    force: bool,
) {
    if same(&now, before) {
        return;
    }
    if !same(&now, after) {
        sel.changed.push(path.clone());
        if !force {
            return;
        }
    }
    sel.put.push((path, before));
}

/// The worktree file at `rela` as `git add` would record it. Never opens
/// anything but a regular file or a symlink.
fn now_in_worktree(
    repo: &gix::Repository,
    rec: &Recorder<'_>,
    pipeline: &mut crate::snapshot::Clean<'_>,
    workdir: &Path,
    rela: &BStr,
) -> Now {
    let Ok(abs) = crate::restore::abs(workdir, rela) else {
        return Now::Other;
    };
    match std::fs::symlink_metadata(&abs) {
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Now::Absent;
        }
        Err(_) => return Now::Other,
        Ok(md) if md.is_dir() => return Now::Dir,
        Ok(md) if !(md.is_file() || md.file_type().is_symlink()) => return Now::Other,
        Ok(_) => {}
    }
    match crate::snapshot::hash_file(repo, rec, pipeline, workdir, rela) {
        Ok(Some((id, kind))) => Now::Entry(Side { id, kind }),
        Ok(None) => Now::Absent,
        Err(_) => Now::Other,
    }
}

/// `tree` with each of `put` set: upserted, or removed (when there).
pub fn edit(repo: &gix::Repository, rec: &Recorder<'_>, tree: ObjectId, put: &[Put]) -> Result<ObjectId> {
    if put.is_empty() {
        return Ok(tree);
    }
    let root = repo
        .find_tree(tree)
        .map_err(git_err(format!("could not read tree {tree}")))?;
    let mut editor = repo::tree_editor(repo, Some(tree))?;
    for (path, side) in put {
        let components = || path.split(|b| *b == b'/');
        let err = || git_err(format!("could not put back {}", path.to_str_lossy()));
        match side {
            Some(s) => {
                editor.upsert(components(), s.kind, s.id).map_err(err())?;
            }
            None if repo::entry_at(repo, root.id, path)?.is_some() => {
                editor.remove(components()).map_err(err())?;
            }
            None => {}
        }
    }
    let tree = editor.write(|t| rec.write_object(t))?;
    repo::ensure_tree_object(rec, tree)?;
    Ok(tree)
}

/// The refusal naming the paths changed since the operation.
pub fn refusal(worktree: &[BString], index: &[BString]) -> String {
    let name = |p: &BString| crate::model::path::quoted(p);
    let mut named: Vec<String> = worktree.iter().map(name).collect();
    named.extend(index.iter().map(|p| format!("{} (staged)", name(p))));
    let n = named.len();
    let shown: Vec<String> = named.into_iter().take(20).collect();
    format!(
        "{} changed since the operation and would be overwritten: {}{}; nothing was changed. \
         Keep them as they are, or pass --force to keep their current content in a safety \
         checkpoint and put them back anyway",
        if n == 1 { "a path was" } else { "paths were" },
        shown.join(", "),
        if n > 20 {
            format!(" and {} more", n - 20)
        } else {
            String::new()
        }
    )
}
