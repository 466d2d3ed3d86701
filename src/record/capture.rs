//! A capture: snapshot the worktree as a turn and record its summary.

use serde::Serialize;

use crate::diff::{cache, summary};
use crate::error::{Error, Result};
use crate::model::note::{self, Note, Status};
use crate::model::thread::ThreadId;
use crate::repo::{self, Expect, Locked, NotesReader, Recorder};
use crate::snapshot::{self as capture, Skipped, secrets};
use crate::store::{self, Checkpoint};

/// Inputs of `capture`.
#[derive(Debug, Clone)]
pub struct Options {
    /// The thread.
    pub thread: ThreadId,
    /// The turn to write; default: latest + 1.
    pub turn: Option<u64>,
    /// The agent's turn state (`completed`, `failed`, …).
    pub state: Option<String>,
    /// The status to record, when the caller knows it better than the
    /// state's mapping (a hook that saw the turn interrupted).
    pub status: Option<Status>,
    /// The agent's turn id.
    pub turn_id: Option<String>,
    /// The assistant message id.
    pub message_id: Option<String>,
    /// Overwrite a real checkpoint of the same turn.
    pub replace: bool,
    /// Record the thread's provider (baseline only).
    pub provider: Option<String>,
    /// The turn's title (the first line of its prompt).
    pub title: Option<String>,
    /// Who drove the turn (`claude-code`, `codex`, …; `cli` by hand).
    pub agent: Option<String>,
    /// The worktree when the turn's prompt was submitted, when it differed
    /// from the checkpoint before.
    pub pre_turn_tree: Option<gix::ObjectId>,
    /// The agent's transcript file when the turn began.
    pub transcript: Option<String>,
    /// The agent's id of the prompt that started the turn.
    pub prompt_id: Option<String>,
}

impl Options {
    /// Capture the next turn of `thread` with nothing else said.
    pub fn new(thread: ThreadId) -> Self {
        Options {
            thread,
            turn: None,
            state: None,
            status: None,
            turn_id: None,
            message_id: None,
            replace: false,
            provider: None,
            title: None,
            agent: None,
            pre_turn_tree: None,
            transcript: None,
            prompt_id: None,
        }
    }
}

/// The longest title kept, in characters.
pub const MAX_TITLE_CHARS: usize = 200;

/// A title from a prompt: its first non-empty line, trimmed, without
/// control characters, at most [`MAX_TITLE_CHARS`] characters (`None` when
/// nothing is left).
pub fn title_of(prompt: &str) -> Option<String> {
    let line = prompt.lines().map(str::trim).find(|l| !l.is_empty())?;
    let clean: String = line
        .chars()
        .filter(|c| !c.is_control() && !crate::model::thread::is_bidi_control(*c))
        .take(MAX_TITLE_CHARS)
        .collect();
    let clean = clean.trim().to_owned();
    (!clean.is_empty()).then_some(clean)
}

/// Where a checkpoint was taken: the worktree (canonical path), the branch
/// (`""` when detached) and HEAD's commit (unborn: none).
pub fn whereabouts(repo: &gix::Repository) -> Result<(String, Option<String>, Option<String>)> {
    let workdir = repo::workdir(repo)?;
    let worktree = repo::canonical(&workdir);
    let branch = match repo.head_name() {
        Ok(Some(name)) => Some(name.shorten().to_string()),
        Ok(None) => Some(String::new()),
        Err(_) => None,
    };
    let head = repo.head_id().ok().map(|id| id.detach().to_string());
    Ok((worktree.to_string_lossy().into_owned(), branch, head))
}

