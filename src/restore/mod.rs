//! Put the worktree back to a tree: write and delete only the paths that
//! differ from the current snapshot, prune folders the deletions emptied;
//! the index is handled by [`index`].
//!
//! What a restore never does:
//! - delete an untracked file that the target's ignore rules ignore, its
//!   `.gitignore` files or its t3 rules (`.t3ignore`, `info/t3-exclude`)
//!   (the snapshot it is compared with leaves out what the current rules
//!   ignore, and the files over `t3.maxFileSize`, so neither set of rules'
//!   ignored files nor a skipped file is touched); a `.t3ignore` the target
//!   lacks but that stays (its rules keep it, or it was never captured)
//!   keeps its rules in force for this decision, as they are after;
//! - write a path that is skip-worktree in the user's index and absent from
//!   the worktree (a sparse checkout's out-of-cone files), or drop that bit;
//! - delete a nested repository (a gitlink only names its commit).
//!
//! Ignored files, ignored directories and nested repositories that sit where
//! the target has a path are found by [`collisions`] before anything is
//! written, so the caller can keep them in its safety checkpoint (or refuse).

pub mod collisions;
pub mod index;
mod stream;
pub mod verify;

use std::collections::HashSet;
use std::path::Path;

use gix::ObjectId;
use gix::bstr::{BStr, BString, ByteSlice};
use gix::objs::tree::EntryKind;
use serde::Serialize;

use crate::diff::changes;
use crate::error::{Context as _, Error, Result};
use crate::model::note::ChangeKind;
use crate::model::path::PathText;
use crate::repo::{self, Locked};

mod checkout;
pub use checkout::*;

/// What a restore changes in the worktree.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Plan {
    /// Paths written from the target (created or overwritten).
    pub write: Vec<PathText>,
    /// Paths deleted.
    pub delete: Vec<PathText>,
    /// Untracked files left in place because the target's rules ignore them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kept: Vec<PathText>,
    #[serde(skip)]
    write_raw: Vec<BString>,
    #[serde(skip)]
    delete_raw: Vec<BString>,
    /// Written paths the current snapshot does not have (where something
    /// the snapshot leaves out may sit).
    #[serde(skip)]
    new_raw: Vec<BString>,
    /// Gitlinks the target has where the worktree has nothing: each gets an
    /// empty folder, as git's checkout of a gitlink makes (its repository
    /// lives elsewhere; nothing is ever written into it).
    #[serde(skip)]
    links_raw: Vec<BString>,
}

impl Plan {
    /// Whether nothing would change.
    pub fn is_empty(&self) -> bool {
        self.write_raw.is_empty() && self.delete_raw.is_empty()
    }

    /// Paths to write, as bytes.
    pub fn writes(&self) -> &[BString] {
        &self.write_raw
    }

    /// Written paths that are not in the current snapshot.
    pub fn new_paths(&self) -> &[BString] {
        &self.new_raw
    }

    /// Paths to delete, as bytes.
    pub fn deletes(&self) -> &[BString] {
        &self.delete_raw
    }
}

