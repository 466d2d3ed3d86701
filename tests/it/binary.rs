//! `git t3 diff --binary`: git's binary patches, a `literal` or a `delta`
//! payload each way, checked with `git apply` in both directions and
//! against `git diff --binary` on the same checkpoints.

use crate::util::{Rng, THREAD, TestRepo, ref_for};

/// A file of the turn: its path, its content before and after (`None`:
/// absent).
type Edit<'a> = (&'a str, Option<Vec<u8>>, Option<Vec<u8>>);

/// One turn over `files`, starting from the seeded repository.
fn turn(files: &[Edit]) -> TestRepo {
    let r = TestRepo::seeded();
    for (path, old, _) in files {
        if let Some(old) = old {
            r.write_bytes(path, old);
        }
    }
    r.commit_all("binaries");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    for (path, old, new) in files {
        match new {
            Some(new) => r.write_bytes(path, new),
            None if old.is_some() => r.remove(path),
            None => {}
        }
    }
    r.t3(&["capture", "--thread", THREAD]).ok();
    r
}

/// The binary patch of the turn, as git-t3 writes it.
fn ours(r: &TestRepo, config: &[&str]) -> Vec<u8> {
    let mut args: Vec<&str> = config.iter().flat_map(|c| ["-c", c]).collect();
    args.extend(["t3", "diff", "--thread", THREAD, "--binary", "--keep-whitespace"]);
    r.git_in(&r.root, &args).ok().stdout
}

/// The same patch as git writes it.
fn theirs(r: &TestRepo, config: &[&str]) -> Vec<u8> {
    let mut args: Vec<&str> = config.iter().flat_map(|c| ["-c", c]).collect();
    let (a, b) = (ref_for(THREAD, 0), ref_for(THREAD, 1));
    args.extend(["diff", "--binary", "-M"]);
    args.extend([a.as_str(), b.as_str()]);
    r.git_in(&r.root, &args).ok().stdout
}

/// The patch without its base85 lines: headers, `index` lines with full
/// ids, and each payload's `literal <size>` or `delta <size>`. The deflated
/// bytes are left out: they depend on the zlib implementation.
fn skeleton(patch: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(patch);
    let mut out = Vec::new();
    let mut in_payload = false;
    for line in text.lines() {
        if in_payload {
            in_payload = !line.is_empty();
            continue;
        }
        in_payload = line.starts_with("literal ") || line.starts_with("delta ");
        out.push(line.to_owned());
    }
    out
}

/// Apply `patch` with `git apply --index` (`-R`: in reverse) in a worktree
/// checked out at `turn`; the tree it leaves.
fn apply(r: &TestRepo, patch: &[u8], turn: u64, reverse: bool) -> String {
    let wt = r.tmp().join(format!("apply-{turn}-{reverse}"));
    let wt_s = wt.to_str().unwrap();
    r.git(&["worktree", "add", "-q", "--detach", wt_s, &ref_for(THREAD, turn)]);
    let mut args = vec!["apply", "--index", "--binary"];
    if reverse {
        args.push("-R");
    }
    args.push("-");
    r.git_input(&wt, &args, patch).ok();
    r.git_in(&wt, &["write-tree"]).ok().out().trim().to_owned()
}

/// The patch applies forward to turn 0 and in reverse to turn 1, landing
/// on the other turn's exact tree.
fn assert_applies_both_ways(r: &TestRepo, patch: &[u8]) {
    let (before, after) = (r.ref_tree(&ref_for(THREAD, 0)), r.ref_tree(&ref_for(THREAD, 1)));
    assert_eq!(apply(r, patch, 0, false), after, "git apply");
    assert_eq!(apply(r, patch, 1, true), before, "git apply -R");
}

/// `mine` equals `git`, or the first differing line is shown.
fn assert_same_bytes(mine: &[u8], git: &[u8]) {
    if mine != git {
        let (m, g) = (String::from_utf8_lossy(mine), String::from_utf8_lossy(git));
        let (m, g): (Vec<&str>, Vec<&str>) = (m.lines().collect(), g.lines().collect());
        let at = m
            .iter()
            .zip(&g)
            .position(|(a, b)| a != b)
            .unwrap_or(m.len().min(g.len()));
        let from = at.saturating_sub(8);
        panic!(
            "differs from git at line {at}:\n--- git-t3\n{}\n--- git\n{}",
            m[from..(at + 3).min(m.len())].join("\n"),
            g[from..(at + 3).min(g.len())].join("\n")
        );
    }
}

