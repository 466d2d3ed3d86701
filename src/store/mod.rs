//! The checkpoint store: a thread's checkpoints as refs and notes.
//!
//! Writing goes through the one publish protocol ([`crate::repo::publish`]):
//! objects, then the note, then the ref (compare-and-swap), each flushed to
//! disk before the next step, so a ref never exists without its note.

use gix::ObjectId;
use gix::bstr::ByteSlice;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::note::Note;
use crate::model::thread::{CHECKPOINTS_PREFIX, ThreadId, parse_checkpoint_ref, parse_turn};
use crate::repo::publish::{Publication, publish};
use crate::repo::{self, Expect, Locked, NotesReader, Recorder};

mod threads;
pub use threads::*;

/// A checkpoint: its note plus the commit and tree it describes.
#[derive(Debug, Clone, Serialize)]
pub struct Checkpoint {
    /// The note's fields.
    #[serde(flatten)]
    pub note: Note,
    /// The checkpoint commit.
    #[serde(serialize_with = "hex")]
    pub commit: ObjectId,
    /// Its tree: the captured worktree.
    #[serde(serialize_with = "hex")]
    pub tree: ObjectId,
    /// What the turn changed by the one definition every view shows (the
    /// agent's own changes, whitespace ignored unless asked): filled in by
    /// the commands that show turns, equal to `diff --turn N`'s totals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts: Option<TurnCounts>,
}

/// A turn's figures as `list`, `log`, `show`, the page and `diff --turn N`
/// give them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TurnCounts {
    /// Files changed.
    pub files: usize,
    /// Lines added.
    pub additions: u64,
    /// Lines deleted.
    pub deletions: u64,
    /// Files left out because they changed only in whitespace.
    pub whitespace_only: usize,
    /// Files the user changed between the turn before and this turn's
    /// prompt, left out (`None`: counted in, or not known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_edits: Option<usize>,
}

fn hex<S: serde::Serializer>(id: &ObjectId, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.collect_str(id)
}

/// A turn's ref as found in the repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnRef {
    /// The turn.
    pub turn: u64,
    /// The commit its ref points at.
    pub commit: ObjectId,
}

/// The checkpoint refs of `thread`, sorted by turn. Names that are not
/// canonical turn numbers are skipped here (`verify` reports them).
pub fn thread_refs(repo: &gix::Repository, thread: &ThreadId) -> Result<Vec<TurnRef>> {
    Ok(turn_refs_of(repo, thread, &thread_ref_entries(repo, thread)?))
}

/// Every ref directly under the checkpoints prefix of `thread`, whatever it
/// holds (read once, for [`turn_refs_of`] and [`next_turn_of`]); names
/// further down are no turn's.
pub fn thread_ref_entries(repo: &gix::Repository, thread: &ThreadId) -> Result<Vec<repo::RefEntry>> {
    repo::list_ref_children(repo, &thread.checkpoints_prefix())
}

/// [`thread_refs`] of the refs `entries` of `thread`.
pub fn turn_refs_of(repo: &gix::Repository, thread: &ThreadId, entries: &[repo::RefEntry]) -> Vec<TurnRef> {
    // Symbolic refs, and refs at anything but a commit (anyone who can push
    // can make one), are not checkpoints: skipped here, reported by `verify`.
    let mut turns = numbered_refs(thread, entries);
    turns.retain(|t| is_commit(repo, t.commit));
    turns
}

/// The refs `entries` of `thread` that hold an object at a turn number,
/// by turn, whatever that object is: what a caller that reads only a few
/// of them checks one by one ([`is_commit`]) instead of looking up every
/// object (a lookup each, thousands for a long thread).
pub fn numbered_refs(thread: &ThreadId, entries: &[repo::RefEntry]) -> Vec<TurnRef> {
    let prefix = thread.checkpoints_prefix();
    let mut turns: Vec<TurnRef> = entries
        .iter()
        .filter_map(|r| {
            let rest = r.name.strip_prefix(prefix.as_bytes())?;
            let turn = parse_turn(rest.to_str().ok()?)?;
            let commit = r.target?;
            Some(TurnRef { turn, commit })
        })
        .collect();
    turns.sort_by_key(|t| t.turn);
    turns
}

