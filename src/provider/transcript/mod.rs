//! The conversation files of the agents git-t3 rolls back itself (Claude
//! Code's session transcript, Codex's rollout), and the one way they are
//! found, read, checked and changed.
//!
//! A transcript path comes from the thread's notes, which may have been
//! fetched from someone else. It is used only when it names, without `.`
//! or `..`, a regular file of the current user directly under the agent's
//! own data directory of the current user (`~/.claude/projects/<project>/<session>.jsonl`,
//! `~/.codex/sessions/…/rollout-…-<session>.jsonl`; `CLAUDE_CONFIG_DIR` and
//! `CODEX_HOME` move them), whose session is the thread, and no directory on
//! the way below the data directory nor the file itself is a symbolic link.
//! A hostile note therefore cannot make git-t3 touch `~/.bashrc`, nor
//! another conversation.
//!
//! A change is planned (the file's bytes before and after) before the
//! revert changes anything, kept as two blobs with the revert's journal and
//! operation log, and applied only while the file still holds the bytes it
//! was planned on: a put-back (`revert --abort`, `--undo`, `op undo`)
//! restores the bytes exactly, and refuses when the agent wrote to the file
//! since, unless `--force` (which keeps what it replaces in the log).

use std::ffi::OsStr;
use std::io::Read as _;
use std::path::{Component, Path, PathBuf};

use gix::ObjectId;

use super::edit::PlanError;
use crate::error::{Error, Result};
use crate::oplog::TranscriptChange;

mod error;
mod file;
pub use error::*;
pub use file::*;

/// The largest transcript read (a long session with images stays far below).
pub const MAX_TRANSCRIPT_BYTES: u64 = 1 << 30;

pub use crate::model::agent::Agent;

/// The agent called `name` when git-t3 rolls its conversation back itself:
/// Claude Code (`~/.claude/projects/<project>/<session>.jsonl`), Codex
/// (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<session>.jsonl`) and
/// opencode (a session in opencode's database, reached through the
/// `opencode` program, [`super::opencode`]); not Cursor.
pub fn rolls_back(name: &str) -> Option<Agent> {
    Agent::parse(name).filter(|a| *a != Agent::Cursor)
}

