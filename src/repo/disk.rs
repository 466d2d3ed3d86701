//! What objects cost on disk, as git counts it (`git rev-list
//! --disk-usage`, `git count-objects`): a packed object's entry in its pack
//! (header and compressed data, a delta as stored), a loose object's file.

use std::path::PathBuf;

use gix::ObjectId;

use crate::error::{Context as _, Result};

/// On-disk sizes of the repository's objects: packs first, like git's
/// lookup, then loose files. Objects only in alternates count nothing.
pub struct DiskSizes {
    objects: PathBuf,
    packs: Vec<Pack>,
}

struct Pack {
    index: gix::odb::pack::index::File,
    /// Every entry's offset, sorted, then where the entries end (the data
    /// file's length less its trailing checksum).
    offsets: Vec<u64>,
}

impl DiskSizes {
    /// Read the pack indexes of `repo` (a pack without its data file, or an
    /// index that does not parse, is left out).
    pub fn open(repo: &gix::Repository) -> Result<Self> {
        let objects = objects_dir(repo);
        let mut packs = Vec::new();
        let dir = objects.join("pack");
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e.filter_map(|e| e.ok()).map(|e| e.path()).collect::<Vec<_>>(),
            Err(_) => Vec::new(),
        };
        for idx in entries {
            if idx.extension().is_none_or(|e| e != "idx") {
                continue;
            }
            let Ok(data_len) = std::fs::metadata(idx.with_extension("pack")).map(|m| m.len()) else {
                continue;
            };
            let Ok(index) = gix::odb::pack::index::File::at(&idx, repo.object_hash()) else {
                continue;
            };
            let mut offsets = index.sorted_offsets();
            offsets.push(data_len.saturating_sub(repo.object_hash().len_in_bytes() as u64));
            packs.push(Pack { index, offsets });
        }
        Ok(DiskSizes { objects, packs })
    }

    /// The bytes `id` takes on disk (0 when it is not in this repository,
    /// and for the empty tree, which git knows without storing it).
    pub fn size(&self, id: &gix::oid) -> u64 {
        if id == ObjectId::empty_tree(id.kind()) {
            return 0;
        }
        for pack in &self.packs {
            if let Some(i) = pack.index.lookup(id) {
                let start = pack.index.pack_offset_at_index(i);
                let next = pack.offsets.partition_point(|&o| o <= start);
                return pack.offsets.get(next).map_or(0, |end| end.saturating_sub(start));
            }
        }
        let hex = id.to_hex().to_string();
        let (dir, file) = hex.split_at(2);
        std::fs::symlink_metadata(self.objects.join(dir).join(file)).map_or(0, |m| m.len())
    }
}

/// Loose objects: how many, and their bytes (`git count-objects`'s
/// `count` and `size`, in bytes).
pub fn loose_objects(repo: &gix::Repository) -> Result<(u64, u64)> {
    let objects = objects_dir(repo);
    let (mut count, mut bytes) = (0, 0);
    for fanout in 0..=255u8 {
        let dir = objects.join(format!("{fanout:02x}"));
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).context(|| format!("could not read {}", dir.display())),
        };
        for e in entries.filter_map(|e| e.ok()) {
            if is_object_name(&e.file_name()) {
                count += 1;
                bytes += e.metadata().map_or(0, |m| m.len());
            }
        }
    }
    Ok((count, bytes))
}

/// About how many loose objects there are, from one fan-out directory
/// (`objects/17`, as `git gc --auto` estimates): cheap enough for every
/// capture.
pub fn loose_estimate(repo: &gix::Repository) -> u64 {
    let dir = objects_dir(repo).join("17");
    let n = std::fs::read_dir(dir).map_or(0, |e| {
        e.filter_map(|e| e.ok())
            .filter(|e| is_object_name(&e.file_name()))
            .count()
    });
    (n as u64) * 256
}

/// The packs `git gc --auto` counts against `gc.autoPackLimit`: those
/// without a `.keep` file. One directory listing.
pub fn pack_count(repo: &gix::Repository) -> u64 {
    let dir = objects_dir(repo).join("pack");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return 0;
    };
    let names: std::collections::HashSet<std::ffi::OsString> =
        entries.filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
    let kept = |stem: &str| names.contains(std::ffi::OsStr::new(&format!("{stem}.keep")));
    names
        .iter()
        .filter_map(|n| n.to_str()?.strip_suffix(".pack"))
        .filter(|stem| !kept(stem))
        .count() as u64
}

fn is_object_name(name: &std::ffi::OsStr) -> bool {
    name.to_str()
        .is_some_and(|n| n.len() >= 38 && n.bytes().all(|b| b.is_ascii_hexdigit()))
}

fn objects_dir(repo: &gix::Repository) -> PathBuf {
    repo.objects.store_ref().path().to_owned()
}
