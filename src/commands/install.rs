//! `git t3 install-hooks` / `uninstall-hooks`: each agent's hook set-up,
//! edited in place so that nothing the user had changes, and given back
//! byte for byte.
//!
//! - Claude Code: `UserPromptSubmit`, `Stop` and `StopFailure` handlers in
//!   `.claude/settings.local.json` (scope `local`, the default: this
//!   checkout only, never shared), `.claude/settings.json` (`project`, the
//!   team's) or `~/.claude/settings.json` (`user`).
//! - Codex: `SessionStart`, `UserPromptSubmit` and `Stop` in `hooks.json`
//!   (`~/.codex/`, or the repository's `.codex/` with `--scope project`),
//!   plus `[features] codex_hooks = true` in `~/.codex/config.toml` for the
//!   versions that need it; or, for versions before lifecycle hooks, the
//!   top-level `notify` program, chaining the one already there.
//! - Cursor: `beforeSubmitPrompt` and `stop` in `hooks.json` (`~/.cursor/`
//!   or the repository's `.cursor/`).
//! - opencode: a plugin file (`~/.config/opencode/plugins/` or the
//!   repository's `.opencode/plugins/`).
//! - git: the `pre-push` block.
//!
//! JSON is edited through a concrete syntax tree (key order, indentation,
//! comments and trailing commas stay), TOML with `toml_edit`. What was
//! changed is recorded (see [`records`]): uninstalling gives a file back byte
//! for byte when nothing else changed it, and otherwise removes exactly our
//! entries.
//!
//! No file is written through a symbolic link (see [`links`]): a link at a
//! file install or uninstall would write, or at a folder on the way to it,
//! stops the command before anything is written. Files are read without
//! blocking: a FIFO, socket or device is refused, never opened.

mod codex;
mod exclude;
mod json;
mod links;
mod opencode;
mod pre_push;
mod records;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::atomic::{self, Durability};
use crate::error::{Error, IoContext as _, Result};
use crate::repo;
use json::{Shape, Spec};
use records::{Record, Store};

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

    fn scopes(self) -> &'static [Scope] {
        match self {
            Target::ClaudeCode => &[Scope::Local, Scope::Project, Scope::User],
            Target::CodexNotify => &[Scope::User],
            Target::Codex | Target::Cursor | Target::Opencode => &[Scope::User, Scope::Project],
        }
    }

    fn default_scope(self) -> Scope {
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

    fn scope_of(&self, agent: Target) -> Scope {
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
    fn under_home(&self, dir: Option<&PathBuf>, rel: &str, what: &str) -> Result<PathBuf> {
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
    fn new(path: &Path, what: What, action: Action) -> Self {
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

const CLAUDE: Spec = Spec {
    agent: "claude-code",
    command: "git t3 hook claude-code",
    events: &[
        ("UserPromptSubmit", 30),
        ("Stop", 60),
        ("StopFailure", 60),
        ("SessionEnd", 60),
    ],
    shape: Shape::Grouped,
    version: false,
};

const CODEX: Spec = Spec {
    agent: "codex",
    command: "git t3 hook codex",
    events: &[
        ("SessionStart", 30),
        ("UserPromptSubmit", 30),
        ("Stop", 60),
        ("Interrupt", 60),
        ("SessionEnd", 60),
    ],
    shape: Shape::Grouped,
    version: false,
};

const CURSOR: Spec = Spec {
    agent: "cursor",
    command: "git t3 hook cursor",
    events: &[("beforeSubmitPrompt", 30), ("stop", 60)],
    shape: Shape::Flat,
    version: true,
};

/// Configuration files larger than this are refused, not read.
const MAX_CONFIG: u64 = 16 << 20;

fn bad(path: &Path, problem: impl Into<String>) -> Error {
    Error::BadInput {
        source_name: path.display().to_string(),
        problem: problem.into(),
    }
}

/// A configuration file's text; `None` when it does not exist. A FIFO,
/// socket or device is refused without being opened for a blocking read.
/// (A link is followed here: the files written were refused in
/// [`Run::preflight`] if they are links.)
fn read_text(path: &Path) -> Result<Option<String>> {
    use std::io::Read as _;
    let file = match crate::fsread::open_regular(path, true) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if std::fs::symlink_metadata(path).is_ok() {
                return Err(bad(path, "is a symbolic link to nothing; not touched"));
            }
            return Ok(None);
        }
        Err(e) if crate::fsread::is_not_regular(&e) => {
            return Err(bad(
                path,
                "is not a regular file (a FIFO, socket, device or folder); not touched",
            ));
        }
        Err(e) => return Err(e).at("could not read", path),
    };
    let len = file.metadata().at("could not read", path)?.len();
    if len > MAX_CONFIG {
        return Err(bad(path, "is larger than 16 MiB; not touched"));
    }
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG + 1)
        .read_to_end(&mut bytes)
        .at("could not read", path)?;
    if bytes.len() as u64 > MAX_CONFIG {
        return Err(bad(path, "is larger than 16 MiB; not touched"));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| bad(path, "is not UTF-8 text; not touched"))
}

fn is_plain_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

/// Folders that writing `path` will create, deepest first.
fn missing_dirs(path: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d.as_os_str().is_empty() || std::fs::symlink_metadata(d).is_ok() {
            break;
        }
        dirs.push(d.to_owned());
        dir = d.parent();
    }
    dirs
}

