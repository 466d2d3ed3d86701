//! Putting things back: `revert --abort`, `revert --undo` and `op undo`.
//!
//! Each is a state-changing operation like the revert itself: it first takes
//! its own safety checkpoint of what is there now (work done after the
//! revert included), records itself in the operation log — before it
//! changes anything, with `refs/t3/pending` pointing at it — then puts back
//! files, index, nested repositories and refs, and clears `pending`. A run
//! killed half-way is completed by the next put-back, `revert --continue` or
//! `revert --abort` ([`complete_pending`]); since it is in the log, it can be
//! undone in turn.

use gix::ObjectId;

use crate::error::{Error, Result};
use crate::model::oid::Oid;
use crate::model::thread::{ThreadId, parse_checkpoint_ref};
use crate::oplog::{self, Entry, Kind};
use crate::provider::AgentHomes;
use crate::repo::{self, Locked};
use crate::restore::Plan;
use crate::revert::{Report, journal, select};

mod run;
use run::{Change, Done, PutBack, complete, run};

/// Abort a half-done revert of `thread`: the files and index as they were,
/// every ref back, the journal gone.
pub fn abort(lock: &Locked<'_>, thread: &ThreadId, force: bool, homes: &AgentHomes) -> Result<Report> {
    if let Some(finished) = complete_pending(lock, homes)? {
        return Ok(finished);
    }
    let repo = lock.repo();
    let Some((commit, j)) = journal::read(repo, &thread.revert_journal_ref())? else {
        return Err(Error::NoRevertInProgress {
            thread: thread.to_string(),
        });
    };
    let mut report = from_journal(
        lock,
        thread,
        &j,
        (thread.revert_journal_ref(), commit),
        Kind::Abort,
        force,
        homes,
    )?;
    if j.step > journal::Step::Provider && j.calls_provider() && j.transcripts.is_empty() {
        report
            .notices
            .push("the provider had already rolled the conversation back; that is not undone".into());
    }
    Ok(report)
}

/// Undo the latest revert of `thread` that is still in effect.
pub fn undo(lock: &Locked<'_>, thread: &ThreadId, force: bool, homes: &AgentHomes) -> Result<Report> {
    if let Some(finished) = complete_pending(lock, homes)? {
        return Ok(finished);
    }
    let repo = lock.repo();
    if let Some(j) = super::in_progress(repo, thread)? {
        return Err(Error::RevertInProgress {
            thread: thread.to_string(),
            to_turn: j.to_turn,
            step: j.step.as_str().into(),
        });
    }
    let Some(entry) = latest_in_effect(repo, thread)? else {
        return legacy_undo(lock, thread, force, homes);
    };
    let mut report = undo_op(lock, &entry, force, (true, false), homes)?;
    if entry.op.transcripts.is_empty() {
        report
            .notices
            .push("files and checkpoints are back; the agent's conversation is not restored".into());
    }
    Ok(report)
}

/// Undo a revert made before the operation log existed: its safety
/// checkpoint waits under the single-slot `refs/t3/undo/<b64>`, which is
/// read this once and removed.
fn legacy_undo(lock: &Locked<'_>, thread: &ThreadId, force: bool, homes: &AgentHomes) -> Result<Report> {
    let repo = lock.repo();
    let Some((commit, j)) = journal::read(repo, &thread.undo_ref())? else {
        return Err(Error::NothingToUndo {
            thread: thread.to_string(),
        });
    };
    // Reverts of that time removed the notes of the turns they removed.
    let mut notes = Vec::new();
    for r in &j.removed {
        if let Some(blob) = r.note.as_deref().map(oplog::id).transpose()?
            && repo.has_object(blob)
        {
            notes.push(repo::NoteEdit::SetBlob(oplog::id(&r.commit)?, blob));
        }
    }
    repo::edit_notes(lock, &notes, "t3: notes of undone turns")?;
    from_journal(
        lock,
        thread,
        &j,
        (thread.undo_ref(), commit),
        Kind::Undo,
        force,
        homes,
    )
}

