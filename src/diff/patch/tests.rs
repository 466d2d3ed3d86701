//! The unit tests of `patch.rs`.

use super::*;

fn numbered(changed: &[usize]) -> Vec<u8> {
    (0..20)
        .flat_map(|i| {
            if changed.contains(&i) {
                b"x\n".to_vec()
            } else {
                format!("{i}\n").into_bytes()
            }
        })
        .collect()
}

#[test]
fn hunks_merge_when_context_touches() {
    let old = numbered(&[]);
    let h = hunks(&old, &numbered(&[0]), false);
    assert_eq!(h.len(), 1);
    let ranges = (h[0].old_start, h[0].old_len, h[0].new_start, h[0].new_len);
    assert_eq!(ranges, (1, 4, 1, 4));
    assert_eq!(
        hunks(&old, &numbered(&[2, 9]), false).len(),
        1,
        "gap of 6 lines merges"
    );
    assert_eq!(
        hunks(&old, &numbered(&[2, 10]), false).len(),
        2,
        "gap of 7 lines splits"
    );
}

#[test]
fn hunk_lines_and_ranges() {
    let h = hunks(b"a\nb\n", b"a\nb\nc", false);
    assert_eq!(h.len(), 1);
    let ranges = (h[0].old_start, h[0].old_len, h[0].new_start, h[0].new_len);
    assert_eq!(ranges, (1, 2, 1, 3));
    let kinds: Vec<_> = h[0].lines.iter().map(|l| (l.kind, l.no_newline)).collect();
    assert_eq!(
        kinds,
        [
            (LineKind::Context, false),
            (LineKind::Context, false),
            (LineKind::Added, true)
        ]
    );
    let h = hunks(b"", b"new\n", false);
    assert_eq!(
        (h[0].old_start, h[0].old_len),
        (1, 0),
        "an empty range starts at line 1"
    );
}

#[test]
fn binary_payloads_are_git_choice_of_delta_or_literal() {
    let level = flate2::Compression::fast();
    let mut x = 0x2545_f491_4f6c_dd1d_u64;
    let old: Vec<u8> = (0..1 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect();
    let mut new = old.clone();
    new[500_000] ^= 0xff;
    let p = payload(&old, &new, level).unwrap();
    assert_eq!(
        (p.kind, p.size),
        (PayloadKind::Delta, 63),
        "16 + 1 + 1 + 1 copies and inserts"
    );
    assert!(p.deflated.len() < 100);
    // An empty side is always whole.
    assert_eq!(payload(b"", &new, level).unwrap().kind, PayloadKind::Literal);
    let emptied = payload(&old, b"", level).unwrap();
    assert_eq!((emptied.kind, emptied.size), (PayloadKind::Literal, 0));
    // Unrelated content: the delta would be all inserts, longer than the
    // content deflated.
    let unrelated = payload(&old[..50_000], &old[50_000..90_000], level).unwrap();
    assert_eq!((unrelated.kind, unrelated.size), (PayloadKind::Literal, 40_000));
    // git gives up on a delta longer than the deflated content even when
    // it would deflate smaller (a long run of zeros appended: observed
    // with git 2.47, `literal 101001`).
    let grown = [&old[..1000], &[0u8; 100_000][..]].concat();
    let p = payload(&old[..1000], &grown, level).unwrap();
    assert_eq!((p.kind, p.size), (PayloadKind::Literal, 101_000));
}

#[test]
fn function_context_like_git() {
    let old: Vec<&[u8]> = vec![b"fn main() {  \n", b"    let x = 1;\n", b"    y();\n"];
    assert_eq!(
        function_line(&old, 2, Default::default()),
        Some(b"fn main() {".to_vec())
    );
    assert_eq!(function_line(&old, 0, Default::default()), None);
}
