//! The revert saga: put the workspace (and, through the thread's provider,
//! the agent's conversation) back to turn N without ever losing work.
//!
//! Everything happens under the repository lock, taken by the caller before
//! anything is read: the refs, the latest turn, a journal left by an earlier
//! revert, the target's note and the provider are all read under it, so a
//! capture from an agent hook either waits or is seen and removed.
//!
//! 1. Snapshot the worktree as it is (the safety checkpoint) and publish the
//!    journal `refs/t3/reverts/<b64>` pointing at it ([`journal`]).
//! 2. Run the [`saga::Saga`]: restore, provider, refs, record, finish.
//!
//! `--continue` re-runs the saga from the journal's step; `--abort` and
//! `--undo` put the safety checkpoint's files and every removed ref (and
//! note) back.

pub mod journal;
mod outcome;
pub mod owners;
pub mod paths;
pub mod put_back;
mod report;
pub mod safety;
pub mod saga;
pub mod select;
mod uncaptured;

use gix::ObjectId;

use crate::error::{Error, Result};
use crate::model::note::{self, RemovedRef};
use crate::model::thread::ThreadId;
use crate::provider::transcript::{self, TurnInfo};
use crate::provider::{self, Provider};
use crate::repo::{self, Locked, NotesReader, Recorder};
use crate::restore;
use crate::store::{self, TurnRef};

pub use journal::{Journal, Step};
pub use outcome::{Ran, RevertInProgress, RevertOutcome, progress};
pub use put_back::{abort, undo, undo_op};
pub use report::{Report, TranscriptReport, Undid};
use saga::Saga;

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
    /// Move nested repositories in the way aside instead of refusing.
    pub force: bool,
    /// Where provider helpers are found and how long they may run.
    pub provider: provider::Settings,
}

/// Whether a revert of `thread` is half-done, and at which step.
pub fn in_progress(repo: &gix::Repository, thread: &ThreadId) -> Result<Option<Journal>> {
    Ok(journal::read(repo, &thread.revert_journal_ref())?.map(|(_, j)| j))
}

/// What the revert decided, read under the lock.
struct Decision {
    latest: u64,
    target_label: String,
    target_tree: ObjectId,
    provider_name: Option<String>,
    removed: Vec<RemovedRef>,
    notices: Vec<String>,
}

/// Start a revert, under `lock`.
pub fn start(lock: &Locked<'_>, opts: Options) -> Result<Report> {
    let repo = lock.repo();
    repo::workdir(repo)?;
    let Options {
        thread,
        to,
        files_only,
        dry_run,
        force,
        provider: provider_settings,
    } = opts;
    // An interrupted abort or undo is finished first (it is recorded).
    let interrupted = if dry_run {
        None
    } else {
        put_back::complete_pending(lock, &provider_settings.homes)?
    };
    store::require_bound_here(repo, &thread, "revert", force)?;
    let mut d = decide(repo, &thread, to)?;
    let turns = d.latest - to;
    let provider = if files_only || turns == 0 {
        Provider::None
    } else {
        provider::resolve(repo, d.provider_name.as_deref(), &provider_settings)?
    };
    let planned = plan_transcript(repo, &provider, &thread, to)?;
    let rec = Recorder::new(repo);
    let (safety, files) = safety::take(lock, &rec, d.target_tree, force)?;
    // Two agents in one worktree: the other thread's files are named, and
    // overwritten only with --force (the safety checkpoint keeps them).
    let target_ref = store::turn_ref(repo, &thread, to)?;
    let since = owners::Since::target(repo, target_ref)?;
    let others = owners::foreign(repo, &thread, since, safety.tree, &files)?;
    if !dry_run && !force {
        owners::refuse("revert", &others)?;
    }
    let latest_tree = store::turn_ref(repo, &thread, d.latest)?
        .map(|t| repo::commit_tree(repo, t.commit))
        .transpose()?;
    let named: Vec<_> = others.iter().map(|o| o.path.clone()).collect();
    let uncaptured = uncaptured::uncaptured(repo, latest_tree, safety.tree, &files, &named)?;
    let mut notices = std::mem::take(&mut d.notices);
    if let Some(f) = interrupted {
        notices.extend(f.notices);
    }
    let mut report = Report {
        thread: thread.to_string(),
        from_turn: d.latest,
        to_turn: to,
        target: d.target_label.clone(),
        files: restore::Plan::default(),
        refs: d.removed.clone(),
        rolled_back_turns: 0,
        safety_commit: None,
        transcripts: Vec::new(),
        undid: None,
        overwritten: Vec::new(),
        others,
        uncaptured,
        notices,
    };
    if let Provider::Builtin { agent, .. } = &provider
        && planned.is_none()
    {
        report.notices.push(format!(
            "{}'s conversation is already at turn {to}: its transcript is left alone",
            agent.label()
        ));
    }
    if dry_run {
        return Ok(dry_run_report(report, files, &provider, planned.as_ref(), turns));
    }
    let transcripts = planned
        .iter()
        .map(|p| transcript::record(&rec, p))
        .collect::<Result<Vec<_>>>()?;
    let journal = new_journal(repo, d, (&thread, to, files_only), safety, transcripts)?;
    let mut saga = Saga::begin(lock, &rec, &thread, journal)?;
    let timeout = provider::timeout(repo, provider_settings.timeout);
    let ran = saga.run(&provider, timeout, Some(files))?;
    for m in &saga.journal().moved_aside {
        report.notices.push(format!(
            "moved the nested repository {} aside to {}",
            m.path, m.to
        ));
    }
    let mut done = finished(&saga, ran, report.notices);
    done.others = report.others;
    done.uncaptured = report.uncaptured;
    Ok(done)
}

