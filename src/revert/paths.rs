//! `restore`: put back only some paths from a turn, as safely as a revert
//! puts back the whole tree.
//!
//! Under the lock (taken by the caller first): the turn's tree is checked
//! whole ([`crate::restore::verify`]); the target is the worktree's own
//! snapshot with just those paths taken from the turn (a path the turn does
//! not have is removed), so the plan touches nothing else; the safety
//! checkpoint holds the worktree plus whatever the plan would overwrite or
//! delete that a capture leaves out ([`super::safety`]), and it is recorded
//! in the operation log as a `restore` op before the first file changes, so
//! `git t3 op undo` brings everything back. Files are written by the same
//! checkout as a revert's (never through a symlink). The thread's refs, the
//! user's index, HEAD and the branch are left alone.

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use serde::Serialize;

use crate::error::{Error, Result, git_err};
use crate::model::oid::Oid;
use crate::model::thread::ThreadId;
use crate::oplog::{self, Kind, Op};
use crate::repo::{self, Locked, Recorder};
use crate::restore::{self, Plan};
use crate::revert::{put_back, safety};
use crate::store;

/// Inputs of a restore of some paths.
#[derive(Debug, Clone)]
pub struct Options {
    /// The thread.
    pub thread: ThreadId,
    /// The turn to take the paths from.
    pub turn: u64,
    /// Worktree-relative paths (`/`-separated; empty: the whole worktree).
    pub paths: Vec<BString>,
    /// Move nested repositories in the way aside instead of refusing.
    pub force: bool,
    /// Take the turn the remote of this name has, that `fetch` kept apart
    /// (`refs/t3/remotes/<remote>/…`), instead of the thread's own.
    pub remote: Option<String>,
    /// Where agents keep their conversations (an interrupted undo that
    /// puts a transcript back is finished first).
    pub homes: crate::provider::AgentHomes,
}

/// What a restore of some paths did.
#[derive(Debug, Serialize)]
pub struct Restored {
    /// The thread.
    pub thread: String,
    /// The turn the paths came from.
    pub turn: u64,
    /// That turn's ref.
    pub source: String,
    /// Files written and deleted.
    #[serde(flatten)]
    pub files: Plan,
    /// The safety checkpoint holding what was there before (absent when
    /// nothing changed).
    pub safety_commit: Option<Oid>,
    /// The op recorded in the operation log (absent when nothing changed).
    pub op: Option<Oid>,
    /// Another thread's files overwritten (only with `--force`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<super::owners::Foreign>,
    /// Files replaced whose content no checkpoint of the thread held (kept
    /// in the safety checkpoint; `op undo` puts them back).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uncaptured: Vec<crate::model::path::PathText>,
    /// Messages for stderr.
    #[serde(skip)]
    pub notices: Vec<String>,
}

/// Restore `opts.paths` from turn `opts.turn` of `opts.thread`, under `lock`.
pub fn restore_paths(lock: &Locked<'_>, opts: Options) -> Result<Restored> {
    let repo = lock.repo();
    let workdir = repo::workdir(repo)?;
    let mut notices = Vec::new();
    // An interrupted abort or undo is finished first (it is recorded).
    if let Some(finished) = put_back::complete_pending(lock, &opts.homes)? {
        notices.extend(finished.notices);
    }
    let Options {
        thread,
        turn,
        paths,
        force,
        remote,
        homes: _,
    } = opts;
    if let Some(j) = super::in_progress(repo, &thread)? {
        return Err(Error::RevertInProgress {
            thread: thread.to_string(),
            to_turn: j.to_turn,
            step: j.step.as_str().into(),
        });
    }
    let (source, source_ref) = match &remote {
        None => (source_tree(repo, &thread, turn)?, thread.checkpoint_ref(turn)),
        Some(remote) => remote_tree(repo, &thread, turn, remote)?,
    };
    let rec = Recorder::new(repo);
    let build = |current| overlay(repo, &rec, current, source, &paths, (&thread, turn));
    let (safety, plan, target) = safety::take_with(lock, &rec, build, force)?;
    let mut done = Restored {
        thread: thread.to_string(),
        turn,
        source: source_ref,
        files: Plan::default(),
        safety_commit: None,
        op: None,
        others: Vec::new(),
        uncaptured: Vec::new(),
        notices,
    };
    if plan.is_empty() {
        done.notices.push(format!(
            "nothing to restore: the paths are already as in turn {turn}"
        ));
        return Ok(done);
    }
    // Two agents in one worktree: another thread's files are overwritten
    // only with --force (the safety checkpoint keeps them).
    let own = match remote {
        None => store::turn_ref(repo, &thread, turn)?,
        // A remote's turn: the thread's files are its own since its latest turn here.
        Some(_) => store::thread_refs(repo, &thread)?.last().copied(),
    };
    let since = super::owners::Since::target(repo, own)?;
    let others = super::owners::foreign(repo, &thread, since, safety.tree, &plan)?;
    if !force {
        super::owners::refuse("restore", &others)?;
    }
    let latest = store::thread_refs(repo, &thread)?
        .last()
        .map(|t| repo::commit_tree(repo, t.commit))
        .transpose()?;
    let named: Vec<_> = others.iter().map(|o| o.path.clone()).collect();
    done.uncaptured = super::uncaptured::uncaptured(repo, latest, safety.tree, &plan, &named)?;
    done.others = others;
    let message = format!("t3 safety restore thread={thread}");
    repo::ensure_tree_object(&rec, safety.tree)?;
    let commit = repo::write_commit(&rec, safety.tree, Vec::new(), &message)?;
    if !done.uncaptured.is_empty() {
        done.notices.push(uncaptured_notice(&done.uncaptured, commit));
    }
    rec.sync()?;
    let mut op = Op::new(Kind::Restore, Some(thread.as_str()));
    op.safety = Some(commit.into());
    op.index_tree = safety.index_tree.map(Oid::from);
    op.moved_aside = safety.moved_aside;
    op.restored = Some(target.into());
    op.worktree = Some(repo::absolute_git_dir(repo));
    lock.interrupt().check()?;
    // Recorded before the first file changes: from here on, `op undo` puts
    // everything back, also after a crash half-way through.
    let id = oplog::record(lock, &op, &[])?;
    safety::move_repositories(&workdir, &op.moved_aside, false)?;
    restore::apply(lock, target, &plan)?;
    for m in &op.moved_aside {
        done.notices.push(format!(
            "moved the nested repository {} aside to {}",
            m.path, m.to
        ));
    }
    done.notices.push(format!(
        "recorded as op {id} (git t3 op undo {} reverses it)",
        id.to_hex_with_len(12)
    ));
    done.files = plan;
    done.safety_commit = Some(commit.into());
    done.op = Some(id.into());
    Ok(done)
}

