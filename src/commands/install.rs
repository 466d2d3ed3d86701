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

mod agents;
mod codex;
mod exclude;
mod json;
mod links;
mod opencode;
mod pre_push;
mod records;
mod settings;
mod types;

use agents::{CLAUDE, CODEX, CURSOR};
pub use types::*;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::atomic::{self, Durability};
use crate::error::{Error, IoContext as _, Result};
use crate::repo;
use json::{Shape, Spec};
use records::{Record, Store};

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