/// The paths to write and delete to turn the worktree snapshot `current`
/// into `target`. Untracked files that the target's ignore rules ignore are
/// kept, not deleted.
pub fn plan(repo: &gix::Repository, current: ObjectId, target: ObjectId) -> Result<Plan> {
    let mut p = Plan::default();
    for change in changes::tree_changes(repo, current, target)? {
        let old_is_link = change.old.is_some_and(|s| s.kind == EntryKind::Commit);
        let new_is_link = change.new.is_some_and(|s| s.kind == EntryKind::Commit);
        // A rename's source goes (a copy's stays).
        if let Some(old) = change
            .old_path
            .as_ref()
            .filter(|_| !old_is_link && change.kind == ChangeKind::Renamed)
        {
            p.delete_raw.push(old.clone());
        }
        match change.kind {
            ChangeKind::Deleted if !old_is_link => p.delete_raw.push(change.path.clone()),
            ChangeKind::Added | ChangeKind::Renamed | ChangeKind::Copied if !new_is_link => {
                p.new_raw.push(change.path.clone());
                p.write_raw.push(change.path.clone());
            }
            ChangeKind::Modified | ChangeKind::TypeChanged if !new_is_link => {
                p.write_raw.push(change.path.clone());
            }
            // A file where the target has a nested repository: the file goes,
            // the repository (if it is kept aside) comes back in its place.
            ChangeKind::TypeChanged if !old_is_link => p.delete_raw.push(change.path.clone()),
            ChangeKind::Added | ChangeKind::Renamed | ChangeKind::Copied if new_is_link => {
                p.links_raw.push(change.path.clone())
            }
            _ => {}
        }
    }
    // A `.gitattributes` the restore changes changes how files it leaves
    // alone are recorded: those whose bytes are not the target's are
    // written again, as a checkout under the new attributes writes them.
    let attrs: Vec<&BString> = p
        .write_raw
        .iter()
        .chain(&p.delete_raw)
        .filter(|path| path.as_slice() == b".gitattributes" || path.ends_with(b"/.gitattributes"))
        .collect();
    if !attrs.is_empty() {
        let folders: Vec<BString> = attrs
            .iter()
            .map(|a| BString::from(a.rfind_byte(b'/').map_or(&a[..0], |i| &a[..i])))
            .collect();
        let more = renormalized(repo, target, &folders, &p.write_raw)?;
        p.write_raw.extend(more);
    }
    // Tracked files are captured whatever the rules say: only untracked ones are kept.
    let tracked = index::tracked_paths(repo)?;
    let untracked: Vec<BString> = p
        .delete_raw
        .iter()
        .filter(|path| !tracked.contains(path.as_slice()))
        .cloned()
        .collect();
    let t3_rules = crate::snapshot::scope::Excludes::of_tree(repo, target)?;
    let mut ignored = ignored_by(repo, target, t3_rules.as_ref(), &untracked)?;
    // A `.t3ignore` the target lacks but whose rules keep it stays, and its
    // rules with it: what they keep is kept too (else a file the revert
    // leaves would be captured right after it, as if the revert forgot it).
    let t3ignore = crate::snapshot::scope::T3IGNORE.as_bytes();
    let deleted_now = p.delete_raw.iter().any(|d| d.as_slice() == t3ignore) && !ignored.contains(t3ignore);
    let workdir = repo::workdir(repo)?;
    let stays = !deleted_now
        && repo::entry_at(repo, target, t3ignore)?.is_none()
        && std::fs::symlink_metadata(workdir.join(crate::snapshot::scope::T3IGNORE))
            .is_ok_and(|m| m.is_file());
    if stays {
        let now = crate::snapshot::scope::Excludes::of_worktree(repo, &workdir)?;
        ignored = ignored_by(repo, target, now.as_ref(), &untracked)?;
        ignored.insert(BString::from(t3ignore));
    }
    let (kept, deleted): (Vec<_>, Vec<_>) = std::mem::take(&mut p.delete_raw)
        .into_iter()
        .partition(|path| ignored.contains(path));
    p.delete_raw = deleted;
    p.write_raw.sort();
    p.delete_raw.sort();
    p.new_raw.sort();
    let text = |paths: &[BString]| paths.iter().map(|b| PathText(b.to_vec())).collect();
    p.write = text(&p.write_raw);
    p.delete = text(&p.delete_raw);
    p.kept = text(&kept);
    p.kept.sort();
    Ok(p)
}

/// Which of `paths` the ignore rules of tree `tree` (its `.gitignore` files,
/// plus `info/exclude` and `core.excludesFile`) ignore, a parent directory
/// included; or its t3 rules (its `.t3ignore`, plus `info/t3-exclude`),
/// matched on their own so that a `!` line in them never takes back what
/// git's rules ignore.
fn ignored_by(
    repo: &gix::Repository,
    tree: ObjectId,
    t3_rules: Option<&crate::snapshot::scope::Excludes>,
    paths: &[BString],
) -> Result<HashSet<BString>> {
    let mut out = HashSet::new();
    if paths.is_empty() {
        return Ok(out);
    }
    if let Some(t3) = t3_rules {
        let mut matcher = t3.matcher(repo);
        for path in paths {
            if matcher.is_excluded(path.as_bstr(), false)? {
                out.insert(path.clone());
            }
        }
    }
    let index = ignore_files_of(repo, tree, paths)?;
    let mut excludes = repo
        .excludes(
            &index,
            None,
            gix::worktree::stack::state::ignore::Source::IdMapping,
        )
        .context(|| "could not read the ignore rules".into())?;
    for path in paths {
        let mut hit = false;
        let mut prefixes = path
            .char_indices()
            .filter(|(_, _, c)| *c == '/')
            .map(|(start, _, _)| &path[..start])
            .collect::<Vec<_>>();
        prefixes.push(path.as_slice());
        for (i, prefix) in prefixes.iter().enumerate() {
            let is_dir = i + 1 < prefixes.len();
            let mode = is_dir.then_some(gix::index::entry::Mode::DIR);
            let platform = excludes
                .at_entry(BStr::new(prefix), mode)
                .context(|| format!("could not match {} against the ignore rules", path.to_str_lossy()))?;
            if platform.is_excluded() {
                hit = true;
                break;
            }
        }
        if hit {
            out.insert(path.clone());
        }
    }
    Ok(out)
}

