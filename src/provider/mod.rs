//! Providers roll an agent's conversation back by N turns.
//!
//! `none` always succeeds. Any other name (`[a-z0-9][a-z0-9-]*`) is looked
//! up, in this order:
//!
//! 1. `git config t3.provider.<name>.command` (split like a shell would,
//!    never run through one);
//! 2. `git-t3-provider-<name>` on PATH;
//! 3. a provider built into git-t3: `claude-code` and `codex` roll the
//!    conversation back themselves by editing the agent's transcript
//!    ([`transcript`], [`claude`], [`codex`]), `opencode` through opencode's
//!    own export, database and import commands ([`opencode`]); `cursor`
//!    says that its conversation cannot be rolled back from outside.
//!
//! The built-in ones are dispatched by name in-process rather than shipped
//! as `git-t3-provider-*` programs: they need the revert's notes (the
//! transcript and the prompt that started each turn) and must record a
//! backup of the transcript in the revert's journal and operation log
//! before the file changes, which the helper protocol cannot carry. A
//! helper or a configured command of the same name still wins, so a user
//! can replace a built-in provider.
//!
//! Nothing that comes with the repository's content decides what runs
//! (there is no `t3.toml`), and a repository owned by someone else is
//! refused before its config is read (see `repo::open`). A helper runs as
//! `<helper> rollback` in the worktree root, with
//! `{"thread","turns","workspace","target_turn"}` on stdin (`workspace`
//! absolute); see [`helper`].

pub mod claude;
pub mod codex;
pub mod edit;
mod helper;
pub mod opencode;
pub mod outcome;
pub mod transcript;

use std::path::PathBuf;
use std::time::Duration;

use crate::error::{Error, Result};
pub use transcript::{Agent, AgentHomes, Conversation};

/// Default time a helper may take, overridable with `t3.providerTimeout`
/// (seconds, git config) or `T3_PROVIDER_TIMEOUT`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// A provider that can be asked to roll back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Provider {
    /// No conversation to roll back.
    None,
    /// A helper program and its leading arguments.
    Helper {
        /// The provider's name.
        name: String,
        /// Program and arguments (`rollback` is appended).
        argv: Vec<String>,
    },
    /// A provider built into git-t3, which edits the agent's transcript.
    Builtin {
        /// The agent.
        agent: Agent,
        /// Where the current user's agents keep their conversations.
        homes: AgentHomes,
    },
}

/// What a helper is asked to roll back.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Rollback<'a> {
    /// The thread id.
    pub thread: &'a str,
    /// How many turns to undo.
    pub turns: u64,
    /// The worktree root.
    pub workspace: &'a str,
    /// The turn the conversation goes back to.
    pub target_turn: u64,
}

/// Where helpers are looked for, how long they may run, and where the
/// agents keep their conversations; the caller reads these from the
/// environment.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// The directories searched for `git-t3-provider-<name>` (a `PATH` value).
    pub search_path: Option<std::ffi::OsString>,
    /// How long a helper may run (`None`: `t3.providerTimeout` or the default).
    pub timeout: Option<Duration>,
    /// `HOME`, `CLAUDE_CONFIG_DIR`, `CODEX_HOME`.
    pub homes: AgentHomes,
}

/// Find the provider called `name` (`None`/`"none"`: no provider).
pub fn resolve(repo: &gix::Repository, name: Option<&str>, settings: &Settings) -> Result<Provider> {
    let name = match name {
        None | Some("none") => return Ok(Provider::None),
        Some(n) => n,
    };
    if !is_valid_name(name) {
        return Err(Error::Provider {
            name: name.chars().filter(|c| !c.is_control()).take(64).collect(),
            problem: "not a valid provider name (lowercase letters, digits and '-')".into(),
        });
    }
    let configured = repo
        .config_snapshot()
        .string(format!("t3.provider.{name}.command").as_str())
        .map(|v| v.to_string());
    if let Some(cmd) = configured {
        let argv = shlex::split(&cmd)
            .filter(|a| !a.is_empty())
            .ok_or_else(|| Error::Provider {
                name: name.to_owned(),
                problem: format!("t3.provider.{name}.command is empty or not quoted right: {cmd}"),
            })?;
        return Ok(Provider::Helper {
            name: name.to_owned(),
            argv,
        });
    }
    let program = format!("git-t3-provider-{name}");
    if let Some(path) = find_on_path(settings.search_path.as_deref(), &program) {
        return Ok(Provider::Helper {
            name: name.to_owned(),
            argv: vec![path.to_string_lossy().into_owned()],
        });
    }
    if let Some(builtin) = builtin(name, settings) {
        return Ok(builtin);
    }
    let problem = match name {
        "cursor" => "cannot roll back Cursor's conversation from outside: its chats are kept in a closed \
                     format; revert the files with --files-only and take the conversation back in Cursor \
                     (edit and resubmit the earlier message, or /rewind in cursor-agent)"
            .to_owned(),
        _ => format!(
            "cannot roll back: no {program} on PATH and no t3.provider.{name}.command; \
             install the helper, or revert the files only with --files-only"
        ),
    };
    Err(Error::Provider {
        name: name.to_owned(),
        problem,
    })
}

/// The provider built into git-t3 under `name`, if there is one that can
/// roll back (`claude-code`, `codex`, `opencode`).
pub fn builtin(name: &str, settings: &Settings) -> Option<Provider> {
    transcript::rolls_back(name).map(|agent| Provider::Builtin {
        agent,
        homes: settings.homes.clone(),
    })
}

/// A provider name: `[a-z0-9][a-z0-9-]*`, at most 64 bytes (it becomes
/// part of a program's file name and of a config key).
pub fn is_valid_name(name: &str) -> bool {
    name.len() <= 64
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn find_on_path(search_path: Option<&std::ffi::OsStr>, program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    std::env::split_paths(search_path?)
        .map(|dir| dir.join(program))
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0))
}

/// How long a helper may run: `given` (from the environment, read by the
/// caller), else `t3.providerTimeout` (seconds), else [`DEFAULT_TIMEOUT`].
pub fn timeout(repo: &gix::Repository, given: Option<Duration>) -> Duration {
    given
        .or_else(|| {
            repo.config_snapshot()
                .string("t3.providerTimeout")
                .and_then(|v| parse_seconds(&v.to_string()))
        })
        .unwrap_or(DEFAULT_TIMEOUT)
}

/// A positive, finite number of seconds (fractions allowed), capped at a day.
pub fn parse_seconds(raw: &str) -> Option<Duration> {
    let secs = raw.trim().parse::<f64>().ok()?;
    (secs.is_finite() && secs > 0.0).then(|| Duration::from_secs_f64(secs.min(86_400.0)))
}

/// Ask a helper `provider` to roll back; an error carries its stderr. The
/// other providers have nothing to run here (a built-in one applies the
/// transcript changes the revert planned, see [`transcript::apply`]).
pub fn rollback(
    provider: &Provider,
    request: &Rollback<'_>,
    timeout: Duration,
    interrupt: crate::interrupt::Interrupt,
) -> Result<()> {
    match provider {
        Provider::Helper { name, argv } => helper::run(name, argv, request, timeout, interrupt),
        Provider::None | Provider::Builtin { .. } => Ok(()),
    }
}
