//! What install-hooks is asked and what it reports.

use super::*;

/// What `install-hooks` sets up: an agent's hooks, or Codex's legacy notify program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Claude Code settings.
    ClaudeCode,
    /// Codex lifecycle hooks (`hooks.json`) and their feature flag.
    Codex,
    /// Codex's legacy `notify` program.
    CodexNotify,
    /// Cursor `hooks.json`.
    Cursor,
    /// The opencode plugin.
    Opencode,
}

impl Target {
    /// Its command-line name.
    pub fn flag(self) -> &'static str {
        match self {
            Target::ClaudeCode => "--claude-code",
            Target::Codex => "--codex",
            Target::CodexNotify => "--codex-notify",
            Target::Cursor => "--cursor",
            Target::Opencode => "--opencode",
        }
    }

    pub(super) fn scopes(self) -> &'static [Scope] {
        match self {
            Target::ClaudeCode => &[Scope::Local, Scope::Project, Scope::User],
            Target::CodexNotify => &[Scope::User],
            Target::Codex | Target::Cursor | Target::Opencode => &[Scope::User, Scope::Project],
        }
    }

    pub(super) fn default_scope(self) -> Scope {
        match self {
            Target::ClaudeCode => Scope::Local,
            _ => Scope::User,
        }
    }
}

/// Whose configuration is edited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// This checkout only, never shared (Claude Code's `settings.local.json`).
    Local,
    /// The repository's, shared with everyone who clones it.
    Project,
    /// The user's, for every repository.
    User,
}

impl Scope {
    /// `local`, `project` or `user`.
    pub fn parse(name: &str) -> Option<Scope> {
        match name {
            "local" => Some(Scope::Local),
            "project" => Some(Scope::Project),
            "user" => Some(Scope::User),
            _ => None,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Local => "local",
            Scope::Project => "project",
            Scope::User => "user",
        }
    }
}

/// What to (un)install.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The agents, in the order given.
    pub agents: Vec<Target>,
    /// The `pre-push` git hook block.
    pub git: bool,
    /// `--scope`; `None`: each agent's default.
    pub scope: Option<Scope>,
}

impl Options {
    /// Refuse what makes no sense before anything is touched.
    pub fn check(&self) -> Result<()> {
        if self.agents.is_empty() && !self.git {
            return Err(Error::usage(
                "say what to set up: --claude-code, --codex, --codex-notify, --cursor, --opencode or --git",
            ));
        }
        if let Some(scope) = self.scope {
            for agent in &self.agents {
                if !agent.scopes().contains(&scope) {
                    let names: Vec<_> = agent.scopes().iter().map(|s| s.name()).collect();
                    return Err(Error::usage(format!(
                        "{} has no {} scope (it has {})",
                        agent.flag(),
                        scope.name(),
                        names.join(", ")
                    )));
                }
            }
        }
        Ok(())
    }

    pub(super) fn scope_of(&self, agent: Target) -> Scope {
        self.scope.unwrap_or_else(|| agent.default_scope())
    }

    /// Whether a repository is needed (the git hook, or an agent's
    /// configuration inside it).
    pub fn needs_repository(&self) -> bool {
        self.git || self.agents.iter().any(|a| self.scope_of(*a) != Scope::User)
    }
}

/// Where the user's configuration lives, from the environment (read by the
/// caller; unset, empty and relative values are `None`).
#[derive(Debug, Clone, Default)]
pub struct Places {
    /// `HOME`.
    pub home: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR` (instead of `~/.claude`).
    pub claude_config_dir: Option<PathBuf>,
    /// `CODEX_HOME` (instead of `~/.codex`).
    pub codex_home: Option<PathBuf>,
    /// `XDG_CONFIG_HOME` (instead of `~/.config`).
    pub xdg_config_home: Option<PathBuf>,
    /// `XDG_STATE_HOME` (instead of `~/.local/state`).
    pub xdg_state_home: Option<PathBuf>,
}

impl Places {
    pub(super) fn under_home(&self, dir: Option<&PathBuf>, rel: &str, what: &str) -> Result<PathBuf> {
        if let Some(d) = dir {
            return Ok(d.clone());
        }
        self.home.as_ref().map(|h| h.join(rel)).ok_or_else(|| {
            Error::Refused(format!(
                "HOME is not set, so {what} cannot be found; set HOME (or use --scope project)"
            ))
        })
    }
}

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Ours was added (the file created if needed).
    Added,
    /// Ours was there already: nothing written.
    AlreadyThere,
    /// Ours was taken out; the user's changes since are kept.
    Removed,
    /// The file is back byte for byte as it was before install.
    Restored,
    /// The file (created by install) is gone again.
    Deleted,
    /// Nothing of ours there: nothing written.
    NotThere,
    /// Still needed by hooks installed at another scope: left as it is.
    KeptForOthers,
    /// Changed since install wrote it: left as it is.
    LeftChanged,
}

/// What a change is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum What {
    /// An agent's hook handlers.
    Hooks {
        /// `claude-code`, `codex`, `cursor`.
        agent: String,
        /// The events added to (install) or all ours (uninstall).
        events: Vec<String>,
    },
    /// Codex's `[features]` flag for lifecycle hooks.
    CodexFeature {
        /// `codex_hooks` or `hooks`.
        key: String,
    },
    /// Codex's top-level `notify`.
    CodexNotify {
        /// The user's notifier run after ours (install), or put back (uninstall).
        then: Vec<String>,
        /// Tables a misplaced `notify` of ours was taken out of.
        moved_from: Vec<String>,
    },
    /// The opencode plugin file.
    OpencodePlugin,
    /// The git `pre-push` block.
    GitPrePush,
    /// A line in `info/exclude` keeping a settings file install wrote out of git.
    Excluded {
        /// The settings file.
        path: PathBuf,
    },
}

/// One file's change.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// The file.
    pub path: PathBuf,
    /// What in it.
    pub what: What,
    /// What happened.
    pub action: Action,
}

impl Change {
    pub(super) fn new(path: &Path, what: What, action: Action) -> Self {
        Change {
            path: path.to_owned(),
            what,
            action,
        }
    }
}

/// Something the user should know or do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Notice {
    /// Codex runs new or changed hooks only after the user trusts them.
    CodexTrust,
    /// Our hooks for `agent` are also (install) or only (uninstall) in the
    /// configuration at another scope.
    Elsewhere {
        /// The agent's flag.
        agent: String,
        /// That scope.
        scope: Scope,
        /// That file.
        path: PathBuf,
        /// Found by install (the hooks would run twice) or uninstall.
        installing: bool,
    },
    /// The Codex feature flag was false: install turned it on.
    FeatureWasOff {
        /// The key.
        key: String,
    },
}

/// What was done.
#[derive(Debug, Default, Serialize)]
pub struct InstallOutcome {
    /// Every file looked at, with what happened to it.
    pub changes: Vec<Change>,
    /// What the user should know or do next.
    pub notices: Vec<Notice>,
}