/// The regular files of `target` below `folders` (worktree-relative; `""`:
/// all) that are not in `planned` and whose bytes in the worktree are not
/// the target blob's.
fn renormalized(
    repo: &gix::Repository,
    target: ObjectId,
    folders: &[BString],
    planned: &[BString],
) -> Result<Vec<BString>> {
    let workdir = repo::workdir(repo)?;
    let planned: HashSet<&[u8]> = planned.iter().map(|p| p.as_slice()).collect();
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut stack: Vec<(BString, ObjectId)> = Vec::new();
    for folder in folders {
        let tree = if folder.is_empty() {
            Some(target)
        } else {
            repo::entry_at(repo, target, folder)?
                .filter(|(mode, _)| mode.is_tree())
                .map(|(_, id)| id)
        };
        if let Some(tree) = tree.filter(|t| seen.insert(*t)) {
            stack.push((folder.clone(), tree));
        }
    }
    let mut walked = 0usize;
    while let Some((dir, tree)) = stack.pop() {
        let data = repo
            .find_tree(tree)
            .context(|| format!("could not read tree {tree}"))?;
        for entry in
            gix::objs::TreeRefIter::from_bytes(&data.data, tree.kind()).filter_map(std::result::Result::ok)
        {
            walked += 1;
            if walked > verify::MAX_ENTRIES {
                return Ok(out);
            }
            let mut path = dir.clone();
            if !path.is_empty() {
                path.push(b'/');
            }
            path.extend_from_slice(entry.filename);
            if entry.mode.is_tree() {
                stack.push((path, entry.oid.to_owned()));
                continue;
            }
            if !entry.mode.is_blob() || planned.contains(path.as_slice()) {
                continue;
            }
            let Ok(abs) = abs(&workdir, path.as_bstr()) else {
                continue;
            };
            let Ok(md) = std::fs::symlink_metadata(&abs) else {
                continue;
            };
            let size = repo
                .find_header(entry.oid)
                .context(|| format!("could not read the header of blob {}", entry.oid))?
                .size();
            if !md.is_file() {
                continue;
            }
            if md.len() != size {
                out.push(path);
                continue;
            }
            let Ok(now) = crate::fsread::read_regular(&abs, false) else {
                continue;
            };
            let blob = repo
                .find_blob(entry.oid)
                .context(|| format!("could not read blob {}", entry.oid))?;
            if blob.data != now {
                out.push(path);
            }
        }
    }
    Ok(out)
}

/// An index holding only the `.gitignore` files of tree `tree` that apply to
/// `paths` (in their directories and above): all the ignore stack reads, for
/// a fraction of the cost of the whole tree as an index.
fn ignore_files_of(repo: &gix::Repository, tree: ObjectId, paths: &[BString]) -> Result<gix::index::State> {
    let root = repo
        .find_tree(tree)
        .context(|| format!("could not read tree {tree}"))?;
    let mut dirs = std::collections::BTreeSet::new();
    dirs.insert(BString::default());
    for path in paths {
        for (start, _, c) in path.char_indices() {
            if c == '/' {
                dirs.insert(BString::from(&path[..start]));
            }
        }
    }
    let mut index = gix::index::State::new(repo.object_hash());
    for dir in dirs {
        let mut file = dir.clone();
        if !file.is_empty() {
            file.push(b'/');
        }
        file.extend_from_slice(b".gitignore");
        let entry = repo::entry_at(repo, root.id, &file)?;
        if let Some((_, id)) = entry.filter(|(mode, _)| mode.is_blob()) {
            index.dangerously_push_entry(
                gix::index::entry::Stat::default(),
                id,
                gix::index::entry::Flags::empty(),
                gix::index::entry::Mode::FILE,
                file.as_bstr(),
            );
        }
    }
    index.sort_entries();
    Ok(index)
}

pub use crate::model::path::abs;

/// Carry out `plan`: delete, prune emptied folders, then write from `target`.
pub fn apply(lock: &Locked<'_>, target: ObjectId, plan: &Plan) -> Result<()> {
    let repo = lock.repo();
    let workdir = repo::workdir(repo)?;
    for rela in &plan.delete_raw {
        let path = abs(&workdir, rela.as_bstr())?;
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
    for rela in &plan.links_raw {
        let path = abs(&workdir, rela.as_bstr())?;
        if std::fs::symlink_metadata(&path).is_err() && no_links_between(&workdir, &path) {
            std::fs::create_dir_all(&path).context(|| format!("could not create {}", path.display()))?;
        }
    }
    if plan.write_raw.is_empty() {
        return Ok(());
    }
    let sparse = index::skipped_and_absent(repo, &workdir)?;
    let wanted: HashSet<&[u8]> = plan
        .write_raw
        .iter()
        .map(|p| p.as_slice())
        .filter(|p| !sparse.contains(*p))
        .collect();
    checkout(repo, &workdir, target, &wanted, lock.interrupt())
}
