//! Capture semantics equal git's `read-tree HEAD; add -A; write-tree`.

use std::time::{Duration, SystemTime};

use crate::util::{THREAD, TestRepo, ref_for};

fn capture_matches_oracle(r: &TestRepo) {
    r.t3(&["capture", "--thread", THREAD]).ok();
    let latest = r.t3_json(&["show", "--thread", THREAD]);
    let reference = latest["ref"].as_str().unwrap();
    assert_eq!(
        r.ref_tree(reference),
        r.oracle_tree(),
        "capture of {reference} differs from git's tree"
    );
}

#[test]
fn baseline_and_turns_match_git_and_leave_user_state_alone() {
    let r = TestRepo::seeded();
    r.write("README.md", "# demo\n\nchanged\n");
    r.remove("src/main.rs");
    r.write("src/new.rs", "pub fn new() {}\n");
    r.write("debug.log", "ignored\n");
    r.write("build/out.o", "ignored too\n");
    r.chmod("src/lib.rs", 0o755);
    std::fs::rename(r.root.join("docs/old name.txt"), r.root.join("docs/new name.txt")).unwrap();
    r.git(&["add", "README.md"]); // the user staged something: must stay staged
    let before = r.user_state();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    assert_eq!(r.ref_tree(&ref_for(THREAD, 0)), r.oracle_tree());
    for i in 0..3 {
        r.write(&format!("turn{i}.txt"), &"x\n".repeat(i + 1));
        r.write("src/lib.rs", &format!("fn a() {{}}\nfn b{i}() {{}}\n"));
        capture_matches_oracle(&r);
    }
    assert_eq!(
        r.user_state(),
        before,
        "capture changed HEAD, the branch or the user's index"
    );
    let c = r.git(&["rev-parse", &ref_for(THREAD, 3)]);
    assert_eq!(
        r.git(&["rev-list", "--parents", "-n1", &c]),
        c,
        "a checkpoint has no parent"
    );
    let meta = r.git(&["cat-file", "-p", &c]);
    assert!(
        meta.contains("author T3 Checkpoint <t3@checkpoint.invalid>"),
        "{meta}"
    );
    assert!(
        meta.contains(&format!("t3 checkpoint ref={}", ref_for(THREAD, 3))),
        "{meta}"
    );
}

#[test]
fn unborn_head_and_subdirectory() {
    let r = TestRepo::new();
    r.write("a.txt", "a\n");
    r.write("sub/deeper/b.txt", "b\n");
    r.write(".gitignore", "x\n");
    r.write("x", "ignored\n");
    r.t3_in(&r.root.join("sub/deeper"), &["baseline", "--thread", THREAD])
        .ok();
    assert_eq!(r.ref_tree(&ref_for(THREAD, 0)), r.oracle_tree());
    assert_ne!(
        r.git_in(&r.root, &["rev-parse", "-q", "--verify", "HEAD"]).code,
        0,
        "HEAD was born"
    );
    // An untracked file edited between captures is found through the untracked cache.
    r.write("a.txt", "a2\n");
    r.write("sub/c.txt", "c\n");
    capture_matches_oracle(&r);
}

#[test]
fn nested_repositories() {
    let r = TestRepo::seeded();
    let nested = r.root.join("vendor/lib");
    std::fs::create_dir_all(&nested).unwrap();
    r.git_in(&nested, &["init", "-q"]).ok();
    std::fs::write(nested.join("f"), "f\n").unwrap();
    r.git_in(&nested, &["add", "f"]).ok();
    r.git_in(&nested, &["commit", "-qm", "x"]).ok();
    let unborn = r.root.join("scratch space");
    std::fs::create_dir_all(&unborn).unwrap();
    r.git_in(&unborn, &["init", "-q"]).ok();
    std::fs::write(unborn.join("g"), "g\n").unwrap();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let tree = r.ref_tree(&ref_for(THREAD, 0));
    assert_eq!(tree, r.oracle_tree());
    let listing = r.git(&["ls-tree", "-r", &tree]);
    assert!(
        listing.contains("160000 commit") && listing.contains("vendor/lib"),
        "{listing}"
    );
    assert!(!listing.contains("scratch space"), "{listing}");
    // The nested repository moves on: the gitlink follows its HEAD.
    std::fs::write(nested.join("f"), "f2\n").unwrap();
    r.git_in(&nested, &["commit", "-qam", "y"]).ok();
    capture_matches_oracle(&r);
}

