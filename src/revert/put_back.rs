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
use crate::model::thread::{ThreadId, parse_checkpoint_ref};
use crate::oplog::{self, Entry, Kind, MovedAside, Op, RefChange, TranscriptChange};
use crate::provider::AgentHomes;
use crate::provider::transcript::{self, State};
use crate::repo::{self, Expect, Locked, Recorder, RefUpdate};
use crate::restore::{self, Plan};
use crate::revert::{Report, journal};
use crate::revert::{safety, select};
use gix::bstr::BString;

/// One ref to put back: to `to`, from what the undone operation left, `from`.
struct Change {
    name: String,
    from: Option<ObjectId>,
    to: Option<ObjectId>,
}

/// What a put-back restores.
struct PutBack<'a> {
    kind: Kind,
    thread: Option<&'a ThreadId>,
    /// The worktree before the operation undone (`before`) and, when known,
    /// what it left (`after`): only the paths where the two differ go back,
    /// and only where they are still as it left them. Without `after` (an
    /// op recorded before that was kept), the whole worktree goes back to
    /// `before`.
    files: Option<Span>,
    /// The user's index likewise (`after` absent: the whole index is reset
    /// to `before`).
    index: Option<Span>,
    moved_back: Vec<MovedAside>,
    refs: Vec<Change>,
    undoes: Option<ObjectId>,
    /// Transcript changes that put a conversation back; `true`: the file
    /// was surely changed by the operation undone, so one that changed
    /// since refuses (unless `force`); `false`: the change may never have
    /// been made, so such a file is left alone.
    transcripts: Vec<(TranscriptChange, bool)>,
    force: bool,
    /// Put back paths changed since the operation too (their content is
    /// kept in the safety checkpoint first): `revert --abort` and
    /// `revert --undo`, which exist to go back; `op undo` refuses instead.
    overwrite: bool,
    /// Made by a bare `op undo` (see [`Op::stepped`]).
    stepped: bool,
    /// Notes to put back (of the checkpoints a prune removed).
    notes: Vec<oplog::KeptNote>,
}

/// A state before an operation, and what the operation left.
#[derive(Debug, Clone, Copy)]
struct Span {
    before: ObjectId,
    after: Option<ObjectId>,
}

/// What a put-back did.
struct Done {
    op: ObjectId,
    safety: Option<ObjectId>,
    files: Plan,
    /// Paths changed since the operation and put back anyway (`--force`);
    /// what they held is in the safety checkpoint.
    overwritten: Vec<BString>,
    transcripts: Vec<TranscriptChange>,
    notices: Vec<String>,
}

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
            files: Some(Span {
                before: j.safety_tree()?,
                after: Some(j.target_tree()?),
            }),
            index: journal_index(lock.repo(), j)?,
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
            notes: Vec::new(),
        },
        homes,
    )?;
    let mut report = report(&done, &j.thread, j.from_turn, j.to_turn, &j.target);
    report.refs.clone_from(&j.removed);
    Ok(report)
}

/// The index a revert's journal changed: from what it kept (`index_tree`,
/// absent: HEAD) to HEAD (or, on an unborn branch, the target).
fn journal_index(repo: &gix::Repository, j: &journal::Journal) -> Result<Option<Span>> {
    let head = restore::index::head_or(repo, j.target_tree()?)?;
    let before = match j.index_tree.as_deref() {
        Some(t) => oplog::id(t)?,
        None => head,
    };
    Ok((before != head).then_some(Span {
        before,
        after: Some(head),
    }))
}

/// The index `op` changed, as a span (see [`journal_index`]); `None` when
/// it did not change it.
fn op_index(repo: &gix::Repository, op: &Op) -> Result<Option<Span>> {
    let head = repo::head_tree(repo)?.unwrap_or_else(|| ObjectId::empty_tree(repo.object_hash()));
    let before = op.index_tree()?.unwrap_or(head);
    let after = match (op.index_after.as_deref(), op.kind) {
        (Some(a), _) => oplog::id(a)?,
        // Recorded before `index_after`: a revert reset the index to HEAD,
        // a put-back of the whole tree to its `restored_index`.
        (None, Kind::Revert) => head,
        (None, Kind::Abort | Kind::Undo) if !op.by_path => op
            .restored_index
            .as_deref()
            .map(oplog::id)
            .transpose()?
            .unwrap_or(head),
        (None, _) => return Ok(None),
    };
    Ok((before != after).then_some(Span {
        before,
        after: Some(after),
    }))
}

