//! Flushing objects and refs to disk: gix never fsyncs. A ref is published
//! only after the objects it names (and the ref file itself) are on disk.

use std::collections::BTreeSet;
use std::fs::File;
use std::path::{Path, PathBuf};

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
    // Ok(true): the path is gone.
    let sync_one = |p: &Path, dir: bool| -> Result<bool> {
        let f = match File::open(p) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(true),
            Err(e) => return Err(e).context(|| format!("could not open {} to flush it", p.display())),
        };
        let res = if dir {
            f.sync_all().or_else(ignore_unsupported)
        } else {
            f.sync_all()
        };
        res.context(|| format!("could not flush {} to disk", p.display()))?;
        Ok(false)
    };
    let all: Vec<(&Path, bool)> = files
        .iter()
        .map(|f| (f.as_path(), false))
        .chain(dirs.iter().map(|d| (d.as_path(), true)))
        .collect();
    let gone = std::sync::atomic::AtomicBool::new(false);
    let each = |c: &[(&Path, bool)]| {
        c.iter().try_for_each(|&(p, dir)| {
            // A directory gone is fine too; only a file gone is reported.
            if sync_one(p, dir)? && !dir {
                gone.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            Ok(())
        })
    };
    match all.len() {
        0 => {}
        1 => each(&all)?,
        n => {
            let chunk = n.div_ceil(FLUSH_THREADS);
            std::thread::scope(|s| {
                let mut chunks = all.chunks(chunk);
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

/// fsync the loose object files of `ids` (those in packs are durable
/// already) and the directories holding them.
pub fn sync_objects(repo: &gix::Repository, ids: &[ObjectId]) -> Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let objects = repo.objects.store_ref().path().to_owned();
    let mut files = Vec::with_capacity(ids.len());
    let mut dirs = BTreeSet::new();
    for id in ids {
        let hex = id.to_hex().to_string();
        let (fan, rest) = hex.split_at(2);
        let dir = objects.join(fan);
        let file = dir.join(rest);
        if file.is_file() {
            files.push(file);
            dirs.insert(dir);
        }
    }
    if !dirs.is_empty() {
        dirs.insert(objects);
    }
    sync_paths(&files, &dirs).map(drop)
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
pub fn sync_refs<'a>(
    repo: &gix::Repository,
    refs: impl Iterator<Item = (&'a str, bool)>,
    dirs: BTreeSet<PathBuf>,
) -> Result<()> {
    let base = repo.common_dir();
    let mut deleted = false;
    let files: Vec<PathBuf> = refs
        .filter_map(|(name, exists)| {
            deleted |= !exists;
            exists.then(|| base.join(name))
        })
        .collect();
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
