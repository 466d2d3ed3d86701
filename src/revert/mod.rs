//! The revert saga: put the workspace (and, through the thread's provider,
//! the agent's conversation) back to turn N without ever losing work.
//!
//! 1. Under the repository lock, snapshot the worktree as it is (the safety
//!    checkpoint) and publish the journal `refs/t3/reverts/<b64>` pointing at
//!    it, with a note holding the saga's state ([`Journal`]).
//! 2. Restore the files (only the paths that differ), reset the index.
//! 3. Ask the provider to roll back `latest - N` turns.
//! 4. Delete the thread's refs above N.
//! 5. Record the revert in the target's note, drop the removed checkpoints'
//!    notes, and turn the journal into the undo slot `refs/t3/undo/<b64>`.
//!
//! The journal note names the next step; each step is idempotent, so
//! `--continue` re-runs from there and `--abort` puts the safety checkpoint's
//! files and every removed ref (and note) back.

use gix::ObjectId;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::model::note::{self, RemovedRef, RevertRecord};
use crate::model::thread::ThreadId;
use crate::provider::{self, Provider};
use crate::repo::lock::RepoLock;
use crate::repo::{self, Expect, NotesReader, Recorder, RefUpdate};
use crate::restore;
use crate::store::{self, testing};

/// The saga's next step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Step {
    /// Write the target's files.
    Restore,
    /// Roll the conversation back.
    Provider,
    /// Delete the refs above the target.
    Refs,
    /// Record the revert and finish.
    Record,
    /// Finished (the journal is now the undo slot).
    Done,
}

/// The saga's state, stored as the note of the safety checkpoint.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Journal {
    /// Always 1.
    pub schema: u32,
    /// Always "revert".
    pub kind: String,
    /// The thread.
    pub thread: String,
    /// The latest turn before the revert.
    pub from_turn: u64,
    /// The turn reverted to.
    pub to_turn: u64,
    /// The target's ref, or `HEAD` when turn 0 was gone.
    pub target: String,
    /// The target tree.
    pub target_tree: String,
    /// The tree of the safety checkpoint (the worktree before the revert).
    pub safety_tree: String,
    /// The next step to run.
    pub step: Step,
    /// Leave the conversation alone.
    pub files_only: bool,
    /// The thread's provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The refs above the target, with their notes.
    #[serde(default)]
    pub removed: Vec<RemovedRef>,
    /// When the revert started.
    pub started_at: String,
}

/// What a revert did (or, with `--dry-run`, would do).
#[derive(Debug, Serialize)]
pub struct RevertOutcome {
    /// The thread.
    pub thread: String,
    /// `revert`, `continue`, `abort`, `undo` or `dry-run`.
    pub action: &'static str,
    /// The latest turn before the revert.
    pub from_turn: u64,
    /// The turn reverted to.
    pub to_turn: u64,
    /// The target's ref, or `HEAD`.
    pub target: String,
    /// Files written and deleted.
    pub files: restore::Plan,
    /// Refs removed (or put back, for abort and undo).
    pub refs: Vec<RemovedRef>,
    /// Turns the provider rolled back.
    pub rolled_back_turns: u64,
    /// The safety checkpoint holding the worktree as it was.
    pub safety_commit: Option<String>,
    /// Messages for stderr.
    #[serde(skip)]
    pub notices: Vec<String>,
}

fn oid(s: &str) -> Result<ObjectId> {
    ObjectId::from_hex(s.as_bytes()).map_err(|_| Error::BadMetadata {
        reference: "revert journal".into(),
        problem: format!("'{s}' is not an object id"),
    })
}

fn read_journal(repo: &gix::Repository, reference: &str) -> Result<Option<(ObjectId, Journal)>> {
    let Some(commit) = repo::find_ref(repo, reference)? else {
        return Ok(None);
    };
    let data = NotesReader::open(repo)?
        .get(commit)?
        .ok_or_else(|| Error::BadMetadata {
            reference: reference.to_owned(),
            problem: "the journal has no note".into(),
        })?;
    let text = std::str::from_utf8(&data).map_err(|_| Error::BadMetadata {
        reference: reference.to_owned(),
        problem: "the journal note is not UTF-8".into(),
    })?;
    let journal: Journal = toml::from_str(text).map_err(|e| Error::BadMetadata {
        reference: reference.to_owned(),
        problem: format!("the journal note does not parse: {}", e.message()),
    })?;
    Ok(Some((commit, journal)))
}