#[test]
fn modes_links_and_odd_names() {
    let r = TestRepo::seeded();
    r.write("tool", "#!/bin/sh\n");
    r.chmod("tool", 0o755);
    std::os::unix::fs::symlink("src/lib.rs", r.root.join("link-to-lib")).unwrap();
    std::os::unix::fs::symlink("does/not/exist", r.root.join("dangling")).unwrap();
    for name in [
        "sp ace.txt",
        "tab\there.txt",
        "new\nline.txt",
        "-dash.txt",
        "q\"uote.txt",
        "日本.txt",
    ] {
        r.write(name, &format!("{name}\n"));
    }
    r.write("empty.txt", "");
    r.write_bytes("crlf.txt", b"a\r\nb\r\n");
    {
        use std::os::unix::ffi::OsStrExt;
        let bad = std::ffi::OsStr::from_bytes(b"bad-\xff-utf8.txt");
        std::fs::write(r.root.join(bad), "latin1\n").unwrap();
    }
    r.t3(&["baseline", "--thread", THREAD]).ok();
    assert_eq!(r.ref_tree(&ref_for(THREAD, 0)), r.oracle_tree());
    // Type changes: a file becomes a link, a link becomes a file, exec bit drops.
    r.remove("README.md");
    std::os::unix::fs::symlink("tool", r.root.join("README.md")).unwrap();
    r.remove("link-to-lib");
    r.write("link-to-lib", "now a file\n");
    r.chmod("tool", 0o644);
    capture_matches_oracle(&r);
}

#[test]
fn tracked_but_ignored_and_newly_ignored_files() {
    let r = TestRepo::seeded();
    r.write("kept.log", "tracked before the rule\n");
    r.git(&["add", "-f", "kept.log"]);
    r.git(&["commit", "-qm", "force-add"]);
    r.write("kept.log", "changed\n");
    r.write("gen/out.txt", "generated\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    assert_eq!(r.ref_tree(&ref_for(THREAD, 0)), r.oracle_tree());
    // An untracked file that becomes ignored leaves the snapshot, like with git.
    r.write(".gitignore", "*.log\nbuild/\ngen/\n");
    capture_matches_oracle(&r);
    // and comes back when the rule goes.
    r.write(".gitignore", "*.log\nbuild/\n");
    capture_matches_oracle(&r);
    // A tracked, ignored file deleted and recreated with the same content comes back.
    r.remove("kept.log");
    capture_matches_oracle(&r);
    r.write("kept.log", "changed\n");
    capture_matches_oracle(&r);
}

#[test]
fn deleted_and_recreated_tracked_file_with_same_content() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let content = std::fs::read(r.root.join("src/lib.rs")).unwrap();
    r.remove("src/lib.rs");
    capture_matches_oracle(&r);
    r.write_bytes("src/lib.rs", &content);
    capture_matches_oracle(&r);
    let files = r.t3_json(&["show", "--thread", THREAD])["files"].clone();
    assert_eq!(files[0]["path"], "src/lib.rs");
    assert_eq!(files[0]["kind"], "added");
}

#[test]
fn head_moves_between_captures() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("agent.txt", "from the agent\n");
    r.write("README.md", "# demo\nedited\n");
    capture_matches_oracle(&r);
    // The user commits the agent's work, then switches branches.
    r.commit_all("take the agent's work");
    r.write("more.txt", "more\n");
    capture_matches_oracle(&r);
    r.git(&["checkout", "-q", "-b", "other", "HEAD~1"]);
    capture_matches_oracle(&r);
}

