//! Folding git-t3's own packs into one, as `git gc --auto` folds packs past
//! `gc.autoPackLimit`, but only the packs git-t3 wrote and whatever
//! `gc.auto` says (the shared bench, and some users, set it to 0).
//!
//! Every capture writes its objects as one small pack (`repo/pack.rs`) and
//! records it in `t3/packs` (an empty file named after it). Each command
//! opens every pack's index, so without folding it slows with the number
//! of captures. [`fold`] runs in the background maintenance, holding its
//! lock, when more than [`LIMIT`] packs are recorded ([`recorded`], one
//! directory listing, is the capture's check):
//!
//! - a recorded pack whose files are gone (git's gc folded it) or that a
//!   multi-pack index names (git's maintenance owns it now) is forgotten;
//!   one with a `.keep` is left alone (a capture whose refs are not
//!   published yet; a `.keep` older than [`STALE_KEEP`] is a crashed
//!   capture's, and that pack is forgotten too, as git's gc leaves it);
//! - the largest packs stay as they are while each holds at least twice
//!   the bytes of all smaller ones together (at most [`KEPT`] of them), the
//!   rest are folded: git's geometric repacking, so that a fold rewrites
//!   the recent small packs, not every object each time;
//! - their entries are copied as they are (whole objects; each checked
//!   against the CRC-32 its index keeps, else read through gix and
//!   compressed again) into one new pack and index, written by the capture's
//!   pack writer, flushed to disk and recorded, then the old packs' files
//!   are deleted, the index first (it makes a pack visible, as git's
//!   `unlink_pack_path` does).
//!
//! Every object of a folded pack is in the new pack before any old file
//! goes, and a reader that finds an old pack gone looks for packs again
//! (gix and git both), so no object is ever missing; unreachable objects
//! are kept too (collecting them is git's gc's job).

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use crate::error::{Context as _, Result};
use crate::repo::pack::{self, Entry};

/// The recorded packs tolerated before they are folded.
pub const LIMIT: usize = 8;
/// The largest packs a fold leaves as they are, at most.
pub const KEPT: usize = 3;
/// A `.keep` older than this is not a capture in flight.
pub const STALE_KEEP: Duration = Duration::from_secs(86_400);
/// The files git keeps beside a pack, deleted with it after its index.
const SIDE_FILES: [&str; 5] = ["pack", "rev", "bitmap", "mtimes", "promisor"];

/// What a fold did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Folded {
    /// Packs folded into the new one.
    pub packs: usize,
    /// Objects in the new pack.
    pub objects: usize,
    /// The new pack (`pack-<hash>`), when one was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub into: Option<String>,
    /// Recorded packs no longer git-t3's to fold (gone, in a multi-pack
    /// index, or kept for over a day).
    pub forgotten: usize,
    /// git-t3's packs left (kept ones included).
    pub left: usize,
}

/// How many packs are recorded as git-t3's: one directory listing (the
/// capture's check).
pub fn recorded(repo: &gix::Repository) -> usize {
    std::fs::read_dir(pack::record_dir(repo)).map_or(0, |entries| {
        entries
            .filter_map(|e| e.ok())
            .filter(|e| is_pack_name(&e.file_name().to_string_lossy()))
            .count()
    })
}

