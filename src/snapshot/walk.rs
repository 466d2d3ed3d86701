//! The status walk, and what its findings do to the capture.
//!
//! [`status`] runs gix's `index_worktree_status` of the worktree against
//! `index.tracked`: a parallel `lstat` of every tracked entry that hashes and
//! writes, in the walk's own threads, the blob of each file whose stat data
//! changed ([`HashAndWrite`]) and reads the HEAD of each nested repository at
//! a gitlink ([`GitlinkHead`]); beside it, the directory walk for untracked,
//! not ignored files. [`fold_tracked`] then turns what the walk reported for
//! tracked entries into the next `index.tracked` and into tree edits.

use std::path::PathBuf;

use std::sync::{Arc, Mutex};

use gix::ObjectId;
use gix::bstr::{BStr, BString};
use gix::index::entry::{Mode, Stat};
use gix::objs::tree::EntryKind;
use gix::status::plumbing::index_as_worktree::traits::{CompareBlobs, ReadData, SubmoduleStatus};
use gix::status::plumbing::index_as_worktree::{Change, EntryStatus};
use gix::status::plumbing::index_as_worktree_with_renames::{Entry as StatusEntry, VisitEntry};

use super::Ctx;
use super::hash::{self, Rehash};
use super::tree::{Edit, mode_kind, toggle_exec};
use crate::error::{Context as _, Result};

/// What the status walk found.
pub(super) struct Found {
    /// Tracked entries whose file, or only its stat data, differs.
    pub(super) tracked: Vec<TrackedChange>,
    /// Untracked, not ignored files and nested repositories, with their kind
    /// on disk.
    pub(super) untracked: Vec<(BString, Option<gix::dir::entry::Kind>)>,
    /// The blobs the walk wrote.
    pub(super) written: Vec<ObjectId>,
    /// The untracked-walk cache for the next capture, when it was used.
    pub(super) dirs: Option<super::untracked::NextDirs>,
}

/// The untracked-walk cache a status walk starts from.
pub(super) struct DirsInput<'a> {
    /// The last walk's cache, if it can be used at all.
    pub(super) old: Option<&'a super::untracked::DirFile>,
    /// What else invalidates parts of it.
    pub(super) invalid: super::untracked::Invalid,
    /// The HEAD tree `tracked` was built from.
    pub(super) head: ObjectId,
    /// What a watcher listed, when `old` is the cache its token goes with.
    pub(super) focus: Option<&'a super::focus::Focus>,
}

/// What the status walk reported for one tracked entry.
pub(super) struct TrackedChange {
    index: usize,
    status: EntryStatus<Option<ObjectId>, ObjectId>,
}