#[test]
fn sparse_checkout_keeps_head_content_of_skipped_paths() {
    let r = TestRepo::seeded();
    r.git(&["sparse-checkout", "set", "--no-cone", "/src/", "/.gitignore"]);
    assert!(
        !r.root.join("README.md").exists(),
        "sparse checkout did not apply"
    );
    r.write("src/lib.rs", "changed\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let tree = r.ref_tree(&ref_for(THREAD, 0));
    assert_eq!(tree, r.oracle_tree());
    assert!(
        r.git(&["ls-tree", "-r", "--name-only", &tree])
            .contains("README.md"),
        "skipped path lost"
    );
}

#[test]
fn clean_filters_and_eol_conversion_apply() {
    let r = TestRepo::seeded();
    r.git(&["config", "core.autocrlf", "input"]);
    r.git(&["config", "filter.upper.clean", "tr a-z A-Z"]);
    r.write(".gitattributes", "*.up filter=upper\n");
    r.write("shout.up", "quiet words\n");
    r.write_bytes("dos.txt", b"one\r\ntwo\r\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let tree = r.ref_tree(&ref_for(THREAD, 0));
    assert_eq!(tree, r.oracle_tree());
    assert_eq!(r.git(&["show", &format!("{tree}:shout.up")]), "QUIET WORDS");
    assert_eq!(r.git(&["show", &format!("{tree}:dos.txt")]), "one\ntwo");
}

#[test]
fn racy_same_size_edit_is_seen() {
    let r = TestRepo::seeded();
    // Make stat comparisons as weak as git allows: seconds only, no ctime.
    r.git(&["config", "core.checkStat", "minimal"]);
    r.git(&["config", "core.trustctime", "false"]);
    r.t3(&["baseline", "--thread", THREAD]).ok();
    // An edit is racy when the file's mtime is at or after the moment the
    // capture's walk started: only then can stat data not tell two versions
    // apart. A shared future mtime makes that so regardless of timing (a
    // restored *past* mtime would be undetectable, for git too).
    let racy = SystemTime::now() + Duration::from_secs(3600);
    for round in 0..5u8 {
        let path = r.root.join("src/lib.rs");
        std::fs::write(&path, format!("round {round} A\n")).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(racy)
            .unwrap();
        capture_matches_oracle(&r);
        // Same size, same mtime: only the racy-git rule can tell.
        std::fs::write(&path, format!("round {round} B\n")).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(racy)
            .unwrap();
        capture_matches_oracle(&r);
        let shown = r.t3_json(&["show", "--thread", THREAD]);
        assert_eq!(shown["files"][0]["path"], "src/lib.rs", "round {round}: {shown}");
    }
}

#[test]
fn many_untracked_files_are_hashed_in_parallel_and_cached() {
    let r = TestRepo::new();
    for i in 0..300 {
        r.write(&format!("d{}/f{i}.txt", i % 7), &format!("file {i}\n"));
    }
    r.t3(&["baseline", "--thread", THREAD]).ok();
    assert_eq!(r.ref_tree(&ref_for(THREAD, 0)), r.oracle_tree());
    r.write("d1/f1.txt", "changed\n");
    r.remove("d2/f2.txt");
    capture_matches_oracle(&r);
    let files = r.t3_json(&["show", "--thread", THREAD])["files"].clone();
    assert_eq!(
        crate::util::rows(&files),
        vec![("d1/f1.txt".into(), 1, 1), ("d2/f2.txt".into(), 0, 1)]
    );
}

#[test]
fn a_damaged_cache_is_rebuilt() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("a.txt", "a\n");
    std::fs::write(r.root.join(".git/t3/index.tracked"), b"garbage").unwrap();
    capture_matches_oracle(&r);
    std::fs::write(r.root.join(".git/t3/cache"), b"t3-cache 1\nhead nonsense\n").unwrap();
    r.write("b.txt", "b\n");
    capture_matches_oracle(&r);
}

/// A slot of `index.tracked` is overwritten in place: bytes a crash lost
/// leave its inode, size and mtime as the meta file names them, so its
/// content is checked too.
#[test]
fn a_cache_slot_whose_bytes_changed_under_the_same_identity_is_rebuilt() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("a.txt", "a\n");
    capture_matches_oracle(&r);
    let t3 = r.root.join(".git/t3");
    let meta = std::fs::read_to_string(t3.join("cache")).unwrap();
    let slot = meta
        .lines()
        .find_map(|l| l.strip_prefix("tracked "))
        .and_then(|l| l.split(' ').next())
        .unwrap()
        .to_owned();
    let path = t3.join(&slot);
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let mut data = std::fs::read(&path).unwrap();
    // The first entry's ctime, as an old version of the file would have it.
    data[12] ^= 0x55;
    {
        use std::os::unix::fs::FileExt as _;
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.write_all_at(&data, 0).unwrap();
        f.set_modified(mtime).unwrap();
    }
    r.write("b.txt", "b\n");
    let run = r
        .t3_env(&["capture", "--thread", THREAD], &[("T3_TRACE", "1")])
        .ok();
    assert!(run.stderr.contains("cache rebuilt: true"), "{}", run.stderr);
    capture_matches_oracle(&r);
}

