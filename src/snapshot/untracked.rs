//! The untracked-walk cache: git's "untracked cache" idea for git-t3's
//! private index.
//!
//! Finding the untracked, not ignored files means reading every directory of
//! the worktree and matching each entry against the ignore rules; with
//! 100,000 files that is most of a capture. But a directory's listing only
//! changes when its own modification time does: adding, removing or renaming
//! an entry sets it. So `index.dirs` keeps, per directory walked, its stat
//! data, what the walk emitted there (untracked files, nested repositories)
//! and the subdirectories it went into. The next capture `lstat`s each
//! directory and reads again only those whose stat changed, replaying the
//! others (their tracked entries are `lstat`ed by the status walk anyway).
//!
//! A cached listing is not trusted when:
//! - the directory's stat differs (mtime, ctime, inode, device);
//! - it is *racy*: its mtime is not older than the time the walk that
//!   recorded it started, so it may have changed within the timestamp's
//!   granularity after it was read (git's racy-git rule, for directories);
//! - the `.gitignore` in it changed (its stat, or it is racy), which also
//!   re-reads every directory below, whose rules it is part of;
//! - it holds a `.git` (a repository being created inside it is not seen in
//!   its own mtime), unless it is the worktree's root;
//! - the rules that apply everywhere changed: `info/exclude`,
//!   `core.excludesFile`, `.t3ignore`, `info/t3-exclude` and the settings
//!   that change matching (their contents make a fingerprint);
//! - HEAD moved and a path under it became tracked or untracked;
//! - a watcher says the directory or an entry in it changed (then nothing
//!   else is even `lstat`ed: see [`super::focus`]).
//!
//! Each directory read again is read by gix's own directory walk, rooted
//! there and kept from recursing, so what is emitted stays exactly what one
//! walk of the whole worktree emits.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::dir::entry::Kind;

use crate::error::Result;
use crate::model::path::parent;

mod file;
pub(super) use file::DirFile;

/// The cache's file in `<git dir>/t3/`.
pub(super) const FILE: &str = "index.dirs";

/// Stat data of a directory (or of the `.gitignore` in it) that tells a
/// changed listing from an unchanged one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct DirStat {
    mtime: (i64, u32),
    ctime: (i64, u32),
    ino: u64,
    dev: u64,
}

impl DirStat {
    fn of(md: &std::fs::Metadata) -> DirStat {
        use std::os::unix::fs::MetadataExt as _;
        DirStat {
            mtime: coarse((md.mtime(), u32::try_from(md.mtime_nsec()).unwrap_or(0))),
            ctime: coarse((md.ctime(), u32::try_from(md.ctime_nsec()).unwrap_or(0))),
            ino: md.ino(),
            dev: md.dev(),
        }
    }

    /// Changed at or after `started`: maybe after it was read.
    fn is_racy(&self, started: (i64, u32)) -> bool {
        self.mtime >= started || self.ctime >= started
    }
}

fn lstat(path: &Path) -> Option<std::fs::Metadata> {
    std::fs::symlink_metadata(path).ok()
}

/// Untracked files, symlinks and nested repositories by worktree-relative
/// path, in walk order: what a walk emits.
pub(super) type Emitted = Vec<(BString, Option<Kind>)>;

/// One directory as the last walk saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct DirRecord {
    /// Worktree-relative path, empty for the root.
    path: BString,
    stat: DirStat,
    /// The stat of the `.gitignore` in it, if there was one.
    ignore_file: Option<DirStat>,
    /// What the walk emitted in it: untracked files, symlinks and nested
    /// repositories, by worktree-relative path.
    untracked: Emitted,
    /// The subdirectories it went into, by worktree-relative path.
    subdirs: Vec<BString>,
    /// Never replayed (it holds a `.git`).
    volatile: bool,
}

