//! The revert saga as a type: a [`Saga`] is a published journal plus the
//! held lock, and [`Saga::run`] carries it from its current step to the end.
//!
//! | step | effect | re-run |
//! |---|---|---|
//! | restore | worktree = target (snapshot now, diff, write/delete), index = HEAD | idempotent: diffs the worktree as it is |
//! | provider | helper rolls back `from − to` turns, or a built-in provider writes the transcript planned in the journal | a helper is **not** idempotent: the journal is persisted before the call and after success; a built-in provider writes only over the bytes it planned on (already written: nothing to do) |
//! | refs | delete the thread's refs above the target (compare-and-swap) | idempotent: gone refs are skipped |
//! | record | one notes commit: the revert on the target's note, journal step `done` (removed checkpoints keep their notes: the op log keeps their commits) | guarded by `done` |
//! | finish | the op appended to `refs/t3/ops` (unless it is there), then the journal ref deleted | idempotent |
//!
//! [`Saga::advance`] moves to the next step and writes the journal only where
//! a re-run would harm (around the provider call), so a revert without a
//! provider writes its journal once.

use std::time::Duration;

use gix::ObjectId;

use crate::error::Result;
use crate::model::note::{self, RevertRecord};
use crate::model::thread::ThreadId;
use crate::oplog;
use crate::provider::{self, Provider, transcript};
use crate::repo::publish::{Publication, publish};
use crate::repo::{self, Expect, Locked, NoteEdit, NotesReader, Recorder, RefUpdate};
use crate::restore;
use crate::revert::journal::{self, Journal, Step};
use crate::store;

/// What a run of the saga did.
#[derive(Debug, Default)]
pub struct Ran {
    /// Files written and deleted by the restore step (empty when it had run before).
    pub files: restore::Plan,
    /// Turns the provider rolled back in this run.
    pub rolled_back: u64,
    /// Turns above the target captured again while the revert was stopped
    /// (kept, not removed).
    pub kept_turns: Vec<u64>,
}

/// A revert in progress, under the repository lock.
pub struct Saga<'l, 'r> {
    lock: &'l Locked<'r>,
    thread: ThreadId,
    commit: ObjectId,
    journal: Journal,
    provider_called: bool,
}

impl<'l, 'r> Saga<'l, 'r> {
    /// Publish the safety checkpoint `journal.safety_tree` (written through
    /// `rec`) with `journal` as its note under `refs/t3/reverts/<b64>`.
    pub fn begin(
        lock: &'l Locked<'r>,
        rec: &Recorder<'_>,
        thread: &ThreadId,
        journal: Journal,
    ) -> Result<Self> {
        let reference = thread.revert_journal_ref();
        // The journal commit's parents keep what its note names by id only
        // (the user's index, the turns the revert removes) from `git gc`.
        let mut keep = Vec::new();
        if let Some(index) = journal.index_tree {
            let index = index.get();
            keep.push(repo::write_commit(rec, index, Vec::new(), "t3 index")?);
        }
        for r in &journal.removed {
            keep.push(oplog::id(&r.commit)?);
        }
        // And the transcript backups the provider step will need.
        if let Some(tree) = oplog::transcripts_tree(rec, &journal.transcripts)? {
            keep.push(repo::write_commit(rec, tree, Vec::new(), "t3 transcripts")?);
        }
        let commit = publish(
            lock,
            rec,
            Publication {
                tree: journal.safety_tree(),
                reference: &reference,
                note: journal.to_bytes()?,
                expect: Expect::Absent,
                message: "t3: revert started",
                keep,
                also: Vec::new(),
            },
        )?;
        crate::fault::point("after-journal");
        Ok(Saga {
            lock,
            thread: thread.clone(),
            commit,
            journal,
            provider_called: false,
        })
    }

    /// The half-done saga of `thread`, if there is one.
    pub fn load(lock: &'l Locked<'r>, thread: &ThreadId) -> Result<Option<Self>> {
        let found = journal::read(lock.repo(), &thread.revert_journal_ref())?;
        Ok(found.map(|(commit, journal)| Saga {
            lock,
            thread: thread.clone(),
            commit,
            journal,
            provider_called: false,
        }))
    }

    /// The journal.
    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    /// The safety checkpoint's commit.
    pub fn safety_commit(&self) -> ObjectId {
        self.commit
    }

