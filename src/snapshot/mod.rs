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
//! - `cache`: the HEAD tree and the tree of the last capture, and the
//!   checksums of both index files, so a torn update is detected.
//!
//! A capture runs gix's status (a parallel `lstat` walk plus the untracked
//! walk) against `index.tracked`, hashes only what changed, reuses
//! `index.untracked` as a stat cache for untracked files, and edits the last
//! captured tree. When HEAD moved, or the cache is missing or inconsistent, it
//! rebuilds `index.tracked` from the HEAD tree, copying stat data from the old
//! cache and the user's index where path, id and mode agree, and edits the
//! HEAD tree instead. The user's index is only ever read.
//!
//! # Racy git
//!
//! Both index files are stamped with the file-system time at which the walk
//! started (the mtime of the freshly written lock file). An entry whose file
//! changed at or after that instant is "racy" and is hashed again next time,
//! so a file modified while it was being read can never be mistaken for clean.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use gix::ObjectId;
use gix::bstr::{BStr, BString};
use gix::index::entry::{Mode, Stat};
use gix::objs::tree::EntryKind;
use gix::status::plumbing::index_as_worktree::traits::{CompareBlobs, ReadData, SubmoduleStatus};
use gix::status::plumbing::index_as_worktree::{Change, EntryStatus};
use gix::status::plumbing::index_as_worktree_with_renames::{Entry as StatusEntry, VisitEntry};

use crate::error::{Context as _, Error, Result};
use crate::repo::{self, Recorder};

mod cache;
mod hash;
mod tree;

use cache::{Cache, CacheWrite};
use hash::Rehash;

use tree::{Edit, mode_kind, toggle_exec};

/// What a capture produced.
#[derive(Debug)]
pub struct Snapshot {
    /// The tree of the whole worktree.
    pub tree: ObjectId,
    /// Files hashed because their stat data changed or they were new.
    pub hashed: usize,
    /// Whether the private cache had to be rebuilt from HEAD.
    pub rebuilt: bool,
    /// The cache being written in the background; joined on drop, which
    /// callers let happen before they release the repository lock.
    _cache_write: CacheWrite,
}

