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

use crate::error::{Error, Result};
use crate::oplog::TranscriptChange;

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

/// Why a conversation cannot be rolled back (or put back); nothing was
/// changed when one is returned.
#[derive(Debug, thiserror::Error)]
pub enum RollbackError {
    /// No note says where the transcript is.
    #[error(
        "no note of this thread says where {agent} keeps its conversation (the hooks record it \
         when a prompt is submitted); revert the files with --files-only and the conversation {rewind}",
        agent = .agent.label(),
        rewind = .agent.own_rewind()
    )]
    NoTranscript {
        /// The agent.
        agent: Agent,
    },
    /// The notes name two different transcripts for the turns reverted.
    #[error(
        "the notes name two transcripts for the turns reverted ('{first}' and '{second}'); \
         revert the files with --files-only and the conversation {rewind}",
        rewind = .agent.own_rewind()
    )]
    NotesDisagree {
        /// The agent.
        agent: Agent,
        /// One.
        first: String,
        /// The other.
        second: String,
    },
    /// The first turn reverted has no prompt id, so where to cut is unknown.
    #[error(
        "turn {turn}'s note does not say which prompt started it, so where its conversation \
         begins is unknown; revert the files with --files-only and the conversation {rewind}",
        rewind = .agent.own_rewind()
    )]
    NoPromptId {
        /// The agent.
        agent: Agent,
        /// The turn.
        turn: u64,
    },
    /// The agent's program is not on `PATH`.
    #[error(
        "cannot roll back {agent}'s conversation: `{program}` is not on PATH (git t3 changes \
         the conversation through it); revert the files with --files-only and the conversation {rewind}",
        agent = .agent.label(),
        rewind = .agent.own_rewind()
    )]
    NoProgram {
        /// The agent.
        agent: Agent,
        /// The program.
        program: &'static str,
    },
    /// The data directory cannot be found (no `HOME`).
    #[error(
        "cannot tell where {agent} keeps your conversations (HOME is not set); \
         revert the files with --files-only",
        agent = .agent.label()
    )]
    NoDataDir {
        /// The agent.
        agent: Agent,
    },
    /// The path in the notes is not one git-t3 may change.
    #[error(
        "refused the transcript '{path}' named in the thread's notes: {why}; git t3 only changes \
         this thread's conversation file under {root} (a note from another machine or user?); \
         revert the files with --files-only",
        root = .root.display()
    )]
    Untrusted {
        /// The path as the note gives it.
        path: String,
        /// What is wrong with it.
        why: String,
        /// The agent's data directory.
        root: PathBuf,
    },
    /// The transcript is not there.
    #[error(
        "the conversation's transcript {} is gone ({agent} removes or archives old sessions); \
         nothing to roll back: revert the files with --files-only",
        .path.display(),
        agent = .agent.label()
    )]
    Missing {
        /// The agent.
        agent: Agent,
        /// The file.
        path: PathBuf,
    },
    /// The prompt that started the first reverted turn is not in the transcript.
    #[error(
        "the prompt '{prompt}' that started turn {turn} is not in {} (was the conversation \
         rewound, compacted into a new session or cleared?); revert the files with --files-only \
         and the conversation {rewind}",
        .path.display(),
        rewind = .agent.own_rewind()
    )]
    PromptNotFound {
        /// The agent.
        agent: Agent,
        /// The prompt id.
        prompt: String,
        /// The turn.
        turn: u64,
        /// The file.
        path: PathBuf,
    },
    /// The transcript ends in the middle of a line: the agent is writing it.
    #[error(
        "{} ends in the middle of a line: is {agent} still running in this session? \
         Quit it, then revert again (or revert the files with --files-only and the conversation {rewind})",
        .path.display(),
        agent = .agent.label(),
        rewind = .agent.own_rewind()
    )]
    MidLine {
        /// The agent.
        agent: Agent,
        /// The file.
        path: PathBuf,
    },
    /// The transcript is not in a shape git-t3 knows.
    #[error("{}: {problem}; revert the files with --files-only and the conversation {rewind}", .path.display(), rewind = .agent.own_rewind())]
    Format {
        /// The agent.
        agent: Agent,
        /// The file.
        path: PathBuf,
        /// What is unexpected.
        problem: String,
    },
    /// The transcript changed since the revert planned its change.
    #[error(
        "the conversation's transcript {} changed since the revert began (is {agent} still running \
         in this session?); quit it, run `git t3 revert --abort`, then revert again",
        .path.display(),
        agent = .agent.label()
    )]
    ChangedSince {
        /// The agent.
        agent: Agent,
        /// The file.
        path: PathBuf,
    },
    /// The file could not be read or written.
    #[error("{context} {}: {source}", .path.display())]
    Io {
        /// What was being done.
        context: &'static str,
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

impl RollbackError {
    /// As the crate's error: a failure of provider `agent`.
    pub fn into_error(self, agent: Agent) -> Error {
        Error::Provider {
            name: agent.name().to_owned(),
            problem: self.to_string(),
        }
    }
}

/// A transcript path that passed the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The file (below the data directory with symlinks resolved); for
    /// opencode, the session as [`super::opencode::handle`] names it.
    pub path: PathBuf,
    /// Whether it exists (as a regular file; for opencode, whether the
    /// program was found, the session's existence is learnt by reading it).
    pub exists: bool,
    /// opencode: the program and the session id.
    pub opencode: Option<(PathBuf, String)>,
}

