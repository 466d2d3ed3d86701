//! `git t3 push` and `git t3 fetch`: move checkpoint refs and `refs/notes/t3`
//! with the ordinary git transport (the `git` binary brings the user's
//! credentials, SSH and proxies; gix has no push).
//!
//! Notes from the other side are fetched into `refs/notes/t3-incoming` and
//! merged into `refs/notes/t3` as a union: notes on different checkpoints
//! are all kept; when both sides annotated the same checkpoint differently,
//! the local note stays and the conflict is reported. The merge is a commit
//! with both histories as parents, so the next push fast-forwards.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use gix::ObjectId;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::thread::{CHECKPOINTS_PREFIX, NOTES_REF, ThreadId};

use crate::repo::notes::NotesChange;
use crate::repo::{self, Expect, Locked, NoteEdit, RefUpdate};

const INCOMING: &str = "refs/notes/t3-incoming";

/// What a push or fetch did.
#[derive(Debug, Serialize)]
pub struct Report {
    /// `push` or `fetch`.
    pub action: &'static str,
    /// The remote.
    pub remote: String,
    /// Notes taken from the other side.
    pub notes_merged: usize,
    /// Checkpoints both sides annotated differently (the local note was kept).
    pub note_conflicts: Vec<String>,
}

/// Run `git` in `workdir` without the environment a hook may have set.
fn run_git(workdir: &Path, args: &[String]) -> Result<()> {
    let out = Command::new("git")
        .current_dir(workdir)
        .args(["-c", "core.fsmonitor=false"])
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env("LC_MESSAGES", "C")
        .output()
        .map_err(|e| Error::Io {
            context: "could not run git".into(),
            path: None,
            source: e,
        })?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let msg = stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    Err(Error::Remote {
        action: if args.first().is_some_and(|a| a == "push") {
            "push"
        } else {
            "fetch"
        },
        remote: args
            .iter()
            .find(|a| !a.starts_with('-') && *a != "push" && *a != "fetch")
            .cloned()
            .unwrap_or_default(),
        message: msg,
    })
}

/// The remote to use: the given one, the branch's upstream remote, else `origin`.
pub fn default_remote(repo: &gix::Repository, given: Option<&str>) -> String {
    if let Some(r) = given {
        return r.to_owned();
    }
    repo.head_name()
        .ok()
        .flatten()
        .and_then(|head| {
            repo.branch_remote_name(head.shorten(), gix::remote::Direction::Push)
                .map(|n| n.as_bstr().to_string())
        })
        .filter(|n| n != ".")
        .unwrap_or_else(|| "origin".to_owned())
}

fn checkpoint_refspec(thread: Option<&ThreadId>) -> String {
    match thread {
        Some(t) => {
            let prefix = t.checkpoints_prefix();
            format!("{prefix}*:{prefix}*")
        }
        None => format!("{CHECKPOINTS_PREFIX}*:{CHECKPOINTS_PREFIX}*"),
    }
}

/// `git fetch` of `refspecs` from `remote`, quietly and without FETCH_HEAD.
fn fetch_args(remote: &str, refspecs: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut args = vec![
        "fetch".to_owned(),
        "--quiet".into(),
        "--no-write-fetch-head".into(),
        remote.to_owned(),
    ];
    args.extend(refspecs);
    args
}

/// Fetch checkpoint refs and notes from `remote`, merging the notes, under `lock`.
pub fn fetch(lock: &Locked<'_>, remote: &str, thread: Option<&ThreadId>) -> Result<Report> {
    let repo = lock.repo();
    let workdir = repo.workdir().unwrap_or(repo.git_dir()).to_owned();
    let notes = format!("+{NOTES_REF}:{INCOMING}");
    // A remote without notes yet is not an error: retry without the notes.
    if run_git(&workdir, &fetch_args(remote, [checkpoint_refspec(thread), notes])).is_err() {
        run_git(&workdir, &fetch_args(remote, [checkpoint_refspec(thread)]))?;
    }
    let (merged, conflicts) = merge_incoming(lock)?;
    Ok(Report {
        action: "fetch",
        remote: remote.to_owned(),
        notes_merged: merged,
        note_conflicts: conflicts,
    })
}

/// Push checkpoint refs and notes to `remote`, merging its notes first, under `lock`.
pub fn push(lock: &Locked<'_>, remote: &str, thread: Option<&ThreadId>) -> Result<Report> {
    let repo = lock.repo();
    let workdir = repo.workdir().unwrap_or(repo.git_dir()).to_owned();
    // Bring the other side's notes in first, so the notes push fast-forwards.
    let args = fetch_args(remote, [format!("+{NOTES_REF}:{INCOMING}")]);
    let (merged, conflicts) = if run_git(&workdir, &args).is_ok() {
        merge_incoming(lock)?
    } else {
        (0, Vec::new())
    };
    let mut push = vec![
        "push".to_owned(),
        "--quiet".into(),
        "--no-verify".into(),
        remote.to_owned(),
    ];
    push.push(checkpoint_refspec(thread));
    if repo::find_ref(repo, NOTES_REF)?.is_some() {
        push.push(format!("{NOTES_REF}:{NOTES_REF}"));
    }
    run_git(&workdir, &push)?;
    Ok(Report {
        action: "push",
        remote: remote.to_owned(),
        notes_merged: merged,
        note_conflicts: conflicts,
    })
}

/// Merge `refs/notes/t3-incoming` into `refs/notes/t3` (union, local wins).
fn merge_incoming(lock: &Locked<'_>) -> Result<(usize, Vec<String>)> {
    let repo = lock.repo();
    let Some(theirs) = repo::find_ref(repo, INCOMING)? else {
        return Ok((0, Vec::new()));
    };
    let result = merge_notes(lock, theirs);
    let drop_incoming = RefUpdate {
        name: INCOMING.into(),
        new: None,
        expect: Expect::Any,
    };
    repo::update_refs(lock, &[drop_incoming], "t3: notes merged")?;
    result
}

/// One notes commit with both histories as parents: notes only they have
/// are added, equal ones kept, different ones keep ours and are reported.
fn merge_notes(lock: &Locked<'_>, theirs: ObjectId) -> Result<(usize, Vec<String>)> {
    let repo = lock.repo();
    let their_notes = repo::list_notes(repo, theirs)?;
    let mut counted = (0, Vec::new());
    repo::commit_notes(lock, "t3: merge notes", |ours| {
        let mine: HashMap<ObjectId, ObjectId> = match ours {
            Some(o) if o == theirs || is_ancestor(repo, theirs, o) => return Ok(None),
            Some(o) => repo::list_notes(repo, o)?.into_iter().collect(),
            None => HashMap::new(),
        };
        let (mut merged, mut conflicts, mut edits) = (0, Vec::new(), Vec::new());
        for (object, blob) in &their_notes {
            match mine.get(object) {
                None => {
                    edits.push(NoteEdit::SetBlob(*object, *blob));
                    merged += 1;
                }
                Some(b) if b == blob => {}
                Some(_) => conflicts.push(object.to_string()),
            }
        }
        counted = (merged, conflicts);
        Ok(Some(NotesChange {
            edits,
            extra_parents: vec![theirs],
        }))
    })?;
    Ok(counted)
}

fn is_ancestor(repo: &gix::Repository, ancestor: ObjectId, of: ObjectId) -> bool {
    repo.merge_base(ancestor, of)
        .ok()
        .flatten()
        .is_some_and(|base| base.detach() == ancestor)
}