/// Capture the worktree of `repo` as a tree, writing new blobs and trees
/// through `rec`. `walk_started` is the file-system time before the walk (see
/// the module docs); the caller holds the repository lock.
pub fn snapshot(repo: &gix::Repository, rec: &Recorder<'_>, walk_started: SystemTime) -> Result<Snapshot> {
    let workdir = repo::workdir(repo)?;
    let dir = repo::t3_worktree_dir(repo);
    let head = repo::head_tree(repo)?.unwrap_or_else(|| ObjectId::empty_tree(repo.object_hash()));
    let t = crate::trace::span("load cache");
    let cache = Cache::load(repo, &dir);
    drop(t);
    let sparse = repo
        .config_snapshot()
        .boolean("core.sparseCheckout")
        .unwrap_or(false);
    let incremental = cache
        .as_ref()
        .is_some_and(|c| c.head == head && !sparse && repo.has_object(c.tree));
    let mut ctx = Ctx {
        repo,
        rec,
        workdir: &workdir,
        dir: &dir,
        walk_started,
    };
    if incremental {
        match ctx.run(head, cache.as_ref(), true) {
            Ok(s) => return Ok(s),
            // The last tree or a subtree of it may have been pruned by gc;
            // start again from HEAD.
            Err(Error::Git { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    ctx.run(head, cache.as_ref(), false)
}

struct Ctx<'a, 'r> {
    repo: &'r gix::Repository,
    rec: &'a Recorder<'r>,
    workdir: &'a Path,
    dir: &'a Path,
    walk_started: SystemTime,
}

/// What the status walk reported for one tracked entry.
struct TrackedChange {
    index: usize,
    status: EntryStatus<Option<ObjectId>, ObjectId>,
}

impl<'r> Ctx<'_, 'r> {
    fn run(&mut self, head: ObjectId, cache: Option<&Cache>, incremental: bool) -> Result<Snapshot> {
        let repo = self.repo;
        let (mut tracked, base_tree) = match (incremental, cache) {
            (true, Some(c)) => (c.tracked.clone(), c.tree),
            _ => (cache::rebuild_tracked(repo, head, cache)?, head),
        };
        tracked.set_path(self.dir.join("index.tracked"));

        // 1. The status walk: modified tracked files (hashed and written in
        //    the walk's threads) and the untracked, not ignored files.
        let written = Arc::new(Mutex::new(Vec::new()));
        let mut collect = Collect::default();
        let compare = HashAndWrite {
            odb: repo
                .objects
                .clone()
                .into_arc()
                .context(|| "could not share the object database".into())?,
            hash: repo.object_hash(),
            written: written.clone(),
        };
        let submodules = GitlinkHead {
            workdir: self.workdir.to_owned(),
        };
        let dirwalk = repo
            .dirwalk_options()
            .context(|| "could not configure the directory walk".into())?
            .emit_untracked(gix::dir::walk::EmissionMode::Matching)
            .emit_ignored(None)
            .emit_tracked(false)
            .emit_pruned(false)
            .emit_empty_directories(false)
            .recurse_repositories(false)
            .empty_patterns_match_prefix(false)
            .classify_untracked_bare_repositories(false)
            .symlinks_to_directories_are_ignored_like_directories(false);
        let t = crate::trace::span("status walk");
        repo.index_worktree_status(
            &tracked,
            None::<&BStr>,
            &mut collect,
            compare,
            submodules,
            &mut gix::progress::Discard,
            &AtomicBool::new(false),
            gix::status::index_worktree::Options {
                sorting: None,
                dirwalk_options: Some(dirwalk),
                rewrites: None,
                // The untracked walk runs on a thread of its own beside the
                // lstat workers: leave it a core (measured: 11 % faster on 2).
                thread_limit: Some(
                    std::thread::available_parallelism()
                        .map_or(1, usize::from)
                        .saturating_sub(1)
                        .max(1),
                ),
            },
        )
        .context(|| {
            format!(
                "could not compare the worktree {} with the capture cache",
                self.workdir.display()
            )
        })?;
        drop(t);
        let written = std::mem::take(&mut *written.lock().unwrap_or_else(|p| p.into_inner()));
        let mut hashed = written.len();
        self.rec.note_written(written);

        // 2. Tracked paths: fold the walk's findings into the cache and
        //    derive the tree edits.
        let mut edits = Vec::new();
        let mut rehash = Rehash::new(self);
        for TrackedChange { index, status } in collect.tracked {
            let Some(entry) = tracked.entries().get(index) else {
                continue;
            };
            let path = entry.path(&tracked).to_owned();
            let (id, mode, stat) = (entry.id, entry.mode, entry.stat);
            let update = match status {
                EntryStatus::NeedsUpdate(new_stat) => {
                    // Same content as the entry. In an incremental run an
                    // all-zero stat marks a file absent at the last capture.
                    if incremental && stat == Stat::default() {
                        edits.push(Edit::Upsert(path.clone(), mode_kind(mode), id));
                    }
                    Some((id, mode, new_stat))
                }
                EntryStatus::Change(Change::Removed) => {
                    edits.push(Edit::Remove(path.clone()));
                    Some((id, mode, Stat::default()))
                }
                EntryStatus::Change(Change::Modification {
                    executable_bit_changed,
                    content_change,
                    ..
                }) => {
                    let new_mode = if executable_bit_changed {
                        toggle_exec(mode)
                    } else {
                        mode
                    };
                    match content_change {
                        // The file shrank while it was read: hash it again.
                        Some(None) => rehash.file(&path, &tracked, &mut edits)?,
                        other => {
                            let new_id = other.flatten().unwrap_or(id);
                            let stat = hash::lstat(self.workdir, &path).unwrap_or_default();
                            edits.push(Edit::Upsert(path.clone(), mode_kind(new_mode), new_id));
                            Some((new_id, new_mode, stat))
                        }
                    }
                }
                EntryStatus::Change(Change::Type { .. }) => rehash.file(&path, &tracked, &mut edits)?,
                EntryStatus::Change(Change::SubmoduleModification(commit)) => {
                    edits.push(Edit::Upsert(path.clone(), EntryKind::Commit, commit));
                    Some((commit, Mode::COMMIT, stat))
                }
                EntryStatus::Conflict { .. } | EntryStatus::IntentToAdd => None,
            };
            if let Some((id, mode, stat)) = update
                && let Some(e) = tracked.entries_mut().get_mut(index)
            {
                e.id = id;
                e.mode = mode;
                e.stat = stat;
            }
        }
        hashed += rehash.hashed;

        // 3. Untracked files: reuse the last capture's ids where stat agrees.
        let old_untracked = cache.map(|c| &c.untracked);
        let (fresh, n) = hash::untracked(self, collect.untracked, old_untracked, &tracked)?;
        hashed += n;
        tree::untracked_edits(&fresh, old_untracked, incremental, &mut edits);

        // 4. The tree.
        let t = crate::trace::span("tree edit");
        let tree = tree::apply(repo, self.rec, base_tree, edits)?;
        drop(t);
        let t = crate::trace::span("save cache");

        // 5. The cache, stamped with the walk's start for racy-git.
        let cache_write = CacheWrite::spawn(
            self.dir.to_owned(),
            self.walk_started,
            head,
            tree,
            tracked,
            &fresh,
        );
        let rebuilt = !incremental;
        drop(t);
        crate::trace::note(|| format!("hashed {hashed} files, cache rebuilt: {rebuilt}"));
        Ok(Snapshot {
            tree,
            hashed,
            rebuilt,
            _cache_write: cache_write,
        })
    }
}

/// Collects the status walk's findings as owned data.
#[derive(Default)]
struct Collect {
    tracked: Vec<TrackedChange>,
    untracked: Vec<(BString, Option<gix::dir::entry::Kind>)>,
}

impl<'index> VisitEntry<'index> for Collect {
    type ContentChange = Option<ObjectId>;
    type SubmoduleStatus = ObjectId;

    fn visit_entry(&mut self, entry: StatusEntry<'index, Self::ContentChange, Self::SubmoduleStatus>) {
        match entry {
            StatusEntry::Modification {
                entry_index, status, ..
            } => {
                self.tracked.push(TrackedChange {
                    index: entry_index,
                    status,
                });
            }
            StatusEntry::DirectoryContents { entry, .. } => {
                if entry.status == gix::dir::entry::Status::Untracked
                    && entry.property != Some(gix::dir::entry::Property::DotGit)
                    && !matches!(
                        entry.disk_kind,
                        Some(gix::dir::entry::Kind::Untrackable | gix::dir::entry::Kind::Directory)
                    )
                {
                    self.untracked.push((entry.rela_path, entry.disk_kind));
                }
            }
            StatusEntry::Rewrite { .. } => {}
        }
    }
}

/// Hashes a changed tracked file in the walk's thread and writes its blob.
#[derive(Clone)]
struct HashAndWrite {
    odb: gix::OdbHandleArc,
    hash: gix::hash::Kind,
    written: Arc<Mutex<Vec<ObjectId>>>,
}

impl CompareBlobs for HashAndWrite {
    type Output = Option<ObjectId>;

    fn compare_blobs<'a, 'b>(
        &mut self,
        entry: &gix::index::Entry,
        _worktree_blob_size: u64,
        data: impl ReadData<'a>,
        buf: &mut Vec<u8>,
    ) -> gix::Result<Option<Self::Output>> {
        use gix::objs::{Exists as _, Write as _};
        use std::io::Read as _;
        let mut stream = data.stream_worktree_file()?;
        let bytes: &[u8] = match stream.as_bytes() {
            Some(b) => b,
            None => {
                stream.read_to_end(buf).map_err(gix::Error::from_error)?;
                buf
            }
        };
        let id = gix::objs::compute_hash(self.hash, gix::objs::Kind::Blob, bytes)?;
        if id == entry.id {
            return Ok(None);
        }
        if !self.odb.exists(&id) {
            self.odb
                .write_buf_with_known_id(gix::objs::Kind::Blob, bytes, id)?;
            self.written.lock().unwrap_or_else(|p| p.into_inner()).push(id);
        }
        Ok(Some(Some(id)))
    }
}

/// `git add` records a nested repository by its HEAD commit.
#[derive(Clone)]
struct GitlinkHead {
    workdir: PathBuf,
}

impl SubmoduleStatus for GitlinkHead {
    type Output = ObjectId;

    fn status(&mut self, entry: &gix::index::Entry, rela_path: &BStr) -> gix::Result<Option<ObjectId>> {
        let Ok(rela) = gix::path::from_bstr(rela_path) else {
            return Ok(None);
        };
        let path = self.workdir.join(rela);
        let Ok(sub) = gix::open_opts(&path, gix::open::Options::isolated()) else {
            return Ok(None);
        };
        Ok(sub
            .head_id()
            .ok()
            .map(gix::Id::detach)
            .filter(|id| *id != entry.id))
    }
}
