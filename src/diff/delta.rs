//! Binary deltas in git's pack delta format (gitformat-pack(5),
//! "Deltified representation"), as `git diff --binary` writes them in a
//! `delta <size>` payload.
//!
//! A delta is the source size and the target size (little-endian base-128
//! varints), then instructions that rebuild the target: *copy* a range of
//! the source (`1oooossss`: the flag bits say which offset and size bytes
//! follow, a size of 0 meaning 0x10000) or *insert* the next 1 to 127 bytes
//! (`0nnnnnnn`).
//!
//! The encoder is a greedy block matcher of its own. It indexes the 16-byte
//! blocks of the source that start at every 8th offset (and the one ending
//! where the source ends) in hash buckets, slides a 16-byte window over the
//! target one byte at a time and, where the window equals an indexed block
//! (or the source that continues the previous copy), grows the match both
//! ways and copies it; a short match yields to a longer one starting a byte
//! later. Blocks overlapping by half find any common run of 23 bytes or
//! more, whatever its alignment (periodic records included). Copies are
//! written 64 KiB at a time, as git writes them.
//!
//! Inputs are untrusted, so memory is linear in the source (about 9 bytes
//! per 8 source bytes) and the work is bounded: a bucket is looked at
//! through at most [`CANDIDATES`] entries, a match of [`GOOD_ENOUGH`] bytes
//! ends the search at once, and an encoding that would exceed its byte limit
//! or a work budget linear in the inputs is abandoned (the caller then
//! writes the content whole).

/// The window and the block size of the source index.
const BLOCK: usize = 16;
/// The distance between the starts of indexed source blocks.
const STRIDE: usize = 8;
/// Entries of one hash bucket tried per target position (evenly spread
/// over the bucket when it holds more).
const CANDIDATES: usize = 16;
/// A match shorter than this is compared with the match one byte later.
const LAZY: usize = 256;
/// A match this long is taken without looking at further candidates.
const GOOD_ENOUGH: usize = 4096;
/// The largest copy one instruction carries (its size is then written as 0).
const MAX_COPY: usize = 0x10000;
/// The largest insert one instruction carries.
const MAX_INSERT: usize = 0x7f;
/// Work (candidates tried, 16-byte steps compared) per input byte before
/// giving up.
const WORK_PER_BYTE: usize = 4;

/// The delta that turns `source` into `target`, or `None` when it would be
/// longer than `limit` bytes, when the search ran out of its work budget, or
/// when `source` is too large for the format's 32-bit copy offsets.
pub fn encode(source: &[u8], target: &[u8], limit: usize) -> Option<Vec<u8>> {
    let budget = WORK_PER_BYTE
        .saturating_mul(source.len().saturating_add(target.len()))
        .saturating_add(1 << 16);
    encode_within(source, target, limit, budget)
}

/// [`encode`] with `budget` units of work.
fn encode_within(source: &[u8], target: &[u8], limit: usize, budget: usize) -> Option<Vec<u8>> {
    u32::try_from(source.len()).ok()?;
    let mut search = Search {
        index: Index::new(source),
        target,
        budget,
        follow: None,
        seen: Seen::default(),
    };
    let mut out = Vec::with_capacity(64);
    varint(&mut out, source.len());
    varint(&mut out, target.len());
    // Target bytes before `pending` are written; `at` is the window's start.
    let mut pending = 0;
    let mut at = 0;
    let mut window = load(target, at);
    while let Some(w) = window {
        if let Some(mut m) = search.best_match(at, w, pending)? {
            // Lazy matching: a short match yields to one a byte later that
            // reaches further (e.g. the old content resuming right after a
            // changed byte that starts a short match of its own elsewhere).
            if m.len < LAZY
                && let Some(next) = load(target, at + 1)
                && let Some(later) = search.best_match(at + 1, next, pending)?
                && later.target + later.len > m.target + m.len
            {
                m = later;
            }
            let len = worth_copying(m.source, m.len);
            insert(&mut out, target.get(pending..m.target)?);
            copy(&mut out, m.source, len);
            if out.len() > limit {
                return None;
            }
            at = m.target.checked_add(len)?;
            pending = at;
            search.follow = Some((at, m.source + len));
            window = load(target, at);
        } else {
            // Give up early on a delta that is all insertions so far and
            // already too long.
            if inserted_len(at.saturating_sub(pending)).saturating_add(out.len()) > limit {
                return None;
            }
            let next = target.get(at + BLOCK).copied();
            at += 1;
            window = next.map(|b| (w << 8) | u128::from(b));
        }
    }
    insert(&mut out, target.get(pending..)?);
    (out.len() <= limit).then_some(out)
}

