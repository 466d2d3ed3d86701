//! Snapshot the whole working tree into a tree object, the way
//! `GIT_INDEX_FILE=<private> git read-tree HEAD && git add -A && git write-tree`
//! would, but in O(changes since the last capture).
//!
//! # The private cache
//!
//! Per worktree, `<git dir>/t3/` holds:
//! - `index.tracked`: exactly the paths of the HEAD tree the cache was built
//!   from, each with the id, mode and stat of its file as last captured (a
//!   path absent from the worktree keeps an all-zero stat);
//! - `index.untracked`: the untracked, not ignored files of the last capture;
//! - `index.dirs`: the untracked-walk cache, per directory walked its stat
//!   data and the untracked entries found in it (see `untracked.rs`);
//! - `cache`: the HEAD tree and the tree of the last capture, the
//!   identities of the index files (and of `index.dirs`), so a torn update
//!   is detected, the file-system watcher's token taken before that walk,
//!   and the attributes' fingerprint with whether they convert line
//!   endings automatically (so the next walk need not wait for them: they
//!   are read beside it, see `attrs.rs`). It is written last, and only
//!   once the objects the indexes name are on disk
//!   ([`Snapshot::keep_cache`]).
//!
//! A capture runs gix's status (a parallel `lstat` walk plus the untracked
//! walk) against `index.tracked`, hashes only what changed, reuses
//! `index.untracked` as a stat cache for untracked files, and edits the last
//! captured tree. When HEAD moved, or the cache is missing or inconsistent, it
//! rebuilds `index.tracked` from the HEAD tree, copying stat data from the old
//! cache where path, id and mode agree (from the user's index only when no
//! attribute or setting can convert a file now and the size it recorded is
//! the blob's: its ids may predate a settings change), and edits the HEAD
//! tree instead. The user's index is only ever read.
//!
//! # Racy git
//!
//! Both index files are stamped with the file-system time at which the walk
//! started (the mtime of the freshly written lock file). An entry whose file
//! changed at or after that instant is "racy" and is hashed again next time,
//! so a file modified while it was being read can never be mistaken for clean.
//!
//! # Where each phase lives
//!
//! This file loads the cache, chooses an incremental run or a rebuild, and
//! calls the phases of a run in turn (`Ctx::run`):
//! - `cache.rs`: the private cache: loading it and, last, writing it back
//!   in the background; `rebuild.rs`: a fresh `index.tracked` from HEAD;
//! - `walk.rs`: the status walk, and folding what it found for tracked files
//!   into `index.tracked` and tree edits;
//! - `hash.rs`: what a capture hashes, and what it reuses from the last one;
//!   `clean.rs`: the clean filters, with git's CRLF check against HEAD;
//!   `attrs.rs`: when the attributes changed, so nothing cached holds;
//! - `skip_worktree.rs`, `gitlinks.rs`: entries the status walk does not
//!   settle; `sparse.rs`: untracked files outside the sparse patterns;
//! - `run.rs`: one capture, step by step (the methods of `Ctx`);
//! - `tree.rs`: the tree edits, applied to the base tree; `captured.rs`:
//!   an untracked file as captured (hashed, added to the tree, cached);
//! - `untracked.rs`: the untracked walk, directory by directory, replaying
//!   what did not change from `index.dirs`;
//! - `watcher/`: asking a file-system watcher what changed (the hook,
//!   Watchman, running them), and
//!   `focus.rs`: what its answer spares;
//! - `scope.rs`: what a capture leaves out besides git's ignored files
//!   (`t3.maxFileSize`, `.t3ignore`, `info/t3-exclude`);
//! - `secrets.rs`: which recorded paths look like secrets.

use std::path::Path;
use std::time::SystemTime;

use gix::ObjectId;

use crate::error::{Error, Result};
use crate::repo::Locked;
use crate::repo::{self, Recorder};

mod attrs;
mod cache;
mod captured;
mod clean;
mod fingerprint;
mod focus;
mod gitlinks;
mod hash;
mod run;
pub use clean::Clean;
mod rebuild;
pub mod scope;
pub mod secrets;
mod skip_worktree;
mod sparse;
mod stream;
mod tree;
mod untracked;
mod walk;
mod watcher;

