//! Threads as a whole: their refs grouped, ids resolved from a prefix, the worktree they belong to, the list of them.

use super::*;

/// One thread in the overview of all threads.
#[derive(Debug, Clone, Serialize)]
pub struct ThreadSummary {
    /// The thread id.
    pub thread: String,
    /// How many checkpoints it has.
    pub turns: usize,
    /// Its highest turn.
    pub latest: u64,
    /// When its latest checkpoint was written, if its note says.
    pub updated_at: Option<String>,
    /// What it is about: the title of its first titled turn (turn 1's
    /// prompt), else its latest turn's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Who drives it (its baseline's `agent`, else its latest turn's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The worktree it belongs to (its baseline's `worktree`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worktree: Option<String>,
    /// The branch its latest checkpoint was taken on (`""`: detached).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Whether it is this worktree's current thread (see [`current_thread`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub current: bool,
    /// The worktree its latest checkpoint was captured in.
    #[serde(skip)]
    pub latest_worktree: Option<String>,
}

/// Every thread's checkpoint refs, by thread id.
pub(super) fn refs_by_thread(
    repo: &gix::Repository,
) -> Result<std::collections::BTreeMap<ThreadId, Vec<TurnRef>>> {
    let mut by_thread: std::collections::BTreeMap<ThreadId, Vec<TurnRef>> = Default::default();
    for r in repo::list_refs(repo, CHECKPOINTS_PREFIX)? {
        let Ok(name) = r.name.to_str() else { continue };
        let (Ok(parsed), Some(commit)) = (
            parse_checkpoint_ref(name),
            r.target.filter(|id| is_commit(repo, *id)),
        ) else {
            continue;
        };
        by_thread.entry(parsed.thread).or_default().push(TurnRef {
            turn: parsed.turn,
            commit,
        });
    }
    Ok(by_thread)
}

/// The thread `given` names: itself when it has checkpoints, else the one
/// thread whose id starts with it (like git's abbreviated object ids).
/// An id that matches nothing is returned as given, for the command to
/// report; one that abbreviates several threads is refused with their ids.
pub fn resolve_thread(repo: &gix::Repository, given: ThreadId) -> Result<ThreadId> {
    // The common case, an exact id with its baseline, is one ref lookup;
    // else only that thread's refs are listed.
    if turn_ref(repo, &given, 0)?.is_some() || !thread_refs(repo, &given)?.is_empty() {
        return Ok(given);
    }
    let threads = refs_by_thread(repo)?;
    let mut matching = threads
        .into_keys()
        .filter(|t| t.as_str().starts_with(given.as_str()));
    match (matching.next(), matching.next()) {
        (Some(only), None) => Ok(only),
        (None, _) => Ok(given),
        (Some(first), Some(second)) => {
            let mut candidates = vec![first.to_string(), second.to_string()];
            candidates.extend(matching.map(|t| t.to_string()));
            Err(Error::AmbiguousThread {
                prefix: given.to_string(),
                candidates,
            })
        }
    }
}

/// The worktree `thread` belongs to: the one named by the note of its
/// first checkpoint (the baseline), else of its latest (`None`: neither
/// names one, the thread belongs everywhere). `refs` are its refs.
pub fn bound_worktree(
    repo: &gix::Repository,
    notes: &mut NotesReader<'_>,
    thread: &ThreadId,
    refs: &[TurnRef],
) -> Option<String> {
    // The lowest and the highest checkpoint, found from each end (refs at
    // anything but a commit are passed over: `refs` may hold them).
    let first = refs.iter().find(|t| super::is_commit(repo, t.commit));
    let last = refs.iter().rev().find(|t| super::is_commit(repo, t.commit));
    [first, last]
        .into_iter()
        .flatten()
        .filter_map(|t| load(repo, notes, thread, *t).ok())
        .find_map(|cp| cp.note.worktree)
}