/// The newest revert of `thread` that no later op undid (an undo that was
/// itself undone does not count).
fn latest_in_effect(repo: &gix::Repository, thread: &ThreadId) -> Result<Option<Entry>> {
    let mut cancelled = std::collections::HashSet::new();
    for e in oplog::walk(repo)? {
        let e = e?;
        if cancelled.contains(&e.id) {
            continue;
        }
        if let Some(undone) = e.op.undoes.as_deref() {
            cancelled.insert(oplog::id(undone)?);
        }
        if e.op.kind == Kind::Revert && e.op.thread.as_deref() == Some(thread.as_str()) {
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
                from: c.new.as_deref().map(oplog::id).transpose()?,
                to: c.old.as_deref().map(oplog::id).transpose()?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let files = match op.safety_commit()? {
        Some(c) => Some(Span {
            before: repo::commit_tree(repo, c)?,
            after: op.restored.as_deref().map(oplog::id).transpose()?,
        }),
        None => None,
    };
    let index = if files.is_some() {
        op_index(repo, op)?
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
        op: entry.id.to_string(),
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
                commit: c.old.clone().or_else(|| c.new.clone())?,
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
        safety_commit: done.safety.map(|c| c.to_string()),
        transcripts: done.transcripts.iter().map(super::TranscriptReport::of).collect(),
        undid: None,
        overwritten: done
            .overwritten
            .iter()
            .map(|p| crate::model::path::PathText(p.to_vec()))
            .collect(),
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

fn short(id: ObjectId) -> String {
    id.to_hex_with_len(12).to_string()
}

/// Check, keep, record, then carry out `pb`.
fn run(lock: &Locked<'_>, pb: PutBack<'_>, homes: &AgentHomes) -> Result<Done> {
    let repo = lock.repo();
    let mut refs = Vec::with_capacity(pb.refs.len());
    let mut reused = Vec::new();
    for c in pb.refs {
        let now = repo::find_direct_ref(repo, &c.name)?;
        if now != c.from && now != c.to {
            reused.push(c.name.clone());
        }
        refs.push(RefChange {
            reference: c.name,
            old: now.map(|id| id.to_string()),
            new: c.to.map(|id| id.to_string()),
        });
    }
    if !reused.is_empty() && !pb.force {
        return Err(Error::Refused(reused_message(&reused)));
    }
    if let Some(span) = pb.files
        && let Some(first) =
            crate::restore::verify::check_tree(repo, span.before, repo::head_tree(repo)?, 1).first()
    {
        return Err(Error::BadMetadata {
            reference: format!("the tree {} to put back", span.before),
            problem: format!("refused, nothing was changed: it holds {first}"),
        });
    }
    let rec = Recorder::new(repo);
    // Which paths go back, and which changed since: refused before anything.
    let files_sel = match pb.files {
        Some(Span {
            before,
            after: Some(after),
        }) => Some(select::worktree(
            repo,
            &rec,
            before,
            after,
            pb.force || pb.overwrite,
        )?),
        _ => None,
    };
    let index_sel = match pb.index {
        Some(Span {
            before,
            after: Some(after),
        }) => Some(select::index(repo, before, after, pb.force || pb.overwrite)?),
        _ => None,
    };
    let changed_files = files_sel.as_ref().map(|s| s.changed.clone()).unwrap_or_default();
    let changed_index = index_sel.as_ref().map(|s| s.changed.clone()).unwrap_or_default();
    if !pb.force && !pb.overwrite && (!changed_files.is_empty() || !changed_index.is_empty()) {
        return Err(Error::Refused(select::refusal(&changed_files, &changed_index)));
    }
    let (transcripts, notices) =
        transcripts_to_put_back(repo, &rec, (pb.thread, &pb.transcripts, pb.force), homes)?;
    let mut op = Op::new(pb.kind, pb.thread.map(ThreadId::as_str));
    let (mut files, mut safety_commit) = (Plan::default(), None);
    if let Some(span) = pb.files {
        let target = |current| match &files_sel {
            Some(sel) => select::edit(repo, &rec, current, &sel.put),
            None => Ok(span.before),
        };
        let (safety, plan, target) = safety::take_with(lock, &rec, target, pb.force)?;
        let message = format!(
            "t3 safety {}{}",
            pb.kind.as_str(),
            pb.thread.map(|t| format!(" thread={t}")).unwrap_or_default()
        );
        repo::ensure_tree_object(&rec, safety.tree)?;
        let commit = repo::write_commit(&rec, safety.tree, Vec::new(), &message)?;
        op.safety = Some(commit.to_string());
        op.moved_aside = safety.moved_aside;
        op.restored = Some(target.to_string());
        op.by_path = files_sel.is_some();
        match (&index_sel, pb.index) {
            (Some(sel), _) if !sel.put.is_empty() => {
                // What the index holds after: as now, with those paths put back.
                let head = repo::head_tree(repo)?.unwrap_or_else(|| ObjectId::empty_tree(repo.object_hash()));
                let now = safety.index_tree.unwrap_or(head);
                op.index_tree = Some(now.to_string());
                op.index_after = Some(select::edit(repo, &rec, now, &sel.put)?.to_string());
            }
            (Some(_), _) => op.index_tree = safety.index_tree.map(|t| t.to_string()),
            (None, Some(span)) => {
                op.index_tree = safety.index_tree.map(|t| t.to_string());
                op.restored_index = Some(span.before.to_string());
            }
            (None, None) => op.index_tree = safety.index_tree.map(|t| t.to_string()),
        }
        (files, safety_commit) = (plan, Some(commit));
    }
    op.undoes = pb.undoes.map(|id| id.to_string());
    op.stepped = pb.stepped;
    op.worktree = Some(repo::absolute_git_dir(repo));
    op.moved_back = pb.moved_back;
    op.refs = refs;
    op.transcripts = transcripts;
    op.notes = pb.notes;
    rec.sync()?;
    lock.interrupt().check()?;
    let id = oplog::record_with(lock, &op, &[], true)?;
    crate::fault::point("after-op");
    let index_put = index_sel.map(|s| s.put);
    complete(lock, &op, Some((files.clone(), index_put)), homes)?;
    oplog::clear_pending(lock, id)?;
    Ok(Done {
        op: id,
        safety: safety_commit,
        files,
        overwritten: [changed_files, changed_index].concat(),
        transcripts: op.transcripts,
        notices,
    })
}

/// The transcript changes `pb` makes, checked against the files as they
/// are, before anything changes: one already put back is left out; one
/// whose file changed since refuses, naming it, unless `--force`, which
/// keeps what the file holds now (as a blob written through `rec`) in the
/// op, so the put-back can be undone in turn.
fn transcripts_to_put_back(
    repo: &gix::Repository,
    rec: &Recorder<'_>,
    (thread, transcripts, force): (Option<&ThreadId>, &[(TranscriptChange, bool)], bool),
    homes: &AgentHomes,
) -> Result<(Vec<TranscriptChange>, Vec<String>)> {
    let (mut changes, mut notices) = (Vec::new(), Vec::new());
    for (change, sure) in transcripts {
        let thread = thread.ok_or_else(|| Error::BadMetadata {
            reference: oplog::OPS_REF.into(),
            problem: "an op changed a transcript but names no thread".into(),
        })?;
        let checked = transcript::check(repo, change, thread.as_str(), homes)?;
        match checked.state {
            State::After => {}
            State::Before => changes.push(change.clone()),
            State::Other(_) if !sure => notices.push(format!(
                "the conversation's transcript {} was left as it is: the provider step had not \
                 changed it (it holds neither the backup nor what the revert would write)",
                checked.at.path.display()
            )),
            State::Other(_) if !force => {
                return Err(Error::Refused(format!(
                    "the conversation's transcript {} changed since (the agent went on after the \
                     revert); putting the backup back would drop what it wrote since; quit the agent, \
                     or pass --force to keep its current content in the operation log and put the \
                     backup back anyway",
                    checked.at.path.display()
                )));
            }
            State::Other(id) => {
                if let Some(data) = &checked.current {
                    rec.write_blob(data)?;
                }
                changes.push(TranscriptChange {
                    before: id.map(|id| id.to_string()),
                    ..change.clone()
                });
                notices.push(format!(
                    "the conversation's transcript {} had changed since; what it held is kept in the \
                     operation log (undo this op to get it back)",
                    checked.at.path.display()
                ));
            }
        }
    }
    Ok((changes, notices))
}

fn reused_message(reused: &[String]) -> String {
    let turns: Vec<String> = reused
        .iter()
        .map(|name| match parse_checkpoint_ref(name) {
            Ok(p) => format!("turn {}", p.turn),
            Err(_) => name.clone(),
        })
        .collect();
    format!(
        "{} changed since (the thread went on after the revert): {}; undoing would replace \
         {}; pass --force to keep the newer checkpoints in the operation log and undo anyway",
        if turns.len() == 1 {
            "a checkpoint was"
        } else {
            "checkpoints were"
        },
        turns.join(", "),
        if turns.len() == 1 { "it" } else { "them" }
    )
}

/// Carry out the recorded put-back `op`: files, nested repositories, index,
/// refs, notes. Idempotent, so a killed run is completed by running it
/// again (`first`: the plan and the index entries of the first run).
fn complete(
    lock: &Locked<'_>,
    op: &Op,
    first: Option<(Plan, Option<Vec<select::Put>>)>,
    homes: &AgentHomes,
) -> Result<()> {
    let repo = lock.repo();
    let workdir = repo::workdir(repo)?;
    if let Some(tree) = op.restored.as_deref().map(oplog::id).transpose()? {
        let (plan, index_put) = match first {
            Some((p, i)) => (p, i),
            // Finishing an interrupted put-back: keep the work done since first.
            None => {
                let kept = op
                    .safety_commit()?
                    .map(|c| repo::commit_tree(repo, c))
                    .transpose()?;
                let plan = safety::keep_before_resume(
                    lock,
                    op.thread.as_deref(),
                    tree,
                    kept,
                    !op.moved_aside.is_empty(),
                )?;
                (plan, None)
            }
        };
        safety::move_repositories(&workdir, &op.moved_aside, false)?;
        restore::apply(lock, tree, &plan)?;
        crate::fault::point("after-restore");
        match (index_put, op.index_after.as_deref(), op.by_path) {
            (Some(put), _, _) => restore::index::set_entries(lock, &put)?,
            (None, Some(after), _) => restore::index::reset_index(lock, oplog::id(after)?)?,
            (None, None, true) => {}
            // A put-back of the whole tree (recorded before `by_path`).
            (None, None, false) => {
                let index = match op.restored_index.as_deref() {
                    Some(t) => oplog::id(t)?,
                    None => restore::index::head_or(repo, tree)?,
                };
                restore::index::reset_index(lock, index)?;
            }
        }
        safety::move_repositories(&workdir, &op.moved_back, true)?;
    }
    let mut updates = Vec::new();
    for c in &op.refs {
        let now = repo::find_direct_ref(repo, &c.reference)?;
        let to = c.new.as_deref().map(oplog::id).transpose()?;
        let recorded = c.old.as_deref().map(oplog::id).transpose()?;
        // Only from what the op recorded: a ref moved since (a turn captured
        // while the op was interrupted) is new work, and stays.
        if now == to || now != recorded {
            continue;
        }
        updates.push(RefUpdate {
            name: c.reference.clone(),
            new: to,
            expect: recorded.map_or(Expect::Absent, Expect::Is),
        });
    }
    repo::update_refs(lock, &updates, "t3: put back")?;
    // The notes a prune removed, where the commit has none now.
    if !op.notes.is_empty() {
        let mut reader = repo::NotesReader::open(repo)?;
        let mut edits = Vec::new();
        for n in &op.notes {
            let (commit, blob) = (oplog::id(&n.commit)?, oplog::id(&n.note)?);
            if reader.blob_id(commit)?.is_none() && repo.has_object(blob) {
                edits.push(repo::NoteEdit::SetBlob(commit, blob));
            }
        }
        repo::edit_notes(lock, &edits, "t3: notes put back")?;
    }
    crate::fault::point("after-refs");
    // The conversation last: only over the bytes the op recorded (a file
    // the agent wrote to meanwhile is new work, and stays).
    let thread = op.thread.as_deref().unwrap_or_default();
    for change in &op.transcripts {
        transcript::apply(repo, change, thread, homes, false)?;
    }
    Ok(())
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
        safety: entry.op.safety_commit()?,
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