/// A match: `len` bytes of the source at `source` equal the target's at `target`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Match {
    source: usize,
    target: usize,
    len: usize,
}

/// The matching state of one encoding.
struct Search<'a> {
    /// Which windows ahead have an equal source block.
    seen: Seen,
    index: Index<'a>,
    target: &'a [u8],
    /// Work left (candidates tried, 16-byte steps compared).
    budget: usize,
    /// Where the last copy ended, in the target and in the source: the
    /// source that continues it is tried first.
    follow: Option<(usize, usize)>,
}

impl Search<'_> {
    /// The longest match through the window `w` at `at` (grown back into
    /// the unwritten target bytes from `pending`), if any; `None` (outer)
    /// when the work budget is spent. The continuation of the last copy is
    /// tried first, then the blocks of the window's bucket.
    fn best_match(&mut self, at: usize, w: u128, pending: usize) -> Option<Option<Match>> {
        let source = self.index.source;
        let target = self.target;
        let followed = self.follow.and_then(|(t, s)| at.checked_sub(t)?.checked_add(s));
        let seen = self.seen;
        if at.checked_sub(seen.at).is_none_or(|i| i >= seen.len) {
            let (seen, work) = self.index.sweep(target, at);
            self.seen = seen;
            self.budget = self.budget.checked_sub(work)?;
        }
        let indexed = self.seen.bits >> (at - self.seen.at) & 1 != 0;
        if followed.is_none() && !indexed {
            return Some(None);
        }
        let bucket = if indexed { self.index.candidates(w) } else { &[] };
        let step = bucket.len().div_ceil(CANDIDATES).max(1);
        let mut best: Option<Match> = None;
        let candidates = bucket.iter().step_by(step).map(|&o| o as usize);
        for offset in followed.into_iter().chain(candidates) {
            self.budget = self.budget.checked_sub(1)?;
            if load(source, offset) != Some(w) {
                continue;
            }
            let ahead = common_prefix(source.get(offset + BLOCK..)?, target.get(at + BLOCK..)?);
            let back = common_suffix(source.get(..offset)?, target.get(pending..at)?);
            self.budget = self.budget.checked_sub(1 + (ahead + back) / BLOCK)?;
            let len = back + BLOCK + ahead;
            if best.is_none_or(|m| len > m.len) {
                best = Some(Match {
                    source: offset - back,
                    target: at - back,
                    len,
                });
            }
            if BLOCK + ahead >= GOOD_ENOUGH {
                break;
            }
        }
        Some(best)
    }
}

/// The source's 16-byte blocks by hash: bucket `b` holds the offsets
/// `offsets[starts[b]..starts[b + 1]]`, in increasing order. A bitmap with
/// eight bits per bucket says which finer slots hold anything, so that most
/// windows without a match are turned away without touching the buckets
/// (which, for a large source, are out of the cache).
struct Index<'a> {
    source: &'a [u8],
    /// log2 of the number of buckets.
    bits: u32,
    starts: Vec<u32>,
    offsets: Vec<u32>,
    filter: Vec<u64>,
}

