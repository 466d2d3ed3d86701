//! What `fetch` takes from the refs it staged (DESIGN: Sync).
//!
//! Each staged ref is first checked as `verify` checks a checkpoint: a
//! canonical name, a commit, a note (the remote's, else one here) that
//! names the ref's thread and turn, and a turn number no higher than 2^31
//! nor than the local thread's latest (0 for a new thread) +
//! [`MAX_FETCHED_TURN_GAP`]. A ref
//! that fails is refused and named; nothing else of its thread changes for
//! it.
//!
//! Then, per thread:
//! - a thread that has no checkpoint here is taken as the remote has it
//!   (less the turns the local operation log removed);
//! - a local thread only fast-forwards: the remote's turns above the local
//!   latest are added when every turn both sides have is the same commit
//!   with the same note, and no turn the remote adds sits below the latest
//!   or above a turn the local log removed;
//! - anything else (another commit at a local turn number, a turn inserted
//!   below the latest, a different note, a continuation of turns removed
//!   here) leaves the local thread alone: the remote's turns that differ
//!   from it are kept under `refs/t3/remotes/<remote>/<b64 thread>/turn/<n>`,
//!   and the thread is reported as diverged.
//!
//! The refs created under `refs/t3/checkpoints/` are one `fetch` op.

use std::collections::{BTreeMap, HashSet};

use gix::ObjectId;
use gix::bstr::ByteSlice;

use super::{Report, STAGING};
use crate::error::Result;
use crate::model::note::Note;
use crate::model::thread::{CHECKPOINTS_PREFIX, MAX_FETCHED_TURN_GAP, ThreadId, parse_checkpoint_ref};
use crate::oplog::{self, Kind, Op, RefChange};
use crate::repo::{self, Expect, Locked, NotesReader, RefUpdate};
use crate::store;

/// The highest turn number a fetch takes.
const MAX_FETCHED_TURN: u64 = 1 << 31;

/// One staged ref that passed the checks.
#[derive(Debug, Clone)]
struct Remote {
    turn: u64,
    commit: ObjectId,
    /// The remote's note on it, if it has one.
    their_note: Option<ObjectId>,
}

/// Take the staged refs as the module says; `removed`: `(ref, commit)`
/// pairs the local log removed; `remote`: the remote as the user named it.
pub(super) fn adopt(
    lock: &Locked<'_>,
    remote: &str,
    (removed, scope): (&HashSet<(String, ObjectId)>, Option<&ThreadId>),
    report: &mut Report,
) -> Result<()> {
    let repo = lock.repo();
    let mut theirs = NotesReader::open_ref(repo, super::notes::INCOMING)?;
    let mut ours = NotesReader::open(repo)?;
    lock.interrupt().check()?;
    let threads = staged_turns(repo, &mut theirs, &mut ours, report)?;
    let mut updates = Vec::new();
    let mut kept: HashSet<ThreadId> = HashSet::new();
    let mut op = Op::new(Kind::Fetch, None);
    for (thread, mut turns) in threads {
        turns.sort_by_key(|t| t.turn);
        let local = store::thread_refs(repo, &thread)?;
        let latest = local.last().map(|t| t.turn);
        refuse_far_turns(&thread, &mut turns, latest, report);
        let was_removed = |t: &Remote| removed.contains(&(thread.checkpoint_ref(t.turn), t.commit));
        let (gone, turns): (Vec<Remote>, Vec<Remote>) = turns.into_iter().partition(was_removed);
        report
            .kept_removed
            .extend(gone.iter().map(|t| thread.checkpoint_ref(t.turn)));
        let first_gone = gone.iter().map(|t| t.turn).min();
        let continues_gone = |t: &Remote| first_gone.is_some_and(|g| g < t.turn);
        let Some(latest) = latest else {
            // A thread not here: taken, less what continues turns removed here.
            let (apart, new): (Vec<&Remote>, Vec<&Remote>) = turns.iter().partition(|t| continues_gone(t));
            for t in new {
                take(&thread, t, &mut op, &mut updates, report);
            }
            if !apart.is_empty() {
                let why = format!(
                    "turn {} continues turns removed here (see `git t3 op log`)",
                    apart.iter().map(|t| t.turn).min().unwrap_or_default()
                );
                keep_apart(repo, remote, &thread, &apart, &why, &mut updates, report)?;
            }
            continue;
        };
        let mine: BTreeMap<u64, ObjectId> = local.iter().map(|t| (t.turn, t.commit)).collect();
        let mut why = differences(&turns, &mine, (latest, first_gone), &mut ours);
        if why.is_empty() {
            for t in turns.iter().filter(|t| t.turn > latest) {
                take(&thread, t, &mut op, &mut updates, report);
            }
        } else {
            let more = why.len().saturating_sub(3);
            why.truncate(3);
            let mut why = why.join(", ");
            if more > 0 {
                why.push_str(&format!(" and {more} more"));
            }
            let apart: Vec<&Remote> = turns
                .iter()
                .filter(|t| mine.get(&t.turn) != Some(&t.commit))
                .collect();
            keep_apart(repo, remote, &thread, &apart, &why, &mut updates, report)?;
            kept.insert(thread.clone());
        }
    }
    // What an earlier fetch kept apart and the remote no longer has
    // otherwise goes, once a whole fetch (of this scope) came through.
    if report.transport_error.is_none() {
        drop_kept_apart(repo, (remote, scope), &kept, &mut updates)?;
    }
    if updates.is_empty() {
        return Ok(());
    }
    // The last point to stop: from here the refs and their op are written.
    lock.interrupt().check()?;
    repo::update_refs(lock, &updates, "t3: fetch")?;
    if !op.refs.is_empty() {
        oplog::record(lock, &op, &[])?;
    }
    Ok(())
}

