//! The file `index.dirs`, read only where asked.
//!
//! At 100,000 directories the file is ~10 MB; decoding all of it takes
//! longer than a capture with a watcher may. So the records (in the walk's
//! order) are followed by a table of their offsets sorted by path: a
//! capture finds the few directories a watcher named by binary search, and
//! the list of untracked files is gathered in one pass that allocates only
//! for them. The whole file is decoded only when the walk must read a
//! directory again.
//!
//! Layout (integers little-endian): the magic line; HEAD (hex), the rules
//! fingerprint, the walk's start, the record count; the records; the offset
//! table (one `u64` per record); the table's offset; a CRC-32 of everything
//! before it.

use std::path::Path;
use std::sync::Arc;

use gix::bstr::{BStr, BString, ByteSlice};
use gix::dir::entry::Kind;

use super::{DirCache, DirRecord, DirStat};
use crate::error::Result;

/// The file's first bytes; another value means another format.
const MAGIC: &[u8] = b"t3-dirs 3\n";

/// The bytes of `index.dirs`, read whole.
enum Bytes {
    Owned(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Owned(v) => v,
        }
    }
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} bytes", self.len())
    }
}

/// `index.dirs` as read from disk: checked whole (CRC), decoded in part.
#[derive(Debug)]
pub(in crate::snapshot) struct DirFile {
    data: Bytes,
    /// The HEAD tree of the index it was walked against, in hex.
    pub(in crate::snapshot) head: BString,
    /// The fingerprint of the rules that apply everywhere.
    pub(super) rules: BString,
    /// When the walk that recorded it started.
    pub(super) started: (i64, u32),
    /// Where the records start, and how many there are.
    records: usize,
    count: usize,
    /// Where the sorted offset table starts.
    table: usize,
}

impl DirFile {
    /// Read `index.dirs`; `None` when missing or malformed.
    pub(in crate::snapshot) fn load(path: &Path) -> Option<DirFile> {
        // Read whole (~1 MB at 10,000 directories): a mapping would save a
        // copy only in repositories with 100,000 of them, for an unsafe block.
        let mut file = crate::fsread::open_regular(path, false).ok()?;
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut data).ok()?;
        DirFile::parse(Bytes::Owned(data))
    }

    fn parse(data: Bytes) -> Option<DirFile> {
        let body_len = data.len().checked_sub(4)?;
        let (body, sum) = data.split_at(body_len);
        if crc32fast::hash(body).to_le_bytes() != sum {
            return None;
        }
        let table_at = usize::try_from(u64::from_le_bytes(
            body.get(body_len.checked_sub(8)?..)?.try_into().ok()?,
        ))
        .ok()?;
        let mut r = Reader(body.strip_prefix(MAGIC)?);
        let head = r.bytes()?;
        let rules = r.bytes()?;
        let started = r.time()?;
        let count = usize::try_from(r.u64()?).ok()?;
        let records = body_len - r.0.len();
        // The table fills the space between the records and its offset.
        let table_len = (body_len - 8).checked_sub(table_at)?;
        if table_at < records || table_len != count.checked_mul(8)? {
            return None;
        }
        // The offsets are checked as they are used (a record read at one
        // must parse within the records).
        Some(DirFile {
            data,
            head,
            rules,
            started,
            records,
            count,
            table: table_at,
        })
    }

    /// How many directories it records.
    pub(super) fn len(&self) -> usize {
        self.count
    }

    fn offset(&self, i: usize) -> Option<usize> {
        let at = self.table.checked_add(i.checked_mul(8)?)?;
        let raw = self.data.get(at..at.checked_add(8)?)?;
        usize::try_from(u64::from_le_bytes(raw.try_into().ok()?)).ok()
    }

    fn records(&self) -> Reader<'_> {
        Reader(self.data.get(self.records..self.table).unwrap_or_default())
    }

    /// The path of the record at `offset`.
    fn path_at(&self, offset: usize) -> Option<&BStr> {
        if offset < self.records {
            return None;
        }
        let mut r = Reader(self.data.get(offset..self.table)?);
        r.slice().map(ByteSlice::as_bstr)
    }

    /// The first position in the sorted table whose path is not below `key`.
    fn first_not_below(&self, key: &[u8]) -> usize {
        let (mut lo, mut hi) = (0, self.count);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let below = self
                .offset(mid)
                .and_then(|o| self.path_at(o))
                .is_some_and(|p| p.as_bytes() < key);
            if below {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    fn record_at_position(&self, i: usize) -> Option<DirRecord> {
        let o = self.offset(i).filter(|o| *o >= self.records)?;
        Reader(self.data.get(o..self.table)?).record()
    }

    /// The record of the directory `path`, if the last walk went into it.
    pub(super) fn find(&self, path: &BStr) -> Option<DirRecord> {
        let i = self.first_not_below(path);
        let rec = self.record_at_position(i)?;
        (rec.path == path).then_some(rec)
    }

    /// The records of every directory below `dir` ("" for the root: all).
    pub(super) fn below<'a>(&'a self, dir: &BStr) -> impl Iterator<Item = Option<DirRecord>> + 'a {
        let mut prefix = dir.to_vec();
        if !prefix.is_empty() {
            prefix.push(b'/');
        }
        let start = self.first_not_below(&prefix);
        (start..self.count)
            .map(|i| self.record_at_position(i))
            .take_while(move |r| r.as_ref().is_none_or(|r| r.path.starts_with(&prefix)))
            .filter(|r| r.as_ref().is_none_or(|r| !r.path.is_empty()))
    }

    /// What the last walk emitted, in its order, when no directory of it
    /// holds a `.git` (those are never replayed); `None` otherwise or when
    /// malformed.
    pub(super) fn emitted_without_volatile(&self) -> Option<super::Emitted> {
        let mut out = Vec::new();
        let mut r = self.records();
        for _ in 0..self.count {
            r.slice()?;
            r.stat()?;
            let flags = r.u8()?;
            if flags & 2 != 0 {
                return None;
            }
            if flags & 1 != 0 {
                r.stat()?;
            }
            for _ in 0..r.count()? {
                let kind = kind_of(r.u8()?)?;
                out.push((r.bytes()?, kind));
            }
            for _ in 0..r.count()? {
                r.slice()?;
            }
        }
        r.0.is_empty().then_some(out)
    }

    /// Decode every record; `None` when malformed.
    pub(super) fn decode(&self) -> Option<DirCache> {
        let mut r = self.records();
        let mut dirs = Vec::with_capacity(self.count.min(1 << 20));
        for _ in 0..self.count {
            dirs.push(Arc::new(r.record()?));
        }
        r.0.is_empty().then(|| DirCache {
            head: self.head.clone(),
            rules: self.rules.clone(),
            started: self.started,
            dirs,
        })
    }
}

