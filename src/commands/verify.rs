//! `git t3 verify`: check refs and notes under `refs/t3/` for CI.
//!
//! Every checkpoint ref must have a well-formed name, point at a parentless
//! commit by the fixed identity, and carry a note that parses, names the same
//! thread, turn and ref, and whose summary equals the one recomputed from the
//! trees. Journals of half-done reverts must not be older than a limit.
//! A prompts ref (what an agent's prompt hook recorded) must be a commit of
//! the fixed identity whose pending prompt parses.
//! Notes on commits no ref points to (left by a killed capture) are reported
//! as information, not as failures.

use gix::ObjectId;
use gix::bstr::ByteSlice;
use serde::Serialize;

use crate::commands::Context;
use crate::diff::summary;
use crate::error::Result;
use crate::model::note::Note;
use crate::model::thread::{CHECKPOINTS_PREFIX, NOTES_REF, T3_PREFIX, ThreadId, parse_checkpoint_ref};
use crate::oplog;
use crate::prompts;
use crate::repo::{self, IDENTITY_EMAIL, IDENTITY_NAME, NotesReader};
use crate::retention::kept;
use crate::store;

/// Inputs of `verify`.
#[derive(Debug, Clone)]
pub struct Options {
    /// Only this thread's refs.
    pub thread: Option<ThreadId>,
    /// Journals older than this many seconds are problems.
    pub max_journal_age_secs: u64,
    /// Remove the orphaned notes found (under the lock).
    pub fix: bool,
    /// Check that every tree of a checkpoint exists, not every blob.
    pub quick: bool,
}

/// How much a finding weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails verification.
    Error,
    /// Said, but does not fail it.
    Info,
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Info => "info",
        })
    }
}

/// One finding.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// `error` fails verification; `info` does not.
    pub severity: Severity,
    /// The ref (or object) concerned.
    pub reference: String,
    /// What is wrong.
    pub problem: String,
}

/// What `verify` found.
#[derive(Debug, Serialize)]
pub struct VerifyOutcome {
    /// Refs checked.
    pub checked: usize,
    /// Problems and notes, errors first.
    pub findings: Vec<Finding>,
    /// Whether no error was found.
    pub ok: bool,
    /// Orphaned notes removed (`--fix`).
    pub notes_removed: usize,
}

struct Check<'r> {
    repo: &'r gix::Repository,
    notes: NotesReader<'r>,
    findings: Vec<Finding>,
    /// Check blobs exist, not only trees.
    blobs: bool,
    /// Trees found whole (with their blobs when `blobs`).
    whole: std::collections::HashSet<ObjectId>,
    /// Stop between refs and inside the object walk when this fires.
    interrupt: crate::interrupt::Interrupt,
}