fn journal_bytes(j: &Journal) -> Vec<u8> {
    toml::to_string(j).unwrap_or_default().into_bytes()
}

fn set_step(repo: &gix::Repository, commit: ObjectId, journal: &mut Journal, step: Step) -> Result<()> {
    journal.step = step;
    repo::edit_notes(
        repo,
        &[(commit, Some(journal_bytes(journal)))],
        "t3: revert journal",
    )
}

/// Whether a revert of `thread` is half-done, and at which step.
pub fn in_progress(repo: &gix::Repository, thread: &ThreadId) -> Result<Option<Journal>> {
    Ok(read_journal(repo, &thread.revert_journal_ref())?.map(|(_, j)| j))
}

/// Inputs of a new revert.
#[derive(Debug, Clone)]
pub struct Options {
    /// The thread.
    pub thread: ThreadId,
    /// The turn to go back to.
    pub to: u64,
    /// Leave the conversation alone.
    pub files_only: bool,
    /// Only say what would happen.
    pub dry_run: bool,
}

struct Target {
    label: String,
    tree: ObjectId,
}

/// Start a revert.
pub fn start(repo: &gix::Repository, opts: Options) -> Result<RevertOutcome> {
    let Options {
        thread,
        to,
        files_only,
        dry_run,
    } = opts;
    let workdir = repo::workdir(repo)?;
    if let Some(state) = repo.state() {
        return Err(Error::RepositoryBusy {
            state: format!("{state:?}"),
        });
    }
    let refs = store::thread_refs(repo, &thread)?;
    let Some(latest) = refs.last().map(|t| t.turn) else {
        return Err(Error::UnknownThread {
            thread: thread.to_string(),
        });
    };
    if to > latest {
        return Err(Error::NoSuchTurn {
            thread: thread.to_string(),
            turn: to,
            latest: Some(latest),
        });
    }
    if let Some(j) = in_progress(repo, &thread)? {
        return Err(Error::RevertInProgress {
            thread: thread.to_string(),
            to_turn: j.to_turn,
            step: format!("{:?}", j.step),
        });
    }
    let mut notes = NotesReader::open(repo)?;
    let mut notices = Vec::new();
    let target = match refs.iter().find(|t| t.turn == to) {
        Some(t) => {
            let cp = store::load(repo, &mut notes, &thread, *t)?;
            if cp.note.placeholder {
                return Err(Error::Placeholder {
                    thread: thread.to_string(),
                    turn: to,
                    reference: thread.checkpoint_ref(to),
                });
            }
            Target {
                label: thread.checkpoint_ref(to),
                tree: cp.tree,
            }
        }
        None if to == 0 => {
            notices.push(format!(
                "turn 0 of thread '{thread}' is gone ({}): restoring HEAD instead",
                thread.checkpoint_ref(0)
            ));
            Target {
                label: "HEAD".into(),
                tree: repo::head_tree(repo)?.unwrap_or_else(|| ObjectId::empty_tree(repo.object_hash())),
            }
        }
        None => {
            return Err(Error::NoSuchTurn {
                thread: thread.to_string(),
                turn: to,
                latest: Some(latest),
            });
        }
    };
    // The thread's provider is named on its baseline.
    let provider_name = refs
        .first()
        .filter(|t| t.turn == 0)
        .and_then(|t| store::load(repo, &mut notes, &thread, *t).ok())
        .and_then(|cp| cp.note.provider);
    let turns = latest - to;
    let provider = if files_only || turns == 0 {
        Provider::None
    } else {
        provider::resolve(repo, &workdir, provider_name.as_deref())?
    };
    let mut removed = Vec::new();
    for t in refs.iter().filter(|t| t.turn > to) {
        removed.push(RemovedRef {
            turn: t.turn,
            commit: t.commit.to_string(),
            note: notes.blob_id(t.commit)?.map(|id| id.to_string()),
        });
    }

    let lock = RepoLock::acquire(&repo::t3_common_dir(repo), "revert")?;
    let rec = Recorder::new(repo);
    let t = crate::trace::span("safety snapshot");
    let safety = crate::snapshot::snapshot(repo, &rec, lock.acquired_at())?;
    drop(t);
    let files = restore::plan(repo, safety.tree, target.tree)?;
    if dry_run {
        return Ok(RevertOutcome {
            thread: thread.to_string(),
            action: "dry-run",
            from_turn: latest,
            to_turn: to,
            target: target.label,
            files,
            refs: removed,
            rolled_back_turns: if matches!(provider, Provider::None) {
                0
            } else {
                turns
            },
            safety_commit: None,
            notices,
        });
    }

    // Step 1: the safety checkpoint and the journal, like a checkpoint:
    // objects, then the note, then the ref.
    let journal_ref = thread.revert_journal_ref();
    let mut journal = Journal {
        schema: 1,
        kind: "revert".into(),
        thread: thread.to_string(),
        from_turn: latest,
        to_turn: to,
        target: target.label.clone(),
        target_tree: target.tree.to_string(),
        safety_tree: safety.tree.to_string(),
        step: Step::Restore,
        files_only,
        provider: provider_name,
        removed,
        started_at: note::now_rfc3339(),
    };
    repo::ensure_tree_object(&rec, safety.tree)?;
    let safety_commit = repo::write_commit(
        &rec,
        safety.tree,
        Vec::new(),
        &format!("t3 checkpoint ref={journal_ref}"),
    )?;
    rec.sync()?;
    repo::edit_notes(
        repo,
        &[(safety_commit, Some(journal_bytes(&journal)))],
        "t3: revert journal",
    )?;
    repo::update_refs(
        repo,
        &[RefUpdate {
            name: journal_ref.clone(),
            new: Some(safety_commit),
            expect: Expect::Absent,
        }],
        "t3: revert started",
    )?;
    fault("after-journal");
    let mut outcome = run(
        repo,
        &lock,
        &thread,
        safety_commit,
        &mut journal,
        Some(files),
        &provider,
    )?;
    outcome.notices.splice(0..0, notices);
    Ok(outcome)
}