/// Random bytes with a NUL up front (binary to git).
fn binary(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut data = rng.bytes(len, &[]);
    if let Some(first) = data.first_mut() {
        *first = 0;
    }
    data
}

#[test]
fn binary_edits_apply_both_ways_with_git_choices() {
    let mut rng = Rng(0x00b1_4a7e);
    let big = binary(&mut rng, 1 << 20);
    let mut poked = big.clone();
    poked[500_000] ^= 0xff;
    let mid = binary(&mut rng, 100_000);
    // 3000 inserted bytes: the match after them is found within 16 bytes,
    // and grown back only within git's last 127-byte insert instruction.
    let inserted = [&mid[..40_000], &rng.bytes(3000, &[]), &mid[40_000..]].concat();
    let removed = [&mid[..10_000], &mid[30_000..]].concat();
    let spread = {
        let mut d = binary(&mut rng, 200_000);
        let before = d.clone();
        for at in (5_000..200_000).step_by(10_000) {
            d[at] ^= 0x5a;
        }
        (before, d)
    };
    let long = binary(&mut rng, 300_000);
    let appended = [&long[..], &rng.bytes(5000, &[])].concat();
    let zeros = vec![0u8; 65_536];
    let mut dotted = zeros.clone();
    for at in [7, 4_096, 65_535] {
        dotted[at] = 1;
    }
    // Fixed-size records (zero padding, a counter, a name): one record edited.
    let records: Vec<u8> = (0u32..4000)
        .flat_map(|i| {
            let mut rec = i.to_le_bytes().to_vec();
            rec.extend([0; 12]);
            rec.extend(format!("name{:06}", i * 7919 % 100_000).bytes());
            rec.extend([0; 6]);
            rec
        })
        .collect();
    let mut record_edited = records.clone();
    record_edited[32 * 2000 + 20..32 * 2000 + 26].copy_from_slice(b"edited");
    let renamed = binary(&mut rng, 80_000);
    let mut renamed_edited = renamed.clone();
    renamed_edited[100] ^= 1;
    let files: Vec<Edit> = vec![
        ("poke.bin", Some(big.clone()), Some(poked)),
        ("insert.bin", Some(mid.clone()), Some(inserted)),
        ("delete.bin", Some(mid.clone()), Some(removed)),
        ("spread.bin", Some(spread.0), Some(spread.1)),
        ("append.bin", Some(long.clone()), Some(appended)),
        ("truncate.bin", Some(long.clone()), Some(long[..123_456].to_vec())),
        (
            "different.bin",
            Some(binary(&mut rng, 50_000)),
            Some(binary(&mut rng, 40_000)),
        ),
        ("emptied.bin", Some(binary(&mut rng, 10_000)), Some(Vec::new())),
        ("filled.bin", Some(Vec::new()), Some(binary(&mut rng, 10_000))),
        ("created.bin", None, Some(binary(&mut rng, 5_000))),
        ("deleted.bin", Some(binary(&mut rng, 5_000)), None),
        ("zeros.bin", Some(zeros), Some(dotted)),
        ("records.bin", Some(records), Some(record_edited)),
        ("old-name.bin", Some(renamed), None),
        ("new-name.bin", None, Some(renamed_edited)),
    ];
    let r = turn(&files);
    let patch = ours(&r, &[]);
    let ours_skeleton = skeleton(&patch);
    // Byte for byte git's: the same payload kinds, the same delta
    // instructions (git's diff-delta.c), deflated by the same zlib.
    assert_same_bytes(&patch, &theirs(&r, &[]));
    // Both kinds are there, and the rename is one.
    let deltas = ours_skeleton.iter().filter(|l| l.starts_with("delta ")).count();
    let literals = ours_skeleton.iter().filter(|l| l.starts_with("literal ")).count();
    assert!(
        deltas >= 16 && literals >= 6,
        "{deltas} deltas, {literals} literals"
    );
    assert!(ours_skeleton.contains(&"rename to new-name.bin".to_owned()));
    assert_applies_both_ways(&r, &patch);
}