/// The turn a new checkpoint takes by default: one above the thread's
/// highest checkpoint this repository accepts (a commit whose note names
/// the thread and the turn, no further than a fetch takes above the turn
/// below it), skipping numbers a ref that is not one holds
/// (a ref at a blob, or fetched with a forged number, is in the way of its
/// number, but never moves the count); 1 for a new thread.
pub fn next_turn(repo: &gix::Repository, notes: &mut NotesReader<'_>, thread: &ThreadId) -> Result<u64> {
    next_turn_of(repo, notes, thread, &thread_ref_entries(repo, thread)?)
}

/// [`next_turn`] of the refs `entries` of `thread`.
pub fn next_turn_of(
    repo: &gix::Repository,
    notes: &mut NotesReader<'_>,
    thread: &ThreadId,
    entries: &[repo::RefEntry],
) -> Result<u64> {
    let prefix = thread.checkpoints_prefix();
    let mut numbered: Vec<(u64, Option<ObjectId>)> = entries
        .iter()
        .filter_map(|r| {
            let turn = parse_turn(r.name.strip_prefix(prefix.as_bytes())?.to_str().ok()?)?;
            Some((turn, r.target))
        })
        .collect();
    numbered.sort_by_key(|t| std::cmp::Reverse(t.0));
    let occupied: std::collections::HashSet<u64> = numbered.iter().map(|(t, _)| *t).collect();
    // A turn far above every other number (more than a fetch takes) does
    // not count, whatever its note says.
    let gap = crate::model::thread::MAX_FETCHED_TURN_GAP;
    let near = |turn: u64| turn <= gap || numbered.iter().any(|(t, _)| *t < turn && turn - t <= gap);
    let accepted = numbered.iter().find_map(|(turn, target)| {
        if !near(*turn) {
            return None;
        }
        let commit = target.filter(|id| is_commit(repo, *id))?;
        load(repo, notes, thread, TurnRef { turn: *turn, commit })
            .ok()
            .map(|_| *turn)
    });
    let mut next = accepted.map_or(1, |t| t + 1);
    while occupied.contains(&next) {
        next += 1;
    }
    if next > crate::model::thread::MAX_TURN {
        return Err(Error::usage(format!(
            "thread '{thread}' has reached turn {}, the highest turn number",
            next - 1
        )));
    }
    Ok(next)
}

/// Whether `id` names a commit object.
pub fn is_commit(repo: &gix::Repository, id: gix::ObjectId) -> bool {
    repo.find_header(id)
        .is_ok_and(|h| h.kind() == gix::objs::Kind::Commit)
}

/// The ref of one turn, looked up directly (no listing), if it exists and
/// points at a commit.
pub fn turn_ref(repo: &gix::Repository, thread: &ThreadId, turn: u64) -> Result<Option<TurnRef>> {
    Ok(repo::find_direct_ref(repo, &thread.checkpoint_ref(turn))?
        .filter(|id| is_commit(repo, *id))
        .map(|commit| TurnRef { turn, commit }))
}

/// The ref of `turn`, or the error that says why there is none (the thread
/// has no checkpoints, or not that turn).
pub fn require_turn(repo: &gix::Repository, thread: &ThreadId, turn: u64) -> Result<TurnRef> {
    if let Some(found) = turn_ref(repo, thread, turn)? {
        return Ok(found);
    }
    Err(match latest_turn(repo, thread)? {
        None => Error::UnknownThread {
            thread: thread.to_string(),
        },
        latest => Error::NoSuchTurn {
            thread: thread.to_string(),
            turn,
            latest,
        },
    })
}

/// The tree of the checkpoint `found`, refusing a placeholder. A
/// placeholder's commit holds the empty tree, so only then is the note read
/// (a checkpoint written by T3 Code has none).
pub fn snapshot_tree(repo: &gix::Repository, thread: &ThreadId, found: TurnRef) -> Result<ObjectId> {
    let reference = thread.checkpoint_ref(found.turn);
    let tree = repo::commit_tree(repo, found.commit).map_err(|e| Error::BadMetadata {
        reference: reference.clone(),
        problem: format!("does not point at a checkpoint commit ({e})"),
    })?;
    if tree == ObjectId::empty_tree(repo.object_hash()) {
        let mut notes = NotesReader::open(repo)?;
        if load(repo, &mut notes, thread, found).is_ok_and(|cp| cp.note.placeholder) {
            return Err(Error::Placeholder {
                thread: thread.to_string(),
                turn: found.turn,
                reference,
            });
        }
    }
    Ok(tree)
}

