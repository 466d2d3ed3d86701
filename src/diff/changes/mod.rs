//! Changed paths between two trees, as git's `diff -M` (or `-C`) finds
//! them: gix walks both trees, the changes are limited to the pathspecs,
//! then deletions (and, for copies, changed files) are paired with
//! additions into renames and copies as git pairs them (see [`detect`]);
//! each change keeps the mode and id of both sides.

use gix::ObjectId;
use gix::bstr::BString;
use gix::objs::tree::{EntryKind, EntryMode};

use crate::error::{Context as _, Result};
use crate::model::note::ChangeKind;

mod detect;
mod filter;
mod pathspecs;
mod raw;
pub use detect::{Asked, DEFAULT_SCORE, Detection, Find, MAX_SCORE, Step, parse_score};
pub use filter::StatusFilter;
pub use pathspecs::*;

/// One side of a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Side {
    /// The object (blob, or commit for a gitlink).
    pub id: ObjectId,
    /// Its tree entry kind.
    pub kind: EntryKind,
}

/// One changed path between two trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeChange {
    /// The path on the new side (or the deleted path).
    pub path: BString,
    /// The source of a rename or copy.
    pub old_path: Option<BString>,
    /// What happened.
    pub kind: ChangeKind,
    /// The old side (of a rename or copy: its source's), absent for an
    /// addition.
    pub old: Option<Side>,
    /// The new side, absent for a deletion.
    pub new: Option<Side>,
    /// For a rename or copy: git's similarity index in percent.
    pub similarity: Option<u8>,
}

/// The changed paths from tree `from` to tree `to`, with renames found as
/// `git diff-tree -r -M` finds them, sorted by path bytes.
pub fn tree_changes(repo: &gix::Repository, from: ObjectId, to: ObjectId) -> Result<Vec<TreeChange>> {
    tree_changes_with(repo, from, to, true)
}

/// [`tree_changes`], pairing renames only when `renames`.
pub fn tree_changes_with(
    repo: &gix::Repository,
    from: ObjectId,
    to: ObjectId,
    renames: bool,
) -> Result<Vec<TreeChange>> {
    let how = if renames {
        Detection::renames(repo)
    } else {
        Detection::off()
    };
    tree_changes_found(repo, from, to, &how, &mut |_| true)
}

/// The changed paths from tree `from` to tree `to` that `keep` says yes
/// to (git's pathspecs, which limit a diff before renames are looked for),
/// with renames and copies found as `how` says, sorted by path bytes.
pub fn tree_changes_found(
    repo: &gix::Repository,
    from: ObjectId,
    to: ObjectId,
    how: &Detection,
    keep: &mut dyn FnMut(&[u8]) -> bool,
) -> Result<Vec<TreeChange>> {
    if from == to {
        return Ok(Vec::new());
    }
    if Bound::new(repo).pair(Some(from), Some(to), 0)? > MAX_CHANGES as u64 {
        return Err(crate::Error::Refused(format!(
            "trees {from} and {to} differ in more than {MAX_CHANGES} paths; not compared"
        )));
    }
    // One blob cache (and one read of the attribute files) for the tree
    // diff and the pairing of renames.
    let mut cache = resource_cache(repo)?;
    let mut changes = raw::changes(repo, from, to, &mut cache)?;
    changes.retain(|c| keep(&c.path));
    let mut out = detect::pair(repo, changes, from, how, keep, &mut cache)?;
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Most changed paths compared: a few small trees that repeat one another
/// can stand for billions of paths.
pub const MAX_CHANGES: usize = 1_000_000;

/// The files under `tree` (at least; counting stops above [`MAX_CHANGES`]),
/// each distinct subtree read once.
pub fn file_count(repo: &gix::Repository, tree: ObjectId) -> Result<u64> {
    Bound::new(repo).size(tree, 0)
}

/// Deepest tree nesting counted (paths are at most 4096 bytes).
const MAX_DEPTH: usize = 2048;

/// An upper bound of the paths a diff reports, found cheaply: subtrees
/// equal on both sides count nothing, a subtree on one side counts its
/// files, remembered by id — so trees that repeat one another (a few
/// kilobytes standing for billions of paths) cost one read each.
struct Bound<'r> {
    repo: &'r gix::Repository,
    sizes: std::collections::HashMap<ObjectId, u64>,
}

