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
//! The encoder is a port of git's `diff-delta.c` (`create_delta_index`,
//! `create_delta`), so that a payload is byte for byte the one `git diff
//! --binary` writes. The source is indexed by the Rabin fingerprint of its
//! 16-byte blocks (at every 16th offset, runs of equal blocks kept once, at
//! most [`HASH_LIMIT`] entries a bucket, culled evenly); a 16-byte window
//! slides over the target, and where its fingerprint is indexed the longest
//! match forward is taken (a match of 4096 bytes ends the search), grown
//! back into the bytes just inserted, and copied 64 KiB at a time. The
//! first 16 bytes are always inserted first.
//!
//! Inputs are untrusted: memory is linear in the source (about 12 bytes per
//! 16 source bytes), and the work is linear in the target: a position tries
//! at most [`HASH_LIMIT`] entries, each compared no further than the match
//! it would beat, and a match moves the window past what it matched.

mod rabin;

use rabin::{T, U};

/// The entries one hash bucket keeps.
const HASH_LIMIT: usize = 64;
/// The fingerprint's top bits that index [`T`].
const RABIN_SHIFT: u32 = 23;
/// The window and the block size of the source index.
const RABIN_WINDOW: usize = 16;
/// The most one step of the encoder writes.
const MAX_OP_SIZE: usize = 5 + 5 + 1 + RABIN_WINDOW + 7;
/// A match this long is taken without looking at further candidates.
const GOOD_ENOUGH: usize = 4096;
/// The largest copy one instruction carries (its size is then written as 0).
const MAX_COPY: usize = 0x10000;
/// The largest insert one instruction carries.
const MAX_INSERT: u8 = 0x7f;
/// An empty link of the index's bucket lists.
const NIL: u32 = u32::MAX;

/// The delta that turns `source` into `target`, or `None` when either is
/// empty, when the delta would be longer than `limit` bytes (`usize::MAX`:
/// no limit), or when `source` is too large for the format's 32-bit copy
/// offsets.
pub fn encode(source: &[u8], target: &[u8], limit: usize) -> Option<Vec<u8>> {
    if source.is_empty() || target.is_empty() || u32::try_from(source.len()).is_err() {
        return None;
    }
    let index = Index::new(source)?;
    let limit = (limit != usize::MAX).then_some(limit);
    Encoder::new(source, target, limit).run(&index)
}

/// Push `byte` into the fingerprint `val`.
fn push(val: u32, byte: u8) -> u32 {
    ((val << 8) | u32::from(byte)) ^ T[(val >> RABIN_SHIFT) as usize]
}

/// The fingerprint of `window`.
fn fingerprint(window: &[u8]) -> u32 {
    window.iter().fold(0, |val, &b| push(val, b))
}

/// One indexed source block: the offset of its last byte and its
/// fingerprint.
#[derive(Debug, Clone, Copy)]
struct Entry {
    at: u32,
    val: u32,
}

/// The source's blocks by fingerprint (`create_delta_index`).
struct Index {
    mask: u32,
    /// Bucket `b` is `entries[starts[b]..starts[b + 1]]`.
    starts: Vec<u32>,
    entries: Vec<Entry>,
}

impl Index {
    fn new(source: &[u8]) -> Option<Index> {
        // Indexing skips the first byte (the encoder's first window is
        // inserted whole).
        let blocks = (source.len() - 1) / RABIN_WINDOW;
        let mut bits = 4;
        while (1usize << bits) < blocks / 4 {
            bits += 1;
        }
        let size = 1usize << bits;
        let mask = u32::try_from(size - 1).ok()?;
        // Linked bucket lists, as git builds them: blocks from the last
        // down, each pushed at its bucket's head.
        let mut heads = vec![NIL; size];
        let mut counts = vec![0usize; size];
        let mut entries: Vec<Entry> = Vec::with_capacity(blocks);
        let mut next: Vec<u32> = Vec::with_capacity(blocks);
        let mut prev_val = !0u32;
        for block in (0..blocks).rev() {
            let start = block * RABIN_WINDOW;
            let val = fingerprint(source.get(start + 1..=start + RABIN_WINDOW)?);
            let at = u32::try_from(start + RABIN_WINDOW).ok()?;
            if val == prev_val {
                // Keep the lowest of consecutive identical blocks.
                entries.last_mut()?.at = at;
            } else {
                prev_val = val;
                let bucket = (val & mask) as usize;
                next.push(*heads.get(bucket)?);
                *heads.get_mut(bucket)? = u32::try_from(entries.len()).ok()?;
                entries.push(Entry { at, val });
                *counts.get_mut(bucket)? += 1;
            }
        }
        for (head, &count) in heads.iter().zip(&counts) {
            if count > HASH_LIMIT {
                cull(*head, count, &mut next)?;
            }
        }
        let mut starts = Vec::with_capacity(size + 1);
        let mut packed = Vec::with_capacity(entries.len());
        for &head in &heads {
            starts.push(u32::try_from(packed.len()).ok()?);
            let mut e = head;
            while e != NIL {
                packed.push(*entries.get(e as usize)?);
                e = *next.get(e as usize)?;
            }
        }
        starts.push(u32::try_from(packed.len()).ok()?);
        Some(Index {
            mask,
            starts,
            entries: packed,
        })
    }