/// Run the status walk of the worktree against `tracked`.
pub(super) fn status(
    ctx: &Ctx<'_, '_>,
    tracked: &gix::index::File,
    dirs: Option<DirsInput<'_>>,
) -> Result<Found> {
    let repo = ctx.repo;
    let written = Arc::new(Mutex::new(Vec::new()));
    let mut collect = Collect::default();
    let mut odb = repo.objects.clone();
    odb.refresh_never();
    let compare = HashAndWrite {
        odb: odb
            .into_arc()
            .context(|| "could not share the object database".into())?,
        sink: ctx.rec.sink(),
        hash: repo.object_hash(),
        written: written.clone(),
        defer: ctx.auto_eol.get(),
    };
    let submodules = GitlinkHead {
        workdir: ctx.workdir.to_owned(),
    };
    let dirwalk = untracked_walk(repo)?;
    let t = crate::trace::span("status walk");
    // The t3 rules go to the walk as exclude overrides when they only
    // exclude (see `scope`): a t3-ignored folder is then never walked into.
    let overrides = ctx
        .excludes
        .as_ref()
        .filter(|e| !e.has_negations())
        .map(super::scope::Excludes::search);
    let walker = match dirs.as_ref() {
        Some(d) => cached_walker(ctx, tracked, d.head)?,
        None => None,
    };
    let dirwalk = walker.is_none().then_some(dirwalk);
    let interrupt = ctx.interrupt.flag();
    let d = dirs.as_ref();
    let (old, invalid) = (d.and_then(|d| d.old), d.map(|d| &d.invalid));
    let focus = d.and_then(|d| d.focus);
    let beside = cores() > 1;
    let walk = move |w: super::untracked::Walker| {
        let none = super::untracked::Invalid::default();
        let t = crate::trace::span(if beside {
            "untracked walk (beside the status walk)"
        } else {
            "untracked walk (after the status walk)"
        });
        let walked = w.walk(tracked, old, invalid.unwrap_or(&none), focus, interrupt);
        drop(t);
        walked
    };
    let status_walk = || {
        let t = crate::trace::span("tracked files (beside the untracked walk)");
        let status = index_worktree_status(
            ctx,
            tracked,
            overrides,
            &mut collect,
            compare,
            submodules,
            gix::status::index_worktree::Options {
                sorting: None,
                dirwalk_options: dirwalk,
                rewrites: None,
                thread_limit: Some(status_threads()),
            },
        );
        drop(t);
        status
    };
    let (status, walked) = if !beside {
        // One core: a thread would only take turns with the status walk.
        let status = status_walk();
        (status, walker.map(walk))
    } else {
        std::thread::scope(|s| {
            let handle = walker.map(|w| {
                std::thread::Builder::new()
                    .name("t3-untracked-walk".into())
                    .spawn_scoped(s, move || walk(w))
            });
            let status = status_walk();
            let walked = handle.map(|h| match h {
                Ok(h) => h
                    .join()
                    .unwrap_or_else(|_| Err(crate::Error::Internal("the untracked walk panicked".into()))),
                Err(e) => Err(crate::Error::Internal(format!(
                    "could not start the untracked walk: {e}"
                ))),
            });
            (status, walked)
        })
    };
    status.map_err(|e| match ctx.interrupt.check() {
        // Stopped by a signal: say so, not "could not compare".
        Err(interrupted) => interrupted,
        // gix's error does not say which file: find the one that can't be read.
        Ok(()) if let Some(named) = unreadable_tracked(ctx.workdir, tracked) => named,
        Ok(()) => crate::Error::Git {
            context: format!(
                "could not compare the worktree {} with the capture cache",
                ctx.workdir.display()
            ),
            source: Box::new(e),
        },
    })?;
    ctx.interrupt.check()?;
    let dirs = match walked.transpose()? {
        Some(w) => {
            crate::trace::note(|| {
                let kept = match w.cache {
                    super::untracked::NextDirs::Keep { .. } => ", index.dirs kept",
                    super::untracked::NextDirs::Save(_) => "",
                };
                format!(
                    "untracked walk: read {} of {} directories{kept}",
                    w.read,
                    w.cache.len()
                )
            });
            collect.untracked = w.untracked;
            Some(w.cache)
        }
        None => None,
    };
    drop(t);
    let written = std::mem::take(&mut *written.lock().unwrap_or_else(|p| p.into_inner()));
    Ok(Found {
        tracked: collect.tracked,
        untracked: collect.untracked,
        written,
        dirs,
    })
}

