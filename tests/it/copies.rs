//! Copies (and renames) as git finds and prints them: `diff.renames=copies`,
//! `-C[<n>]`, `--find-copies-harder`, `-M[<n>]`, `--no-renames`, `-l<n>`,
//! each output of `git t3 diff` compared byte for byte with `git diff` of
//! the same two checkpoints, run in the test; the notes keep `git
//! diff-tree -r -M`'s summary whatever the setting.

use crate::util::{THREAD, TestRepo, ref_for, turn_diff_and_git};

/// `n` numbered lines tagged `tag`.
fn body(n: usize, tag: &str) -> String {
    (1..=n).map(|i| format!("{tag} line {i}\n")).collect()
}

/// A turn with a copy of each kind: of a modified file (`src/app.c` into
/// `src/app copy.c`), of an unmodified one (`lib/util.rs`, exact, and
/// `lib/ré.rs`, edited: only with `--find-copies-harder`), of a deleted
/// one twice (`old/data.txt`: an exact copy and an edited one, so one is a
/// copy and the last a rename), of an executable into a plain file, of a
/// binary file, of empty files; and a rename and an addition beside them.
fn fixture() -> (TestRepo, String, String) {
    let r = TestRepo::new();
    r.write("src/app.c", &body(60, "app"));
    r.write("lib/util.rs", &body(40, "util"));
    r.write("old/data.txt", &body(30, "data"));
    r.write("run.sh", &body(20, "run"));
    r.write_bytes(
        "blob.bin",
        &[b"\0\x01\x02bin\n".repeat(40), b"tail\n".to_vec()].concat(),
    );
    r.write("empty", "");
    r.write("moved/from.txt", &body(25, "moved"));
    r.chmod("run.sh", 0o755);
    r.commit_all("before");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("src/app.c", &(body(60, "app") + "one more\n"));
    r.write("src/app copy.c", &(body(60, "app") + "copied, then edited\n"));
    r.write("lib/util2.rs", &body(40, "util"));
    r.write("lib/r\u{e9}.rs", &(body(40, "util") + "an edit\n"));
    r.remove("old/data.txt");
    r.write("new/data.txt", &body(30, "data"));
    r.write("new/data2.txt", &(body(30, "data") + "extra\n"));
    r.write("run.sh", &(body(20, "run") + "changed\n"));
    r.write("run.txt", &body(20, "run"));
    r.write_bytes(
        "blob2.bin",
        &[b"\0\x01\x02bin\n".repeat(40), b"other tail\n".to_vec()].concat(),
    );
    r.write("empty2", "");
    r.remove("moved/from.txt");
    r.write("moved/to.txt", &(body(25, "moved") + "moved and edited\n"));
    r.write("added.txt", &body(5, "added"));
    r.t3(&["capture", "--thread", THREAD]).ok();
    (r, ref_for(THREAD, 0), ref_for(THREAD, 1))
}

/// `git t3 diff` of turn 1 and `git diff` of the same checkpoints, each
/// with `config` (`-c` pairs) and `args`.
fn both(r: &TestRepo, sides: (&str, &str), config: &[&str], args: &[&str]) -> (String, String) {
    let (mine, theirs) = turn_diff_and_git(r, sides, config, &[], args);
    assert_eq!(mine.code, 0, "{config:?} {args:?}: {}", mine.stderr);
    let theirs = theirs.ok();
    (
        String::from_utf8_lossy(&mine.stdout).into_owned(),
        String::from_utf8_lossy(&theirs.stdout).into_owned(),
    )
}