/// Whether `bound` (a worktree path or git dir from a note) is the
/// worktree `repo` works in.
pub fn is_here(repo: &gix::Repository, bound: &str) -> bool {
    let canonical = repo::canonical;
    let bound = canonical(std::path::Path::new(bound));
    repo.workdir().is_some_and(|w| canonical(w) == bound) || canonical(repo.git_dir()) == bound
}

/// Refuse, naming the right worktree, when `thread` belongs to another
/// worktree than the one `repo` works in (DESIGN: Worktrees); `force`
/// skips the check. `what` names the command for the message.
pub fn require_bound_here(repo: &gix::Repository, thread: &ThreadId, what: &str, force: bool) -> Result<()> {
    if force {
        return Ok(());
    }
    let refs = thread_refs(repo, thread)?;
    let mut notes = NotesReader::open(repo)?;
    let Some(bound) = bound_worktree(repo, &mut notes, thread, &refs) else {
        return Ok(());
    };
    if is_here(repo, &bound) {
        return Ok(());
    }
    let here = repo::workdir(repo)?;
    Err(Error::Refused(format!(
        "thread '{thread}' belongs to the worktree {bound} (its baseline was taken there), not to {}: \
         run `git t3 {what}` there, or pass --force to {what} here anyway",
        here.display()
    )))
}

/// The refs a thread has beside its checkpoints: a revert's journal, the
/// undo slot of older versions, the pending prompt of an agent hook.
pub fn side_refs(thread: &ThreadId) -> [String; 3] {
    [
        thread.revert_journal_ref(),
        thread.undo_ref(),
        crate::prompts::prompts_ref(thread),
    ]
}

/// Every thread's checkpoint refs, sorted by thread and turn.
pub fn all_thread_refs(repo: &gix::Repository) -> Result<Vec<(ThreadId, Vec<TurnRef>)>> {
    Ok(refs_by_thread(repo)?
        .into_iter()
        .map(|(thread, mut turns)| {
            turns.sort_by_key(|t| t.turn);
            (thread, turns)
        })
        .collect())
}

/// Every thread's id and how many checkpoints it has, sorted by id (no
/// note is read: quick enough for shell completion).
pub fn thread_ids(repo: &gix::Repository) -> Result<Vec<(ThreadId, usize)>> {
    Ok(refs_by_thread(repo)?
        .into_iter()
        .map(|(thread, turns)| (thread, turns.len()))
        .collect())
}

/// Every thread with checkpoints, newest first (by the time of its latest
/// checkpoint; then by id). Reads at most three notes per thread: the
/// first, the first after the baseline, and the latest.
pub fn list_threads(repo: &gix::Repository) -> Result<Vec<ThreadSummary>> {
    let by_thread = refs_by_thread(repo)?;
    let mut notes = NotesReader::open(repo)?;
    let mut out = Vec::with_capacity(by_thread.len());
    for (thread, mut turns) in by_thread {
        turns.sort_by_key(|t| t.turn);
        let (Some(first), Some(last)) = (turns.first().copied(), turns.last().copied()) else {
            continue;
        };
        let mut note_of = |t: TurnRef| load(repo, &mut notes, &thread, t).ok().map(|c| c.note);
        let latest = note_of(last);
        let base = if first.turn == last.turn {
            latest.clone()
        } else {
            note_of(first)
        };
        let titled = turns
            .get(1)
            .copied()
            .filter(|t| t.turn != last.turn)
            .and_then(&mut note_of);
        let pick = |f: &dyn Fn(&crate::model::note::Note) -> Option<String>,
                    notes: [&Option<crate::model::note::Note>; 2]| {
            notes.into_iter().flatten().find_map(f)
        };
        out.push(ThreadSummary {
            thread: thread.to_string(),
            turns: turns.len(),
            latest: last.turn,
            updated_at: latest.as_ref().map(|n| n.completed_at.clone()),
            title: pick(&|n| n.title.clone(), [&titled, &latest]),
            agent: pick(&|n| n.agent.clone(), [&base, &latest]),
            worktree: pick(&|n| n.worktree.clone(), [&base, &latest]),
            branch: pick(&|n| n.branch.clone(), [&latest, &base]),
            current: false,
            // A placeholder records no worktree: the thread's own, then.
            latest_worktree: pick(&|n| n.worktree.clone(), [&latest, &base]),
        });
    }
    let when = |t: &ThreadSummary| {
        t.updated_at
            .as_deref()
            .and_then(|u| u.parse::<jiff::Timestamp>().ok())
    };
    out.sort_by(|a, b| when(b).cmp(&when(a)).then_with(|| a.thread.cmp(&b.thread)));
    let here = repo
        .workdir()
        .map(|w| repo::canonical(w).to_string_lossy().into_owned());
    // The newest captured here; of several in the same second (a note's
    // time has seconds only), the one this worktree captured last.
    let newest = out
        .iter()
        .find(|t| here.is_some() && t.latest_worktree == here)
        .map(when);
    if let Some(newest) = newest {
        let last = last_captured_here(repo);
        let tied = |t: &ThreadSummary| here.is_some() && t.latest_worktree == here && when(t) == newest;
        let pick = out
            .iter()
            .position(|t| tied(t) && last.as_deref() == Some(t.thread.as_str()))
            .or_else(|| out.iter().position(tied));
        if let Some(i) = pick
            && let Some(t) = out.get_mut(i)
        {
            t.current = true;
        }
    }
    Ok(out)
}

