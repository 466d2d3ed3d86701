//! Every object a checkpoint names exists, and stays.
//!
//! A capture reuses object ids from its cache (a file whose stat did not
//! change keeps the id it had); the object may have been removed since by
//! `git gc` (the thread that held it dropped, its operation expired), or be
//! about to be (an unreachable loose object older than gc's grace period).
//! So, like `git add` (git's `freshen_loose_object`), a loose object that is
//! reused has its mtime set to now, and a capture checks, before it
//! publishes, that every object its tree names beyond HEAD's exists
//! ([`missing_beyond`]): trees are read, blobs looked up in the pack
//! indexes or as loose files, in one pass that skips whatever is equal to
//! HEAD's tree (HEAD's objects are reachable, so gc keeps them).
//!
//! `verify` walks whole checkpoints with [`first_missing`].

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use gix::ObjectId;
use gix::bstr::{BString, ByteSlice};
use gix::objs::tree::EntryKind;

use crate::error::Result;

/// A loose object younger than this is not freshened again (one `utime` a
/// capture per reused object otherwise; gc's grace period is two weeks).
const FRESH_FOR: Duration = Duration::from_secs(60);

/// Where an object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// In a pack.
    Packed,
    /// A loose file.
    Loose,
    /// Nowhere.
    Missing,
}

/// Where object `id` is, asked of `odb` (a handle that may or may not
/// look for new packs).
pub fn find(odb: &gix::OdbHandle, id: &gix::oid) -> Found {
    match gix::odb::Header::try_header(odb, id) {
        Ok(Some(gix::odb::find::Header::Packed(_))) => Found::Packed,
        Ok(Some(gix::odb::find::Header::Loose { .. })) => Found::Loose,
        Ok(None) | Err(_) => Found::Missing,
    }
}

/// The loose file of object `id` in `objects_dir`.
fn loose_path(objects_dir: &Path, id: &gix::oid) -> PathBuf {
    let hex = id.to_hex().to_string();
    let (dir, rest) = hex.split_at(2);
    objects_dir.join(dir).join(rest)
}

/// Set the mtime of loose object `id` to now (as git does for an object it
/// would have written), unless it is fresh already. A loose object of an
/// alternate (not under `objects_dir`) is left alone; failures are ignored:
/// freshening protects against a later gc, it is never needed to go on.
pub fn freshen_loose(objects_dir: &Path, id: &gix::oid) {
    // Opened for reading (loose objects are read-only): the owner may set
    // its times all the same.
    let Ok(file) = crate::fsread::open_regular(&loose_path(objects_dir, id), true) else {
        return;
    };
    let now = SystemTime::now();
    let fresh = file
        .metadata()
        .and_then(|md| md.modified())
        .ok()
        .and_then(|m| now.duration_since(m).ok())
        .is_some_and(|age| age < FRESH_FOR);
    if !fresh {
        let _ = file.set_modified(now);
    }
}

/// The objects directory of `repo` (loose objects are freshened there).
pub fn objects_dir(repo: &gix::Repository) -> PathBuf {
    repo.objects.store_ref().path().to_owned()
}

/// The paths under `tree` whose objects do not exist, looking only where
/// `tree` differs from `base` (HEAD's tree: reachable, so kept). Objects
/// `known` says were written by this process are taken as present; every
/// other loose blob found is freshened when `freshen` (a capture about to
/// name them; a look that must not write does not). Trees are read through `reader`
/// (which may also see objects not yet flushed), blobs looked up in `odb`.
pub fn missing_beyond(
    reader: &gix::Repository,
    odb: &gix::OdbHandle,
    base: Option<ObjectId>,
    tree: ObjectId,
    known: impl Fn(&ObjectId) -> bool,
    freshen: bool,
    interrupt: crate::interrupt::Interrupt,
) -> Result<Vec<BString>> {
    let mut walk = Walk {
        reader,
        odb,
        objects_dir: objects_dir(reader),
        known: &known,
        missing: Vec::new(),
        seen: HashSet::new(),
        blobs: true,
        freshen,
        stop_at_first: false,
        interrupt,
    };
    walk.pair(base, tree, &mut BString::default(), 0)?;
    Ok(walk.missing)
}