impl Check<'_> {
    fn error(&mut self, reference: &str, problem: impl Into<String>) {
        self.findings.push(Finding {
            severity: Severity::Error,
            reference: reference.to_owned(),
            problem: problem.into(),
        });
    }

    fn info(&mut self, reference: &str, problem: impl Into<String>) {
        self.findings.push(Finding {
            severity: Severity::Info,
            reference: reference.to_owned(),
            problem: problem.into(),
        });
    }

    /// The fixed identity, and no parent unless `parents_allowed` (a revert
    /// journal's parents keep what it will remove).
    fn commit_shape(&mut self, name: &str, id: ObjectId, parents_allowed: bool) -> bool {
        match repo::commit_identity(self.repo, id) {
            Err(_) => {
                self.error(name, format!("points at {id}, which is not a readable commit"));
                false
            }
            Ok((author, email, parents)) => {
                let t3code = author == repo::T3CODE_NAME && email == repo::T3CODE_EMAIL;
                if (author != IDENTITY_NAME || email != IDENTITY_EMAIL) && !t3code {
                    self.error(
                        name,
                        format!(
                            "commit {id} is by {author} <{email}>, not {IDENTITY_NAME} <{IDENTITY_EMAIL}>"
                        ),
                    );
                }
                if parents != 0 && !parents_allowed {
                    self.error(
                        name,
                        format!("commit {id} has {parents} parent(s); a checkpoint has none"),
                    );
                }
                true
            }
        }
    }

    /// A thread's prompts ref (see [`crate::prompts`]): a parentless commit
    /// of the fixed identity whose pending prompt, if any, parses.
    fn prompts(&mut self, name: &str, id: ObjectId) {
        let encoded = &name[prompts::PROMPTS_PREFIX.len()..];
        if ThreadId::from_encoded(encoded).is_none() {
            return self.error(name, "not a prompts ref name: not the base64url of a thread id");
        }
        if !self.commit_shape(name, id, false) {
            return;
        }
        match prompts::read_commit(self.repo, id) {
            Err(problem) => self.error(name, problem),
            Ok((Err(problem), _)) if problem != "no prompt.toml" => self.error(name, problem),
            Ok(_) => {}
        }
    }

    fn checkpoint(&mut self, name: &str, id: ObjectId) {
        let parsed = match parse_checkpoint_ref(name) {
            Ok(p) => p,
            Err(problem) => return self.error(name, format!("not a checkpoint ref name: {problem}")),
        };
        if !self.commit_shape(name, id, false) {
            return;
        }
        let note = match self.notes.get(id) {
            Ok(Some(data)) => match Note::parse(&data) {
                Ok(n) => n,
                Err(problem) => return self.error(name, problem.to_string()),
            },
            Ok(None) if repo::is_t3code_commit(self.repo, id) => {
                return self.info(
                    name,
                    "written by T3 Code, without a note (its summary is computed when read)",
                );
            }
            Ok(None) => return self.error(name, format!("commit {id} has no note in {NOTES_REF}")),
            Err(e) => return self.error(name, e.to_string()),
        };
        if note.thread != parsed.thread.as_str() || note.turn != parsed.turn || note.reference != name {
            return self.error(
                name,
                format!(
                    "its note describes turn {} of thread '{}' ({})",
                    note.turn, note.thread, note.reference
                ),
            );
        }
        let Ok(tree) = repo::commit_tree(self.repo, id) else {
            return self.error(name, format!("commit {id} has no readable tree"));
        };
        let head = repo::head_tree(self.repo).ok().flatten();
        let unsafe_paths = crate::restore::verify::check_tree(self.repo, tree, head, 3);
        if !unsafe_paths.is_empty() {
            for f in unsafe_paths {
                self.error(name, format!("holds a path a revert refuses to write: {f}"));
            }
            return;
        }
        // A revert to it must be able to write every file.
        match repo::alive::first_missing(self.repo, tree, self.blobs, &mut self.whole, self.interrupt) {
            Ok(None) => {}
            Ok(Some(path)) => {
                return self.error(
                    name,
                    format!(
                        "the object of {} is missing from the object database (removed by `git gc`?): \
                         a revert to it would fail",
                        crate::model::path::quoted(&path)
                    ),
                );
            }
            Err(e) => return self.error(name, e.to_string()),
        }
        if note.placeholder {
            if tree != ObjectId::empty_tree(self.repo.object_hash()) || !note.files.is_empty() {
                self.error(name, "a placeholder must hold the empty tree and no files");
            }
            return;
        }
        // The summary is recomputed from the blobs: not in a quick check.
        if !self.blobs {
            return;
        }
        let Some(from) = note.from_turn else {
            if !note.files.is_empty() {
                self.error(name, "its note lists files but names no from_turn");
            }
            return;
        };
        let from_ref = parsed.thread.checkpoint_ref(from);
        let base = match store::turn_ref(self.repo, &parsed.thread, from) {
            Ok(Some(t)) => repo::commit_tree(self.repo, t.commit).ok(),
            _ => None,
        };
        let Some(base) = base else {
            return self.error(
                name,
                format!("its summary is counted against {from_ref}, which is gone"),
            );
        };
        match summary::summarize(self.repo, base, tree, false, self.interrupt) {
            Ok(files) if same_summary(&files, &note) => {}
            Ok(_) => self.error(
                name,
                format!("its stored summary differs from the one recomputed against {from_ref}"),
            ),
            Err(e) => self.error(name, format!("could not recompute its summary: {e}")),
        }
    }

    /// Every op of the log parses.
    fn op_log(&mut self, name: &str) {
        if let Err(e) = oplog::log(self.repo, oplog::MAX_LOG) {
            self.error(name, e.to_string());
        }
    }

    fn journal(&mut self, name: &str, id: ObjectId, max_age_secs: Option<u64>) {
        if !self.commit_shape(name, id, true) {
            return;
        }
        let data = match self.notes.get(id) {
            Ok(Some(d)) => d,
            Ok(None) if repo::is_t3code_commit(self.repo, id) => {
                return self.info(
                    name,
                    "written by T3 Code, without a note (its summary is computed when read)",
                );
            }
            Ok(None) => return self.error(name, format!("commit {id} has no note in {NOTES_REF}")),
            Err(e) => return self.error(name, e.to_string()),
        };
        let journal = match crate::revert::Journal::parse(&data) {
            Ok(j) => j,
            Err(problem) => return self.error(name, format!("its note is not a revert journal: {problem}")),
        };
        if let Some(max) = max_age_secs
            && let Ok(started) = journal.started_at.parse::<jiff::Timestamp>()
        {
            let age = jiff::Timestamp::now().as_second() - started.as_second();
            if age >= i64::try_from(max).unwrap_or(i64::MAX) {
                self.error(
                    name,
                    format!(
                        "a revert of thread '{}' to turn {} has been half-done for {}h; finish it with \
                         `git t3 revert --continue` or `--abort`",
                        journal.thread,
                        journal.to_turn,
                        age / 3600
                    ),
                );
            }
        }
    }
}

