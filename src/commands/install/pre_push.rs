//! The git `pre-push` block: between marker lines, appended to an existing
//! hook (in `core.hooksPath` when set), pushing the checkpoints along with a
//! branch when `t3.pushCheckpoints` is true; uninstalling removes exactly the
//! bytes it added.

use std::path::{Path, PathBuf};

use super::{Action, Change, InstallOutcome, What};
use crate::atomic::{self, Durability};
use crate::error::{IoContext as _, Result};
use crate::repo;

const BEGIN: &str = "# >>> git-t3 >>>";
const END: &str = "# <<< git-t3 <<<";

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

/// The `pre-push` hook and its base (see [`super::links`]): the git dir for
/// the hooks inside it, the worktree for a `core.hooksPath` inside that,
/// else the hooks folder itself, which may be a link of the user's.
fn hook_and_base(repo: &gix::Repository) -> Result<(PathBuf, PathBuf)> {
    let workdir = repo::workdir(repo)?;
    let dir = hooks_dir(repo, &workdir);
    let base = if dir.starts_with(repo.common_dir()) {
        repo.common_dir().to_owned()
    } else if dir.starts_with(&workdir) {
        workdir
    } else {
        dir.clone()
    };
    Ok((dir.join("pre-push"), base))
}

/// The hook's bytes (`None`: there is none), after refusing a link on the
/// way to it; a FIFO, socket or device is refused without being opened for
/// a blocking read.
fn read_hook(repo: &gix::Repository) -> Result<(PathBuf, Option<Vec<u8>>)> {
    let (hook, base) = hook_and_base(repo)?;
    super::links::refuse(&base, &hook)?;
    match crate::fsread::read_regular(&hook, false) {
        Ok(data) => Ok((hook, Some(data))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((hook, None)),
        Err(e) => Err(e).at("could not read", &hook),
    }
}

/// Refuse, before anything is written, a hook that cannot be edited.
pub(super) fn check(repo: &gix::Repository) -> Result<()> {
    read_hook(repo).map(drop)
}

fn created_marker(repo: &gix::Repository) -> PathBuf {
    repo::t3_common_dir(repo).join("install").join("pre-push.created")
}

/// Append our block to the `pre-push` hook (creating it when there is none).
pub(super) fn install(repo: &gix::Repository, out: &mut InstallOutcome) -> Result<()> {
    let (hook, current) = read_hook(repo)?;
    if current
        .as_ref()
        .is_some_and(|c| c.windows(BEGIN.len()).any(|w| w == BEGIN.as_bytes()))
    {
        out.changes
            .push(Change::new(&hook, What::GitPrePush, Action::AlreadyThere));
        return Ok(());
    }
    // The block brings its own leading newline, so that removing exactly
    // what was added gives the file back byte for byte.
    let mut text = current.clone().unwrap_or_else(|| b"#!/bin/sh\n".to_vec());
    text.extend_from_slice(block().as_bytes());
    if current.is_none() {
        atomic::write(&created_marker(repo), b"", None, Durability::Flushed)?;
    }
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::symlink_metadata(&hook).map_or(0o644, |m| m.permissions().mode() & 0o7777) | 0o755;
    atomic::write(&hook, &text, Some(mode), Durability::Flushed)?;
    out.changes
        .push(Change::new(&hook, What::GitPrePush, Action::Added));
    Ok(())
}

/// Remove exactly the block [`install`] added.
pub(super) fn uninstall(repo: &gix::Repository, out: &mut InstallOutcome) -> Result<()> {
    let (hook, current) = read_hook(repo)?;
    let block = block();
    let created = created_marker(repo);
    let at = current.and_then(|text| {
        text.windows(block.len())
            .position(|w| w == block.as_bytes())
            .map(|at| (text, at))
    });
    let Some((text, at)) = at else {
        out.changes
            .push(Change::new(&hook, What::GitPrePush, Action::NotThere));
        return Ok(());
    };
    let mut rest = text.get(..at).unwrap_or_default().to_vec();
    rest.extend_from_slice(text.get(at + block.len()..).unwrap_or_default());
    let action = if created.exists() && rest == b"#!/bin/sh\n" {
        std::fs::remove_file(&hook).at("could not remove", &hook)?;
        Action::Deleted
    } else {
        atomic::write(&hook, &rest, None, Durability::Flushed)?;
        Action::Removed
    };
    let _ = std::fs::remove_file(&created);
    out.changes.push(Change::new(&hook, What::GitPrePush, action));
    Ok(())
}