/// The highest turn of `thread`, if it has any checkpoint.
pub fn latest_turn(repo: &gix::Repository, thread: &ThreadId) -> Result<Option<u64>> {
    Ok(latest_ref(repo, thread)?.map(|t| t.turn))
}

/// The last of [`thread_refs`], looking up objects from the top down only
/// until one is a commit.
pub fn latest_ref(repo: &gix::Repository, thread: &ThreadId) -> Result<Option<TurnRef>> {
    Ok(latest_of(
        repo,
        &numbered_refs(thread, &thread_ref_entries(repo, thread)?),
    ))
}

/// The highest of [`numbered_refs`] `refs` at a commit.
pub fn latest_of(repo: &gix::Repository, refs: &[TurnRef]) -> Option<TurnRef> {
    refs.iter().rev().find(|t| is_commit(repo, t.commit)).copied()
}

/// What a note written by T3 Code's checkpoints would say: the same refs
/// carry no note there, so the summary against the turn before is computed
/// now, and a warning says so.
pub const T3CODE_WARNING: &str = "written by T3 Code without a note: summary computed on the fly";

/// The warning of a note `git t3 notes backfill` wrote for a T3 Code checkpoint.
pub const T3CODE_BACKFILLED: &str = "written by T3 Code without a note: summary backfilled by git t3";

fn t3code_note(repo: &gix::Repository, thread: &ThreadId, turn: TurnRef, tree: ObjectId) -> Result<Note> {
    t3code_note_with(repo, thread, turn, tree, T3CODE_WARNING)
}

/// The note of T3 Code's checkpoint `turn` of `thread` when it has none, to
/// be written (`notes backfill`); `None` when the commit has a note or was
/// not written by T3 Code.
pub fn t3code_backfill(
    repo: &gix::Repository,
    notes: &mut NotesReader<'_>,
    thread: &ThreadId,
    turn: TurnRef,
) -> Result<Option<Note>> {
    if notes.blob_id(turn.commit)?.is_some() || !repo::is_t3code_commit(repo, turn.commit) {
        return Ok(None);
    }
    let tree = repo::commit_tree(repo, turn.commit)?;
    t3code_note_with(repo, thread, turn, tree, T3CODE_BACKFILLED).map(Some)
}

fn t3code_note_with(
    repo: &gix::Repository,
    thread: &ThreadId,
    turn: TurnRef,
    tree: ObjectId,
    warning: &str,
) -> Result<Note> {
    let mut note = Note::new(thread, turn.turn);
    note.completed_at = repo::commit_time(repo, turn.commit)?;
    note.warnings.push(warning.to_owned());
    if turn.turn == 0 {
        return Ok(note);
    }
    if let Some(before) = turn_ref(repo, thread, turn.turn - 1)? {
        let from = repo::commit_tree(repo, before.commit)?;
        note.files = crate::diff::summary::summarize(repo, from, tree, false, Default::default())?;
        note.from_turn = Some(turn.turn - 1);
    }
    Ok(note)
}

/// Read the checkpoint that `commit` (the ref of `turn`) describes.
pub fn load(
    repo: &gix::Repository,
    notes: &mut NotesReader<'_>,
    thread: &ThreadId,
    turn: TurnRef,
) -> Result<Checkpoint> {
    let reference = thread.checkpoint_ref(turn.turn);
    let tree = repo::commit_tree(repo, turn.commit).map_err(|e| Error::BadMetadata {
        reference: reference.clone(),
        problem: format!("does not point at a checkpoint commit ({e})"),
    })?;
    let Some(data) = notes.get(turn.commit)? else {
        if repo::is_t3code_commit(repo, turn.commit) {
            return Ok(Checkpoint {
                note: t3code_note(repo, thread, turn, tree)?,
                commit: turn.commit,
                tree,
                counts: None,
            });
        }
        return Err(Error::BadMetadata {
            reference: reference.clone(),
            problem: format!("commit {} has no note in refs/notes/t3", turn.commit),
        });
    };
    let note = Note::parse(&data).map_err(|e| Error::BadMetadata {
        reference: reference.clone(),
        problem: e.to_string(),
    })?;
    if note.thread != thread.as_str() || note.turn != turn.turn {
        return Err(Error::BadMetadata {
            reference,
            problem: format!(
                "its note describes turn {} of thread '{}'",
                note.turn, note.thread
            ),
        });
    }
    Ok(Checkpoint {
        note,
        commit: turn.commit,
        tree,
        counts: None,
    })
}

