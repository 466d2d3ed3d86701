//! The unit tests of `delta.rs`.

use super::*;

/// Rebuild the target from `source` and `delta` (the format's reader, to
/// check the encoder).
fn apply(source: &[u8], delta: &[u8]) -> Option<Vec<u8>> {
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
    let delta = encode(source, target, usize::MAX).expect("no limit");
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
fn the_first_window_is_inserted_then_grown_back_into() {
    // git inserts the target's first 16 bytes, finds the source at the
    // window and grows the copy back over them: one copy from 0.
    let source = noise(11, 100);
    let target = [&source[..], b"tail"].concat();
    let delta = roundtrip(&source, &target);
    assert_eq!(delta, [100, 104, 0x90, 100, 0x04, b't', b'a', b'i', b'l']);
}

#[test]
fn a_full_bucket_keeps_64_entries_spread_over_the_source() {
    // Two blocks alternating: 500 entries share each fingerprint (no two
    // consecutive, so none is merged); git keeps 64, evenly spread.
    let (a, b) = (noise(21, 16), noise(22, 16));
    let source: Vec<u8> = (0..1000)
        .flat_map(|i| if i % 2 == 0 { a.clone() } else { b.clone() })
        .collect();
    let index = Index::new(&source).expect("an index");
    let sizes: Vec<usize> = index.starts.windows(2).map(|w| (w[1] - w[0]) as usize).collect();
    assert_eq!(sizes.iter().max(), Some(&HASH_LIMIT), "{sizes:?}");
    let full = sizes.iter().position(|&n| n == HASH_LIMIT).unwrap();
    let at: Vec<u32> = index
        .bucket(index.entries[index.starts[full] as usize].val)
        .iter()
        .map(|e| e.at)
        .collect();
    // In source order, from the start of the source to its end.
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
    assert!(at[0] < 1000 && at[63] > 14_000, "{at:?}");
    roundtrip(&source, &source[5000..]);
}

#[test]
fn hostile_inputs_cost_linear_work() {
    // Every window of the target has many equal blocks in the source,
    // each a short match: a bucket holds at most 64 entries, and each
    // comparison stops at the first differing byte.
    let words: [&[u8]; 4] = [b"ab\0", b"cd\0", b"ef\0", b"gh\0"];
    let text = |seed: u64| -> Vec<u8> {
        noise(seed, 100_000)
            .iter()
            .flat_map(|b| words[usize::from(b % 4)].iter().copied())
            .collect()
    };
    let (source, target) = (text(15), text(16));
    roundtrip(&source, &target);
    // Runs of one byte are indexed once and matched 64 KiB at a time.
    let zeros = vec![0u8; 4 << 20];
    assert!(roundtrip(&zeros, &zeros).len() < 4 + 4 + 64 * 3);
    assert_eq!(encode(&zeros, &vec![1u8; 4 << 20], 1000), None);
}
