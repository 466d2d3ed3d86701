//! The tree edits: the changes a capture makes to its base tree (the last
//! captured tree, or HEAD's after a rebuild), and applying them with gix's
//! tree editor, which writes only the subtrees they touch. Also the
//! conversions between index modes and tree entry kinds.

use std::collections::HashMap;

use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};
use gix::index::entry::Mode;
use gix::objs::tree::EntryKind;

use super::captured::Untracked;
use crate::error::{Context as _, Result, git_err};
use crate::repo::{self, Recorder};

/// A change to apply to the base tree; paths are relative to the worktree,
/// with `/` separators.
pub(super) enum Edit {
    /// Add the entry, or replace what the path holds.
    Upsert(BString, EntryKind, ObjectId),
    /// Remove the entry at the path.
    Remove(BString),
}

/// Append the edits for the untracked files found now, `fresh`. In an
/// incremental run the base tree already holds those of the last capture,
/// `old`: files gone since (or now ignored) are removed, and only new or
/// changed ones are added. Otherwise the base is HEAD's tree and every file
/// is added.
pub(super) fn untracked_edits(
    fresh: &[Untracked],
    old: Option<&gix::index::File>,
    incremental: bool,
    edits: &mut Vec<Edit>,
) {
    if !incremental {
        for f in fresh {
            edits.push(Edit::Upsert(f.path.clone(), mode_kind(f.mode), f.id));
        }
        return;
    }
    let now: HashMap<&BStr, (ObjectId, Mode)> =
        fresh.iter().map(|f| (f.path.as_bstr(), (f.id, f.mode))).collect();
    if let Some(old) = old {
        for e in old.entries() {
            let p = e.path(old);
            if !now.contains_key(p) {
                edits.push(Edit::Remove(p.to_owned()));
            }
        }
    }
    for f in fresh {
        let unchanged = old
            .and_then(|old| old.entry_by_path(f.path.as_bstr()))
            .is_some_and(|e| e.id == f.id && e.mode == f.mode);
        if !unchanged {
            edits.push(Edit::Upsert(f.path.clone(), mode_kind(f.mode), f.id));
        }
    }
}

/// Apply `edits` to `base` and write the changed trees through `rec`;
/// returns the new root tree. All removals go first, so a path can change
/// between file and directory within one capture.
pub(super) fn apply(
    repo: &gix::Repository,
    rec: &Recorder<'_>,
    base: ObjectId,
    edits: Vec<Edit>,
) -> Result<ObjectId> {
    if edits.is_empty() {
        repo::ensure_tree_object(rec, base)?;
        return Ok(base);
    }
    let mut editor = repo::tree_editor(repo, Some(base))?;
    let (removes, upserts): (Vec<_>, Vec<_>) = edits.into_iter().partition(|e| matches!(e, Edit::Remove(_)));
    let base_tree = repo
        .find_tree(base)
        .context(|| format!("could not read tree {base}"))?;
    let mut removes_kept = Vec::with_capacity(removes.len());
    for e in removes {
        // A removal is of a file, symlink or gitlink gone from the worktree.
        // When the base tree has a directory there (a tracked file replaced
        // by a directory at an earlier capture), that directory stays.
        if let Edit::Remove(p) = &e
            && is_tree_in(repo, base_tree.id, p)?
        {
            continue;
        }
        removes_kept.push(e);
    }
    for e in removes_kept.into_iter().chain(upserts) {
        match e {
            Edit::Remove(p) => editor
                .remove(p.split(|b| *b == b'/'))
                .map(drop)
                .map_err(git_err(format!(
                    "could not remove {} from the tree",
                    p.to_str_lossy()
                )))?,
            Edit::Upsert(p, kind, id) => editor
                .upsert(p.split(|b| *b == b'/'), kind, id)
                .map(drop)
                .map_err(git_err(format!("could not add {} to the tree", p.to_str_lossy())))?,
        }
    }
    let tree = editor.write(|t| rec.write_object(t))?;
    repo::ensure_tree_object(rec, tree)?;
    Ok(tree)
}

/// Whether `tree` has a directory at `path`.
fn is_tree_in(repo: &gix::Repository, tree: ObjectId, path: &BString) -> Result<bool> {
    Ok(repo::entry_at(repo, tree, path)?.is_some_and(|(mode, _)| mode.is_tree()))
}

pub(super) use crate::repo::objects::{kind_mode, mode_kind};

/// Flip the executable bit of a regular file's mode; other modes are kept.
pub(super) fn toggle_exec(mode: Mode) -> Mode {
    match mode {
        Mode::FILE => Mode::FILE_EXECUTABLE,
        Mode::FILE_EXECUTABLE => Mode::FILE,
        other => other,
    }
}
