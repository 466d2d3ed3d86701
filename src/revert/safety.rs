//! The safety checkpoint: everything a restore may change, kept before it
//! changes anything.
//!
//! It holds the worktree as a capture sees it, **plus** every file the
//! capture leaves out but the restore would overwrite or delete (ignored,
//! t3-ignored or skipped files and directories where the target has a path;
//! a file or symlink where the target needs a directory), **plus** the
//! worktree content of skip-worktree entries (a capture does not look at
//! them). The user's index is kept as a tree of its own (`index_tree`) when
//! it differs from HEAD; an index with conflicts is refused up front.
//!
//! A nested repository in the way is never deleted: the restore refuses and
//! names it, or with `force` it is moved aside under `<git dir>/t3/aside/`
//! (recorded, and put back by an undo).

use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};

use crate::error::{Context as _, Error, Result, git_err};
use crate::oplog::{self, MovedAside};
use crate::repo::{self, Locked, Recorder};
use crate::restore::collisions::{self, Kind};
use crate::restore::{self, Plan};

/// A safety checkpoint, written (its tree) but not yet referenced.
#[derive(Debug, Clone)]
pub struct Safety {
    /// The tree: the worktree plus what the restore would overwrite.
    pub tree: ObjectId,
    /// The user's index as a tree, when it differs from HEAD.
    pub index_tree: Option<ObjectId>,
    /// Nested repositories to move out of the way before the restore.
    pub moved_aside: Vec<MovedAside>,
}

/// Snapshot what restoring the worktree to `target` may touch, and plan
/// that restore. Objects are written through `rec`; nothing is moved yet.
pub fn take(lock: &Locked<'_>, rec: &Recorder<'_>, target: ObjectId, force: bool) -> Result<(Safety, Plan)> {
    let (safety, plan, _) = take_with(lock, rec, |_| Ok(target), force)?;
    Ok((safety, plan))
}

/// [`take`], with the target built from the worktree's snapshot by
/// `target` (a restore of some paths edits the snapshot's own tree, so the
/// plan touches nothing else). Returns the target too.
pub fn take_with(
    lock: &Locked<'_>,
    rec: &Recorder<'_>,
    target: impl FnOnce(ObjectId) -> Result<ObjectId>,
    force: bool,
) -> Result<(Safety, Plan, ObjectId)> {
    let repo = lock.repo();
    let workdir = repo::workdir(repo)?;
    let t = crate::trace::span("index tree");
    let index_tree = restore::index::index_tree(repo, rec)?;
    drop(t);
    let t = crate::trace::span("safety snapshot");
    let snapshot = crate::snapshot::snapshot(lock, rec)?;
    // The safety checkpoint publishes these objects next; flushing them now
    // lets the cache keep their ids.
    snapshot.keep_cache(rec)?;
    drop(t);
    let target = target(snapshot.tree)?;
    let t = crate::trace::span("restore plan");
    let plan = restore::plan(repo, snapshot.tree, target)?;
    drop(t);
    let _t = crate::trace::span("collisions and skip-worktree");
    let mut extra: Vec<BString> = Vec::new();
    let mut nested: Vec<BString> = Vec::new();
    for c in collisions::find(&workdir, &plan)? {
        match c.kind {
            Kind::File | Kind::Symlink => extra.push(c.path),
            Kind::Dir => {
                let (files, repos) = collisions::files_below(&workdir, c.path.as_bstr())?;
                extra.extend(files);
                nested.extend(repos);
            }
            Kind::Repository => nested.push(c.path),
        }
    }
    extra.extend(restore::index::skipped_and_present(repo, &workdir)?);
    let moved_aside = aside(repo, &nested, force)?;
    let tree = add_files(repo, rec, snapshot.tree, &extra)?;
    Ok((
        Safety {
            tree,
            index_tree,
            moved_aside,
        },
        plan,
        target,
    ))
}

/// Before a restore to `target` that resumes an interrupted one: take a
/// safety checkpoint of what is there now (work done after the crash), and
/// when the restore would change anything that the earlier safety checkpoint
/// (tree `kept`) does not already hold, record it as a `restore` op so that
/// `op undo` can bring it back. Returns the restore's plan.
pub fn keep_before_resume(
    lock: &Locked<'_>,
    thread: Option<&str>,
    target: ObjectId,
    kept: Option<ObjectId>,
    force: bool,
) -> Result<Plan> {
    let repo = lock.repo();
    let rec = Recorder::new(repo);
    let (safety, plan) = take(lock, &rec, target, force)?;
    if plan.is_empty() || kept == Some(safety.tree) && safety.index_tree.is_none() {
        return Ok(plan);
    }
    let mut op = oplog::Op::new(oplog::Kind::Restore, thread);
    let message = format!(
        "t3 safety resume{}",
        thread.map(|t| format!(" thread={t}")).unwrap_or_default()
    );
    let commit = repo::write_commit(&rec, safety.tree, Vec::new(), &message)?;
    rec.sync()?;
    op.safety = Some(commit.into());
    op.index_tree = safety.index_tree.map(Into::into);
    op.restored = Some(target.into());
    oplog::record(lock, &op, &[])?;
    Ok(plan)
}

