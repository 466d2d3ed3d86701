//! One pack for the objects of a capture, instead of a loose file each.
//!
//! A capture of a few changed files writes a few dozen objects: the blobs,
//! every tree on their paths, the commit and its note. As loose objects
//! each is a file to create in its fan-out folder (an inode to allocate, a
//! rename, a write-out to wait for, a 4 KiB block for a few hundred bytes):
//! most of a small capture's time went there. A [`PackSink`] gathers them
//! instead, compressed as they come (on the hashing threads), and writes
//! them as one pack and its index: two files, whatever the count.
//! Each pack written is recorded as git-t3's own (an empty file named after
//! it in `t3/packs`, see [`record_dir`]), so that background maintenance
//! can fold git-t3's packs, and only those (`repo::fold`).
//!
//! The files are git's own formats, pack version 2 (whole objects, no
//! deltas) and index version 2, written to temporary files in
//! `objects/pack` and renamed into place, the pack first and the index
//! last (the index makes the pack visible), as `git index-pack` does. A
//! `.keep` file is made before, and removed once the caller has published
//! the refs naming the objects ([`PackSink::release`]): until then nothing
//! reaches them, and `git repack -a -d` would drop them (nor does git-t3's
//! own fold touch a kept pack). Background maintenance folds git-t3's packs
//! past a small count, and `git gc --auto` folds all packs past
//! `gc.autoPackLimit` (see `retention::maintenance`).
//!
//! Memory stays bounded: past [`SPILL_BYTES`] of compressed data, what was
//! gathered is written as a pack at once and gathering starts anew.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use gix::ObjectId;
use gix::zlib::Compression;

use crate::repo::loose::{create_dir, persist, read_only_temp, zlib};

/// Compressed bytes gathered before they are written as a pack.
pub const SPILL_BYTES: usize = 32 << 20;

/// Uncompressed bytes of the objects gathered that are also kept as they
/// are, so that they can be read before the pack is written (see
/// [`PackSink::copies`]): a small capture's commit and note then join its
/// pack instead of going loose.
const COPY_BYTES: usize = 4 << 20;

/// The folder, in the common git dir's `t3/`, that records which packs
/// git-t3 wrote: an empty file named after each (`pack-<hash>`).
pub const RECORD_DIR: &str = "packs";

/// Where `repo`'s own packs are recorded (see [`RECORD_DIR`]).
pub fn record_dir(repo: &gix::Repository) -> PathBuf {
    crate::repo::t3_common_dir(repo).join(RECORD_DIR)
}

/// An object ready for a pack: its entry (header and zlib stream) and the
/// entry's CRC-32, as the index keeps it.
pub(crate) struct Entry<'a> {
    pub(crate) id: ObjectId,
    pub(crate) crc: u32,
    pub(crate) bytes: Cow<'a, [u8]>,
}

#[derive(Default)]
struct Gathered {
    entries: Vec<Entry<'static>>,
    /// Every id gathered or written by this sink.
    ids: HashSet<ObjectId>,
    bytes: usize,
    /// The packs written (pack, index) and their `.keep` files.
    written: Vec<Written>,
    /// How many of `written` were handed out to flush.
    flushed: usize,
    /// Every object gathered, as it is, while they total at most
    /// [`COPY_BYTES`] and no pack was written.
    copies: Vec<(ObjectId, gix::objs::Kind, Vec<u8>)>,
    copy_bytes: usize,
    /// Some object gathered has no copy.
    uncopied: bool,
}

/// One pack on disk.
#[derive(Debug, Clone)]
pub struct Written {
    /// The pack file.
    pub pack: PathBuf,
    /// Its index.
    pub index: PathBuf,
    /// The `.keep` file made for it, while it is ours to remove.
    keep: Option<PathBuf>,
}

impl Written {
    /// The pack's name, `pack-<hash>` (its files without the extension).
    pub fn name(&self) -> Option<&str> {
        self.pack.file_stem()?.to_str()
    }

    /// Remove the `.keep` file made for it, if any (a file already gone is
    /// fine).
    pub fn release(&mut self) {
        if let Some(keep) = self.keep.take() {
            let _ = std::fs::remove_file(keep);
        }
    }
}

/// Objects gathered for one pack, from any thread.
pub struct PackSink {
    pack_dir: PathBuf,
    level: Compression,
    /// Compressed bytes gathered before they are written ([`SPILL_BYTES`]).
    spill: usize,
    hash: gix::hash::Kind,
    /// Where the packs written are recorded as git-t3's ([`record_dir`]).
    record: Option<PathBuf>,
    gathered: Mutex<Gathered>,
}

impl std::fmt::Debug for PackSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PackSink")
            .field("pack_dir", &self.pack_dir)
            .finish_non_exhaustive()
    }
}

