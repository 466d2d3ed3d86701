//! Carrying out a put-back: check the refs and paths it will set (refusing
//! before anything changes), take its safety checkpoint, record it in the
//! operation log as pending, then put back files, index, nested
//! repositories, refs, notes and transcripts ([`complete`], which also
//! finishes a run that was killed).

use gix::ObjectId;
use gix::bstr::BString;

use crate::error::{Error, Result};
use crate::model::oid::Oid;
use crate::model::thread::{ThreadId, parse_checkpoint_ref};
use crate::oplog::{self, Kind, MovedAside, Op, RefChange, TranscriptChange};
use crate::provider::AgentHomes;
use crate::provider::transcript::{self, State};
use crate::repo::{self, Expect, Locked, Recorder, RefUpdate};
use crate::restore::{self, Plan};
use crate::revert::{owners, safety, select};

/// One ref to put back: to `to`, from what the undone operation left, `from`.
pub(super) struct Change {
    pub(super) name: String,
    pub(super) from: Option<ObjectId>,
    pub(super) to: Option<ObjectId>,
}

/// What a put-back restores.
pub(super) struct PutBack<'a> {
    pub(super) kind: Kind,
    pub(super) thread: Option<&'a ThreadId>,
    /// The worktree before the operation undone (`before`) and, when known,
    /// what it left (`after`): only the paths where the two differ go back,
    /// and only where they are still as it left them. Without `after` (an
    /// op recorded before that was kept), the whole worktree goes back to
    /// `before`.
    pub(super) files: Option<select::Span>,
    /// The user's index likewise.
    pub(super) index: Option<select::IndexSpan>,
    pub(super) moved_back: Vec<MovedAside>,
    pub(super) refs: Vec<Change>,
    pub(super) undoes: Option<ObjectId>,
    /// Transcript changes that put a conversation back; `true`: the file
    /// was surely changed by the operation undone, so one that changed
    /// since refuses (unless `force`); `false`: the change may never have
    /// been made, so such a file is left alone.
    pub(super) transcripts: Vec<(TranscriptChange, bool)>,
    pub(super) force: bool,
    /// Put back paths changed since the operation too (their content is
    /// kept in the safety checkpoint first): `revert --abort` and
    /// `revert --undo`, which exist to go back; `op undo` refuses instead.
    pub(super) overwrite: bool,
    /// Made by a bare `op undo` (see [`Op::stepped`]).
    pub(super) stepped: bool,
    /// When the operation undone ran (seconds): another thread's captures
    /// since may hold work on the paths that changed.
    pub(super) since: i64,
    /// Notes to put back (of the checkpoints a prune removed).
    pub(super) notes: Vec<oplog::KeptNote>,
}

/// What a put-back did.
pub(super) struct Done {
    pub(super) op: ObjectId,
    pub(super) safety: Option<ObjectId>,
    pub(super) files: Plan,
    /// Paths changed since the operation and put back anyway (`--force`);
    /// what they held is in the safety checkpoint.
    pub(super) overwritten: Vec<BString>,
    pub(super) transcripts: Vec<TranscriptChange>,
    pub(super) notices: Vec<String>,
}

/// Check, keep, record, then carry out `pb`.
pub(super) fn run(lock: &Locked<'_>, mut pb: PutBack<'_>, homes: &AgentHomes) -> Result<Done> {
    let repo = lock.repo();
    let refs = refs_to_put_back(repo, std::mem::take(&mut pb.refs), pb.force)?;
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
    let sel = Selected::of(repo, &rec, &pb)?;
    let (transcripts, notices) =
        transcripts_to_put_back(repo, &rec, (pb.thread, &pb.transcripts, pb.force), homes)?;
    let mut op = Op::new(pb.kind, pb.thread.map(ThreadId::as_str));
    let (mut files, mut safety_commit) = (Plan::default(), None);
    if let Some(span) = pb.files {
        let (plan, commit) = keep_worktree(lock, &rec, &pb, span, &sel, &mut op)?;
        (files, safety_commit) = (plan, Some(commit));
    }
    op.undoes = pb.undoes.map(Oid::from);
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
    let index_put = sel.index.map(|s| s.put);
    complete(lock, &op, Some((files.clone(), index_put)), homes)?;
    oplog::clear_pending(lock, id)?;
    Ok(Done {
        op: id,
        safety: safety_commit,
        files,
        overwritten: [sel.changed_files, sel.changed_index].concat(),
        transcripts: op.transcripts,
        notices,
    })
}

/// The ref changes that put `changes` back, each from what the ref holds
/// now; refused, unless `force`, when a ref moved since the operation
/// (neither what it left nor what it goes back to).
fn refs_to_put_back(repo: &gix::Repository, changes: Vec<Change>, force: bool) -> Result<Vec<RefChange>> {
    let mut refs = Vec::with_capacity(changes.len());
    let mut reused = Vec::new();
    for c in changes {
        let now = repo::find_direct_ref(repo, &c.name)?;
        if now != c.from && now != c.to {
            reused.push(c.name.clone());
        }
        refs.push(RefChange {
            reference: c.name,
            old: now.map(Oid::from),
            new: c.to.map(Oid::from),
        });
    }
    if !reused.is_empty() && !force {
        return Err(Error::Refused(reused_message(&reused)));
    }
    Ok(refs)
}

