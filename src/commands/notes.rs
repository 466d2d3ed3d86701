//! `git t3 notes backfill`: write our notes for checkpoints T3 Code wrote
//! without one, so that every reader sees a stored summary (T3 Code's refs
//! are read without it too, with the summary computed on each read).

use serde::Serialize;

use crate::commands::Context;
use crate::error::{Error, Result};
use crate::model::note::MAX_NOTE_BYTES;
use crate::model::thread::ThreadId;
use crate::repo::{self, NoteEdit, NotesReader};
use crate::store;

/// Inputs of `notes backfill`.
#[derive(Debug, Clone)]
pub struct Options {
    /// Only this thread (default: every thread).
    pub thread: Option<ThreadId>,
    /// Say what would be written, write nothing.
    pub dry_run: bool,
}

/// One note written (or, with `--dry-run`, to be written).
#[derive(Debug, Serialize)]
pub struct Backfilled {
    /// The thread.
    pub thread: String,
    /// The turn.
    pub turn: u64,
    /// Files its summary lists.
    pub files: usize,
}

/// What `notes backfill` did.
#[derive(Debug, Serialize)]
pub struct BackfillOutcome {
    /// The notes, by thread and turn.
    pub notes: Vec<Backfilled>,
    /// Nothing was written.
    pub dry_run: bool,
}

/// Write a note for every T3 Code checkpoint of `opts.thread` (or of every
/// thread) that has none, in one notes commit. A note that appears
/// meanwhile (another process) is kept, never overwritten.
pub fn backfill(ctx: &Context, opts: Options) -> Result<BackfillOutcome> {
    let lock = ctx.lock("notes backfill")?;
    let repo = lock.repo();
    let threads = match &opts.thread {
        Some(t) => {
            let turns = store::thread_refs(repo, t)?;
            if turns.is_empty() {
                return Err(Error::UnknownThread {
                    thread: t.to_string(),
                });
            }
            vec![(t.clone(), turns)]
        }
        None => store::all_thread_refs(repo)?,
    };
    let mut notes = NotesReader::open(repo)?;
    let mut written = Vec::new();
    let mut edits = Vec::new();
    for (thread, turns) in &threads {
        for turn in turns {
            let Some(mut note) = store::t3code_backfill(repo, &mut notes, thread, *turn)? else {
                continue;
            };
            let text = note.fit(MAX_NOTE_BYTES / 2)?;
            written.push(Backfilled {
                thread: thread.to_string(),
                turn: turn.turn,
                files: note.files.len(),
            });
            edits.push((turn.commit, text.into_bytes()));
        }
    }
    if !opts.dry_run && !edits.is_empty() {
        repo::commit_notes(&lock, "t3: notes backfilled for T3 Code checkpoints", |parent| {
            // Only objects still without a note in the notes commit we build on.
            let annotated: std::collections::HashSet<gix::ObjectId> = match parent {
                Some(commit) => repo::list_notes(repo, commit)?
                    .into_iter()
                    .map(|(o, _)| o)
                    .collect(),
                None => Default::default(),
            };
            let edits: Vec<NoteEdit> = edits
                .iter()
                .filter(|(commit, _)| !annotated.contains(commit))
                .map(|(commit, data)| NoteEdit::Set(*commit, data.clone()))
                .collect();
            Ok((!edits.is_empty()).then_some(repo::NotesChange {
                edits,
                extra_parents: Vec::new(),
                squash: false,
            }))
        })?;
    }
    Ok(BackfillOutcome {
        notes: written,
        dry_run: opts.dry_run,
    })
}
