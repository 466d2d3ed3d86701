//! Flushing objects and refs to disk: gix never fsyncs. A ref is published
//! only after the objects it names (and the ref file itself) are on disk.

use std::collections::BTreeSet;
use std::fs::File;
use std::path::{Path, PathBuf};

mod mounts;
use mounts::*;

/// Open `p` to flush it, never waiting (a FIFO put where a file was written
/// would block a plain open until a writer came; its flush then fails).
fn open_to_flush(p: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(p)
}

use gix::ObjectId;

use crate::error::{Context as _, Error, Result};

/// fsync `files` and `dirs`, all at once. A path gone meanwhile is skipped:
/// `git gc` (the user's, or the background one) packs loose objects and
/// refs and deletes their files and emptied directories, and what it packed
/// it flushed itself (see [`sync_refs`] for packed-refs). Returns whether a
/// file was gone.
///
/// The files and the directories that name them are flushed in one wave:
/// what matters is that all of them are on disk before the caller goes on
/// (and publishes a ref naming them), not in which order among themselves.
/// fsync is latency-bound, so several in flight let the file system commit
/// them in one journal transaction instead of one after the other.
fn sync_paths(files: &[PathBuf], dirs: &BTreeSet<PathBuf>) -> Result<bool> {
    let all: Vec<(&Path, Flush)> = files
        .iter()
        .map(|f| (f.as_path(), Flush::Full))
        .chain(dirs.iter().map(|d| (d.as_path(), Flush::Dir)))
        .collect();
    flush(&all)
}

/// How one path is flushed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flush {
    /// A file, data and metadata, through the disk's cache (`fsync`).
    Full,
    /// A directory (its entries).
    Dir,
}

/// Flush `items` all at once; returns whether a file was gone (a directory
/// gone is fine too, but not reported).
fn flush(items: &[(&Path, Flush)]) -> Result<bool> {
    // Ok(true): the path is gone.
    let flush_one = |p: &Path, how: Flush| -> Result<bool> {
        let f = match open_to_flush(p) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(true),
            Err(e) => return Err(e).context(|| format!("could not open {} to flush it", p.display())),
        };
        let res = match how {
            Flush::Full => f.sync_all(),
            Flush::Dir => f.sync_all().or_else(ignore_unsupported),
        };
        res.context(|| format!("could not flush {} to disk", p.display()))?;
        Ok(false)
    };
    let gone = std::sync::atomic::AtomicBool::new(false);
    let each = |c: &[(&Path, Flush)]| {
        c.iter().try_for_each(|&(p, how)| {
            if flush_one(p, how)? && how != Flush::Dir {
                gone.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            Ok(())
        })
    };
    match items.len() {
        0 => {}
        1 => each(items)?,
        n => {
            let chunk = n.div_ceil(FLUSH_THREADS);
            std::thread::scope(|s| {
                let mut chunks = items.chunks(chunk);
                let first = chunks.next().unwrap_or_default();
                let handles: Vec<_> = chunks.map(|c| s.spawn(|| each(c))).collect();
                let here = each(first);
                let joined = join_all(handles);
                here.and(joined)
            })?;
        }
    }
    Ok(gone.into_inner())
}

/// Write out every file of `files` from this one thread: first start each
/// write-out, then wait for each, so the disk has all of them queued at
/// once (a capture's few dozen small objects cost about one write's
/// latency, with no thread to start). A file gone meanwhile (packed by
/// `git gc`) is skipped, as in [`flush`].
fn write_out_all(files: &[PathBuf]) -> Result<()> {
    let mut open = Vec::with_capacity(files.len());
    for p in files {
        match open_to_flush(p) {
            Ok(f) => {
                start_write_out(&f);
                open.push((p, f));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).context(|| format!("could not open {} to flush it", p.display())),
        }
    }
    open.iter()
        .try_for_each(|(p, f)| write_out(f).context(|| format!("could not flush {} to disk", p.display())))
}

/// `sync_file_range(2)` over the whole of `f` (nothing safe wraps it).
#[cfg(target_os = "linux")]
fn sync_file_range(f: &File, flags: libc::c_uint) -> libc::c_int {
    use std::os::fd::AsRawFd as _;
    // SAFETY: the descriptor is open for as long as `f` lives (borrowed
    // for the call); the call takes plain integers and touches no memory
    // of ours.
    unsafe { libc::sync_file_range(f.as_raw_fd(), 0, 0, flags) }
}

/// Start writing `f`'s data to the disk without waiting; [`write_out`]
/// waits. A failure here is left to that call to report.
#[cfg(target_os = "linux")]
fn start_write_out(f: &File) {
    let _ = sync_file_range(f, libc::SYNC_FILE_RANGE_WRITE);
}

/// Without `sync_file_range`: nothing to start.
#[cfg(not(target_os = "linux"))]
fn start_write_out(_: &File) {}