/// The staged refs that pass the checks, by thread; each one that fails
/// is refused in `report`. `theirs` and `ours`: the remote's notes and
/// the local ones.
fn staged_turns(
    repo: &gix::Repository,
    theirs: &mut NotesReader<'_>,
    ours: &mut NotesReader<'_>,
    report: &mut Report,
) -> Result<BTreeMap<ThreadId, Vec<Remote>>> {
    let mut threads: BTreeMap<ThreadId, Vec<Remote>> = BTreeMap::new();
    for r in repo::list_refs(repo, STAGING)? {
        let (Ok(name), Some(id)) = (r.name.to_str(), r.target) else {
            continue;
        };
        let local = format!("{CHECKPOINTS_PREFIX}{}", &name[STAGING.len()..]);
        let Ok(parsed) = parse_checkpoint_ref(&local) else {
            report
                .refused
                .push(format!("{local}: not a checkpoint ref name; not taken"));
            continue;
        };
        let is_commit = repo
            .find_header(id)
            .is_ok_and(|h| h.kind() == gix::objs::Kind::Commit);
        if !is_commit {
            report.refused.push(format!("{local}: not a commit; not taken"));
            continue;
        }
        // The note that will be in effect: ours when we have one (the merge
        // keeps it), else theirs.
        let note = match ours.blob_id(id)? {
            Some(blob) => Some(blob),
            None => theirs.blob_id(id)?,
        };
        if let Some(problem) = note_problem(repo, theirs, ours, id, note, &parsed.thread, parsed.turn, &local)
        {
            report.refused.push(format!("{local}: {problem}; not taken"));
            continue;
        }
        threads.entry(parsed.thread).or_default().push(Remote {
            turn: parsed.turn,
            commit: id,
            their_note: theirs.blob_id(id)?,
        });
    }
    Ok(threads)
}

/// Leave out of `turns` (and refuse in `report`) those too far above the
/// thread's `latest` turn here, or above 2^31.
fn refuse_far_turns(thread: &ThreadId, turns: &mut Vec<Remote>, latest: Option<u64>, report: &mut Report) {
    let limit = (latest.unwrap_or(0) + MAX_FETCHED_TURN_GAP).min(MAX_FETCHED_TURN);
    turns.retain(|t| {
        let ok = t.turn <= limit;
        if !ok {
            report.refused.push(format!(
                "{}: turn {} is more than {MAX_FETCHED_TURN_GAP} above the thread's latest turn here \
                 ({}), or above 2^31; not taken",
                thread.checkpoint_ref(t.turn),
                t.turn,
                latest.map_or_else(|| "none".to_owned(), |l| l.to_string())
            ));
        }
        ok
    });
}

/// Why the remote's `turns` do not fast-forward the local thread (`mine`:
/// its turns, the `latest` of them, and the first turn the local log
/// removed, `first_gone`), one reason per turn; empty when they do.
fn differences(
    turns: &[Remote],
    mine: &BTreeMap<u64, ObjectId>,
    (latest, first_gone): (u64, Option<u64>),
    ours: &mut NotesReader<'_>,
) -> Vec<String> {
    let continues_gone = |t: &Remote| first_gone.is_some_and(|g| g < t.turn);
    let mut why = Vec::new();
    for t in turns {
        let problem = match mine.get(&t.turn) {
            Some(c) if *c != t.commit => Some(format!("turn {} is another commit there", t.turn)),
            Some(c)
                if t.their_note
                    .is_some_and(|n| Some(n) != ours.blob_id(*c).ok().flatten()) =>
            {
                Some(format!("turn {} has another note there", t.turn))
            }
            Some(_) => None,
            None if t.turn <= latest => {
                Some(format!("turn {} is inserted below the latest turn here", t.turn))
            }
            None if continues_gone(t) => Some(format!(
                "turn {} continues turns removed here (see `git t3 op log`)",
                t.turn
            )),
            None => None,
        };
        why.extend(problem);
    }
    why
}