/// One entry of a tree: its name, whether it is a tree, its id and mode.
type Entry<'a> = (&'a [u8], bool, ObjectId, EntryMode);

impl<'r> Bound<'r> {
    fn new(repo: &'r gix::Repository) -> Self {
        Bound {
            repo,
            sizes: Default::default(),
        }
    }

    /// The entries of the tree `data` (of tree `id`), in its order.
    fn entries(id: ObjectId, data: &[u8]) -> Result<Vec<Entry<'_>>> {
        gix::objs::TreeRefIter::from_bytes(data, id.kind())
            .map(|e| {
                let e = e.map_err(|e| crate::Error::Refused(format!("tree {id} does not parse: {e}")))?;
                Ok((e.filename.as_ref(), e.mode.is_tree(), e.oid.to_owned(), e.mode))
            })
            .collect()
    }

    fn too_deep(depth: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(crate::Error::Refused(format!(
                "a tree nested more than {MAX_DEPTH} deep; not compared"
            )));
        }
        Ok(())
    }

    /// Files under tree `id`.
    fn size(&mut self, id: ObjectId, depth: usize) -> Result<u64> {
        Self::too_deep(depth)?;
        if let Some(n) = self.sizes.get(&id) {
            return Ok(*n);
        }
        let tree = read_tree(self.repo, id)?;
        let mut n = 0u64;
        for (_, is_tree, oid, _) in Self::entries(id, &tree.data)? {
            n = n.saturating_add(if is_tree { self.size(oid, depth + 1)? } else { 1 });
            if n > MAX_CHANGES as u64 {
                break;
            }
        }
        self.sizes.insert(id, n);
        Ok(n)
    }

    /// Paths that differ between trees `old` and `new` (at most; stops
    /// counting above [`MAX_CHANGES`]).
    ///
    /// The two entry lists are walked side by side in git's tree order (a
    /// tree's name compares as if it ended in `/`), without copying a name:
    /// a file and a tree of the same name are not paired, which counts the
    /// same (the file, and the tree's files). Entries out of order (a tree
    /// git would not write) are then counted on both sides: more, never
    /// fewer.
    fn pair(&mut self, old: Option<ObjectId>, new: Option<ObjectId>, depth: usize) -> Result<u64> {
        Self::too_deep(depth)?;
        if old == new {
            return Ok(0);
        }
        crate::interrupt::process().check()?;
        let old_tree = old.map(|id| read_tree(self.repo, id)).transpose()?;
        let new_tree = new.map(|id| read_tree(self.repo, id)).transpose()?;
        let a = match (old, &old_tree) {
            (Some(id), Some(t)) => Self::entries(id, &t.data)?,
            _ => Vec::new(),
        };
        let b = match (new, &new_tree) {
            (Some(id), Some(t)) => Self::entries(id, &t.data)?,
            _ => Vec::new(),
        };
        let (mut a, mut b) = (a.iter().peekable(), b.iter().peekable());
        let mut n = 0u64;
        loop {
            use std::cmp::Ordering;
            let order = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) => tree_order(x.0, x.1, y.0, y.1),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => break,
            };
            let (x, y) = match order {
                Ordering::Equal => (a.next(), b.next()),
                Ordering::Less => (a.next(), None),
                Ordering::Greater => (None, b.next()),
            };
            let count = match (x, y) {
                (Some(&(_, true, x, _)), Some(&(_, true, y, _))) => self.pair(Some(x), Some(y), depth + 1)?,
                (Some(&(_, _, x, xm)), Some(&(_, _, y, ym))) => u64::from(x != y || xm != ym),
                (Some(&(_, true, id, _)), None) | (None, Some(&(_, true, id, _))) => {
                    self.size(id, depth + 1)?
                }
                _ => 1,
            };
            n = n.saturating_add(count);
            if n > MAX_CHANGES as u64 {
                break;
            }
        }
        Ok(n)
    }
}

