//! The user's index around a restore: read as a tree (to keep it in a safety
//! checkpoint), reset to a tree afterwards, and the skip-worktree entries a
//! restore must leave alone.

use std::collections::HashSet;
use std::path::Path;

use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::index::entry::Flags;

use crate::error::{Context as _, Error, Result, git_err};
use crate::repo::objects::mode_kind;
use crate::repo::{self, Locked, Recorder};

/// The user's index, if it exists.
fn open(repo: &gix::Repository) -> Result<Option<gix::index::File>> {
    let path = repo.index_path();
    if !path.is_file() {
        return Ok(None);
    }
    repo.open_index()
        .map(Some)
        .context(|| format!("could not read the index {}", path.display()))
}

/// Paths of the user's index (any stage).
pub fn tracked_paths(repo: &gix::Repository) -> Result<HashSet<Vec<u8>>> {
    Ok(open(repo)?
        .map(|idx| idx.entries().iter().map(|e| e.path(&idx).to_vec()).collect())
        .unwrap_or_default())
}

/// Paths that are skip-worktree in the user's index and absent from the
/// worktree (a sparse checkout's out-of-cone files): a restore leaves them out.
pub fn skipped_and_absent(repo: &gix::Repository, workdir: &Path) -> Result<HashSet<Vec<u8>>> {
    let Some(idx) = open(repo)? else {
        return Ok(HashSet::new());
    };
    let mut out = HashSet::new();
    for e in idx.entries() {
        if e.flags.contains(Flags::SKIP_WORKTREE) {
            let path = e.path(&idx);
            let abs = super::abs(workdir, path)?;
            if std::fs::symlink_metadata(&abs).is_err() {
                out.insert(path.to_vec());
            }
        }
    }
    Ok(out)
}

/// Skip-worktree entries of the user's index whose file exists in the
/// worktree: a capture does not look at them, so local edits to them must be
/// read separately.
pub fn skipped_and_present(repo: &gix::Repository, workdir: &Path) -> Result<Vec<gix::bstr::BString>> {
    let Some(idx) = open(repo)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for e in idx.entries() {
        if e.flags.contains(Flags::SKIP_WORKTREE) && e.stage_raw() == 0 {
            let path = e.path(&idx);
            let abs = super::abs(workdir, path)?;
            if std::fs::symlink_metadata(&abs).is_ok() {
                out.push(path.to_owned());
            }
        }
    }
    Ok(out)
}

/// The user's index as a tree, when it differs from HEAD's tree (`None`
/// when it is HEAD, or there is no index). An index with unresolved
/// conflicts is refused: there is no tree to keep it in.
pub fn index_tree(repo: &gix::Repository, rec: &Recorder<'_>) -> Result<Option<ObjectId>> {
    let head = repo::head_tree_or_empty(repo)?;
    let unborn = repo::head_tree(repo)?.is_none();
    let Some(idx) = open(repo)? else {
        // No index file is an empty index: kept when that is not HEAD.
        let empty = ObjectId::empty_tree(repo.object_hash());
        repo::ensure_tree_object(rec, empty)?;
        return Ok((head != empty || unborn).then_some(empty));
    };
    let conflicted: Vec<String> = idx
        .entries()
        .iter()
        .filter(|e| e.stage_raw() != 0)
        .map(|e| e.path(&idx).to_str_lossy().into_owned())
        .collect();
    if let Some(first) = conflicted.first() {
        return Err(Error::Refused(format!(
            "the index has unresolved conflicts ({first}{}); resolve them (or `git merge --abort`) first",
            if conflicted.len() > 1 { ", …" } else { "" }
        )));
    }
    if cache_tree_is(&idx, head) && !unborn {
        return Ok(None);
    }
    let mut editor = repo::tree_editor(repo, None)?;
    for e in idx.entries() {
        if e.flags.contains(Flags::INTENT_TO_ADD) {
            continue;
        }
        let path = e.path(&idx);
        editor
            .upsert(path.split(|b| *b == b'/'), mode_kind(e.mode), e.id)
            .map_err(git_err(format!(
                "could not add {} to the index tree",
                path.to_str_lossy()
            )))?;
    }
    let tree = editor.write(|t| rec.write_object(t))?;
    repo::ensure_tree_object(rec, tree)?;
    // On an unborn branch a put-back would otherwise stage its whole tree:
    // even an empty index is kept then.
    Ok((tree != head || unborn).then_some(tree))
}