/// Start writing `f`'s data to the disk and wait until it is there, without
/// flushing the disk's cache (git's `FSYNC_WRITEOUT_ONLY`). Where the
/// system has no such call, or refuses it for this file, a full `fsync`.
#[cfg(target_os = "linux")]
fn write_out(f: &File) -> std::io::Result<()> {
    let flags =
        libc::SYNC_FILE_RANGE_WAIT_BEFORE | libc::SYNC_FILE_RANGE_WRITE | libc::SYNC_FILE_RANGE_WAIT_AFTER;
    let rc = sync_file_range(f, flags);
    if rc == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::ENOSYS | libc::EINVAL | libc::ESPIPE | libc::EOPNOTSUPP) => f.sync_all(),
        _ => Err(e),
    }
}

/// Without `sync_file_range`: a full `fsync`.
#[cfg(not(target_os = "linux"))]
fn write_out(f: &File) -> std::io::Result<()> {
    f.sync_all()
}

/// How many flushes are kept in flight at most.
const FLUSH_THREADS: usize = 8;

/// Wait for every flush thread; one that panicked flushed nothing for sure,
/// so it is an error, never a success.
fn join_all(handles: Vec<std::thread::ScopedJoinHandle<'_, Result<()>>>) -> Result<()> {
    let mut first_err = None;
    for h in handles {
        let result = h
            .join()
            .unwrap_or_else(|_| Err(Error::Internal("a thread flushing files to disk panicked".into())));
        if let Err(e) = result {
            first_err.get_or_insert(e);
        }
    }
    first_err.map_or(Ok(()), Err)
}

fn ignore_unsupported(e: std::io::Error) -> std::io::Result<()> {
    // Some file systems refuse fsync on directories; nothing more can be done there.
    if matches!(e.raw_os_error(), Some(22) | Some(9)) {
        Ok(())
    } else {
        Err(e)
    }
}

/// Flush the loose object files of `ids` (those in packs are durable
/// already), the files of the packs `packs` written by this process, and
/// the directories holding them.
///
/// On ext4 and XFS, in one batch, git's `core.fsyncMethod = batch`: every
/// file's data is written out to the disk first (no cache flush), then a
/// file created after all of them is flushed in full — that commits the
/// journal up to it, with every earlier object's allocation, size and
/// name, and the renames that put them in their fan-out folders, and
/// flushes the disk's cache, which their data had reached. The folders
/// need no flush of their own there: their entries were journalled before
/// the marker's. Elsewhere (where one flush need not cover another file:
/// btrfs logs only the file flushed), or with `core.fsyncMethod = fsync`,
/// each file and folder is flushed in full; `core.fsyncMethod = batch`
/// asks for the batch anywhere, and there the folders are flushed too.
pub fn sync_objects(repo: &gix::Repository, ids: &[ObjectId], packs: &[PathBuf]) -> Result<()> {
    sync_objects_and(repo, ids, packs, &BTreeSet::new())
}

/// [`sync_objects`], `packs` standing for any files written by this
/// process (a ref's lock file too), and `extra_dirs` flushed with their
/// folders where folders are flushed at all.
pub fn sync_objects_and(
    repo: &gix::Repository,
    ids: &[ObjectId],
    packs: &[PathBuf],
    extra_dirs: &BTreeSet<PathBuf>,
) -> Result<()> {
    if ids.is_empty() && packs.is_empty() {
        return Ok(());
    }
    let _t = crate::trace::span("flush objects");
    let objects = repo.objects.store_ref().path().to_owned();
    let mut files = Vec::with_capacity(ids.len());
    let mut dirs = BTreeSet::new();
    for id in ids {
        let hex = id.to_hex().to_string();
        let (fan, rest) = hex.split_at(2);
        let dir = objects.join(fan);
        // One packed meanwhile (its file gone) is passed over by the flush.
        files.push(dir.join(rest));
        dirs.insert(dir);
    }
    for p in packs {
        files.push(p.clone());
        if let Some(dir) = p.parent() {
            dirs.insert(dir.to_owned());
        }
    }
    dirs.insert(objects.clone());
    dirs.extend(extra_dirs.iter().cloned());
    let method = repo.config_snapshot().string("core.fsyncMethod");
    let ordered = one_flush_covers_all(&objects);
    let batch = match method.as_deref().map(|m| m.to_ascii_lowercase()) {
        Some(m) if m == b"fsync" => false,
        Some(m) if m == b"batch" => true,
        _ => ordered,
    };
    if !batch || files.len() < 2 {
        return sync_paths(&files, &dirs).map(drop);
    }
    write_out_all(&files)?;
    // The one full flush: of a file created now, after every write-out, so
    // the journal transaction it is in comes after all of theirs.
    let marker = tempfile::Builder::new()
        .prefix("tmp_t3_flush_")
        .tempfile_in(&objects)
        .context(|| format!("could not create a file in {} to flush", objects.display()))?;
    let mut items = vec![(marker.path(), Flush::Full)];
    if !ordered {
        items.extend(dirs.iter().map(|d| (d.as_path(), Flush::Dir)));
    }
    flush(&items).map(drop)
}