    /// The entries of the bucket `val` falls in.
    fn bucket(&self, val: u32) -> &[Entry] {
        let b = (val & self.mask) as usize;
        match (self.starts.get(b), self.starts.get(b + 1)) {
            (Some(&from), Some(&to)) => self.entries.get(from as usize..to as usize).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// Leave [`HASH_LIMIT`] of the `count` entries of the list at `head`,
/// dropping the others evenly over the list, exactly as git does.
fn cull(head: u32, count: usize, next: &mut [u32]) -> Option<()> {
    let excess = (count - HASH_LIMIT) as isize;
    let limit = HASH_LIMIT as isize;
    let mut e = head;
    let mut acc = 0isize;
    while e != NIL {
        acc += excess;
        if acc > 0 {
            let keep = e;
            loop {
                e = *next.get(e as usize)?;
                acc -= limit;
                if acc <= 0 || e == NIL {
                    break;
                }
            }
            if e == NIL {
                return None;
            }
            let after = *next.get(e as usize)?;
            *next.get_mut(keep as usize)? = after;
        }
        e = *next.get(e as usize)?;
    }
    Some(())
}

/// The state of one `create_delta` run.
struct Encoder<'a> {
    source: &'a [u8],
    target: &'a [u8],
    limit: Option<usize>,
    out: Vec<u8>,
    /// The bytes written (`out` may be longer).
    outpos: usize,
    /// The buffer size git would have allocated (its growth decides when
    /// an over-long delta is abandoned).
    outsize: usize,
    /// Bytes of the open insert instruction; -1 once back-matching took
    /// them all and its count slot.
    inscnt: isize,
}

impl<'a> Encoder<'a> {
    fn new(source: &'a [u8], target: &'a [u8], limit: Option<usize>) -> Self {
        let mut outsize = 8192;
        if let Some(max) = limit
            && outsize >= max
        {
            outsize = max.saturating_add(MAX_OP_SIZE + 1);
        }
        Encoder {
            source,
            target,
            limit,
            out: Vec::with_capacity(64),
            outpos: 0,
            outsize,
            inscnt: 0,
        }
    }

    /// Write `byte` at `at`, growing the buffer as needed.
    fn put(&mut self, at: usize, byte: u8) {
        if self.out.len() <= at {
            self.out.resize((at + 1).max(self.out.len() * 2), 0);
        }
        if let Some(slot) = self.out.get_mut(at) {
            *slot = byte;
        }
    }

    /// Append `byte`.
    fn emit(&mut self, byte: u8) {
        self.put(self.outpos, byte);
        self.outpos += 1;
    }

    /// Append `n` as the header writes sizes: 7 bits at a time, least
    /// significant first, the high bit set on all but the last byte.
    fn varint(&mut self, mut n: usize) {
        while n >= 0x80 {
            self.emit(0x80 | (n & 0x7f) as u8);
            n >>= 7;
        }
        self.emit(n as u8);
    }

    /// Write the open insert's count into its slot.
    fn close_insert(&mut self) -> Option<()> {
        let slot = self.outpos.checked_add_signed(-self.inscnt - 1)?;
        self.put(slot, self.inscnt as u8);
        Some(())
    }

    fn run(mut self, index: &Index) -> Option<Vec<u8>> {
        let (source, target) = (self.source, self.target);
        self.varint(source.len());
        self.varint(target.len());
        // The first window is inserted.
        self.outpos += 1;
        let first = target.len().min(RABIN_WINDOW);
        let mut val = 0;
        for &b in target.get(..first)? {
            self.emit(b);
            val = push(val, b);
        }
        self.inscnt = first as isize;
        let mut data = first;
        let mut moff = 0usize;
        let mut msize = 0usize;
        while data < target.len() {
            if msize < GOOD_ENOUGH {
                val ^= U[usize::from(*target.get(data - RABIN_WINDOW)?)];
                val = push(val, *target.get(data)?);
                (msize, moff) = longest(index, val, source, target.get(data..)?, (msize, moff))?;
            }
            if msize < 4 {
                if self.inscnt == 0 {
                    self.outpos += 1;
                }
                self.emit(*target.get(data)?);
                data += 1;
                self.inscnt += 1;
                if self.inscnt == isize::from(MAX_INSERT) {
                    self.close_insert()?;
                    self.inscnt = 0;
                }
                msize = 0;
            } else {
                if self.inscnt != 0 {
                    // Grow the match back over the bytes just inserted.
                    while moff > 0 && source.get(moff - 1)? == target.get(data - 1)? {
                        msize += 1;
                        moff -= 1;
                        data -= 1;
                        self.outpos -= 1;
                        self.inscnt -= 1;
                        if self.inscnt != 0 {
                            continue;
                        }
                        // The whole insert went: its count slot too.
                        self.outpos -= 1;
                        self.inscnt -= 1;
                        break;
                    }
                    self.close_insert()?;
                    self.inscnt = 0;
                }
                let left = msize.saturating_sub(MAX_COPY);
                msize -= left;
                self.copy(moff, msize);
                data += msize;
                moff += msize;
                msize = left;
                if moff > 0xffff_ffff {
                    msize = 0;
                }
                if msize < GOOD_ENOUGH {
                    val = fingerprint(target.get(data.checked_sub(RABIN_WINDOW)?..data)?);
                }
            }
            if self.outpos >= self.outsize - MAX_OP_SIZE {
                self.outsize = self.outsize * 3 / 2;
                if let Some(max) = self.limit {
                    if self.outsize >= max {
                        self.outsize = max.saturating_add(MAX_OP_SIZE + 1);
                    }
                    if self.outpos > max {
                        break;
                    }
                }
            }
        }
        if self.inscnt != 0 {
            self.close_insert()?;
        }
        if self.limit.is_some_and(|max| self.outpos > max) {
            return None;
        }
        self.out.truncate(self.outpos);
        self.out.resize(self.outpos, 0);
        Some(self.out)
    }

    /// Append the instruction copying `size` (at most [`MAX_COPY`]) source
    /// bytes from `offset`: the offset's and size's non-zero bytes only.
    fn copy(&mut self, offset: usize, size: usize) {
        let op_at = self.outpos;
        self.outpos += 1;
        let mut op = 0x80u8;
        for i in 0..4 {
            let byte = (offset >> (8 * i)) as u8;
            if byte != 0 {
                op |= 1 << i;
                self.emit(byte);
            }
        }
        for i in 0..2 {
            let byte = (size >> (8 * i)) as u8;
            if byte != 0 {
                op |= 0x10 << i;
                self.emit(byte);
            }
        }
        self.put(op_at, op);
    }
}

/// The longest match for the window `val` ends at the start of `ahead`:
/// the bucket's entries tried in order (stopping where the room left is
/// no more than the match so far, or at a match of [`GOOD_ENOUGH`]); `best`
/// (size, source offset) unless beaten.
fn longest(
    index: &Index,
    val: u32,
    source: &[u8],
    ahead: &[u8],
    mut best: (usize, usize),
) -> Option<(usize, usize)> {
    for entry in index.bucket(val) {
        if entry.val != val {
            continue;
        }
        let at = entry.at as usize;
        let room = (source.len() - at).min(ahead.len());
        if room <= best.0 {
            break;
        }
        let len = source
            .get(at..at + room)?
            .iter()
            .zip(ahead)
            .take_while(|(a, b)| a == b)
            .count();
        if best.0 < len {
            best = (len, at);
            if len >= GOOD_ENOUGH {
                break;
            }
        }
    }
    Some(best)
}

#[cfg(test)]
mod tests;
