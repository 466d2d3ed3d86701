//! `git t3 hook <agent>`: the entry point for agent hooks (DESIGN: Agent
//! hooks). [`payload`] turns each agent's payload into one agent-neutral
//! event; this module acts on it:
//!
//! - a session start: a baseline if the thread has none;
//! - a prompt: a baseline if the thread has none; then what the next
//!   turn's note will say (title, prompt id, turn id, transcript) and, when
//!   the worktree differs from the latest checkpoint (the user edited
//!   between turns), a snapshot of it as the next turn's `pre_turn_tree`,
//!   all kept under `refs/t3/prompts/<b64>` ([`crate::prompts`]). A prompt
//!   still pending from a turn that never ended (interrupted: no Stop came)
//!   is captured first, as an interrupted turn, when the worktree changed
//!   since it;
//! - a turn end: a capture of the next turn with what its prompt said; an
//!   end that repeats one already captured (`stop_hook_active`, or the same
//!   prompt or turn id as the latest turn) captures that turn again
//!   (replace), keeping its title and pre-turn tree.
//!
//! A hook never blocks or breaks the agent: whatever happens it exits 0,
//! and what it prints is what the agent understands ([`Reply`]).

pub mod payload;

use std::path::{Path, PathBuf};

use gix::ObjectId;
use serde::Serialize;

use crate::commands::{Context, Settings};
use crate::error::{Error, Result};
use crate::model::note::Status;
use crate::model::thread::ThreadId;
use crate::prompts::{self, Pending, Prompts};
use crate::record;
use crate::repo::{self, Locked, NotesReader, Recorder};
use crate::store;

use payload::{Action, Event, PromptInfo, TurnEnd};
mod turns;
use turns::*;

pub use payload::{Agent, HookEnv};

/// How the agent reads a hook's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reply {
    /// Claude Code, Codex, opencode: nothing on stdout on success (Claude
    /// Code and Codex add a prompt hook's plain stdout to the model's
    /// context); on failure one JSON object `{"systemMessage": "git t3: …"}`,
    /// shown to the user.
    SystemMessage,
    /// Cursor, which wants JSON on every path: `{"continue": true}` for a
    /// prompt (with `user_message` on failure) …
    CursorPrompt,
    /// … and `{}` for anything else.
    CursorOther,
    /// An agent we do not know: nothing on stdout, a failure on stderr.
    Stderr,
}

/// What a hook did to the thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Did {
    /// Wrote the thread's baseline (turn 0).
    Baseline,
    /// Recorded the prompt for the next capture.
    Prompt,
    /// Captured a turn.
    Capture,
    /// Captured the same turn again.
    Recapture,
    /// Nothing.
    Nothing,
    /// Handed the work to a detached run of itself (it reports nothing back).
    Detached,
}

/// What a hook did.
#[derive(Debug, Serialize)]
pub struct HookOutcome {
    /// The agent.
    pub agent: String,
    /// The event handled.
    pub event: String,
    /// What was done.
    pub action: Did,
    /// The thread, when one was touched.
    pub thread: Option<String>,
    /// The turn written or found.
    pub turn: Option<u64>,
    /// What the capture had to say (files skipped for their size, paths
    /// that look like secrets): shown to the user like a failure's message.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
}

/// A hook's outcome, or why it failed, and how to answer the agent.
#[derive(Debug, Serialize)]
pub struct HookReport {
    /// How the agent reads the answer.
    pub reply: Reply,
    /// What was done, or the one-line message saying why not.
    pub result: std::result::Result<HookOutcome, String>,
}

impl HookReport {
    /// The failure message, if the hook failed.
    pub fn error(&self) -> Option<&String> {
        self.result.as_ref().err()
    }
}

/// What a hook is given.
#[derive(Debug)]
pub struct Input<'a> {
    /// The agent's name on the command line.
    pub agent: &'a str,
    /// The payload (stdin or the last argument), or why it could not be read.
    pub payload: Result<Vec<u8>>,
    /// The directory to work in when the payload names none (`-C`, else `.`).
    pub default_dir: &'a Path,
    /// The environment variables hooks read.
    pub env: &'a HookEnv,
    /// A program to run too, with the payload as its last argument, not
    /// waited for (`--then`: the notifier Codex ran before git t3's).
    pub then: Option<&'a [String]>,
}

