//! The per-checkout settings file install writes (Claude Code's
//! `.claude/settings.local.json`) is kept out of git, and so out of every
//! checkpoint: a line in `$GIT_DIR/info/exclude` (never `.gitignore`, which
//! is the team's), added only when git neither tracks nor ignores the file,
//! and taken out again by uninstall.

use std::path::{Path, PathBuf};

use crate::error::{Context as _, Result};

/// The comment above our line, so uninstall finds exactly what install added.
const MARK: &str = "# git t3 install-hooks: this checkout's own agent settings";

fn exclude_file(repo: &gix::Repository) -> PathBuf {
    repo.common_dir().join("info").join("exclude")
}

/// Refuse an exclude file (or `info` folder) that is a symbolic link, or
/// one that is not a regular file: it is never edited through a link nor
/// opened for a blocking read.
pub(super) fn check(repo: &gix::Repository) -> Result<()> {
    let file = exclude_file(repo);
    super::links::refuse(repo.common_dir(), &file)?;
    read(&file).map(drop)
}

/// The exclude file's text (empty when there is none).
fn read(file: &Path) -> Result<String> {
    match crate::fsread::read_regular(file, false) {
        Ok(data) => Ok(String::from_utf8_lossy(&data).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(e).context(|| format!("could not read {}", file.display())),
    }
}

fn write(repo: &gix::Repository, file: &Path, text: &str) -> Result<()> {
    super::links::refuse(repo.common_dir(), file)?;
    crate::atomic::write(file, text.as_bytes(), None, crate::atomic::Durability::Flushed)
}

/// `/<path relative to workdir>`, the line that ignores exactly that file.
fn line_for(workdir: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(workdir).ok()?;
    let rel = rel.to_str()?;
    (!rel.contains('\n')).then(|| format!("/{rel}"))
}

/// Whether git tracks or ignores `rel` now.
fn tracked_or_ignored(repo: &gix::Repository, rel: &str) -> Result<bool> {
    let index = repo
        .index_or_empty()
        .context(|| "could not read the index".into())?;
    if index.entry_by_path(rel.into()).is_some() {
        return Ok(true);
    }
    let mut excludes = repo
        .excludes(
            &index,
            None,
            gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped,
        )
        .context(|| "could not read the ignore rules".into())?;
    let ignored = excludes
        .at_path(rel, Some(gix::index::entry::Mode::FILE))
        .context(|| format!("could not match {rel} against the ignore rules"))?
        .is_excluded();
    Ok(ignored)
}

/// Keep `path` (in `workdir`) out of git; returns the exclude file when a
/// line was added.
pub(super) fn add(repo: &gix::Repository, workdir: &Path, path: &Path) -> Result<Option<PathBuf>> {
    let Some(line) = line_for(workdir, path) else {
        return Ok(None);
    };
    if tracked_or_ignored(repo, &line[1..])? {
        return Ok(None);
    }
    let file = exclude_file(repo);
    super::links::refuse(repo.common_dir(), &file)?;
    let mut text = read(&file)?;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&format!("{MARK}\n{line}\n"));
    write(repo, &file, &text)?;
    Ok(Some(file))
}

/// Take out the line [`add`] added for `path`; returns the exclude file
/// when one was taken out.
pub(super) fn remove(repo: &gix::Repository, workdir: &Path, path: &Path) -> Result<Option<PathBuf>> {
    let Some(line) = line_for(workdir, path) else {
        return Ok(None);
    };
    let file = exclude_file(repo);
    super::links::refuse(repo.common_dir(), &file)?;
    let text = read(&file)?;
    let ours = format!("{MARK}\n{line}\n");
    if !text.contains(&ours) {
        return Ok(None);
    }
    let back = text.replacen(&ours, "", 1);
    write(repo, &file, &back)?;
    Ok(Some(file))
}