/// The first path under `tree` whose object is missing (only trees when
/// `blobs` is false), for `verify`; objects already checked (in `seen`)
/// are not looked up again.
pub fn first_missing(
    repo: &gix::Repository,
    tree: ObjectId,
    blobs: bool,
    seen: &mut HashSet<ObjectId>,
    interrupt: crate::interrupt::Interrupt,
) -> Result<Option<BString>> {
    let mut walk = Walk {
        reader: repo,
        odb: &repo.objects,
        objects_dir: objects_dir(repo),
        known: &|_: &ObjectId| false,
        missing: Vec::new(),
        seen: std::mem::take(seen),
        blobs,
        // A read-only check.
        freshen: false,
        stop_at_first: true,
        interrupt,
    };
    let result = walk.pair(None, tree, &mut BString::default(), 0);
    *seen = walk.seen;
    result?;
    Ok(walk.missing.into_iter().next())
}

/// Deeper than this, a tree is not walked (git refuses such trees too).
const MAX_DEPTH: usize = 4096;

struct Walk<'a, K: Fn(&ObjectId) -> bool + ?Sized> {
    reader: &'a gix::Repository,
    odb: &'a gix::OdbHandle,
    objects_dir: PathBuf,
    known: &'a K,
    missing: Vec<BString>,
    /// Trees (and, when blobs are checked without freshening, blobs)
    /// already found whole.
    seen: HashSet<ObjectId>,
    blobs: bool,
    /// Freshen the loose blobs found (a capture about to name them).
    freshen: bool,
    stop_at_first: bool,
    /// Checked at every tree.
    interrupt: crate::interrupt::Interrupt,
}

impl<K: Fn(&ObjectId) -> bool + ?Sized> Walk<'_, K> {
    fn odb_find(&self, id: &ObjectId) -> Found {
        if (self.known)(id) {
            return Found::Packed;
        }
        find(self.odb, id)
    }

    fn done(&self) -> bool {
        self.stop_at_first && !self.missing.is_empty()
    }

    /// Walk `new` where it differs from `old` (both trees), `path` being
    /// where they are (with a trailing `/` unless empty).
    fn pair(&mut self, old: Option<ObjectId>, new: ObjectId, path: &mut BString, depth: usize) -> Result<()> {
        if old == Some(new) || self.seen.contains(&new) || self.done() || depth > MAX_DEPTH {
            return Ok(());
        }
        self.interrupt.check()?;
        let Some(new_entries) = self.entries(new)? else {
            self.missing.push(trimmed(path));
            return Ok(());
        };
        let old_entries = match old {
            Some(o) => self.entries(o)?.unwrap_or_default(),
            None => Vec::new(),
        };
        let old_by_name: std::collections::HashMap<&[u8], (EntryKind, ObjectId)> = old_entries
            .iter()
            .map(|(name, kind, id)| (name.as_slice(), (*kind, *id)))
            .collect();
        let mut whole = true;
        for (name, kind, id) in &new_entries {
            if self.done() {
                return Ok(());
            }
            let before = old_by_name.get(name.as_slice()).copied();
            if before == Some((*kind, *id)) {
                continue;
            }
            let len = path.len();
            path.extend_from_slice(name);
            match kind {
                EntryKind::Tree => {
                    path.push(b'/');
                    let old_tree = before.filter(|(k, _)| *k == EntryKind::Tree).map(|(_, id)| id);
                    let n = self.missing.len();
                    self.pair(old_tree, *id, path, depth + 1)?;
                    whole &= self.missing.len() == n;
                }
                EntryKind::Commit => {}
                _ if self.blobs => match self.odb_find(id) {
                    Found::Missing => {
                        self.missing.push(path.clone());
                        whole = false;
                    }
                    Found::Loose if self.freshen => freshen_loose(&self.objects_dir, id),
                    _ => {}
                },
                _ => {}
            }
            path.truncate(len);
        }
        // A tree walked without a base is whole below: never walked again.
        if old.is_none() && whole {
            self.seen.insert(new);
        }
        Ok(())
    }

    /// The entries of tree `id`, or `None` when it cannot be read.
    #[allow(clippy::type_complexity)]
    fn entries(&self, id: ObjectId) -> Result<Option<Vec<(BString, EntryKind, ObjectId)>>> {
        let Ok(tree) = self.reader.find_tree(id) else {
            return Ok(None);
        };
        let mut out = Vec::new();
        for e in gix::objs::TreeRefIter::from_bytes(&tree.data, id.kind()) {
            let Ok(e) = e else {
                return Ok(None);
            };
            out.push((e.filename.to_owned(), e.mode.kind(), e.oid.to_owned()));
        }
        Ok(Some(out))
    }
}

fn trimmed(path: &BString) -> BString {
    let p = path.as_bstr().strip_suffix(b"/").unwrap_or(path.as_slice());
    if p.is_empty() { ".".into() } else { p.into() }
}
