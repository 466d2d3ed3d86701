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

/// Rebuild the target from `source` and `delta` (the format's reader, to
/// check the encoder).
#[cfg(test)]
pub fn apply(source: &[u8], delta: &[u8]) -> Option<Vec<u8>> {
    fn read_varint(data: &mut std::slice::Iter<'_, u8>) -> Option<usize> {
        let mut n = 0usize;
        for shift in (0..64).step_by(7) {
            let b = *data.next()?;
            n |= usize::from(b & 0x7f).checked_shl(shift)?;
            if b & 0x80 == 0 {
                return Some(n);
            }
        }
        None
    }
    let mut data = delta.iter();
    if read_varint(&mut data)? != source.len() {
        return None;
    }
    let size = read_varint(&mut data)?;
    let mut out = Vec::with_capacity(size);
    while let Some(&op) = data.next() {
        if op & 0x80 != 0 {
            let mut offset = 0usize;
            let mut len = 0usize;
            for i in 0..4 {
                if op & (1 << i) != 0 {
                    offset |= usize::from(*data.next()?) << (8 * i);
                }
            }
            for i in 0..3 {
                if op & (0x10 << i) != 0 {
                    len |= usize::from(*data.next()?) << (8 * i);
                }
            }
            if len == 0 {
                len = MAX_COPY;
            }
            out.extend_from_slice(source.get(offset..offset.checked_add(len)?)?);
        } else if op != 0 {
            for _ in 0..op {
                out.push(*data.next()?);
            }
        } else {
            return None;
        }
    }
    (out.len() == size).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pseudo-random bytes (xorshift), the same for the same seed.
    fn noise(seed: u64, len: usize) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    fn roundtrip(source: &[u8], target: &[u8]) -> Vec<u8> {
        let delta = encode(source, target, usize::MAX).expect("no limit, no budget trouble");
        assert_eq!(apply(source, &delta).as_deref(), Some(target));
        delta
    }

    #[test]
    fn a_one_byte_change_in_a_mebibyte_is_a_few_copies() {
        let source = noise(1, 1 << 20);
        let mut target = source.clone();
        target[500_000] ^= 0xff;
        let delta = roundtrip(&source, &target);
        // 16 copies of 64 KiB (one byte each, two around the change) and
        // one inserted byte.
        assert!(delta.len() < 80, "{} bytes", delta.len());
    }

    #[test]
    fn copies_are_64_kib_with_the_size_left_out() {
        let source = noise(2, 0x20000);
        let delta = roundtrip(&source, &source);
        // Sizes 0x20000 (3 varint bytes each), then copy(0) as 0x80 and
        // copy(0x10000) as 0x84 0x01.
        assert_eq!(delta, [0x80, 0x80, 0x08, 0x80, 0x80, 0x08, 0x80, 0x84, 0x01]);
    }

    #[test]
    fn edits_round_trip() {
        let base = noise(3, 100_000);
        let mut inserted = base.clone();
        inserted.splice(40_000..40_000, noise(4, 777));
        let mut removed = base.clone();
        removed.drain(10_000..30_000);
        let mut appended = base.clone();
        appended.extend(noise(5, 5000));
        let moved = [&base[50_000..], &base[..50_000]].concat();
        let unrelated = noise(6, 3000);
        let cases: Vec<(&[u8], &[u8])> = vec![
            (&base, &inserted),
            (&base, &removed),
            (&base, &appended),
            (&base, &base[..12_345]),
            (&base, &moved),
            (&base, &unrelated),
            (b"x", b"y"),
            (b"short", &base),
            (&base, b"tiny"),
            (&base[..15], &base[..17]),
        ];
        for (s, t) in cases {
            roundtrip(s, t);
            roundtrip(t, s);
        }
        let small = roundtrip(&base, &inserted).len();
        assert!(small < 1000, "an insertion costs about its size: {small}");
    }

    #[test]
    fn runs_of_equal_bytes_round_trip() {
        let zeros = vec![0u8; 1 << 20];
        let mut poked = zeros.clone();
        poked[77_777] = 1;
        assert!(roundtrip(&zeros, &poked).len() < 100);
        roundtrip(&poked, &zeros);
        let pattern: Vec<u8> = (0..200_000u32).map(|i| (i % 17) as u8).collect();
        roundtrip(&pattern, &zeros[..50_000]);
        roundtrip(&zeros[..50_000], &pattern);
        roundtrip(&pattern, &pattern[3..]);
    }

    #[test]
    fn the_limit_abandons_long_deltas() {
        let source = noise(7, 10_000);
        let target = noise(8, 10_000);
        assert_eq!(encode(&source, &target, 5_000), None);
        let whole = encode(&source, &target, usize::MAX).unwrap();
        assert_eq!(encode(&source, &target, whole.len()), Some(whole.clone()));
        assert_eq!(encode(&source, &target, whole.len() - 1), None);
    }

    #[test]
    fn a_short_match_at_the_very_end_is_copied() {
        // 17 bytes at the source's end hold no block at a multiple of 8:
        // only the block that ends with the source finds them.
        let source = noise(11, 100);
        let target = [&noise(12, 50)[..], &source[83..]].concat();
        let delta = roundtrip(&source, &target);
        assert_eq!(delta.len(), 2 + 51 + 3, "insert 50, copy 17 from 83");
        assert_eq!(&delta[delta.len() - 3..], [0x91, 83, 17]);
    }

    #[test]
    fn any_common_run_of_23_bytes_is_copied_whatever_its_alignment() {
        let source = noise(17, 1000);
        for start in 100..132 {
            let run = &source[start..start + 23];
            let target = [&noise(18, 40)[..], run, &noise(19, 40)].concat();
            let delta = roundtrip(&source, &target);
            // Sizes (2 + 1), insert 40 (41), copy (op, offset, size: 3),
            // insert 40 (41); inserting all 103 bytes would take 107.
            assert_eq!(delta.len(), 88, "run at {start}");
        }
    }

    #[test]
    fn a_changed_byte_is_inserted_when_the_old_content_resumes_after_it() {
        // The changed byte and the 20 bytes after it are also found at
        // 1008, but the copy that continues at 501 reaches further.
        let old = noise(13, 1000);
        let mut target = old.clone();
        target[500] = b'x';
        let source = [&old[..], &[0; 8], &target[500..521], &noise(14, 100)].concat();
        let delta = roundtrip(&source, &target);
        let mut want = Vec::new();
        varint(&mut want, source.len());
        varint(&mut want, 1000);
        want.extend([0xB0, 0xF4, 0x01]); // copy 500 from 0
        want.extend([0x01, b'x']); // insert "x"
        want.extend([0xB3, 0xF5, 0x01, 0xF3, 0x01]); // copy 499 from 501
        assert_eq!(delta, want);
    }

    #[test]
    fn hostile_inputs_are_abandoned_when_the_work_runs_out() {
        // Every window of the target has many equal blocks in the source,
        // each a short match: the candidate cap keeps a position's work
        // bounded, and the budget the whole.
        let words: [&[u8]; 4] = [b"ab\0", b"cd\0", b"ef\0", b"gh\0"];
        let text = |seed: u64| -> Vec<u8> {
            noise(seed, 100_000)
                .iter()
                .flat_map(|b| words[usize::from(b % 4)].iter().copied())
                .collect()
        };
        let (source, target) = (text(15), text(16));
        let inputs = source.len() + target.len();
        let delta = encode_within(&source, &target, usize::MAX, WORK_PER_BYTE * inputs).unwrap();
        assert_eq!(apply(&source, &delta), Some(target.clone()));
        assert_eq!(encode_within(&source, &target, usize::MAX, inputs / 100), None);
        // Runs of one byte are indexed once and matched in one go.
        let zeros = vec![0u8; 4 << 20];
        // Two sizes of 4 bytes, 64 copies of 64 KiB: 0x80 from 0, then
        // 0x84 and the third offset byte.
        assert_eq!(roundtrip(&zeros, &zeros).len(), 4 + 4 + 1 + 63 * 2);
        assert_eq!(encode(&zeros, &vec![1u8; 4 << 20], 1000), None);
    }
}