fn is_pack_name(name: &str) -> bool {
    name.strip_prefix("pack-")
        .is_some_and(|h| (40..=64).contains(&h.len()) && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// A recorded pack that may be folded.
#[derive(Debug, Clone)]
struct Candidate {
    name: String,
    bytes: u64,
}

/// Fold git-t3's packs when more than `limit` are recorded (see the module
/// docs). The caller holds the maintenance lock (two folds never run at
/// once).
pub fn fold(repo: &gix::Repository, limit: usize) -> Result<Folded> {
    let record = pack::record_dir(repo);
    let pack_dir = repo.objects.store_ref().path().join("pack");
    let mut names: Vec<String> = match std::fs::read_dir(&record) {
        Ok(e) => e
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| is_pack_name(n))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e).context(|| format!("could not read {}", record.display())),
    };
    names.sort();
    let mut done = Folded::default();
    let Some(in_midx) = multi_index_packs(&pack_dir) else {
        // A multi-pack index git would not read either: leave every pack alone.
        done.left = names.len();
        return Ok(done);
    };
    let mut candidates = Vec::new();
    let mut kept = 0;
    for name in names {
        let base = pack_dir.join(&name);
        let (pack_file, idx) = (base.with_extension("pack"), base.with_extension("idx"));
        let keep_age = std::fs::metadata(base.with_extension("keep")).ok().map(|m| {
            m.modified()
                .ok()
                .and_then(|t| t.elapsed().ok())
                .unwrap_or_default()
        });
        let gone = !idx.is_file() || !pack_file.is_file();
        if gone || in_midx.contains(&name) || keep_age.is_some_and(|age| age >= STALE_KEEP) {
            forget(&record, &name);
            done.forgotten += 1;
        } else if keep_age.is_some() {
            kept += 1;
        } else {
            let bytes = std::fs::metadata(&pack_file).map_or(0, |m| m.len());
            candidates.push(Candidate { name, bytes });
        }
    }
    done.left = candidates.len() + kept;
    if done.left <= limit {
        return Ok(done);
    }
    let folding = choose(candidates);
    if folding.len() < 2 {
        return Ok(done);
    }
    let mut written = write_folded(repo, &pack_dir, &folding)?;
    done.objects = written.1;
    let into = written.0.name().unwrap_or_default().to_owned();
    // On disk before anything points at it instead of the old packs.
    crate::repo::durable::sync_objects(repo, &[], &[written.0.pack.clone(), written.0.index.clone()])?;
    pack::record(&record, &into);
    written.0.release();
    for old in folding.iter().filter(|c| c.name != into) {
        remove_pack(&pack_dir, &old.name)?;
        forget(&record, &old.name);
    }
    done.packs = folding.len();
    done.left = done.left + 1 - folding.len();
    done.into = Some(into);
    Ok(done)
}

/// Which of `candidates` to fold: all but the largest that each hold at
/// least twice the bytes of all smaller ones together (at most [`KEPT`]).
fn choose(mut candidates: Vec<Candidate>) -> Vec<Candidate> {
    candidates.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.name.cmp(&b.name)));
    let mut rest: u64 = candidates.iter().map(|c| c.bytes).sum();
    let mut keep = 0;
    for c in &candidates {
        rest -= c.bytes;
        if keep >= KEPT || c.bytes < rest.saturating_mul(2) {
            break;
        }
        keep += 1;
    }
    candidates.split_off(keep)
}

/// Forget the recorded pack `name` (a file already gone is fine).
fn forget(record: &Path, name: &str) {
    let _ = std::fs::remove_file(record.join(name));
}

/// The packs (`pack-<hash>`) a multi-pack index names: git's to manage
/// (`None`: there is one, and it does not parse).
fn multi_index_packs(pack_dir: &Path) -> Option<HashSet<String>> {
    let path = pack_dir.join("multi-pack-index");
    if !path.exists() {
        return Some(HashSet::new());
    }
    let midx = gix::odb::pack::multi_index::File::at(&path, None).ok()?;
    Some(
        midx.index_names()
            .iter()
            .filter_map(|p| Some(p.file_stem()?.to_str()?.to_owned()))
            .collect(),
    )
}

/// Delete the files of pack `name`: the index first, then the pack and
/// whatever git keeps beside it (its `.keep` stays: it is not ours).
fn remove_pack(pack_dir: &Path, name: &str) -> Result<()> {
    let base = pack_dir.join(name);
    for ext in std::iter::once("idx").chain(SIDE_FILES) {
        let path = base.with_extension(ext);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).context(|| format!("could not remove {}", path.display()));
            }
            _ => {}
        }
    }
    Ok(())
}

/// An opened pack: its index and its data.
struct Opened {
    index: gix::odb::pack::index::File,
    data: gix::odb::pack::data::File,
}