pub use scope::Skipped;

use cache::{Cache, CacheWrite};

/// What a capture produced.
#[derive(Debug)]
pub struct Snapshot {
    /// The tree of the whole worktree.
    pub tree: ObjectId,
    /// Files hashed because their stat data changed or they were new.
    pub hashed: usize,
    /// Whether the private cache had to be rebuilt from HEAD.
    pub rebuilt: bool,
    /// Untracked files left out for their size (`t3.maxFileSize`), by path.
    pub skipped: Vec<Skipped>,
    /// The cap they were over (`None`: no cap).
    pub max_file_size: Option<u64>,
    /// Untracked files captured whose paths look like secrets, by path.
    pub secrets: Vec<gix::bstr::BString>,
    /// Things the user should know about this machine's setup (a watcher
    /// that is configured but failed): one line each.
    pub notices: Vec<String>,
    /// The cache being written in the background; joined on drop, which
    /// callers let happen before they release the repository lock.
    cache_write: CacheWrite,
}

impl Snapshot {
    /// Flush what `rec` wrote (nothing when a publish flushed it already)
    /// and let the cache of this snapshot be kept. Without this call the
    /// next capture starts from a cache rebuilt from HEAD: the cache names
    /// objects by id, and the next capture would reuse them without
    /// flushing them.
    pub fn keep_cache(&self, rec: &Recorder<'_>) -> Result<()> {
        rec.sync()?;
        self.cache_write.keep();
        Ok(())
    }
}

/// Capture the worktree of the locked repository as a tree, writing new
/// blobs and trees through `rec`. The racy-git timestamp is the lock's: the
/// file-system time before the walk (see the module docs).
pub fn snapshot(lock: &Locked<'_>, rec: &Recorder<'_>) -> Result<Snapshot> {
    snapshot_beside(lock, rec, None)
}

/// [`snapshot`], given a tree a ref keeps reachable (`alive`: the thread's
/// latest checkpoint), to which the new tree is likely closer than to
/// HEAD's: what it shares with it exists, and is not looked up again.
pub fn snapshot_beside(lock: &Locked<'_>, rec: &Recorder<'_>, alive: Option<ObjectId>) -> Result<Snapshot> {
    let repo = lock.repo();
    let alive = alive.filter(|t| repo.has_object(t));
    take(repo, rec, lock.racy_timestamp(), lock.interrupt(), true, alive)
}

/// The worktree as [`snapshot`] would capture it, computed without writing
/// anything: no lock, no object (new blobs and trees are kept in memory,
/// large files too, so memory grows with what changed), no cache file, no
/// watcher asked (a hook is a program that may write; the whole worktree
/// is walked instead). The last capture's cache is read, so unchanged
/// files are not hashed again.
pub struct Preview {
    /// The tree of the whole worktree.
    pub tree: ObjectId,
    /// The repository, reading the new objects from memory first (not to
    /// be shared across threads: `into_sync` leaves the memory behind).
    pub repo: gix::Repository,
}

/// See [`Preview`]; stops between files when `interrupt` fires.
pub fn preview(repo: &gix::Repository, interrupt: crate::interrupt::Interrupt) -> Result<Preview> {
    let rec = Recorder::in_memory(repo);
    // The racy-git timestamp only goes into a cache written: none is.
    let tree = take(repo, &rec, SystemTime::now(), interrupt, false, None)?.tree;
    Ok(Preview {
        tree,
        repo: rec.into_reader(),
    })
}