/// `index.dirs`: every directory the last walk went into.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct DirCache {
    /// The HEAD tree of the `index.tracked` it was walked against (what was
    /// tracked then), in hex.
    pub(super) head: BString,
    /// The fingerprint of the rules that apply everywhere.
    rules: BString,
    /// When the walk that recorded it started (seconds, nanoseconds).
    started: (i64, u32),
    /// Shared, so a directory whose listing holds goes into the next cache
    /// without a copy.
    pub(super) dirs: Vec<Arc<DirRecord>>,
}

/// What invalidates parts of the cache besides stat data.
#[derive(Debug, Default)]
pub(super) struct Invalid {
    /// Directories to read again (ancestors of paths that became tracked or
    /// untracked).
    pub(super) dirs: HashSet<BString>,
    /// Read everything again.
    pub(super) all: bool,
}

impl Invalid {
    /// The directories to read again after the tracked paths changed from
    /// `old` to `new` (both sorted, as in an index): every ancestor of a path
    /// in one and not the other; everything when a `.gitignore` is among them.
    pub(super) fn tracked_paths_changed<'a>(
        old: impl Iterator<Item = &'a BStr>,
        new: impl Iterator<Item = &'a BStr>,
    ) -> Invalid {
        let mut out = Invalid::default();
        let mut old = old.peekable();
        let mut new = new.peekable();
        let changed = |p: &BStr, out: &mut Invalid| {
            if p.rsplit_str("/").next() == Some(b".gitignore".as_slice()) {
                out.all = true;
            }
            let mut p = p;
            while let Some(i) = p.rfind_byte(b'/') {
                p = p[..i].as_bstr();
                if !out.dirs.insert(p.to_owned()) {
                    return;
                }
            }
            out.dirs.insert(BString::default());
        };
        loop {
            match (old.peek(), new.peek()) {
                (Some(a), Some(b)) => match a.cmp(b) {
                    std::cmp::Ordering::Equal => {
                        old.next();
                        new.next();
                    }
                    std::cmp::Ordering::Less => {
                        changed(a, &mut out);
                        old.next();
                    }
                    std::cmp::Ordering::Greater => {
                        changed(b, &mut out);
                        new.next();
                    }
                },
                (Some(a), None) => {
                    changed(a, &mut out);
                    old.next();
                }
                (None, Some(b)) => {
                    changed(b, &mut out);
                    new.next();
                }
                (None, None) => break,
            }
        }
        out
    }
}

/// The fingerprint of the ignore rules that apply to every directory: the
/// files' contents and the settings that change how they match.
pub(super) fn rules_fingerprint(repo: &gix::Repository, workdir: &Path) -> BString {
    let keys = [
        "core.ignoreCase",
        "core.precomposeUnicode",
        "core.excludesFile",
        "core.symlinks",
    ];
    let files: Vec<PathBuf> = [
        Some(repo.common_dir().join("info").join("exclude")),
        super::fingerprint::global_file(repo, "core.excludesFile", "ignore"),
        Some(workdir.join(super::scope::T3IGNORE)),
        Some(super::scope::t3_exclude_path(repo)),
    ]
    .into_iter()
    .flatten()
    .collect();
    super::fingerprint::of(repo, &keys, &files).into()
}

fn time_of(t: SystemTime) -> (i64, u32) {
    match t.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(d) => coarse((i64::try_from(d.as_secs()).unwrap_or(i64::MAX), d.subsec_nanos())),
        Err(_) => (0, 0),
    }
}

/// A timestamp as the file system keeps it: whole seconds when a test
/// plays a file system with one-second timestamps.
fn coarse(t: (i64, u32)) -> (i64, u32) {
    if crate::fault::coarse_timestamps() {
        (t.0, 0)
    } else {
        t
    }
}

/// What the walk found, and the cache to save for the next one.
pub(super) struct Walked {
    pub(super) untracked: Emitted,
    pub(super) cache: NextDirs,
    /// Directories read (not replayed), for tracing and tests.
    pub(super) read: usize,
}