/// The cores this process may run on (its CPU affinity and cgroup quota).
/// With more than one, the untracked walk runs on a thread of its own
/// beside the status walk, whatever the size of the index: gix runs the
/// status walk on a thread of its own anyway, so the walk would otherwise
/// wait for it (measured at 300 files on 2 cores: 10-12 % less wall time a
/// capture, the same CPU time).
fn cores() -> usize {
    static N: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *N.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// The status walk's `lstat` threads: every core but the one the untracked
/// walk runs on (measured: 11 % faster on 2 cores than sharing them all).
fn status_threads() -> usize {
    cores().saturating_sub(1).max(1)
}

/// The walker of the untracked-walk cache, or `None` where gix's own walk
/// must do (a case-insensitive file system, where lookups fold case).
fn cached_walker(
    ctx: &Ctx<'_, '_>,
    tracked: &gix::index::File,
    head: ObjectId,
) -> Result<Option<super::untracked::Walker>> {
    use gix::worktree::stack::state::{attributes, ignore};
    let repo = ctx.repo;
    let git = |e: gix::Error| crate::Error::Git {
        context: "could not prepare the untracked walk".into(),
        source: Box::new(e),
    };
    let fs_caps = repo.filesystem_options().map_err(git)?;
    if fs_caps.ignore_case {
        return Ok(None);
    }
    let overrides = ctx
        .excludes
        .as_ref()
        .filter(|e| !e.has_negations())
        .map(super::scope::Excludes::search);
    let excludes = repo
        .excludes(
            tracked,
            overrides,
            ignore::Source::WorktreeThenIdMappingIfNotSkipped,
        )
        .map_err(git)?
        .detach();
    let pathspec = repo
        .pathspec(
            false,
            None::<&BStr>,
            true,
            tracked,
            attributes::Source::WorktreeThenIdMapping,
        )
        .map_err(git)?
        .into_parts()
        .0;
    let cwd = repo.current_dir().to_owned();
    let git_dir_realpath = gix::path::realpath_opts(repo.git_dir(), &cwd, gix::path::realpath::MAX_SYMLINKS)
        .map_err(|e| git(gix::Error::from_error(e)))?;
    Ok(Some(super::untracked::Walker {
        workdir: ctx.workdir.to_owned(),
        git_dir_realpath,
        current_dir: cwd,
        excludes,
        pathspec,
        objects: repo
            .objects
            .clone()
            .into_arc()
            .context(|| "could not share the object database".into())?,
        options: untracked_walk(repo)?.into(),
        rules: super::untracked::rules_fingerprint(repo, ctx.workdir),
        head: head.to_string().into(),
        started: ctx.walk_started,
    }))
}

/// The first tracked file that exists but cannot be opened for reading, as
/// an error naming it (the status walk's own error names no path).
fn unreadable_tracked(workdir: &std::path::Path, tracked: &gix::index::File) -> Option<crate::Error> {
    use gix::index::entry::{Flags, Mode};
    tracked.entries().iter().find_map(|e| {
        if e.flags.contains(Flags::SKIP_WORKTREE) || !matches!(e.mode, Mode::FILE | Mode::FILE_EXECUTABLE) {
            return None;
        }
        let rela = e.path(tracked);
        let path = crate::model::path::abs(workdir, rela).ok()?;
        match crate::fsread::open_regular(&path, false) {
            Err(source) if source.kind() == std::io::ErrorKind::PermissionDenied => Some(crate::Error::Io {
                context: format!(
                    "could not read the tracked file {}",
                    crate::model::path::quoted(rela)
                ),
                path: None,
                source,
            }),
            _ => None,
        }
    })
}

/// gix's `Repository::index_worktree_status`, with `overrides` added to the
/// exclude stack of the untracked walk (gix's own passes none): the same
/// attribute and exclude stacks, pathspec, resource cache and options.
fn index_worktree_status(
    ctx: &Ctx<'_, '_>,
    index: &gix::index::State,
    overrides: Option<gix::ignore::Search>,
    delegate: &mut Collect,
    compare: HashAndWrite,
    submodules: GitlinkHead,
    options: gix::status::index_worktree::Options,
) -> gix::Result<gix::status::plumbing::index_as_worktree_with_renames::Outcome> {
    use gix::status::plumbing::index_as_worktree_with_renames as plumbing;
    use gix::worktree::stack::state::{attributes, ignore};
    let repo = ctx.repo;
    let attrs_and_excludes = repo.attributes(
        index,
        attributes::Source::WorktreeThenIdMapping,
        ignore::Source::WorktreeThenIdMappingIfNotSkipped,
        overrides,
    )?;
    // `untracked_walk` sets `empty_patterns_match_prefix(false)`.
    let pathspec = repo
        .pathspec(
            false,
            None::<&BStr>,
            true,
            index,
            attributes::Source::WorktreeThenIdMapping,
        )?
        .into_parts()
        .0;
    let cwd = repo.current_dir();
    let git_dir_realpath = gix::path::realpath_opts(repo.git_dir(), cwd, gix::path::realpath::MAX_SYMLINKS)
        .map_err(gix::Error::from_error)?;
    let fs_caps = repo.filesystem_options()?;
    // gix's default: on where the Git for Windows installation turns it on.
    let fscache = repo
        .config_snapshot()
        .boolean("core.fscache")
        .unwrap_or(cfg!(windows));
    let accelerate_lookup = fs_caps.ignore_case.then(|| index.prepare_icase_backing());
    let resource_cache = gix::diff::resource_cache(
        repo,
        gix::diff::blob::pipeline::Mode::ToGit,
        attrs_and_excludes.detach(),
        gix::diff::blob::pipeline::WorktreeRoots {
            old_root: None,
            new_root: Some(ctx.workdir.to_owned()),
        },
    )?;
    let objects = repo.objects.clone().into_arc().map_err(gix::Error::from_error)?;
    gix::status::plumbing::index_as_worktree_with_renames(
        index,
        ctx.workdir,
        delegate,
        compare,
        submodules,
        objects,
        &mut gix::progress::Discard,
        plumbing::Context {
            pathspec,
            resource_cache,
            should_interrupt: ctx.interrupt.flag(),
            dirwalk: plumbing::DirwalkContext {
                git_dir_realpath: git_dir_realpath.as_path(),
                current_dir: cwd,
                ignore_case_index_lookup: accelerate_lookup.as_ref(),
            },
        },
        plumbing::Options {
            sorting: options.sorting,
            tracked_file_modifications: gix::status::plumbing::index_as_worktree::Options {
                fs: fs_caps,
                thread_limit: options.thread_limit,
                stat: repo.stat_options()?,
                fscache,
            },
            fscache,
            dirwalk: options.dirwalk_options.map(Into::into),
            rewrites: options.rewrites,
        },
    )
}

/// Options of the directory walk: emit the untracked, not ignored files
/// (and nested repositories, without entering them), nothing else.
fn untracked_walk(repo: &gix::Repository) -> Result<gix::dirwalk::Options> {
    Ok(repo
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
        .symlinks_to_directories_are_ignored_like_directories(false))
}

/// Fold the walk's findings for tracked entries into `tracked`, the next
/// `index.tracked`, and derive their tree edits against the base tree (the
/// last captured tree when `incremental`, else HEAD's). Returns the edits and
/// how many files had to be hashed again here.
pub(super) fn fold_tracked(
    ctx: &Ctx<'_, '_>,
    tracked: &mut gix::index::File,
    changes: Vec<TrackedChange>,
    incremental: bool,
) -> Result<(Vec<Edit>, usize)> {
    let mut fold = Fold {
        ctx,
        rehash: Rehash::new(ctx),
        incremental,
        edits: Vec::new(),
    };
    for TrackedChange { index, status } in changes {
        let Some(entry) = tracked.entries().get(index) else {
            continue;
        };
        if let Some((id, mode, stat)) = fold.entry(tracked, entry, status)?
            && let Some(e) = tracked.entries_mut().get_mut(index)
        {
            e.id = id;
            e.mode = mode;
            e.stat = stat;
        }
    }
    Ok((fold.edits, fold.rehash.hashed))
}

/// The state of [`fold_tracked`].
struct Fold<'c, 'a, 'r> {
    ctx: &'c Ctx<'a, 'r>,
    rehash: Rehash<'c, 'a, 'r>,
    incremental: bool,
    edits: Vec<Edit>,
}

