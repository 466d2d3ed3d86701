//! What one gix walk, rooted at a directory read again, records: per
//! directory its stat data and what it emitted there, and which of its
//! subdirectories to replay from the cache instead of going in.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::dir::entry::Kind;

use super::{DirRecord, DirStat, Invalid, abs, dir_stat, holds, lstat};
use crate::model::path::parent;

/// Records what one gix walk, rooted at a directory to read again, finds
/// per directory, and keeps it from going into any subdirectory whose cached
/// listing still holds (those are replayed instead).
pub(super) struct Recording<'a, 'w> {
    old: &'a Old<'a>,
    invalid: &'a Invalid,
    workdir: &'w Path,
    /// The walk's root, worktree-relative.
    root: BString,
    /// The directories read, in the order the walk went into them.
    pub(super) records: Vec<DirRecord>,
    /// Directory → (its record, whether everything below is read again).
    open: HashMap<BString, (usize, bool)>,
    /// Subdirectories whose cached listing holds.
    pub(super) replay: Vec<&'a Arc<DirRecord>>,
    interrupt: &'a std::sync::atomic::AtomicBool,
}

/// The last walk's listings, by directory, and when that walk started.
pub(super) struct Old<'a> {
    pub(super) by_path: HashMap<&'a BStr, &'a Arc<DirRecord>>,
    pub(super) started: (i64, u32),
}

impl<'a, 'w> Recording<'a, 'w> {
    /// Nothing recorded yet of the walk rooted at `root`.
    pub(super) fn new(
        old: &'a Old<'a>,
        invalid: &'a Invalid,
        workdir: &'w Path,
        root: BString,
        interrupt: &'a std::sync::atomic::AtomicBool,
    ) -> Self {
        Recording {
            old,
            invalid,
            workdir,
            root,
            records: Vec::new(),
            open: HashMap::new(),
            replay: Vec::new(),
            interrupt,
        }
    }

    /// Start the record of a directory about to be read.
    pub(super) fn open_dir(&mut self, rela: BString, path: &Path, stat: DirStat, force: bool) {
        let ignore_file = lstat(&path.join(".gitignore")).map(|m| DirStat::of(&m));
        // The worktree's own `.git` changes nothing in what its root lists.
        let volatile = !rela.is_empty() && lstat(&path.join(".git")).is_some();
        let old = self.old.by_path.get(rela.as_bstr());
        let force_below = force || old.is_none_or(|o| o.ignore_file != ignore_file);
        self.open.insert(rela.clone(), (self.records.len(), force_below));
        self.records.push(DirRecord {
            path: rela,
            stat,
            ignore_file,
            untracked: Vec::new(),
            subdirs: Vec::new(),
            volatile,
        });
    }
}

impl gix::dir::walk::Delegate for Recording<'_, '_> {
    fn emit(
        &mut self,
        entry: gix::dir::EntryRef<'_>,
        _collapsed: Option<gix::dir::entry::Status>,
    ) -> gix::dir::walk::Action {
        if keep(&entry) {
            let path = entry.rela_path.as_ref();
            // The walk's root emits itself when it cannot be entered (it
            // became a repository): it is then its own listing.
            let dir = if path == self.root.as_bstr() {
                path
            } else {
                parent(path)
            };
            let idx = self
                .open
                .get(dir)
                .or_else(|| self.open.get(&self.root))
                .map(|(i, _)| *i);
            if let Some(rec) = idx.and_then(|i| self.records.get_mut(i)) {
                rec.untracked
                    .push((entry.rela_path.into_owned(), entry.disk_kind));
            }
        }
        if self.interrupt.load(std::sync::atomic::Ordering::Relaxed) {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    }

    fn can_recurse(
        &mut self,
        entry: gix::dir::EntryRef<'_>,
        for_deletion: Option<gix::dir::walk::ForDeletionMode>,
        worktree_root_is_repository: bool,
    ) -> bool {
        let default = entry.status.can_recurse(
            entry.disk_kind,
            entry.pathspec_match,
            for_deletion,
            worktree_root_is_repository,
        );
        let rela = entry.rela_path.as_ref();
        // The root's record is open already (see `Walker::walk`), whether
        // the walk may go into it or not.
        if rela == self.root.as_bstr() {
            return default;
        }
        if !default {
            return false;
        }
        let Some(path) = abs(self.workdir, rela) else {
            return false;
        };
        // Its stat before it is read, so a change while it is read shows.
        let Some(stat) = dir_stat(&path) else {
            return false;
        };
        let parent = self.open.get(parent(rela)).copied();
        let force = parent.is_none_or(|(_, f)| f);
        if let Some(rec) = parent.and_then(|(i, _)| self.records.get_mut(i)) {
            rec.subdirs.push(rela.to_owned());
        }
        if !force
            && !self.invalid.dirs.contains(rela)
            && let Some(old) = self.old.by_path.get(rela).copied()
            && holds(old, stat, &path, self.old.started)
        {
            self.replay.push(old);
            return false;
        }
        self.open_dir(rela.to_owned(), &path, stat, force);
        true
    }
}

/// What git add -A would add from a walk's entry: an untracked file,
/// symlink or nested repository with a name git takes.
fn keep(entry: &gix::dir::EntryRef<'_>) -> bool {
    entry.status == gix::dir::entry::Status::Untracked
        && entry.property != Some(gix::dir::entry::Property::DotGit)
        && !matches!(entry.disk_kind, Some(Kind::Untrackable | Kind::Directory))
        // A name git refuses (`.GIT`, `git~1`, `.git `): `git add` would not
        // take it, and no restore could write it back.
        && entry
            .rela_path
            .split(|b| *b == b'/')
            .all(|c| crate::model::path::check_component(c).is_ok())
}
