//! What a capture hashes, and what it reuses instead.
//!
//! Every file is hashed like `git add` would (through the clean filters and
//! line-ending conversion; a symlink is its target), and every blob is written.
//!
//! Tracked files, the paths of HEAD's tree, are checked by the status walk
//! ([`super::walk`]) against their entry in `index.tracked`:
//! - an entry whose stat data matches and is not racy is reused as is, unread;
//! - every other file is hashed by the walk itself, in its threads, and its
//!   blob written when the object database lacks it;
//! - a file whose kind changed (say, a file that became a symlink) is hashed
//!   again here, by [`Rehash`]; so is every changed file when line endings
//!   may be converted automatically in an incremental run (the walk's CRLF
//!   check would read the cached blob, not HEAD's: see [`super::clean`]),
//!   and one that shrank while the walk read it;
//! - entries marked skip-worktree are not looked at: they keep HEAD's id;
//! - a nested repository at a gitlink's path is not hashed: it is recorded by
//!   its HEAD commit.
//!
//! Untracked, not ignored files (see [`untracked`]) reuse the id and mode of
//! their entry in the last capture's `index.untracked` when the file's stat
//! data matches that entry, is not racy against that index's timestamp, and
//! the file's kind and executable bit still match the mode. A regular file
//! larger than `t3.maxFileSize` is left out (and reported as skipped) unless
//! the user's index has it; that one `lstat` per untracked file serves the
//! cap, the reuse check and the choice to stream. All others are
//! hashed here, in parallel (up to 8 threads) when there are at least 64;
//! a nested repository is never reused: it is read again each time and
//! recorded by its HEAD commit. Ignored files are never read.
//!
//! The stat data recorded for a file hashed here is taken after hashing: if
//! the file changed in between, its mtime is at or after the walk's start, so
//! it is racy and hashed again next time.

use std::path::Path;

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use gix::index::entry::{Mode, Stat};
use gix::objs::tree::EntryKind;

use super::Ctx;
use super::captured::Untracked;
use super::clean::Clean;
use super::stream::{self, Known};
use super::tree::{Edit, kind_mode};
use crate::error::{Context as _, Error, Result, git_err};

/// At least this many untracked files to hash before threads are used.
const PARALLEL_FROM: usize = 64;
/// At most this many hashing threads for untracked files.
const MAX_THREADS: usize = 8;

/// Hashes tracked files again that the walk could not settle, like
/// `git add`; the clean-filter pipeline is set up on first use.
pub(super) struct Rehash<'c, 'a, 'r> {
    ctx: &'c Ctx<'a, 'r>,
    pipeline: Option<Clean<'r>>,
    /// How many files were hashed.
    pub(super) hashed: usize,
}

impl<'c, 'a, 'r> Rehash<'c, 'a, 'r> {
    /// Nothing hashed yet.
    pub(super) fn new(ctx: &'c Ctx<'a, 'r>) -> Self {
        Rehash {
            ctx,
            pipeline: None,
            hashed: 0,
        }
    }

    /// Hash the file at `path`, recording its tree edit, and return the id,
    /// mode and stat for its `index.tracked` entry; a file that is gone is
    /// removed from the tree and gets a null id and an all-zero stat.
    pub(super) fn file(
        &mut self,
        path: &BString,
        index: &gix::index::State,
        edits: &mut Vec<Edit>,
    ) -> Result<Option<(ObjectId, Mode, Stat)>> {
        self.hashed += 1;
        let ctx = self.ctx;
        if self.pipeline.is_none() {
            self.pipeline = Some(clean_pipeline(ctx.repo, index, ctx.head)?);
        }
        let Some(p) = self.pipeline.as_mut() else {
            return Ok(None);
        };
        match stream::to_object(ctx.repo, ctx.rec, p, ctx.workdir, path.as_bstr(), None)
            .context(|| format!("could not hash {}", path.to_str_lossy()))?
        {
            Some((id, kind)) => {
                ctx.rec.note_written([id]);
                edits.push(Edit::Upsert(path.clone(), kind, id));
                // Taken after hashing: safe, as a file changed since the walk
                // started is racy and hashed again next time.
                let stat = lstat(ctx.workdir, path).unwrap_or_default();
                Ok(Some((id, kind_mode(kind), stat)))
            }
            None => {
                edits.push(Edit::Remove(path.clone()));
                Ok(Some((
                    ObjectId::null(ctx.repo.object_hash()),
                    Mode::FILE,
                    Stat::default(),
                )))
            }
        }
    }
}

/// What [`untracked`] found.
pub(super) struct UntrackedOutcome {
    /// The untracked files captured, sorted by path.
    pub(super) files: Vec<Untracked>,
    /// How many of them were hashed.
    pub(super) hashed: usize,
    /// The files left out for their size, sorted by path.
    pub(super) skipped: Vec<super::Skipped>,
}

