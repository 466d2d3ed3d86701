//! The status walk, and what its findings do to the capture.
//!
//! [`status`] runs gix's `index_worktree_status` of the worktree against
//! `index.tracked`: a parallel `lstat` of every tracked entry that hashes and
//! writes, in the walk's own threads, the blob of each file whose stat data
//! changed ([`HashAndWrite`]) and reads the HEAD of each nested repository at
//! a gitlink ([`GitlinkHead`]); beside it, the directory walk for untracked,
//! not ignored files. [`fold_tracked`] then turns what the walk reported for
//! tracked entries into the next `index.tracked` and into tree edits.
//!
//! Here: the two walks, side by side; `setup.rs`: gix's walks set up;
//! `delegates.rs`: what the status walk calls in its threads; `fold.rs`:
//! [`fold_tracked`].

use std::sync::{Arc, Mutex};

use gix::ObjectId;
use gix::bstr::BString;
use gix::status::plumbing::index_as_worktree::EntryStatus;

use super::Ctx;
use super::untracked::{Invalid, NextDirs, Walked, Walker};
use crate::error::Result;

mod delegates;
mod fold;
mod setup;

use delegates::{Collect, GitlinkHead, HashAndWrite};
pub(super) use fold::fold_tracked;

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
    pub(super) dirs: Option<NextDirs>,
}

/// The untracked-walk cache a status walk starts from.
pub(super) struct DirsInput<'a> {
    /// The last walk's cache, if it can be used at all.
    pub(super) old: Option<&'a super::untracked::DirFile>,
    /// What else invalidates parts of it.
    pub(super) invalid: Invalid,
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
    let written = Arc::new(Mutex::new(Vec::new()));
    let mut collect = Collect::default();
    let compare = HashAndWrite::new(ctx, written.clone())?;
    let submodules = GitlinkHead {
        workdir: ctx.workdir.to_owned(),
    };
    let dirwalk = setup::untracked_walk(ctx.repo)?;
    let t = crate::trace::span("status walk");
    let overrides = setup::overrides(ctx);
    let walker = match dirs.as_ref() {
        Some(d) => setup::cached_walker(ctx, tracked, d.head)?,
        None => None,
    };
    let dirwalk = walker.is_none().then_some(dirwalk);
    let interrupt = ctx.interrupt.flag();
    let d = dirs.as_ref();
    let (old, invalid) = (d.and_then(|d| d.old), d.map(|d| &d.invalid));
    let focus = d.and_then(|d| d.focus);
    // With more than one core, the untracked walk runs on a thread of its
    // own beside the status walk, whatever the size of the index: gix runs
    // the status walk on a thread of its own anyway, so the walk would
    // otherwise wait for it (measured at 300 files on 2 cores: 10-12 % less
    // wall time a capture, the same CPU time).
    let beside = crate::cores::cores() > 1;
    let walk = move |w: Walker| {
        let none = Invalid::default();
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
        let status = setup::index_worktree_status(
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
    let (status, walked) = both_walks(beside, status_walk, walker, walk);
    status.map_err(|e| status_error(ctx, tracked, e))?;
    ctx.interrupt.check()?;
    let dirs = match walked.transpose()? {
        Some(w) => {
            note_walked(&w);
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

/// Run `status_walk`, and the untracked walk of `walker` (if any) by
/// `walk`: `beside` it on a thread of its own, or after it.
fn both_walks<S>(
    beside: bool,
    status_walk: impl FnOnce() -> S,
    walker: Option<Walker>,
    walk: impl FnOnce(Walker) -> Result<Walked> + Send,
) -> (S, Option<Result<Walked>>) {
    if !beside {
        // One core: a thread would only take turns with the status walk.
        let status = status_walk();
        return (status, walker.map(walk));
    }
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
}

/// The status walk's failure `e` as the capture's error.
fn status_error(ctx: &Ctx<'_, '_>, tracked: &gix::index::File, e: gix::Error) -> crate::Error {
    match ctx.interrupt.check() {
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
    }
}

/// Trace how much of the untracked walk `w` was read rather than replayed.
fn note_walked(w: &Walked) {
    crate::trace::note(|| {
        let kept = match w.cache {
            NextDirs::Keep { .. } => ", index.dirs kept",
            NextDirs::Save(_) => "",
        };
        format!(
            "untracked walk: read {} of {} directories{kept}",
            w.read,
            w.cache.len()
        )
    });
}

/// The status walk's `lstat` threads: every core but the one the untracked
/// walk runs on (measured: 11 % faster on 2 cores than sharing them all).
fn status_threads() -> usize {
    crate::cores::cores().saturating_sub(1).max(1)
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