fn fault(point: &str) {
    if testing::fault(point) {
        std::process::abort();
    }
}

/// Run the saga from the journal's step to the end, under `lock`.
fn run(
    repo: &gix::Repository,
    lock: &RepoLock,
    thread: &ThreadId,
    safety_commit: ObjectId,
    journal: &mut Journal,
    first_plan: Option<restore::Plan>,
    provider: &Provider,
) -> Result<RevertOutcome> {
    let workdir = repo::workdir(repo)?;
    let target_tree = oid(&journal.target_tree)?;
    let mut files = restore::Plan::default();
    let mut rolled_back = 0;
    let mut notices = Vec::new();
    if journal.step == Step::Restore {
        files = match first_plan {
            Some(plan) => plan,
            // A resumed restore: compare with the worktree as it is now.
            None => {
                let rec = Recorder::new(repo);
                let now = crate::snapshot::snapshot(repo, &rec, lock.acquired_at())?;
                restore::plan(repo, now.tree, target_tree)?
            }
        };
        let _t = crate::trace::span("restore files");
        restore::apply(repo, target_tree, &files)?;
        let _t = crate::trace::span("reset index");
        restore::reset_index(repo, target_tree)?;
        fault("after-restore");
        // Restoring again is harmless, so the journal is rewritten only when
        // a provider call follows: if it fails, the journal says where.
        let provider_follows =
            journal.from_turn > journal.to_turn && !journal.files_only && !matches!(provider, Provider::None);
        if provider_follows {
            set_step(repo, safety_commit, journal, Step::Provider)?;
        } else {
            journal.step = Step::Provider;
        }
    }
    if journal.step == Step::Provider {
        let turns = journal.from_turn - journal.to_turn;
        if turns > 0 && !journal.files_only {
            let workspace = workdir.to_string_lossy().into_owned();
            provider::rollback(
                provider,
                &provider::Rollback {
                    thread: &journal.thread,
                    turns,
                    workspace: &workspace,
                    target_turn: journal.to_turn,
                },
                provider::timeout(repo),
            )?;
            if !matches!(provider, Provider::None) {
                rolled_back = turns;
                fault("after-provider");
                set_step(repo, safety_commit, journal, Step::Refs)?;
            }
        }
        fault("after-provider");
        journal.step = Step::Refs;
    }
    if journal.step == Step::Refs {
        let mut updates = Vec::new();
        for r in &journal.removed {
            let name = thread.checkpoint_ref(r.turn);
            if let Some(current) = repo::find_ref(repo, &name)? {
                updates.push(RefUpdate {
                    name,
                    new: None,
                    expect: Expect::Is(current),
                });
            }
        }
        repo::update_refs(repo, &updates, "t3: revert")?;
        fault("after-refs");
        // Deleting again finds nothing; recording happens once, with `Done`.
        journal.step = Step::Record;
    }
    if journal.step == Step::Record {
        let mut edits = Vec::new();
        if journal.target != "HEAD"
            && let Some(t) = store::turn_ref(repo, thread, journal.to_turn)?
        {
            let mut cp = store::load(repo, &mut NotesReader::open(repo)?, thread, t)?;
            cp.note.reverts.push(RevertRecord {
                from: journal.from_turn,
                to: journal.to_turn,
                at: note::now_rfc3339(),
                removed: journal.removed.clone(),
            });
            edits.push((t.commit, Some(cp.note.to_toml().into_bytes())));
        }
        for r in &journal.removed {
            edits.push((oid(&r.commit)?, None));
        }
        journal.step = Step::Done;
        edits.push((safety_commit, Some(journal_bytes(journal))));
        repo::edit_notes(repo, &edits, "t3: revert recorded")?;
        fault("after-record");
        finish(repo, thread, safety_commit)?;
    }
    if journal.step == Step::Done {
        // Killed after recording: only the ref swap was left.
        finish(repo, thread, safety_commit)?;
    }
    if rolled_back == 0 && journal.from_turn > journal.to_turn && journal.files_only {
        notices.push("--files-only: the agent's conversation was not rolled back".into());
    }
    Ok(RevertOutcome {
        thread: journal.thread.clone(),
        action: "revert",
        from_turn: journal.from_turn,
        to_turn: journal.to_turn,
        target: journal.target.clone(),
        files,
        refs: journal.removed.clone(),
        rolled_back_turns: rolled_back,
        safety_commit: Some(safety_commit.to_string()),
        notices,
    })
}

