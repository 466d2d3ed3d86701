//! `git t3 install-hooks` / `uninstall-hooks`: agent and git hook set-up that
//! never clobbers what is there, and comes out exactly as it went in.
//!
//! - Claude Code: our two hook entries are merged into the project's
//!   `.claude/settings.json`; the file as it was is kept under
//!   `<git dir>/t3/install/`, so uninstalling restores it byte for byte when
//!   nothing else changed meanwhile (otherwise only our entries go).
//! - Codex: its configuration is the user's (`~/.codex/config.toml`), so the
//!   snippet is printed, not written.
//! - git: a `pre-push` block between marker lines (appended to an existing
//!   hook, in `core.hooksPath` when set) pushes the checkpoints along with a
//!   branch when `t3.pushCheckpoints` is true; uninstalling removes exactly
//!   the bytes it added.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Value, json};

use crate::atomic::{self, Durability};
use crate::error::{Context as _, Error, IoContext as _, Result};
use crate::repo;

const HOOK_COMMAND: &str = "git t3 hook claude-code";
const EVENTS: [&str; 2] = ["UserPromptSubmit", "Stop"];
const BEGIN: &str = "# >>> git-t3 >>>";
const END: &str = "# <<< git-t3 <<<";
/// The Codex configuration to add to `~/.codex/config.toml`.
pub const CODEX_SNIPPET: &str = "notify = [\"git\", \"t3\", \"hook\", \"codex\"]\n";

/// Which integrations to (un)install.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// `.claude/settings.json`.
    pub claude_code: bool,
    /// Print the Codex snippet.
    pub codex: bool,
    /// The `pre-push` git hook block.
    pub git: bool,
}

/// What was done.
#[derive(Debug, Serialize, Default)]
pub struct InstallOutcome {
    /// Files written or removed, with what happened to them.
    pub changed: Vec<String>,
    /// Text for the user to paste (the Codex snippet).
    pub snippets: Vec<String>,
}

fn backup_path(repo: &gix::Repository) -> PathBuf {
    repo::t3_common_dir(repo)
        .join("install")
        .join("claude-settings.json.orig")
}

fn block() -> String {
    format!(
        "\n{BEGIN}\n# Push git t3 checkpoints along with a branch (git config t3.pushCheckpoints true).\n\
         if [ \"$(git config --bool t3.pushCheckpoints)\" = true ]; then\n  \
         git t3 push \"$1\" >&2 || echo \"git t3: could not push the checkpoints\" >&2\nfi\n{END}\n"
    )
}

fn hooks_dir(repo: &gix::Repository, workdir: &Path) -> PathBuf {
    match repo.config_snapshot().trusted_path("core.hooksPath") {
        Ok(Some(p)) => {
            if p.is_absolute() {
                p
            } else {
                workdir.join(p)
            }
        }
        _ => repo.common_dir().join("hooks"),
    }
}

fn has_our_entry(groups: &Value) -> bool {
    groups.as_array().is_some_and(|gs| {
        gs.iter().any(|g| {
            g.get("hooks").and_then(Value::as_array).is_some_and(|hs| {
                hs.iter()
                    .any(|h| h.get("command").and_then(Value::as_str) == Some(HOOK_COMMAND))
            })
        })
    })
}

fn without_our_entries(mut settings: Value) -> Value {
    if let Some(hooks) = settings.get_mut("hooks").and_then(Value::as_object_mut) {
        for event in EVENTS {
            if let Some(groups) = hooks.get_mut(event).and_then(Value::as_array_mut) {
                groups.retain(|g| {
                    !g.get("hooks").and_then(Value::as_array).is_some_and(|hs| {
                        hs.iter()
                            .all(|h| h.get("command").and_then(Value::as_str) == Some(HOOK_COMMAND))
                    })
                });
                if groups.is_empty() {
                    hooks.remove(event);
                }
            }
        }
        if hooks.is_empty()
            && let Some(obj) = settings.as_object_mut()
        {
            obj.remove("hooks");
        }
    }
    settings
}

fn read_settings(path: &Path) -> Result<Option<(Vec<u8>, Value)>> {
    match std::fs::read(path) {
        Ok(bytes) => {
            let value: Value = serde_json::from_slice(&bytes).map_err(|e| Error::BadInput {
                source_name: path.display().to_string(),
                problem: format!("not valid JSON ({e}); fix it before installing hooks"),
            })?;
            if !value.is_object() {
                return Err(Error::BadInput {
                    source_name: path.display().to_string(),
                    problem: "not a JSON object".into(),
                });
            }
            Ok(Some((bytes, value)))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).context(|| format!("could not read {}", path.display())),
    }
}

fn write_json(path: &Path, value: &Value) -> Result<()> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| Error::Internal(e.to_string()))?;
    text.push('\n');
    atomic::write(path, text.as_bytes(), None, Durability::Flushed)
}

/// Install the chosen integrations.
pub fn install(repo: &gix::Repository, opts: Options) -> Result<InstallOutcome> {
    let workdir = repo::workdir(repo)?;
    let mut out = InstallOutcome::default();
    if opts.claude_code {
        install_claude(repo, &workdir, &mut out)?;
    }
    if opts.codex {
        out.snippets
            .push(format!("# add to ~/.codex/config.toml\n{CODEX_SNIPPET}"));
    }
    if opts.git {
        install_pre_push(repo, &workdir, &mut out)?;
    }
    Ok(out)
}

