//! The changed files between two trees as gix's tree diff reports them,
//! nothing paired yet.

use gix::ObjectId;
use gix::object::tree::diff::ChangeDetached;
use gix::objs::tree::{EntryKind, EntryMode};

use super::{MAX_CHANGES, Side, TreeChange, added, deleted, modified, read_tree};
use crate::error::Result;

/// The files that differ between trees `from` and `to`: additions,
/// deletions and changes in place, in gix's order.
pub(super) fn changes(
    repo: &gix::Repository,
    from: ObjectId,
    to: ObjectId,
    cache: &mut gix::diff::blob::Platform,
) -> Result<Vec<TreeChange>> {
    let old = read_tree(repo, from)?;
    let new = read_tree(repo, to)?;
    let mut changes = Vec::new();
    let mut too_many = false;
    let interrupt = crate::interrupt::process();
    gix::diff::tree_with_rewrites(
        gix::objs::TreeRefIter::from_bytes(&old.data, from.kind()),
        gix::objs::TreeRefIter::from_bytes(&new.data, to.kind()),
        cache,
        &mut Default::default(),
        &repo.objects,
        |change: gix::diff::tree_with_rewrites::ChangeRef<'_>| -> gix::Result<_> {
            if changes.len() >= MAX_CHANGES {
                too_many = true;
                return Ok(std::ops::ControlFlow::Break(()));
            }
            if interrupt.fired() {
                return Ok(std::ops::ControlFlow::Break(()));
            }
            changes.extend(convert(change.into_owned()));
            Ok(std::ops::ControlFlow::Continue(()))
        },
        gix::diff::Options::default().with_rewrites(None).into(),
    )
    .map_err(|e| crate::Error::Git {
        context: format!("could not compare trees {from} and {to}"),
        source: Box::new(e),
    })?;
    interrupt.check()?;
    if too_many {
        return Err(crate::Error::Refused(format!(
            "trees {from} and {to} differ in more than {MAX_CHANGES} paths; not compared"
        )));
    }
    Ok(changes)
}

/// One gix change as a [`TreeChange`]; `None` when only trees are involved.
fn convert(change: ChangeDetached) -> Option<TreeChange> {
    match change {
        ChangeDetached::Addition {
            location,
            entry_mode,
            id,
            ..
        } => side(entry_mode, id).map(|new| added(location, new)),
        ChangeDetached::Deletion {
            location,
            entry_mode,
            id,
            ..
        } => side(entry_mode, id).map(|old| deleted(location, old)),
        ChangeDetached::Modification {
            location,
            previous_entry_mode,
            previous_id,
            entry_mode,
            id,
        } => modified(
            location,
            side(previous_entry_mode, previous_id),
            side(entry_mode, id),
        ),
        // Not asked for (nothing is paired here): the new path alone.
        ChangeDetached::Rewrite {
            location,
            entry_mode,
            id,
            ..
        } => side(entry_mode, id).map(|new| added(location, new)),
    }
}

/// A file side of a change (a blob, link or gitlink); `None` for a tree.
fn side(mode: EntryMode, id: ObjectId) -> Option<Side> {
    let kind = mode.kind();
    (kind != EntryKind::Tree).then_some(Side { id, kind })
}
