//! The private capture cache in `<git dir>/t3/` (its files are described in
//! the docs of [`super`]): loading it, and writing it back in the
//! background, stamped for racy git and bound together by the meta file
//! `cache` (`index.tracked` rebuilt from HEAD: [`super::rebuild`]).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::index::entry::Flags;

use super::captured::Untracked;
use crate::error::{Context as _, Result};

/// The first line of the meta file; another line means another format.
const CACHE_VERSION: &str = "t3-cache 3";

/// The two files `index.tracked` alternates between: each capture writes
/// the one the meta file does not name, over its old bytes (five times
/// faster than a new file at 100,000 entries: no blocks to allocate), and
/// the meta file, written last, names it.
const TRACKED_SLOTS: [&str; 2] = ["index.tracked", "index.tracked.alt"];

/// The cache as the last capture left it.
pub(super) struct Cache {
    /// The HEAD tree `index.tracked` was built from.
    pub(super) head: ObjectId,
    /// The tree of the last capture.
    pub(super) tree: ObjectId,
    /// `index.tracked`: HEAD's paths with the id, mode and stat last captured.
    pub(super) tracked: gix::index::File,
    /// Which of [`TRACKED_SLOTS`] it was read from.
    tracked_slot: usize,
    /// `index.untracked`: the untracked, not ignored files last captured.
    pub(super) untracked: gix::index::File,
    /// The identity of the `index.dirs` written with them, if one was.
    pub(super) dirs: Option<String>,
    /// The watcher token taken before the walk these files record, with the
    /// watcher's [key](super::watcher::Watcher::key).
    pub(super) watch: Option<Watch>,
    /// The fingerprint of the attributes the ids were hashed under
    /// (see [`super::attrs`]).
    pub(super) attrs: Option<String>,
    /// Whether those attributes convert line endings automatically
    /// (a cache written before this was kept: unknown).
    pub(super) auto_eol: Option<bool>,
}

/// A watcher's token, stored with the cache it was taken for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Watch {
    /// Which watcher gave it.
    pub(super) key: String,
    /// Its token.
    pub(super) token: String,
}

impl Watch {
    /// Whether it fits on a line of the meta file.
    fn storable(&self) -> bool {
        !(self.key.contains('\n') || self.token.contains('\n') || self.token.is_empty())
    }
}

impl Cache {
    /// Load the cache from `dir`; anything missing, unreadable or
    /// inconsistent is `None`.
    pub(super) fn load(repo: &gix::Repository, dir: &Path) -> Option<Cache> {
        let meta = String::from_utf8(crate::fsread::read_regular(&dir.join("cache"), false).ok()?).ok()?;
        let mut lines = meta.lines();
        if lines.next()? != CACHE_VERSION {
            return None;
        }
        let mut field = |key: &str| -> Option<String> {
            let line = lines.next()?;
            Some(line.strip_prefix(key)?.strip_prefix(' ')?.to_owned())
        };
        let id = |s: String| ObjectId::from_hex(s.as_bytes()).ok();
        let head = id(field("head")?)?;
        let tree = id(field("tree")?)?;
        let (slot_name, tracked_id) = field("tracked")?
            .split_once(' ')
            .map(|(a, b)| (a.to_owned(), b.to_owned()))?;
        let tracked_slot = TRACKED_SLOTS.iter().position(|s| *s == slot_name)?;
        let untracked_id = field("untracked")?;
        // Each index is bound by identity and by a CRC-32 of its bytes: a
        // slot overwritten in place whose new bytes a crash lost keeps its
        // new size and mtime.
        let open = |name: &str, bound: String| -> Option<gix::index::File> {
            let (identity, sum) = bound.rsplit_once(' ')?;
            crate::repo::index_file::read_checked(&dir.join(name), repo.object_hash(), |meta, data| {
                identity_of(meta) == identity && checksum(data) == sum
            })
        };
        // Optional lines after those: the index.dirs they go with, and the
        // watcher's token.
        let (mut dirs, mut key, mut token, mut attrs, mut auto_eol) = (None, None, None, None, None);
        for line in lines {
            let (name, value) = line.split_once(' ').unwrap_or((line, ""));
            let slot = match name {
                "dirs" => &mut dirs,
                "watcher" => &mut key,
                "token" => &mut token,
                "attrs" => &mut attrs,
                "auto-eol" => &mut auto_eol,
                _ => continue,
            };
            *slot = Some(value.to_owned());
        }
        let watch = key.zip(token).map(|(key, token)| Watch { key, token });
        Some(Cache {
            head,
            tree,
            tracked: open(TRACKED_SLOTS[tracked_slot], tracked_id)?,
            tracked_slot,
            untracked: open("index.untracked", untracked_id)?,
            dirs,
            watch,
            attrs,
            auto_eol: auto_eol.and_then(|v| match v.as_str() {
                "0" => Some(false),
                "1" => Some(true),
                _ => None,
            }),
        })
    }
}

