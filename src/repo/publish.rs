//! The one publish protocol, for checkpoints and revert journals alike:
//!
//! 1. objects (the tree's blobs and trees, the commit, and the note's blob,
//!    notes tree and notes commit);
//! 2. the notes ref and the ref, with compare-and-swap, in one transaction:
//!    their lock files written, then flushed to disk with the objects in
//!    one wave, then renamed, the notes ref first
//!    ([`update_refs_with_objects`](crate::repo::refs::update_refs_with_objects)).
//!
//! So a ref never exists without its note, and never points at an object a
//! crash could lose. A process killed between the steps leaves at most a
//! note on a commit no ref points to, which is harmless (`verify` names it).
//! The merge of fetched notes follows the same order through
//! [`commit_notes`](crate::repo::notes::commit_notes) with an extra parent.

use gix::ObjectId;

use crate::error::Result;
use crate::repo::lock::Locked;
use crate::repo::notes::{NoteEdit, edit_notes_then};
use crate::repo::objects::{Recorder, ensure_tree_object, write_commit};
use crate::repo::refs::{Expect, RefUpdate};

/// A snapshot to publish as a parentless commit under a ref, with its note.
#[derive(Debug)]
pub struct Publication<'a> {
    /// The tree (written through the same [`Recorder`]).
    pub tree: ObjectId,
    /// The full ref name; the commit message is `t3 checkpoint ref=<ref>`.
    pub reference: &'a str,
    /// The note's bytes.
    pub note: Vec<u8>,
    /// What the ref must hold now.
    pub expect: Expect,
    /// The reflog and notes-commit message.
    pub message: &'a str,
    /// Commits the new one keeps reachable (none for a checkpoint; a revert
    /// journal keeps the turns it will remove and the user's index).
    pub keep: Vec<ObjectId>,
    /// Other refs moved in the same transaction, after the ref (their
    /// objects written through the same [`Recorder`]).
    pub also: Vec<RefUpdate>,
}

/// Publish `p`: objects, note, ref, each on disk before the next. Returns the commit.
pub fn publish(lock: &Locked<'_>, rec: &Recorder<'_>, p: Publication<'_>) -> Result<ObjectId> {
    let Publication {
        tree,
        reference,
        note,
        expect,
        message,
        keep,
        also,
    } = p;
    ensure_tree_object(rec, tree)?;
    let commit = write_commit(rec, tree, keep, &format!("t3 checkpoint ref={reference}"))?;
    // The notes objects join the checkpoint's, and one flush covers both
    // (the fault point "after-objects" fires right after it); the notes ref
    // and the ref move in one transaction, in that order.
    let update = RefUpdate {
        name: reference.to_owned(),
        new: Some(commit),
        expect,
    };
    let t = crate::trace::span("notes and ref");
    let refs: Vec<RefUpdate> = std::iter::once(update).chain(also).collect();
    edit_notes_then(lock, rec, &[NoteEdit::Set(commit, note)], message, &refs)?;
    drop(t);
    Ok(commit)
}
