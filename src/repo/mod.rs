//! The gix plumbing git-t3 needs, in one place: opening the repository,
//! objects written durably, refs with compare-and-swap, the notes tree, the
//! repository lock and the one publish protocol built from them.
//!
//! The rest of the crate calls these functions instead of gix's API (the
//! status walk in `snapshot` and the tree diff in `diff` aside), so that a
//! gix upgrade touches this folder first.
//!
//! Who may write: every function that changes a ref, a note or the worktree
//! takes a [`Locked`] — the proof that the repository lock is held.

pub mod alive;
pub mod blob_stream;
pub mod disk;
pub mod durable;
pub mod fold;
pub mod index_file;
pub mod inflight;
pub mod lock;
pub mod loose;
pub mod notes;
pub mod objects;
pub mod pack;
pub mod publish;
pub mod ref_children;
pub mod refs;

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

pub use lock::{Locked, RepoLock};
pub use notes::{
    NoteEdit, NotesChange, NotesReader, commit_notes, edit_notes, list_notes, remove_notes_for_good,
};
pub use objects::{
    IDENTITY_EMAIL, IDENTITY_NAME, Recorder, T3CODE_EMAIL, T3CODE_NAME, commit_identity, commit_time,
    commit_tree, ensure_tree_object, entry_at, hash_blob, head_tree, head_tree_or_empty, is_t3_identity,
    is_t3code_commit, read_blob, tree_editor, write_commit,
};
pub use ref_children::list_ref_children;
pub use refs::{
    Expect, RefEntry, RefUpdate, find_direct_ref, find_ref, list_refs, update_refs, update_refs_with_objects,
};

/// Bytes of decoded objects kept per object-database handle.
const OBJECT_CACHE_BYTES: usize = 8 << 20;

/// Open the repository holding `dir` the way git does (honouring `GIT_DIR`,
/// `GIT_WORK_TREE` and the discovery limits), with `overrides`
/// (`key=value`, as `git -c` gives them) over every configuration file.
pub fn open(dir: &Path, overrides: &[String]) -> Result<gix::Repository> {
    let overrides = overrides.to_vec();
    let opened = gix::ThreadSafeRepository::discover_with_environment_overrides_opts(
        dir,
        Default::default(),
        move |options, _trust| options.cli_overrides(overrides),
    )
    .map(gix::Repository::from);
    match opened {
        // Like git, a repository owned by someone else is refused whole
        // (unless `safe.directory` says otherwise): its config could name
        // programs to run.
        Ok(repo) if repo.git_dir_trust() != gix::sec::Trust::Full => Err(Error::DubiousOwnership {
            path: repo.workdir().unwrap_or(repo.git_dir()).to_owned(),
        }),
        Ok(mut repo) => {
            // A capture, a diff or a revert reads the same trees more than
            // once (the tree edit, then the turn's and the thread's
            // summaries); each read of a loose object opens, maps and
            // inflates its file again without a cache.
            repo.object_cache_size_if_unset(OBJECT_CACHE_BYTES);
            Ok(repo)
        }
        // No repository up to the root or a ceiling, or a directory that does
        // not exist: gix classifies all of them as "not found".
        Err(e) if e.is_not_found() => Err(Error::NotARepository { path: dir.to_owned() }),
        // Checkpoint ids, journals and op records are SHA-1 today.
        Err(e) if mentions(&e, "extensions.objectFormat") => Err(Error::Refused(format!(
            "the repository at {} uses an object format git t3 does not support yet \
             (extensions.objectFormat; only SHA-1 repositories are supported)",
            dir.display()
        ))),
        Err(e) => Err(Error::Git {
            context: format!("could not open the repository at {}", dir.display()),
            source: Box::new(e),
        }),
    }
}

/// Whether `e` or any error behind it says `what`.
fn mentions(e: &(dyn std::error::Error + 'static), what: &str) -> bool {
    std::iter::successors(Some(e), |e| e.source()).any(|e| e.to_string().contains(what))
}

/// The working tree of `repo`, or an error for a bare repository.
pub fn workdir(repo: &gix::Repository) -> Result<PathBuf> {
    repo.workdir().map(Path::to_owned).ok_or_else(|| Error::Bare {
        path: repo.git_dir().to_owned(),
    })
}

/// `path` with links resolved (as it is when that fails): how a worktree
/// is named in notes and compared with the one a command runs in.
pub fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
}

/// Where git-t3 keeps its private files shared by all worktrees (lock, caches).
pub fn t3_common_dir(repo: &gix::Repository) -> PathBuf {
    repo.common_dir().join("t3")
}

/// The git dir of this worktree as an absolute path (how ops name a worktree).
pub fn absolute_git_dir(repo: &gix::Repository) -> String {
    std::path::absolute(repo.git_dir())
        .unwrap_or_else(|_| repo.git_dir().to_owned())
        .to_string_lossy()
        .into_owned()
}

/// Where git-t3 keeps its per-worktree private files (the capture cache).
pub fn t3_worktree_dir(repo: &gix::Repository) -> PathBuf {
    repo.git_dir().join("t3")
}

/// Where `dir` (the directory a command runs in: `-C`, else the current
/// one) is inside the worktree, as git's prefix: `sub/dir/`, or empty at
/// the root, outside the worktree and in a bare repository.
pub fn prefix(repo: &gix::Repository, dir: &Path) -> gix::bstr::BString {
    let Some(workdir) = repo.workdir() else {
        return Default::default();
    };
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
    let (root, dir) = (real(workdir), real(dir));
    let mut prefix = gix::bstr::BString::default();
    if let Ok(inside) = dir.strip_prefix(&root) {
        for c in inside.components() {
            if let Ok(name) = gix::path::os_str_into_bstr(c.as_os_str()) {
                prefix.extend_from_slice(name);
                prefix.push(b'/');
            }
        }
    }
    prefix
}