impl PackSink {
    /// A sink writing into `objects/pack` of the objects folder `objects`,
    /// recording each pack it writes in `record` (see [`record_dir`]).
    pub fn new(
        objects: &Path,
        level: Compression,
        hash: gix::hash::Kind,
        record: Option<PathBuf>,
    ) -> Arc<PackSink> {
        Arc::new(PackSink {
            pack_dir: objects.join("pack"),
            level,
            spill: SPILL_BYTES,
            hash,
            record,
            gathered: Mutex::new(Gathered::default()),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Gathered> {
        self.gathered
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether object `id` was gathered or written here.
    pub fn holds(&self, id: &ObjectId) -> bool {
        self.lock().ids.contains(id)
    }

    /// Gather object `id` of `kind` holding `data` (its id computed by the
    /// caller). Compressed here, on the caller's thread.
    pub fn add(&self, kind: gix::objs::Kind, data: &[u8], id: ObjectId) -> std::io::Result<()> {
        if self.holds(&id) {
            return Ok(());
        }
        let mut bytes = entry_header(kind, data.len() as u64);
        bytes.extend_from_slice(&zlib(self.level, &[], data)?);
        let crc = crc32fast::hash(&bytes);
        let mut g = self.lock();
        if !g.ids.insert(id) {
            return Ok(());
        }
        g.bytes += bytes.len();
        g.entries.push(Entry {
            id,
            crc,
            bytes: Cow::Owned(bytes),
        });
        if !g.uncopied {
            if g.copy_bytes + data.len() <= COPY_BYTES {
                g.copy_bytes += data.len();
                g.copies.push((id, kind, data.to_vec()));
            } else {
                g.uncopy();
            }
        }
        if g.bytes >= self.spill {
            self.write_gathered(&mut g)?;
        }
        Ok(())
    }

    /// Write what was gathered as a pack (nothing when nothing was): its
    /// objects are readable once this returns.
    pub fn seal(&self) -> crate::error::Result<()> {
        use crate::error::Context as _;
        let mut g = self.lock();
        self.write_gathered(&mut g)
            .context(|| format!("could not write a pack in {}", self.pack_dir.display()))
    }

    /// Every object gathered and not yet written, as it is — `None` when
    /// some of them were not kept (too many bytes, or a pack was written
    /// already: [`PackSink::seal`] makes them readable then).
    pub fn copies(&self) -> Option<Vec<(ObjectId, gix::objs::Kind, Vec<u8>)>> {
        let g = self.lock();
        (!g.uncopied).then(|| g.copies.clone())
    }

    /// Whether [`PackSink::copies`] would give the objects (without
    /// copying them).
    pub fn has_copies(&self) -> bool {
        !self.lock().uncopied
    }

    /// The files of the packs written since the last call, to flush.
    pub fn unflushed(&self) -> Vec<PathBuf> {
        let mut g = self.lock();
        let new = files(g.written.get(g.flushed..).unwrap_or_default());
        g.flushed = g.written.len();
        new
    }

    /// The files of every pack written.
    #[cfg(test)]
    fn written(&self) -> Vec<PathBuf> {
        files(&self.lock().written)
    }

    /// Remove the `.keep` files: the refs naming the objects are published
    /// (or the objects are not needed). A file already gone is fine.
    pub fn release(&self) {
        for w in &mut self.lock().written {
            w.release();
        }
    }

    fn write_gathered(&self, g: &mut Gathered) -> std::io::Result<()> {
        if g.entries.is_empty() {
            return Ok(());
        }
        let entries = std::mem::take(&mut g.entries);
        g.bytes = 0;
        g.uncopy();
        let written = write_pack(&self.pack_dir, self.hash, &entries)?;
        if let (Some(dir), Some(name)) = (&self.record, written.name()) {
            record(dir, name);
        }
        g.written.push(written);
        Ok(())
    }
}

impl Gathered {
    /// Stop keeping copies: from now on the objects are read from a pack.
    fn uncopy(&mut self) {
        self.uncopied = true;
        self.copies = Vec::new();
        self.copy_bytes = 0;
    }
}

/// The pack and index files of `written`.
fn files(written: &[Written]) -> Vec<PathBuf> {
    written
        .iter()
        .flat_map(|w| [w.pack.clone(), w.index.clone()])
        .collect()
}

impl Drop for PackSink {
    fn drop(&mut self) {
        self.release();
    }
}

/// A pack entry's header: the type and the size, 4 bits then 7 at a time.
pub(crate) fn entry_header(kind: gix::objs::Kind, size: u64) -> Vec<u8> {
    let code: u8 = match kind {
        gix::objs::Kind::Commit => 1,
        gix::objs::Kind::Tree => 2,
        gix::objs::Kind::Blob => 3,
        gix::objs::Kind::Tag => 4,
    };
    let mut out = Vec::with_capacity(10);
    // The low four bits of the size fit: the mask keeps the cast lossless.
    let mut byte = (code << 4) | (size & 0x0f) as u8;
    let mut rest = size >> 4;
    while rest != 0 {
        out.push(byte | 0x80);
        byte = (rest & 0x7f) as u8;
        rest >>= 7;
    }
    out.push(byte);
    out
}

/// A hasher that also writes what it hashes to `out`.
struct Hashing<W> {
    out: W,
    hasher: gix::hash::Hasher,
}

impl<W: std::io::Write> Hashing<W> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.hasher.update(bytes);
        self.out.write_all(bytes)
    }

    /// Write the checksum of everything so far, and return it with the writer.
    fn finish(mut self) -> std::io::Result<(ObjectId, W)> {
        let sum = self.hasher.try_finalize().map_err(std::io::Error::other)?;
        self.out.write_all(sum.as_slice())?;
        Ok((sum, self.out))
    }
}

/// Record the pack `name` (`pack-<hash>`) as git-t3's in `dir`: best
/// effort, as a pack left unrecorded is only never folded by git-t3 (git's
/// own gc still packs it).
pub(crate) fn record(dir: &Path, name: &str) {
    let path = dir.join(name);
    let create = || {
        std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
    };
    if create().is_err() && std::fs::create_dir_all(dir).is_ok() {
        let _ = create();
    }
}

/// Write `entries` as a pack and its index into `pack_dir`, with a `.keep`
/// file (see [`Written::release`]); the caller records the pack as
/// git-t3's.
pub(crate) fn write_pack(
    pack_dir: &Path,
    hash: gix::hash::Kind,
    entries: &[Entry<'_>],
) -> std::io::Result<Written> {
    create_dir(pack_dir)?;
    let count = u32::try_from(entries.len()).map_err(std::io::Error::other)?;
    // The pack: header, entries, checksum.
    let pack_tmp = read_only_temp(pack_dir, "tmp_pack_")?;
    let mut offsets = Vec::with_capacity(entries.len());
    let mut w = Hashing {
        out: std::io::BufWriter::with_capacity(64 << 10, pack_tmp),
        hasher: gix::hash::hasher(hash),
    };
    w.put(b"PACK")?;
    w.put(&2u32.to_be_bytes())?;
    w.put(&count.to_be_bytes())?;
    let mut offset: u64 = 12;
    for e in entries {
        offsets.push(offset);
        w.put(&e.bytes)?;
        offset += e.bytes.len() as u64;
    }
    let (pack_sum, out) = w.finish()?;
    let pack_tmp = out.into_inner().map_err(std::io::IntoInnerError::into_error)?;

    // The index: fan-out table, sorted ids, CRCs, offsets, checksums.
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by(|a, b| entries[*a].id.cmp(&entries[*b].id));
    let idx_tmp = read_only_temp(pack_dir, "tmp_idx_")?;
    let mut w = Hashing {
        out: std::io::BufWriter::with_capacity(64 << 10, idx_tmp),
        hasher: gix::hash::hasher(hash),
    };
    w.put(b"\xfftOc")?;
    w.put(&2u32.to_be_bytes())?;
    let mut fanout = [0u32; 256];
    for e in entries {
        let first = e.id.as_slice().first().copied().unwrap_or(0);
        fanout[usize::from(first)] += 1;
    }
    let mut total = 0u32;
    for n in fanout {
        total += n;
        w.put(&total.to_be_bytes())?;
    }
    for &i in &order {
        w.put(entries[i].id.as_slice())?;
    }
    for &i in &order {
        w.put(&entries[i].crc.to_be_bytes())?;
    }
    let mut large = Vec::new();
    for &i in &order {
        let off = offsets[i];
        match u32::try_from(off).ok().filter(|o| *o < 0x8000_0000) {
            Some(o) => w.put(&o.to_be_bytes())?,
            None => {
                let at = u32::try_from(large.len()).map_err(std::io::Error::other)?;
                w.put(&(at | 0x8000_0000).to_be_bytes())?;
                large.push(off);
            }
        }
    }
    for off in large {
        w.put(&off.to_be_bytes())?;
    }
    w.put(pack_sum.as_slice())?;
    let (_, out) = w.finish()?;
    let idx_tmp = out.into_inner().map_err(std::io::IntoInnerError::into_error)?;

    let base = pack_dir.join(format!("pack-{}", pack_sum.to_hex()));
    let (pack, index, keep) = (
        base.with_extension("pack"),
        base.with_extension("idx"),
        base.with_extension("keep"),
    );
    // Ours until the caller's refs name the objects: `git repack -a -d`
    // leaves a kept pack alone. Already there: someone else's, not ours
    // to remove.
    let keep = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&keep)
    {
        Ok(_) => Some(keep),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => None,
        Err(e) => return Err(e),
    };
    // The same pack already there (same objects, same order) is kept as
    // it is, not replaced under a reader that maps it; the index last, as
    // it makes the pack visible.
    let place = |tmp, path: &Path| {
        if path.is_file() {
            Ok(())
        } else {
            persist(tmp, path)
        }
    };
    let placed = place(pack_tmp, &pack).and_then(|()| place(idx_tmp, &index));
    if let Err(e) = placed {
        if let Some(k) = &keep {
            let _ = std::fs::remove_file(k);
        }
        return Err(e);
    }
    Ok(Written { pack, index, keep })
}

#[cfg(test)]
#[path = "pack_tests.rs"]
mod tests;
