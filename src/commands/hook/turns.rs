//! A prompt submitted and a turn ended: the pending prompt, the capture it ends in, and a repeated end.

use super::*;

/// A prompt was submitted.
pub(super) fn submitted(
    lock: &Locked<'_>,
    agent: Agent,
    thread: &ThreadId,
    prompt: PromptInfo,
) -> Result<(Did, u64)> {
    let repo = lock.repo();
    let (mut turn, created) = baseline_if_new(lock, agent, thread)?;
    let old = prompts::read(repo, thread)?;
    let mut new = old.clone();
    new.pending = None;
    let rec = Recorder::new(repo);
    let mut action = if created { Did::Baseline } else { Did::Prompt };
    let mut pre_turn_tree = None;
    // The snapshot's cache is written in the background while the prompt
    // is recorded, and kept once the prompt's objects and the snapshot's
    // are flushed, in one wave (a capture below keeps it first: it reads
    // the cache).
    let mut writing_cache = None;
    let keep_cache = |s: Option<crate::snapshot::Snapshot>| s.map_or(Ok(()), |s| s.keep_cache(&rec));
    if !created {
        let (top, base) = latest_and_base(repo, thread)?;
        let snapshot = crate::snapshot::snapshot_beside(lock, &rec, base)?;
        let tree = snapshot.tree;
        writing_cache = Some(snapshot);
        let mut changed = base != Some(tree);
        // The turn of a prompt still pending never ended (interrupted, or
        // its end hook failed): capture it now, if anything changed since.
        if let Some(stale) = old.fresh(top).cloned() {
            let start = stale.pre_turn_tree().or(base);
            if start != Some(tree) {
                keep_cache(writing_cache.take())?;
                let pre = stale.pre_turn_tree();
                let out = record::capture(
                    lock,
                    record::Options {
                        state: Some("interrupted".into()),
                        status: Some(Status::from_hook_state("interrupted")),
                        ..from_pending(thread, agent, &stale, None)
                    },
                )?;
                turn = out.checkpoint.note.turn;
                keep(&mut new, turn, pre);
                action = Did::Capture;
                changed = false;
            }
        }
        // A background task (a subagent) finished since the last turn:
        // what changed since is its work, a turn of its own.
        if changed && let Some(task) = prompt.background.as_deref() {
            keep_cache(writing_cache.take())?;
            let out = record::capture(
                lock,
                record::Options {
                    agent: Some(agent.name().to_owned()),
                    title: Some(format!("{task} (background agent's edits)")),
                    ..record::Options::new(thread.clone())
                },
            )?;
            turn = out.checkpoint.note.turn;
            keep(&mut new, turn, None);
            action = Did::Capture;
            changed = false;
        }
        if changed {
            pre_turn_tree = Some(tree);
        }
    }
    let (base_turn, base) = latest(repo, thread)?
        .ok_or_else(|| Error::Internal(format!("thread '{thread}' has no checkpoint after its baseline")))?;
    new.pending = Some(Pending {
        agent: agent.name().to_owned(),
        base_turn,
        base: base.to_string(),
        submitted_at: crate::model::note::now_rfc3339(),
        title: prompt.title,
        prompt_id: prompt.prompt_id,
        turn_id: prompt.turn_id,
        transcript: prompt.transcript,
        pre_turn_tree: pre_turn_tree.map(|t| t.to_string()),
    });
    prompts::write(lock, &rec, thread, &old, &new)?;
    keep_cache(writing_cache)?;
    Ok((action, turn))
}

/// Capture options for the next turn of `thread` from a pending prompt.
pub(super) fn from_pending(
    thread: &ThreadId,
    agent: Agent,
    p: &Pending,
    turn_id: Option<String>,
) -> record::Options {
    record::Options {
        agent: Some(agent.name().to_owned()),
        title: p.title.clone(),
        prompt_id: p.prompt_id.clone(),
        turn_id: p.turn_id.clone().or(turn_id),
        transcript: p.transcript.clone(),
        pre_turn_tree: p.pre_turn_tree(),
        ..record::Options::new(thread.clone())
    }
}