struct Run<'a> {
    repo: Option<&'a gix::Repository>,
    workdir: Option<PathBuf>,
    places: &'a Places,
    out: InstallOutcome,
    /// Every file this run may write or delete, with its base (see
    /// [`links`]): checked by [`Run::preflight`] before anything is
    /// written, and again just before each write.
    checked: Vec<(PathBuf, PathBuf)>,
}

impl Run<'_> {
    fn workdir(&self) -> Result<&Path> {
        self.workdir
            .as_deref()
            .ok_or_else(|| Error::Internal("a repository-scoped install without a repository".into()))
    }

    fn codex_dir(&self) -> Result<PathBuf> {
        self.places
            .under_home(self.places.codex_home.as_ref(), ".codex", "~/.codex")
    }

    fn codex_config(&self) -> Result<PathBuf> {
        Ok(self.codex_dir()?.join("config.toml"))
    }

    /// The file that holds `agent`'s hooks at `scope`.
    fn target(&self, agent: Target, scope: Scope) -> Result<PathBuf> {
        self.place(agent, scope).map(|(_, file)| file)
    }

    /// The base (see [`links`]) and the file that holds `agent`'s hooks at
    /// `scope`: the worktree for the repository's files, the agent's own
    /// configuration folder for the user's.
    fn place(&self, agent: Target, scope: Scope) -> Result<(PathBuf, PathBuf)> {
        let p = self.places;
        let in_repo = |rel: &str| -> Result<(PathBuf, PathBuf)> {
            let base = self.workdir()?.to_owned();
            let file = base.join(rel);
            Ok((base, file))
        };
        let under = |base: PathBuf, rel: &str| {
            let file = base.join(rel);
            Ok((base, file))
        };
        match (agent, scope) {
            (Target::ClaudeCode, Scope::Local) => in_repo(".claude/settings.local.json"),
            (Target::ClaudeCode, Scope::Project) => in_repo(".claude/settings.json"),
            (Target::ClaudeCode, Scope::User) => under(
                p.under_home(p.claude_config_dir.as_ref(), ".claude", "~/.claude")?,
                "settings.json",
            ),
            (Target::Codex, Scope::Project) => in_repo(".codex/hooks.json"),
            (Target::Codex, _) => under(self.codex_dir()?, "hooks.json"),
            (Target::CodexNotify, _) => under(self.codex_dir()?, "config.toml"),
            (Target::Cursor, Scope::Project) => in_repo(".cursor/hooks.json"),
            (Target::Cursor, _) => under(p.under_home(None, ".cursor", "~/.cursor")?, "hooks.json"),
            (Target::Opencode, Scope::Project) => in_repo(".opencode/plugins/git-t3.js"),
            (Target::Opencode, _) => under(
                p.under_home(p.xdg_config_home.as_ref(), ".config", "~/.config")?
                    .join("opencode"),
                "plugins/git-t3.js",
            ),
        }
    }

    /// Refuse a link at `file` or on the way to it from `base`, and allow
    /// this run to write `file`.
    fn check_links(&mut self, base: PathBuf, file: PathBuf) -> Result<()> {
        links::refuse(&base, &file)?;
        if !self.checked.iter().any(|(f, _)| *f == file) {
            self.checked.push((file, base));
        }
        Ok(())
    }

    /// Check `path` for links again just before it is written; a file
    /// [`Run::preflight`] did not check is never written.
    fn recheck(&self, path: &Path) -> Result<()> {
        let (_, base) =
            self.checked.iter().find(|(f, _)| f == path).ok_or_else(|| {
                Error::Internal(format!("{} was not checked before writing", path.display()))
            })?;
        links::refuse(base, path)
    }

    /// Replace the file's text atomically (never through a link).
    fn write_text(&self, path: &Path, text: &str) -> Result<()> {
        self.recheck(path)?;
        atomic::write(path, text.as_bytes(), None, Durability::Flushed)
    }

    /// Delete a file install created (the folders it created for it go
    /// when the record is removed, if empty).
    fn delete(&self, path: &Path) -> Result<()> {
        self.recheck(path)?;
        std::fs::remove_file(path).at("could not remove", path)
    }

    /// Where the record of a change to `path` is kept.
    fn store_for(&self, path: &Path) -> Result<Store> {
        if let (Some(repo), Some(workdir)) = (self.repo, &self.workdir)
            && path.starts_with(workdir)
        {
            return Ok(Store::new(
                repo::t3_common_dir(repo).join("install").join("records.json"),
            ));
        }
        let p = self.places;
        let state = p.under_home(p.xdg_state_home.as_ref(), ".local/state", "~/.local/state")?;
        Ok(Store::new(state.join("git-t3").join("install-records.json")))
    }

    fn push(&mut self, path: &Path, what: What, action: Action) {
        self.out.changes.push(Change::new(path, what, action));
    }

    /// Our hooks for `agent` at the scopes other than `scope`.
    fn elsewhere(&mut self, agent: Target, spec: &Spec, scope: Scope, installing: bool) {
        for other in agent.scopes() {
            if *other == scope || (self.workdir.is_none() && *other != Scope::User) {
                continue;
            }
            let Ok(path) = self.target(agent, *other) else {
                continue;
            };
            if let Ok(Some(text)) = read_text(&path)
                && json::has_ours(&text, spec)
            {
                self.out.notices.push(Notice::Elsewhere {
                    agent: agent.flag().to_owned(),
                    scope: *other,
                    path,
                    installing,
                });
            }
        }
    }

    fn install_json(&mut self, part: &str, path: &Path, spec: &Spec) -> Result<bool> {
        let hooks = |events: Vec<String>| What::Hooks {
            agent: spec.agent.to_owned(),
            events,
        };
        let store = self.store_for(path)?;
        let current = read_text(path)?;
        let (text, events, created) = match &current {
            None => (
                json::fresh(spec),
                spec.events.iter().map(|(e, _)| (*e).to_owned()).collect(),
                std::iter::once("hooks".to_owned())
                    .chain(spec.events.iter().map(|(e, _)| format!("hooks.{e}")))
                    .collect(),
            ),
            Some(text) => match json::install(path, text, spec)? {
                None => {
                    self.push(path, hooks(Vec::new()), Action::AlreadyThere);
                    return Ok(false);
                }
                Some(added) => (added.text, added.events, added.created),
            },
        };
        let dirs = missing_dirs(path);
        // A record left from an earlier install whose file changed since:
        // what to give back is the file as it is now, less our entries.
        let previous = store.get(part, path)?;
        let before = match (&current, &previous) {
            (Some(now), Some(old)) => Some(
                json::uninstall(path, now, spec, Some(&old.created))?.map_or_else(|| now.clone(), |r| r.text),
            ),
            _ => current.clone(),
        };
        self.write_text(path, &text)?;
        store.add_dirs(dirs)?;
        let mut record = Record {
            part: part.to_owned(),
            path: path.to_owned(),
            before,
            after: text,
            file_created: current.is_none(),
            created,
            previous: None,
            key: None,
            users: Vec::new(),
            migrated: None,
        };
        if let Some(old) = previous {
            record.created.extend(old.created);
            record.file_created |= old.file_created;
        }
        store.put(record)?;
        self.push(path, hooks(events), Action::Added);
        Ok(true)
    }

    fn uninstall_json(
        &mut self,
        part: &str,
        path: &Path,
        spec: &Spec,
        legacy: Option<Record>,
    ) -> Result<Action> {
        let events = spec.events.iter().map(|(e, _)| (*e).to_owned()).collect();
        let what = What::Hooks {
            agent: spec.agent.to_owned(),
            events,
        };
        let store = self.store_for(path)?;
        let record = store.get(part, path)?;
        let legacy_used = record.is_none() && legacy.is_some();
        let record = record.or(legacy);
        let action = match read_text(path)? {
            None => Action::NotThere,
            Some(current) => {
                self.take_out(path, &current, record.as_ref(), legacy_used, |text, created| {
                    Ok(json::uninstall(path, text, spec, created)?.map(|r| (r.text, r.empty)))
                })?
            }
        };
        store.remove(part, path)?;
        self.push(path, what, action);
        Ok(action)
    }

    /// Give `path` back: byte for byte when it is still what install wrote,
    /// else through `surgery` (our entries out; `true`: nothing else left).
    fn take_out(
        &mut self,
        path: &Path,
        current: &str,
        record: Option<&Record>,
        legacy: bool,
        surgery: impl Fn(&str, Option<&[String]>) -> Result<Option<(String, bool)>>,
    ) -> Result<Action> {
        if let Some(r) = record
            && r.after == current
        {
            match &r.before {
                // A file git t3 created that another install changed
                // since goes once nothing else is left in it (below).
                Some(before) if !r.file_created => {
                    self.write_text(path, before)?;
                    return Ok(Action::Restored);
                }
                None if is_plain_file(path) => {
                    self.delete(path)?;
                    return Ok(Action::Deleted);
                }
                _ => {}
            }
        }
        let created = record.filter(|_| !legacy).map(|r| r.created.as_slice());
        let Some((text, empty)) = surgery(current, created)? else {
            return Ok(Action::NotThere);
        };
        if let Some(r) = record {
            if (r.before.is_none() || r.file_created) && empty && is_plain_file(path) {
                self.delete(path)?;
                return Ok(Action::Deleted);
            }
            if let Some(before) = &r.before
                && (*before == text || (legacy && same_json(before, &text)))
            {
                self.write_text(path, before)?;
                return Ok(Action::Restored);
            }
        }
        self.write_text(path, &text)?;
        Ok(Action::Removed)
    }

    /// Check for links and read and parse every file `agent` would change,
    /// so that a file that cannot be edited stops the command before
    /// anything is written.
    fn preflight(&mut self, agent: Target, scope: Scope, installing: bool) -> Result<()> {
        let (base, path) = self.place(agent, scope)?;
        self.check_links(base, path.clone())?;
        self.store_for(&path)?.check()?;
        if agent == Target::Codex {
            let codex = self.codex_dir()?;
            let config = codex.join("config.toml");
            self.check_links(codex, config.clone())?;
            self.store_for(&config)?.check()?;
        }
        if agent == Target::ClaudeCode
            && scope == Scope::Local
            && let Some(repo) = self.repo
        {
            exclude::check(repo)?;
        }
        let check_json = |path: &Path, spec: &Spec| -> Result<()> {
            if let Some(text) = read_text(path)? {
                if installing {
                    json::install(path, &text, spec)?;
                } else {
                    json::uninstall(path, &text, spec, None)?;
                }
            }
            Ok(())
        };
        let path = self.target(agent, scope)?;
        match agent {
            Target::ClaudeCode => check_json(&path, &CLAUDE),
            Target::Cursor => check_json(&path, &CURSOR),
            Target::Codex => {
                check_json(&path, &CODEX)?;
                let config = self.codex_config()?;
                if let Some(text) = read_text(&config)? {
                    codex::enable_hooks(&config, &text)?;
                }
                Ok(())
            }
            Target::CodexNotify => {
                if let Some(text) = read_text(&path)? {
                    codex::set_notify(&path, &text)?;
                }
                Ok(())
            }
            Target::Opencode => {
                if installing
                    && let Some(text) = read_text(&path)?
                    && !text.starts_with(opencode::MARKER)
                {
                    return Err(Error::Refused(format!(
                        "{} exists and is not git t3's plugin; move it away, then run the command again",
                        path.display()
                    )));
                }
                Ok(())
            }
        }
    }

    // ------------------------------------------------------------ agents

    fn install_claude(&mut self, scope: Scope) -> Result<()> {
        let path = self.target(Target::ClaudeCode, scope)?;
        self.install_json("claude-code", &path, &CLAUDE)?;
        // This checkout's own file: out of git, and so out of checkpoints.
        if scope == Scope::Local
            && let (Some(repo), Some(workdir)) = (self.repo, self.workdir.clone())
            && let Some(file) = exclude::add(repo, &workdir, &path)?
        {
            self.push(&file, What::Excluded { path: path.clone() }, Action::Added);
        }
        Ok(())
    }

    fn uninstall_claude(&mut self, scope: Scope) -> Result<()> {
        let path = self.target(Target::ClaudeCode, scope)?;
        let legacy = if scope == Scope::Project {
            self.legacy_claude_record(&path)
        } else {
            None
        };
        let action = self.uninstall_json("claude-code", &path, &CLAUDE, legacy)?;
        if scope == Scope::Local
            && let (Some(repo), Some(workdir)) = (self.repo, self.workdir.clone())
            && let Some(file) = exclude::remove(repo, &workdir, &path)?
        {
            self.push(&file, What::Excluded { path: path.clone() }, Action::Removed);
        }
        if scope == Scope::Project
            && let Some(repo) = self.repo
        {
            let dir = repo::t3_common_dir(repo).join("install");
            let _ = std::fs::remove_file(dir.join("claude-settings.json.orig"));
            let _ = std::fs::remove_file(dir.join("claude-settings.json.absent"));
        }
        if action == Action::NotThere {
            self.elsewhere(Target::ClaudeCode, &CLAUDE, scope, false);
        }
        Ok(())
    }

    /// What git-t3 0.1 kept when it wrote `.claude/settings.json`: the file
    /// as it was (`.orig`), or that there was none (`.absent`).
    fn legacy_claude_record(&self, path: &Path) -> Option<Record> {
        let dir = repo::t3_common_dir(self.repo?).join("install");
        let before = if dir.join("claude-settings.json.absent").exists() {
            None
        } else {
            let data = crate::fsread::read_regular(&dir.join("claude-settings.json.orig"), false).ok()?;
            Some(String::from_utf8(data).ok()?)
        };
        Some(Record {
            part: "claude-code".into(),
            path: path.to_owned(),
            before,
            // Never equal to a file: the text it wrote was not kept.
            after: "\0".into(),
            file_created: false,
            created: Vec::new(),
            previous: None,
            key: None,
            users: Vec::new(),
            migrated: None,
        })
    }

    fn install_codex(&mut self, scope: Scope) -> Result<()> {
        let hooks = self.target(Target::Codex, scope)?;
        let added = self.install_json("codex", &hooks, &CODEX)?;
        self.elsewhere(Target::Codex, &CODEX, scope, true);
        let flag = self.enable_codex_feature(&hooks)?;
        if added || flag {
            self.out.notices.push(Notice::CodexTrust);
        }
        Ok(())
    }

    /// `[features]` in `~/.codex/config.toml`, on for as long as one of our
    /// hooks files needs it.
    fn enable_codex_feature(&mut self, hooks: &Path) -> Result<bool> {
        let config = self.codex_config()?;
        let store = self.store_for(&config)?;
        let current = read_text(&config)?;
        let record = store.get("codex-feature", &config)?;
        let Some(edit) = codex::enable_hooks(&config, current.as_deref().unwrap_or(""))? else {
            if let Some(mut r) = record
                && !r.users.iter().any(|u| u == hooks)
            {
                r.users.push(hooks.to_owned());
                store.put(r)?;
            }
            let key = codex::FEATURE.to_owned();
            self.push(&config, What::CodexFeature { key }, Action::AlreadyThere);
            return Ok(false);
        };
        let dirs = missing_dirs(&config);
        self.write_text(&config, &edit.text)?;
        store.add_dirs(dirs)?;
        let mut users = record.map(|r| r.users).unwrap_or_default();
        if !users.iter().any(|u| u == hooks) {
            users.push(hooks.to_owned());
        }
        if edit.previous.is_some() {
            self.out.notices.push(Notice::FeatureWasOff {
                key: edit.key.clone(),
            });
        }
        store.put(Record {
            part: "codex-feature".into(),
            path: config.clone(),
            file_created: current.is_none(),
            before: current,
            after: edit.text,
            created: if edit.created_table {
                vec!["features".into()]
            } else {
                Vec::new()
            },
            previous: edit.previous,
            key: Some(edit.key.clone()),
            users,
            migrated: edit.migrated,
        })?;
        self.push(&config, What::CodexFeature { key: edit.key }, Action::Added);
        Ok(true)
    }

    fn uninstall_codex(&mut self, scope: Scope) -> Result<()> {
        let hooks = self.target(Target::Codex, scope)?;
        let action = self.uninstall_json("codex", &hooks, &CODEX, None)?;
        if action == Action::NotThere {
            self.elsewhere(Target::Codex, &CODEX, scope, false);
        }
        let config = self.codex_config()?;
        let store = self.store_for(&config)?;
        let Some(mut record) = store.get("codex-feature", &config)? else {
            return Ok(());
        };
        let key = record.key.clone().unwrap_or_else(|| codex::FEATURE.to_owned());
        let what = What::CodexFeature { key: key.clone() };
        record.users.retain(|u| u != &hooks);
        if !record.users.is_empty() {
            store.put(record)?;
            self.push(&config, what, Action::KeptForOthers);
            return Ok(());
        }
        let action = match read_text(&config)? {
            None => Action::NotThere,
            Some(current) => {
                let previous = record.previous.clone();
                let migrated = record.migrated.clone();
                self.take_out(&config, &current, Some(&record), false, |text, created| {
                    let created_table = created.is_some_and(|c| c.iter().any(|k| k == "features"));
                    let values = (previous.as_deref(), migrated.as_deref());
                    Ok(
                        codex::restore_feature(&config, text, &key, values, created_table)?.map(|t| {
                            let empty = t.trim().is_empty();
                            (t, empty)
                        }),
                    )
                })?
            }
        };
        store.remove("codex-feature", &config)?;
        self.push(&config, what, action);
        Ok(())
    }

    fn install_codex_notify(&mut self) -> Result<()> {
        let config = self.codex_config()?;
        let store = self.store_for(&config)?;
        let current = read_text(&config)?;
        let Some(edit) = codex::set_notify(&config, current.as_deref().unwrap_or(""))? else {
            let what = What::CodexNotify {
                then: Vec::new(),
                moved_from: Vec::new(),
            };
            self.push(&config, what, Action::AlreadyThere);
            return Ok(());
        };
        let dirs = missing_dirs(&config);
        self.write_text(&config, &edit.text)?;
        store.add_dirs(dirs)?;
        store.put(Record {
            part: "codex-notify".into(),
            path: config.clone(),
            file_created: current.is_none(),
            before: current,
            after: edit.text,
            created: Vec::new(),
            previous: edit.previous,
            key: None,
            users: Vec::new(),
            migrated: None,
        })?;
        let what = What::CodexNotify {
            then: edit.chained,
            moved_from: edit.moved_from,
        };
        self.push(&config, what, Action::Added);
        Ok(())
    }

    fn uninstall_codex_notify(&mut self) -> Result<()> {
        let config = self.codex_config()?;
        let store = self.store_for(&config)?;
        let record = store.get("codex-notify", &config)?;
        let mut then = Vec::new();
        let action = match read_text(&config)? {
            None => Action::NotThere,
            Some(current) => {
                let previous = record.as_ref().and_then(|r| r.previous.clone());
                let restored = std::cell::RefCell::new(Vec::new());
                let action = self.take_out(&config, &current, record.as_ref(), false, |text, _| {
                    Ok(
                        codex::restore_notify(&config, text, previous.as_deref())?.map(|(t, now)| {
                            *restored.borrow_mut() = now;
                            let empty = t.trim().is_empty();
                            (t, empty)
                        }),
                    )
                })?;
                then = restored.into_inner();
                if action == Action::Restored {
                    then = previous.as_deref().map(notify_argv).unwrap_or_default();
                }
                action
            }
        };
        store.remove("codex-notify", &config)?;
        let what = What::CodexNotify {
            then,
            moved_from: Vec::new(),
        };
        self.push(&config, what, action);
        Ok(())
    }

    fn install_cursor(&mut self, scope: Scope) -> Result<()> {
        let path = self.target(Target::Cursor, scope)?;
        self.install_json("cursor", &path, &CURSOR)?;
        self.elsewhere(Target::Cursor, &CURSOR, scope, true);
        Ok(())
    }

    fn uninstall_cursor(&mut self, scope: Scope) -> Result<()> {
        let path = self.target(Target::Cursor, scope)?;
        if self.uninstall_json("cursor", &path, &CURSOR, None)? == Action::NotThere {
            self.elsewhere(Target::Cursor, &CURSOR, scope, false);
        }
        Ok(())
    }

    fn install_opencode(&mut self, scope: Scope) -> Result<()> {
        let path = self.target(Target::Opencode, scope)?;
        let store = self.store_for(&path)?;
        let current = read_text(&path)?;
        match &current {
            Some(text) if text == opencode::PLUGIN => {
                self.push(&path, What::OpencodePlugin, Action::AlreadyThere);
                return Ok(());
            }
            Some(text) if !text.starts_with(opencode::MARKER) => {
                return Err(Error::Refused(format!(
                    "{} exists and is not git t3's plugin; move it away, then run the command again",
                    path.display()
                )));
            }
            _ => {}
        }
        let dirs = missing_dirs(&path);
        self.write_text(&path, opencode::PLUGIN)?;
        store.add_dirs(dirs)?;
        // An older version of ours is replaced: uninstall removes the file.
        store.put(Record {
            part: "opencode".into(),
            path: path.clone(),
            before: None,
            after: opencode::PLUGIN.to_owned(),
            file_created: true,
            created: Vec::new(),
            previous: None,
            key: None,
            users: Vec::new(),
            migrated: None,
        })?;
        self.push(&path, What::OpencodePlugin, Action::Added);
        Ok(())
    }

    fn uninstall_opencode(&mut self, scope: Scope) -> Result<()> {
        let path = self.target(Target::Opencode, scope)?;
        let store = self.store_for(&path)?;
        let record = store.get("opencode", &path)?;
        let action = match read_text(&path)? {
            None => Action::NotThere,
            Some(text) if text == opencode::PLUGIN || record.as_ref().is_some_and(|r| r.after == text) => {
                self.delete(&path)?;
                Action::Deleted
            }
            Some(text) if text.starts_with(opencode::MARKER) => Action::LeftChanged,
            Some(_) => Action::NotThere,
        };
        if action != Action::LeftChanged {
            store.remove("opencode", &path)?;
        }
        self.push(&path, What::OpencodePlugin, action);
        Ok(())
    }
}

