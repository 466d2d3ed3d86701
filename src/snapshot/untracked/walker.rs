//! The untracked walk, directory by directory: each cached listing checked
//! (or, with a watcher's focus, only those it names), replayed when it
//! holds, read again by gix's walk otherwise.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use gix::bstr::{BString, ByteSlice};

use super::recording::{Old, Recording};
use super::{
    DirCache, DirFile, DirRecord, Emitted, Invalid, NextDirs, Walked, abs, dir_stat, holds, time_of,
};
use crate::error::Result;
use crate::snapshot::focus::Focus;

/// Everything one directory read needs, owned so the walk can run on a
/// thread of its own beside the status walk.
pub(in crate::snapshot) struct Walker {
    pub(in crate::snapshot) workdir: PathBuf,
    pub(in crate::snapshot) git_dir_realpath: PathBuf,
    pub(in crate::snapshot) current_dir: PathBuf,
    pub(in crate::snapshot) excludes: gix::worktree::Stack,
    pub(in crate::snapshot) pathspec: gix::pathspec::Search,
    pub(in crate::snapshot) objects: gix::OdbHandleArc,
    pub(in crate::snapshot) options: gix::dir::walk::Options<'static>,
    pub(in crate::snapshot) rules: BString,
    /// The HEAD tree the index walked against was built from, in hex.
    pub(in crate::snapshot) head: BString,
    pub(in crate::snapshot) started: SystemTime,
}

