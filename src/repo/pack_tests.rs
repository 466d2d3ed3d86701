//! The unit tests of `pack.rs`.

use super::*;
use crate::testing::git;

#[test]
fn gathered_objects_become_packs_git_reads_spilling_past_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    let objects = dir.path().join(".git/objects");
    let sink = Arc::new(PackSink {
        pack_dir: objects.join("pack"),
        level: Compression::BEST_SPEED,
        spill: 4000,
        hash: gix::hash::Kind::Sha1,
        record: None,
        gathered: Mutex::new(Gathered::default()),
    });
    let mut objs = Vec::new();
    let mut seed = 7u64;
    for i in 0..12usize {
        // Incompressible bytes, of every size class of the entry header.
        let len = [0, 1, 15, 16, 127, 2048, 5000][i % 7] + i;
        let data: Vec<u8> = (0..len)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect();
        let id = gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, &data).unwrap();
        sink.add(gix::objs::Kind::Blob, &data, id).unwrap();
        // Twice: gathered once.
        sink.add(gix::objs::Kind::Blob, &data, id).unwrap();
        assert!(sink.holds(&id));
        objs.push((id, data));
    }
    sink.seal().unwrap();
    let files = sink.written();
    assert!(files.len() > 2, "no spill: {files:?}");
    let mut listed = String::new();
    for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "idx")) {
        listed.push_str(&String::from_utf8_lossy(&git(
            dir.path(),
            &["verify-pack", "-v", &f.to_string_lossy()],
        )));
        assert!(f.with_extension("keep").exists(), "not kept before release");
    }
    for (id, data) in &objs {
        let hex = id.to_hex().to_string();
        assert_eq!(
            listed.matches(&format!("{hex} blob")).count(),
            1,
            "{hex} not in one pack"
        );
        assert_eq!(&git(dir.path(), &["cat-file", "blob", &hex]), data);
    }
    // The sealed sink writes nothing more; release drops the keeps.
    sink.seal().unwrap();
    assert_eq!(sink.written(), files);
    sink.release();
    assert!(files.iter().all(|f| !f.with_extension("keep").exists()));
    git(dir.path(), &["fsck", "--strict", "--no-dangling"]);
}

#[test]
fn objects_are_kept_as_they_are_while_small_and_nothing_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let sink = PackSink::new(dir.path(), Compression::BEST_SPEED, gix::hash::Kind::Sha1, None);
    let blob = |data: &[u8]| {
        let id = gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, data).unwrap();
        sink.add(gix::objs::Kind::Blob, data, id).unwrap();
        id
    };
    assert_eq!(sink.copies().map(|c| c.len()), Some(0));
    assert!(sink.has_copies());
    let a = blob(b"a\n");
    blob(b"a\n");
    let copies = sink.copies().unwrap();
    assert_eq!(copies.len(), 1, "an object added twice is kept once");
    assert_eq!(copies[0], (a, gix::objs::Kind::Blob, b"a\n".to_vec()));
    // Past the budget: no copies at all (a partial set would hide
    // objects from a reader).
    blob(&vec![7u8; COPY_BYTES]);
    assert!(sink.copies().is_none());
    assert!(!sink.has_copies());
    // A sealed sink has none either, though what comes next is small.
    let sealed = PackSink::new(dir.path(), Compression::BEST_SPEED, gix::hash::Kind::Sha1, None);
    let id = gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, b"b").unwrap();
    sealed.add(gix::objs::Kind::Blob, b"b", id).unwrap();
    std::fs::create_dir_all(dir.path().join("pack")).unwrap();
    sealed.seal().unwrap();
    assert!(sealed.copies().is_none());
}

#[test]
fn entry_headers_are_gits() {
    // A blob of 5 bytes: type 3, size in the low nibble.
    assert_eq!(entry_header(gix::objs::Kind::Blob, 5), vec![0x35]);
    // 300 = 0b1_0010_1100: low nibble 0xc, then 0b1_0010 = 18.
    assert_eq!(
        entry_header(gix::objs::Kind::Tree, 300),
        vec![0x80 | 0x20 | 0x0c, 18]
    );
    assert_eq!(entry_header(gix::objs::Kind::Commit, 0), vec![0x10]);
    // 16 needs a second byte holding 1.
    assert_eq!(entry_header(gix::objs::Kind::Blob, 16), vec![0x80 | 0x30, 1]);
}
