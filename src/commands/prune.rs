//! `git t3 prune` and `git t3 maintenance`. A prune removes whole threads
//! that are old or beyond the N most recently used, their notes,
//! operation-log entries older than the age, orphaned notes, and bounds the
//! summary cache; then lets git pack and collect in the background.
//!
//! Unlike `drop`, a prune is final: its op in the log names the refs it
//! removed but does not keep their commits, the notes go with a notes
//! history started anew, and `op undo` refuses it. `--dry-run` shows what
//! would go.
//!
//! `maintenance` is what a capture starts in the background when due: the
//! daily prune by `t3.pruneAfter`, then git's `gc --auto`, never two runs
//! at once.

use serde::Serialize;

use crate::commands::Context;
use crate::error::{Error, Result};
use crate::model::thread::ThreadId;
use crate::oplog::{self, Kind};
use crate::repo;
use crate::retention::{self, Candidate, Policy, kept, maintenance};
use crate::revert::{self, Step};
use crate::store;

/// Inputs of `prune`.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Threads older than this many seconds (`None` with no `keep_last`:
    /// `t3.pruneAfter`).
    pub older_than: Option<u64>,
    /// Keep the N most recently used threads.
    pub keep_last: Option<usize>,
    /// Only say what would go.
    pub dry_run: bool,
    /// Also threads with checkpoints T3 Code wrote.
    pub force: bool,
    /// Start git's maintenance in the background afterwards.
    pub start_maintenance: bool,
}

/// A thread removed (or, with `--dry-run`, that would be).
#[derive(Debug, Clone, Serialize)]
pub struct PrunedThread {
    /// The thread.
    pub thread: String,
    /// Its checkpoints.
    pub turns: usize,
    /// When its latest checkpoint was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
}

/// A thread the policy chose but that stays, and why.
#[derive(Debug, Clone, Serialize)]
pub struct KeptThread {
    /// The thread.
    pub thread: String,
    /// Why it stays.
    pub reason: String,
}

/// What `prune` did (or would do).
#[derive(Debug, Serialize)]
pub struct PruneOutcome {
    /// Nothing was changed.
    pub dry_run: bool,
    /// Threads removed.
    pub threads: Vec<PrunedThread>,
    /// Threads chosen but kept.
    pub kept: Vec<KeptThread>,
    /// Refs deleted.
    pub refs_removed: usize,
    /// Notes removed (of pruned threads and orphaned ones).
    pub notes_removed: usize,
    /// Operation-log entries removed.
    pub ops_removed: usize,
    /// Summary-cache files removed.
    pub cache_files_removed: usize,
    /// The op recording the prune.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op: Option<String>,
    /// Whether git's maintenance was started in the background.
    pub maintenance_started: bool,
}

/// Prune by `opts`.
pub fn run(ctx: &Context, opts: Options) -> Result<PruneOutcome> {
    let repo = &ctx.repo;
    let policy = match (opts.older_than, opts.keep_last) {
        (None, None) => Policy {
            older_than: Some(retention::prune_after(repo)?.ok_or_else(|| {
                Error::usage(
                    "t3.pruneAfter is `never`: name an age with --older-than or a count with --keep-last",
                )
            })?),
            keep_last: None,
        },
        (older_than, keep_last) => Policy {
            older_than,
            keep_last,
        },
    };
    // The operation log is trimmed by the age given, else by t3.pruneAfter
    // (not at all when that is off or unreadable).
    let log_age = policy
        .older_than
        .or_else(|| retention::prune_after(repo).ok().flatten());

    let lock = ctx.lock("prune")?;
    let now = crate::fault::now();
    let mut notes = repo::NotesReader::open(repo)?;
    let candidates = store::list_threads(repo)?
        .iter()
        .filter_map(|s| {
            let thread = ThreadId::parse(&s.thread).ok()?;
            let updated_at = retention::last_used(repo, &mut notes, &thread, s.latest);
            Some(Candidate {
                thread,
                turns: s.turns,
                updated_at,
            })
        })
        .collect();
    let mut outcome = PruneOutcome {
        dry_run: opts.dry_run,
        threads: Vec::new(),
        kept: Vec::new(),
        refs_removed: 0,
        notes_removed: 0,
        ops_removed: 0,
        cache_files_removed: 0,
        op: None,
        maintenance_started: false,
    };
    let mut targets: Vec<(String, gix::ObjectId)> = Vec::new();
    for c in policy.select(candidates, now) {
        lock.interrupt().check()?;
        if let Some(reason) = keep_reason(repo, &c.thread, opts.force)? {
            outcome.kept.push(KeptThread {
                thread: c.thread.to_string(),
                reason,
            });
            continue;
        }
        for t in store::thread_refs(repo, &c.thread)? {
            targets.push((c.thread.checkpoint_ref(t.turn), t.commit));
        }
        for name in store::side_refs(&c.thread) {
            if let Some(id) = repo::find_direct_ref(repo, &name)? {
                targets.push((name, id));
            }
        }
        outcome.threads.push(PrunedThread {
            thread: c.thread.to_string(),
            turns: c.turns,
            updated_at: c.updated_at.map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()),
        });
    }
    outcome.refs_removed = targets.len();
    if opts.dry_run {
        return Ok(outcome);
    }

    // The last point to stop before anything is written.
    lock.interrupt().check()?;
    // The log first: the op recorded below keeps the id it reports.
    if let Some(age) = log_age {
        let cutoff = jiff::Timestamp::from_second(
            now.as_second()
                .saturating_sub(i64::try_from(age).unwrap_or(i64::MAX)),
        )
        .unwrap_or(jiff::Timestamp::MIN);
        outcome.ops_removed = oplog::trim(&lock, cutoff)?;
    }
    if !targets.is_empty() {
        outcome.op = Some(oplog::record_deletion(&lock, Kind::Prune, None, &targets)?.to_string());
    }
    let orphans = kept::orphaned_notes(repo)?;
    outcome.notes_removed = orphans.len();
    repo::remove_notes_for_good(&lock, &orphans, "t3: prune notes")?;
    outcome.cache_files_removed = crate::diff::cache::trim(repo);
    maintenance::touch(repo, maintenance::Stamp::Prune)?;
    drop(lock);
    if opts.start_maintenance
        && (outcome.refs_removed > 0 || outcome.notes_removed > 0 || outcome.ops_removed > 0)
    {
        outcome.maintenance_started = maintenance::spawn(repo, false);
    }
    Ok(outcome)
}