/// The untracked files the walk found, each with its id: reused from `old`
/// (the last capture's `index.untracked`) where allowed, hashed otherwise
/// (see the module docs); a file larger than the cap is left out unless the
/// user's index has it. Each file is `lstat`ed once here, for both.
pub(super) fn untracked(
    ctx: &Ctx<'_, '_>,
    found: Vec<(BString, Option<gix::dir::entry::Kind>)>,
    old: Option<&gix::index::File>,
    index: &gix::index::State,
) -> Result<UntrackedOutcome> {
    let stat_opts = ctx
        .repo
        .stat_options()
        .context(|| "could not read core.checkStat".into())?;
    let mut fresh = Vec::with_capacity(found.len());
    let mut to_hash = Vec::new();
    let mut over = Vec::new();
    let mut unreadable = Vec::new();
    for (path, disk_kind) in found {
        if disk_kind == Some(gix::dir::entry::Kind::Repository) {
            to_hash.push((path, None));
            continue;
        }
        // Gone since the walk: hashing finds that out and leaves it out.
        let Ok(md) = metadata(ctx.workdir, &path) else {
            to_hash.push((path, None));
            continue;
        };
        let known = Known::of(&md);
        if let Some(cap) = ctx.max_file_size
            && known.is_file
            && known.len > cap
        {
            over.push((path, known));
            continue;
        }
        if let Some(old) = old
            && let Some(e) = old.entry_by_path(path.as_bstr())
            && let Ok(stat) = Stat::from_fs(&md)
            && stat.matches(&e.stat, stat_opts)
            && !stat.is_racy(old.timestamp(), stat_opts)
            && e.mode.change_to_match_fs(&md, true, true).is_none()
        {
            fresh.push(Untracked {
                path,
                id: e.id,
                mode: e.mode,
                stat,
            });
            continue;
        }
        // A file git-t3 may not read is left out and listed, like one over
        // the cap (git add would fail on it; a capture must not).
        if known.is_file
            && let Ok(abs) = crate::model::path::abs(ctx.workdir, path.as_bstr())
            && let Err(e) = crate::fsread::open_regular(&abs, false)
            && e.kind() == std::io::ErrorKind::PermissionDenied
        {
            unreadable.push(super::Skipped {
                path,
                size: known.len,
                unreadable: true,
            });
            continue;
        }
        to_hash.push((path, Some(known)));
    }
    let mut skipped = over_the_cap(ctx, over, &mut to_hash)?;
    skipped.extend(unreadable);
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    let hashed = to_hash.len();
    for (path, id, kind, stat) in hash_untracked(ctx, to_hash, index)? {
        fresh.push(Untracked {
            path,
            id,
            mode: kind_mode(kind),
            stat,
        });
    }
    fresh.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(UntrackedOutcome {
        files: fresh,
        hashed,
        skipped,
    })
}

/// Of the untracked files over the cap, those the user's index has (added,
/// not committed yet: tracked, so captured) go to `to_hash`; the others are
/// the skipped ones, sorted by path. The user's index is read only when
/// some file is over the cap.
fn over_the_cap(
    ctx: &Ctx<'_, '_>,
    over: Vec<(BString, Known)>,
    to_hash: &mut Vec<(BString, Option<Known>)>,
) -> Result<Vec<super::Skipped>> {
    if over.is_empty() {
        return Ok(Vec::new());
    }
    let user = match ctx.repo.index_path() {
        p if p.is_file() => Some(
            ctx.repo
                .open_index()
                .context(|| format!("could not read the index {}", p.display()))?,
        ),
        _ => None,
    };
    let mut skipped = Vec::new();
    for (path, known) in over {
        if user
            .as_ref()
            .is_some_and(|u| u.entry_by_path(path.as_bstr()).is_some())
        {
            to_hash.push((path, Some(known)));
        } else {
            skipped.push(super::Skipped {
                unreadable: false,
                path,
                size: known.len,
            });
        }
    }
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(skipped)
}

/// Hash untracked files (in parallel when there are many); a file gone in
/// the meantime is left out.
fn hash_untracked(
    ctx: &Ctx<'_, '_>,
    paths: Vec<(BString, Option<Known>)>,
    index: &gix::index::State,
) -> Result<Vec<(BString, ObjectId, EntryKind, Stat)>> {
    let threads = crate::cores::cores().min(MAX_THREADS);
    let workdir = ctx.workdir;
    let sink = ctx.rec.sink();
    let stop = ctx.interrupt;
    let head = ctx.head;
    let results = if paths.len() < PARALLEL_FROM || threads < 2 {
        hash_paths(ctx.repo, &sink, workdir, index, ctx.head, &paths, stop)?
    } else {
        let chunk = paths.len().div_ceil(threads);
        let repo = ctx.repo.clone().into_sync();
        std::thread::scope(|s| {
            let handles: Vec<_> = paths
                .chunks(chunk)
                .map(|c| {
                    let repo = repo.to_thread_local();
                    let sink = sink.clone();
                    s.spawn(move || hash_paths(&repo, &sink, workdir, index, head, c, stop))
                })
                .collect();
            let mut all = Vec::with_capacity(paths.len());
            for h in handles {
                all.extend(
                    h.join()
                        .map_err(|_| Error::Internal("a hashing thread panicked".into()))??,
                );
            }
            Ok::<_, Error>(all)
        })?
    };
    ctx.rec.note_written(results.iter().map(|r| r.1));
    Ok(results)
}