impl<'a> Index<'a> {
    /// Index the blocks of `source` (whose length fits in a `u32`). A block
    /// equal to the one before it is left out: a run of equal blocks is
    /// reached through its first block, the match then runs on.
    fn new(source: &'a [u8]) -> Self {
        // Blocks at every STRIDE-th offset, and one that ends where the
        // source ends (so that a short match at the very end is found too).
        let last = source.len().checked_sub(BLOCK);
        let tail = last.filter(|l| !l.is_multiple_of(STRIDE));
        let keys = || {
            let mut previous = None;
            (0..=last.unwrap_or(0))
                .step_by(STRIDE)
                .chain(tail)
                .filter_map(move |offset| {
                    let key = load(source, offset)?;
                    let new_run = previous != Some(key);
                    previous = Some(key);
                    new_run.then_some((offset, hash(key)))
                })
        };
        let total = keys().count();
        let bits = usize::BITS - total.max(16).next_power_of_two().leading_zeros() - 1;
        let buckets = 1usize << bits;
        // A counting sort keeps each bucket's offsets in order: count into
        // `starts[b + 1]`, sum up, fill through `starts[b]` (which then ends
        // bucket b), shift back.
        let mut starts = vec![0u32; buckets + 1];
        let mut filter = vec![0u64; buckets / 8];
        for (_, h) in keys() {
            if let Some(c) = starts.get_mut(slot(h, bits) + 1) {
                *c += 1;
            }
            let fine = slot(h, bits + 3);
            if let Some(word) = filter.get_mut(fine / 64) {
                *word |= 1 << (fine % 64);
            }
        }
        let mut sum = 0u32;
        for s in &mut starts {
            sum += *s;
            *s = sum;
        }
        let mut offsets = vec![0u32; total];
        for (offset, h) in keys() {
            if let Some(next) = starts.get_mut(slot(h, bits)) {
                if let Some(o) = offsets.get_mut(*next as usize) {
                    // The source's length fits in a u32, so does every offset.
                    *o = u32::try_from(offset).unwrap_or(u32::MAX);
                }
                *next += 1;
            }
        }
        starts.rotate_right(1);
        if let Some(first) = starts.first_mut() {
            *first = 0;
        }
        Index {
            source,
            bits,
            starts,
            offsets,
            filter,
        }
    }

    /// Offsets of source blocks that may equal `w`: those of its bucket.
    fn candidates(&self, w: u128) -> &[u32] {
        let b = slot(hash(w), self.bits);
        let start = self.starts.get(b).map_or(0, |&s| s as usize);
        let end = self.starts.get(b + 1).map_or(0, |&s| s as usize);
        self.offsets.get(start..end).unwrap_or_default()
    }

    /// Which of the next 64 target windows from `at` have an equal block
    /// in the source, up to the first that has one; and the candidates
    /// tried. One sweep over windows that mostly have none lets the
    /// processor overlap their reads of the index and the source, which
    /// for a large source miss the cache.
    fn sweep(&self, target: &[u8], at: usize) -> (Seen, usize) {
        let mut seen = Seen { at, len: 64, bits: 0 };
        let mut work = 0;
        let Some(mut w) = load(target, at) else {
            return (seen, work);
        };
        for i in 0..64 {
            let fine = slot(hash(w), self.bits + 3);
            if self
                .filter
                .get(fine / 64)
                .is_some_and(|word| word >> (fine % 64) & 1 != 0)
            {
                let bucket = self.candidates(w);
                let step = bucket.len().div_ceil(CANDIDATES).max(1);
                let tried = bucket.iter().step_by(step).take_while(|&&o| {
                    work += 1;
                    load(self.source, o as usize) != Some(w)
                });
                if tried.count() < bucket.len().div_ceil(step) {
                    seen.bits |= 1 << i;
                    seen.len = i + 1;
                    break;
                }
            }
            match target.get(at + i + BLOCK) {
                Some(&b) => w = (w << 8) | u128::from(b),
                None => break,
            }
        }
        (seen, work)
    }
}

