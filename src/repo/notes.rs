//! The notes ref `refs/notes/t3`: reading notes, and the one loop that
//! commits changes to it with compare-and-swap and one retry policy (used by
//! checkpoints, revert journals, drops and the merge of fetched notes).

use gix::ObjectId;
use gix::bstr::ByteSlice;

use crate::error::{Context as _, Error, Result};
use crate::model::thread::NOTES_REF;
use crate::repo::lock::Locked;
use crate::repo::objects::{Recorder, commit_tree, ensure_tree_object, write_commit};
use crate::repo::refs::{Expect, RefUpdate, find_ref, update_refs_with_objects};

/// How often a notes commit is retried when another process moved the notes ref.
const ATTEMPTS: u32 = 50;

/// The note blob attached to `object` in `refs/notes/t3`, if any.
pub struct NotesReader<'r> {
    repo: &'r gix::Repository,
    state: Option<gix::note::plumbing::State>,
}

impl<'r> NotesReader<'r> {
    /// Open the current notes tree of `refs/notes/t3`.
    pub fn open(repo: &'r gix::Repository) -> Result<Self> {
        Self::open_ref(repo, NOTES_REF)
    }

    /// Open the notes tree of the notes ref `name` (absent: no notes).
    pub fn open_ref(repo: &'r gix::Repository, name: &str) -> Result<Self> {
        let state = match find_ref(repo, name)? {
            None => None,
            Some(commit) => {
                let tree = commit_tree(repo, commit).map_err(|e| Error::BadMetadata {
                    reference: name.into(),
                    problem: format!("does not point at a commit: {e}"),
                })?;
                Some(
                    gix::note::plumbing::State::new(tree, repo)
                        .context(|| format!("could not read the notes tree of {name}"))?,
                )
            }
        };
        Ok(NotesReader { repo, state })
    }

    /// The id of the note blob on `object`, or `None` without a note.
    pub fn blob_id(&mut self, object: ObjectId) -> Result<Option<ObjectId>> {
        let Some(state) = self.state.as_mut() else {
            return Ok(None);
        };
        state
            .get(&object, self.repo)
            .context(|| format!("could not look up the note of {object}"))
    }

    /// The note's bytes for `object`, or `None` without a note.
    pub fn get(&mut self, object: ObjectId) -> Result<Option<Vec<u8>>> {
        let Some(blob) = self.blob_id(object)? else {
            return Ok(None);
        };
        // A small object can inflate to gigabytes: check the size first.
        let size = self
            .repo
            .find_header(blob)
            .context(|| format!("the note of {object} is not readable"))?
            .size();
        if size > crate::model::note::MAX_NOTE_BYTES as u64 {
            return Err(Error::BadMetadata {
                reference: format!("the note of {object}"),
                problem: format!(
                    "it is {size} bytes, more than the {} accepted",
                    crate::model::note::MAX_NOTE_BYTES
                ),
            });
        }
        let blob = self
            .repo
            .find_blob(blob)
            .context(|| format!("the note of {object} is not a readable blob"))?;
        Ok(Some(blob.data.clone()))
    }
}

/// One change to the notes tree.
#[derive(Debug, Clone)]
pub enum NoteEdit {
    /// Attach these bytes as the note of the object.
    Set(ObjectId, Vec<u8>),
    /// Attach an existing blob as the note of the object.
    SetBlob(ObjectId, ObjectId),
    /// Remove the object's note.
    Remove(ObjectId),
}

/// What the notes commit loop is asked to do on top of the current notes.
pub struct NotesChange {
    /// The edits.
    pub edits: Vec<NoteEdit>,
    /// Parents beyond the current notes commit (the other side of a merge).
    pub extra_parents: Vec<ObjectId>,
    /// Start the notes history anew: the commit has no parent, so notes
    /// removed before it are no longer reachable and git can collect them.
    pub squash: bool,
}

/// Commit to `refs/notes/t3` what `change` computes from the current notes
/// commit (`None` when there is none), retrying with back-off when another
/// process moved the notes ref meanwhile; `change` returning `None` means
/// there is nothing to do. Objects are flushed before the ref moves.
pub fn commit_notes(
    lock: &Locked<'_>,
    message: &str,
    change: impl FnMut(Option<ObjectId>) -> Result<Option<NotesChange>>,
) -> Result<()> {
    commit_notes_with(lock, &Recorder::new(lock.repo()), message, &[], change)
}