/// Handle one hook call. Never fails: a failure is in the report. The
/// caller sets a lock timeout that fits the agent's hook limit
/// ([`crate::repo::lock::HOOK_TIMEOUT`]).
pub fn run(input: Input<'_>, settings: &Settings) -> HookReport {
    let Input {
        agent: name,
        payload,
        default_dir,
        env,
        then,
    } = input;
    let Some(agent) = Agent::parse(name) else {
        let known: Vec<&str> = Agent::ALL.iter().map(|a| a.name()).collect();
        return HookReport {
            reply: Reply::Stderr,
            result: Err(format!("hook: unknown agent '{name}': use {}", known.join(", "))),
        };
    };
    let chained = match (then, &payload) {
        (Some(cmd), Ok(p)) => chain(cmd, p).err(),
        (Some(cmd), Err(_)) => chain(cmd, b"").err(),
        (None, _) => None,
    };
    let value = payload.and_then(|p| payload::parse_json(agent, &p));
    let reply = match agent {
        Agent::Cursor => match value.as_ref().map(|v| payload::event_name(agent, v)) {
            Ok(n) if n == "stop" => Reply::CursorOther,
            _ => Reply::CursorPrompt,
        },
        _ => Reply::SystemMessage,
    };
    let result = value
        .and_then(|v| payload::event(agent, &v, env))
        .and_then(|ev| perform(agent, ev, default_dir, settings))
        .map_err(|e| format!("hook {}: {}", agent.name(), crate::error::one_line(&e)));
    let result = match (result, chained) {
        (r, None) => r,
        (Ok(_), Some(c)) => Err(format!("hook {}: {}", agent.name(), crate::error::one_line(&c))),
        (Err(m), Some(c)) => Err(format!("{m}; and {}", crate::error::one_line(&c))),
    };
    HookReport { reply, result }
}

/// Start `cmd` with `payload` as its last argument, stdin, stdout and
/// stderr closed, and do not wait for it (like Codex starts its notifier).
pub fn chain(cmd: &[String], payload: &[u8]) -> Result<()> {
    let Some((program, args)) = cmd.split_first() else {
        return Err(Error::usage("--then names no program"));
    };
    let mut c = std::process::Command::new(program);
    c.args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    if !payload.is_empty() {
        use std::os::unix::ffi::OsStrExt as _;
        c.arg(std::ffi::OsStr::from_bytes(payload));
    }
    c.spawn().map(drop).map_err(|e| Error::Io {
        context: format!("could not start the chained program '{program}'"),
        path: None,
        source: e,
    })
}