/// Why `thread` stays although the policy chose it: a revert half-done
/// (its journal keeps the user's worktree), or checkpoints T3 Code wrote
/// (it may still use them) without `force`.
fn keep_reason(repo: &gix::Repository, thread: &ThreadId, force: bool) -> Result<Option<String>> {
    if let Some(j) = revert::in_progress(repo, thread)?
        && j.step != Step::Done
    {
        return Ok(Some(
            "a revert is half-done (finish it with `git t3 revert --continue` or `--abort`)".into(),
        ));
    }
    if !force
        && store::thread_refs(repo, thread)?
            .iter()
            .any(|t| repo::is_t3code_commit(repo, t.commit))
    {
        return Ok(Some(
            "T3 Code wrote some of its checkpoints (prune them with --force)".into(),
        ));
    }
    Ok(None)
}

/// What a maintenance run did.
#[derive(Debug, Serialize)]
pub struct MaintenanceOutcome {
    /// Another run holds the lock: this one did nothing.
    pub already_running: bool,
    /// The prune, when asked for and `t3.pruneAfter` is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pruned: Option<PruneOutcome>,
    /// What folding git-t3's own packs did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folded: Option<repo::fold::Folded>,
    /// Reflog entries trimmed (see `retention::reflog`).
    pub reflog_entries_dropped: usize,
    /// Whether the refs under `refs/t3/` were packed (see
    /// `retention::packrefs`).
    pub refs_packed: bool,
    /// Whether `git gc --auto` succeeded (`None`: not run, as it was not
    /// due).
    pub gc: Option<bool>,
}

/// Run maintenance (with the daily prune when `prune`): fold git-t3's
/// packs, trim the reflogs, then `git gc --auto` — with `auto` (the run a
/// capture starts), only when it is due. A failed prune or fold does not
/// keep git from packing: gc runs, then the first error is returned.
pub fn maintenance(ctx: &Context, prune: bool, auto: bool) -> Result<MaintenanceOutcome> {
    let repo = &ctx.repo;
    maintenance::lower_priority();
    let Some(_held) = maintenance::try_lock(repo)? else {
        return Ok(MaintenanceOutcome {
            already_running: true,
            pruned: None,
            folded: None,
            reflog_entries_dropped: 0,
            refs_packed: false,
            gc: None,
        });
    };
    let pruned = if prune {
        maintenance::touch(repo, maintenance::Stamp::Prune)?;
        match retention::prune_after(repo) {
            Ok(Some(age)) => Some(run(
                ctx,
                Options {
                    older_than: Some(age),
                    ..Options::default()
                },
            )),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    } else {
        None
    };
    // A signal ends the run here, before anything else is written.
    if let Some(Err(e @ crate::error::Error::Interrupted { .. })) = pruned {
        return Err(e);
    }
    let folded = repo::fold::fold(repo, repo::fold::LIMIT);
    ctx.settings.interrupt.check()?;
    let trimmed = retention::reflog::trim(repo);
    ctx.settings.interrupt.check()?;
    let refs_packed = retention::packrefs::pack(repo, ctx.settings.interrupt);
    ctx.settings.interrupt.check()?;
    let gc = if !auto || maintenance::due(repo).gc {
        maintenance::touch(repo, maintenance::Stamp::Gc)?;
        let dir = repo.workdir().unwrap_or_else(|| repo.git_dir());
        Some(maintenance::git_gc_auto(dir, ctx.settings.interrupt)?)
    } else {
        None
    };
    Ok(MaintenanceOutcome {
        already_running: false,
        pruned: pruned.transpose()?,
        folded: Some(folded?),
        reflog_entries_dropped: trimmed?,
        refs_packed: refs_packed?,
        gc,
    })
}