/// The change of the transcript a built-in `provider` plans for a revert of
/// `thread` to `to`, before anything changes: a transcript it may not or
/// cannot change stops the revert here. `None`: no built-in provider, or
/// the conversation is already there.
fn plan_transcript(
    repo: &gix::Repository,
    provider: &Provider,
    thread: &ThreadId,
    to: u64,
) -> Result<Option<transcript::Planned>> {
    Ok(match provider {
        Provider::Builtin { agent, homes } => {
            let infos = turn_infos(repo, thread, to)?;
            transcript::plan(*agent, homes, thread.as_str(), &infos, to).map_err(|e| e.into_error(*agent))?
        }
        _ => None,
    })
}

/// What a `--dry-run` says: `report` with the `files` the revert would
/// change and the conversation `provider` would roll back `turns` turns
/// (through the `planned` transcript change of a built-in one).
fn dry_run_report(
    mut report: Report,
    files: restore::Plan,
    provider: &Provider,
    planned: Option<&transcript::Planned>,
    turns: u64,
) -> Report {
    report.files = files;
    report.rolled_back_turns = match (provider, planned) {
        (Provider::None, _) | (Provider::Builtin { .. }, None) => 0,
        _ => turns,
    };
    report.transcripts = planned
        .iter()
        .map(|p| TranscriptReport {
            agent: p.agent.name().to_owned(),
            path: p.path.to_string_lossy().into_owned(),
            how: p.how.clone(),
            backup: None,
        })
        .collect();
    report
}

/// The journal of a revert of `thread` to `to` that `d` decided on, at its
/// first step, with the `safety` checkpoint taken and the `transcripts`
/// changes recorded.
fn new_journal(
    repo: &gix::Repository,
    d: Decision,
    (thread, to, files_only): (&ThreadId, u64, bool),
    safety: safety::Safety,
    transcripts: Vec<crate::oplog::TranscriptChange>,
) -> Result<Journal> {
    Ok(Journal {
        schema: 1,
        kind: "revert".into(),
        thread: thread.to_string(),
        from_turn: d.latest,
        to_turn: to,
        target: d.target_label,
        target_tree: d.target_tree.into(),
        safety_tree: safety.tree.into(),
        step: Step::Restore,
        files_only,
        provider: d.provider_name,
        removed: d.removed,
        started_at: note::now_rfc3339(),
        index_tree: safety.index_tree.map(Into::into),
        ops_tip: repo::find_direct_ref(repo, crate::oplog::OPS_REF)?.map(|id| id.to_string()),
        moved_aside: safety.moved_aside,
        transcripts,
    })
}

/// What the notes of `thread` say about the turns a revert to `to` takes
/// back (and the target and baseline, where a transcript may be named
/// too). An unreadable note says nothing.
fn turn_infos(repo: &gix::Repository, thread: &ThreadId, to: u64) -> Result<Vec<TurnInfo>> {
    let mut notes = NotesReader::open(repo)?;
    let mut infos = Vec::new();
    for t in store::thread_refs(repo, thread)?
        .into_iter()
        .filter(|t| t.turn >= to || t.turn == 0)
    {
        if let Ok(cp) = store::load(repo, &mut notes, thread, t) {
            infos.push(TurnInfo {
                turn: t.turn,
                transcript: cp.note.transcript,
                prompt_id: cp.note.prompt_id,
            });
        } else {
            infos.push(TurnInfo {
                turn: t.turn,
                ..TurnInfo::default()
            });
        }
    }
    Ok(infos)
}