/// The checkpoint of `turn`, or the latest when `turn` is `None`.
pub fn load_turn(repo: &gix::Repository, thread: &ThreadId, turn: Option<u64>) -> Result<Checkpoint> {
    let refs = thread_refs(repo, thread)?;
    let latest = refs.last().map(|t| t.turn);
    let Some(latest_turn) = latest else {
        return Err(Error::UnknownThread {
            thread: thread.to_string(),
        });
    };
    let want = turn.unwrap_or(latest_turn);
    let found = refs
        .iter()
        .find(|t| t.turn == want)
        .copied()
        .ok_or(Error::NoSuchTurn {
            thread: thread.to_string(),
            turn: want,
            latest,
        })?;
    let mut notes = NotesReader::open(repo)?;
    load(repo, &mut notes, thread, found)
}

/// The closest real (not placeholder) checkpoint below `turn`, if any.
pub fn real_checkpoint_below(
    repo: &gix::Repository,
    notes: &mut NotesReader<'_>,
    thread: &ThreadId,
    refs: &[TurnRef],
    turn: u64,
) -> Result<Option<Checkpoint>> {
    // (A ref at something else than a commit is no checkpoint: skipped
    // here for callers that did not filter them out.)
    for t in refs
        .iter()
        .rev()
        .filter(|t| t.turn < turn && is_commit(repo, t.commit))
    {
        match load(repo, notes, thread, *t) {
            Ok(cp) if !cp.note.placeholder => return Ok(Some(cp)),
            Ok(_) => continue,
            // A checkpoint whose note is damaged still holds a real snapshot.
            Err(Error::BadMetadata { .. }) => {
                let tree = repo::commit_tree(repo, t.commit)?;
                return Ok(Some(Checkpoint {
                    // Not written back: only its tree and turn are used.
                    note: Note::new(thread, t.turn),
                    commit: t.commit,
                    tree,
                    counts: None,
                }));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(None)
}

/// Publish a checkpoint of `tree` with `note` (objects, note, ref with
/// compare-and-swap against `expect`; see [`crate::repo::publish`]).
pub fn write(
    lock: &Locked<'_>,
    rec: &Recorder<'_>,
    thread: &ThreadId,
    tree: ObjectId,
    note: Note,
    expect: Expect,
) -> Result<Checkpoint> {
    write_with(lock, rec, (thread, tree), note, expect, Vec::new())
}

/// [`write`], moving the refs `also` (whose objects went through `rec`) in
/// the same transaction, after the checkpoint's ref.
pub fn write_with(
    lock: &Locked<'_>,
    rec: &Recorder<'_>,
    (thread, tree): (&ThreadId, ObjectId),
    mut note: Note,
    expect: Expect,
    also: Vec<crate::repo::RefUpdate>,
) -> Result<Checkpoint> {
    let reference = thread.checkpoint_ref(note.turn);
    // Every reader refuses notes over MAX_NOTE_BYTES: a summary too large
    // to store whole is cut here, its totals kept.
    let text = note.fit(crate::model::note::MAX_NOTE_BYTES / 2)?;
    let commit = publish(
        lock,
        rec,
        Publication {
            tree,
            reference: &reference,
            note: text.into_bytes(),
            expect,
            message: &format!("t3: checkpoint turn {}", note.turn),
            keep: Vec::new(),
            also,
        },
    )?;
    Ok(Checkpoint {
        note,
        commit,
        tree,
        counts: None,
    })
}

/// The title of `thread`: the first line of the first prompt a note
/// recorded (the lowest turn with a title), if any.
pub fn thread_title(repo: &gix::Repository, thread: &ThreadId) -> Option<String> {
    let mut notes = NotesReader::open(repo).ok()?;
    thread_refs(repo, thread)
        .ok()?
        .into_iter()
        .take(64)
        .find_map(|t| load(repo, &mut notes, thread, t).ok()?.note.title)
}
