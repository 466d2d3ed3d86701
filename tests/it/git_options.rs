//! `git t3 diff` under git's diff options and settings, each compared byte
//! for byte with `git diff` of the same two checkpoints, run in the test;
//! the options git-t3 does not do are refused by name, never ignored.

use crate::util::{THREAD, TestRepo, ref_for, turn_diff_and_git};

/// A turn with something for every option: modified, added, deleted and
/// renamed files (names with spaces, non-ASCII and wide characters, long
/// paths), a mode change, a binary file, whitespace-only and blank-line
/// edits, hunks a few lines apart, an empty context line.
fn fixture() -> (TestRepo, String, String) {
    let r = TestRepo::seeded();
    let body = |n: usize, tag: &str| -> String { (1..=n).map(|i| format!("{tag} line {i}\n")).collect() };
    let mut close = String::new();
    for i in 1..=40 {
        close.push_str(&format!("row {i}\n"));
        if i % 10 == 0 {
            close.push('\n');
        }
    }
    r.write("close.txt", &close);
    r.write("gone.txt", &body(12, "gone"));
    r.write("dir with space/old name.txt", &body(30, "moved"));
    r.write("t3-\u{fc}n\u{ef}/a-e\u{301}.txt", &body(25, "accent"));
    r.write("wide/\u{65e5}\u{672c}\u{8a9e}\u{306e}\u{540d}\u{524d}\u{304c}\u{3068}\u{3066}\u{3082}\u{9577}\u{3044}.txt", &body(10, "wide"));
    r.write(
        "deep/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/a-very-long-file-name-for-the-stat.txt",
        &body(8, "deep"),
    );
    r.write("spaces.txt", "a b\nc  d\ne\t f\n\nend\n");
    r.write("script.sh", "echo hi\n");
    r.write("blob.bin", "\0\u{1}\u{2}binary\n");
    r.write("func.c", "int main(void)\n{\n\tint a = 1;\n\tint b = 2;\n\tint c = 3;\n\tint d = 4;\n\treturn a + b + c + d;\n}\n");
    let blanks = functions_and_blanks(&r);
    r.commit_all("before");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let changed: String = close
        .replace("row 3\n", "row three\n")
        .replace("row 12\n", "row twelve\n")
        .replace("row 21\n", "")
        .replace("row 30\n", "row thirty\nrow thirty-one\n");
    r.write("close.txt", &changed);
    std::fs::remove_file(r.root.join("gone.txt")).unwrap();
    std::fs::rename(
        r.root.join("dir with space/old name.txt"),
        r.root.join("dir with space/new name.txt"),
    )
    .unwrap();
    r.write("dir with space/new name.txt", &(body(30, "moved") + "one more\n"));
    std::fs::rename(
        r.root.join("t3-\u{fc}n\u{ef}/a-e\u{301}.txt"),
        r.root.join("t3-\u{fc}n\u{ef}/a-o\u{308}.txt"),
    )
    .unwrap();
    r.write("wide/\u{65e5}\u{672c}\u{8a9e}\u{306e}\u{540d}\u{524d}\u{304c}\u{3068}\u{3066}\u{3082}\u{9577}\u{3044}.txt", &body(14, "wide"));
    r.write(
        "deep/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/a-very-long-file-name-for-the-stat.txt",
        &body(9, "deep"),
    );
    r.write("spaces.txt", "a  b\nc d\ne \t f  \n\nend\nnew\n");
    std::fs::set_permissions(
        r.root.join("script.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    r.write("blob.bin", "\0\u{1}\u{2}binary, changed\n");
    r.write("added file.txt", &body(5, "added"));
    r.write("func.c", "int main(void)\n{\n\tint a = 1;\n\tint b = 20;\n\tint c = 3;\n\tint d = 4;\n\treturn a + b + c + d;\n}\n");
    edit_functions_and_blanks(&r, &blanks);
    r.t3(&["capture", "--thread", THREAD]).ok();
    (r, ref_for(THREAD, 0), ref_for(THREAD, 1))
}

/// A function line whose 80th byte falls inside a character: git cuts its
/// hunk header where the UTF-8 stops being whole.
fn cut_function() -> String {
    format!("msgstr  \"{}\"", "\u{30c1}\u{30a7}\u{30c3}\u{30af}".repeat(7))
}

/// Functions one after another, each with `bodies[i]` inside (for `-W`).
fn funcs(bodies: &[&str]) -> String {
    bodies
        .iter()
        .enumerate()
        .map(|(i, b)| format!("int f{i}(void)\n{{\n\tint x = 0;\n{b}\treturn x;\n}}\n\n"))
        .collect()
}

/// Functions (for `-W`) and blank lines (for `--ignore-blank-lines`); the
/// text of `blanks.txt`.
fn functions_and_blanks(r: &TestRepo) -> String {
    r.write(
        "funcs.c",
        &funcs(&[
            "\tx += 1;\n",
            "\tx += 2;\n\tx += 3;\n",
            "",
            "\tx -= 1;\n",
            "\tx *= 2;\n",
        ]),
    );
    let blanks: String = (1..=60)
        .map(|i| {
            if i % 7 == 0 {
                "\n".to_owned()
            } else {
                format!("b{i}\n")
            }
        })
        .collect();
    r.write("blanks.txt", &blanks);
    r.write("only-blank.txt", "a\nb\nc\n");
    r.write("ws/only-space.txt", "a b\n");
    r.write(
        "funcname.po",
        &format!("{}\n\none\ntwo\nthree\nfour\n", cut_function()),
    );
    r.write("no-newline.txt", "first line\nlast words here");
    // A NUL past git's 8000-byte binary sniff: text, with a NUL in a word.
    let filler = "filler line of text\n".repeat(420);
    r.write("late-nul.txt", &format!("{filler}one two\0three four\n"));
    blanks
}

/// The second turn's edits of [`functions_and_blanks`]'s files.
fn edit_functions_and_blanks(r: &TestRepo, blanks: &str) {
    r.write(
        "funcs.c",
        &funcs(&[
            "\tx += 1;\n",
            "\tx += 20;\n\tx += 3;\n",
            "",
            "\tx -= 1;\n\tx -= 5;\n",
            "\tx *= 2;\n",
        ]),
    );
    // Blank lines added and removed near and far from real changes.
    let blanks = blanks
        .replace("b3\n", "b3\n\n")
        .replace("b20\n", "b20\n\n\n")
        .replace("b22\n", "b22 changed\n")
        .replace("b34\n\n", "b34\n")
        .replace("b50\n", "b50\n  \n");
    r.write("blanks.txt", &blanks);
    r.write("only-blank.txt", "a\n\nb\n \nc\n");
    r.write("no-newline.txt", "first line\nlast words there");
    r.write("ws/only-space.txt", "a  b\n");
    r.write(
        "funcname.po",
        &format!("{}\n\none\ntwo\nthree\nfour changed\n", cut_function()),
    );
    // An added file with CRLF lines: --dirstat counts its every byte.
    r.write("crlf/added.txt", &"a line\r\n".repeat(40));
    let filler = "filler line of text\n".repeat(420);
    r.write("late-nul.txt", &format!("{filler}one 2\0three four\n"));
}

/// git-t3's diff of the turn and git's of the same checkpoints, each with
/// `config` (`-c` pairs) and `args`.
fn both(r: &TestRepo, sides: (&str, &str), config: &[&str], args: &[&str]) -> (String, String) {
    let (mine, theirs) = turn_diff_and_git(r, sides, config, &["-M"], args);
    assert_eq!(mine.code, 0, "{config:?} {args:?}: {}", mine.stderr);
    let theirs = theirs.ok();
    (
        String::from_utf8_lossy(&mine.stdout).into_owned(),
        String::from_utf8_lossy(&theirs.stdout).into_owned(),
    )
}

#[test]
fn every_supported_option_and_setting_prints_what_git_prints() {
    let (r, a, b) = fixture();
    let sides = (a.as_str(), b.as_str());
    let outputs: &[&[&str]] = &[
        &[],
        &["--stat"],
        &["--numstat"],
        &["--name-status"],
        &["--shortstat"],
        &["--summary"],
    ];
    let cases: &[(&[&str], &[&str])] = &[
        (&[], &[]),
        (&["core.quotePath=false"], &[]),
        (&[], &["-R"]),
        (&[], &["--diff-filter=M"]),
        (&[], &["--diff-filter=ad"]),
        (&[], &["--diff-filter=RT"]),
        (&["diff.renameLimit=1"], &[]),
        (&[], &["-b"]),
        (&[], &["--ignore-space-at-eol"]),
        (&[], &["-w"]),
        (&[], &["--ignore-blank-lines"]),
        (&[], &["--ignore-blank-lines", "-b"]),
        (&[], &["-W"]),
        (&[], &["-W", "--inter-hunk-context=3"]),
    ];
    let mut compared = 0;
    for (config, args) in cases {
        for output in outputs {
            let args = [*args, *output].concat();
            let (mine, git) = both(&r, sides, config, &args);
            assert_eq!(mine, git, "-c {config:?} diff {args:?}");
            compared += 1;
        }
    }
    // Patch-only options and settings, and stat widths.
    let patch_cases: &[(&[&str], &[&str])] = &[
        (&["core.quotePath=false"], &["--stat=60"]),
        (&["core.quotePath=false"], &["--stat=50,20"]),
        (&["core.quotePath=false"], &["--stat=40,12"]),
        (&[], &["--stat=50,20"]),
        (&[], &["--stat", "--summary"]),
        (&[], &["--numstat", "--summary"]),
        (&[], &["--shortstat", "--summary"]),
        (&[], &["--compact-summary"]),
        (&[], &["--dirstat"]),
        (&[], &["--dirstat=lines"]),
        (&[], &["--dirstat=files,cumulative,1"]),
        (&["diff.dirstat=lines,0"], &["--dirstat"]),
        (&[], &["--dirstat=changes,0.5", "--summary"]),
        (&[], &["--dirstat=0", "-b"]),
        (&[], &["--dirstat=files,0", "--ignore-space-at-eol"]),
        (&[], &["--dirstat=lines,0", "-b"]),
        (&[], &["--stat", "--compact-summary"]),
        (&["core.quotePath=false"], &["--compact-summary", "--stat=50,20"]),
        (&[], &["--ignore-blank-lines", "-U1"]),
        (&[], &["--ignore-blank-lines", "-U0"]),
        (&[], &["-W", "-U1"]),
        (&[], &["-W", "--ignore-blank-lines"]),
        (&[], &["--word-diff"]),
        (&[], &["--word-diff=plain", "-U1"]),
        (&[], &["--word-diff=porcelain"]),
        (&[], &["--word-diff=color"]),
        (&[], &["--color-words"]),
        (
            &["color.diff.old=blue", "color.diff.context=yellow"],
            &["--color-words"],
        ),
        (&[], &["--word-diff", "--color=always"]),
        (&["diff.suppressBlankEmpty=true"], &["--word-diff=porcelain"]),
        (&["diff.context=1"], &[]),
        (&["diff.context=1"], &["-U5"]),
        (&[], &["--inter-hunk-context=4"]),
        (&["diff.interHunkContext=9"], &[]),
        (&["diff.noprefix=true"], &[]),
        (&["diff.noprefix=true"], &["--default-prefix"]),
        (&[], &["--no-prefix"]),
        (&[], &["--src-prefix=old/", "--dst-prefix=new/"]),
        (&[], &["-R", "--src-prefix=old/"]),
        (&["diff.mnemonicPrefix=true"], &[]),
        (&["diff.suppressBlankEmpty=true"], &[]),
        (&["diff.indentHeuristic=false"], &[]),
        (&[], &["--no-indent-heuristic"]),
        (&["diff.indentHeuristic=false"], &["--indent-heuristic"]),
        (&[], &["--abbrev=10"]),
        (&[], &["--binary"]),
        (&["core.compression=9"], &["--binary"]),
        (&[], &["--color=always"]),
        (
            &["color.diff.meta=blue bold", "color.diff.frag=magenta"],
            &["--color=always", "--stat"],
        ),
    ];
    for (config, args) in patch_cases {
        let (mine, git) = both(&r, sides, config, args);
        assert_eq!(mine, git, "-c {config:?} diff {args:?}");
        compared += 1;
    }
    assert!(compared > 60, "setup: {compared} comparisons");
}

/// `--relative` outputs: the stat and dirstat relative, `--summary`'s
/// names whole, as git's.
#[test]
fn relative_outputs_name_files_like_git() {
    let (r, a, b) = fixture();
    let cases: &[&[&str]] = &[
        &["--dirstat=0,cumulative", "--relative=deep/a"],
        &["--compact-summary", "--relative=crlf"],
        &["--summary", "--relative=crlf"],
        &["--summary", "--relative=dir with space"],
        &["--stat", "--summary", "--relative=dir with "],
    ];
    for args in cases {
        let (mine, git) = both(&r, (&a, &b), &[], args);
        assert_eq!(mine, git, "diff {args:?}");
    }
}

/// `--output=FILE` writes there what would have gone to stdout.
#[test]
fn output_writes_the_diff_to_a_file_like_git() {
    let (r, a, b) = fixture();
    let mine = r.tmp().join("mine.patch");
    let theirs = r.tmp().join("theirs.patch");
    let out = r
        .t3(&[
            &crate::util::TURN_1_DIFF[1..],
            &[format!("--output={}", mine.display()).as_str()],
        ]
        .concat())
        .ok();
    assert!(out.stdout.is_empty(), "nothing on stdout");
    r.git_in(
        &r.root,
        &["diff", "-M", &format!("--output={}", theirs.display()), &a, &b],
    )
    .ok();
    assert_eq!(std::fs::read(&mine).unwrap(), std::fs::read(&theirs).unwrap());
}

/// The options git-t3 cannot print as git does are refused by name (exit
/// 2, one line).
#[test]
fn options_not_supported_are_refused_by_name() {
    let (r, _, _) = fixture();
    let option = "--break-rewrites";
    let run = r.t3(&["diff", "--thread", THREAD, option]).fails(2);
    assert_eq!(
        run.stderr.trim_end().lines().count(),
        1,
        "{option}: {}",
        run.stderr
    );
    assert!(run.stderr.contains("not supported"), "{option}: {}", run.stderr);
}