/// The strings of a TOML array as written (`previous` of a record).
fn notify_argv(repr: &str) -> Vec<String> {
    format!("notify ={repr}")
        .parse::<toml_edit::DocumentMut>()
        .ok()
        .and_then(|d| {
            d.get("notify")
                .and_then(toml_edit::Item::as_array)
                .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
        })
        .unwrap_or_default()
}

fn same_json(a: &str, b: &str) -> bool {
    match (
        serde_json::from_str::<serde_json::Value>(a),
        serde_json::from_str::<serde_json::Value>(b),
    ) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn run(
    repo: Option<&gix::Repository>,
    places: &Places,
    opts: &Options,
    installing: bool,
) -> Result<InstallOutcome> {
    opts.check()?;
    // Absolute, so that records name the same file from any directory.
    let workdir = match repo {
        Some(repo) => {
            let dir = repo::workdir(repo)?;
            Some(std::fs::canonicalize(&dir).at("could not find", &dir)?)
        }
        None => None,
    };
    let mut run = Run {
        repo,
        workdir,
        places,
        out: InstallOutcome::default(),
        checked: Vec::new(),
    };
    // Uninstalling goes the other way round, so that changes to one file
    // (Codex's config.toml) come off in the order they went on.
    let mut agents = opts.agents.clone();
    if !installing {
        agents.reverse();
    }
    let scope_of = |agent: Target| match (opts.scope, agent) {
        (None, Target::ClaudeCode) if claude_settings_untracked(repo) => Scope::Project,
        _ => opts.scope_of(agent),
    };
    for agent in &agents {
        run.preflight(*agent, scope_of(*agent), installing)?;
    }
    if opts.git {
        let repo = repo.ok_or_else(|| Error::Internal("--git without a repository".into()))?;
        pre_push::check(repo)?;
    }
    for agent in &agents {
        let scope = scope_of(*agent);
        match (agent, installing) {
            (Target::ClaudeCode, true) => run.install_claude(scope)?,
            (Target::ClaudeCode, false) => run.uninstall_claude(scope)?,
            (Target::Codex, true) => run.install_codex(scope)?,
            (Target::Codex, false) => run.uninstall_codex(scope)?,
            (Target::CodexNotify, true) => run.install_codex_notify()?,
            (Target::CodexNotify, false) => run.uninstall_codex_notify()?,
            (Target::Cursor, true) => run.install_cursor(scope)?,
            (Target::Cursor, false) => run.uninstall_cursor(scope)?,
            (Target::Opencode, true) => run.install_opencode(scope)?,
            (Target::Opencode, false) => run.uninstall_opencode(scope)?,
        }
    }
    if opts.git {
        let repo = repo.ok_or_else(|| Error::Internal("--git without a repository".into()))?;
        if installing {
            pre_push::install(repo, &mut run.out)?;
        } else {
            pre_push::uninstall(repo, &mut run.out)?;
        }
    }
    run.out.notices.dedup();
    Ok(run.out)
}

/// Whether the repository has a `.claude/settings.json` that git does not
/// track: then it is this checkout's own file, not the team's, and Claude
/// Code's hooks go there when no `--scope` is given (else into the
/// per-checkout `settings.local.json`, never into a shared file).
fn claude_settings_untracked(repo: Option<&gix::Repository>) -> bool {
    let Some(repo) = repo else { return false };
    let Some(workdir) = repo.workdir() else {
        return false;
    };
    if !workdir.join(".claude").join("settings.json").is_file() {
        return false;
    }
    let path = gix::bstr::BStr::new(".claude/settings.json");
    let in_index = repo
        .index_or_empty()
        .is_ok_and(|index| index.entry_by_path(path).is_some());
    !in_index
}

/// Install what `opts` names. `repo` is needed when
/// [`Options::needs_repository`].
pub fn install(repo: Option<&gix::Repository>, places: &Places, opts: &Options) -> Result<InstallOutcome> {
    run(repo, places, opts, true)
}

/// Remove exactly what [`install`] added.
pub fn uninstall(repo: Option<&gix::Repository>, places: &Places, opts: &Options) -> Result<InstallOutcome> {
    run(repo, places, opts, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ready-made files under hooks/ are what install-hooks writes.
    #[test]
    fn shipped_files_are_what_install_writes() {
        assert_eq!(
            json::fresh(&CLAUDE),
            include_str!("../../hooks/claude-code/settings.json")
        );
        assert_eq!(json::fresh(&CODEX), include_str!("../../hooks/codex/hooks.json"));
        assert_eq!(
            json::fresh(&CURSOR),
            include_str!("../../hooks/cursor/hooks.json")
        );
        assert!(opencode::PLUGIN.starts_with(opencode::MARKER));
    }
}