/// Keep `pre` (turn `turn`'s pre-turn tree) reachable, or forget what was
/// kept for that turn number.
pub(super) fn keep(p: &mut Prompts, turn: u64, pre: Option<ObjectId>) {
    match pre {
        Some(tree) => p.kept.insert(turn, tree),
        None => p.kept.remove(&turn),
    };
}

/// A turn ended: what was done, the turn, and the capture's notices.
pub(super) fn ended(
    lock: &Locked<'_>,
    agent: Agent,
    thread: &ThreadId,
    end: TurnEnd,
) -> Result<(Did, u64, Vec<String>)> {
    let repo = lock.repo();
    // Objects looked up from the ends only (see `store::numbered_refs`).
    let refs = store::numbered_refs(thread, &store::thread_ref_entries(repo, thread)?);
    let top = store::latest_of(repo, &refs);
    if top.is_some() {
        require_here(repo, thread, &refs)?;
    }
    let old = prompts::read(repo, thread)?;
    let mut new = old.clone();
    new.pending = None;
    let latest = top.map(|t| (t.turn, t.commit));
    let state = Some(end.state.to_owned());
    let status = Some(Status::from_hook_state(end.state));
    let (opts, action) = match old.fresh(latest) {
        Some(p) => (
            record::Options {
                state,
                status,
                ..from_pending(thread, agent, p, end.turn_id.clone())
            },
            Did::Capture,
        ),
        None => match again(repo, agent, thread, top, &end)? {
            Some(cp) => {
                let note = cp.note;
                (
                    record::Options {
                        turn: Some(note.turn),
                        replace: true,
                        state,
                        status,
                        agent: Some(agent.name().to_owned()),
                        turn_id: note.turn_id.or(end.turn_id),
                        title: note.title,
                        prompt_id: note.prompt_id,
                        transcript: note.transcript,
                        pre_turn_tree: note
                            .pre_turn_tree
                            .and_then(|t| ObjectId::from_hex(t.as_bytes()).ok()),
                        ..record::Options::new(thread.clone())
                    },
                    Did::Recapture,
                )
            }
            None => (
                record::Options {
                    state,
                    status,
                    agent: Some(agent.name().to_owned()),
                    turn_id: end.turn_id,
                    prompt_id: end.prompt_id,
                    title: end.title,
                    ..record::Options::new(thread.clone())
                },
                Did::Capture,
            ),
        },
    };
    let pre = opts.pre_turn_tree;
    let recapture = opts.replace;
    // The prompts ref moves with the turn's ref, in one transaction.
    let out = record::capture_then(lock, opts, |rec, turn| {
        if !recapture {
            keep(&mut new, turn, pre);
        }
        Ok(prompts::update(rec, thread, &old, &new)?.into_iter().collect())
    })?;
    Ok((action, out.checkpoint.note.turn, out.scope_notices))
}

/// The latest turn, when this end repeats its end (the agent went on after
/// it: `again`; or the same prompt or turn id) and the same agent wrote it.
pub(super) fn again(
    repo: &gix::Repository,
    agent: Agent,
    thread: &ThreadId,
    latest: Option<store::TurnRef>,
    end: &TurnEnd,
) -> Result<Option<store::Checkpoint>> {
    let Some(latest) = latest.filter(|t| t.turn > 0) else {
        return Ok(None);
    };
    let mut notes = NotesReader::open(repo)?;
    let Ok(cp) = store::load(repo, &mut notes, thread, latest) else {
        return Ok(None);
    };
    let note = &cp.note;
    let same = |ours: &Option<String>, theirs: &Option<String>| ours.is_some() && ours == theirs;
    // A failure without ids (an older Claude Code's StopFailure) that comes
    // after the session's end captured its turn as unended: that turn, now
    // known to have failed.
    let unended = end.state == "failed"
        && end.prompt_id.is_none()
        && end.turn_id.is_none()
        && matches!(note.status, Status::Interrupted | Status::Error);
    let repeated =
        end.again || unended || same(&end.prompt_id, &note.prompt_id) || same(&end.turn_id, &note.turn_id);
    Ok((repeated && !note.placeholder && note.agent.as_deref() == Some(agent.name())).then_some(cp))
}