/// The `index.dirs` the next capture starts from.
pub(super) enum NextDirs {
    /// A new one, to write.
    Save(DirCache),
    /// The one on disk, of `dirs` directories: no listing in it changed.
    Keep { dirs: usize },
}

impl NextDirs {
    /// How many directories it records.
    pub(super) fn len(&self) -> usize {
        match self {
            NextDirs::Save(d) => d.dirs.len(),
            NextDirs::Keep { dirs } => *dirs,
        }
    }
}

/// Everything one directory read needs, owned so the walk can run on a
/// thread of its own beside the status walk.
pub(super) struct Walker {
    pub(super) workdir: PathBuf,
    pub(super) git_dir_realpath: PathBuf,
    pub(super) current_dir: PathBuf,
    pub(super) excludes: gix::worktree::Stack,
    pub(super) pathspec: gix::pathspec::Search,
    pub(super) objects: gix::OdbHandleArc,
    pub(super) options: gix::dir::walk::Options<'static>,
    pub(super) rules: BString,
    /// The HEAD tree the index walked against was built from, in hex.
    pub(super) head: BString,
    pub(super) started: SystemTime,
}

/// Records what one gix walk, rooted at a directory to read again, finds
/// per directory, and keeps it from going into any subdirectory whose cached
/// listing still holds (those are replayed instead).
struct Recording<'a> {
    old: &'a HashMap<&'a BStr, &'a Arc<DirRecord>>,
    old_started: (i64, u32),
    invalid: &'a Invalid,
    workdir: &'a Path,
    /// The walk's root, worktree-relative.
    root: BString,
    records: Vec<DirRecord>,
    /// Directory → (its record, whether everything below is read again).
    open: HashMap<BString, (usize, bool)>,
    /// Subdirectories whose cached listing holds.
    replay: Vec<&'a Arc<DirRecord>>,
    interrupt: &'a std::sync::atomic::AtomicBool,
}

/// The stat data of the directory at `path`; `None` when it is gone or no
/// longer a directory.
fn dir_stat(path: &Path) -> Option<DirStat> {
    lstat(path).filter(|m| m.is_dir()).map(|m| DirStat::of(&m))
}

fn abs(workdir: &Path, rela: &BStr) -> Option<PathBuf> {
    if rela.is_empty() {
        return Some(workdir.to_owned());
    }
    gix::path::from_bstr(rela).ok().map(|p| workdir.join(p))
}

/// Whether the cached listing `rec` of the directory at `path`, now
/// `stat`, still holds; `started` is when the walk that recorded it began.
///
/// A nested repository it listed must still have its `.git`: removing that
/// changes the nested directory's stat data, not this one's, and the
/// nested directory has no record of its own (the walk does not go in).
fn holds(rec: &DirRecord, stat: DirStat, path: &Path, started: (i64, u32)) -> bool {
    !rec.volatile
        && rec.stat == stat
        && !stat.is_racy(started)
        && rec.ignore_file.is_none_or(|s| {
            !s.is_racy(started) && lstat(&path.join(".gitignore")).map(|m| DirStat::of(&m)) == Some(s)
        })
        && rec.untracked.iter().all(|(entry, kind)| {
            *kind != Some(Kind::Repository) || {
                let name = entry.rsplit_str(b"/").next().unwrap_or(entry.as_slice());
                gix::path::from_byte_slice(name).is_ok_and(|n| lstat(&path.join(n).join(".git")).is_some())
            }
        })
}