/// Hash `paths` one after the other with a clean-filter pipeline of their own.
fn hash_paths(
    repo: &gix::Repository,
    sink: &crate::repo::objects::ObjectSink,
    workdir: &Path,
    index: &gix::index::State,
    head: ObjectId,
    paths: &[(BString, Option<Known>)],
    stop: crate::interrupt::Interrupt,
) -> Result<Vec<(BString, ObjectId, EntryKind, Stat)>> {
    let mut pipeline = clean_pipeline(repo, index, head)?;
    // This thread's own, writing where the caller's does: the caller
    // records the ids for the flush.
    let rec = crate::repo::Recorder::with_sink(repo, sink.clone());
    let mut out = Vec::with_capacity(paths.len());
    for (path, known) in paths {
        // SIGINT or SIGTERM: stop between files.
        stop.check()?;
        if let Some((id, kind)) =
            stream::to_object(repo, &rec, &mut pipeline, workdir, path.as_bstr(), *known)
                .context(|| format!("could not hash {}", path.to_str_lossy()))?
        {
            out.push((path.clone(), id, kind, lstat(workdir, path).unwrap_or_default()));
        }
    }
    Ok(out)
}

/// The clean filters (`git add`'s conversions), with `.gitattributes`
/// read from the worktree, else from `index` (the capture's own index of
/// HEAD, as `git add` in a private index of HEAD would), and the CRLF check
/// made against HEAD's tree `head`. gix's `filter_pipeline` would load the
/// user's index for that: ~30 ms at 100,000 files, for nothing the capture
/// needs.
///
/// A `.gitattributes` deleted from the worktree is not read from `index`:
/// `git add -A` stages its deletion as it goes through the index in path
/// order, before the files after it are hashed (only a name that sorts
/// before `.gitattributes` in its folder, such as `-a`, would still see it
/// in git). One outside a sparse checkout (skip-worktree) is read from the
/// index, as git does.
pub(super) fn clean_pipeline<'r>(
    repo: &'r gix::Repository,
    index: &gix::index::State,
    head: ObjectId,
) -> Result<Clean<'r>> {
    let index = without_deleted_attributes(index, repo.workdir());
    let attributes = repo
        .attributes_only(
            &index,
            gix::worktree::stack::state::attributes::Source::WorktreeThenIdMapping,
        )
        .context(|| "could not read the attributes for the clean filters".into())?
        .detach();
    let pipeline =
        gix::filter::Pipeline::new(repo, attributes).context(|| "could not set up clean filters".into())?;
    Ok(Clean::new(repo, pipeline, Some(head)))
}

/// `index` without the `.gitattributes` entries whose file is gone from
/// `workdir` (borrowed when there is none).
fn without_deleted_attributes<'a>(
    index: &'a gix::index::State,
    workdir: Option<&Path>,
) -> std::borrow::Cow<'a, gix::index::State> {
    use gix::index::entry::Flags;
    let Some(workdir) = workdir else {
        return std::borrow::Cow::Borrowed(index);
    };
    let deleted = |path: &gix::bstr::BStr, entry: &gix::index::Entry| {
        (path == ".gitattributes" || path.ends_with(b"/.gitattributes"))
            && !entry.flags.contains(Flags::SKIP_WORKTREE)
            && gix::path::from_byte_slice(path).is_ok_and(|p| {
                std::fs::symlink_metadata(workdir.join(p)).is_err_and(|e| {
                    matches!(
                        e.kind(),
                        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                    )
                })
            })
    };
    if !index.entries().iter().any(|e| deleted(e.path(index), e)) {
        return std::borrow::Cow::Borrowed(index);
    }
    let mut own = index.clone();
    own.remove_entries(|_, path, entry| deleted(path, entry));
    std::borrow::Cow::Owned(own)
}

/// The stat data of the file at `rela` in `workdir`, not following a
/// symlink; `None` when it cannot be read.
pub(super) fn lstat(workdir: &Path, rela: &BString) -> Option<Stat> {
    let md = metadata(workdir, rela).ok()?;
    Stat::from_fs(&md).ok()
}

/// The metadata of the file at `rela` in `workdir`, not following a symlink.
fn metadata(workdir: &Path, rela: &BString) -> Result<gix::index::fs::Metadata> {
    let path = gix::path::from_bstr(rela.as_bstr()).map_err(git_err(format!(
        "{} is not a valid path here",
        rela.to_str_lossy()
    )))?;
    let path = workdir.join(path);
    gix::index::fs::Metadata::from_path_no_follow(&path)
        .context(|| format!("could not stat {}", path.display()))
}
