//! `git t3 push` and `git t3 fetch`: move checkpoint refs and `refs/notes/t3`
//! with the ordinary git transport (the `git` binary brings the user's
//! credentials, SSH and proxies; gix has no push).
//!
//! Both respect local history, which the operation log knows:
//! - `fetch` brings the other side's checkpoints into a staging namespace
//!   (`refs/t3-incoming/`), checks them as `verify` would, then takes new
//!   threads and fast-forwards local ones only; a thread the remote has
//!   otherwise is kept apart under `refs/t3/remotes/<remote>/` ([`adopt`]).
//!   A turn reverted or dropped here never comes back; a local checkpoint
//!   is never overwritten. The refs it created are one `fetch` op. When git
//!   takes only part of the refs, the rest is done and git's reason
//!   reported (the command fails).
//! - `push` sends each thread's exact state: turns the local log removed
//!   are deleted on the remote (or replaced by the new turn of that number),
//!   with a lease, so only when the remote still has the commit we removed.
//!
//! Notes are merged as a union ([`notes`]).
//!
//! Before anything is sent, `push` scans what the remote does not have
//! (against every ref `ls-remote` shows) for paths that look like secrets
//! ([`secrets`]) and refuses (nothing sent, nothing changed) unless
//! `--allow-secrets`.

mod adopt;
pub mod git;
pub mod notes;
pub mod secrets;

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use gix::ObjectId;
use gix::bstr::ByteSlice;
use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::thread::{CHECKPOINTS_PREFIX, NOTES_REF, ThreadId};
use crate::oplog::{self, Kind};
use crate::repo::{self, Expect, Locked, RefUpdate};
use git::{fetch_args, git_output, run_git};

/// Where fetched checkpoint refs wait until they are checked.
const STAGING: &str = "refs/t3-incoming/checkpoints/";

/// Which way checkpoints went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// `push`.
    Push,
    /// `fetch`.
    Fetch,
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Action::Push => "push",
            Action::Fetch => "fetch",
        })
    }
}

/// What a push or fetch did.
#[derive(Debug, Serialize)]
pub struct Report {
    /// `push` or `fetch`.
    pub action: Action,
    /// The remote.
    pub remote: String,
    /// Notes taken from the other side.
    pub notes_merged: usize,
    /// Checkpoints both sides annotated differently (the local note was kept).
    pub note_conflicts: Vec<String>,
    /// Checkpoint refs created (fetch) or deleted or replaced on the remote (push).
    pub refs_changed: Vec<String>,
    /// Checkpoints the remote has that the local operation log removed (fetch:
    /// not brought back).
    pub kept_removed: Vec<String>,
    /// Refs not taken, with the reason (not a checkpoint, a note that
    /// names another thread or turn, a turn number out of bounds).
    pub refused: Vec<String>,
    /// Threads the remote has otherwise than here (fetch): kept apart under
    /// `refs/t3/remotes/<remote>/`, with the reason.
    pub diverged: Vec<String>,
    /// git's reason when the transport took only part of the refs.
    pub transport_error: Option<String>,
}

impl Report {
    /// Whether the command fails (exit 1) after doing the rest: a ref was
    /// refused, or git took only part of them.
    pub fn failed(&self) -> bool {
        !self.refused.is_empty() || self.transport_error.is_some()
    }
}

impl Report {
    fn new(action: Action, remote: &str) -> Self {
        Report {
            action,
            remote: remote.to_owned(),
            notes_merged: 0,
            note_conflicts: Vec::new(),
            refs_changed: Vec::new(),
            kept_removed: Vec::new(),
            refused: Vec::new(),
            diverged: Vec::new(),
            transport_error: None,
        }
    }
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
        .filter(|n| n != "." && !n.starts_with('-'))
        .unwrap_or_else(|| "origin".to_owned())
}

fn prefix_of(thread: Option<&ThreadId>) -> String {
    thread.map_or_else(|| CHECKPOINTS_PREFIX.to_owned(), ThreadId::checkpoints_prefix)
}

fn workdir(repo: &gix::Repository) -> PathBuf {
    repo.workdir().unwrap_or(repo.git_dir()).to_owned()
}

