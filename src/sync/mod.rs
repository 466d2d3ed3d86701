//! `git t3 push` and `git t3 fetch`: move checkpoint refs and `refs/notes/t3`
//! with the ordinary git transport (the `git` binary brings the user's
//! credentials, SSH and proxies; gix has no push).
//!
//! Notes from the other side are fetched into `refs/notes/t3-incoming` and
//! merged into `refs/notes/t3` as a union: notes on different checkpoints
//! are all kept; when both sides annotated the same checkpoint differently,
//! the local note stays and the conflict is reported. The merge is a commit
//! with both histories as parents, so the next push fast-forwards.

use std::path::Path;
use std::process::Command;

use gix::ObjectId;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::thread::{CHECKPOINTS_PREFIX, NOTES_REF, ThreadId};
use crate::repo::{self, Expect, Recorder, RefUpdate};

const INCOMING: &str = "refs/notes/t3-incoming";

/// What a push or fetch did.
#[derive(Debug, Serialize)]
pub struct SyncOutcome {
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

/// Fetch checkpoint refs and notes from `remote`, merging the notes.
pub fn fetch(repo: &gix::Repository, remote: &str, thread: Option<&ThreadId>) -> Result<SyncOutcome> {
    let workdir = repo.workdir().unwrap_or(repo.git_dir()).to_owned();
    let notes = format!("+{NOTES_REF}:{INCOMING}");
    // A remote without notes yet is not an error: retry without the notes.
    if run_git(&workdir, &fetch_args(remote, [checkpoint_refspec(thread), notes])).is_err() {
        run_git(&workdir, &fetch_args(remote, [checkpoint_refspec(thread)]))?;
    }
    let (merged, conflicts) = merge_incoming(repo)?;
    Ok(SyncOutcome {
        action: "fetch",
        remote: remote.to_owned(),
        notes_merged: merged,
        note_conflicts: conflicts,
    })
}

/// Push checkpoint refs and notes to `remote`, merging its notes first.
pub fn push(repo: &gix::Repository, remote: &str, thread: Option<&ThreadId>) -> Result<SyncOutcome> {
    let workdir = repo.workdir().unwrap_or(repo.git_dir()).to_owned();
    // Bring the other side's notes in first, so the notes push fast-forwards.
    let args = fetch_args(remote, [format!("+{NOTES_REF}:{INCOMING}")]);
    let (merged, conflicts) = if run_git(&workdir, &args).is_ok() {
        merge_incoming(repo)?
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
    Ok(SyncOutcome {
        action: "push",
        remote: remote.to_owned(),
        notes_merged: merged,
        note_conflicts: conflicts,
    })
}

/// Merge `refs/notes/t3-incoming` into `refs/notes/t3` (union, local wins).
fn merge_incoming(repo: &gix::Repository) -> Result<(usize, Vec<String>)> {
    let Some(theirs) = repo::find_ref(repo, INCOMING)? else {
        return Ok((0, Vec::new()));
    };
    let result = merge_notes(repo, theirs);
    repo::update_refs(
        repo,
        &[RefUpdate {
            name: INCOMING.into(),
            new: None,
            expect: Expect::Any,
        }],
        "t3: notes merged",
    )?;
    result
}

fn merge_notes(repo: &gix::Repository, theirs: ObjectId) -> Result<(usize, Vec<String>)> {
    for _ in 0..20 {
        let ours = repo::find_ref(repo, NOTES_REF)?;
        let Some(ours) = ours else {
            repo::update_refs(
                repo,
                &[RefUpdate {
                    name: NOTES_REF.into(),
                    new: Some(theirs),
                    expect: Expect::Absent,
                }],
                "t3: notes fetched",
            )?;
            return Ok((repo::list_notes(repo, theirs)?.len(), Vec::new()));
        };
        if ours == theirs || is_ancestor(repo, theirs, ours) {
            return Ok((0, Vec::new()));
        }
        let mine: std::collections::HashMap<ObjectId, ObjectId> =
            repo::list_notes(repo, ours)?.into_iter().collect();
        let root = repo::commit_tree(repo, ours)?;
        let mut state = gix::note::plumbing::State::new(root, repo).map_err(|e| Error::Git {
            context: "could not read the local notes".into(),
            source: Box::new(e),
        })?;
        let mut merged = 0;
        let mut conflicts = Vec::new();
        for (object, blob) in repo::list_notes(repo, theirs)? {
            match mine.get(&object) {
                None => {
                    state.edit(object, Some(blob), repo).map_err(|e| Error::Git {
                        context: format!("could not merge the note of {object}"),
                        source: Box::new(e),
                    })?;
                    merged += 1;
                }
                Some(b) if *b == blob => {}
                Some(_) => conflicts.push(object.to_string()),
            }
        }
        let rec = Recorder::new(repo);
        let tree = state.write(&rec).map_err(|e| Error::Git {
            context: "could not write the merged notes".into(),
            source: Box::new(e),
        })?;
        repo::ensure_tree_object(&rec, tree)?;
        let commit = repo::write_commit(&rec, tree, vec![ours, theirs], "t3: merge notes")?;
        rec.sync()?;
        match repo::update_refs(
            repo,
            &[RefUpdate {
                name: NOTES_REF.into(),
                new: Some(commit),
                expect: Expect::Is(ours),
            }],
            "t3: notes merged",
        ) {
            Ok(()) => return Ok((merged, conflicts)),
            Err(Error::Conflict { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(Error::Conflict {
        reference: NOTES_REF.into(),
    })
}

fn is_ancestor(repo: &gix::Repository, ancestor: ObjectId, of: ObjectId) -> bool {
    repo.merge_base(ancestor, of)
        .ok()
        .flatten()
        .is_some_and(|base| base.detach() == ancestor)
}