/// A capture of the worktree of `repo` through `rec`; `keep`: write the
/// cache and freshen the loose objects reused (a capture), or write
/// nothing (a [`preview`]); `alive`: a tree a ref keeps reachable.
fn take(
    repo: &gix::Repository,
    rec: &Recorder<'_>,
    walk_started: SystemTime,
    interrupt: crate::interrupt::Interrupt,
    keep: bool,
    alive: Option<ObjectId>,
) -> Result<Snapshot> {
    let workdir = repo::workdir(repo)?;
    let dir = repo::t3_worktree_dir(repo);
    let head = repo::head_tree_or_empty(repo)?;
    let t = crate::trace::span("load cache");
    let mut cache = Cache::load(repo, &dir);
    drop(t);
    let t = crate::trace::span("load untracked-walk cache");
    let dirs = untracked::DirFile::load(&dir.join(untracked::FILE));
    drop(t);
    let sparse = repo
        .config_snapshot()
        .boolean("core.sparseCheckout")
        .unwrap_or(false);
    let incremental = cache
        .as_ref()
        .is_some_and(|c| c.head == head && !sparse && repo.has_object(c.tree));
    // Ask the watcher before walking: a change made while we walk is then
    // in its next answer.
    let t = crate::trace::span("watcher");
    let asked = (!sparse && keep).then(|| ask_watcher(repo, &workdir, &dir, cache.as_ref(), dirs.as_ref()));
    let Asked {
        focus,
        watch,
        notices,
    } = asked.unwrap_or_default();
    drop(t);
    let ctx = Ctx {
        repo,
        rec,
        head,
        workdir: &workdir,
        dir: &dir,
        walk_started,
        keep,
        alive,
        interrupt,
        max_file_size: scope::max_file_size(repo)?,
        excludes: scope::Excludes::of_worktree(repo, &workdir)?,
        sparse,
        renormalize: std::cell::Cell::new(false),
        auto_eol: std::cell::Cell::new(false),
        dirs: if sparse { None } else { dirs.as_ref() },
        focus: focus.as_ref(),
        watch,
        notices,
    };
    if incremental {
        // The cached index is edited in place (a copy costs ~5 ms at
        // 100,000 files); the rare fallback loads it again.
        let tracked = cache.as_mut().map(Cache::take_tracked);
        match ctx.run(head, cache.as_ref(), tracked) {
            Ok(s) => return Ok(s),
            // The last tree or a subtree of it may have been pruned by gc;
            // start again from HEAD.
            Err(Error::Git { .. }) => cache = Cache::load(repo, &dir),
            // An id the cache holds names an object gc removed: nothing
            // the cache says is trusted.
            Err(Error::MissingObjects { .. }) => cache = None,
            Err(e) => return Err(e),
        }
    }
    match ctx.run(head, cache.as_ref(), None) {
        Err(Error::MissingObjects { .. }) if cache.is_some() => ctx.run(head, None, None),
        done => done,
    }
}

/// Hash and write the worktree file `rela` like `git add` (clean filters,
/// symlinks, nested repositories as their HEAD commit), streaming a large
/// one so memory stays bounded; `None` when there is nothing to record.
pub fn hash_file(
    repo: &gix::Repository,
    rec: &Recorder<'_>,
    pipeline: &mut Clean<'_>,
    workdir: &Path,
    rela: &gix::bstr::BStr,
) -> gix::Result<Option<(ObjectId, gix::objs::tree::EntryKind)>> {
    stream::to_object(repo, rec, pipeline, workdir, rela, None)
}

