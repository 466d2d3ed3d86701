//! The two sides a diff compares: checkpoints, the worktree, a branch.

use super::*;

pub(super) fn checkpoints(
    repo: &gix::Repository,
    thread: &ThreadId,
    mode: &Mode,
    notices: &mut Vec<String>,
) -> Result<(Side, Side)> {
    // Explicit turns are looked up directly; only a default end needs the
    // listing of the thread's refs (it grows with the thread).
    let explicit_to = match *mode {
        Mode::Turn(t) => t,
        Mode::Range { to, .. } | Mode::Full { to } => to,
        Mode::Worktree | Mode::Branch(_) | Mode::ToWorktree { .. } => {
            return Err(Error::Internal(
                "a live mode reached the checkpoint resolver".into(),
            ));
        }
    };
    let to = match explicit_to {
        Some(t) => t,
        None => store::latest_turn(repo, thread)?.ok_or_else(|| Error::UnknownThread {
            thread: thread.to_string(),
        })?,
    };
    let from = match *mode {
        Mode::Turn(_) if to == 0 => {
            return Err(Error::Refused(format!(
                "turn 0 of thread '{thread}' is its baseline: nothing before it to compare with (try --full)"
            )));
        }
        Mode::Turn(_) => Some(to - 1),
        // Either order, like `git diff B A`: a newer --from shows the change backwards.
        Mode::Range { from, .. } => Some(from),
        _ => None,
    };
    let mut notes = None;
    let to_side = checkpoint(repo, &mut notes, thread, to)?;
    // A turn whose turn before is missing (a thread started without a
    // baseline, turns pruned) is compared from the nearest checkpoint
    // below it, else from HEAD: said, never a dead end. The turn before is
    // looked up once: its ref, then its side.
    let from = match (mode, from) {
        (Mode::Turn(_), Some(f)) => match store::turn_ref(repo, thread, f)? {
            Some(found) => return Ok((checkpoint_at(repo, &mut notes, thread, found)?, to_side)),
            None => {
                let below = store::thread_refs(repo, thread)?
                    .into_iter()
                    .filter(|t| t.turn < f)
                    .map(|t| t.turn)
                    .max();
                match below {
                    Some(b) => {
                        notices.push(format!(
                            "thread '{thread}' has no turn {f}: comparing turn {to} from turn {b}"
                        ));
                        Some(b)
                    }
                    None => {
                        notices.push(format!(
                            "thread '{thread}' has no checkpoint before turn {to} (it was started without \
                             `git t3 baseline`): comparing from HEAD"
                        ));
                        return Ok((head_side(repo)?, to_side));
                    }
                }
            }
        },
        (_, from) => from,
    };
    let from_side = match from {
        Some(f) => checkpoint(repo, &mut notes, thread, f)?,
        None => match store::turn_ref(repo, thread, 0)? {
            Some(found) => checkpoint_at(repo, &mut notes, thread, found)?,
            None => {
                notices.push(format!(
                    "turn 0 of thread '{thread}' is gone ({}): comparing from HEAD instead",
                    thread.checkpoint_ref(0)
                ));
                head_side(repo)?
            }
        },
    };
    Ok((from_side, to_side))
}

/// HEAD's tree as the older side.
fn head_side(repo: &gix::Repository) -> Result<Side> {
    Ok(Side {
        label: "HEAD".into(),
        turn: None,
        tree: head_tree(repo)?,
        commit: None,
    })
}

/// The `pre_turn_tree` of the note of checkpoint `to`, when it has one and
/// the tree is here (a fetched turn's is not: it is said, and the turn is
/// compared from the turn before).
pub(super) fn pre_turn_tree(
    repo: &gix::Repository,
    thread: &ThreadId,
    to: store::TurnRef,
    notices: &mut Vec<String>,
) -> Option<ObjectId> {
    let turn = to.turn;
    let mut notes = NotesReader::open(repo).ok()?;
    let note = store::load(repo, &mut notes, thread, to).ok()?.note;
    let named = note.pre_turn_tree?;
    let tree = ObjectId::from_hex(named.as_bytes()).ok().filter(|id| {
        repo.find_header(*id)
            .is_ok_and(|h| h.kind() == gix::objs::Kind::Tree)
    });
    if tree.is_none() {
        notices.push(format!(
            "turn {turn}'s note names the worktree when its prompt was submitted ({named}), which is not in this \
             repository: showing everything since the turn before, the user's edits between turns included"
        ));
    }
    tree
}