/// A step of the walk.
enum Step<'a> {
    /// Read this directory and what is below it with gix's walk.
    Read(BString),
    /// Check its cached listing against its stat, then replay or read it.
    Check(&'a Arc<DirRecord>),
    /// Its cached listing holds: replay it, check its subdirectories.
    Replay(&'a Arc<DirRecord>),
}

impl Walker {
    /// Walk the worktree for untracked files, replaying from `old` every
    /// directory whose listing cannot have changed.
    pub(in crate::snapshot) fn walk(
        self,
        index: &gix::index::State,
        old: Option<&DirFile>,
        invalid: &Invalid,
        focus: Option<&Focus>,
        interrupt: &std::sync::atomic::AtomicBool,
    ) -> Result<Walked> {
        let old = old.filter(|o| o.rules == self.rules && !invalid.all);
        if let (Some(file), Some(focus)) = (old, focus)
            && invalid.dirs.is_empty()
            && file.head == self.head
            && let Some(untracked) = self.unchanged(file, focus)
        {
            return Ok(Walked {
                untracked,
                cache: NextDirs::Keep { dirs: file.len() },
                read: 0,
            });
        }
        let decoded = old.and_then(DirFile::decode);
        let (untracked, cache, read) =
            self.walk_decoded(index, decoded.as_ref(), invalid, focus, interrupt)?;
        // Nothing read again and no directory gone: the file on disk holds
        // the same listings (the walk that recorded them started earlier,
        // which only makes fewer of them racy).
        let same = read == 0
            && decoded
                .as_ref()
                .is_some_and(|d| d.head == cache.head && d.dirs.len() == cache.dirs.len());
        Ok(Walked {
            untracked,
            cache: if same {
                NextDirs::Keep {
                    dirs: cache.dirs.len(),
                }
            } else {
                NextDirs::Save(cache)
            },
            read,
        })
    }

    /// With a watcher's focus: what the last walk emitted, when no
    /// directory the watcher named (nor, for a watcher whose directories
    /// stand for their subtrees, any below one) changed its listing and
    /// none holds a `.git`. Only those directories are decoded and
    /// `lstat`ed; `None` sends the capture to the full walk.
    fn unchanged(&self, file: &DirFile, focus: &Focus) -> Option<Emitted> {
        let untracked = file.emitted_without_volatile()?;
        let holds_now = |rec: &DirRecord| {
            abs(&self.workdir, rec.path.as_bstr())
                .is_some_and(|path| dir_stat(&path).is_some_and(|stat| holds(rec, stat, &path, file.started)))
        };
        for dir in focus.dirs() {
            if file.find(dir).is_some_and(|rec| !holds_now(&rec)) {
                return None;
            }
        }
        if focus.subtrees() {
            for listed in focus.paths() {
                for rec in file.below(listed) {
                    if !holds_now(&rec?) {
                        return None;
                    }
                }
            }
        }
        Some(untracked)
    }

    /// The walk from the decoded cache `old`: each directory `lstat`ed
    /// (only those a watcher named, with `focus`), read again when its
    /// listing may have changed, replayed otherwise. Returns what it
    /// emitted, the new cache and how many directories it read.
    fn walk_decoded(
        mut self,
        index: &gix::index::State,
        old: Option<&DirCache>,
        invalid: &Invalid,
        focus: Option<&Focus>,
        interrupt: &std::sync::atomic::AtomicBool,
    ) -> Result<(Emitted, DirCache, usize)> {
        let old = Old {
            by_path: old
                .map(|o| o.dirs.iter().map(|d| (d.path.as_bstr(), d)).collect())
                .unwrap_or_default(),
            started: old.map_or((0, 0), |o| o.started),
        };
        let mut untracked = Vec::new();
        let mut read = 0;
        let mut cache = DirCache {
            head: self.head.clone(),
            rules: self.rules.clone(),
            started: time_of(self.started),
            dirs: Vec::with_capacity(old.by_path.len().max(16)),
        };
        let mut todo: Vec<Step<'_>> = vec![match old.by_path.get(b"".as_bstr()) {
            Some(rec) => Step::Check(rec),
            None => Step::Read(BString::default()),
        }];
        while let Some(step) = todo.pop() {
            if interrupt.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(crate::Error::Internal(
                    "the untracked walk was interrupted".into(),
                ));
            }
            let rela = match step {
                Step::Replay(rec) => {
                    untracked.extend(rec.untracked.iter().cloned());
                    cache.dirs.push(Arc::clone(rec));
                    for sub in rec.subdirs.iter().rev() {
                        match old.by_path.get(sub.as_bstr()) {
                            Some(r) => todo.push(Step::Check(r)),
                            None => todo.push(Step::Read(sub.clone())),
                        }
                    }
                    continue;
                }
                Step::Check(rec) => match self.check(rec, &old, invalid, focus) {
                    Some(Step::Read(rela)) => rela,
                    Some(next) => {
                        todo.push(next);
                        continue;
                    }
                    None => continue,
                },
                Step::Read(rela) => rela,
            };
            let Some(rec) = self.read(rela, index, &old, invalid, interrupt)? else {
                continue;
            };
            read += rec.records.len();
            for r in rec.records {
                untracked.extend(r.untracked.iter().cloned());
                cache.dirs.push(Arc::new(r));
            }
            for r in rec.replay.into_iter().rev() {
                todo.push(Step::Replay(r));
            }
        }
        Ok((untracked, cache, read))
    }

    /// What to do with the directory of the cached listing `rec`: replay
    /// it when the listing holds, else read it again; `None` when it is gone
    /// or no longer a directory (its parent's listing changed then, and is
    /// read again next time: its stat changed).
    fn check<'a>(
        &self,
        rec: &'a Arc<DirRecord>,
        old: &Old<'_>,
        invalid: &Invalid,
        focus: Option<&Focus>,
    ) -> Option<Step<'a>> {
        // A watcher that listed nothing in or under it: its listing holds
        // without even an lstat.
        if focus.is_some_and(|f| !f.dir_may_have_changed(rec.path.as_bstr()))
            && !rec.volatile
            && !invalid.dirs.contains(&rec.path)
        {
            return Some(Step::Replay(rec));
        }
        let path = abs(&self.workdir, rec.path.as_bstr())?;
        let stat = dir_stat(&path)?;
        if !invalid.dirs.contains(&rec.path) && holds(rec, stat, &path, old.started) {
            return Some(Step::Replay(rec));
        }
        Some(Step::Read(rec.path.clone()))
    }

    /// Read the directory `rela` again, and what is below it, with gix's
    /// walk rooted there: what it recorded (the directories read, and the
    /// cached listings below to replay instead); `None` when it is gone or
    /// no longer a directory.
    fn read<'a>(
        &mut self,
        rela: BString,
        index: &gix::index::State,
        old: &'a Old<'a>,
        invalid: &'a Invalid,
        interrupt: &'a std::sync::atomic::AtomicBool,
    ) -> Result<Option<Recording<'a, '_>>> {
        let Some(path) = abs(&self.workdir, rela.as_bstr()) else {
            return Ok(None);
        };
        // Its stat before it is read, so a change while it is read shows.
        let Some(stat) = dir_stat(&path) else {
            return Ok(None);
        };
        let mut rec = Recording::new(old, invalid, &self.workdir, rela.clone(), interrupt);
        // Opened before the walk: a root the walk may not go into (it
        // became a repository) emits itself, and that is its listing.
        rec.open_dir(rela, &path, stat, false);
        gix::dir::walk(
            &self.workdir,
            gix::dir::walk::Context {
                should_interrupt: Some(interrupt),
                git_dir_realpath: &self.git_dir_realpath,
                current_dir: &self.current_dir,
                index,
                // Case-insensitive file systems take gix's full walk
                // (see `walk::cached_walker`).
                ignore_case_index_lookup: None,
                pathspec: &mut self.pathspec,
                pathspec_attributes: &mut |_, _, _, _| false,
                excludes: Some(&mut self.excludes),
                objects: &self.objects,
                explicit_traversal_root: Some(&path),
            },
            self.options,
            &mut rec,
        )
        .map_err(|e| crate::Error::Git {
            context: format!("could not walk the directory {}", path.display()),
            source: Box::new(e),
        })?;
        Ok(Some(rec))
    }
}