/// Every output, under every way of asking for copies.
#[test]
fn every_output_shows_copies_as_git_does() {
    let (r, a, b) = fixture();
    let sides = (a.as_str(), b.as_str());
    let outputs: &[&[&str]] = &[
        &[],
        &["--binary"],
        &["--stat"],
        &["--numstat"],
        &["--numstat", "-z"],
        &["--name-status"],
        &["--name-status", "-z"],
        &["--name-only"],
        &["--summary"],
        &["--stat", "--summary"],
        &["--stat", "--compact-summary"],
        &["--shortstat"],
        &["--dirstat=0"],
        &["--dirstat=files,0"],
        &["--dirstat=lines,cumulative,0"],
        &["-R"],
        &["-R", "--name-status"],
        &["-R", "--summary"],
        &["--diff-filter=C", "--name-status"],
        &["--diff-filter=c", "--stat"],
        &["--diff-filter=CR"],
        &["-w", "--name-status"],
    ];
    let cases: &[(&[&str], &[&str])] = &[
        (&[], &[]),
        (&["diff.renames=copies"], &[]),
        (&["diff.renames=copy"], &[]),
        (&[], &["-C"]),
        (&[], &["--find-copies"]),
        (&[], &["-C", "-C"]),
        (&[], &["--find-copies-harder"]),
        (&["diff.renames=copies"], &["-C"]),
        (&["core.quotePath=false"], &["--find-copies-harder"]),
    ];
    for (config, opts) in cases {
        for out in outputs {
            let args = [*opts, *out].concat();
            let (mine, theirs) = both(&r, sides, config, &args);
            assert_eq!(mine, theirs, "{config:?} {args:?}");
        }
    }
    // The fixture has what it says: copies of each kind.
    let (harder, _) = both(&r, sides, &[], &["--find-copies-harder", "--name-status"]);
    for line in [
        "C100\tlib/util.rs\tlib/util2.rs",
        "C100\told/data.txt\tnew/data.txt",
        "R098\told/data.txt\tnew/data2.txt",
        "C100\tempty\tempty2",
    ] {
        assert!(harder.lines().any(|l| l == line), "{line:?} in\n{harder}");
    }
    assert!(harder.contains("\tsrc/app.c\tsrc/app copy.c\n"), "{harder}");
    let (plain, _) = both(&r, sides, &[], &["-C", "--name-status"]);
    assert!(
        plain.contains("A\tlib/util2.rs\n"),
        "unchanged sources need --find-copies-harder: {plain}"
    );
}

/// `-M`, `-C` and `--no-renames` count in their order, as git applies
/// them, over `diff.renames`; one `-C` with copies already on is
/// `--find-copies-harder`.
#[test]
fn rename_options_count_in_their_order() {
    let (r, a, b) = fixture();
    let sides = (a.as_str(), b.as_str());
    let cases: &[(&[&str], &[&str])] = &[
        (&[], &["-M"]),
        (&[], &["-C", "-M"]),
        (&[], &["-M", "-C"]),
        (&[], &["--no-renames"]),
        (&[], &["--no-renames", "-C"]),
        (&[], &["-C", "--no-renames"]),
        (&[], &["-C", "--no-renames", "-C", "--no-renames"]),
        (&[], &["-C", "-C", "--no-renames"]),
        (&[], &["--no-renames", "--find-copies-harder"]),
        (&["diff.renames=false"], &[]),
        (&["diff.renames=false"], &["-C"]),
        (&["diff.renames=copies"], &["-M"]),
        (&["diff.renames=copies"], &["--no-renames"]),
        (&["diff.renames=copies"], &["--no-renames", "-C"]),
        (&[], &["--no-rename-empty", "-C"]),
        (&[], &["--no-rename-empty", "--rename-empty"]),
    ];
    for (config, opts) in cases {
        for out in [&["--name-status"][..], &["--summary"], &[]] {
            let args = [*opts, out].concat();
            let (mine, theirs) = both(&r, sides, config, &args);
            assert_eq!(mine, theirs, "{config:?} {args:?}");
        }
    }
    let bad = r.t3(&["diff", "--thread", THREAD, "-C5x"]).fails(2);
    assert!(bad.stderr.contains("find-copies"), "{}", bad.stderr);
    r.t3(&["diff", "--thread", THREAD, "-B"]).fails(2);
    r.git_in(
        &r.root,
        &["-c", "diff.renames=maybe", "t3", "diff", "--thread", THREAD],
    )
    .fails(1);
}

/// The similarity git finds for `dst`, out of 60000, found by asking git
/// itself with thresholds of 1/100000 (`-C.NNNNN`): the largest it still
/// pairs at.
fn gits_score(r: &TestRepo, (a, b): (&str, &str), dst: &str) -> u64 {
    let pairs = |score: u64| {
        // git's parse_rename_score: 60000 * num / 100000, rounded down.
        let num = (score * 100_000).div_ceil(60_000);
        let out = r
            .git_in(&r.root, &["diff", &format!("-C.{num:05}"), "--name-status", a, b])
            .ok()
            .out();
        out.lines()
            .any(|l| l.starts_with('C') && l.ends_with(&format!("\t{dst}")))
    };
    let (mut lo, mut hi) = (1, 59_999);
    assert!(pairs(lo) && !pairs(hi), "{dst} is not an inexact copy");
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if pairs(mid) { lo = mid } else { hi = mid }
    }
    lo
}