/// Where the nested repositories in the way will go, or the refusal that names them.
fn aside(repo: &gix::Repository, nested: &[BString], force: bool) -> Result<Vec<MovedAside>> {
    let Some(first) = nested.first() else {
        return Ok(Vec::new());
    };
    if !force {
        return Err(Error::Refused(format!(
            "the nested repository {} is where the restore must write{}; move it yourself, \
             or pass --force to move it aside under {}",
            first.to_str_lossy(),
            if nested.len() > 1 {
                format!(" (and {} more)", nested.len() - 1)
            } else {
                String::new()
            },
            repo::t3_worktree_dir(repo).join("aside").display()
        )));
    }
    let stamp = jiff::Timestamp::now().strftime("%Y%m%dT%H%M%SZ").to_string();
    let base = repo::t3_worktree_dir(repo)
        .join("aside")
        .join(format!("{stamp}-{}", std::process::id()));
    let base = std::path::absolute(&base).context(|| format!("could not resolve {}", base.display()))?;
    nested
        .iter()
        .map(|p| {
            // The record is TOML: a name that is not UTF-8 cannot be kept
            // exactly, so such a repository is never moved.
            let Ok(path) = std::str::from_utf8(p) else {
                return Err(Error::Refused(format!(
                    "the nested repository {} is where the restore must write, and its name is not \
                     UTF-8, so git t3 cannot move it aside safely; move it yourself",
                    p.to_str_lossy()
                )));
            };
            let to = base.join(path);
            let Some(to) = to.to_str() else {
                return Err(Error::Refused(format!(
                    "cannot move the nested repository {path} aside: {} is not UTF-8",
                    base.display()
                )));
            };
            Ok(MovedAside {
                path: path.to_owned(),
                to: to.to_owned(),
            })
        })
        .collect()
}

/// Move the nested repositories of `moved` to their place aside (`back`:
/// return them). Idempotent: what is already where it goes is left alone.
/// Moving aside fails when a repository is still in the worktree after it
/// (the restore must not write over it).
pub fn move_repositories(workdir: &Path, moved: &[MovedAside], back: bool) -> Result<()> {
    for m in moved {
        let here = workdir.join(&m.path);
        let there = PathBuf::from(&m.to);
        let (from, to) = if back { (&there, &here) } else { (&here, &there) };
        if std::fs::symlink_metadata(from).is_err() || std::fs::symlink_metadata(to).is_ok() {
            if !back && collisions::is_repository(&here) {
                return Err(Error::Refused(format!(
                    "the nested repository {} could not be moved aside to {} (something is there); \
                     nothing was written over it",
                    here.display(),
                    there.display()
                )));
            }
            continue;
        }
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).context(|| format!("could not create {}", parent.display()))?;
        }
        std::fs::rename(from, to)
            .context(|| format!("could not move {} to {}", from.display(), to.display()))?;
    }
    Ok(())
}

/// `base` with the worktree files `paths` added (hashed like `git add`).
fn add_files(
    repo: &gix::Repository,
    rec: &Recorder<'_>,
    base: ObjectId,
    paths: &[BString],
) -> Result<ObjectId> {
    if paths.is_empty() {
        return Ok(base);
    }
    let (pipeline, _) = repo
        .filter_pipeline(None)
        .context(|| "could not set up clean filters".into())?;
    let mut pipeline = crate::snapshot::Clean::new(repo, pipeline, None);
    let workdir = repo::workdir(repo)?;
    let mut editor = repo::tree_editor(repo, Some(base))?;
    for path in paths {
        // Streamed: a file skipped for its size is kept in bounded memory.
        let hashed = crate::snapshot::hash_file(repo, rec, &mut pipeline, &workdir, path.as_bstr())
            .context(|| format!("could not keep {} in the safety checkpoint", path.to_str_lossy()))?;
        if let Some((id, kind)) = hashed {
            rec.note_written([id]);
            editor
                .upsert(path.split(|b| *b == b'/'), kind, id)
                .map_err(git_err(format!(
                    "could not add {} to the safety checkpoint",
                    path.to_str_lossy()
                )))?;
        }
    }
    let tree = editor.write(|t| rec.write_object(t))?;
    repo::ensure_tree_object(rec, tree)?;
    Ok(tree)
}
