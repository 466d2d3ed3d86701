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
//!
//! Here: the records of the cache and when one still holds; `walker.rs`:
//! the walk, directory by directory; `recording.rs`: what one gix walk
//! records; `invalid.rs`: what else makes a listing be read again;
//! `file.rs`: `index.dirs` on disk.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::dir::entry::Kind;

mod file;
mod invalid;
mod recording;
mod walker;
pub(super) use file::DirFile;
pub(super) use invalid::Invalid;
pub(super) use walker::Walker;

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