/// [`commit_notes`], writing the notes objects through `rec`, whose flush
/// before the notes ref moves then also covers what the caller wrote
/// through it before (one wave of flushes instead of two); `also` are ref
/// updates made in the same transaction, after the notes ref (see
/// [`edit_notes_then`]).
fn commit_notes_with(
    lock: &Locked<'_>,
    rec: &Recorder<'_>,
    message: &str,
    also: &[RefUpdate],
    mut change: impl FnMut(Option<ObjectId>) -> Result<Option<NotesChange>>,
) -> Result<()> {
    let repo = lock.repo();
    // No notes commit: what the caller wrote is still flushed, and `also`
    // moved.
    let without_notes = || update_refs_with_objects(lock, rec, also, message);
    for attempt in 0..ATTEMPTS {
        let parent = find_ref(repo, NOTES_REF)?;
        let Some(NotesChange {
            edits,
            extra_parents,
            squash,
        }) = change(parent)?
        else {
            return without_notes();
        };
        let root = match parent {
            Some(commit) => commit_tree(repo, commit)?,
            None => ObjectId::empty_tree(repo.object_hash()),
        };
        let tree = apply_edits(rec, root, &edits)?;
        if parent.is_some() && tree == root && extra_parents.is_empty() {
            return without_notes();
        }
        ensure_tree_object(rec, tree)?;
        let parents = parent
            .filter(|_| !squash)
            .into_iter()
            .chain(extra_parents)
            .collect();
        let commit = write_commit(rec, tree, parents, message)?;
        let notes = RefUpdate {
            name: NOTES_REF.into(),
            new: Some(commit),
            expect: parent.map_or(Expect::Absent, Expect::Is),
        };
        let updates: Vec<RefUpdate> = std::iter::once(notes).chain(also.iter().cloned()).collect();
        match update_refs_with_objects(lock, rec, &updates, message) {
            Ok(()) => return Ok(()),
            Err(Error::Conflict { .. }) => {
                // A conflict on another ref of the transaction is the
                // caller's: one of them no longer holds what it expected.
                // Otherwise it was the notes ref (moved, or read stale while
                // `git pack-refs` packed it): try again on top.
                let mut moved = false;
                for u in also {
                    moved |= !u.expect.holds(find_ref(repo, &u.name)?);
                }
                if moved {
                    let names: Vec<&str> = also.iter().map(|u| u.name.as_str()).collect();
                    return Err(Error::Conflict {
                        reference: names.join(", "),
                    });
                }
                if attempt + 1 == ATTEMPTS {
                    break;
                }
                // Someone else committed notes meanwhile: back off a little
                // and apply our edits on top of theirs.
                std::thread::sleep(std::time::Duration::from_millis(2 + u64::from(attempt) * 3));
            }
            Err(e) => return Err(e),
        }
    }
    Err(Error::Conflict {
        reference: NOTES_REF.into(),
    })
}

/// Set, attach or remove notes in one notes commit (see [`commit_notes`]).
pub fn edit_notes(lock: &Locked<'_>, edits: &[NoteEdit], message: &str) -> Result<()> {
    edit_notes_with(lock, &Recorder::new(lock.repo()), edits, message)
}

/// [`edit_notes`], writing the notes objects through `rec` so that one
/// flush covers them and what the caller wrote through `rec` before.
pub fn edit_notes_with(
    lock: &Locked<'_>,
    rec: &Recorder<'_>,
    edits: &[NoteEdit],
    message: &str,
) -> Result<()> {
    edit_notes_then(lock, rec, edits, message, &[])
}

/// [`edit_notes_with`], and `then` moved in the same ref transaction, after
/// the notes ref: one lock, one flush of the refs instead of one each.
///
/// gix renames the lock files in the order given, so a process killed
/// half-way leaves at most the notes moved (a note on a commit no ref
/// names, which is harmless); the ref files are flushed with the objects
/// before the renames, and a power cut relies on the file system
/// committing the renames in the order they were made (ext4, xfs).
pub fn edit_notes_then(
    lock: &Locked<'_>,
    rec: &Recorder<'_>,
    edits: &[NoteEdit],
    message: &str,
    then: &[RefUpdate],
) -> Result<()> {
    if edits.is_empty() {
        return update_refs_with_objects(lock, rec, then, message);
    }
    commit_notes_with(lock, rec, message, then, |_| {
        Ok(Some(NotesChange {
            edits: edits.to_vec(),
            extra_parents: Vec::new(),
            squash: false,
        }))
    })
}

/// Remove the notes of `objects` in one notes commit that starts the notes
/// history anew (see [`NotesChange::squash`]), so the removed notes, and
/// every older version of every note, can be collected by git.
pub fn remove_notes_for_good(lock: &Locked<'_>, objects: &[ObjectId], message: &str) -> Result<()> {
    if objects.is_empty() {
        return Ok(());
    }
    commit_notes(lock, message, |_| {
        Ok(Some(NotesChange {
            edits: objects.iter().map(|o| NoteEdit::Remove(*o)).collect(),
            extra_parents: Vec::new(),
            squash: true,
        }))
    })
}

/// The notes tree `root` with `edits` applied, written through `rec`.
fn apply_edits(rec: &Recorder<'_>, root: ObjectId, edits: &[NoteEdit]) -> Result<ObjectId> {
    let repo = rec.repo();
    let mut state = gix::note::plumbing::State::new(root, repo)
        .context(|| format!("could not read the notes tree of {NOTES_REF}"))?;
    for edit in edits {
        let (object, blob) = match edit {
            NoteEdit::Set(object, data) => (*object, Some(rec.write_blob(data)?)),
            NoteEdit::SetBlob(object, blob) => (*object, Some(*blob)),
            NoteEdit::Remove(object) => (*object, None),
        };
        state
            .edit(object, blob, repo)
            .context(|| format!("could not edit the note of {object}"))?;
    }
    state
        .write(rec)
        .context(|| format!("could not write the notes tree of {NOTES_REF}"))
}

/// Every `(annotated object, note blob)` in the notes tree of notes commit
/// `commit`, whether fanned out (`ab/cdef…`) or not.
pub fn list_notes(repo: &gix::Repository, commit: ObjectId) -> Result<Vec<(ObjectId, ObjectId)>> {
    let mut out = Vec::new();
    let mut stack = vec![(commit_tree(repo, commit)?, String::new())];
    while let Some((tree, prefix)) = stack.pop() {
        let tree = repo
            .find_tree(tree)
            .context(|| format!("could not read notes tree {tree}"))?;
        let decoded = tree.decode().context(|| "could not parse a notes tree".into())?;
        for entry in &decoded.entries {
            let name = format!("{prefix}{}", entry.filename.to_str_lossy());
            if entry.mode.is_tree() {
                // Fan-out directories are two hex digits; anything else is not a note.
                if name.len() < 40 && entry.filename.len() == 2 {
                    stack.push((entry.oid.to_owned(), name));
                }
            } else if let Ok(id) = ObjectId::from_hex(name.as_bytes()) {
                out.push((id, entry.oid.to_owned()));
            }
        }
    }
    Ok(out)
}