/// The journal becomes the undo slot, in one ref transaction.
fn finish(repo: &gix::Repository, thread: &ThreadId, safety_commit: ObjectId) -> Result<()> {
    let journal_ref = thread.revert_journal_ref();
    let mut updates = vec![RefUpdate {
        name: thread.undo_ref(),
        new: Some(safety_commit),
        expect: Expect::Any,
    }];
    if repo::find_ref(repo, &journal_ref)?.is_some() {
        updates.push(RefUpdate {
            name: journal_ref,
            new: None,
            expect: Expect::Is(safety_commit),
        });
    }
    repo::update_refs(repo, &updates, "t3: revert done")
}

/// Resume a half-done revert from the step that failed.
pub fn resume(repo: &gix::Repository, thread: &ThreadId) -> Result<RevertOutcome> {
    let lock = RepoLock::acquire(&repo::t3_common_dir(repo), "revert --continue")?;
    let Some((commit, mut journal)) = read_journal(repo, &thread.revert_journal_ref())? else {
        return Err(Error::NoRevertInProgress {
            thread: thread.to_string(),
        });
    };
    let workdir = repo::workdir(repo)?;
    let provider = if journal.files_only || journal.step > Step::Provider {
        Provider::None
    } else {
        provider::resolve(repo, &workdir, journal.provider.as_deref())?
    };
    let mut out = run(repo, &lock, thread, commit, &mut journal, None, &provider)?;
    out.action = "continue";
    Ok(out)
}