/// What every phase of one capture needs.
struct Ctx<'a, 'r> {
    repo: &'r gix::Repository,
    /// Writes objects and remembers them for the flush.
    rec: &'a Recorder<'r>,
    /// HEAD's tree: what the reference's private index is read from.
    head: ObjectId,
    workdir: &'a Path,
    /// Where the private cache lives.
    dir: &'a Path,
    /// The racy-git timestamp (see the module docs).
    walk_started: SystemTime,
    /// Write the cache and freshen reused loose objects (a capture), or
    /// write nothing (a [`preview`]).
    keep: bool,
    /// A tree a ref keeps reachable, besides HEAD's (see [`snapshot_beside`]).
    alive: Option<ObjectId>,
    /// When to stop walking (SIGINT, SIGTERM).
    interrupt: crate::interrupt::Interrupt,
    /// The largest untracked file captured (`None`: no cap).
    max_file_size: Option<u64>,
    /// The t3 exclusion rules, if any.
    excludes: Option<scope::Excludes>,
    /// Whether the worktree is a sparse checkout (`core.sparseCheckout`).
    sparse: bool,
    /// The attributes changed since the cache was written: no stat data is
    /// reused, every file is hashed (see [`attrs`]).
    renormalize: std::cell::Cell<bool>,
    /// The cached ids are the last capture's and line endings may be
    /// converted automatically: a changed tracked file is hashed by
    /// [`hash::Rehash`], whose CRLF check reads HEAD's blob, not by the
    /// status walk, whose check reads the cached id's.
    auto_eol: std::cell::Cell<bool>,
    /// The last untracked walk's cache (`None`: walk everything; sparse
    /// checkouts always do).
    dirs: Option<&'a untracked::DirFile>,
    /// What the watcher listed since the cache was written, if it may be
    /// trusted for the cache as loaded.
    focus: Option<&'a focus::Focus>,
    /// The watcher's new token, to store with the cache written now.
    watch: Option<cache::Watch>,
    /// Notices for the user (a failed watcher).
    notices: Vec<String>,
}

/// What asking the watcher gave.
#[derive(Default)]
struct Asked {
    focus: Option<focus::Focus>,
    watch: Option<cache::Watch>,
    notices: Vec<String>,
}

/// Ask the configured watcher, if any, what changed since the token stored
/// with the cache. Its answer is used only when that cache is whole: the
/// meta file names the token and the `index.dirs` that was loaded.
fn ask_watcher(
    repo: &gix::Repository,
    workdir: &Path,
    t3_dir: &Path,
    cache: Option<&Cache>,
    dirs: Option<&untracked::DirFile>,
) -> Asked {
    let (watcher, warning) = watcher::configured(repo);
    let mut asked = Asked {
        notices: warning.into_iter().collect(),
        ..Asked::default()
    };
    let Some(w) = watcher else {
        return asked;
    };
    let key = w.key();
    let dirs_path = t3_dir.join(untracked::FILE);
    let bound = |c: &&Cache| dirs.is_some() && c.dirs.is_some() && c.dirs == cache::file_identity(&dirs_path);
    let since = cache
        .filter(bound)
        .and_then(|c| c.watch.as_ref())
        .filter(|s| s.key == key)
        .map(|s| s.token.as_str());
    match w.changes(workdir, since) {
        Ok(changes) => {
            asked.focus = since.and_then(|_| focus::Focus::of(&changes));
            crate::trace::note(|| match &asked.focus {
                Some(f) => format!("watcher listed {} paths", f.len()),
                None => "watcher: everything may have changed".to_owned(),
            });
            asked.watch = changes.token.map(|token| cache::Watch { key, token });
        }
        Err(e) => asked
            .notices
            .push(format!("{e}; the whole worktree was walked instead")),
    }
    asked
}

/// Set (or clear) the flag that makes the status walk skip a tracked entry
/// on every entry the watcher did not list. Gitlinks are always checked:
/// what moves them happens in another repository's git directory.
fn mark_unlisted(tracked: &mut gix::index::File, focus: &focus::Focus, set: bool) {
    use gix::index::entry::{Flags, Mode};
    if !set {
        for e in tracked.entries_mut() {
            e.flags.remove(Flags::FSMONITOR_VALID);
        }
        return;
    }
    for e in tracked.entries_mut() {
        if e.mode != Mode::COMMIT {
            e.flags.insert(Flags::FSMONITOR_VALID);
        }
    }
    // Then each listed path (and, for a watcher whose directories stand for
    // their subtrees, what is below it) is found by binary search: a hash
    // lookup per entry costs ~10 ms at 100,000 files.
    let subtrees = focus.subtrees();
    for listed in focus.paths() {
        let range = if subtrees {
            tracked.prefixed_entries_range(listed)
        } else {
            tracked.entry_index_by_path(listed).ok().map(|i| i..i + 1)
        };
        if let Some(r) = range {
            for e in tracked.entries_mut().get_mut(r).into_iter().flatten() {
                e.flags.remove(Flags::FSMONITOR_VALID);
            }
        }
    }
}