/// Merge our hook entries into `.claude/settings.json`, keeping a copy of
/// the file as it was for a byte-for-byte uninstall.
fn install_claude(repo: &gix::Repository, workdir: &Path, out: &mut InstallOutcome) -> Result<()> {
    let path = workdir.join(".claude/settings.json");
    let bad = |problem: &str| Error::BadInput {
        source_name: path.display().to_string(),
        problem: problem.to_owned(),
    };
    let existing = read_settings(&path)?;
    let mut settings = existing.as_ref().map_or_else(|| json!({}), |(_, v)| v.clone());
    let hooks = settings
        .as_object_mut()
        .ok_or_else(|| bad("not a JSON object"))?
        .entry("hooks")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| bad("\"hooks\" is not an object"))?;
    let mut added = false;
    for event in EVENTS {
        let groups = hooks.entry(event).or_insert_with(|| json!([]));
        if !has_our_entry(groups) {
            let arr = groups
                .as_array_mut()
                .ok_or_else(|| bad(&format!("hooks.{event} is not a list")))?;
            arr.push(json!({"hooks": [{"type": "command", "command": HOOK_COMMAND, "timeout": 60}]}));
            added = true;
        }
    }
    if !added {
        return Ok(());
    }
    let backup = backup_path(repo);
    if !backup.exists() && !backup.with_extension("absent").exists() {
        // "absent" is recorded as an empty backup file with a marker name.
        match &existing {
            Some((bytes, _)) => atomic::write(&backup, bytes, None, Durability::Flushed)?,
            None => atomic::write(&backup.with_extension("absent"), b"", None, Durability::Flushed)?,
        }
    }
    write_json(&path, &settings)?;
    out.changed
        .push(format!("{}: added the git t3 hooks", path.display()));
    Ok(())
}

/// Append our block to the `pre-push` hook (creating it when there is none).
fn install_pre_push(repo: &gix::Repository, workdir: &Path, out: &mut InstallOutcome) -> Result<()> {
    let hook = hooks_dir(repo, workdir).join("pre-push");
    let current = std::fs::read(&hook).ok();
    if current
        .as_ref()
        .is_some_and(|c| c.windows(BEGIN.len()).any(|w| w == BEGIN.as_bytes()))
    {
        return Ok(());
    }
    // The block brings its own leading newline, so that removing exactly
    // what was added gives the file back byte for byte.
    let mut text = current.clone().unwrap_or_else(|| b"#!/bin/sh\n".to_vec());
    text.extend_from_slice(block().as_bytes());
    if current.is_none() {
        let marker = repo::t3_common_dir(repo).join("install").join("pre-push.created");
        atomic::write(&marker, b"", None, Durability::Flushed)?;
    }
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(&hook).map_or(0o644, |m| m.permissions().mode() & 0o7777) | 0o755;
    atomic::write(&hook, &text, Some(mode), Durability::Flushed)?;
    out.changed.push(format!(
        "{}: added the git t3 block (active when `git config t3.pushCheckpoints true`)",
        hook.display()
    ));
    Ok(())
}

/// Remove exactly what [`install`] added.
pub fn uninstall(repo: &gix::Repository, opts: Options) -> Result<InstallOutcome> {
    let workdir = repo::workdir(repo)?;
    let mut out = InstallOutcome::default();
    if opts.claude_code {
        uninstall_claude(repo, &workdir, &mut out)?;
    }
    if opts.git {
        uninstall_pre_push(repo, &workdir, &mut out)?;
    }
    if opts.codex {
        out.snippets
            .push(format!("# remove from ~/.codex/config.toml\n{CODEX_SNIPPET}"));
    }
    Ok(out)
}

fn uninstall_claude(repo: &gix::Repository, workdir: &Path, out: &mut InstallOutcome) -> Result<()> {
    let path = workdir.join(".claude/settings.json");
    let Some((_, current)) = read_settings(&path)? else {
        return Ok(());
    };
    let stripped = without_our_entries(current.clone());
    if stripped == current {
        return Ok(());
    }
    let backup = backup_path(repo);
    let absent = backup.with_extension("absent");
    let original = std::fs::read(&backup).ok();
    let original_value = original
        .as_ref()
        .and_then(|b| serde_json::from_slice::<Value>(b).ok());
    if let Some(bytes) = original.filter(|_| original_value.as_ref() == Some(&stripped)) {
        // Nothing else changed: put the file back byte for byte.
        atomic::write(&path, &bytes, None, Durability::Flushed)?;
    } else if absent.exists() && stripped == json!({}) {
        std::fs::remove_file(&path).at("could not remove", &path)?;
        if let Some(dir) = path.parent() {
            let _ = std::fs::remove_dir(dir);
        }
    } else {
        write_json(&path, &stripped)?;
    }
    let _ = std::fs::remove_file(&backup);
    let _ = std::fs::remove_file(&absent);
    out.changed
        .push(format!("{}: removed the git t3 hooks", path.display()));
    Ok(())
}

fn uninstall_pre_push(repo: &gix::Repository, workdir: &Path, out: &mut InstallOutcome) -> Result<()> {
    let hook = hooks_dir(repo, workdir).join("pre-push");
    let Ok(text) = std::fs::read(&hook) else {
        return Ok(());
    };
    let block = block();
    let created = repo::t3_common_dir(repo).join("install").join("pre-push.created");
    let Some(at) = text.windows(block.len()).position(|w| w == block.as_bytes()) else {
        return Ok(());
    };
    let mut rest = text.get(..at).unwrap_or_default().to_vec();
    rest.extend_from_slice(text.get(at + block.len()..).unwrap_or_default());
    if created.exists() && rest == b"#!/bin/sh\n" {
        std::fs::remove_file(&hook).at("could not remove", &hook)?;
    } else {
        atomic::write(&hook, &rest, None, Durability::Flushed)?;
    }
    let _ = std::fs::remove_file(&created);
    out.changed
        .push(format!("{}: removed the git t3 block", hook.display()));
    Ok(())
}