/// Whether the recomputed `files` are what `note` stores (a cut summary:
/// its listed files, then the omitted ones' counts).
fn same_summary(files: &[crate::model::note::FileChange], note: &Note) -> bool {
    match note.files_omitted {
        None => files == note.files,
        Some(omitted) => {
            let (listed, rest) = files.split_at(note.files.len().min(files.len()));
            listed == note.files && crate::model::note::Omitted::of(rest) == omitted
        }
    }
}

impl Check<'_> {
    /// Check one ref under `refs/t3/` by what its name says it is.
    fn reference(&mut self, name: &str, id: gix::ObjectId, max_journal_age_secs: u64) {
        if name.starts_with(CHECKPOINTS_PREFIX) {
            self.checkpoint(name, id);
        } else if let Some(rest) = name.strip_prefix(crate::model::thread::REMOTES_PREFIX) {
            // A remote's turns kept apart by fetch: `<remote>/<b64>/turn/<n>`.
            let layout = rest.split_once('/').is_some_and(|(remote, rest)| {
                !remote.is_empty() && parse_checkpoint_ref(&format!("{CHECKPOINTS_PREFIX}{rest}")).is_ok()
            });
            if !layout {
                self.error(
                    name,
                    "not of the form refs/t3/remotes/<remote>/<base64url thread>/turn/<n>",
                );
            } else {
                self.commit_shape(name, id, false);
            }
        } else if name.starts_with("refs/t3/reverts/") {
            self.journal(name, id, Some(max_journal_age_secs));
        } else if name.starts_with("refs/t3/undo/") {
            self.journal(name, id, None);
        } else if name.starts_with(prompts::PROMPTS_PREFIX) {
            self.prompts(name, id);
        } else if name == oplog::OPS_REF {
            self.op_log(name);
        } else if name == oplog::PENDING_REF {
            self.error(
                name,
                "an operation was recorded but not finished (a killed abort or undo); \
                 `git t3 revert --continue`, `--abort`, `--undo` or `git t3 op undo` finishes it first",
            );
        } else {
            self.error(
                name,
                "is not a ref git t3 writes (checkpoints/, remotes/, reverts/, undo/, prompts/, ops, pending)",
            );
        }
    }
}

/// Verify refs under `refs/t3/` (one thread's, or all) and their notes;
/// with `fix`, remove the orphaned notes.
pub fn run(ctx: &Context, opts: Options) -> Result<VerifyOutcome> {
    let repo = &ctx.repo;
    let Options {
        thread,
        max_journal_age_secs,
        fix,
        quick,
    } = opts;
    // `--fix` reads and removes under the lock, so no capture publishes
    // meanwhile (its note is written just before its ref).
    let lock = if fix {
        Some(ctx.lock("verify --fix")?)
    } else {
        None
    };
    let refs = repo::list_refs(repo, T3_PREFIX)?;
    let mut check = Check {
        repo,
        notes: NotesReader::open(repo)?,
        findings: Vec::new(),
        blobs: !quick,
        whole: Default::default(),
        interrupt: ctx.settings.interrupt,
    };
    let mut checked = 0;
    for r in &refs {
        check.interrupt.check()?;
        let name = r.name.to_str_lossy().into_owned();
        if let Some(t) = &thread {
            let mine = store::side_refs(t);
            if !name.starts_with(&t.checkpoints_prefix()) && !mine.contains(&name) {
                continue;
            }
        }
        checked += 1;
        let Some(id) = r.target else {
            check.error(&name, "is a symbolic ref");
            continue;
        };
        check.reference(&name, id, max_journal_age_secs);
    }
    if let Some(t) = &thread
        && checked == 0
    {
        return Err(crate::Error::UnknownThread {
            thread: t.to_string(),
        });
    }
    let mut notes_removed = 0;
    if thread.is_none() {
        // Which notes nothing keeps can only be told from a readable log
        // (its problem is a finding of its own); `--fix` then removes none.
        let orphans = match (kept::orphaned_notes(repo), &lock) {
            (Ok(o), _) => o,
            (Err(e), Some(_)) => return Err(e),
            (Err(_), None) => Vec::new(),
        };
        if let Some(lock) = &lock {
            repo::remove_notes_for_good(lock, &orphans, "t3: verify --fix: orphaned notes")?;
            notes_removed = orphans.len();
        } else {
            for id in orphans {
                check.info(
                    &id.to_string(),
                    "has a note but no ref or operation keeps it (a capture stopped before its ref, or a \
                     thread removed); `git t3 verify --fix` removes it",
                );
            }
        }
    }
    let mut findings = check.findings;
    findings.sort_by_key(|f| f.severity != Severity::Error);
    let ok = findings.iter().all(|f| f.severity != Severity::Error);
    Ok(VerifyOutcome {
        checked,
        findings,
        ok,
        notes_removed,
    })
}