#[test]
fn a_one_byte_change_in_a_mebibyte_is_a_small_delta() {
    let mut rng = Rng(0x0001_b17e);
    let old = binary(&mut rng, 1 << 20);
    let mut new = old.clone();
    new[654_321] = new[654_321].wrapping_add(1);
    let r = turn(&[("blob.bin", Some(old), Some(new))]);
    let patch = ours(&r, &[]);
    let kinds: Vec<String> = skeleton(&patch)
        .into_iter()
        .filter(|l| l.starts_with("literal ") || l.starts_with("delta "))
        .collect();
    assert_eq!(kinds.len(), 2);
    assert!(kinds.iter().all(|k| k.starts_with("delta ")), "{kinds:?}");
    // The literal would be over 1 MiB of base85; the delta is a few lines.
    assert!(patch.len() < 1024, "{} bytes", patch.len());
    assert_same_bytes(&patch, &theirs(&r, &[]));
    assert_applies_both_ways(&r, &patch);
}

/// The bytes a payload's first base85 line decodes to.
fn first_payload_bytes(patch: &[u8]) -> Vec<u8> {
    const ALPHABET: &[u8; 85] =
        b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
    let text = String::from_utf8_lossy(patch);
    let mut lines = text
        .lines()
        .skip_while(|l| !(l.starts_with("literal ") || l.starts_with("delta ")));
    lines.next().expect("a payload");
    let line = lines.next().expect("a payload line").as_bytes();
    let len = match line[0] {
        c @ b'A'..=b'Z' => usize::from(c - b'A') + 1,
        c => usize::from(c - b'a') + 27,
    };
    let mut out = Vec::new();
    for group in line[1..].chunks(5) {
        let n = group.iter().fold(0u32, |n, c| {
            n * 85 + ALPHABET.iter().position(|a| a == c).unwrap() as u32
        });
        out.extend(n.to_be_bytes());
    }
    out.truncate(len);
    out
}

/// The zlib level is git's: `core.looseCompression`, else
/// `core.compression`, else 1; seen in the zlib header (its level field) and
/// the first block's type, next to git's own on the same settings.
#[test]
fn the_zlib_level_follows_git_config() {
    let text: Vec<u8> = b"\0compressible text, "
        .iter()
        .copied()
        .cycle()
        .take(20_000)
        .collect();
    let r = turn(&[("data.bin", None, Some(text))]);
    let settings: [(&[&str], [u8; 2]); 6] = [
        (&[], [0x78, 0x01]),
        (&["core.compression=9"], [0x78, 0xda]),
        (&["core.compression=-1"], [0x78, 0x9c]),
        (&["core.compression=4"], [0x78, 0x5e]),
        (&["core.looseCompression=9", "core.compression=1"], [0x78, 0xda]),
        (&["core.compression=9", "core.looseCompression=0"], [0x78, 0x01]),
    ];
    for (config, header) in settings {
        let mine = first_payload_bytes(&ours(&r, config));
        let git = first_payload_bytes(&theirs(&r, config));
        assert_eq!(mine[..2], header, "{config:?}");
        assert_eq!(git[..2], header, "{config:?} (git)");
        // Level 0 stores (block type 0), every other level compresses.
        assert_eq!(mine[2] & 0b110 == 0, git[2] & 0b110 == 0, "{config:?}");
    }
    assert_eq!(
        first_payload_bytes(&ours(&r, &["core.compression=0"]))[2] & 0b110,
        0
    );
    // The level in the repository's config file counts the same.
    r.git(&["config", "core.compression", "9"]);
    assert_eq!(first_payload_bytes(&ours(&r, &[]))[..2], [0x78, 0xda]);
    // A level git refuses is refused (only when a binary patch needs it).
    let bad = r
        .t3_env(
            &["diff", "--thread", THREAD, "--binary"],
            &[("GIT_CONFIG_PARAMETERS", "'core.compression'='12'")],
        )
        .fails(1);
    assert!(
        bad.stderr.contains("bad zlib compression level 12"),
        "{}",
        bad.stderr
    );
    r.t3_env(
        &["diff", "--thread", THREAD],
        &[("GIT_CONFIG_PARAMETERS", "'core.compression'='12'")],
    )
    .ok();
}