/// Check the preconditions and read what the revert decides on.
fn decide(repo: &gix::Repository, thread: &ThreadId, to: u64) -> Result<Decision> {
    if let Some(state) = repo.state() {
        return Err(Error::RepositoryBusy {
            state: format!("{state:?}"),
        });
    }
    // Stale lock files of git-t3's own were removed when the lock was taken:
    // one still there belongs to a git command that is running.
    let index_lock = repo.index_path().with_extension("lock");
    if index_lock.exists() {
        return Err(Error::Refused(format!(
            "{} exists: another git process is using the index; try again when it is done \
             (remove the file only if no git command is running)",
            index_lock.display()
        )));
    }
    let refs = store::thread_refs(repo, thread)?;
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
    if let Some(j) = in_progress(repo, thread)? {
        return Err(Error::RevertInProgress {
            thread: thread.to_string(),
            to_turn: j.to_turn,
            step: j.step.as_str().into(),
        });
    }
    let mut notes = NotesReader::open(repo)?;
    let mut notices = Vec::new();
    let (target_label, target_tree) = target(repo, &mut notes, thread, &refs, to, latest, &mut notices)?;
    // A checkpoint may come from someone else: checked whole, before anything.
    let head = repo::head_tree(repo)?;
    if let Some(first) = crate::restore::verify::check_tree(repo, target_tree, head, 1).first() {
        return Err(Error::BadMetadata {
            reference: target_label,
            problem: format!("refused, nothing was changed: it holds {first}"),
        });
    }
    // The thread's provider is named on its baseline.
    let provider_name = refs
        .first()
        .filter(|t| t.turn == 0)
        .and_then(|t| store::load(repo, &mut notes, thread, *t).ok())
        .and_then(|cp| cp.note.provider);
    let mut removed = Vec::new();
    for t in refs.iter().filter(|t| t.turn > to) {
        removed.push(RemovedRef {
            turn: t.turn,
            commit: t.commit.to_string(),
            note: notes.blob_id(t.commit)?.map(|id| id.to_string()),
        });
    }
    Ok(Decision {
        latest,
        target_label,
        target_tree,
        provider_name,
        removed,
        notices,
    })
}

/// The target's label and tree: turn `to`'s checkpoint, or HEAD when turn 0 is gone.
fn target(
    repo: &gix::Repository,
    notes: &mut NotesReader<'_>,
    thread: &ThreadId,
    refs: &[TurnRef],
    to: u64,
    latest: u64,
    notices: &mut Vec<String>,
) -> Result<(String, ObjectId)> {
    match refs.iter().find(|t| t.turn == to) {
        Some(t) => {
            let cp = store::load(repo, notes, thread, *t)?;
            if cp.note.placeholder {
                return Err(Error::Placeholder {
                    thread: thread.to_string(),
                    turn: to,
                    reference: thread.checkpoint_ref(to),
                });
            }
            Ok((thread.checkpoint_ref(to), cp.tree))
        }
        None if to == 0 => {
            notices.push(format!(
                "turn 0 of thread '{thread}' is gone ({}): restoring HEAD instead",
                thread.checkpoint_ref(0)
            ));
            let head = repo::head_tree_or_empty(repo)?;
            Ok(("HEAD".into(), head))
        }
        None => Err(Error::NoSuchTurn {
            thread: thread.to_string(),
            turn: to,
            latest: Some(latest),
        }),
    }
}

/// The report of a saga that ran to its end.
fn finished(saga: &Saga<'_, '_>, ran: saga::Ran, mut notices: Vec<String>) -> Report {
    let j = saga.journal();
    for turn in &ran.kept_turns {
        notices.push(format!(
            "turn {turn} was captured again while the revert was stopped: it is kept, not removed"
        ));
    }
    if ran.rolled_back == 0 && j.from_turn > j.to_turn && j.files_only {
        notices.push("--files-only: the agent's conversation was not rolled back".into());
    }
    Report {
        thread: j.thread.clone(),
        from_turn: j.from_turn,
        to_turn: j.to_turn,
        target: j.target.clone(),
        files: ran.files,
        refs: j.removed.clone(),
        rolled_back_turns: ran.rolled_back,
        safety_commit: Some(saga.safety_commit().into()),
        transcripts: j.transcripts.iter().map(TranscriptReport::of).collect(),
        undid: None,
        overwritten: Vec::new(),
        others: Vec::new(),
        uncaptured: Vec::new(),
        notices,
    }
}

/// Resume a half-done revert of `thread` from the step that failed, under `lock`.
pub fn resume(lock: &Locked<'_>, thread: &ThreadId, settings: &provider::Settings) -> Result<Report> {
    if let Some(finished) = put_back::complete_pending(lock, &settings.homes)? {
        return Ok(finished);
    }
    let repo = lock.repo();
    let Some(mut saga) = Saga::load(lock, thread)? else {
        return Err(Error::NoRevertInProgress {
            thread: thread.to_string(),
        });
    };
    let j = saga.journal();
    let provider = if j.files_only || j.step > Step::Provider {
        Provider::None
    } else if !j.transcripts.is_empty() {
        // The change was planned (and backed up) by a built-in provider:
        // it is carried out as planned, whatever helper appeared since.
        j.provider
            .as_deref()
            .and_then(|name| provider::builtin(name, settings))
            .ok_or_else(|| Error::BadMetadata {
                reference: thread.revert_journal_ref(),
                problem: "the journal plans transcript changes for a provider that is not built in".into(),
            })?
    } else {
        provider::resolve(repo, j.provider.as_deref(), settings)?
    };
    let ran = saga.run(&provider, provider::timeout(repo, settings.timeout), None)?;
    Ok(finished(&saga, ran, Vec::new()))
}
