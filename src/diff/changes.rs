//! Changed paths between two trees, as git's `diff -M` finds them: gix walks
//! both trees and pairs deletions with additions into renames (50%
//! similarity), and each change keeps the mode and id of both sides.

use gix::ObjectId;
use gix::bstr::BString;
use gix::objs::tree::{EntryKind, EntryMode};

use crate::error::{Context as _, Result};
use crate::model::note::ChangeKind;

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
    /// The source of a rename.
    pub old_path: Option<BString>,
    /// What happened.
    pub kind: ChangeKind,
    /// The old side, absent for an addition.
    pub old: Option<Side>,
    /// The new side, absent for a deletion.
    pub new: Option<Side>,
    /// For a rename: git's similarity index in percent.
    pub similarity: Option<u8>,
}

fn side(mode: EntryMode, id: ObjectId) -> Option<Side> {
    let kind = mode.kind();
    (kind != EntryKind::Tree).then_some(Side { id, kind })
}

/// The changed paths from tree `from` to tree `to`, with rename detection,
/// sorted by path bytes.
pub fn tree_changes(repo: &gix::Repository, from: ObjectId, to: ObjectId) -> Result<Vec<TreeChange>> {
    if from == to {
        return Ok(Vec::new());
    }
    let old = repo
        .find_tree(from)
        .context(|| format!("could not read tree {from}"))?;
    let new = repo
        .find_tree(to)
        .context(|| format!("could not read tree {to}"))?;
    // gix's `diff_tree_to_tree` loads the whole index for an attribute stack;
    // rename detection between two trees does not need it, so start empty.
    let empty = gix::index::State::new(repo.object_hash());
    let attrs = repo
        .attributes_only(&empty, gix::worktree::stack::state::attributes::Source::IdMapping)
        .context(|| "could not set up attributes".into())?;
    let mut cache = gix::diff::resource_cache(
        repo,
        gix::diff::blob::pipeline::Mode::ToGit,
        attrs.detach(),
        Default::default(),
    )
    .context(|| "could not set up the diff".into())?;
    let options = gix::diff::Options::default().with_rewrites(Some(gix::diff::Rewrites::default()));
    let mut changes = Vec::new();
    gix::diff::tree_with_rewrites(
        gix::objs::TreeRefIter::from_bytes(&old.data, from.kind()),
        gix::objs::TreeRefIter::from_bytes(&new.data, to.kind()),
        &mut cache,
        &mut Default::default(),
        &repo.objects,
        |change: gix::diff::tree_with_rewrites::ChangeRef<'_>| -> gix::Result<_> {
            changes.push(change.into_owned());
            Ok(std::ops::ControlFlow::Continue(()))
        },
        options.into(),
    )
    .map_err(|e| crate::Error::Git {
        context: format!("could not compare trees {from} and {to}"),
        source: Box::new(e),
    })?;
    use gix::object::tree::diff::ChangeDetached as C;
    let mut out = Vec::with_capacity(changes.len());
    for change in changes {
        let tc = match change {
            C::Addition {
                location,
                entry_mode,
                id,
                ..
            } => side(entry_mode, id).map(|s| TreeChange {
                path: location,
                old_path: None,
                kind: ChangeKind::Added,
                old: None,
                new: Some(s),
                similarity: None,
            }),
            C::Deletion {
                location,
                entry_mode,
                id,
                ..
            } => side(entry_mode, id).map(|s| TreeChange {
                path: location,
                old_path: None,
                kind: ChangeKind::Deleted,
                old: Some(s),
                new: None,
                similarity: None,
            }),
            C::Modification {
                location,
                previous_entry_mode,
                previous_id,
                entry_mode,
                id,
            } => match (side(previous_entry_mode, previous_id), side(entry_mode, id)) {
                (Some(o), Some(n)) => Some(TreeChange {
                    path: location,
                    old_path: None,
                    kind: if same_type(o.kind, n.kind) {
                        ChangeKind::Modified
                    } else {
                        ChangeKind::TypeChanged
                    },
                    old: Some(o),
                    new: Some(n),
                    similarity: None,
                }),
                // A tree became a file or the other way round: the file side alone.
                (Some(o), None) => Some(TreeChange {
                    path: location,
                    old_path: None,
                    kind: ChangeKind::Deleted,
                    old: Some(o),
                    new: None,
                    similarity: None,
                }),
                (None, Some(n)) => Some(TreeChange {
                    path: location,
                    old_path: None,
                    kind: ChangeKind::Added,
                    old: None,
                    new: Some(n),
                    similarity: None,
                }),
                (None, None) => None,
            },
            C::Rewrite {
                source_location,
                source_entry_mode,
                source_id,
                entry_mode,
                id,
                location,
                copy,
                similarity,
                ..
            } => match (side(source_entry_mode, source_id), side(entry_mode, id)) {
                (Some(o), Some(n)) if !copy => Some(TreeChange {
                    path: location,
                    old_path: Some(source_location),
                    kind: ChangeKind::Renamed,
                    old: Some(o),
                    new: Some(n),
                    similarity: Some(similarity.map_or(100, |s| {
                        u8::try_from(u32::from(s.score()) * 100 / 60_000).unwrap_or(100)
                    })),
                }),
                (_, Some(n)) => Some(TreeChange {
                    path: location,
                    old_path: None,
                    kind: ChangeKind::Added,
                    old: None,
                    new: Some(n),
                    similarity: None,
                }),
                _ => None,
            },
        };
        out.extend(tc);
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

fn same_type(a: EntryKind, b: EntryKind) -> bool {
    let class = |k| match k {
        EntryKind::Blob | EntryKind::BlobExecutable => 0,
        EntryKind::Link => 1,
        EntryKind::Commit => 2,
        EntryKind::Tree => 3,
    };
    class(a) == class(b)
}

/// The bytes of one side (empty when absent), or `None` for a gitlink.
pub fn load(repo: &gix::Repository, side: Option<Side>) -> Result<Option<Vec<u8>>> {
    match side {
        None => Ok(Some(Vec::new())),
        Some(Side {
            kind: EntryKind::Commit,
            ..
        }) => Ok(None),
        Some(Side { id, .. }) => Ok(Some(
            repo.find_blob(id)
                .context(|| format!("could not read blob {id}"))?
                .take_data(),
        )),
    }
}
