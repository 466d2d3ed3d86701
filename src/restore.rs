//! Put the worktree back to a tree: write and delete only the paths that
//! differ from the current snapshot, prune folders the deletions emptied,
//! then reset the index to HEAD (to the target on an unborn branch).
//!
//! Ignored files are never touched: they are in neither snapshot. Nested
//! repositories are never deleted (a gitlink only names their commit).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use gix::objs::tree::EntryKind;
use serde::Serialize;

use crate::diff::changes;
use crate::error::{Context as _, Error, Result};
use crate::model::note::ChangeKind;
use crate::repo;

/// What a restore changes in the worktree.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Plan {
    /// Paths written from the target (created or overwritten).
    pub write: Vec<String>,
    /// Paths deleted.
    pub delete: Vec<String>,
    #[serde(skip)]
    write_raw: Vec<BString>,
    #[serde(skip)]
    delete_raw: Vec<BString>,
}

impl Plan {
    /// Whether nothing would change.
    pub fn is_empty(&self) -> bool {
        self.write_raw.is_empty() && self.delete_raw.is_empty()
    }
}

/// The paths to write and delete to turn the worktree snapshot `current` into `target`.
pub fn plan(repo: &gix::Repository, current: ObjectId, target: ObjectId) -> Result<Plan> {
    let mut p = Plan::default();
    for change in changes::tree_changes(repo, current, target)? {
        let old_is_link = change.old.is_some_and(|s| s.kind == EntryKind::Commit);
        let new_is_link = change.new.is_some_and(|s| s.kind == EntryKind::Commit);
        match change.kind {
            ChangeKind::Deleted => {
                if !old_is_link {
                    p.delete_raw.push(change.path.clone());
                }
            }
            ChangeKind::Renamed => {
                if let Some(old) = &change.old_path
                    && !old_is_link
                {
                    p.delete_raw.push(old.clone());
                }
                if !new_is_link {
                    p.write_raw.push(change.path.clone());
                }
            }
            ChangeKind::Added | ChangeKind::Modified | ChangeKind::TypeChanged => {
                if !new_is_link {
                    p.write_raw.push(change.path.clone());
                }
            }
        }
    }
    p.write_raw.sort();
    p.delete_raw.sort();
    p.write = p.write_raw.iter().map(|b| repo::path_string(b)).collect();
    p.delete = p.delete_raw.iter().map(|b| repo::path_string(b)).collect();
    Ok(p)
}

fn abs(workdir: &Path, rela: &BString) -> Result<PathBuf> {
    let rel = gix::path::from_bstr(rela.as_bstr()).map_err(|e| Error::Git {
        context: format!("{} is not a valid path here", rela.to_str_lossy()),
        source: Box::new(e),
    })?;
    Ok(workdir.join(rel))
}

/// Carry out `plan`: delete, prune emptied folders, then write from `target`.
pub fn apply(repo: &gix::Repository, target: ObjectId, plan: &Plan) -> Result<()> {
    let workdir = repo::workdir(repo)?;
    for rela in &plan.delete_raw {
        let path = abs(&workdir, rela)?;
        match std::fs::symlink_metadata(&path) {
            Ok(md) if md.is_dir() => continue, // a nested repository or a folder now: leave it
            Ok(_) => {
                std::fs::remove_file(&path).context(|| format!("could not delete {}", path.display()))?
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).context(|| format!("could not stat {}", path.display())),
        }
        prune_empty_parents(&workdir, &path);
    }
    if plan.write_raw.is_empty() {
        return Ok(());
    }
    let wanted: HashSet<&[u8]> = plan.write_raw.iter().map(|p| p.as_slice()).collect();
    let mut index = repo
        .index_from_tree(&target)
        .context(|| format!("could not read tree {target}"))?;
    index.remove_entries(|_, path, _| !wanted.contains(path.as_bytes()));
    if index.entries().is_empty() {
        // gix's checkout panics on an index without entries.
        return Ok(());
    }
    let mut options = repo
        .checkout_options(gix::worktree::stack::state::attributes::Source::IdMapping)
        .context(|| "could not read checkout settings".into())?;
    options.overwrite_existing = true;
    options.destination_is_initially_empty = false;
    let objects = repo
        .objects
        .clone()
        .into_arc()
        .context(|| "could not share the object database".into())?;
    let outcome = gix::worktree::state::checkout(
        &mut index,
        &workdir,
        objects,
        &gix::progress::Discard,
        &gix::progress::Discard,
        &AtomicBool::new(false),
        options,
    )
    .context(|| format!("could not write files into {}", workdir.display()))?;
    if let Some(e) = outcome.errors.first() {
        return Err(Error::Io {
            context: format!("could not write {}", e.path.to_str_lossy()),
            path: None,
            source: std::io::Error::other(e.error.to_string()),
        });
    }
    if let Some(c) = outcome.collisions.first() {
        return Err(Error::Refused(format!(
            "could not write {}: it collides with another path",
            c.path.to_str_lossy()
        )));
    }
    Ok(())
}

/// Remove folders that the deletion of `path` left empty, up to the worktree root.
fn prune_empty_parents(workdir: &Path, path: &Path) {
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d == workdir || !d.starts_with(workdir) || std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

/// Reset the user's index to HEAD (to `target` on an unborn branch), keeping
/// the stat data of entries that did not change so `git status` stays fast.
pub fn reset_index(repo: &gix::Repository, target: ObjectId) -> Result<()> {
    let base = repo::head_tree(repo)?.unwrap_or(target);
    let path = repo.index_path();
    if path.is_file()
        && let Ok(old) = repo.open_index()
        && old.entries().iter().all(|e| e.stage_raw() == 0)
        && old
            .tree()
            .is_some_and(|t| t.num_entries.is_some_and(|n| n as usize == old.entries().len()) && t.id == base)
    {
        // The cache-tree extension says the index is exactly `base` already:
        // nothing to reset, and the user's index file stays as it is.
        return Ok(());
    }
    let mut fresh = repo
        .index_from_tree(&base)
        .context(|| format!("could not read tree {base}"))?;
    if path.is_file()
        && let Ok(old) = repo.open_index()
    {
        let stat_opts = repo
            .stat_options()
            .context(|| "could not read core.checkStat".into())?;
        let (entries, backing) = fresh.entries_mut_and_pathbacking();
        for entry in entries.iter_mut() {
            // Racy entries keep a zero stat: the new index file is younger
            // than their mtime, so copying would make them look clean.
            if let Some(e) = old.entry_by_path(entry.path_in(backing))
                && e.id == entry.id
                && e.mode == entry.mode
                && e.stage_raw() == 0
                && !e.stat.is_racy(old.timestamp(), stat_opts)
            {
                entry.stat = e.stat;
                entry.flags |= e.flags & gix::index::entry::Flags::SKIP_WORKTREE;
            }
        }
    }
    fresh.set_path(&path);
    fresh
        .write(Default::default(), Default::default())
        .context(|| format!("could not write the index {}", path.display()))
}