/// `(ref, commit)` pairs the local operation log removed from `refs/t3/`.
/// A prune is local retention: it keeps a fetch from bringing the threads
/// back, but a push does not remove them from the remote (`prunes`: count
/// them).
fn removed_by_log(repo: &gix::Repository, prunes: bool) -> Result<HashSet<(String, ObjectId)>> {
    let mut out = HashSet::new();
    let log = oplog::log(repo, oplog::MAX_LOG)?;
    let fetches: HashSet<ObjectId> = log
        .iter()
        .filter(|e| e.op.kind == Kind::Fetch)
        .map(|e| e.id)
        .collect();
    for e in log {
        // Undoing a fetch says "not here", not "remove it from the remote".
        if e.op.undoes.is_some_and(|u| fetches.contains(&u.get())) {
            continue;
        }
        if e.op.kind == Kind::Prune && !prunes {
            continue;
        }
        for c in &e.op.refs {
            if let Some(old) = c.old
                && c.new != Some(old)
            {
                out.insert((c.reference.clone(), old.get()));
            }
        }
    }
    Ok(out)
}

/// Fetch checkpoint refs and notes from `remote`, under `lock`.
pub fn fetch(lock: &Locked<'_>, remote: &str, thread: Option<&ThreadId>) -> Result<Report> {
    let repo = lock.repo();
    let dir = workdir(repo);
    let prefix = prefix_of(thread);
    let staged = format!("{STAGING}{}", &prefix[CHECKPOINTS_PREFIX.len()..]);
    let refs = format!("+{prefix}*:{staged}*");
    let notes = format!("+{NOTES_REF}:{}", notes::INCOMING);
    let interrupt = lock.interrupt();
    let mut report = Report::new(Action::Fetch, remote);
    // What an interrupted fetch left staged is not this fetch's.
    clear_staging(lock)?;
    // A remote without notes yet is not an error: retry without the notes.
    // A fetch that took part of the refs goes on with those (git's reason
    // is reported, and the command fails after doing the rest).
    let mut fetched = run_git(&dir, &fetch_args(remote, [refs.clone(), notes]), interrupt);
    if let Err(Error::Remote { message, .. }) = &fetched
        && message.contains(NOTES_REF)
        && !staged_anything(repo)?
    {
        fetched = run_git(&dir, &fetch_args(remote, [refs]), interrupt);
    }
    match fetched {
        Ok(()) => {}
        Err(e @ Error::Interrupted { .. }) => {
            clear_staging(lock)?;
            return Err(e);
        }
        Err(Error::Remote { message, .. }) if staged_anything(repo)? => {
            report.transport_error = Some(message);
        }
        Err(e) => {
            clear_staging(lock)?;
            return Err(e);
        }
    }
    let protected = local_checkpoints(repo)?;
    let removed = removed_by_log(repo, true);
    let adopted = removed.and_then(|removed| adopt::adopt(lock, remote, (&removed, thread), &mut report));
    let merged = notes::merge_incoming(lock, &protected);
    clear_staging(lock)?;
    adopted?;
    (report.notes_merged, report.note_conflicts) = merged?;
    Ok(report)
}

/// The commits the local checkpoint refs point at.
fn local_checkpoints(repo: &gix::Repository) -> Result<HashSet<ObjectId>> {
    Ok(repo::list_refs(repo, CHECKPOINTS_PREFIX)?
        .into_iter()
        .filter_map(|r| r.target)
        .collect())
}

/// Whether a fetch brought anything: staged refs or the other side's notes.
fn staged_anything(repo: &gix::Repository) -> Result<bool> {
    Ok(!repo::list_refs(repo, STAGING)?.is_empty() || repo::find_ref(repo, notes::INCOMING)?.is_some())
}

fn clear_staging(lock: &Locked<'_>) -> Result<()> {
    let updates: Vec<RefUpdate> = repo::list_refs(lock.repo(), "refs/t3-incoming/")?
        .into_iter()
        .filter_map(|r| {
            Some(RefUpdate {
                name: r.name.to_str().ok()?.to_owned(),
                new: None,
                expect: Expect::Any,
            })
        })
        .collect();
    repo::update_refs(lock, &updates, "t3: fetch staging cleared")
}

/// What `push` may send.
#[derive(Debug, Clone, Copy, Default)]
pub struct PushOptions {
    /// Send checkpoints that record paths looking like secrets.
    pub allow_secrets: bool,
}

