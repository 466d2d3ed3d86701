//! The unit tests of `file.rs`.

use super::*;

fn record(path: &[u8], untracked: &[&str], subdirs: &[&[u8]], volatile: bool) -> Arc<DirRecord> {
    Arc::new(DirRecord {
        path: path.as_bstr().to_owned(),
        stat: DirStat {
            mtime: (1, 2),
            ctime: (3, 4),
            ino: path.len() as u64,
            dev: 6,
        },
        ignore_file: (path.is_empty()).then(DirStat::default),
        untracked: untracked
            .iter()
            .map(|p| (BString::from(*p), Some(Kind::File)))
            .collect(),
        subdirs: subdirs.iter().map(|s| s.as_bstr().to_owned()).collect(),
        volatile,
    })
}

/// In the walk's order (depth first), which is not the paths' order:
/// `a/b` comes before `a-c` there, after it in bytes.
fn cache(volatile: bool) -> DirCache {
    DirCache {
        head: "0123".into(),
        rules: "abc".into(),
        started: (1_700_000_000, 5),
        dirs: vec![
            record(b"", &["a\nb\tc", "top"], &[b"a", b"a-c", b"d\xff"], false),
            record(b"a", &[], &[b"a/b"], false),
            record(b"a/b", &["a/b/new"], &[], volatile),
            record(b"a-c", &["a-c/x"], &[], false),
            record(b"d\xff", &[], &[], false),
        ],
    }
}

fn parse(bytes: &[u8]) -> Option<DirFile> {
    DirFile::parse(Bytes::Owned(bytes.to_vec()))
}

#[test]
fn the_file_round_trips_and_refuses_damage() {
    let cache = cache(true);
    let bytes = cache.encode();
    let file = parse(&bytes).expect("parses");
    assert_eq!(file.decode(), Some(cache));
    for cut in [0, 1, 10, bytes.len() / 2, bytes.len() - 1] {
        assert!(parse(&bytes[..cut]).is_none(), "cut at {cut}");
    }
    let mut flipped = bytes.clone();
    flipped[20] ^= 1;
    assert!(parse(&flipped).is_none());
    // The old format (no offset table) is not read as this one.
    let mut old = bytes.clone();
    old[8] = b'2';
    let n = old.len() - 4;
    let sum = crc32fast::hash(&old[..n]).to_le_bytes();
    old[n..].copy_from_slice(&sum);
    assert!(parse(&old).is_none());
}

#[test]
fn records_are_found_by_path_without_decoding_the_rest() {
    let cache = cache(false);
    let file = parse(&cache.encode()).expect("parses");
    for d in &cache.dirs {
        assert_eq!(file.find(d.path.as_bstr()).as_ref(), Some(&**d), "{:?}", d.path);
    }
    for missing in ["b", "a/", "a/b/c", "d", "zzz"] {
        assert_eq!(file.find(missing.into()), None, "{missing}");
    }
    let below =
        |dir: &str| -> Vec<BString> { file.below(dir.into()).map(|r| r.expect("decodes").path).collect() };
    assert_eq!(below("a"), vec![BString::from("a/b")], "not a-c");
    assert_eq!(below("a/b"), Vec::<BString>::new());
    assert_eq!(
        below(""),
        vec![
            BString::from("a"),
            "a-c".into(),
            "a/b".into(),
            b"d\xff".as_bstr().to_owned()
        ]
    );
}

#[test]
fn what_was_emitted_is_listed_in_the_walks_order_unless_a_directory_holds_a_git() {
    let file = parse(&cache(false).encode()).expect("parses");
    let emitted: Vec<BString> = file
        .emitted_without_volatile()
        .expect("no .git")
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    assert_eq!(
        emitted,
        vec![
            BString::from("a\nb\tc"),
            "top".into(),
            "a/b/new".into(),
            "a-c/x".into()
        ]
    );
    let volatile = parse(&cache(true).encode()).expect("parses");
    assert_eq!(volatile.emitted_without_volatile(), None);
}