/// The checkpoint a capture, baseline or placeholder wrote or found.
#[derive(Debug, Serialize)]
pub struct CaptureOutcome {
    /// The checkpoint.
    #[serde(flatten)]
    pub checkpoint: Checkpoint,
    /// Whether this command wrote it (false: `baseline` found one already).
    pub created: bool,
    /// Messages for the user on stderr.
    #[serde(skip)]
    pub notices: Vec<String>,
    /// Those of `notices` about what the checkpoint left out or holds
    /// (files skipped for their size, secret-looking paths): an agent's hook
    /// passes them on to the user, who sees no stderr there.
    #[serde(skip)]
    pub scope_notices: Vec<String>,
}

/// Capture the worktree as a turn of `opts.thread`, with the repository
/// lock held.
pub fn capture(lock: &Locked<'_>, opts: Options) -> Result<CaptureOutcome> {
    capture_then(lock, opts, |_, _| Ok(Vec::new()))
}

/// [`capture`], and the ref updates `then` returns for the turn written
/// (their objects written through the capture's recorder) moved in the
/// same transaction as its ref: one flush of objects and one of refs.
pub fn capture_then(
    lock: &Locked<'_>,
    opts: Options,
    then: impl FnOnce(&Recorder<'_>, u64) -> Result<Vec<crate::repo::RefUpdate>>,
) -> Result<CaptureOutcome> {
    let repo = lock.repo();
    let Options {
        thread,
        turn,
        state,
        status,
        turn_id,
        message_id,
        replace,
        provider,
        title,
        agent,
        pre_turn_tree,
        transcript,
        prompt_id,
    } = opts;
    refuse_during_revert(repo, &thread)?;
    let t = crate::trace::span("list refs");
    let entries = store::thread_ref_entries(repo, &thread)?;
    // Each object is looked up only where it is read (see `numbered_refs`).
    let refs = store::numbered_refs(&thread, &entries);
    drop(t);
    let mut notes = NotesReader::open(repo)?;
    let (turn, expect) = turn_and_expect(repo, &mut notes, &thread, (&refs, &entries), turn, replace)?;

    // The snapshot's objects go into one pack (see `repo::pack`).
    let rec = Recorder::packing(repo);
    let t = crate::trace::span("load base");
    let base = store::real_checkpoint_below(repo, &mut notes, &thread, &refs, turn)?;
    drop(t);
    let t = crate::trace::span("snapshot");
    let snapshot = capture::snapshot_beside(lock, &rec, base.as_ref().map(|b| b.tree))?;
    drop(t);
    let mut notices = Vec::new();
    // The summaries' cache files, written while the checkpoint is.
    let mut summaries_cached = cache::Behind::default();
    let (files, from_turn, mut warnings) = summarize(
        lock,
        &rec,
        base.as_ref(),
        snapshot.tree,
        (&thread, turn),
        (&mut notices, &mut summaries_cached),
    )?;
    let mut scope_notices = Vec::new();
    what_was_left_out(&snapshot, &mut notices, &mut scope_notices);
    if !snapshot.secrets.is_empty() {
        let warning = secrets::warning(&snapshot.secrets);
        // Said once per thread: a checkpoint of it that warned already says so.
        if !warned_before(repo, &mut notes, &refs) {
            scope_notices.push(format!(
                "turn {turn} {warning}; leave them out with .t3ignore (or .gitignore) — \
                 `git t3 push` refuses to send them unless --allow-secrets (said once per thread)"
            ));
        }
        warnings.push(warning);
    }
    notices.extend(scope_notices.iter().cloned());
    notices.extend(snapshot.notices.iter().cloned());
    let (worktree, branch, head) = whereabouts(repo)?;
    let note = Note {
        status: status.unwrap_or_else(|| Status::from_turn_state(state.as_deref())),
        turn_id,
        assistant_message_id: message_id,
        provider,
        title: title.as_deref().and_then(title_of),
        agent,
        worktree: Some(worktree),
        branch,
        head,
        pre_turn_tree: pre_turn_tree.map(|t| t.to_string()),
        transcript,
        prompt_id,
        from_turn,
        warnings,
        skipped: snapshot.skipped.iter().map(skipped_file).collect(),
        files,
        ..Note::new(&thread, turn)
    };
    let t = crate::trace::span("write commit, note, ref");
    let also = then(&rec, turn)?;
    let checkpoint = store::write_with(lock, &rec, (&thread, snapshot.tree), note, expect, also)?;
    drop(t);
    // Published, so flushed: the cache may name its objects now.
    snapshot.keep_cache(&rec)?;
    drop(summaries_cached);
    rec.published();
    store::captured_here(repo, &thread);
    // The daily prune and git's packing, in the background when due (a
    // stat and a directory listing when not).
    let refs_due = crate::retention::packrefs::due_for(repo, &thread, turn);
    crate::retention::maintenance::start_if_due(repo, refs_due);
    if let Some(o) = checkpoint.note.files_omitted {
        notices.push(format!(
            "the summary of turn {turn} is too large to store whole: {} of its files are counted but not listed",
            o.files
        ));
    }
    Ok(CaptureOutcome {
        checkpoint,
        created: true,
        notices,
        scope_notices,
    })
}

/// A revert stopped half-way left a worktree that is neither the turn
/// before nor the target: never recorded as a turn.
fn refuse_during_revert(repo: &gix::Repository, thread: &ThreadId) -> Result<()> {
    match crate::revert::in_progress(repo, thread)? {
        Some(j) if j.step != crate::revert::Step::Done => Err(Error::RevertInProgress {
            thread: thread.to_string(),
            to_turn: j.to_turn,
            step: j.step.as_str().into(),
        }),
        _ => Ok(()),
    }
}

/// The turn to write (`turn`, else the next) and what its ref must be
/// now: absent, or a placeholder (or, with `replace`, any checkpoint).
fn turn_and_expect(
    repo: &gix::Repository,
    notes: &mut NotesReader<'_>,
    thread: &ThreadId,
    (refs, entries): (&[store::TurnRef], &[crate::repo::RefEntry]),
    turn: Option<u64>,
    replace: bool,
) -> Result<(u64, Expect)> {
    let turn = match turn {
        Some(t) if t > crate::model::thread::MAX_TURN => {
            return Err(Error::usage(format!(
                "turn {t} is above the highest turn number, {}",
                crate::model::thread::MAX_TURN
            )));
        }
        Some(t) => t,
        None => store::next_turn_of(repo, notes, thread, entries)?,
    };
    let expect = match refs
        .iter()
        .find(|t| t.turn == turn && store::is_commit(repo, t.commit))
    {
        None => Expect::Absent,
        Some(existing) => {
            let placeholder = store::load(repo, notes, thread, *existing)
                .map(|c| c.note.placeholder)
                .unwrap_or(false);
            if placeholder || replace {
                Expect::Is(existing.commit)
            } else {
                return Err(Error::TurnExists {
                    thread: thread.to_string(),
                    turn,
                    reference: thread.checkpoint_ref(turn),
                });
            }
        }
    };

    Ok((turn, expect))
}

/// The summary of the turn against the real checkpoint below it (`base`),
/// the turn that is, and the note's warnings; none for a turn 0, and an
/// empty one, said, for a thread without a checkpoint before. The cache
/// files of both summaries are written `behind`.
fn summarize(
    lock: &Locked<'_>,
    rec: &Recorder<'_>,
    base: Option<&Checkpoint>,
    tree: gix::ObjectId,
    (thread, turn): (&ThreadId, u64),
    (notices, behind): (&mut Vec<String>, &mut cache::Behind),
) -> Result<(Vec<note::FileChange>, Option<u64>, Vec<String>)> {
    let repo = lock.repo();
    let _t = crate::trace::span("summary");
    Ok(match base {
        Some(base) => {
            // The snapshot's objects may not be on disk yet (see
            // `Recorder::seal_for_reading`).
            let reader = rec.reader();
            let (exact, squeezed) =
                summary::summarize_both(reader.as_ref().unwrap_or(repo), base.tree, tree, lock.interrupt())?;
            // Both are git's default counts, which the cache holds (unless
            // renames were paired within another limit).
            // Written while the pack is.
            let limit = crate::diff::changes::rename_limit(repo);
            if limit == crate::diff::changes::DEFAULT_RENAME_LIMIT {
                *behind = cache::put_behind(repo, base.tree, tree, &[(true, &squeezed), (false, &exact)]);
            }
            (exact, Some(base.note.turn), Vec::new())
        }
        None if turn == 0 => (Vec::new(), None, Vec::new()),
        None => {
            notices.push(format!(
                "thread '{thread}' has no checkpoint before turn {turn}: the summary is empty (run `git t3 baseline` before the first turn)"
            ));
            (Vec::new(), None, vec![note::NO_BASELINE_WARNING.to_owned()])
        }
    })
}

/// The notices for files the snapshot left out: unreadable ones (for the
/// user), and those over the size cap (`scope`: the agent passes them on).
fn what_was_left_out(snapshot: &capture::Snapshot, notices: &mut Vec<String>, scope: &mut Vec<String>) {
    let unreadable: Vec<String> = snapshot
        .skipped
        .iter()
        .filter(|s| s.unreadable)
        .map(|s| crate::model::path::quoted(&s.path))
        .collect();
    if !unreadable.is_empty() {
        notices.push(format!(
            "left out {} untracked file{} git t3 may not read: {}",
            unreadable.len(),
            if unreadable.len() == 1 { "" } else { "s" },
            unreadable.join(", ")
        ));
    }
    let by_size: Vec<Skipped> = snapshot
        .skipped
        .iter()
        .filter(|s| !s.unreadable)
        .cloned()
        .collect();
    if let Some(n) = skipped_notice(&by_size, snapshot.max_file_size) {
        scope.push(n);
    }
}

/// A file left out, as the note records it.
fn skipped_file(s: &Skipped) -> note::SkippedFile {
    note::SkippedFile {
        reason: s.unreadable.then(|| "unreadable".to_owned()),
        ..note::SkippedFile::new(&s.path, s.size)
    }
}

/// At most this many skipped files are named in the notice.
const SKIPPED_NAMED: usize = 5;

/// The notice for files left out for their size: "skipped 1 file over 10
/// MiB: dataset.bin (200 MiB); raise t3.maxFileSize to keep it".
fn skipped_notice(skipped: &[Skipped], cap: Option<u64>) -> Option<String> {
    skipped.first()?;
    let cap = cap?;
    let n = skipped.len();
    let mut named: Vec<String> = skipped
        .iter()
        .take(SKIPPED_NAMED)
        .map(|s| {
            format!(
                "{} ({})",
                crate::model::path::quoted(&s.path),
                crate::model::units::human_size(s.size)
            )
        })
        .collect();
    if n > SKIPPED_NAMED {
        named.push(format!("and {} more", n - SKIPPED_NAMED));
    }
    Some(format!(
        "skipped {n} file{} over {}: {}; raise {} to keep {}",
        if n == 1 { "" } else { "s" },
        crate::model::units::human_size(cap),
        named.join(", "),
        capture::scope::MAX_FILE_SIZE_KEY,
        if n == 1 { "it" } else { "them" },
    ))
}

/// Whether a checkpoint of the thread (`refs`, read newest first) already
/// warned about secret-looking paths. Only stored notes are read (a
/// checkpoint without one never warned); one that does not parse counts as
/// not.
fn warned_before(repo: &gix::Repository, notes: &mut NotesReader<'_>, refs: &[store::TurnRef]) -> bool {
    refs.iter().rev().any(|t| {
        store::is_commit(repo, t.commit)
            && notes
                .get(t.commit)
                .ok()
                .flatten()
                .and_then(|data| Note::parse(&data).ok())
                .is_some_and(|n| n.warnings.iter().any(|w| w.starts_with(secrets::WARNING_PREFIX)))
    })
}