#[test]
fn works_as_a_git_subcommand() {
    let r = TestRepo::seeded();
    let out = r
        .git_in(&r.root, &["t3", "--json", "baseline", "--thread", THREAD])
        .ok();
    assert_eq!(out.json()["turn"], 0);
}

/// A tracked file replaced by a directory: the directory's files stay in
/// every later capture (an incremental capture used to remove the whole
/// directory again as "the tracked file is gone").
#[test]
fn a_tracked_file_replaced_by_a_directory_stays_captured() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.remove("README.md");
    r.write("README.md/inside.txt", "now a directory\n");
    for turn in 1..=3 {
        r.t3(&["capture", "--thread", THREAD]).ok();
        assert_eq!(
            r.ref_tree(&ref_for(THREAD, turn)),
            r.oracle_tree(),
            "turn {turn} differs from git's tree"
        );
    }
}

/// Large files are hashed as a stream: a capture of a changed 48 MiB file
/// (tracked, then untracked) stays far below its size in memory, and its
/// tree is still git's.
#[test]
fn large_files_are_captured_in_bounded_memory() {
    let r = TestRepo::seeded();
    let size: u64 = 48 << 20;
    let write_sparse = |name: &str, marker: &[u8]| {
        use std::io::{Seek as _, SeekFrom, Write as _};
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(false)
            .open(r.root.join(name))
            .unwrap();
        f.set_len(size).unwrap();
        f.seek(SeekFrom::Start(size / 2)).unwrap();
        f.write_all(marker).unwrap();
    };
    write_sparse("big.dat", b"version 1");
    r.commit_all("a big file");
    // No cap: the untracked one is captured too (default: over 10 MiB, skipped).
    r.git(&["config", "t3.maxFileSize", "0"]);
    r.t3(&["baseline", "--thread", THREAD]).ok();
    write_sparse("big.dat", b"version 2");
    write_sparse("new-big.dat", b"untracked");
    let peak = r.peak_rss_kib(&["capture", "--thread", THREAD]);
    assert!(peak < 45 * 1024, "capture peaked at {} MiB", peak / 1024);
    assert_eq!(r.ref_tree(&ref_for(THREAD, 1)), r.oracle_tree());
    // Reverting writes the big file back as a stream, too.
    let peak = r.peak_rss_kib(&["revert", "--thread", THREAD, "--to", "0", "--files-only"]);
    assert!(peak < 45 * 1024, "revert peaked at {} MiB", peak / 1024);
    assert_eq!(
        r.git(&["hash-object", "big.dat"]),
        r.git(&["rev-parse", "HEAD:big.dat"])
    );
    assert!(!r.root.join("new-big.dat").exists());
    std::fs::remove_file(r.root.join("big.dat")).unwrap();
}