impl Recording<'_> {
    /// Start the record of a directory about to be read.
    fn open_dir(&mut self, rela: BString, path: &Path, stat: DirStat, force: bool) {
        let ignore_file = lstat(&path.join(".gitignore")).map(|m| DirStat::of(&m));
        // The worktree's own `.git` changes nothing in what its root lists.
        let volatile = !rela.is_empty() && lstat(&path.join(".git")).is_some();
        let old = self.old.get(rela.as_bstr());
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

impl gix::dir::walk::Delegate for Recording<'_> {
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
            && let Some(old) = self.old.get(rela).copied()
            && holds(old, stat, &path, self.old_started)
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
    pub(super) fn walk(
        self,
        index: &gix::index::State,
        old: Option<&DirFile>,
        invalid: &Invalid,
        focus: Option<&super::focus::Focus>,
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
    fn unchanged(&self, file: &DirFile, focus: &super::focus::Focus) -> Option<Emitted> {
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
        focus: Option<&super::focus::Focus>,
        interrupt: &std::sync::atomic::AtomicBool,
    ) -> Result<(Emitted, DirCache, usize)> {
        let by_path: HashMap<&BStr, &Arc<DirRecord>> = old
            .map(|o| o.dirs.iter().map(|d| (d.path.as_bstr(), d)).collect())
            .unwrap_or_default();
        let old_started = old.map_or((0, 0), |o| o.started);
        let mut untracked = Vec::new();
        let mut read = 0;
        let mut cache = DirCache {
            head: self.head.clone(),
            rules: self.rules.clone(),
            started: time_of(self.started),
            dirs: Vec::with_capacity(by_path.len().max(16)),
        };
        let mut todo: Vec<Step<'_>> = vec![match by_path.get(b"".as_bstr()) {
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
                        match by_path.get(sub.as_bstr()) {
                            Some(r) => todo.push(Step::Check(r)),
                            None => todo.push(Step::Read(sub.clone())),
                        }
                    }
                    continue;
                }
                Step::Check(rec) => {
                    // A watcher that listed nothing in or under it: its
                    // listing holds without even an lstat.
                    if focus.is_some_and(|f| !f.dir_may_have_changed(rec.path.as_bstr()))
                        && !rec.volatile
                        && !invalid.dirs.contains(&rec.path)
                    {
                        todo.push(Step::Replay(rec));
                        continue;
                    }
                    let Some(path) = abs(&self.workdir, rec.path.as_bstr()) else {
                        continue;
                    };
                    // Gone or no longer a directory: its parent's listing
                    // changed, and is read again next time (its stat changed).
                    let Some(stat) = dir_stat(&path) else {
                        continue;
                    };
                    if !invalid.dirs.contains(&rec.path) && holds(rec, stat, &path, old_started) {
                        todo.push(Step::Replay(rec));
                        continue;
                    }
                    rec.path.clone()
                }
                Step::Read(rela) => rela,
            };
            let Some(path) = abs(&self.workdir, rela.as_bstr()) else {
                continue;
            };
            // Its stat before it is read, so a change while it is read shows.
            let Some(stat) = dir_stat(&path) else {
                continue;
            };
            let mut rec = Recording {
                old: &by_path,
                old_started,
                invalid,
                workdir: &self.workdir,
                root: rela.clone(),
                records: Vec::new(),
                open: HashMap::new(),
                replay: Vec::new(),
                interrupt,
            };
            // Opened before the walk: a root the walk may not go into (it
            // became a repository) emits itself, and that is its listing.
            rec.open_dir(rela.clone(), &path, stat, false);
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_tracked_paths_invalidate_their_ancestors() {
        let old: Vec<BString> = vec!["a/b/c".into(), "a/d".into(), "e".into()];
        let new: Vec<BString> = vec!["a/b/c".into(), "e".into(), "f/g/h".into()];
        let inv =
            Invalid::tracked_paths_changed(old.iter().map(|p| p.as_bstr()), new.iter().map(|p| p.as_bstr()));
        assert!(!inv.all);
        let mut dirs: Vec<_> = inv.dirs.into_iter().collect();
        dirs.sort();
        assert_eq!(
            dirs,
            vec![BString::from(""), "a".into(), "f".into(), "f/g".into()]
        );
        let new2: Vec<BString> = vec!["a/.gitignore".into()];
        let inv = Invalid::tracked_paths_changed(std::iter::empty(), new2.iter().map(|p| p.as_bstr()));
        assert!(inv.all);
    }
}