/// Open the first of `dirs` that is a repository with a worktree (relative
/// ones from `default_dir`); none given: `default_dir`. When none is, the
/// first one's error.
fn open(dirs: &[PathBuf], default_dir: &Path, settings: &Settings) -> Result<Context> {
    let candidates: Vec<PathBuf> = if dirs.is_empty() {
        vec![default_dir.to_owned()]
    } else {
        dirs.iter().map(|d| default_dir.join(d)).collect()
    };
    let mut first_error = None;
    for dir in candidates {
        let opened = Context::open(&dir, settings.clone()).and_then(|ctx| {
            repo::workdir(&ctx.repo)?;
            Ok(ctx)
        });
        match opened {
            Ok(ctx) => return Ok(ctx),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    Err(first_error.unwrap_or_else(|| Error::Internal("no directory to open".into())))
}

/// [`open`], or `None` when no directory is in a repository with a worktree:
/// a hook installed for the user runs in every folder the agent is started
/// in, and outside a repository it has nothing to do and nothing to say.
fn open_here(dirs: &[PathBuf], default_dir: &Path, settings: &Settings) -> Result<Option<Context>> {
    match open(dirs, default_dir, settings) {
        Ok(ctx) => Ok(Some(ctx)),
        Err(e) if e.kind() == crate::error::ErrorKind::NotARepository => Ok(None),
        Err(e) => Err(e),
    }
}

fn perform(agent: Agent, ev: Event, default_dir: &Path, settings: &Settings) -> Result<HookOutcome> {
    let Event { name, dirs, action } = ev;
    let outcome = |action: Did, thread: Option<&ThreadId>, turn: Option<u64>| HookOutcome {
        agent: agent.name().to_owned(),
        event: name.clone(),
        action,
        thread: thread.map(ToString::to_string),
        turn,
        notices: Vec::new(),
    };
    match action {
        Action::Nothing => Ok(outcome(Did::Nothing, None, None)),
        Action::Start { thread } => {
            let Some(ctx) = open_here(&dirs, default_dir, settings)? else {
                return Ok(outcome(Did::Nothing, None, None));
            };
            let lock = ctx.lock("hook")?;
            let (turn, created) = baseline_if_new(&lock, agent, &thread)?;
            Ok(outcome(
                if created { Did::Baseline } else { Did::Nothing },
                Some(&thread),
                Some(turn),
            ))
        }
        Action::Prompt { thread, prompt } => {
            let Some(ctx) = open_here(&dirs, default_dir, settings)? else {
                return Ok(outcome(Did::Nothing, None, None));
            };
            let lock = ctx.lock("hook")?;
            let (action, turn) = submitted(&lock, agent, &thread, prompt)?;
            Ok(outcome(action, Some(&thread), Some(turn)))
        }
        Action::End { thread, end } => {
            let Some(ctx) = open_here(&dirs, default_dir, settings)? else {
                return Ok(outcome(Did::Nothing, None, None));
            };
            let lock = ctx.lock("hook")?;
            // An interrupt ends the turn that is running, if one is: never
            // one already captured, nor a new empty one.
            if end.state == "interrupted" && !pending_fresh(lock.repo(), &thread)? {
                return Ok(outcome(Did::Nothing, Some(&thread), None));
            }
            let (action, turn, notices) = ended(&lock, agent, &thread, end)?;
            Ok(HookOutcome {
                notices,
                ..outcome(action, Some(&thread), Some(turn))
            })
        }
        Action::Close { thread, transcript } => {
            let Some(ctx) = open_here(&dirs, default_dir, settings)? else {
                return Ok(outcome(Did::Nothing, None, None));
            };
            let lock = ctx.lock("hook")?;
            Ok(match closed(&lock, agent, &thread, transcript)? {
                Some((action, turn, notices)) => HookOutcome {
                    notices,
                    ..outcome(action, Some(&thread), Some(turn))
                },
                None => outcome(Did::Nothing, Some(&thread), None),
            })
        }
    }
}

/// Whether a prompt of `thread` is pending whose turn has not ended.
fn pending_fresh(repo: &gix::Repository, thread: &ThreadId) -> Result<bool> {
    Ok(prompts::read(repo, thread)?
        .fresh(latest(repo, thread)?)
        .is_some())
}

/// The session ended: a prompt still pending never got its turn's end;
/// capture that turn as its transcript tells it ended (interrupted, or
/// failed), or do nothing.
fn closed(
    lock: &Locked<'_>,
    agent: Agent,
    thread: &ThreadId,
    transcript: Option<String>,
) -> Result<Option<(Did, u64, Vec<String>)>> {
    let repo = lock.repo();
    let old = prompts::read(repo, thread)?;
    let Some(pending) = old.fresh(latest(repo, thread)?) else {
        return Ok(None);
    };
    let path = pending.transcript.clone().or(transcript);
    let state = crate::provider::outcome::unended_turn_state(
        agent.name(),
        path.as_deref().map(Path::new),
        crate::provider::outcome::Turn {
            prompt_id: pending.prompt_id.as_deref(),
            turn_id: pending.turn_id.as_deref(),
        },
    );
    let end = TurnEnd {
        state,
        again: false,
        prompt_id: None,
        turn_id: None,
        title: None,
    };
    ended(lock, agent, thread, end).map(Some)
}

/// Refuse a thread whose baseline was taken in another worktree (DESIGN:
/// Worktrees): its turns would mix two worktrees.
fn require_here(repo: &gix::Repository, thread: &ThreadId, refs: &[store::TurnRef]) -> Result<()> {
    let mut notes = NotesReader::open(repo)?;
    match store::bound_worktree(repo, &mut notes, thread, refs) {
        Some(bound) if !store::is_here(repo, &bound) => Err(Error::Refused(format!(
            "thread '{thread}' belongs to the worktree {bound} (its baseline was taken there), not to {}: \
             nothing recorded",
            repo::workdir(repo)?.display()
        ))),
        _ => Ok(()),
    }
}

/// Write the baseline of `thread` unless it has a checkpoint: the latest
/// turn and whether it was written now.
fn baseline_if_new(lock: &Locked<'_>, agent: Agent, thread: &ThreadId) -> Result<(u64, bool)> {
    // Objects looked up from the ends only (see `store::numbered_refs`).
    let refs = store::numbered_refs(thread, &store::thread_ref_entries(lock.repo(), thread)?);
    if let Some(latest) = store::latest_of(lock.repo(), &refs) {
        require_here(lock.repo(), thread, &refs)?;
        return Ok((latest.turn, false));
    }
    record::check_provider(agent.name())?;
    let out = record::capture(
        lock,
        record::Options {
            turn: Some(0),
            provider: Some(agent.name().to_owned()),
            agent: Some(agent.name().to_owned()),
            ..record::Options::new(thread.clone())
        },
    )?;
    Ok((out.checkpoint.note.turn, true))
}

/// A turn and its commit.
type Turn = (u64, ObjectId);

/// The latest checkpoint ref of `thread` as (turn, commit).
fn latest(repo: &gix::Repository, thread: &ThreadId) -> Result<Option<Turn>> {
    Ok(store::latest_ref(repo, thread)?.map(|t| (t.turn, t.commit)))
}

/// [`latest`], and the tree a turn after it is counted against: the
/// closest real checkpoint's (`None`: there is none), from one listing.
fn latest_and_base(repo: &gix::Repository, thread: &ThreadId) -> Result<(Option<Turn>, Option<ObjectId>)> {
    // The objects are looked up from the top down only (see
    // `store::numbered_refs`), here and in `real_checkpoint_below`.
    let refs = store::numbered_refs(thread, &store::thread_ref_entries(repo, thread)?);
    let latest = store::latest_of(repo, &refs);
    let next = latest.map_or(0, |t| t.turn.saturating_add(1));
    let mut notes = NotesReader::open(repo)?;
    let base = store::real_checkpoint_below(repo, &mut notes, thread, &refs, next)?.map(|c| c.tree);
    Ok((latest.map(|t| (t.turn, t.commit)), base))
}