/// A reordered large file is counted in bounded time (a minimal diff took a
/// minute on 60,000 lines), with counts close to git's.
#[test]
fn a_reordered_large_file_is_counted_in_bounded_time() {
    let r = TestRepo::seeded();
    let lines: Vec<String> = (0..30_000u64)
        .map(|i| format!("line {i} {}", i.wrapping_mul(2_654_435_761) % 1_000_003))
        .collect();
    r.write("big.txt", &(lines.join("\n") + "\n"));
    r.commit_all("big");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let mut shuffled = lines.clone();
    // A deterministic reordering: every line moves.
    shuffled.sort_by_key(|l| l.bytes().rev().map(u64::from).sum::<u64>() % 9973);
    r.write("big.txt", &(shuffled.join("\n") + "\n"));
    let start = std::time::Instant::now();
    let s = r.t3_json(&["capture", "--thread", THREAD]);
    assert!(
        start.elapsed() < std::time::Duration::from_secs(60),
        "counting took {:?}",
        start.elapsed()
    );
    let f = &s["files"][0];
    let git = r.numstat(&ref_for(THREAD, 0), &ref_for(THREAD, 1), false);
    let (_, ga, gd) = &git[0];
    let (a, d) = (f["additions"].as_u64().unwrap(), f["deletions"].as_u64().unwrap());
    // git's own algorithm, with its heuristics: the same count.
    assert_eq!((a, d), (*ga, *gd));
}

/// Every object a capture writes loose is the file git writes: a zlib
/// stream git reads back byte for byte (one stream is reused from object to
/// object, so a short object after a long one, an empty one, one that does
/// not compress), read-only, at git's default level unless
/// `core.looseCompression` says otherwise; with `core.sharedRepository`
/// the objects get the shared permissions (gix's writer).
#[test]
fn objects_are_written_as_git_writes_them_in_one_pack_per_capture() {
    use std::os::unix::fs::PermissionsExt as _;
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let mut rng = crate::util::Rng(0x9e37_79b9_7f4a_7c15);
    let mut files: Vec<(String, Vec<u8>)> = vec![
        ("empty.txt".into(), Vec::new()),
        ("one.txt".into(), b"x".to_vec()),
        ("random.bin".into(), rng.bytes(300_000, &[])),
        ("after-random.txt".into(), b"short after long\n".to_vec()),
        ("text.txt".into(), b"line of text\n".repeat(20_000)),
    ];
    for i in 0..40 {
        let len = rng.below(5_000) as usize;
        files.push((format!("many/f{i}.txt"), rng.bytes(len, &[])));
    }
    for (path, data) in &files {
        r.write_bytes(path, data);
    }
    std::os::unix::fs::symlink("text.txt", r.root.join("link")).unwrap();
    let pack = capture_into_one_pack(&r);
    assert_eq!(r.ref_tree(&ref_for(THREAD, 1)), r.oracle_tree());
    r.git(&["fsck", "--strict", "--no-progress"]);
    let listed = r.git(&["verify-pack", "-v", &pack.with_extension("idx").to_string_lossy()]);
    for file in [pack.clone(), pack.with_extension("idx")] {
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode & 0o222, 0, "{}: writable ({mode:o})", file.display());
    }
    assert!(!pack.with_extension("keep").exists(), "the .keep file was left");
    for (path, data) in &files {
        let spec = format!("{}:{path}", ref_for(THREAD, 1));
        let got = r.git_in(&r.root, &["cat-file", "blob", &spec]).ok().stdout;
        assert_eq!(&got, data, "{path}");
        let id = r.git(&["rev-parse", &spec]);
        assert!(
            listed.contains(&format!("{id} blob")),
            "{path} is not in the pack"
        );
        assert!(!loose(&r, &id).exists(), "{path} was written loose too");
    }
    assert_eq!(
        r.git(&["cat-file", "blob", &format!("{}:link", ref_for(THREAD, 1))]),
        "text.txt"
    );
    // The pack's entries at git's default loose level (the first entry's
    // zlib header follows its type-and-size header).
    assert_eq!(first_entry_zlib_header(&pack), [0x78, 0x01]);
    // A small capture's commit and note objects join its pack.
    let commit = r.git(&["rev-parse", &ref_for(THREAD, 1)]);
    let notes = r.git(&["rev-parse", "refs/notes/t3"]);
    let note = r.git(&["notes", "--ref=t3", "list", &commit]);
    for (what, id) in [("commit", &commit), ("notes commit", &notes), ("note", &note)] {
        assert!(
            listed.contains(&format!("{id} ")),
            "the {what} is not in the pack"
        );
        assert!(!loose(&r, id).exists(), "the {what} was written loose too");
    }

    // core.looseCompression is honoured, in the pack and loose: a capture
    // too large to keep in memory until its commit is written (4 MiB) has
    // its commit and note written loose, after the pack.
    r.git(&["config", "core.looseCompression", "9"]);
    r.write("level9.txt", &"nine ".repeat(1000));
    r.write_bytes("large.bin", &rng.bytes(5 << 20, &[]));
    let pack = capture_into_one_pack(&r);
    assert_eq!(first_entry_zlib_header(&pack), [0x78, 0xda]);
    let commit = r.git(&["rev-parse", &ref_for(THREAD, 2)]);
    let raw = std::fs::read(loose(&r, &commit)).unwrap();
    assert_eq!(raw[..2], [0x78, 0xda], "the loose level");
    let mode = std::fs::metadata(loose(&r, &commit))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode & 0o222, 0, "writable object file ({mode:o})");
    assert_eq!(r.ref_tree(&ref_for(THREAD, 2)), r.oracle_tree());

    // core.sharedRepository: loose, group-readable objects, as git makes them.
    r.git(&["config", "core.sharedRepository", "group"]);
    r.write("shared.txt", "shared\n");
    let before = r.packs();
    r.t3(&["capture", "--thread", THREAD]).ok();
    assert_eq!(r.packs(), before, "a pack in a shared repository");
    let id = r.git(&["rev-parse", &format!("{}:shared.txt", ref_for(THREAD, 3))]);
    let mode = std::fs::metadata(loose(&r, &id)).unwrap().permissions().mode();
    assert_eq!(mode & 0o040, 0o040, "not group-readable: {mode:o}");
    r.git(&["fsck", "--strict", "--no-progress"]);
}