/// Push checkpoint refs and notes to `remote`, under `lock`: the other side's
/// notes merged first, turns removed here removed there (with a lease).
/// Refused before anything happens when the checkpoints to send record
/// secret-looking paths, unless `opts.allow_secrets`.
pub fn push(lock: &Locked<'_>, remote: &str, thread: Option<&ThreadId>, opts: PushOptions) -> Result<Report> {
    let repo = lock.repo();
    let dir = workdir(repo);
    let prefix = prefix_of(thread);
    let interrupt = lock.interrupt();
    let removed = removed_by_log(repo, false)?;
    // What the remote has (all its refs): for the scan and the leases.
    let listing = if !opts.allow_secrets || !removed.is_empty() {
        Some(ls_remote(&dir, remote, interrupt)?)
    } else {
        None
    };
    if !opts.allow_secrets {
        let found = secrets::scan(
            repo,
            &dir,
            &prefix,
            listing.as_deref().unwrap_or_default(),
            interrupt,
        )?;
        if !found.is_empty() {
            return Err(Error::SecretsInPush {
                remote: remote.to_owned(),
                found: secrets::describe(&found),
            });
        }
    }
    let mut report = Report::new(Action::Push, remote);
    // Bring the other side's notes in first, so the notes push fast-forwards.
    let args = fetch_args(remote, [format!("+{NOTES_REF}:{}", notes::INCOMING)]);
    match run_git(&dir, &args, interrupt) {
        Ok(()) => {
            (report.notes_merged, report.note_conflicts) =
                notes::merge_incoming(lock, &local_checkpoints(repo)?)?
        }
        Err(e @ Error::Interrupted { .. }) => return Err(e),
        Err(_) => {}
    }
    // Only the refs this push is about (a thread's push never sends another
    // thread's turns, which the scan did not look at).
    let leased = match &listing {
        Some(listing) => leased_updates(repo, listing, &removed)?
            .into_iter()
            .filter(|(name, _)| name.starts_with(&prefix))
            .collect(),
        None => BTreeMap::new(),
    };
    if !leased.is_empty() {
        let mut args = vec!["push".to_owned(), "--quiet".into(), "--no-verify".into()];
        for (name, (old, _)) in &leased {
            args.push(format!("--force-with-lease={name}:{old}"));
        }
        args.push("--end-of-options".into());
        args.push(remote.to_owned());
        for (name, (_, new)) in &leased {
            args.push(match new {
                Some(_) => format!("+{name}:{name}"),
                None => format!(":{name}"),
            });
        }
        run_git(&dir, &args, interrupt).map_err(|e| as_push(e, remote))?;
        report.refs_changed.extend(leased.into_keys());
    }
    let mut args = vec![
        "push".to_owned(),
        "--quiet".into(),
        "--no-verify".into(),
        "--end-of-options".into(),
        remote.to_owned(),
        format!("{prefix}*:{prefix}*"),
    ];
    if repo::find_ref(repo, NOTES_REF)?.is_some() {
        args.push(format!("{NOTES_REF}:{NOTES_REF}"));
    }
    run_git(&dir, &args, interrupt).map_err(|e| as_push(e, remote))?;
    Ok(report)
}

/// `git ls-remote` of every ref where a push to `remote` goes (its
/// `pushurl` when it has one: what the fetch URL has is not what the push
/// destination has).
fn ls_remote(dir: &std::path::Path, remote: &str, interrupt: crate::interrupt::Interrupt) -> Result<Vec<u8>> {
    let push_url = git_output(
        dir,
        &[
            "remote".into(),
            "get-url".into(),
            "--push".into(),
            "--end-of-options".into(),
            remote.to_owned(),
        ],
        interrupt,
    )
    .ok()
    .and_then(|out| String::from_utf8(out).ok())
    .map(|url| url.trim().to_owned())
    .filter(|url| !url.is_empty() && !url.contains('\n'));
    git_output(
        dir,
        &[
            "ls-remote".into(),
            "--refs".into(),
            "--end-of-options".into(),
            push_url.unwrap_or_else(|| remote.to_owned()),
        ],
        interrupt,
    )
    .map_err(|e| as_push(e, remote))
}

fn as_push(e: Error, remote: &str) -> Error {
    match e {
        Error::Remote { message, .. } => Error::Remote {
            action: "push",
            remote: remote.to_owned(),
            message,
        },
        other => other,
    }
}

/// Refs in the remote's `listing` (`ls-remote` output) whose remote value
/// is a commit the local log removed: `name -> (that commit, the local
/// value now)`.
fn leased_updates(
    repo: &gix::Repository,
    listing: &[u8],
    removed: &HashSet<(String, ObjectId)>,
) -> Result<BTreeMap<String, (ObjectId, Option<ObjectId>)>> {
    let mut out = BTreeMap::new();
    if removed.is_empty() {
        return Ok(out);
    }
    for line in listing.lines() {
        let Some((id, name)) = line.to_str().ok().and_then(|l| l.split_once('\t')) else {
            continue;
        };
        let Ok(id) = ObjectId::from_hex(id.as_bytes()) else {
            continue;
        };
        if !removed.contains(&(name.to_owned(), id)) {
            continue;
        }
        let local = repo::find_ref(repo, name)?;
        if local != Some(id) {
            out.insert(name.to_owned(), (id, local));
        }
    }
    Ok(out)
}