/// Check that `raw` (from a note or an op) names the conversation file of
/// `thread` under `agent`'s data directory, as the module says.
pub fn locate(agent: Agent, raw: &str, thread: &str, homes: &AgentHomes) -> Result<Located, RollbackError> {
    if agent == Agent::Opencode {
        return locate_opencode(raw, thread, homes);
    }
    let root = agent.data_root(homes).ok_or(RollbackError::NoDataDir { agent })?;
    let refuse = |why: &str| RollbackError::Untrusted {
        path: raw.to_owned(),
        why: why.to_owned(),
        root: root.clone(),
    };
    if raw.len() > 4096 || raw.contains('\0') {
        return Err(refuse("it is not a path"));
    }
    if !raw.starts_with('/') {
        return Err(refuse("it is not an absolute path"));
    }
    if raw[1..].split('/').any(|c| c.is_empty() || c == "." || c == "..") {
        return Err(refuse("it has an empty, '.' or '..' component"));
    }
    let meta = std::fs::metadata(&root).map_err(|_| refuse("the data directory does not exist"))?;
    if !meta.is_dir() || !owned_by_me(&meta) {
        return Err(refuse("the data directory is not a directory of yours"));
    }
    let canonical =
        std::fs::canonicalize(&root).map_err(|_| refuse("the data directory cannot be resolved"))?;
    let raw_path = Path::new(raw);
    let rel = raw_path
        .strip_prefix(&root)
        .or_else(|_| raw_path.strip_prefix(&canonical))
        .map_err(|_| refuse("it is not under the agent's data directory"))?;
    let parts: Vec<&OsStr> = rel
        .components()
        .map(|c| match c {
            Component::Normal(n) => Ok(n),
            _ => Err(refuse("it has a component that is not a name")),
        })
        .collect::<Result<_, _>>()?;
    if !agent.is_session_file(&parts, thread) {
        return Err(refuse(match agent {
            Agent::ClaudeCode => "it is not <project>/<this thread's session id>.jsonl",
            Agent::Codex => "it is not a rollout-…-<this thread's session id>.jsonl file",
            Agent::Opencode | Agent::Cursor => "it is not this thread's session",
        }));
    }
    let mut path = canonical;
    let (name, dirs) = parts.split_last().ok_or_else(|| refuse("it names no file"))?;
    for dir in dirs {
        path.push(dir);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(refuse("a directory on its way is a symbolic link"));
            }
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(refuse("a component on its way is not a directory")),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(RollbackError::Missing { agent, path });
            }
            Err(source) => {
                return Err(RollbackError::Io {
                    context: "could not read",
                    path,
                    source,
                });
            }
        }
    }
    path.push(name);
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.file_type().is_symlink() => Err(refuse("it is a symbolic link")),
        Ok(m) if !m.is_file() => Err(refuse("it is not a regular file")),
        Ok(m) if !owned_by_me(&m) => Err(refuse("it belongs to another user")),
        Ok(_) => Ok(Located {
            path,
            exists: true,
            opencode: None,
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Located {
            path,
            exists: false,
            opencode: None,
        }),
        Err(source) => Err(RollbackError::Io {
            context: "could not read",
            path,
            source,
        }),
    }
}