/// Put back what the journal `j` (under the ref `at`, a name and the commit
/// it points to) kept: its safety checkpoint's files and index, the turns it
/// removed; the ref `at` goes.
fn from_journal(
    lock: &Locked<'_>,
    thread: &ThreadId,
    j: &journal::Journal,
    at: (String, ObjectId),
    kind: Kind,
    force: bool,
    homes: &AgentHomes,
) -> Result<Report> {
    let mut refs = vec![Change {
        name: at.0,
        from: Some(at.1),
        to: None,
    }];
    for r in &j.removed {
        refs.push(Change {
            name: thread.checkpoint_ref(r.turn),
            from: None,
            to: Some(oplog::id(&r.commit)?),
        });
    }
    let done = run(
        lock,
        PutBack {
            kind,
            thread: Some(thread),
            files: Some(select::Span {
                before: j.safety_tree(),
                after: Some(j.target_tree()),
            }),
            index: select::journal_index(lock.repo(), j)?,
            moved_back: j.moved_aside.clone(),
            refs,
            undoes: None,
            // Once the provider step began, the transcript may hold what it
            // wrote; after it, it surely did.
            transcripts: if j.step >= journal::Step::Provider {
                let sure = j.step > journal::Step::Provider;
                j.transcripts.iter().map(|c| (c.reversed(), sure)).collect()
            } else {
                Vec::new()
            },
            force,
            overwrite: true,
            stepped: false,
            since: seconds(&j.started_at),
            notes: Vec::new(),
        },
        homes,
    )?;
    let mut report = report(&done, &j.thread, j.from_turn, j.to_turn, &j.target);
    report.refs.clone_from(&j.removed);
    Ok(report)
}

/// The newest revert of `thread` that no later op undid (an undo that was
/// itself undone does not count).
fn latest_in_effect(repo: &gix::Repository, thread: &ThreadId) -> Result<Option<Entry>> {
    for e in oplog::walk_undone(repo)? {
        let (e, by) = e?;
        if by.is_none() && e.op.kind == Kind::Revert && e.op.thread.as_deref() == Some(thread.as_str()) {
            return Ok(Some(e));
        }
    }
    Ok(None)
}