/// The file in this worktree's git dir naming the thread it captured last.
const LAST_CAPTURED: &str = "last-captured-thread";

/// Remember that this worktree captured `thread` last: what tells the
/// current thread among threads captured in the same second. A cache: a
/// failure to write it is ignored (the notes' times still decide).
pub fn captured_here(repo: &gix::Repository, thread: &ThreadId) {
    // Most captures are of the thread captured last: a read, no write.
    if last_captured_here(repo).as_deref() == Some(thread.as_str()) {
        return;
    }
    let dir = repo::t3_worktree_dir(repo);
    if std::fs::create_dir_all(&dir).is_ok() {
        let _ = crate::atomic::write(
            &dir.join(LAST_CAPTURED),
            thread.as_str().as_bytes(),
            None,
            crate::atomic::Durability::Cache,
        );
    }
}

/// The thread this worktree captured last, if it says (at most 1 KiB read).
fn last_captured_here(repo: &gix::Repository) -> Option<String> {
    use std::io::Read as _;
    let file = std::fs::File::open(repo::t3_worktree_dir(repo).join(LAST_CAPTURED)).ok()?;
    let mut text = String::new();
    file.take(1024).read_to_string(&mut text).ok()?;
    Some(text)
}

/// This worktree's current thread: the thread of the newest checkpoint
/// captured in it (by its latest checkpoint's time), if any.
pub fn current_thread(repo: &gix::Repository) -> Result<Option<ThreadSummary>> {
    Ok(list_threads(repo)?.into_iter().find(|t| t.current))
}

/// Every checkpoint of `thread` by turn, and the turns whose metadata
/// could not be read (left out, each named by its error).
pub fn load_thread(repo: &gix::Repository, thread: &ThreadId) -> Result<(Vec<Checkpoint>, Vec<String>)> {
    let refs = thread_refs(repo, thread)?;
    if refs.is_empty() {
        return Err(Error::UnknownThread {
            thread: thread.to_string(),
        });
    }
    let mut notes = NotesReader::open(repo)?;
    let mut turns = Vec::with_capacity(refs.len());
    let mut problems = Vec::new();
    for t in refs {
        match load(repo, &mut notes, thread, t) {
            Ok(cp) => turns.push(cp),
            Err(e @ Error::BadMetadata { .. }) => problems.push(e.to_string()),
            Err(e) => return Err(e),
        }
    }
    Ok((turns, problems))
}