/// At a threshold equal to a pair's exact score git pairs it, one above
/// it does not: git-t3 agrees on both sides of the edge, for copies and
/// renames, in git's notations (`-C.NNNNN`, `-CNN%`, `-MNN`).
#[test]
fn similarity_thresholds_at_the_edge() {
    let (r, a, b) = fixture();
    let sides = (a.as_str(), b.as_str());
    let score = gits_score(&r, sides, "src/app copy.c");
    let at = |s: u64| format!("-C.{:05}", (s * 100_000).div_ceil(60_000));
    let percent = score * 100 / 60_000;
    for opt in [
        at(score),
        at(score + 1),
        format!("-C{percent}%"),
        format!("-C{}%", percent + 1),
        format!("--find-copies={percent}"),
        format!("-M{percent}"),
        format!("-M{}%", percent + 1),
        "-C100%".into(),
        "-M100%".into(),
        "-C0".into(),
        "-C5".into(),
    ] {
        for out in [&["--name-status"][..], &["--stat"]] {
            let args = [&[opt.as_str()][..], out].concat();
            let (mine, theirs) = both(&r, sides, &[], &args);
            assert_eq!(mine, theirs, "{args:?} (the copy's score is {score})");
        }
    }
}

/// Past the rename limit git pairs exact matches only (with
/// `--find-copies-harder`, it first falls back to the changed files'
/// sources); git-t3 does the same with `-l<n>` and `diff.renameLimit`.
#[test]
fn a_rename_limit_leaves_inexact_copies_out() {
    let (r, a, b) = fixture();
    let sides = (a.as_str(), b.as_str());
    for limit in ["1", "2", "3", "4", "5", "0"] {
        let l = format!("-l{limit}");
        let setting = format!("diff.renameLimit={limit}");
        for (config, opts) in [
            (vec![], vec![l.as_str(), "-C"]),
            (vec![], vec![l.as_str(), "-C", "-C"]),
            (vec![setting.as_str(), "diff.renames=copies"], vec![]),
            (vec![setting.as_str()], vec!["--find-copies-harder"]),
        ] {
            let args = [&opts[..], &["--name-status"]].concat();
            let (mine, theirs) = both(&r, sides, &config, &args);
            assert_eq!(mine, theirs, "{config:?} {args:?}");
        }
    }
    let (limited, _) = both(&r, sides, &[], &["-l1", "-C", "--name-status"]);
    assert!(limited.contains("A\tnew/data2.txt\n"), "{limited}");
}

/// git limits the changes to the pathspecs before it pairs renames and
/// copies: a source outside them is not one. git-t3 used to pair first,
/// then turn a pair with a side outside into an addition, missing the
/// rename from inside that git finds.
#[test]
fn pathspecs_limit_before_pairing() {
    let r = TestRepo::new();
    r.write("a/x.txt", &body(20, "same"));
    r.write("in/x.txt", &body(20, "same"));
    r.write("in/kept.txt", &body(20, "kept"));
    r.commit_all("before");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.remove("a/x.txt");
    r.remove("in/x.txt");
    r.write("in/y.txt", &body(20, "same"));
    r.write("in/kept copy.txt", &body(20, "kept"));
    r.write("out/kept.txt", &body(20, "kept"));
    r.t3(&["capture", "--thread", THREAD]).ok();
    let (a, b) = (ref_for(THREAD, 0), ref_for(THREAD, 1));
    let sides = (a.as_str(), b.as_str());
    for opts in [&[][..], &["-C", "-C"]] {
        for paths in [
            &["--", "in"][..],
            &["--", "out"],
            &["--", "a", "out"],
            &["--", ":(exclude)a"],
        ] {
            let args = [opts, &["--name-status"], paths].concat();
            let mine = r
                .git_in(
                    &r.root,
                    &[&["t3", "diff", "--thread", THREAD][..], &args].concat(),
                )
                .ok()
                .out();
            let (before, after) = args.split_at(args.len() - paths.len());
            let theirs = r
                .git_in(&r.root, &[&["diff"][..], before, &[&a, &b], after].concat())
                .ok()
                .out();
            assert_eq!(mine, theirs, "{args:?}");
        }
    }
    let (inside, _) = both(&r, sides, &[], &["--name-status", "--", "in"]);
    assert!(inside.contains("R100\tin/x.txt\tin/y.txt"), "{inside}");
    let rel = r
        .t3_in(
            &r.root.join("in"),
            &[
                "diff",
                "--thread",
                THREAD,
                "--relative",
                "-C",
                "-C",
                "--name-status",
            ],
        )
        .ok()
        .out();
    let theirs = r
        .git_in(
            &r.root.join("in"),
            &["diff", "--relative", "-C", "-C", "--name-status", &a, &b],
        )
        .ok()
        .out();
    assert_eq!(rel, theirs);
}