/// Write the objects of `folding` as one pack (kept until released);
/// returns it with its object count.
fn write_folded(
    repo: &gix::Repository,
    pack_dir: &Path,
    folding: &[Candidate],
) -> Result<(pack::Written, usize)> {
    let hash = repo.object_hash();
    let opened = folding
        .iter()
        .map(|c| {
            let base = pack_dir.join(&c.name);
            let index = gix::odb::pack::index::File::at(base.with_extension("idx"), hash)
                .context(|| format!("could not read {}.idx", c.name))?;
            let data = gix::odb::pack::data::File::at(base.with_extension("pack"), hash)
                .context(|| format!("could not read {}.pack", c.name))?;
            Ok(Opened { index, data })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut seen = HashSet::new();
    let mut entries = Vec::new();
    for pack in &opened {
        entries_of(repo, pack, &mut seen, &mut entries)?;
    }
    let written = pack::write_pack(pack_dir, hash, &entries)
        .context(|| format!("could not write a pack in {}", pack_dir.display()))?;
    Ok((written, entries.len()))
}

/// Append the entries of `pack` not in `seen` to `out`, in pack order.
fn entries_of<'a>(
    repo: &gix::Repository,
    pack: &'a Opened,
    seen: &mut HashSet<gix::ObjectId>,
    out: &mut Vec<Entry<'a>>,
) -> Result<()> {
    let mut by_offset: Vec<gix::odb::pack::index::Entry> = pack.index.iter().collect();
    by_offset.sort_by_key(|e| e.pack_offset);
    let end = pack.data.pack_end() as u64;
    let mut ends: Vec<u64> = by_offset.iter().skip(1).map(|e| e.pack_offset).collect();
    ends.push(end);
    for (e, next) in by_offset.into_iter().zip(ends) {
        if !seen.insert(e.oid) {
            continue;
        }
        let raw = pack.data.entry_slice(e.pack_offset..next);
        let whole = raw.filter(|bytes| {
            let crc_ok = e.crc32.is_none_or(|crc| crc == crc32fast::hash(bytes));
            let header = gix::odb::pack::data::Entry::from_bytes(bytes, e.pack_offset, repo.object_hash());
            crc_ok && header.is_ok_and(|h| !h.header.is_delta())
        });
        let entry = match whole {
            Some(bytes) => Entry {
                id: e.oid,
                crc: e.crc32.unwrap_or_else(|| crc32fast::hash(bytes)),
                bytes: Cow::Borrowed(bytes),
            },
            None => reencoded(repo, e.oid)?,
        };
        out.push(entry);
    }
    Ok(())
}

/// Object `id` read through gix (a delta resolved, damage found) and
/// compressed as a whole entry.
fn reencoded(repo: &gix::Repository, id: gix::ObjectId) -> Result<Entry<'static>> {
    let object = repo
        .find_object(id)
        .context(|| format!("could not read object {id} to fold its pack"))?;
    let mut bytes = pack::entry_header(object.kind, object.data.len() as u64);
    let compressed = crate::repo::loose::zlib(gix::zlib::Compression::BEST_SPEED, &[], &object.data)
        .context(|| format!("could not compress object {id}"))?;
    bytes.extend_from_slice(&compressed);
    Ok(Entry {
        id,
        crc: crc32fast::hash(&bytes),
        bytes: Cow::Owned(bytes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(name: &str, bytes: u64) -> Candidate {
        Candidate {
            name: name.into(),
            bytes,
        }
    }

    fn names(v: Vec<Candidate>) -> Vec<String> {
        let mut n: Vec<String> = v.into_iter().map(|c| c.name).collect();
        n.sort();
        n
    }

    #[test]
    fn the_large_packs_stay_and_the_small_ones_fold() {
        // 1000 ≥ 2 × (300 + 5 × 10): stays; 300 ≥ 2 × 50: stays; the rest fold.
        let mut v = vec![c("big", 1000), c("mid", 300)];
        v.extend((0..5).map(|i| c(&format!("s{i}"), 10)));
        assert_eq!(names(choose(v)), ["s0", "s1", "s2", "s3", "s4"]);
        // Equal sizes: everything folds.
        let v: Vec<_> = (0..9).map(|i| c(&format!("s{i}"), 10)).collect();
        assert_eq!(choose(v).len(), 9);
        // At most KEPT stay, however geometric.
        let v: Vec<_> = (0..9).map(|i| c(&format!("p{i}"), 1 << (3 * i))).collect();
        assert_eq!(choose(v).len(), 9 - KEPT);
    }

    #[test]
    fn pack_names_are_recognised() {
        assert!(is_pack_name(&format!("pack-{}", "a".repeat(40))));
        assert!(is_pack_name(&format!("pack-{}", "0".repeat(64))));
        assert!(!is_pack_name("pack-xyz"));
        assert!(!is_pack_name(&format!("tmp-{}", "a".repeat(40))));
    }
}
