//! The scan `push` runs before anything leaves the machine: the checkpoints
//! about to be sent are looked through for paths that look like secrets
//! ([`crate::snapshot::secrets`]), and any found stop the push unless
//! `--allow-secrets`.
//!
//! What is scanned, and what is not:
//! - what the remote does not have: the checkpoints it lacks (`git
//!   rev-list` of the checkpoints, not of the refs the remote has as
//!   `ls-remote` reports them at push time, all of them: branches, tags,
//!   checkpoints), and of what they record, the blobs not reachable from
//!   those refs. A blob the remote already has is not reported; one that
//!   only a local commit holds (a key committed by mistake, then reset
//!   away) is, whatever the note's `head` says;
//! - of each checkpoint sent, the paths new or changed against the thread's
//!   previous checkpoint here (which is either sent too, and scanned, or
//!   already on the remote, so its blobs are not sent); the first
//!   checkpoint of a thread is scanned whole. Each comparison is gix's tree
//!   diff, which skips equal subtrees, and is bounded like every diff
//!   ([`crate::diff::changes::MAX_CHANGES`]);
//! - at most [`MAX_FINDINGS`] are collected: one is enough to stop.

use std::collections::{BTreeMap, HashSet};

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use gix::objs::tree::EntryKind;

use crate::diff::changes;
use crate::error::Result;
use crate::model::note::ChangeKind;
use crate::model::thread::{ThreadId, parse_checkpoint_ref};
use crate::repo;
use crate::snapshot::secrets::Secrets;

/// Findings collected before the scan stops.
pub const MAX_FINDINGS: usize = 20;

/// A checkpoint about to be pushed that records a secret-looking path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The thread.
    pub thread: String,
    /// The turn.
    pub turn: u64,
    /// The path, worktree-relative.
    pub path: BString,
}

/// The secret-looking paths that pushing the checkpoints under `prefix` to
/// a remote whose refs are `listing` (`git ls-remote` output) would send.
pub fn scan(
    repo: &gix::Repository,
    workdir: &std::path::Path,
    prefix: &str,
    listing: &[u8],
    interrupt: crate::interrupt::Interrupt,
) -> Result<Vec<Finding>> {
    let tips: Vec<ObjectId> = remote_commits(listing)
        .into_iter()
        .filter(|id| repo.has_object(*id))
        .collect();
    let sent = commits_to_send(repo, workdir, prefix, &tips, interrupt)?;
    let patterns = Secrets::of(repo);
    let mut threads: BTreeMap<String, (ThreadId, Vec<(u64, ObjectId)>)> = BTreeMap::new();
    for (name, id) in checkpoints(repo, prefix)? {
        let Ok(parsed) = parse_checkpoint_ref(&name) else {
            continue;
        };
        threads
            .entry(parsed.thread.to_string())
            .or_insert_with(|| (parsed.thread.clone(), Vec::new()))
            .1
            .push((parsed.turn, id));
    }
    let empty = ObjectId::empty_tree(repo.object_hash());
    let mut candidates = Vec::new();
    for (thread, mut turns) in threads.into_values() {
        turns.sort();
        let mut previous = empty;
        for (turn, commit) in turns {
            interrupt.check()?;
            // Not a commit (or unreadable): git itself will say so when pushing.
            let Ok(tree) = repo::commit_tree(repo, commit) else {
                continue;
            };
            if sent.contains(&commit) && tree != previous {
                for (path, id) in new_secret_paths(repo, &patterns, previous, tree)? {
                    candidates.push((
                        Finding {
                            thread: thread.to_string(),
                            turn,
                            path,
                        },
                        id,
                    ));
                }
            }
            // A placeholder holds no snapshot: the next turn compares with
            // the last real one.
            if tree != empty {
                previous = tree;
            }
        }
    }
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let wanted: HashSet<ObjectId> = candidates.iter().map(|(_, id)| *id).collect();
    let remote_has = reachable_among(repo, workdir, &tips, &wanted, interrupt)?;
    Ok(candidates
        .into_iter()
        .filter(|(_, id)| !remote_has.contains(id))
        .map(|(f, _)| f)
        .take(MAX_FINDINGS)
        .collect())
}