/// git's order of tree entries: by name, a tree's as if it ended in `/`.
fn tree_order(a: &[u8], a_tree: bool, b: &[u8], b_tree: bool) -> std::cmp::Ordering {
    let common = a.len().min(b.len());
    match a[..common].cmp(&b[..common]) {
        std::cmp::Ordering::Equal => {
            let next = |name: &[u8], is_tree: bool| name.get(common).copied().or(is_tree.then_some(b'/'));
            next(a, a_tree).cmp(&next(b, b_tree))
        }
        other => other,
    }
}

/// git's default `diff.renameLimit`.
pub const DEFAULT_RENAME_LIMIT: usize = 1000;

/// git's `diff.renameLimit` (default 1000; 0 or less: no limit, as in git,
/// and as gix reads a 0): past `limit`² pairs of candidates, only exact
/// renames are found.
/// `git diff-tree` reads it too, so the note's summary follows it.
pub fn rename_limit(repo: &gix::Repository) -> usize {
    match repo.config_snapshot().integer("diff.renameLimit") {
        None => DEFAULT_RENAME_LIMIT,
        Some(n) => usize::try_from(n).unwrap_or(0),
    }
}

/// The tree `id`, or an error naming it.
fn read_tree(repo: &gix::Repository, id: ObjectId) -> Result<gix::Tree<'_>> {
    repo.find_tree(id).context(|| format!("could not read tree {id}"))
}

/// The blob cache rename detection compares contents with.
fn resource_cache(repo: &gix::Repository) -> Result<gix::diff::blob::Platform> {
    // gix's `diff_tree_to_tree` loads the whole index for an attribute stack;
    // rename detection between two trees does not need it, so start empty.
    let empty = gix::index::State::new(repo.object_hash());
    let attrs = repo
        .attributes_only(&empty, gix::worktree::stack::state::attributes::Source::IdMapping)
        .context(|| "could not set up attributes".into())?;
    gix::diff::resource_cache(
        repo,
        gix::diff::blob::pipeline::Mode::ToGit,
        attrs.detach(),
        Default::default(),
    )
    .context(|| "could not set up the diff".into())
}

/// A new file at `path`.
pub(super) fn added(path: BString, new: Side) -> TreeChange {
    TreeChange {
        path,
        old_path: None,
        kind: ChangeKind::Added,
        old: None,
        new: Some(new),
        similarity: None,
    }
}

/// A file gone from `path`.
pub(super) fn deleted(path: BString, old: Side) -> TreeChange {
    TreeChange {
        path,
        old_path: None,
        kind: ChangeKind::Deleted,
        old: Some(old),
        new: None,
        similarity: None,
    }
}

/// A path with a file on both sides.
fn both(path: BString, kind: ChangeKind, old: Side, new: Side) -> TreeChange {
    TreeChange {
        path,
        old_path: None,
        kind,
        old: Some(old),
        new: Some(new),
        similarity: None,
    }
}

/// A path on both sides; when a tree became a file or the other way round,
/// only the file side is a change.
pub(super) fn modified(path: BString, old: Option<Side>, new: Option<Side>) -> Option<TreeChange> {
    match (old, new) {
        (Some(o), Some(n)) => {
            let kind = if same_type(o.kind, n.kind) {
                ChangeKind::Modified
            } else {
                ChangeKind::TypeChanged
            };
            Some(both(path, kind, o, n))
        }
        (Some(o), None) => Some(deleted(path, o)),
        (None, Some(n)) => Some(added(path, n)),
        (None, None) => None,
    }
}

/// git's similarity index in percent from gix's score (out of 60000); an
/// exact rename has no score.
fn percent(score: Option<u16>) -> u8 {
    score.map_or(100, |s| u8::try_from(u32::from(s) * 100 / 60_000).unwrap_or(100))
}

/// Whether two entry kinds are the same type to git (a file's executable
/// bit changes its mode, not its type).
fn same_type(a: EntryKind, b: EntryKind) -> bool {
    let class = |k| match k {
        EntryKind::Blob | EntryKind::BlobExecutable => 0,
        EntryKind::Link => 1,
        EntryKind::Commit => 2,
        EntryKind::Tree => 3,
    };
    class(a) == class(b)
}

#[cfg(test)]
mod tests;
