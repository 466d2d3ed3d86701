//! `git t3 restore`: put back only some paths from a turn (the workflow is
//! [`crate::revert::paths`]). The lock is taken first; paths given on the
//! command line are resolved against the directory the command runs in,
//! like git's pathspecs.

use std::path::{Component, Path, PathBuf};

use gix::bstr::{BString, ByteSlice};
use serde::Serialize;

use crate::commands::Context;
use crate::error::{Error, Result};
use crate::model::path::check_component;
use crate::model::thread::ThreadId;
use crate::repo;
use crate::revert::paths::{self, Restored};

/// Inputs of `restore`.
#[derive(Debug, Clone)]
pub struct Options {
    /// The thread.
    pub thread: ThreadId,
    /// The turn to take the paths from.
    pub turn: u64,
    /// The paths, as given (relative to `cwd`, or absolute).
    pub paths: Vec<PathBuf>,
    /// The directory the command runs in (`-C`, else the current one).
    pub cwd: PathBuf,
    /// Move nested repositories in the way aside instead of refusing.
    pub force: bool,
    /// Take the turn from what `fetch` kept apart from this remote.
    pub remote: Option<String>,
}

/// What `restore` did.
#[derive(Debug, Serialize)]
pub struct RestoreOutcome {
    /// It.
    #[serde(flatten)]
    pub restored: Restored,
}

/// Restore `opts.paths` from turn `opts.turn`, under the repository lock.
pub fn run(ctx: &Context, opts: Options) -> Result<RestoreOutcome> {
    let workdir = repo::workdir(&ctx.repo)?;
    let mut paths = opts
        .paths
        .iter()
        .map(|p| resolve(&workdir, &opts.cwd, p))
        .collect::<Result<Vec<_>>>()?;
    paths.sort();
    paths.dedup();
    let lock = ctx.lock("restore")?;
    crate::store::require_bound_here(lock.repo(), &opts.thread, "restore", opts.force)?;
    let restored = paths::restore_paths(
        &lock,
        paths::Options {
            thread: opts.thread,
            turn: opts.turn,
            paths,
            force: opts.force,
            remote: opts.remote,
            homes: ctx.settings.provider.homes.clone(),
        },
    )?;
    Ok(RestoreOutcome { restored })
}

/// `raw` (relative to `cwd`, or absolute) as a `/`-separated path relative
/// to the worktree `workdir` (empty: the worktree itself). `.` and `..` are
/// resolved by name, not by following links, like git's pathspecs.
fn resolve(workdir: &Path, cwd: &Path, raw: &Path) -> Result<BString> {
    let root = std::fs::canonicalize(workdir).unwrap_or_else(|_| workdir.to_owned());
    let bad = |problem: &str| Error::BadPath {
        path: raw.display().to_string().escape_debug().to_string(),
        problem: problem.to_owned(),
        workdir: root.clone(),
    };
    let full = if raw.is_absolute() {
        raw.to_owned()
    } else {
        std::fs::canonicalize(cwd)
            .map_err(|e| bad(&format!("cannot resolve the directory {}: {e}", cwd.display())))?
            .join(raw)
    };
    let mut normal = PathBuf::new();
    for c in full.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    let rela = normal
        .strip_prefix(&root)
        .or_else(|_| normal.strip_prefix(workdir))
        .map_err(|_| bad("is outside the worktree"))?;
    let mut out = BString::default();
    for c in rela.components() {
        let name = gix::path::os_str_into_bstr(c.as_os_str()).map_err(|_| bad("is not a valid path here"))?;
        if let Err(p) = check_component(name) {
            return Err(bad(p.as_str()));
        }
        if !out.is_empty() {
            out.push(b'/');
        }
        out.extend_from_slice(name.as_bytes());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::resolve;
    use std::path::Path;

    #[test]
    fn resolves_like_pathspecs() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("w");
        std::fs::create_dir_all(root.join("src/sub")).unwrap();
        let r = |cwd: &str, p: &str| resolve(&root, &root.join(cwd), Path::new(p)).map(|b| b.to_string());
        assert_eq!(r("", "f.txt").unwrap(), "f.txt");
        assert_eq!(r("src", "a.rs").unwrap(), "src/a.rs");
        assert_eq!(r("src/sub", "../b.rs").unwrap(), "src/b.rs");
        assert_eq!(r("src", "./dir/").unwrap(), "src/dir");
        assert_eq!(r("src", "..").unwrap(), "");
        assert!(r("", "../outside").is_err());
        assert!(r("", ".git/config").is_err());
        assert!(r("", "sub/.GIT/x").is_err());
        let abs = root.join("src/x.rs");
        assert_eq!(r("", abs.to_str().unwrap()).unwrap(), "src/x.rs");
    }
}