    /// Move to `next`, persisting the journal where a re-run would harm:
    /// before a provider call, and after one.
    pub fn advance(&mut self, next: Step) -> Result<()> {
        let entering_call = next == Step::Provider && self.journal.calls_provider();
        let leaving_call = self.journal.step == Step::Provider && self.provider_called;
        self.journal.step = next;
        if entering_call || leaving_call {
            repo::edit_notes(
                self.lock,
                &[NoteEdit::Set(self.commit, self.journal.to_bytes()?)],
                "t3: revert journal",
            )?;
        }
        Ok(())
    }

    /// Run from the journal's step to the end. `first_plan` is the restore
    /// plan computed when the saga began (a resumed saga plans again).
    pub fn run(
        &mut self,
        provider: &Provider,
        provider_timeout: Duration,
        first_plan: Option<restore::Plan>,
    ) -> Result<Ran> {
        let mut ran = Ran::default();
        // A signal stops the saga between steps: the journal says where.
        let interrupt = self.lock.interrupt();
        interrupt.check()?;
        if self.journal.step == Step::Restore {
            ran.files = self.restore(first_plan)?;
            crate::fault::point("after-restore");
            self.advance(Step::Provider)?;
        }
        interrupt.check()?;
        if self.journal.step == Step::Provider {
            ran.rolled_back = self.provider(provider, provider_timeout)?;
            crate::fault::point("after-provider");
            self.advance(Step::Refs)?;
        }
        interrupt.check()?;
        if self.journal.step == Step::Refs {
            ran.kept_turns = self.delete_refs()?;
            crate::fault::point("after-refs");
            // Deleting again finds nothing; recording happens once, with `Done`.
            self.advance(Step::Record)?;
        }
        if self.journal.step == Step::Record {
            self.record()?;
            crate::fault::point("after-record");
        }
        // Killed after recording, only the ref swap is left.
        self.finish()?;
        Ok(ran)
    }

    fn restore(&self, first_plan: Option<restore::Plan>) -> Result<restore::Plan> {
        let repo = self.lock.repo();
        let target = self.journal.target_tree();
        let files = match first_plan {
            Some(plan) => plan,
            // A resumed restore: keep the work done since the crash first.
            None => super::safety::keep_before_resume(
                self.lock,
                Some(&self.journal.thread),
                target,
                Some(self.journal.safety_tree()),
                !self.journal.moved_aside.is_empty(),
            )?,
        };
        let t = crate::trace::span("restore files");
        let workdir = repo::workdir(repo)?;
        super::safety::move_repositories(&workdir, &self.journal.moved_aside, false)?;
        restore::apply(self.lock, target, &files)?;
        drop(t);
        let _t = crate::trace::span("reset index");
        restore::index::reset_index(self.lock, restore::index::head_or(repo, target)?)?;
        Ok(files)
    }

    fn provider(&mut self, provider: &Provider, timeout: Duration) -> Result<u64> {
        let turns = self.journal.from_turn - self.journal.to_turn;
        if !self.journal.calls_provider() {
            return Ok(0);
        }
        match provider {
            Provider::None => Ok(0),
            // The transcript changes planned and backed up when the revert
            // began, carried out only on the bytes they were planned on.
            Provider::Builtin { homes, .. } => {
                let repo = self.lock.repo();
                for change in &self.journal.transcripts {
                    transcript::apply(repo, change, &self.journal.thread, homes, true)?;
                }
                self.provider_called = true;
                Ok(if self.journal.transcripts.is_empty() {
                    0
                } else {
                    turns
                })
            }
            Provider::Helper { .. } => {
                // Absolute, whatever directory git t3 was started from.
                let workdir = repo::workdir(self.lock.repo())?;
                let workspace = std::path::absolute(&workdir)
                    .map_err(|e| crate::error::Error::Io {
                        context: "could not resolve the worktree".into(),
                        path: Some(workdir.clone()),
                        source: e,
                    })?
                    .to_string_lossy()
                    .into_owned();
                provider::rollback(
                    provider,
                    &provider::Rollback {
                        thread: &self.journal.thread,
                        turns,
                        workspace: &workspace,
                        target_turn: self.journal.to_turn,
                    },
                    timeout,
                    self.lock.interrupt(),
                )?;
                self.provider_called = true;
                Ok(turns)
            }
        }
    }