/// The directories a ref update will change, found before it runs: each
/// ref's parent, and every directory up to the first existing ancestor
/// (their entries are created by the update).
pub fn dirs_to_flush<'a>(base: &Path, names: impl Iterator<Item = &'a str>) -> BTreeSet<PathBuf> {
    let mut dirs = BTreeSet::new();
    for name in names {
        let mut dir = base.join(name).parent().map(Path::to_owned);
        while let Some(d) = dir {
            if !d.starts_with(base) || d == base {
                break;
            }
            let existed = d.is_dir();
            dir = d.parent().map(Path::to_owned);
            dirs.insert(d);
            if existed {
                break;
            }
        }
    }
    dirs
}

/// fsync loose ref files just written and the directories `dirs_to_flush` named.
///
/// On ext4 and XFS (see [`sync_objects`]) the directories of refs written
/// need no flush of their own: the rename that put a ref file in its
/// directory was journalled before the ref file's own flush, which commits
/// the journal up to it. Refs deleted (no file to flush) and the other file
/// systems, or `core.fsyncMethod = fsync`, flush the directories too.
pub fn sync_refs<'a>(
    repo: &gix::Repository,
    refs: impl Iterator<Item = (&'a str, bool)>,
    dirs: BTreeSet<PathBuf>,
) -> Result<()> {
    let _t = crate::trace::span("flush refs");
    let base = repo.common_dir();
    let mut deleted = false;
    let files: Vec<PathBuf> = refs
        .filter_map(|(name, exists)| {
            deleted |= !exists;
            exists.then(|| base.join(name))
        })
        .collect();
    let fsync_each = repo
        .config_snapshot()
        .string("core.fsyncMethod")
        .is_some_and(|m| m.eq_ignore_ascii_case(b"fsync"));
    let dirs = if !deleted && !files.is_empty() && !fsync_each && one_flush_covers_all(base) {
        BTreeSet::new()
    } else {
        dirs
    };
    let gone = sync_paths(&files, &dirs)?;
    // A deletion may have rewritten packed-refs, and `git pack-refs` may
    // have moved a ref just written there.
    if deleted || gone {
        sync_paths(&[base.join("packed-refs")], &BTreeSet::new())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicked_flush_thread_is_an_error() {
        let result = std::thread::scope(|s| {
            let handles = vec![
                s.spawn(|| Ok(())),
                s.spawn(|| -> Result<()> { panic!("simulated fsync thread panic") }),
            ];
            join_all(handles)
        });
        assert!(matches!(result, Err(Error::Internal(_))), "{result:?}");
    }
}

#[cfg(test)]
mod batch_tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn the_mount_holding_a_path_is_the_longest_above_it() {
        let mounts = b"/dev/vda1 / ext4 rw 0 0\n\
            tmpfs /tmp tmpfs rw 0 0\n\
            /dev/vdb /tmp/my\\040disk xfs rw 0 0\n\
            /dev/vdc /tmpx btrfs rw 0 0\n";
        let kind =
            |p: &str| mount_of(mounts, Path::new(p)).map(|(_, k)| String::from_utf8_lossy(k).into_owned());
        assert_eq!(kind("/home/u/repo/.git/objects").as_deref(), Some("ext4"));
        assert_eq!(kind("/tmp/repo").as_deref(), Some("tmpfs"));
        assert_eq!(kind("/tmp").as_deref(), Some("tmpfs"));
        assert_eq!(kind("/tmp/my disk/repo").as_deref(), Some("xfs"));
        assert_eq!(
            kind("/tmpx/repo").as_deref(),
            Some("btrfs"),
            "/tmp is not above /tmpx"
        );
        assert_eq!(mount_of(b"garbage", Path::new("/x")), None);
        assert_eq!(
            mount_of(mounts, Path::new("/tmp/my disk/r")).map(|(d, _)| d),
            Some(&b"/dev/vdb"[..])
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn an_ext4_device_has_a_journal_when_jbd2_lists_it() {
        let listed = |names: &[&str]| {
            names
                .iter()
                .map(|n| (*n).to_owned())
                .collect::<Vec<_>>()
                .into_iter()
        };
        assert!(has_journal("vda1", listed(&["vda1-8"])));
        assert!(has_journal("dm-0", listed(&["sda2-8", "dm-0-8"])));
        assert!(!has_journal("vda", listed(&["vda1-8"])), "another partition's");
        assert!(
            !has_journal("vda", listed(&[])),
            "no journal (mkfs -O ^has_journal)"
        );
        assert!(!has_journal("vda", listed(&["vda-", "vda-x"])));
    }

    #[test]
    fn write_out_then_one_flush_covers_a_batch_of_files() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = (0..5).map(|i| dir.path().join(format!("f{i}"))).collect();
        for p in &paths {
            std::fs::write(p, b"data").unwrap();
        }
        write_out_all(&paths).unwrap();
        // A file packed and deleted by `git gc` meanwhile is passed over.
        let mut with_gone = paths.clone();
        with_gone.insert(2, dir.path().join("gone"));
        write_out_all(&with_gone).unwrap();
        // A path that cannot be opened for another reason is an error.
        let not_a_file = dir.path().join("f0").join("below");
        assert!(write_out_all(&[not_a_file]).is_err());
        let gone = dir.path().join("gone");
        assert!(flush(&[(gone.as_path(), Flush::Full), (dir.path(), Flush::Dir)]).unwrap());
    }
}