/// The loose object file of `id`.
fn loose(r: &TestRepo, id: &str) -> std::path::PathBuf {
    r.root.join(".git/objects").join(&id[..2]).join(&id[2..])
}

/// Capture a turn of `THREAD`, which must write exactly one pack; its path.
fn capture_into_one_pack(r: &TestRepo) -> std::path::PathBuf {
    let before = r.packs();
    r.t3(&["capture", "--thread", THREAD]).ok();
    let new: Vec<String> = r.packs().into_iter().filter(|p| !before.contains(p)).collect();
    assert_eq!(new.len(), 1, "one new pack: {new:?}");
    r.root.join(".git/objects/pack").join(format!("{}.pack", new[0]))
}

/// The two zlib header bytes of the first entry of the pack at `path`.
fn first_entry_zlib_header(path: &std::path::Path) -> [u8; 2] {
    let raw = std::fs::read(path).unwrap();
    assert_eq!(&raw[..4], b"PACK");
    // After the 12-byte header, the entry's type-and-size bytes run until
    // one without the high bit.
    let mut at = 12;
    while raw[at] & 0x80 != 0 {
        at += 1;
    }
    [raw[at + 1], raw[at + 2]]
}

/// `--timings` prints each step's time on stderr (the phases `T3_TRACE`
/// shows), and nothing of it without the flag.
#[test]
fn timings_show_where_a_capture_spends_its_time() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("a.txt", "changed\n");
    let run = r.t3(&["--timings", "capture", "--thread", THREAD]).ok();
    for phase in [
        "open repository",
        "status walk",
        "summary",
        "notes and ref",
        "capture total (after open)",
    ] {
        let line = run
            .stderr
            .lines()
            .find(|l| l.starts_with("t3-trace") && l.ends_with(phase));
        assert!(
            line.is_some_and(|l| l.contains(" ms ")),
            "{phase}: {}",
            run.stderr
        );
    }
    r.write("a.txt", "changed again\n");
    let quiet = r.t3(&["capture", "--thread", THREAD]).ok();
    assert!(!quiet.stderr.contains("t3-trace"), "{}", quiet.stderr);
}