/// git renames empty files (its `rename_empty`, on by default), in `git
/// diff` and in `git diff-tree -r -M`; git-t3 listed a deletion and an
/// addition.
#[test]
fn empty_files_are_renamed_as_git_renames_them() {
    let r = TestRepo::new();
    r.write("keep.txt", "x\n");
    r.write("empty-old", "");
    r.commit_all("before");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.remove("empty-old");
    r.write("empty-new", "");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let (a, b) = (ref_for(THREAD, 0), ref_for(THREAD, 1));
    for args in [
        &["--name-status"][..],
        &["--summary"],
        &[],
        &["--no-rename-empty", "--stat"],
    ] {
        let (mine, theirs) = both(&r, (&a, &b), &[], args);
        assert_eq!(mine, theirs, "{args:?}");
    }
    let shown = r.t3_json(&["show", "--thread", THREAD]);
    assert_eq!(shown["files"][0]["kind"], "renamed", "{shown}");
    assert_eq!(shown["files"][0]["old_path"], "empty-old", "{shown}");
}

/// `--json` says `copied`, with the source in `old_path`, as it says
/// `renamed`; the counts are the numstat's.
#[test]
fn json_names_copies() {
    let (r, a, b) = fixture();
    let d = r.t3_json(&[
        "diff",
        "--thread",
        THREAD,
        "--keep-whitespace",
        "--find-copies-harder",
    ]);
    let files = d["files"].as_array().unwrap();
    let status = r
        .git_in(
            &r.root,
            &["diff", "--find-copies-harder", "--name-status", &a, &b],
        )
        .ok()
        .out();
    assert_eq!(files.len(), status.lines().count(), "{d}\n{status}");
    let util2 = files.iter().find(|f| f["path"] == "lib/util2.rs").unwrap();
    assert_eq!(util2["kind"], "copied");
    assert_eq!(util2["old_path"], "lib/util.rs");
    let data2 = files.iter().find(|f| f["path"] == "new/data2.txt").unwrap();
    assert_eq!(data2["kind"], "renamed");
    let copy = files.iter().find(|f| f["path"] == "src/app copy.c").unwrap();
    assert_eq!(
        (copy["kind"].as_str(), copy["additions"].as_u64()),
        (Some("copied"), Some(1))
    );
}

/// Copies never reach the notes: with `diff.renames=copies` set, a
/// capture still records `git diff-tree -r -M`'s kinds, sources and
/// counts, and `show` reads them back.
#[test]
fn copies_do_not_change_the_notes() {
    let r = TestRepo::new();
    r.git(&["config", "diff.renames", "copies"]);
    r.write("src/app.c", &body(60, "app"));
    r.write("gone.txt", &body(20, "gone"));
    r.write("empty", "");
    r.commit_all("before");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("src/app.c", &(body(60, "app") + "more\n"));
    r.write("src/app2.c", &(body(60, "app") + "copy\n"));
    r.remove("gone.txt");
    r.write("here.txt", &body(20, "gone"));
    r.write("there.txt", &body(20, "gone"));
    r.write("empty2", "");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let (a, b) = (ref_for(THREAD, 0), ref_for(THREAD, 1));
    let tree = r.git(&["diff-tree", "-r", "-M", "--name-status", &a, &b]);
    assert!(!tree.contains('C'), "diff-tree -M finds no copies: {tree}");
    let note = r.note(&b);
    assert!(!note.contains("copied"), "{note}");
    let shown = r.t3_json(&["show", "--thread", THREAD]);
    let letter = |k: &str| match k {
        "added" => "A",
        "deleted" => "D",
        "modified" => "M",
        "renamed" => "R",
        other => panic!("{other} in a note"),
    };
    let from_note: Vec<String> = shown["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let old = f["old_path"]
                .as_str()
                .map(|o| format!("{o}\t"))
                .unwrap_or_default();
            format!(
                "{}\t{old}{}",
                letter(f["kind"].as_str().unwrap()),
                f["path"].as_str().unwrap()
            )
        })
        .collect();
    let from_git: Vec<String> = tree
        .lines()
        .map(|l| {
            // `R100` loses its score: the note keeps the kind.
            let (status, rest) = l.split_once('\t').unwrap();
            format!("{}\t{rest}", &status[..1])
        })
        .collect();
    let mut sorted = from_git.clone();
    sorted.sort_by(|x, y| x.rsplit('\t').next().cmp(&y.rsplit('\t').next()));
    assert_eq!(from_note, sorted);
    let rows = crate::util::rows(&shown["files"]);
    let numstat = r.git(&["diff-tree", "-r", "-M", "--numstat", &a, &b]);
    let mut want: Vec<(String, u64, u64)> = numstat
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let path = f[2].rsplit(" => ").next().unwrap().to_owned();
            (path, f[0].parse().unwrap(), f[1].parse().unwrap())
        })
        .collect();
    want.sort();
    assert_eq!(rows, want);
    // The diff itself shows the copies the setting asks for.
    let (mine, theirs) = both(&r, (&a, &b), &[], &["--name-status"]);
    assert_eq!(mine, theirs);
    assert!(
        mine.lines()
            .any(|l| l.starts_with('C') && l.ends_with("\tsrc/app.c\tsrc/app2.c")),
        "{mine}"
    );
}