/// The windows of `len` target positions from `at`: bit i is set when the
/// window at `at + i` equals a block of the source.
#[derive(Debug, Clone, Copy, Default)]
struct Seen {
    at: usize,
    len: usize,
    bits: u64,
}

/// The hash of a 16-byte key (multiplicative: its high bits are the good ones).
fn hash(key: u128) -> u64 {
    let folded = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
    folded.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The top `bits` bits of a hash (`bits` from 4 to 60).
fn slot(h: u64, bits: u32) -> usize {
    (h >> (64 - bits)) as usize
}

/// The 16 bytes of `data` at `at` as one number, if there are 16.
fn load(data: &[u8], at: usize) -> Option<u128> {
    let bytes = data.get(at..at.checked_add(BLOCK)?)?;
    Some(u128::from_be_bytes(bytes.try_into().ok()?))
}

/// How many leading bytes `a` and `b` share.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 32;
    let same_chunks = a
        .chunks_exact(CHUNK)
        .zip(b.chunks_exact(CHUNK))
        .take_while(|(x, y)| x == y)
        .count();
    let done = same_chunks * CHUNK;
    let rest = a
        .get(done..)
        .unwrap_or_default()
        .iter()
        .zip(b.get(done..).unwrap_or_default())
        .take_while(|(x, y)| x == y)
        .count();
    done + rest
}

/// How many trailing bytes `a` and `b` share.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// Append `n` as the delta header writes sizes: 7 bits at a time, least
/// significant first, the high bit set on all but the last byte.
fn varint(out: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        out.push(0x80 | (n & 0x7f) as u8);
        n >>= 7;
    }
    out.push(n as u8);
}

/// The bytes that inserting `n` target bytes takes.
fn inserted_len(n: usize) -> usize {
    n + n.div_ceil(MAX_INSERT)
}

/// Append instructions inserting `data`.
fn insert(out: &mut Vec<u8>, data: &[u8]) {
    for chunk in data.chunks(MAX_INSERT) {
        out.push(chunk.len() as u8);
        out.extend_from_slice(chunk);
    }
}

/// How much of a match of `len` source bytes at `offset` to copy: all of
/// it, except a last 64 KiB piece so short that its copy instruction would
/// take as many bytes as inserting it (it is then inserted).
fn worth_copying(offset: usize, len: usize) -> usize {
    let tail = len % MAX_COPY;
    if len > MAX_COPY && tail > 0 && copy_cost(offset + len - tail, tail) >= tail {
        len - tail
    } else {
        len
    }
}

/// The bytes of one copy instruction (`size` at most [`MAX_COPY`]).
fn copy_cost(offset: usize, size: usize) -> usize {
    let nonzero = |n: usize, bytes: usize| (0..bytes).filter(|i| (n >> (8 * i)) & 0xff != 0).count();
    let size_bytes = if size == MAX_COPY { 0 } else { nonzero(size, 3) };
    1 + nonzero(offset, 4) + size_bytes
}

/// Append instructions copying `len` source bytes from `offset` (below
/// 2^32), at most [`MAX_COPY`] per instruction.
fn copy(out: &mut Vec<u8>, mut offset: usize, mut len: usize) {
    while len > 0 {
        let size = len.min(MAX_COPY);
        let at = out.len();
        let mut op = 0x80u8;
        out.push(op);
        for i in 0..4 {
            let byte = (offset >> (8 * i)) as u8;
            if byte != 0 {
                op |= 1 << i;
                out.push(byte);
            }
        }
        // A size of 0x10000 is written as no size bytes at all.
        if size != MAX_COPY {
            for i in 0..3 {
                let byte = (size >> (8 * i)) as u8;
                if byte != 0 {
                    op |= 0x10 << i;
                    out.push(byte);
                }
            }
        }
        if let Some(o) = out.get_mut(at) {
            *o = op;
        }
        offset += size;
        len -= size;
    }
}

#[cfg(test)]
#[path = "delta_tests.rs"]
mod tests;