/// Reverse the operation `entry`: its safety checkpoint's files and index,
/// and every ref it changed. Refuses when a ref it would put back was reused
/// since (a thread went on after a revert), naming them, unless `force`,
/// which keeps the newer commits in the operation log.
pub fn undo_op(
    lock: &Locked<'_>,
    entry: &Entry,
    force: bool,
    (overwrite, stepped): (bool, bool),
    homes: &AgentHomes,
) -> Result<Report> {
    if let Some(finished) = complete_pending(lock, homes)? {
        return Ok(finished);
    }
    let repo = lock.repo();
    let op = &entry.op;
    if let Some(by) = oplog::undone_by(repo, entry.id)? {
        return Err(Error::Refused(format!(
            "op {} was undone already, by op {}; undo that one to do it again",
            short(entry.id),
            short(by)
        )));
    }
    let refs = op
        .refs
        .iter()
        .map(|c| {
            Ok(Change {
                name: c.reference.clone(),
                from: c.new.map(Oid::get),
                to: c.old.map(Oid::get),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let files = match op.safety_commit() {
        Some(c) => Some(select::Span {
            before: repo::commit_tree(repo, c)?,
            after: op.restored.map(Oid::get),
        }),
        None => None,
    };
    let index = if files.is_some() {
        select::op_index(repo, op)?
    } else {
        None
    };
    let thread = op.thread.as_deref().map(ThreadId::parse).transpose()?;
    let latest = |t: &ThreadId| -> Result<Option<u64>> {
        Ok(crate::store::thread_refs(repo, t)?.last().map(|t| t.turn))
    };
    let latest_before = thread.as_ref().map(latest).transpose()?.flatten();
    let done = run(
        lock,
        PutBack {
            kind: Kind::Undo,
            thread: thread.as_ref(),
            files,
            index,
            moved_back: op.moved_aside.clone(),
            refs,
            undoes: Some(entry.id),
            transcripts: op.transcripts.iter().map(|c| (c.reversed(), true)).collect(),
            force,
            overwrite,
            stepped,
            since: seconds(&op.time),
            notes: if op.kind == Kind::Prune {
                op.notes.clone()
            } else {
                Vec::new()
            },
        },
        homes,
    )?;
    let latest_after = thread.as_ref().map(latest).transpose()?.flatten();
    let mut report = report(
        &done,
        op.thread.as_deref().unwrap_or_default(),
        latest_before.unwrap_or(0),
        latest_after.unwrap_or(0),
        &format!("op {}", entry.id),
    );
    report.undid = Some(super::Undid {
        op: entry.id.into(),
        kind: op.kind.as_str(),
        thread: op.thread.clone(),
        title: thread.as_ref().and_then(|t| crate::store::thread_title(repo, t)),
        latest_before,
        latest_after,
        refs_changed: op.refs.len(),
    });
    report.refs = op
        .refs
        .iter()
        .filter_map(|c| {
            Some(crate::model::note::RemovedRef {
                turn: parse_checkpoint_ref(&c.reference).ok()?.turn,
                commit: c.old.or(c.new)?.to_string(),
                note: None,
            })
        })
        .collect();
    Ok(report)
}

fn report(done: &Done, thread: &str, from_turn: u64, to_turn: u64, target: &str) -> Report {
    Report {
        thread: thread.to_owned(),
        from_turn,
        to_turn,
        target: target.to_owned(),
        files: done.files.clone(),
        refs: Vec::new(),
        rolled_back_turns: 0,
        safety_commit: done.safety.map(Oid::from),
        transcripts: done.transcripts.iter().map(super::TranscriptReport::of).collect(),
        undid: None,
        overwritten: done
            .overwritten
            .iter()
            .map(|p| crate::model::path::PathText(p.to_vec()))
            .collect(),
        uncaptured: Vec::new(),
        others: Vec::new(),
        notices: done
            .notices
            .iter()
            .cloned()
            .chain([format!(
                "recorded as op {} (git t3 op undo {} reverses it)",
                done.op,
                short(done.op)
            )])
            .collect(),
    }
}

/// An RFC 3339 time in seconds (`i64::MIN`, "always", when unreadable).
fn seconds(time: &str) -> i64 {
    time.parse::<jiff::Timestamp>()
        .map_or(i64::MIN, |t| t.as_second())
}

fn short(id: ObjectId) -> String {
    id.to_hex_with_len(12).to_string()
}

/// Finish a put-back that was recorded but killed before its end; its
/// report, when there was one (the caller then stops there: running the same
/// command again must not do a second thing).
pub fn complete_pending(lock: &Locked<'_>, homes: &AgentHomes) -> Result<Option<Report>> {
    let Some(entry) = oplog::pending(lock.repo())? else {
        return Ok(None);
    };
    // Its files are another worktree's: finish it there, never here.
    if let Some(w) = &entry.op.worktree
        && *w != repo::absolute_git_dir(lock.repo())
    {
        return Err(Error::Refused(format!(
            "an interrupted {} (op {}) of another worktree is pending; run `git t3 revert --continue` \
             (or --abort, --undo, `git t3 op undo`) in the worktree whose git dir is {w} first",
            entry.op.kind.as_str(),
            short(entry.id)
        )));
    }
    complete(lock, &entry.op, None, homes)?;
    oplog::clear_pending(lock, entry.id)?;
    let done = Done {
        op: entry.id,
        safety: entry.op.safety_commit(),
        files: Plan::default(),
        overwritten: Vec::new(),
        transcripts: entry.op.transcripts.clone(),
        notices: Vec::new(),
    };
    let mut report = report(
        &done,
        entry.op.thread.as_deref().unwrap_or_default(),
        0,
        0,
        "interrupted operation",
    );
    report.notices = vec![format!(
        "finished the interrupted {} (op {}); nothing else was done",
        entry.op.kind.as_str(),
        short(entry.id)
    )];
    Ok(Some(report))
}
