//! The unit tests of `note.rs`.

use super::*;

#[test]
fn a_large_summary_is_cut_to_fit_and_keeps_its_totals() {
    let mut n = Note::new(&crate::model::thread::ThreadId::parse("t").unwrap(), 1);
    n.files = (0..500)
        .map(|i| {
            let path = format!("src/file-{i:04}.rs");
            FileChange::new(path.as_bytes(), None, ChangeKind::Added, [i, 1], false)
        })
        .collect();
    let totals = n.totals();
    n.fit(4096).unwrap();
    let text = n.to_toml().unwrap();
    assert!(text.len() <= 4096, "{}", text.len());
    assert!(!n.files.is_empty() && n.files.len() < 500);
    assert_eq!(n.totals(), totals, "the totals changed");
    let omitted = n.files_omitted.unwrap();
    assert_eq!(omitted.files as usize + n.files.len(), 500);
    // DESIGN's top-level key says how many were left out.
    assert_eq!(n.files_truncated, Some(omitted.files));
    assert!(
        text.lines()
            .any(|l| l == format!("files_truncated = {}", omitted.files)),
        "{text}"
    );
    assert_eq!(Note::parse(text.as_bytes()).unwrap(), n);
    // A note that fits is left alone.
    let mut small = Note::new(&crate::model::thread::ThreadId::parse("t").unwrap(), 2);
    small.fit(4096).unwrap();
    assert!(small.files_omitted.is_none());
    assert!(small.files_truncated.is_none());
}

fn sample() -> Note {
    Note {
        schema: 1,
        thread: "t\"hr\\ead".into(),
        turn: 2,
        reference: "refs/t3/checkpoints/x/turn/2".into(),
        status: Status::Ready,
        placeholder: false,
        turn_id: Some("turn-2".into()),
        assistant_message_id: None,
        provider: None,
        completed_at: "2026-12-02T16:00:00Z".into(),
        from_turn: Some(1),
        title: Some("fix the flaky test".into()),
        agent: Some("claude-code".into()),
        worktree: Some("/work/tree with space".into()),
        branch: Some(String::new()),
        head: Some("1234567890123456789012345678901234567890".into()),
        pre_turn_tree: Some("4b825dc642cb6eb9a060e54bf8d69288fbad4904".into()),
        transcript: Some("/home/u/.claude/projects/-work/abc.jsonl".into()),
        prompt_id: Some("p-1".into()),
        warnings: vec![],
        reverts: vec![],
        skipped: vec![
            SkippedFile::new(b"data/big.bin", 209_715_200),
            SkippedFile::new(b"raw\xff.bin", 11 << 20),
        ],
        files: vec![
            FileChange::new(
                "new\nline \u{1F600}.txt".as_bytes(),
                Some(b"old.txt"),
                ChangeKind::Renamed,
                [3, 1],
                false,
            ),
            FileChange::new(b"caf\xe9", Some(b"\xff\n"), ChangeKind::Renamed, [0, 0], true),
        ],
        files_truncated: None,
        files_omitted: None,
    }
}

#[test]
fn round_trips_through_toml() {
    let n = sample();
    let text = n.to_toml().unwrap();
    assert!(text.starts_with("schema = 1\n"), "{text}");
    assert!(text.contains("kind = \"renamed\""));
    let back = Note::parse(text.as_bytes()).unwrap();
    assert_eq!(back, n);
    assert_eq!(back.files[1].path_bytes(), b"caf\xe9".as_slice());
    assert_eq!(back.files[1].old_path_bytes().unwrap(), b"\xff\n".as_slice());
    assert_eq!(back.files[0].path_b64, None, "UTF-8 paths need no bytes");
    assert_eq!(back.skipped[1].path_bytes(), b"raw\xff.bin".as_slice());
    assert_eq!(back.skipped[0].size, 209_715_200);
    // Fields this build does not know are ignored (schema 1 grows).
    let newer = text.replace("binary = true", "binary = true\nfuture = 1");
    assert_eq!(Note::parse(newer.as_bytes()).unwrap(), n);
}

#[test]
fn status_mapping() {
    assert_eq!(Status::from_turn_state(Some("failed")), Status::Error);
    assert_eq!(Status::from_turn_state(Some("cancelled")), Status::Missing);
    assert_eq!(Status::from_turn_state(Some("interrupted")), Status::Missing);
    assert_eq!(Status::from_hook_state("interrupted"), Status::Interrupted);
    assert_eq!(Status::from_hook_state("cancelled"), Status::Interrupted);
    assert_eq!(Status::from_hook_state("failed"), Status::Error);
    assert_eq!(Status::from_hook_state("completed"), Status::Ready);
    assert_eq!(Status::from_turn_state(Some("completed")), Status::Ready);
    assert_eq!(Status::from_turn_state(Some("weird")), Status::Ready);
    assert_eq!(Status::from_turn_state(None), Status::Ready);
}

#[test]
fn rejects_garbage_without_panicking() {
    for bad in [
        &b"\xff\xfe"[..],
        b"schema = 2\n",
        b"schema = 1\nturn = -1\n",
        b"[[[",
        b"",
        b"schema = \"1\"",
    ] {
        assert!(Note::parse(bad).is_err(), "{bad:?}");
    }
    let mut n = sample().to_toml().unwrap();
    n = n.replace("additions = 3", "additions = -3");
    assert!(Note::parse(n.as_bytes()).is_err());
}
