//! `git t3 diff`'s command line read as `git diff` reads it, each case
//! compared with `git diff` of the same two checkpoints run in the test:
//! several outputs at once in git's order (and the patch after them),
//! the last of contradicting options winning, values given as the next
//! argument, settings git refuses refused, unknown options refused
//! without a panic.

use crate::util::{Run, THREAD, TURN_1_DIFF, TestRepo, ref_for, turn_diff_and_git};

/// A turn with something for every output: files changed in several
/// directories (for `--dirstat`), long names (for `--stat`'s widths), a
/// rename, a mode change, an added, a deleted and a binary file, a
/// whitespace-only change and a function (for `-W`).
fn fixture() -> (TestRepo, String, String) {
    let r = TestRepo::new();
    let lines = |n: usize, tag: &str| -> String { (1..=n).map(|i| format!("{tag} line {i}\n")).collect() };
    r.write("top.txt", &lines(20, "top"));
    r.write("src/parse/lexer.rs", &lines(40, "lexer"));
    r.write("src/parse/tokens.rs", &lines(10, "tokens"));
    r.write(
        "src/main.rs",
        "fn main() {\n    let a = 1;\n    let b = 2;\n    println!(\"{}\", a + b);\n}\n",
    );
    r.write("docs/guide/chapter one.md", &lines(30, "chapter"));
    r.write("docs/gone.md", &lines(6, "gone"));
    r.write(
        "a/rather/deep/directory/with/a-file-name-long-enough-to-be-cut-in-the-stat.txt",
        &lines(5, "deep"),
    );
    r.write("run.sh", "echo run\n");
    r.write("docs/ws.txt", "one two\nthree\n");
    r.write_bytes("data.bin", b"\0\x01\x02 binary\n");
    r.commit_all("before");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write(
        "top.txt",
        &lines(20, "top").replace("top line 3\n", "top line three\n"),
    );
    r.write(
        "src/parse/lexer.rs",
        &lines(40, "lexer")
            .replace("lexer line 5\n", "")
            .replace("lexer line 30\n", "lexer line thirty\nlexer line 30b\n"),
    );
    r.write("src/parse/tokens.rs", &(lines(10, "tokens") + "tokens line 11\n"));
    r.write(
        "src/main.rs",
        "fn main() {\n    let a = 1;\n    let b = 20;\n    println!(\"{}\", a + b);\n}\n",
    );
    std::fs::rename(
        r.root.join("docs/guide/chapter one.md"),
        r.root.join("docs/guide/chapter 1.md"),
    )
    .unwrap();
    r.remove("docs/gone.md");
    r.write("docs/new.md", &lines(4, "new"));
    r.write(
        "a/rather/deep/directory/with/a-file-name-long-enough-to-be-cut-in-the-stat.txt",
        &lines(7, "deep"),
    );
    r.chmod("run.sh", 0o755);
    r.write("docs/ws.txt", "one  two\nthree\n");
    r.write_bytes("data.bin", b"\0\x01\x02 binary, changed\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    (r, ref_for(THREAD, 0), ref_for(THREAD, 1))
}

/// `git t3 diff --turn 1 ARGS` and `git diff -M ARGS A B`, under `config`
/// (`git -c`).
fn runs(r: &TestRepo, sides: (&str, &str), config: &[&str], args: &[&str]) -> (Run, Run) {
    let (mine, theirs) = turn_diff_and_git(r, sides, config, &["-M"], args);
    assert!(
        !mine.stderr.contains("panicked"),
        "{config:?} {args:?}: {}",
        mine.stderr
    );
    (mine, theirs)
}

/// Both succeed (or both fail, as `fail` says) and print the same bytes.
#[track_caller]
fn same(r: &TestRepo, sides: (&str, &str), config: &[&str], args: &[&str]) {
    let (mine, theirs) = runs(r, sides, config, args);
    assert_eq!(
        (mine.code == 0, mine.code == 1),
        (theirs.code == 0, theirs.code == 1),
        "-c {config:?} diff {args:?}: git exited {} ({}), git-t3 {} ({})",
        theirs.code,
        theirs.stderr,
        mine.code,
        mine.stderr
    );
    assert!(
        mine.stdout == theirs.stdout,
        "-c {config:?} diff {args:?}:\n--- git-t3\n{}\n--- git\n{}",
        mine.out(),
        theirs.out()
    );
}

/// git refuses `args`; so does git-t3, with one line and no panic.
#[track_caller]
fn both_refuse(r: &TestRepo, sides: (&str, &str), config: &[&str], args: &[&str], code: i32) {
    let (mine, theirs) = runs(r, sides, config, args);
    assert!(theirs.code > 1, "setup: git accepts -c {config:?} diff {args:?}");
    mine.fails(code);
}

#[test]
fn several_outputs_print_together_in_gits_order() {
    let (r, a, b) = fixture();
    let sides = (a.as_str(), b.as_str());
    let cases: &[&[&str]] = &[
        &["--stat", "--numstat"],
        &["--numstat", "--stat"],
        &["--numstat", "--shortstat"],
        &["--stat", "--summary"],
        &["--summary", "--numstat", "--shortstat"],
        &["--stat", "--numstat", "--shortstat", "--summary", "--dirstat=0"],
        &["--dirstat=lines,0", "--stat", "--summary"],
        &["--dirstat=files,0", "--numstat"],
        &["--compact-summary", "--numstat"],
        &["--compact-summary", "--summary", "--shortstat"],
        // The patch after the others, and git's separator line.
        &["--stat", "-p"],
        &["-p", "--stat"],
        &["--stat", "-U1"],
        &["--numstat", "--unified=0"],
        &["--numstat", "--binary"],
        &["--summary", "-p"],
        &["--shortstat", "-p"],
        &["--dirstat=0", "-p"],
        &["--dirstat=lines,0", "-p"],
        &["--stat", "-z", "-p"],
        &["--numstat", "-z", "-p"],
        &["--summary", "-z", "-p"],
        &["--patch-with-stat"],
        &["-u", "--numstat"],
        &["--compact-summary", "-p"],
        &["--stat", "--summary", "-w", "-p"],
        &["--dirstat=files,0", "-b", "--stat"],
        // -W and the word diff change the patch, they do not ask for it.
        &["--stat", "-W"],
        &["--stat", "--word-diff"],
        &["--numstat", "--color-words"],
        // The names shut out every other output.
        &["--stat", "--name-only"],
        &["--name-status", "--stat", "-p"],
        &["--summary", "--name-only", "-z"],
        // -s: nothing, but what comes after it.
        &["-s"],
        &["--no-patch"],
        &["--stat", "-s"],
        &["-s", "--stat"],
        &["-p", "-s", "--numstat"],
        &["--name-only", "-s"],
        &["--stat", "--no-patch", "-p"],
        &["-U1", "-s"],
        &["--name-status", "-s", "--stat"],
        // --stat's count of files, -X and its synonyms.
        &["--stat=80,20,2"],
        &["--stat=,,1", "-p"],
        &["-X"],
        &["-Xfiles,0", "--stat"],
        &["--cumulative", "--dirstat=0"],
        &["--dirstat-by-file=0", "--numstat"],
    ];
    for args in cases {
        same(&r, sides, &[], args);
    }
    // Only one of the names, or -s.
    for args in [
        &["--name-only", "--name-status"][..],
        &["-s", "--name-only"],
        &["--name-status", "-s", "--name-only"],
    ] {
        both_refuse(&r, sides, &[], args, 2);
    }
}

#[test]
fn the_last_of_contradicting_options_wins_as_in_git() {
    let (r, a, b) = fixture();
    let sides = (a.as_str(), b.as_str());
    let cases: &[(&[&str], &[&str])] = &[
        (&[], &["--color-words", "--no-color"]),
        (&[], &["--word-diff=porcelain", "--word-diff"]),
        (&[], &["--word-diff=color", "--word-diff"]),
        (&[], &["--color-words", "--word-diff=plain"]),
        (&[], &["--color-words", "--word-diff=none"]),
        (&[], &["--word-diff=color", "--no-color"]),
        (&[], &["--color=always", "--no-color"]),
        (&[], &["--no-color", "--color=always", "--stat"]),
        (&[], &["--color=ALWAYS", "--color=never"]),
        (&[], &["--src-prefix=x/", "--no-prefix"]),
        (&[], &["--no-prefix", "--src-prefix=x/"]),
        (&[], &["--src-prefix=x/", "--default-prefix"]),
        (&[], &["--default-prefix", "--no-prefix"]),
        (&[], &["--no-prefix", "--default-prefix", "--dst-prefix=y/"]),
        (&["diff.noprefix=true"], &["--src-prefix=x/"]),
        (&["diff.srcPrefix=s/", "diff.dstPrefix=d/"], &[]),
        (&["diff.srcPrefix=s/"], &["--default-prefix"]),
        (&["diff.srcPrefix=s/", "diff.mnemonicPrefix=true"], &[]),
        (&[], &["--diff-filter=M", "--diff-filter=A", "--name-status"]),
        (&[], &["--diff-filter=m", "--diff-filter=A", "--name-status"]),
        (&[], &["--diff-filter=M", "--diff-filter=m", "--name-status"]),
        (&[], &["--diff-filter=Aa", "--name-status"]),
        (&[], &["--diff-filter=*"]),
        (&[], &["--diff-filter=M*", "--stat"]),
        (&[], &["--diff-filter=X*"]),
        (&[], &["--diff-filter=d*"]),
        (&[], &["--minimal", "--patience"]),
        (&[], &["--patience", "--minimal"]),
        (&[], &["--histogram", "--diff-algorithm=myers"]),
        (&[], &["--diff-algorithm=patience", "--histogram"]),
        (&[], &["--diff-algorithm=Histogram"]),
        (&["diff.algorithm=Patience"], &[]),
        (&[], &["-U3", "-U1"]),
        (&[], &["-U1", "-U"]),
        (&[], &["--unified=2", "-U5"]),
        (&[], &["--stat=50", "--stat"]),
        (&[], &["--stat=40,10", "--stat=60"]),
        (&[], &["--stat=0"]),
        (&[], &["--stat=-1"]),
        (&[], &["-W", "--no-function-context"]),
        (&[], &["--no-function-context", "-W"]),
        (&[], &["--abbrev=10", "--no-abbrev"]),
        (&[], &["--no-abbrev", "--abbrev=9"]),
        (&[], &["--abbrev=12x"]),
        (&[], &["--abbrev=-1"]),
        (&[], &["--abbrev=3"]),
        (&[], &["--abbrev="]),
        (&[], &["--abbrev=x"]),
        (&["core.abbrev=50"], &[]),
        (&["core.abbrev=no"], &["--abbrev=8"]),
        (&[], &["--dirstat=files", "--dirstat=0"]),
        (&[], &["--dirstat=lines,0", "--dirstat=changes"]),
        (&["diff.dirstat=lines,0"], &["--dirstat=files"]),
        (&[], &["--stat", "--compact-summary", "--no-compact-summary"]),
        (&[], &["--no-compact-summary", "--compact-summary"]),
        (&[], &["--exit-code", "--no-exit-code"]),
        (&[], &["--no-exit-code", "--exit-code", "--stat"]),
        (&[], &["--indent-heuristic", "--no-indent-heuristic"]),
    ];
    for (config, args) in cases {
        same(&r, sides, config, args);
    }
}

/// git takes an option's required value as the next argument; an optional
/// one only attached (`-U5`, `--stat=50`).
#[test]
fn values_given_as_the_next_argument_are_read_as_git_reads_them() {
    let (r, a, b) = fixture();
    let sides = (a.as_str(), b.as_str());
    let cases: &[&[&str]] = &[
        &["--diff-filter", "M"],
        &["--diff-filter", "M", "--diff-filter", "a"],
        &["--src-prefix", "x/"],
        &["--dst-prefix", "y/", "--src-prefix", "-x/"],
        &["--inter-hunk-context", "20"],
        &["--diff-algorithm", "histogram"],
        &["-U0"],
        &["-U", "--stat"],
    ];
    for args in cases {
        same(&r, sides, &[], args);
    }
    for args in [
        &["-U", "2"][..],
        &["--unified", "2"],
        &["--stat", "50"],
        &["--abbrev", "10"],
        &["--word-diff", "plain"],
        &["--dirstat", "files"],
    ] {
        let (mine, theirs) = runs(&r, sides, &[], args);
        assert!(theirs.code > 1, "setup: git accepts {args:?}");
        assert_eq!(mine.code, 2, "{args:?}: {}", mine.stderr);
    }
    // --output FILE writes there what git writes, coloured only when
    // colour is `always` (--color-words is) where --output comes.
    let (mine, theirs) = (r.tmp().join("mine.patch"), r.tmp().join("theirs.patch"));
    let (m, t) = (mine.display().to_string(), theirs.display().to_string());
    for (config, args) in [
        (&[][..], &["--stat", "--output", "FILE", "-p"][..]),
        (&[], &["--color-words", "--output", "FILE"]),
        (&[], &["--output=FILE", "--color=always", "--stat"]),
        (&[], &["--color=always", "--output", "FILE", "--no-color"]),
        (&["color.diff=always"], &["--output=FILE"]),
    ] {
        let conf: Vec<&str> = config.iter().flat_map(|c| ["-c", *c]).collect();
        let with = |file: &str| -> Vec<String> { args.iter().map(|a| a.replace("FILE", file)).collect() };
        let (mine_args, their_args) = (with(&m), with(&t));
        let mine_args: Vec<&str> = mine_args.iter().map(String::as_str).collect();
        let their_args: Vec<&str> = their_args.iter().map(String::as_str).collect();
        let run = r.git_in(&r.root, &[&conf[..], &TURN_1_DIFF, &mine_args].concat());
        assert!(run.ok().stdout.is_empty(), "{args:?}: nothing on stdout");
        r.git_in(
            &r.root,
            &[&conf[..], &["diff", "-M"], &their_args, &[&a, &b]].concat(),
        )
        .ok();
        assert_eq!(
            std::fs::read(&mine).unwrap(),
            std::fs::read(&theirs).unwrap(),
            "{config:?} {args:?}"
        );
    }
}

/// Settings git dies on stop git-t3 too, one line naming them; those git
/// reads its own way are read so; `diff.dirstat`'s unknown parameters are
/// a warning, as in git.
#[test]
fn settings_git_refuses_are_refused() {
    let (r, a, b) = fixture();
    let sides = (a.as_str(), b.as_str());
    for setting in [
        "diff.algorithm=bogus",
        "core.abbrev=3",
        "core.abbrev=0",
        "core.abbrev=x",
        "diff.noprefix=maybe",
        "diff.mnemonicPrefix=x",
        "diff.indentHeuristic=x",
        "diff.suppressBlankEmpty=x",
        "diff.context=-1",
        "diff.interHunkContext=x",
        "color.diff.old=bogus",
        "color.diff=maybe",
        "color.ui=x",
        "color.pager=x",
        "core.quotePath=x",
        "diff.renames=maybe",
        "diff.renameLimit=x",
        "diff.statGraphWidth=x",
        "diff.statNameWidth=x",
    ] {
        let (mine, theirs) = runs(&r, sides, &[setting], &[]);
        assert_eq!(theirs.code, 128, "setup: git accepts {setting}");
        let mine = mine.fails(1);
        let key = setting.split('=').next().unwrap();
        assert!(mine.stderr.contains(key), "{setting}: {}", mine.stderr);
    }
    for setting in [
        "core.abbrev=no",
        "core.abbrev=41",
        "core.abbrev=auto",
        "diff.noprefix=2",
        "diff.renames=copies",
        "color.diff=auto",
        "color.ui=never",
    ] {
        same(&r, sides, &[setting], &["--stat", "-p"]);
    }
    for (setting, args) in [
        ("diff.dirstat=bogus", &[][..]),
        ("diff.dirstat=lines,bogus,0", &["--dirstat"][..]),
        ("diff.dirstat=5%", &["--dirstat"][..]),
    ] {
        same(&r, sides, &[setting], args);
        let (mine, theirs) = runs(&r, sides, &[setting], args);
        assert!(
            theirs.stderr.contains("Found errors in 'diff.dirstat'"),
            "setup: {}",
            theirs.stderr
        );
        assert!(
            mine.stderr
                .contains("Found errors in 'diff.dirstat' config variable"),
            "{setting}: {}",
            mine.stderr
        );
    }
}

/// An option git-t3 does not know is clap's usage error; odd values are
/// refused or read, never a panic.
#[test]
fn unknown_options_and_odd_values_never_panic() {
    let (r, a, b) = fixture();
    let sides = (a.as_str(), b.as_str());
    // git's options git-t3 does not have, and options nobody has.
    for args in [
        &["--bogus-option"][..],
        &["--stat-count=3"],
        &["--raw"],
        &["--check"],
    ] {
        let (mine, _) = runs(&r, sides, &[], args);
        assert_eq!(mine.code, 2, "{args:?}: {}", mine.stderr);
    }
    for args in [
        &["--word-diff=bogus"][..],
        &["--color=sometimes"],
        &["--diff-filter=Q"],
        &["--dirstat=bogus"],
        &["--dirstat=lines,"],
        &["--dirstat=bogus", "-s"],
        &["--stat=50x"],
        &["--unified=x"],
        &["--diff-algorithm=bogus"],
    ] {
        let (mine, theirs) = runs(&r, sides, &[], args);
        assert!(theirs.code > 1, "setup: git accepts {args:?}");
        assert_eq!(mine.code, 2, "{args:?}: {}", mine.stderr);
    }
    for args in [
        &["--stat=99999999999999999999"][..],
        &["--stat=1,99999999999999999999,99999999999"],
        &["--abbrev=99999999999999999999999"],
        &["--dirstat=99999999999999999999"],
        &["-U99999999999"],
        &["--inter-hunk-context=99999999999"],
        &["--src-prefix="],
    ] {
        let (mine, _) = runs(&r, sides, &[], args);
        assert!(mine.code == 0 || mine.code == 2, "{args:?}: {}", mine.stderr);
    }
}