/// The directories the agents' data directories hang from, read from the
/// environment by the caller.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentHomes {
    /// `HOME`.
    pub home: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR` (Claude Code's `~/.claude`).
    pub claude_config_dir: Option<PathBuf>,
    /// `CODEX_HOME` (Codex's `~/.codex`).
    pub codex_home: Option<PathBuf>,
    /// `PATH`, where the `opencode` program is found.
    pub search_path: Option<std::ffi::OsString>,
}

/// Where an agent keeps its conversations, and how to take one back
/// with the agent itself.
pub trait Conversation {
    /// Where the agent keeps the current user's conversations.
    fn data_root(self, homes: &AgentHomes) -> Option<PathBuf>;
    /// How to take the conversation back with the agent itself.
    fn own_rewind(self) -> &'static str;
    /// Whether `rel` (below the data directory) is where this agent keeps
    /// the conversation of session `thread`.
    fn is_session_file(&self, rel: &[&OsStr], thread: &str) -> bool;
}

impl Conversation for Agent {
    /// Where the agent keeps the current user's conversations.
    fn data_root(self, homes: &AgentHomes) -> Option<PathBuf> {
        let own = |dir: &Option<PathBuf>| dir.clone().filter(|d| d.is_absolute());
        let home = || own(&homes.home);
        match self {
            Agent::ClaudeCode => own(&homes.claude_config_dir)
                .or_else(|| home().map(|h| h.join(".claude")))
                .map(|d| d.join("projects")),
            Agent::Codex => own(&homes.codex_home)
                .or_else(|| home().map(|h| h.join(".codex")))
                .map(|d| d.join("sessions")),
            Agent::Opencode | Agent::Cursor => None,
        }
    }

    /// How to take the conversation back with the agent itself.
    fn own_rewind(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "with /rewind in Claude Code",
            Agent::Codex => "with Codex's own backtrack or /fork",
            Agent::Opencode => "with /undo in opencode",
            Agent::Cursor => "in Cursor",
        }
    }

    /// Whether `rel` (below the data directory) is where this agent keeps
    /// the conversation of session `thread`.
    fn is_session_file(&self, rel: &[&OsStr], thread: &str) -> bool {
        let Some(name) = rel.last().and_then(|n| n.to_str()) else {
            return false;
        };
        match self {
            Agent::ClaudeCode => rel.len() == 2 && name.strip_suffix(".jsonl") == Some(thread),
            Agent::Codex => {
                (1..=8).contains(&rel.len())
                    && name.starts_with("rollout-")
                    && name.ends_with(&format!("-{thread}.jsonl"))
            }
            Agent::Opencode | Agent::Cursor => false,
        }
    }
}

/// What the revert's notes say about one turn.
#[derive(Debug, Clone, Default)]
pub struct TurnInfo {
    /// The turn.
    pub turn: u64,
    /// Its note's `transcript`.
    pub transcript: Option<String>,
    /// Its note's `prompt_id`.
    pub prompt_id: Option<String>,
}

/// A planned change of a transcript.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The agent.
    pub agent: Agent,
    /// The file.
    pub path: PathBuf,
    /// Its bytes now.
    pub before: Vec<u8>,
    /// Its bytes after the rollback.
    pub after: Vec<u8>,
    /// What the change does, for people.
    pub how: String,
    /// Prompts of the conversation it takes back.
    pub prompts: u64,
}

/// Plan the rollback of `thread`'s conversation to turn `target`, from the
/// notes of its turns (`turns`, any order; those above `target` are the
/// ones reverted). `None`: the conversation is already there. Reads the
/// transcript; changes nothing.
pub fn plan(
    agent: Agent,
    homes: &AgentHomes,
    thread: &str,
    turns: &[TurnInfo],
    target: u64,
) -> Result<Option<Planned>, RollbackError> {
    let Some(first) = turns.iter().filter(|t| t.turn > target).min_by_key(|t| t.turn) else {
        return Ok(None);
    };
    let raw = if agent == Agent::Opencode {
        super::opencode::handle(thread)
    } else {
        transcript_of(agent, turns, target)?
    };
    let prompt = first
        .prompt_id
        .as_deref()
        .filter(|p| !p.is_empty())
        .ok_or(RollbackError::NoPromptId {
            agent,
            turn: first.turn,
        })?;
    let at = locate(agent, &raw, thread, homes)?;
    let missing = || RollbackError::Missing {
        agent,
        path: at.path.clone(),
    };
    if !at.exists {
        return Err(missing());
    }
    let before = read(agent, &at)?.ok_or_else(missing)?;
    if agent != Agent::Opencode && !before.is_empty() && !before.ends_with(b"\n") {
        return Err(RollbackError::MidLine { agent, path: at.path });
    }
    let not_found = || RollbackError::PromptNotFound {
        agent,
        prompt: prompt.to_owned(),
        turn: first.turn,
        path: at.path.clone(),
    };
    let format = |problem: String| RollbackError::Format {
        agent,
        path: at.path.clone(),
        problem,
    };
    let edit = match agent {
        Agent::ClaudeCode => super::claude::plan(&before, prompt),
        Agent::Codex => super::codex::plan(&before, prompt, &now_with_millis()),
        Agent::Opencode | Agent::Cursor => super::opencode::plan(&before, prompt),
    };
    let edit = match edit {
        Ok(e) => e,
        Err(PlanError::PromptNotFound) => return Err(not_found()),
        Err(PlanError::Format(p)) => return Err(format(p)),
    };
    if edit.after == before {
        return Ok(None);
    }
    Ok(Some(Planned {
        agent,
        path: at.path,
        before,
        after: edit.after,
        how: format!("from turn {}'s prompt on, {}", first.turn, edit.how),
        prompts: edit.prompts,
    }))
}

/// The transcript the turns above `target` name (they must agree), else
/// the newest one named by a turn at or below it.
fn transcript_of(agent: Agent, turns: &[TurnInfo], target: u64) -> Result<String, RollbackError> {
    let named = |t: &&TurnInfo| t.transcript.as_deref().is_some_and(|p| !p.is_empty());
    let mut above: Vec<&TurnInfo> = turns.iter().filter(|t| t.turn > target).filter(named).collect();
    above.sort_by_key(|t| t.turn);
    let mut found: Option<&str> = None;
    for t in above {
        let p = t.transcript.as_deref().unwrap_or_default();
        match found {
            Some(f) if f != p => {
                return Err(RollbackError::NotesDisagree {
                    agent,
                    first: f.to_owned(),
                    second: p.to_owned(),
                });
            }
            _ => found = Some(p),
        }
    }
    if let Some(f) = found {
        return Ok(f.to_owned());
    }
    turns
        .iter()
        .filter(|t| t.turn <= target)
        .filter(named)
        .max_by_key(|t| t.turn)
        .and_then(|t| t.transcript.clone())
        .ok_or(RollbackError::NoTranscript { agent })
}

fn now_with_millis() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// Record `planned` as blobs through `rec`: the change a journal and an op keep.
pub fn record(rec: &crate::repo::Recorder<'_>, planned: &Planned) -> Result<TranscriptChange> {
    Ok(TranscriptChange {
        agent: planned.agent.name().to_owned(),
        path: planned.path.to_string_lossy().into_owned(),
        before: Some(rec.write_blob(&planned.before)?.into()),
        after: Some(rec.write_blob(&planned.after)?.into()),
        how: planned.how.clone(),
    })
}

/// Where a recorded change stands against the file as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// The file holds what the change replaces.
    Before,
    /// The file holds what the change writes: it is done.
    After,
    /// The file holds something else (written since); its blob id, or
    /// `None` when the file is absent.
    Other(Option<ObjectId>),
}

/// A recorded change checked against the file: where it is, where it stands,
/// and what the file holds now.
#[derive(Debug)]
pub struct Checked {
    /// The agent.
    pub agent: Agent,
    /// The file.
    pub at: Located,
    /// Where the change stands.
    pub state: State,
    /// The file's bytes now (`None`: absent).
    pub current: Option<Vec<u8>>,
}

/// Check `change` (of `thread`) against the file: its path is checked as
/// a note's would be, then its bytes are compared with the change's.
pub fn check(
    repo: &gix::Repository,
    change: &TranscriptChange,
    thread: &str,
    homes: &AgentHomes,
) -> Result<Checked> {
    let agent = rolls_back(&change.agent).ok_or_else(|| Error::BadMetadata {
        reference: crate::oplog::OPS_REF.into(),
        problem: format!("a transcript change names the unknown agent '{}'", change.agent),
    })?;
    let at = locate(agent, &change.path, thread, homes).map_err(|e| e.into_error(agent))?;
    let current = read(agent, &at).map_err(|e| e.into_error(agent))?;
    let id = current
        .as_deref()
        .map(|d| crate::repo::hash_blob(repo, d))
        .transpose()?;
    let (before, after) = (change.before_id(), change.after_id());
    let state = if id == after {
        State::After
    } else if id == before {
        State::Before
    } else {
        State::Other(id)
    };
    Ok(Checked {
        agent,
        at,
        state,
        current,
    })
}

/// Make the file hold `change.after` when it holds `change.before`: what
/// the revert's provider step and a put-back do. Returns whether it wrote;
/// a file that holds neither is an error ([`RollbackError::ChangedSince`])
/// when `strict`, else left alone.
pub fn apply(
    repo: &gix::Repository,
    change: &TranscriptChange,
    thread: &str,
    homes: &AgentHomes,
    strict: bool,
) -> Result<bool> {
    let c = check(repo, change, thread, homes)?;
    match c.state {
        State::After => Ok(false),
        State::Other(_) if strict => Err(RollbackError::ChangedSince {
            agent: c.agent,
            path: c.at.path,
        }
        .into_error(c.agent)),
        State::Other(_) => Ok(false),
        State::Before => {
            let data = change
                .after_id()
                .map(|id| crate::repo::read_blob(repo, id, MAX_TRANSCRIPT_BYTES))
                .transpose()?;
            write(&c.at, data.as_deref())?;
            Ok(true)
        }
    }
}

#[cfg(test)]
mod tests;