    /// Delete the refs the journal names, only where they still point at
    /// the commit it recorded: a turn captured again while the revert was
    /// stopped is new work, and stays (its turn number is returned).
    fn delete_refs(&self) -> Result<Vec<u64>> {
        let repo = self.lock.repo();
        let mut updates = Vec::new();
        let mut kept = Vec::new();
        for r in &self.journal.removed {
            let name = self.thread.checkpoint_ref(r.turn);
            let recorded = oplog::id(&r.commit)?;
            match repo::find_direct_ref(repo, &name)? {
                Some(current) if current == recorded => updates.push(RefUpdate {
                    name,
                    new: None,
                    expect: Expect::Is(recorded),
                }),
                Some(_) => kept.push(r.turn),
                None => {}
            }
        }
        repo::update_refs(self.lock, &updates, "t3: revert")?;
        Ok(kept)
    }

    /// One notes commit: the revert on the target's note, and the journal
    /// marked done. The removed checkpoints keep their notes: the op log
    /// keeps their commits, and other threads may share them.
    fn record(&mut self) -> Result<()> {
        let repo = self.lock.repo();
        let mut edits = Vec::new();
        if self.journal.target != "HEAD"
            && let Some(t) = store::turn_ref(repo, &self.thread, self.journal.to_turn)?
        {
            let mut cp = store::load(repo, &mut NotesReader::open(repo)?, &self.thread, t)?;
            cp.note.reverts.push(RevertRecord {
                from: self.journal.from_turn,
                to: self.journal.to_turn,
                at: note::now_rfc3339(),
                removed: self.journal.removed.clone(),
            });
            edits.push(NoteEdit::Set(t.commit, cp.note.to_toml()?.into_bytes()));
        }
        self.journal.step = Step::Done;
        edits.push(NoteEdit::Set(self.commit, self.journal.to_bytes()?));
        repo::edit_notes(self.lock, &edits, "t3: revert recorded")
    }

    /// Append the revert to the operation log (unless a killed run already
    /// did), then delete the journal ref.
    fn finish(&self) -> Result<()> {
        let repo = self.lock.repo();
        // Killed after appending it, other ops may have come since: its op
        // is one of those above the log's tip when the revert began.
        let tip = self.journal.ops_tip.as_deref().map(oplog::id).transpose()?;
        let mut recorded = false;
        for e in oplog::walk(repo)? {
            let e = e?;
            // (A trim of the log may have written the tip again since.)
            if tip.is_some_and(|t| e.id == t || e.op.was.iter().any(|w| *w == t)) {
                break;
            }
            if e.op.kind == oplog::Kind::Revert && e.op.safety_commit() == Some(self.commit) {
                recorded = true;
                break;
            }
        }
        if !recorded {
            let _t = crate::trace::span("op log");
            oplog::record(self.lock, &self.op()?, &[])?;
        }
        crate::fault::point("after-op");
        let journal_ref = self.thread.revert_journal_ref();
        if repo::find_ref(repo, &journal_ref)?.is_none() {
            return Ok(());
        }
        let update = RefUpdate {
            name: journal_ref,
            new: None,
            expect: Expect::Is(self.commit),
        };
        repo::update_refs(self.lock, &[update], "t3: revert done")
    }

    /// The revert as an op: its safety checkpoint, the user's index, and the
    /// turns it removed.
    fn op(&self) -> Result<oplog::Op> {
        let j = &self.journal;
        let mut op = oplog::Op::new(oplog::Kind::Revert, Some(&j.thread));
        op.safety = Some(self.commit.into());
        op.index_tree = j.index_tree;
        op.moved_aside.clone_from(&j.moved_aside);
        op.provider = j.provider.clone().filter(|_| !j.files_only);
        op.transcripts.clone_from(&j.transcripts);
        // What it left: the target's paths, and the index reset to HEAD.
        op.restored = Some(j.target_tree);
        op.index_after = Some(restore::index::head_or(self.lock.repo(), j.target_tree())?.into());
        // Only the refs it did remove: a turn captured again meanwhile stayed.
        let repo = self.lock.repo();
        for r in &j.removed {
            let reference = self.thread.checkpoint_ref(r.turn);
            if repo::find_ref(repo, &reference)?.is_none() {
                op.refs.push(oplog::RefChange {
                    reference,
                    old: Some(oplog::id(&r.commit)?.into()),
                    new: None,
                });
            }
        }
        Ok(op)
    }
}
