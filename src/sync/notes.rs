//! Merging the other side's notes into `refs/notes/t3`: a union where the
//! local note wins a conflict, as one notes commit with both histories as
//! parents (so the push that follows fast-forwards).

use std::collections::{HashMap, HashSet};

use gix::ObjectId;

use crate::error::Result;
use crate::repo::notes::NotesChange;
use crate::repo::{self, Expect, Locked, NoteEdit, RefUpdate};

/// Where the other side's notes are fetched to.
pub const INCOMING: &str = "refs/notes/t3-incoming";

/// Merge `refs/notes/t3-incoming` into `refs/notes/t3` (union, local wins).
/// `protected`: commits the other side may not annotate (the local
/// checkpoints there were before the fetch: one without a note here, a
/// T3 Code commit, keeps having none).
pub fn merge_incoming(lock: &Locked<'_>, protected: &HashSet<ObjectId>) -> Result<(usize, Vec<String>)> {
    let repo = lock.repo();
    let Some(theirs) = repo::find_ref(repo, INCOMING)? else {
        return Ok((0, Vec::new()));
    };
    let result = merge_notes(lock, theirs, protected);
    let drop_incoming = RefUpdate {
        name: INCOMING.into(),
        new: None,
        expect: Expect::Any,
    };
    repo::update_refs(lock, &[drop_incoming], "t3: notes merged")?;
    result
}

/// One notes commit with both histories as parents: notes only they have
/// are added, equal ones kept, different ones keep ours and are reported.
fn merge_notes(
    lock: &Locked<'_>,
    theirs: ObjectId,
    protected: &HashSet<ObjectId>,
) -> Result<(usize, Vec<String>)> {
    let repo = lock.repo();
    let their_notes = repo::list_notes(repo, theirs)?;
    let mut counted = (0, Vec::new());
    repo::commit_notes(lock, "t3: merge notes", |ours| {
        let mine: HashMap<ObjectId, ObjectId> = match ours {
            Some(o) if o == theirs || is_ancestor(repo, theirs, o) => return Ok(None),
            Some(o) => repo::list_notes(repo, o)?.into_iter().collect(),
            None => HashMap::new(),
        };
        let (mut merged, mut conflicts, mut edits) = (0, Vec::new(), Vec::new());
        for (object, blob) in &their_notes {
            match mine.get(object) {
                None if protected.contains(object) => conflicts.push(object.to_string()),
                None => {
                    edits.push(NoteEdit::SetBlob(*object, *blob));
                    merged += 1;
                }
                Some(b) if b == blob => {}
                Some(_) => conflicts.push(object.to_string()),
            }
        }
        counted = (merged, conflicts);
        Ok(Some(NotesChange {
            edits,
            extra_parents: vec![theirs],
            squash: false,
        }))
    })?;
    Ok(counted)
}

fn is_ancestor(repo: &gix::Repository, ancestor: ObjectId, of: ObjectId) -> bool {
    repo.merge_base(ancestor, of)
        .ok()
        .flatten()
        .is_some_and(|base| base.detach() == ancestor)
}
