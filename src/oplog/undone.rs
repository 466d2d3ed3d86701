//! Which ops are still in effect: an op is undone by a later undo that is
//! itself in effect; a bare `op undo` walks back past its own undos.

use gix::ObjectId;

use super::{Entry, walk};
use crate::error::Result;

/// The log newest first, each op with the op in effect that undid it, if
/// any (an undo that was undone in turn undoes nothing).
pub fn walk_undone(
    repo: &gix::Repository,
) -> Result<impl Iterator<Item = Result<(Entry, Option<ObjectId>)>> + '_> {
    let mut undone: std::collections::HashMap<ObjectId, ObjectId> = Default::default();
    Ok(walk(repo)?.map(move |e| {
        let e = e?;
        let by = undone.get(&e.id).copied();
        if by.is_none()
            && let Some(target) = e.op.undoes
        {
            undone.insert(target.get(), e.id);
        }
        Ok((e, by))
    }))
}

/// The op in effect that undid op `op`, if any.
pub fn undone_by(repo: &gix::Repository, op: ObjectId) -> Result<Option<ObjectId>> {
    for e in walk_undone(repo)? {
        let (e, by) = e?;
        if e.id == op {
            return Ok(by);
        }
    }
    Ok(None)
}

/// What a bare `op undo` undoes: the newest op not yet undone, of any
/// kind, walking past the undos earlier bare `op undo`s made (and what
/// they undid), so that repeated, it goes further back.
pub fn latest_to_undo(repo: &gix::Repository) -> Result<Option<Entry>> {
    for e in walk_undone(repo)? {
        let (e, by) = e?;
        if by.is_none() && !e.op.stepped {
            return Ok(Some(e));
        }
    }
    Ok(None)
}