/// Whether `old` has exactly the entries of `fresh` (an index of a tree):
/// the same paths, ids and modes, nothing staged in a conflict and nothing
/// only intended to be added.
fn same_entries(old: &gix::index::File, fresh: &gix::index::File) -> bool {
    old.entries().len() == fresh.entries().len()
        && old.entries().iter().zip(fresh.entries()).all(|(o, f)| {
            o.stage_raw() == 0
                && !o.flags.contains(Flags::INTENT_TO_ADD)
                && o.id == f.id
                && o.mode == f.mode
                && o.path(old) == f.path(fresh)
        })
}

/// Whether the index's cache-tree extension says the index is exactly `tree`.
fn cache_tree_is(idx: &gix::index::File, tree: ObjectId) -> bool {
    idx.entries().iter().all(|e| e.stage_raw() == 0)
        && idx
            .tree()
            .is_some_and(|t| t.num_entries.is_some_and(|n| n as usize == idx.entries().len()) && t.id == tree)
}

/// The tree a revert resets the index to: HEAD's, or `target` on an unborn branch.
pub fn head_or(repo: &gix::Repository, target: ObjectId) -> Result<ObjectId> {
    Ok(repo::head_tree(repo)?.unwrap_or(target))
}

/// Reset the user's index to `tree`, keeping the stat data of entries that
/// did not change (so `git status` stays fast) and every skip-worktree bit.
pub fn reset_index(lock: &Locked<'_>, tree: ObjectId) -> Result<()> {
    let repo = lock.repo();
    let old = open(repo)?;
    if old.as_ref().is_some_and(|o| cache_tree_is(o, tree)) {
        // The cache-tree extension says the index is exactly `tree` already:
        // nothing to reset, and the user's index file stays as it is.
        return Ok(());
    }
    let mut fresh = repo
        .index_from_tree(&tree)
        .context(|| format!("could not read tree {tree}"))?;
    if old.as_ref().is_some_and(|o| same_entries(o, &fresh)) {
        // The index holds `tree` already, only without a cache-tree (git
        // leaves none after some commands): it stays as it is too.
        return Ok(());
    }
    if let Some(old) = &old {
        let stat_opts = repo
            .stat_options()
            .context(|| "could not read core.checkStat".into())?;
        let (entries, backing) = fresh.entries_mut_and_pathbacking();
        for entry in entries.iter_mut() {
            let Some(e) = old.entry_by_path(entry.path_in(backing)) else {
                continue;
            };
            if e.stage_raw() != 0 {
                continue;
            }
            // A sparse checkout's bits stay, whatever the content.
            if e.flags.contains(Flags::SKIP_WORKTREE) {
                entry.flags |= Flags::SKIP_WORKTREE | Flags::EXTENDED;
            }
            // Racy entries keep a zero stat: the new index file is younger
            // than their mtime, so copying would make them look clean.
            if e.id == entry.id && e.mode == entry.mode && !e.stat.is_racy(old.timestamp(), stat_opts) {
                entry.stat = e.stat;
            }
        }
    }
    write(repo, fresh)
}

/// Write `idx` as the user's index, its lock file registered as in flight
/// (so a kill in the middle leaves a lock the next run knows is its own).
fn write(repo: &gix::Repository, mut idx: gix::index::File) -> Result<()> {
    let path = repo.index_path();
    idx.set_path(&path);
    let lock_file = path.with_extension("lock");
    let in_flight = crate::repo::inflight::begin(repo.common_dir(), std::slice::from_ref(&lock_file))?;
    crate::fault::holding("index-locked", &lock_file);
    let written = idx
        .write(Default::default(), Default::default())
        .context(|| format!("could not write the index {}", path.display()));
    drop(in_flight);
    written.map(|_| ())
}

/// One path to put back: its entry (kind and id), or `None` to remove it.
pub type Put = (gix::bstr::BString, Option<crate::diff::changes::Side>);

/// Set the user's index entries of `put` (each path to a mode and id, or
/// removed), leaving every other entry as it is.
pub fn set_entries(lock: &Locked<'_>, put: &[Put]) -> Result<()> {
    if put.is_empty() {
        return Ok(());
    }
    let repo = lock.repo();
    let mut idx = match open(repo)? {
        Some(i) => i,
        None => gix::index::File::from_state(gix::index::State::new(repo.object_hash()), repo.index_path()),
    };
    let remove: HashSet<&[u8]> = put.iter().map(|(p, _)| p.as_slice()).collect();
    idx.remove_entries(|_, p, _| remove.contains(p.as_bytes()));
    for (p, side) in put {
        if let Some(s) = side {
            let mode = crate::repo::objects::kind_mode(s.kind);
            idx.dangerously_push_entry(Default::default(), s.id, Flags::empty(), mode, p.as_bstr());
        }
    }
    idx.sort_entries();
    // The cache-tree no longer describes the index.
    idx.remove_tree();
    write(repo, idx)
}