/// The checkpoint refs under `prefix` and their commits.
fn checkpoints(repo: &gix::Repository, prefix: &str) -> Result<Vec<(String, ObjectId)>> {
    Ok(repo::list_refs(repo, prefix)?
        .into_iter()
        .filter_map(|r| Some((r.name.to_str().ok()?.to_owned(), r.target?)))
        .collect())
}

/// `git rev-list` with `input` on stdin, as object ids.
fn rev_list(
    repo: &gix::Repository,
    workdir: &std::path::Path,
    objects: bool,
    input: Vec<u8>,
    interrupt: crate::interrupt::Interrupt,
) -> Result<Vec<ObjectId>> {
    let mut args = vec!["rev-list".to_owned()];
    if objects {
        args.push("--objects".into());
    }
    args.push("--stdin".into());
    let out = super::git::git_output_with(workdir, &args, Some(input), interrupt)?;
    let hex = repo.object_hash().len_in_hex();
    Ok(out
        .lines()
        .filter_map(|l| ObjectId::from_hex(l.get(..hex)?).ok())
        .collect())
}

/// The checkpoint commits under `prefix` that the remote, whose refs point
/// at `tips`, does not have.
fn commits_to_send(
    repo: &gix::Repository,
    workdir: &std::path::Path,
    prefix: &str,
    tips: &[ObjectId],
    interrupt: crate::interrupt::Interrupt,
) -> Result<HashSet<ObjectId>> {
    let mut input = Vec::new();
    for (_, id) in checkpoints(repo, prefix)? {
        input.extend_from_slice(format!("{id}\n").as_bytes());
    }
    if input.is_empty() {
        return Ok(HashSet::new());
    }
    for id in tips {
        input.extend_from_slice(format!("^{id}\n").as_bytes());
    }
    Ok(rev_list(repo, workdir, false, input, interrupt)?
        .into_iter()
        .collect())
}

/// Which of `wanted` are reachable from `tips` (every object of their
/// history is listed: run only when a secret-looking path was found).
fn reachable_among(
    repo: &gix::Repository,
    workdir: &std::path::Path,
    tips: &[ObjectId],
    wanted: &HashSet<ObjectId>,
    interrupt: crate::interrupt::Interrupt,
) -> Result<HashSet<ObjectId>> {
    if tips.is_empty() {
        return Ok(HashSet::new());
    }
    let input: Vec<u8> = tips
        .iter()
        .flat_map(|id| format!("{id}\n").into_bytes())
        .collect();
    Ok(rev_list(repo, workdir, true, input, interrupt)?
        .into_iter()
        .filter(|id| wanted.contains(id))
        .collect())
}

/// Paths new or changed from tree `from` to tree `to` (files and symlinks)
/// that look like secrets, with their new blob.
fn new_secret_paths(
    repo: &gix::Repository,
    patterns: &Secrets,
    from: ObjectId,
    to: ObjectId,
) -> Result<Vec<(BString, ObjectId)>> {
    Ok(changes::tree_changes_with(repo, from, to, false)?
        .into_iter()
        .filter(|c| c.kind != ChangeKind::Deleted)
        .filter_map(|c| {
            let new = c.new?;
            (new.kind != EntryKind::Commit && new.kind != EntryKind::Tree).then_some((c.path, new.id))
        })
        .filter(|(path, _)| patterns.matches(path.as_bstr()))
        .collect())
}

/// The objects the remote's refs point at, from `git ls-remote` output.
pub fn remote_commits(listing: &[u8]) -> HashSet<ObjectId> {
    listing
        .lines()
        .filter_map(|l| l.to_str().ok()?.split_once('\t'))
        .filter_map(|(id, _)| ObjectId::from_hex(id.as_bytes()).ok())
        .collect()
}

/// One line naming what was found: the first few, and how many more (paths
/// in their display form; output escapes control characters).
pub fn describe(found: &[Finding]) -> String {
    const NAMED: usize = 3;
    let mut parts: Vec<String> = found
        .iter()
        .take(NAMED)
        .map(|f| {
            format!(
                "{} (turn {} of thread '{}')",
                crate::model::path::to_text(&f.path).0,
                f.turn,
                f.thread
            )
        })
        .collect();
    if found.len() > NAMED {
        let more = found.len() - NAMED;
        parts.push(if found.len() >= MAX_FINDINGS {
            format!("and {more} or more others")
        } else {
            format!("and {more} more")
        });
    }
    parts.join(", ")
}
