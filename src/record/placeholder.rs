//! A placeholder: a turn whose snapshot has not been taken, recorded as
//! `missing` with an empty tree.

use crate::error::{Error, Result};
use crate::model::note::{Note, Status};
use crate::model::thread::ThreadId;
use crate::repo::{Expect, Locked, NotesReader, Recorder};
use crate::store;

use super::capture::CaptureOutcome;

/// What a placeholder records.
#[derive(Debug, Clone)]
pub struct Placeholder {
    /// The thread.
    pub thread: ThreadId,
    /// The turn; default: latest + 1.
    pub turn: Option<u64>,
    /// The agent's turn id.
    pub turn_id: Option<String>,
}

/// Write a `missing` placeholder (an empty tree) unless a real checkpoint
/// is there.
pub fn placeholder(lock: &Locked<'_>, p: Placeholder) -> Result<CaptureOutcome> {
    let repo = lock.repo();
    let Placeholder {
        thread,
        turn,
        turn_id,
    } = p;
    let refs = store::thread_refs(repo, &thread)?;
    let mut notes = NotesReader::open(repo)?;
    let turn = match turn {
        Some(t) if t > crate::model::thread::MAX_TURN => {
            return Err(Error::usage(format!("turn {t} is above the highest turn number")));
        }
        Some(t) => t,
        None => store::next_turn(repo, &mut notes, &thread)?,
    };
    let expect = match refs.iter().find(|t| t.turn == turn) {
        None => Expect::Absent,
        Some(existing) => match store::load(repo, &mut notes, &thread, *existing) {
            Ok(cp) if cp.note.placeholder => Expect::Is(existing.commit),
            _ => {
                return Err(Error::PlaceholderOverReal {
                    thread: thread.to_string(),
                    turn,
                });
            }
        },
    };
    let note = Note {
        status: Status::Missing,
        placeholder: true,
        turn_id,
        ..Note::new(&thread, turn)
    };
    let rec = Recorder::new(repo);
    let empty = gix::ObjectId::empty_tree(repo.object_hash());
    let checkpoint = store::write(lock, &rec, &thread, empty, note, expect)?;
    Ok(CaptureOutcome {
        checkpoint,
        created: true,
        notices: Vec::new(),
        scope_notices: Vec::new(),
    })
}
