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