impl DirCache {
    /// Encode for `index.dirs`.
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.dirs.len() * 104);
        out.extend_from_slice(MAGIC);
        put_bytes(&mut out, &self.head);
        put_bytes(&mut out, &self.rules);
        put_time(&mut out, self.started);
        out.extend_from_slice(&(self.dirs.len() as u64).to_le_bytes());
        let mut offsets = Vec::with_capacity(self.dirs.len());
        for d in &self.dirs {
            offsets.push((d.path.as_bstr(), out.len() as u64));
            put_bytes(&mut out, &d.path);
            put_stat(&mut out, &d.stat);
            out.push(u8::from(d.ignore_file.is_some()) | (u8::from(d.volatile) << 1));
            if let Some(s) = &d.ignore_file {
                put_stat(&mut out, s);
            }
            out.extend_from_slice(&(d.untracked.len() as u64).to_le_bytes());
            for (p, kind) in &d.untracked {
                out.push(kind_code(*kind));
                put_bytes(&mut out, p);
            }
            out.extend_from_slice(&(d.subdirs.len() as u64).to_le_bytes());
            for s in &d.subdirs {
                put_bytes(&mut out, s);
            }
        }
        offsets.sort_unstable();
        let table = out.len() as u64;
        for (_, o) in offsets {
            out.extend_from_slice(&o.to_le_bytes());
        }
        out.extend_from_slice(&table.to_le_bytes());
        let sum = crc32fast::hash(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Write `index.dirs`; the caller binds it by identity.
    pub(in crate::snapshot) fn save(&self, path: &Path) -> Result<()> {
        crate::atomic::write(path, &self.encode(), None, crate::atomic::Durability::Cache)
    }
}

fn kind_code(kind: Option<Kind>) -> u8 {
    match kind {
        None => 0,
        Some(Kind::File) => 1,
        Some(Kind::Symlink) => 2,
        Some(Kind::Repository) => 3,
        Some(Kind::Directory) => 4,
        Some(Kind::Untrackable) => 5,
    }
}

fn kind_of(code: u8) -> Option<Option<Kind>> {
    Some(match code {
        0 => None,
        1 => Some(Kind::File),
        2 => Some(Kind::Symlink),
        3 => Some(Kind::Repository),
        4 => Some(Kind::Directory),
        5 => Some(Kind::Untrackable),
        _ => return None,
    })
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u64).to_le_bytes());
    out.extend_from_slice(b);
}

fn put_time(out: &mut Vec<u8>, t: (i64, u32)) {
    out.extend_from_slice(&t.0.to_le_bytes());
    out.extend_from_slice(&t.1.to_le_bytes());
}

fn put_stat(out: &mut Vec<u8>, s: &DirStat) {
    put_time(out, s.mtime);
    put_time(out, s.ctime);
    out.extend_from_slice(&s.ino.to_le_bytes());
    out.extend_from_slice(&s.dev.to_le_bytes());
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1)?.first().copied()
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn count(&mut self) -> Option<usize> {
        let n = usize::try_from(self.u64()?).ok()?;
        // Each item takes at least 8 bytes: a larger count is corrupt.
        (n <= self.0.len() / 8 + 1).then_some(n)
    }
    fn slice(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        self.take(n)
    }
    fn bytes(&mut self) -> Option<BString> {
        self.slice().map(|s| s.to_vec().into())
    }
    fn time(&mut self) -> Option<(i64, u32)> {
        Some((self.i64()?, self.u32()?))
    }
    fn stat(&mut self) -> Option<DirStat> {
        Some(DirStat {
            mtime: self.time()?,
            ctime: self.time()?,
            ino: self.u64()?,
            dev: self.u64()?,
        })
    }
    fn record(&mut self) -> Option<DirRecord> {
        let path = self.bytes()?;
        let stat = self.stat()?;
        let flags = self.u8()?;
        let ignore_file = if flags & 1 != 0 { Some(self.stat()?) } else { None };
        let mut untracked = Vec::new();
        for _ in 0..self.count()? {
            let kind = kind_of(self.u8()?)?;
            untracked.push((self.bytes()?, kind));
        }
        let mut subdirs = Vec::new();
        for _ in 0..self.count()? {
            subdirs.push(self.bytes()?);
        }
        Some(DirRecord {
            path,
            stat,
            ignore_file,
            untracked,
            subdirs,
            volatile: flags & 2 != 0,
        })
    }
}

#[cfg(test)]
#[path = "file_tests.rs"]
mod tests;