/// Which paths of the worktree and the index go back, and which changed
/// since the operation.
struct Selected {
    files: Option<select::Selection>,
    index: Option<select::Selection>,
    changed_files: Vec<BString>,
    changed_index: Vec<BString>,
}

impl Selected {
    /// The paths `pb` puts back; refused before anything changes when some
    /// changed since, unless `--force` or `pb.overwrite`.
    fn of(repo: &gix::Repository, rec: &Recorder<'_>, pb: &PutBack<'_>) -> Result<Selected> {
        let put_changed = pb.force || pb.overwrite;
        let files = match pb.files {
            Some(select::Span {
                before,
                after: Some(after),
            }) => Some(select::worktree(repo, rec, before, after, put_changed)?),
            _ => None,
        };
        let index = pb
            .index
            .map(|s| select::index(repo, s.before, s.after, put_changed))
            .transpose()?;
        let changed_files = files.as_ref().map(|s| s.changed.clone()).unwrap_or_default();
        let changed_index = index.as_ref().map(|s| s.changed.clone()).unwrap_or_default();
        if !pb.force && !pb.overwrite && (!changed_files.is_empty() || !changed_index.is_empty()) {
            return Err(Error::Refused(select::refusal(&changed_files, &changed_index)));
        }
        Ok(Selected {
            files,
            index,
            changed_files,
            changed_index,
        })
    }
}

/// Take the safety checkpoint before the worktree goes back to `span`
/// (only the paths `sel` puts back, when it chose some), refusing another
/// thread's work among the paths changed since unless `--force`, and note
/// it and the index before and after in `op`. Returns the files to put
/// back and the safety commit.
fn keep_worktree(
    lock: &Locked<'_>,
    rec: &Recorder<'_>,
    pb: &PutBack<'_>,
    span: select::Span,
    sel: &Selected,
    op: &mut Op,
) -> Result<(Plan, ObjectId)> {
    let repo = lock.repo();
    let target = |current| match &sel.files {
        Some(files) => select::edit(repo, rec, current, &files.put),
        None => Ok(span.before),
    };
    let (safety, plan, target) = safety::take_with(lock, rec, target, pb.force)?;
    // Paths changed since that another thread's agent wrote are put
    // back only with --force (two agents in one worktree).
    if let Some(thread) = pb.thread
        && !pb.force
        && !sel.changed_files.is_empty()
    {
        let since = owners::Since {
            time: pb.since,
            own_after: None,
        };
        let changed: Vec<&BString> = sel.changed_files.iter().collect();
        owners::refuse(
            pb.kind.as_str(),
            &owners::foreign_paths(repo, thread, since, safety.tree, &changed)?,
        )?;
    }
    let message = format!(
        "t3 safety {}{}",
        pb.kind.as_str(),
        pb.thread.map(|t| format!(" thread={t}")).unwrap_or_default()
    );
    repo::ensure_tree_object(rec, safety.tree)?;
    let commit = repo::write_commit(rec, safety.tree, Vec::new(), &message)?;
    op.safety = Some(commit.into());
    op.moved_aside = safety.moved_aside;
    op.restored = Some(target.into());
    op.by_path = sel.files.is_some();
    op.index_tree = safety.index_tree.map(Oid::from);
    if let Some(index) = sel.index.as_ref().filter(|s| !s.put.is_empty()) {
        // What the index holds after: as now, with those paths put back.
        let now = safety
            .index_tree
            .map_or_else(|| repo::head_tree_or_empty(repo), Ok)?;
        op.index_tree = Some(now.into());
        op.index_after = Some(select::edit(repo, rec, now, &index.put)?.into());
    }
    Ok((plan, commit))
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
                    before: id.map(Oid::from),
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
pub(super) fn complete(
    lock: &Locked<'_>,
    op: &Op,
    first: Option<(Plan, Option<Vec<select::Put>>)>,
    homes: &AgentHomes,
) -> Result<()> {
    let repo = lock.repo();
    let workdir = repo::workdir(repo)?;
    if let Some(tree) = op.restored.map(Oid::get) {
        let (plan, index_put) = match first {
            Some((p, i)) => (p, i),
            // Finishing an interrupted put-back: keep the work done since first.
            None => {
                let kept = op
                    .safety_commit()
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
        match (index_put, op.index_after, op.by_path) {
            (Some(put), _, _) => restore::index::set_entries(lock, &put)?,
            (None, Some(after), _) => restore::index::reset_index(lock, after.get())?,
            (None, None, true) => {}
            // A put-back of the whole tree (recorded before `by_path`).
            (None, None, false) => {
                let index = match op.restored_index {
                    Some(t) => t.get(),
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
        let to = c.new.map(Oid::get);
        let recorded = c.old.map(Oid::get);
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
            let (commit, blob) = (n.commit.get(), n.note.get());
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
