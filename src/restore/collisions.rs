//! What sits in the worktree where a restore will write, but is not in the
//! snapshot the restore compares with: ignored (or t3-ignored, or skipped)
//! files and directories, symlinks in the way of a directory, and nested
//! repositories. A restore would overwrite or delete them; the caller keeps
//! them in its safety checkpoint first, or refuses (nested repositories).

use std::path::Path;

use gix::bstr::{BStr, BString, ByteSlice};

use crate::error::{Context as _, Result};
use crate::restore::{Plan, abs};

/// What is in the way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A file the snapshot left out.
    File,
    /// A symlink the snapshot left out (or one where a directory must go).
    Symlink,
    /// A directory the snapshot left out (every file below it is kept).
    Dir,
    /// A nested repository: never deleted, never written into.
    Repository,
}

/// One path in the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collision {
    /// Worktree-relative path.
    pub path: BString,
    /// What is there.
    pub kind: Kind,
}

/// Whether `dir` is the worktree of a nested repository.
pub fn is_repository(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(".git")).is_ok()
}

/// What the restore of `plan` would overwrite or delete that the current
/// snapshot does not hold, sorted by path.
pub fn find(workdir: &Path, plan: &Plan) -> Result<Vec<Collision>> {
    let mut out: Vec<Collision> = Vec::new();
    let deleted = |p: &BStr| plan.deletes().binary_search_by(|d| d.as_bstr().cmp(p)).is_ok();
    let mut kinds: std::collections::HashMap<BString, Option<Kind>> = std::collections::HashMap::new();
    for path in plan.new_paths() {
        // Leading components: a file or symlink where a directory must go,
        // or a nested repository that would be written into. Below the first
        // that is not a plain directory nothing is looked at (a symlink is
        // never followed).
        let mut blocked = false;
        for (start, _, c) in path.char_indices() {
            if c != '/' {
                continue;
            }
            let prefix = path[..start].as_bstr();
            let kind = match kinds.get(prefix) {
                Some(k) => *k,
                None => {
                    let k = kind_at(&abs(workdir, prefix)?)?;
                    kinds.insert(prefix.to_owned(), k);
                    k
                }
            };
            match kind {
                Some(Kind::Dir) => continue,
                Some(kind) if !deleted(prefix) => push(&mut out, prefix, kind),
                _ => {}
            }
            blocked = true;
            break;
        }
        if !blocked && let Some(kind) = kind_at(&abs(workdir, path.as_bstr())?)? {
            push(&mut out, path.as_bstr(), kind);
        }
    }
    // A path the snapshot has as a gitlink that the target has as a file:
    // the nested repository is there, and would be replaced.
    for path in plan.writes() {
        if plan.new_paths().binary_search(path).is_err()
            && kind_at(&abs(workdir, path.as_bstr())?)? == Some(Kind::Repository)
        {
            push(&mut out, path.as_bstr(), Kind::Repository);
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out.dedup();
    Ok(out)
}

fn push(out: &mut Vec<Collision>, path: &BStr, kind: Kind) {
    out.push(Collision {
        path: path.to_owned(),
        kind,
    });
}

/// What is at `path`, without following a symlink.
fn kind_at(path: &Path) -> Result<Option<Kind>> {
    match std::fs::symlink_metadata(path) {
        Ok(md) if md.file_type().is_symlink() => Ok(Some(Kind::Symlink)),
        Ok(md) if md.is_dir() && is_repository(path) => Ok(Some(Kind::Repository)),
        Ok(md) if md.is_dir() => Ok(Some(Kind::Dir)),
        Ok(_) => Ok(Some(Kind::File)),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(e).context(|| format!("could not stat {}", path.display())),
    }
}

/// Every file and symlink below the directory `rela` (worktree-relative),
/// and the nested repositories among its subdirectories (not descended into).
pub fn files_below(workdir: &Path, rela: &BStr) -> Result<(Vec<BString>, Vec<BString>)> {
    let (mut files, mut repos) = (Vec::new(), Vec::new());
    let mut stack = vec![rela.to_owned()];
    while let Some(dir) = stack.pop() {
        let abs_dir = abs(workdir, dir.as_bstr())?;
        let entries =
            std::fs::read_dir(&abs_dir).context(|| format!("could not read {}", abs_dir.display()))?;
        for entry in entries {
            let entry = entry.context(|| format!("could not read {}", abs_dir.display()))?;
            let name = gix::path::os_str_into_bstr(&entry.file_name())
                .map(ToOwned::to_owned)
                .unwrap_or_else(|_| entry.file_name().to_string_lossy().as_bytes().into());
            let mut child = dir.clone();
            child.push(b'/');
            child.extend_from_slice(&name);
            let ft = entry
                .file_type()
                .context(|| format!("could not stat {}", entry.path().display()))?;
            if ft.is_dir() {
                if is_repository(&entry.path()) {
                    repos.push(child);
                } else {
                    stack.push(child);
                }
            } else {
                files.push(child);
            }
        }
    }
    files.sort();
    repos.sort();
    Ok((files, repos))
}