/// Where the next `index.tracked` goes: the slot the cache `last` was not
/// read from.
pub(super) fn next_tracked_path(dir: &Path, last: Option<&Cache>) -> PathBuf {
    let next = last.map_or(0, |c| 1 - c.tracked_slot.min(1));
    dir.join(TRACKED_SLOTS[next])
}

impl Cache {
    /// Take `index.tracked` out, leaving an empty index in its place.
    pub(super) fn take_tracked(&mut self) -> gix::index::File {
        let empty = gix::index::File::from_state(
            gix::index::State::new(self.tracked.object_hash()),
            self.tracked.path().to_owned(),
        );
        std::mem::replace(&mut self.tracked, empty)
    }
}

/// What the meta file names besides the indexes.
pub(super) struct Names {
    /// The HEAD tree `index.tracked` was built from.
    pub(super) head: ObjectId,
    /// The tree of the capture.
    pub(super) tree: ObjectId,
    /// The attributes fingerprint (see [`super::attrs`]).
    pub(super) attrs: super::attrs::Stamp,
}

/// A background write of the capture cache, finished when dropped.
///
/// The write is atomic per file and the meta file goes last, so a failure
/// only means a rebuild next time; it overlaps with writing the checkpoint.
#[derive(Debug, Default)]
pub(super) struct CacheWrite {
    thread: Option<std::thread::JoinHandle<()>>,
    /// Opens the gate to the meta file (see [`CacheWrite::keep`]).
    gate: Option<std::sync::mpsc::Sender<()>>,
}

impl CacheWrite {
    /// Start writing the cache into `dir`: `tracked` as `index.tracked`,
    /// the `untracked` files as `index.untracked`, both stamped with
    /// `walk_started`, and the meta file naming what `names` holds. A
    /// failure is only traced.
    pub(super) fn spawn(
        dir: PathBuf,
        walk_started: SystemTime,
        names: Names,
        tracked: gix::index::File,
        untracked: &[Untracked],
        dirs: Option<(super::untracked::NextDirs, Option<Watch>)>,
    ) -> CacheWrite {
        let Names { head, tree, attrs } = names;
        let mut state = gix::index::State::new(tracked.object_hash());
        for f in untracked {
            state.dangerously_push_entry(f.stat, f.id, Flags::empty(), f.mode, f.path.as_bstr());
        }
        let untracked = gix::index::File::from_state(state, dir.join("index.untracked"));
        let (gate, opened) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("t3-cache-write".into())
            .spawn(move || {
                let dirs_path = dir.join(super::untracked::FILE);
                // The watcher's token goes only with the listings it was taken for.
                let (dirs, watch) = dirs.map_or((None, None), |(d, w)| (Some(d), w));
                let dirs_saved = match dirs {
                    Some(super::untracked::NextDirs::Save(d)) => {
                        d.save(&dirs_path).map(|()| file_identity(&dirs_path))
                    }
                    // Unchanged: the same file (the lock keeps others from writing it).
                    Some(super::untracked::NextDirs::Keep { .. }) => Ok(file_identity(&dirs_path)),
                    None => std::fs::remove_file(&dirs_path).or(Ok(())).map(|()| None),
                };
                let dirs_id = dirs_saved.unwrap_or_else(|e| {
                    crate::trace::note(|| format!("untracked-walk cache not written: {e}"));
                    None
                });
                let bound = Bound {
                    head,
                    tree,
                    attrs,
                    dirs: dirs_id,
                    watch: watch.filter(Watch::storable),
                };
                if let Err(e) = save(&dir, walk_started, &bound, tracked, untracked, &opened) {
                    crate::trace::note(|| format!("capture cache not written: {e}"));
                }
            })
            .ok();
        CacheWrite {
            thread,
            gate: Some(gate),
        }
    }

    /// Let the meta file be written, which makes the cache count: call it
    /// once the objects the cache names are on disk. A cache whose meta
    /// file is not written is not used (its indexes no longer match the
    /// old meta file), so a capture that failed before flushing never
    /// leaves ids of objects a crash could lose for the next one to reuse.
    pub(super) fn keep(&self) {
        if let Some(gate) = &self.gate {
            let _ = gate.send(());
        }
    }
}

impl Drop for CacheWrite {
    fn drop(&mut self) {
        // Closing the gate unopened tells the writer to stop before the meta file.
        drop(self.gate.take());
        if let Some(handle) = self.thread.take() {
            let _t = crate::trace::span("wait for the cache write");
            let _ = handle.join();
        }
    }
}