pub(super) fn checkpoint<'r>(
    repo: &'r gix::Repository,
    notes: &mut Option<NotesReader<'r>>,
    thread: &ThreadId,
    turn: u64,
) -> Result<Side> {
    let Some(found) = store::turn_ref(repo, thread, turn)? else {
        let latest = store::latest_turn(repo, thread)?;
        return Err(match latest {
            None => Error::UnknownThread {
                thread: thread.to_string(),
            },
            Some(_) => Error::NoSuchTurn {
                thread: thread.to_string(),
                turn,
                latest,
            },
        });
    };
    checkpoint_at(repo, notes, thread, found)
}

/// The side of the checkpoint `found` (its ref already read).
fn checkpoint_at<'r>(
    repo: &'r gix::Repository,
    notes: &mut Option<NotesReader<'r>>,
    thread: &ThreadId,
    found: store::TurnRef,
) -> Result<Side> {
    let turn = found.turn;
    let reference = thread.checkpoint_ref(turn);
    let tree = repo::commit_tree(repo, found.commit).map_err(|_| Error::BadMetadata {
        reference: reference.clone(),
        problem: "does not point at a checkpoint commit".into(),
    })?;
    // A placeholder's commit holds the empty tree, so only then is its note
    // worth reading (a damaged note does not stop a diff of a real snapshot).
    if tree == ObjectId::empty_tree(repo.object_hash())
        && let Ok(cp) = store::load(repo, notes_reader(repo, notes)?, thread, found)
        && cp.note.placeholder
    {
        return Err(Error::Placeholder {
            thread: thread.to_string(),
            turn,
            reference,
        });
    }
    Ok(Side {
        label: reference,
        turn: Some(turn),
        tree,
        commit: Some(found.commit),
    })
}

pub(super) fn notes_reader<'a, 'r>(
    repo: &'r gix::Repository,
    notes: &'a mut Option<NotesReader<'r>>,
) -> Result<&'a mut NotesReader<'r>> {
    if notes.is_none() {
        *notes = Some(NotesReader::open(repo)?);
    }
    notes
        .as_mut()
        .ok_or_else(|| Error::Internal("notes reader missing".into()))
}

pub(super) fn head_tree(repo: &gix::Repository) -> Result<ObjectId> {
    repo::head_tree_or_empty(repo)
}

/// HEAD against a snapshot of the worktree, which writes blobs (never
/// refs); read-only, it writes nothing and `in_memory` is set to the
/// repository that reads the worktree's new objects from memory.
pub(super) fn worktree(ctx: &Context, in_memory: &mut Option<gix::Repository>) -> Result<(Side, Side)> {
    let repo = &ctx.repo;
    repo::workdir(repo)?;
    let tree = if ctx.settings.read_only {
        let preview = crate::snapshot::preview(repo, ctx.settings.interrupt)?;
        *in_memory = Some(preview.repo);
        preview.tree
    } else {
        let lock = ctx.lock("diff --worktree")?;
        let rec = Recorder::new(repo);
        let snapshot = crate::snapshot::snapshot(&lock, &rec)?;
        snapshot.keep_cache(&rec)?;
        snapshot.tree
    };
    Ok((
        Side {
            label: "HEAD".into(),
            turn: None,
            tree: head_tree(repo)?,
            commit: None,
        },
        Side {
            label: "worktree".into(),
            turn: None,
            tree,
            commit: None,
        },
    ))
}