/// Remove into `updates` the refs an earlier fetch from `remote` kept apart
/// (of the thread `scope`, else of every thread) whose thread this fetch
/// did not keep apart again (`kept`).
fn drop_kept_apart(
    repo: &gix::Repository,
    (remote, scope): (&str, Option<&ThreadId>),
    kept: &HashSet<ThreadId>,
    updates: &mut Vec<RefUpdate>,
) -> Result<()> {
    let component = crate::model::thread::remote_component(remote);
    let prefix = scope.map_or_else(
        || format!("{}{component}/", crate::model::thread::REMOTES_PREFIX),
        |t| t.remote_prefix(remote),
    );
    let base = format!("{}{component}/", crate::model::thread::REMOTES_PREFIX);
    for r in repo::list_refs(repo, &prefix)? {
        let Ok(name) = r.name.to_str() else { continue };
        let thread = name
            .strip_prefix(&base)
            .and_then(|rest| rest.split('/').next())
            .and_then(ThreadId::from_encoded);
        if thread.is_none_or(|t| !kept.contains(&t)) {
            updates.push(RefUpdate {
                name: name.to_owned(),
                new: None,
                expect: Expect::Any,
            });
        }
    }
    Ok(())
}

/// Keep the remote's turns `apart` of `thread` under
/// `refs/t3/remotes/<remote>/`, replacing what an earlier fetch kept there,
/// and report the thread as diverged because of `why`.
fn keep_apart(
    repo: &gix::Repository,
    remote: &str,
    thread: &ThreadId,
    apart: &[&Remote],
    why: &str,
    updates: &mut Vec<RefUpdate>,
    report: &mut Report,
) -> Result<()> {
    let prefix = thread.remote_prefix(remote);
    for old in repo::list_refs(repo, &prefix)? {
        if let Ok(name) = old.name.to_str()
            && !apart.iter().any(|t| name == format!("{prefix}{}", t.turn))
        {
            updates.push(RefUpdate {
                name: name.to_owned(),
                new: None,
                expect: Expect::Any,
            });
        }
    }
    for t in apart {
        updates.push(RefUpdate {
            name: format!("{prefix}{}", t.turn),
            new: Some(t.commit),
            expect: Expect::Any,
        });
    }
    report.diverged.push(format!(
        "thread '{thread}': {why}; the local thread is kept, {} turn(s) of {remote}'s are under {prefix}",
        apart.len()
    ));
    Ok(())
}

/// Create the local ref of turn `t` of `thread` (it does not exist).
fn take(thread: &ThreadId, t: &Remote, op: &mut Op, updates: &mut Vec<RefUpdate>, report: &mut Report) {
    let name = thread.checkpoint_ref(t.turn);
    op.refs.push(RefChange {
        reference: name.clone(),
        old: None,
        new: Some(t.commit.into()),
    });
    updates.push(RefUpdate {
        name: name.clone(),
        new: Some(t.commit),
        expect: Expect::Absent,
    });
    report.refs_changed.push(name);
}

/// Why `verify` would reject commit `id` as turn `turn` of `thread` at
/// `name`, given its note blob `note`; `None` when it would not.
#[allow(clippy::too_many_arguments)]
fn note_problem(
    repo: &gix::Repository,
    theirs: &mut NotesReader<'_>,
    ours: &mut NotesReader<'_>,
    id: ObjectId,
    note: Option<ObjectId>,
    thread: &ThreadId,
    turn: u64,
    name: &str,
) -> Option<String> {
    let data = match ours.get(id) {
        Ok(Some(d)) => d,
        Ok(None) => match theirs.get(id) {
            Ok(Some(d)) => d,
            Ok(None) if note.is_none() && repo::is_t3code_commit(repo, id) => return None,
            Ok(None) => return Some("it has no note".into()),
            Err(e) => return Some(e.to_string()),
        },
        Err(e) => return Some(e.to_string()),
    };
    match Note::parse(&data) {
        Err(e) => Some(format!("its note does not parse: {e}")),
        Ok(n) if n.thread != thread.as_str() || n.turn != turn || n.reference != name => Some(format!(
            "its note describes turn {} of thread '{}'",
            n.turn,
            n.thread
                .chars()
                .filter(|c| !c.is_control())
                .take(80)
                .collect::<String>()
        )),
        Ok(_) => None,
    }
}