/// Write the cache files, stamped with `walk_started` for racy-git, and the
/// meta file that binds them, last.
fn save(
    dir: &Path,
    walk_started: SystemTime,
    bound: &Bound,
    mut tracked: gix::index::File,
    mut untracked: gix::index::File,
    gate: &std::sync::mpsc::Receiver<()>,
) -> Result<()> {
    std::fs::create_dir_all(dir).context(|| format!("could not create {}", dir.display()))?;
    let slot = tracked
        .path()
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| TRACKED_SLOTS.contains(n))
        .ok_or_else(|| {
            crate::Error::Internal(format!(
                "not a slot of index.tracked: {}",
                tracked.path().display()
            ))
        })?
        .to_owned();
    let tracked_id = write_stamped(&mut tracked, walk_started, Replace::InPlace)?;
    let untracked_id = write_stamped(&mut untracked, walk_started, Replace::Rename)?;
    if gate.recv().is_err() {
        crate::trace::note(|| "capture cache not kept: its objects were not flushed".into());
        return Ok(());
    }
    let Bound {
        head, tree, attrs, ..
    } = bound;
    let mut meta = format!(
        "{CACHE_VERSION}\nhead {head}\ntree {tree}\ntracked {slot} {tracked_id}\nuntracked {untracked_id}\nattrs {}\nauto-eol {}\n",
        attrs.id,
        u8::from(attrs.auto_eol),
    );
    if let Some(dirs) = &bound.dirs {
        meta.push_str(&format!("dirs {dirs}\n"));
        // A token goes with the directory listings it was taken for.
        if let Some(w) = &bound.watch {
            meta.push_str(&format!("watcher {}\ntoken {}\n", w.key, w.token));
        }
    }
    write_plain(&dir.join("cache"), meta.as_bytes())
}

/// What the meta file binds besides the two indexes.
struct Bound {
    head: ObjectId,
    tree: ObjectId,
    /// The attributes fingerprint (see [`super::attrs`]).
    attrs: super::attrs::Stamp,
    /// The identity of the `index.dirs` just written.
    dirs: Option<String>,
    /// The watcher's token taken before this walk.
    watch: Option<Watch>,
}

/// How an index file is replaced.
#[derive(Clone, Copy)]
enum Replace {
    /// Its bytes overwritten (a slot the meta file does not name).
    InPlace,
    /// A new file renamed over it.
    Rename,
}

/// Write one index file, stamp it with `walk_started`, and return its
/// identity (empty if it cannot be read back, which fails the next load).
fn write_stamped(file: &mut gix::index::File, walk_started: SystemTime, how: Replace) -> Result<String> {
    // No SHA-1 trailer: the meta file binds each index by identity instead.
    let data = crate::repo::index_file::encode_private(file)?;
    let path = file.path();
    // A slot that is not a regular file (a FIFO, which a blocking open
    // would wait on forever, or a link) is replaced by a new file instead,
    // never opened: the cache is disposable.
    let in_place = match how {
        Replace::InPlace => match crate::fsread::open_regular_rw(path) {
            Ok(f) => Some(f),
            Err(e) => {
                crate::trace::note(|| format!("{} replaced, not written in place: {e}", path.display()));
                None
            }
        },
        Replace::Rename => None,
    };
    let f = match in_place {
        Some(f) => {
            use std::os::unix::fs::FileExt as _;
            f.write_all_at(&data, 0)
                .and_then(|()| f.set_len(data.len() as u64))
                .context(|| format!("could not write {}", path.display()))?;
            f
        }
        None => {
            write_plain(path, &data)?;
            crate::fsread::open_regular_rw(path).context(|| format!("could not open {}", path.display()))?
        }
    };
    f.set_modified(walk_started)
        .context(|| format!("could not stamp {}", path.display()))?;
    Ok(file_identity(path).map_or_else(String::new, |id| format!("{id} {}", checksum(&data))))
}

/// The CRC-32 of an index file's bytes, as the meta file records it.
fn checksum(data: &[u8]) -> String {
    format!("{:08x}", crc32fast::hash(data))
}

/// Inode, size and mtime of a file: each index file is written again
/// (renamed over, or a slot overwritten) and stamped with a distinct time,
/// so this names one version of it.
pub(super) fn file_identity(path: &Path) -> Option<String> {
    std::fs::metadata(path).ok().map(|md| identity_of(&md))
}

/// [`file_identity`] from metadata already read.
fn identity_of(md: &std::fs::Metadata) -> String {
    use std::os::unix::fs::MetadataExt as _;
    format!("{}:{}:{}.{:09}", md.ino(), md.size(), md.mtime(), md.mtime_nsec())
}

/// Replace a small file atomically; the cache is a cache, so no fsync.
fn write_plain(path: &Path, data: &[u8]) -> Result<()> {
    crate::atomic::write(path, data, None, crate::atomic::Durability::Cache)
}