/// opencode's session `thread`, named `raw` (by an op), reached through
/// the `opencode` program on `PATH`.
fn locate_opencode(raw: &str, thread: &str, homes: &AgentHomes) -> Result<Located, RollbackError> {
    let handle = super::opencode::handle(thread);
    let refuse = |why: &str| RollbackError::Untrusted {
        path: raw.chars().filter(|c| !c.is_control()).take(200).collect(),
        why: why.to_owned(),
        root: PathBuf::from("opencode's database"),
    };
    if !super::opencode::is_plain_id(thread) {
        return Err(refuse("the thread is not an opencode session id"));
    }
    if raw != handle {
        return Err(refuse("it is not this thread's session"));
    }
    let program = super::opencode::program(homes.search_path.as_deref()).ok_or(RollbackError::NoProgram {
        agent: Agent::Opencode,
        program: "opencode",
    })?;
    Ok(Located {
        path: PathBuf::from(handle),
        exists: true,
        opencode: Some((program, thread.to_owned())),
    })
}

fn owned_by_me(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    meta.uid() == rustix::process::geteuid().as_raw()
}

/// The bytes of the located file (`None`: it does not exist), read without
/// following a symbolic link, at most [`MAX_TRANSCRIPT_BYTES`].
pub fn read(agent: Agent, at: &Located) -> Result<Option<Vec<u8>>, RollbackError> {
    use std::os::unix::fs::OpenOptionsExt as _;
    if let Some(session) = opencode_session(at) {
        return match session.read() {
            Ok(data) => Ok(Some(data)),
            Err(super::opencode::Failure::NoSession) => Ok(None),
            Err(super::opencode::Failure::Other(problem)) => Err(RollbackError::Format {
                agent,
                path: at.path.clone(),
                problem,
            }),
        };
    }
    let io = |context, source| RollbackError::Io {
        context,
        path: at.path.clone(),
        source,
    };
    let file = match std::fs::File::options()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&at.path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io("could not open", e)),
    };
    let meta = file.metadata().map_err(|e| io("could not read", e))?;
    if !meta.is_file() {
        return Err(RollbackError::Format {
            agent,
            path: at.path.clone(),
            problem: "it is not a regular file".into(),
        });
    }
    if meta.len() > MAX_TRANSCRIPT_BYTES {
        return Err(RollbackError::Format {
            agent,
            path: at.path.clone(),
            problem: format!(
                "it is {} bytes, more than git t3 reads ({MAX_TRANSCRIPT_BYTES})",
                meta.len()
            ),
        });
    }
    let mut data = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(MAX_TRANSCRIPT_BYTES + 1)
        .read_to_end(&mut data)
        .map_err(|e| io("could not read", e))?;
    Ok(Some(data))
}

fn opencode_session(at: &Located) -> Option<super::opencode::Session<'_>> {
    at.opencode
        .as_ref()
        .map(|(program, id)| super::opencode::Session { program, id })
}

/// Replace the located file with `data` atomically (`None`: remove it; for
/// opencode, the session is left without messages).
fn write(at: &Located, data: Option<&[u8]>) -> Result<()> {
    if let Some(session) = opencode_session(at) {
        return session.write(data.unwrap_or(b"[]")).map_err(|f| {
            let problem = match f {
                super::opencode::Failure::NoSession => format!("the session {} is gone", at.path.display()),
                super::opencode::Failure::Other(p) => p,
            };
            RollbackError::Format {
                agent: Agent::Opencode,
                path: at.path.clone(),
                problem,
            }
            .into_error(Agent::Opencode)
        });
    }
    match data {
        Some(bytes) => crate::atomic::write(
            &at.path,
            bytes,
            (!at.exists).then_some(0o600),
            crate::atomic::Durability::Flushed,
        ),
        None => match std::fs::remove_file(&at.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::Io {
                context: "could not remove".into(),
                path: Some(at.path.clone()),
                source: e,
            }),
            _ => Ok(()),
        },
    }
}

/// The new content of a transcript, as an agent's planner computes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The bytes after the rollback.
    pub after: Vec<u8>,
    /// What the change does, for people.
    pub how: String,
    /// Prompts of the conversation it takes back.
    pub prompts: u64,
}

/// Why a planner found no place to cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// The prompt is not in the transcript.
    PromptNotFound,
    /// The transcript is not shaped as expected there.
    Format(String),
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
        before: Some(rec.write_blob(&planned.before)?.to_string()),
        after: Some(rec.write_blob(&planned.after)?.to_string()),
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
    let (before, after) = (change.before_id()?, change.after_id()?);
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
                .after_id()?
                .map(|id| crate::repo::read_blob(repo, id, MAX_TRANSCRIPT_BYTES))
                .transpose()?;
            write(&c.at, data.as_deref())?;
            Ok(true)
        }
    }
}

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