impl Fold<'_, '_, '_> {
    /// Record the edit for one tracked `entry` of `tracked` and return its
    /// new id, mode and stat, or `None` to leave it as it is.
    fn entry(
        &mut self,
        tracked: &gix::index::State,
        entry: &gix::index::Entry,
        status: EntryStatus<Option<ObjectId>, ObjectId>,
    ) -> Result<Option<(ObjectId, Mode, Stat)>> {
        let path = entry.path(tracked).to_owned();
        let (id, mode, stat) = (entry.id, entry.mode, entry.stat);
        let edits = &mut self.edits;
        Ok(match status {
            EntryStatus::NeedsUpdate(new_stat) => {
                // Same content as the entry. In an incremental run an
                // all-zero stat marks a file absent at the last capture.
                if self.incremental && stat == Stat::default() {
                    edits.push(Edit::Upsert(path, mode_kind(mode), id));
                }
                Some((id, mode, new_stat))
            }
            EntryStatus::Change(Change::Removed) => {
                edits.push(Edit::Remove(path));
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
                    // Left to the rehash (`Ctx::auto_eol`), or the file
                    // shrank while it was read: hash it (again).
                    Some(None) => self.rehash.file(&path, tracked, edits)?,
                    other => {
                        let new_id = other.flatten().unwrap_or(id);
                        let stat = hash::lstat(self.ctx.workdir, &path).unwrap_or_default();
                        edits.push(Edit::Upsert(path, mode_kind(new_mode), new_id));
                        Some((new_id, new_mode, stat))
                    }
                }
            }
            EntryStatus::Change(Change::Type { .. }) => self.rehash.file(&path, tracked, edits)?,
            EntryStatus::Change(Change::SubmoduleModification(commit)) => {
                edits.push(Edit::Upsert(path, EntryKind::Commit, commit));
                Some((commit, Mode::COMMIT, stat))
            }
            EntryStatus::Conflict { .. } | EntryStatus::IntentToAdd => None,
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
                    // A name git refuses (`.GIT`, `git~1`, `.git `): `git add`
                    // would not take it, and no restore could write it back.
                    && entry
                        .rela_path
                        .split(|b| *b == b'/')
                        .all(|c| crate::model::path::check_component(c).is_ok())
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
    /// Asked whether a blob is stored already, without listing the packs
    /// again on a miss (one packed meanwhile is merely written loose again).
    odb: gix::OdbHandleArc,
    sink: crate::repo::objects::ObjectSink,
    hash: gix::hash::Kind,
    written: Arc<Mutex<Vec<ObjectId>>>,
    /// Leave every changed file to [`Rehash`] (see `Ctx::auto_eol`).
    defer: bool,
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
        if self.defer {
            return Ok(Some(None));
        }
        let mut stream = data.stream_worktree_file()?;
        // A large file with a known size is written while it is hashed, in
        // bounded memory (it is written even when unchanged: git add does
        // too), unless objects are only kept in memory.
        if let Some(len) = stream.size().filter(|l| *l > super::stream::STREAM_ABOVE)
            && stream.as_bytes().is_none()
            && !self.sink.in_memory()
        {
            let written = self.odb.write_stream(
                gix::objs::Kind::Blob,
                len,
                &mut super::stream::Exact::new(&mut stream, len),
            );
            let id = match written {
                Ok(id) => id,
                // The file shrank while it was read: hash it again.
                Err(e) if e.to_string().contains("shrank") => return Ok(Some(None)),
                Err(e) => return Err(e),
            };
            if id == entry.id {
                return Ok(None);
            }
            self.written.lock().unwrap_or_else(|p| p.into_inner()).push(id);
            return Ok(Some(Some(id)));
        }
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
            let loose = crate::repo::objects::write_retrying(|| {
                self.sink.write(&self.odb, gix::objs::Kind::Blob, bytes, id)
            })?;
            if loose {
                self.written.lock().unwrap_or_else(|p| p.into_inner()).push(id);
            }
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