/// merge-base(BASE, HEAD) against HEAD.
pub(super) fn branch(repo: &gix::Repository, base: Option<&str>) -> Result<(Side, Side)> {
    let head = repo
        .head_id()
        .map_err(|_| Error::Refused("--branch: HEAD has no commit yet".into()))?
        .detach();
    let base_id = match base {
        Some(name) => repo
            .rev_parse_single(name)
            .map_err(|_| Error::Usage(format!("--branch: '{name}' does not name a commit")))?
            .detach(),
        None => default_base(repo)?,
    };
    let merge_base = repo
        .merge_base(base_id, head)
        .ok()
        .flatten()
        .ok_or_else(|| Error::Refused(format!("--branch: HEAD and {base_id} have no common ancestor")))?
        .detach();
    Ok((
        Side {
            label: merge_base.to_string(),
            turn: None,
            tree: repo::commit_tree(repo, merge_base)?,
            commit: None,
        },
        Side {
            label: "HEAD".into(),
            turn: None,
            tree: head_tree(repo)?,
            commit: None,
        },
    ))
}

/// The branch's upstream, else `main`, else `master`.
pub(super) fn default_base(repo: &gix::Repository) -> Result<ObjectId> {
    if let Ok(Some(head)) = repo.head_name() {
        // A remote upstream is its remote-tracking ref; with `remote = .`
        // the upstream is the local branch named by `merge` itself.
        let tracking = repo
            .branch_remote_tracking_ref_name(head.as_ref(), gix::remote::Direction::Fetch)
            .and_then(std::result::Result::ok);
        let merge = repo
            .branch_remote_ref_name(head.as_ref(), gix::remote::Direction::Fetch)
            .and_then(std::result::Result::ok);
        for name in [tracking, merge].into_iter().flatten() {
            if let Some(id) = repo::find_ref(repo, &name.as_bstr().to_string())? {
                return Ok(id);
            }
        }
    }
    for name in [
        "refs/heads/main",
        "refs/heads/master",
        "refs/remotes/origin/main",
        "refs/remotes/origin/master",
    ] {
        if let Some(id) = repo::find_ref(repo, name)? {
            return Ok(id);
        }
    }
    Err(Error::Refused(
        "--branch: no base found (no upstream, no main, no master); name one: git t3 diff --branch BASE"
            .into(),
    ))
}

/// With a turn's note holding the worktree when its prompt came
/// (`pre_turn_tree`), compare from there: `from` becomes it, and the user's
/// edits left out are counted.
pub(super) fn from_pre_turn(
    repo: &gix::Repository,
    thread: Option<&ThreadId>,
    from: &mut Side,
    to: Option<store::TurnRef>,
    (limit, relative): (Option<&mut changes::Pathspecs<'_>>, Option<&[u8]>),
    notices: &mut Vec<String>,
) -> Result<Option<usize>> {
    let (Some(thread), Some(to)) = (thread, to) else {
        return Ok(None);
    };
    let turn = to.turn;
    let Some(pre) = pre_turn_tree(repo, thread, to, notices) else {
        return Ok(None);
    };
    let n = user_edits_left_out(repo, from, pre, turn, limit, relative, notices)?;
    *from = Side {
        label: pre.to_string(),
        turn: None,
        tree: pre,
        commit: None,
    };
    Ok(Some(n))
}

/// How many files changed between `from` and the prompt of `turn` (`pre`,
/// the user's edits, not the agent's), within the pathspecs and
/// `--relative`; a notice says they are left out.
fn user_edits_left_out(
    repo: &gix::Repository,
    from: &Side,
    pre: ObjectId,
    turn: u64,
    limit: Option<&mut changes::Pathspecs<'_>>,
    relative: Option<&[u8]>,
    notices: &mut Vec<String>,
) -> Result<usize> {
    let mut edited = changes::tree_changes_with(repo, from.tree, pre, true)?;
    if let Some(limit) = limit {
        edited = changes::limit(edited, |path| limit.includes(path));
    }
    if let Some(rel) = relative {
        edited = changes::limit(edited, |path| path.starts_with(rel));
    }
    let n = edited.len();
    if n > 0 {
        let before = from
            .turn
            .map_or_else(|| "HEAD".to_owned(), |t| format!("turn {t}"));
        let (file, them) = if n == 1 { ("file", "it") } else { ("files", "them") };
        notices.push(format!(
            "{n} {file} changed between {before} and the prompt of turn {turn} (not by the agent) \
             left out: --include-user-edits shows {them}"
        ));
    }
    Ok(n)
}