/// Put back the files of the safety checkpoint `commit` and the refs (and
/// notes) of `journal.removed`.
fn put_back(
    repo: &gix::Repository,
    lock: &RepoLock,
    thread: &ThreadId,
    journal: &Journal,
) -> Result<restore::Plan> {
    let safety_tree = oid(&journal.safety_tree)?;
    let rec = Recorder::new(repo);
    let now = crate::snapshot::snapshot(repo, &rec, lock.acquired_at())?;
    let plan = restore::plan(repo, now.tree, safety_tree)?;
    restore::apply(repo, safety_tree, &plan)?;
    restore::reset_index(repo, safety_tree)?;
    let mut note_edits = Vec::new();
    let mut updates = Vec::new();
    for r in &journal.removed {
        let c = oid(&r.commit)?;
        if let Some(note_id) = &r.note
            && let Ok(blob) = repo.find_blob(oid(note_id)?)
        {
            note_edits.push((c, Some(blob.data.clone())));
        }
        if repo::find_ref(repo, &thread.checkpoint_ref(r.turn))?.is_none() {
            updates.push(RefUpdate {
                name: thread.checkpoint_ref(r.turn),
                new: Some(c),
                expect: Expect::Absent,
            });
        }
    }
    // Notes first, then refs: a ref never exists without its note.
    repo::edit_notes(repo, &note_edits, "t3: revert undone")?;
    repo::update_refs(repo, &updates, "t3: revert undone")?;
    Ok(plan)
}

/// Under the lock: read the journal at `reference`, put its safety checkpoint's
/// files and the removed refs back, then delete `reference`.
fn put_back_from(
    repo: &gix::Repository,
    thread: &ThreadId,
    reference: String,
    action: &'static str,
    missing: impl FnOnce() -> Error,
) -> Result<(Journal, RevertOutcome)> {
    let lock = RepoLock::acquire(&repo::t3_common_dir(repo), &format!("revert --{action}"))?;
    let Some((commit, journal)) = read_journal(repo, &reference)? else {
        return Err(missing());
    };
    let files = put_back(repo, &lock, thread, &journal)?;
    repo::update_refs(
        repo,
        &[RefUpdate {
            name: reference,
            new: None,
            expect: Expect::Is(commit),
        }],
        &format!("t3: revert {action}"),
    )?;
    let outcome = RevertOutcome {
        thread: journal.thread.clone(),
        action,
        from_turn: journal.from_turn,
        to_turn: journal.to_turn,
        target: journal.target.clone(),
        files,
        refs: journal.removed.clone(),
        rolled_back_turns: 0,
        safety_commit: Some(commit.to_string()),
        notices: Vec::new(),
    };
    Ok((journal, outcome))
}

/// Abort a half-done revert: the files as they were, every ref back.
pub fn abort(repo: &gix::Repository, thread: &ThreadId) -> Result<RevertOutcome> {
    let (journal, mut outcome) = put_back_from(repo, thread, thread.revert_journal_ref(), "abort", || {
        Error::NoRevertInProgress {
            thread: thread.to_string(),
        }
    })?;
    if journal.step > Step::Provider && !journal.files_only && journal.from_turn > journal.to_turn {
        outcome
            .notices
            .push("the provider had already rolled the conversation back; that is not undone".into());
    }
    Ok(outcome)
}

/// Reverse the last completed revert of `thread` (files and refs).
pub fn undo(repo: &gix::Repository, thread: &ThreadId) -> Result<RevertOutcome> {
    if let Some(j) = in_progress(repo, thread)? {
        return Err(Error::RevertInProgress {
            thread: thread.to_string(),
            to_turn: j.to_turn,
            step: format!("{:?}", j.step),
        });
    }
    let (_, mut outcome) = put_back_from(repo, thread, thread.undo_ref(), "undo", || Error::NothingToUndo {
        thread: thread.to_string(),
    })?;
    outcome
        .notices
        .push("files and checkpoints are back; the agent's conversation is not restored".into());
    Ok(outcome)
}