/// A small edit in a large random binary: the patch is two small deltas,
/// memory stays a few times the blob's size (both sides, the index of one,
/// the deflated content to compare against), and it applies.
#[test]
fn a_large_binary_patch_has_bounded_memory() {
    use std::io::{Seek, SeekFrom, Write};
    const SIZE: u64 = 4 << 20;
    let r = TestRepo::seeded();
    let path = r.root.join("large.bin");
    let mut rng = Rng(0x1a46e);
    let mut f = std::fs::File::create(&path).unwrap();
    for _ in 0..SIZE / 65_536 {
        f.write_all(&binary(&mut rng, 65_536)).unwrap();
    }
    drop(f);
    r.commit_all("large");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.seek(SeekFrom::Start(SIZE / 3)).unwrap();
    f.write_all(b"edited").unwrap();
    drop(f);
    r.t3(&["capture", "--thread", THREAD]).ok();
    let args = ["diff", "--thread", THREAD, "--binary"];
    // 37 MiB measured: both sides (8), the source's index (4.5), the
    // deflated content (4) and the program itself.
    let peak = r.peak_rss_kib(&args);
    assert!(peak < 64 * 1024, "diff --binary peaked at {} MiB", peak / 1024);
    let patch = r.t3(&args).ok().stdout;
    assert!(patch.len() < 4096, "{} bytes", patch.len());
    assert_same_bytes(&patch, &theirs(&r, &[]));
    assert_applies_both_ways(&r, &patch);
}

/// Content where two delta encoders choose differently: periodic data,
/// runs, records, moved and duplicated blocks, edits at the 16-byte window
/// and 127-byte insert boundaries, tiny files. Every payload is git's,
/// byte for byte.
#[test]
fn deltas_are_git_diff_delta_byte_for_byte() {
    let mut rng = Rng(0xde17a);
    let mut files: Vec<(String, Vec<u8>, Vec<u8>)> = Vec::new();
    let mut add = |name: &str, old: Vec<u8>, new: Vec<u8>| files.push((name.to_owned(), old, new));
    let period = |p: usize, len: usize| -> Vec<u8> {
        (0..len)
            .map(|i| [0u8, 1, 2, 3, 5, 8, 13][i % p % 7] ^ (i % p) as u8)
            .collect()
    };
    add("periodic.bin", period(17, 50_000), period(19, 50_000));
    add("periodic-edit.bin", period(23, 30_000), {
        let mut d = period(23, 30_000);
        d[12_345] = 0xaa;
        d.splice(20_000..20_000, [7u8; 300]);
        d
    });
    let block = binary(&mut rng, 4096);
    let twice = [&block[..], &block[..], &binary(&mut rng, 1000)[..]].concat();
    add("duplicated.bin", block.clone(), twice.clone());
    add("deduplicated.bin", twice, block);
    let base = binary(&mut rng, 60_000);
    let moved = [&base[30_000..], &base[..30_000]].concat();
    add("moved.bin", base.clone(), moved);
    for (i, len) in [1usize, 4, 15, 16, 17, 126, 127, 128, 129, 300]
        .into_iter()
        .enumerate()
    {
        let at = 1000 + i * 37;
        let new = [&base[..at], &rng.bytes(len, &[])[..], &base[at..]].concat();
        add(
            &format!("insert-{len}.bin"),
            base[..20_000].to_vec(),
            new[..20_100].to_vec(),
        );
    }
    for len in [1usize, 5, 15, 16, 17, 31, 32, 33] {
        let small = binary(&mut rng, len);
        let mut edited = small.clone();
        edited.push(b'x');
        add(&format!("small-{len}.bin"), small, edited);
    }
    let zeros = vec![0u8; 200_000];
    let mut dotted = zeros.clone();
    for at in (0..200_000).step_by(9_999) {
        dotted[at] = 0xff;
    }
    add("runs.bin", zeros, dotted);
    let records: Vec<u8> = (0u32..3000)
        .flat_map(|i| {
            [
                &i.to_le_bytes()[..],
                &[0; 12],
                format!("rec{:05}", i % 97).as_bytes(),
            ]
            .concat()
        })
        .collect();
    let mut shuffled = records.clone();
    shuffled.rotate_left(24 * 1000);
    shuffled[100..108].copy_from_slice(b"\0changed");
    add("records.bin", records, shuffled);
    let edits: Vec<Edit> = files
        .iter()
        .map(|(n, o, t)| (n.as_str(), Some(o.clone()), Some(t.clone())))
        .collect();
    let r = turn(&edits);
    let patch = ours(&r, &[]);
    assert_same_bytes(&patch, &theirs(&r, &[]));
    assert_same_bytes(
        &ours(&r, &["core.compression=9"]),
        &theirs(&r, &["core.compression=9"]),
    );
    let deltas = skeleton(&patch)
        .iter()
        .filter(|l| l.starts_with("delta "))
        .count();
    assert!(deltas >= 20, "{deltas} deltas");
    assert_applies_both_ways(&r, &patch);
}