/// The tree of turn `turn` of `thread` that `remote` has and `fetch` kept
/// apart, and its ref; refused, like any checkpoint, when it holds a path
/// git could not write safely.
fn remote_tree(
    repo: &gix::Repository,
    thread: &ThreadId,
    turn: u64,
    remote: &str,
) -> Result<(ObjectId, String)> {
    let reference = format!("{}{turn}", thread.remote_prefix(remote));
    let commit = repo::find_direct_ref(repo, &reference)?.ok_or_else(|| {
        Error::usage(format!(
            "{remote} has no turn {turn} of thread '{thread}' kept apart here \
             (`git t3 list --remote {remote}` lists what fetch kept)"
        ))
    })?;
    let tree = repo::commit_tree(repo, commit).map_err(|e| Error::BadMetadata {
        reference: reference.clone(),
        problem: format!("does not point at a checkpoint commit ({e})"),
    })?;
    // A placeholder holds no snapshot: nothing to take files from.
    if tree == ObjectId::empty_tree(repo.object_hash()) {
        return Err(Error::usage(format!(
            "{remote}'s turn {turn} of thread '{thread}' is a placeholder (no snapshot): \
             take the files from another of its turns"
        )));
    }
    if let Some(first) = restore::verify::check_tree(repo, tree, repo::head_tree(repo)?, 1).first() {
        return Err(Error::BadMetadata {
            reference,
            problem: format!("refused, nothing was changed: it holds {first}"),
        });
    }
    Ok((tree, reference))
}

/// The tree of turn `turn`, refused when it is a placeholder or holds a
/// path git could not write safely.
fn source_tree(repo: &gix::Repository, thread: &ThreadId, turn: u64) -> Result<ObjectId> {
    let reference = thread.checkpoint_ref(turn);
    let tree = store::snapshot_tree(repo, thread, store::require_turn(repo, thread, turn)?)?;
    // A checkpoint may come from someone else: checked whole, before anything.
    if let Some(first) = restore::verify::check_tree(repo, tree, repo::head_tree(repo)?, 1).first() {
        return Err(Error::BadMetadata {
            reference,
            problem: format!("refused, nothing was changed: it holds {first}"),
        });
    }
    Ok(tree)
}

/// The tree `current` (the worktree's snapshot) with each of `paths` as in
/// `source`: its entry there (a file, or a folder with everything below
/// it), or removed when `source` has none. A path in neither is an error.
fn overlay(
    repo: &gix::Repository,
    rec: &Recorder<'_>,
    current: ObjectId,
    source: ObjectId,
    paths: &[BString],
    (thread, turn): (&ThreadId, u64),
) -> Result<ObjectId> {
    if paths.iter().any(|p| p.is_empty()) {
        return Ok(source);
    }
    let find = |tree: ObjectId| {
        repo.find_tree(tree)
            .map_err(git_err(format!("could not read tree {tree}")))
    };
    let (source_root, current_root) = (find(source)?, find(current)?);
    let mut editor = repo::tree_editor(repo, Some(current))?;
    for path in paths {
        let components = || path.split(|b| *b == b'/');
        let lookup_err = || git_err(format!("could not look up {}", path.to_str_lossy()));
        let in_source = repo::entry_at(repo, source_root.id, path)?;
        match in_source {
            Some((mode, id)) => {
                editor
                    .upsert(components(), mode.kind(), id)
                    .map_err(lookup_err())?;
            }
            None if repo::entry_at(repo, current_root.id, path)?.is_some() => {
                editor.remove(components()).map_err(lookup_err())?;
            }
            None => {
                return Err(Error::PathNotInTurn {
                    path: crate::model::path::to_text(path).0.escape_debug().to_string(),
                    thread: thread.to_string(),
                    turn,
                });
            }
        }
    }
    let tree = editor.write(|t| rec.write_object(t))?;
    repo::ensure_tree_object(rec, tree)?;
    Ok(tree)
}

/// `replaced work no checkpoint held (a.txt, b.txt): kept in the safety
/// checkpoint <id>`, at most ten paths named.
fn uncaptured_notice(paths: &[crate::model::path::PathText], commit: gix::ObjectId) -> String {
    let mut named: Vec<String> = paths
        .iter()
        .take(10)
        .map(|p| crate::model::path::quoted(&p.0))
        .collect();
    if paths.len() > 10 {
        named.push(format!("and {} more", paths.len() - 10));
    }
    format!(
        "replaced work no checkpoint held ({}): kept in the safety checkpoint {commit}",
        named.join(", ")
    )
}
