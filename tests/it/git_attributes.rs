//! `git t3 diff` under `.gitattributes`: diff drivers (git's built-in ones
//! and configured ones: function names in hunk headers and for `-W`, word
//! regexes, `binary`, `algorithm`), `binary`, `-diff` and `diff`, the
//! `whitespace` attribute, and the word regexes of the command line and
//! `diff.wordRegex` — each compared byte for byte with `git diff` of the
//! same checkpoints, run in the test.

use crate::util::{THREAD, TestRepo, ref_for};

const ATTRIBUTES: &str = "\
*.c diff=cpp
*.py diff=python
*.rs diff=rust
*.sh diff=bash
*.md diff=markdown
*.dat -diff
*.bin binary
*.nul diff
*.cfg diff=custom
*.ini diff=basic
*.blob diff=blobby
*.tc diff=conv
*.ws whitespace=tab-in-indent,-space-before-tab
*.all whitespace
*.none -whitespace
";

/// Settings of configured drivers the fixture's attributes name.
const DRIVERS: &[&str] = &[
    "diff.custom.xfuncname=^\\[([a-z0-9]+)\\]",
    "diff.basic.funcname=^section \\(.*\\)$",
];

/// `n` functions of a language (`shape(i, body)`), function `i` with
/// `edit(i)` in its body.
fn functions(n: usize, shape: fn(usize, &str) -> String, edit: impl Fn(usize) -> String) -> String {
    (0..n).map(|i| shape(i, &edit(i))).collect()
}

fn c_function(i: usize, body: &str) -> String {
    format!(
        "static int f{i}(int x)\n{{\n\tint y = x;\nagain:\n\ty++;\n\ty++;\n\ty++;\n\ty++;\n\ty += {body};\n\tif (y > 9)\n\t\tgoto again;\n\treturn y;\n}}\n\n"
    )
}

fn python_function(i: usize, body: &str) -> String {
    let kind = if i.is_multiple_of(2) { "async def" } else { "def" };
    format!(
        "class K{i}:\n    {kind} m{i}(self, x):\n        y = x\n        y += {body}\n        return y\n\n"
    )
}

fn rust_function(i: usize, body: &str) -> String {
    format!(
        "impl S{i} {{\n    pub(crate) fn f{i}(&self) -> u32 {{\n        let y = 1;\n        y + {body}\n    }}\n}}\n\n"
    )
}

fn bash_function(i: usize, body: &str) -> String {
    format!("function f{i}() {{\n  local y=1\n  echo \"$y {body}\"\n  return 0\n}}\n\n")
}

fn markdown_section(i: usize, body: &str) -> String {
    format!("## Section {i}\n\nSome text.\nMore {body} text.\nThe end.\n\n")
}

/// The files of the fixture, before (`after` false) or after the turn.
fn write_files(r: &TestRepo, after: bool) {
    let edit = |changed: &'static [usize]| {
        move |i: usize| {
            if after && changed.contains(&i) {
                format!("{} * 10", i + 1)
            } else {
                format!("{}", i + 1)
            }
        }
    };
    r.write("src/code.c", &functions(6, c_function, edit(&[1, 4])));
    r.write("code.py", &functions(6, python_function, edit(&[0, 5])));
    r.write("code.rs", &functions(5, rust_function, edit(&[2])));
    r.write("run.sh", &functions(4, bash_function, edit(&[3])));
    r.write("doc.md", &functions(5, markdown_section, edit(&[2])));
    let sections = |tag: &str| -> String {
        (0..5)
            .map(|i| {
                format!(
                    "[s{i}]\na = 1\nb = 2\nc = {}\nd = 4\n",
                    if i == 3 { tag } else { "3" }
                )
            })
            .collect()
    };
    r.write("conf.cfg", &sections(if after { "30" } else { "3" }));
    let basic: String = (0..4)
        .map(|i| {
            format!(
                "section s{i}\n one\n two\n {}\n four\n",
                if after && i == 2 { "THREE" } else { "three" }
            )
        })
        .collect();
    r.write("basic.ini", &basic);
    let v = if after { "changed" } else { "plain" };
    r.write("bin/data.dat", &format!("text that is {v}\nsecond line\n"));
    r.write("bin/image.bin", &format!("also text, {v}\n"));
    r.write_bytes("text.nul", format!("a\0b {v}\nsecond\0line\n").as_bytes());
    r.write("thing.blob", &format!("configured binary {v}\n"));
    r.write("conv.tc", &format!("converted {v}\n"));
    r.write(
        "mix.ws",
        if after {
            "x\n\tindented \n    spaced\n"
        } else {
            "x\n"
        },
    );
    r.write(
        "mix.all",
        if after {
            "x\n \tboth \n        eight\n\n"
        } else {
            "x\n"
        },
    );
    r.write("mix.none", if after { "x\n \tboth \n\n" } else { "x\n" });
    r.write(
        "words.txt",
        if after {
            "the quick red fox leaps over the lazy cat\ncall(foo_bar, 42) + qux;\n"
        } else {
            "the quick brown fox jumps over the lazy dog\ncall(foo_baz, 41) + qux;\n"
        },
    );
    // Myers and patience pair these differently (a driver's algorithm
    // stays in force for the files after it).
    let later = if after {
        "c\nb\ny\nc\nc\nx\na\nx\nc\nc\n"
    } else {
        "c\nb\nc\na\nc\nx\nx\ny\nc\nc\n"
    };
    r.write("zz-later.txt", later);
    // The same before every driver: git's stat pass leaves the last
    // driver's algorithm set, and a patch after a stat inherits it.
    r.write("aa-early.txt", later);
    if after {
        // An empty file added at a binary path: the header alone.
        r.write("bin/empty.dat", "");
        // Renamed from a binary path to a text one: the old side decides.
        std::fs::remove_file(r.root.join("moved.dat")).ok();
        r.write("moved.txt", "one\ntwo\nthree\nfour\nfive, changed\n");
    } else {
        r.write("moved.dat", "one\ntwo\nthree\nfour\nfive\n");
    }
}

/// A turn over a file of every attribute; the two checkpoints.
fn fixture() -> (TestRepo, String, String) {
    let r = TestRepo::seeded();
    r.write(".gitattributes", ATTRIBUTES);
    write_files(&r, false);
    r.commit_all("before");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    write_files(&r, true);
    r.t3(&["capture", "--thread", THREAD]).ok();
    (r, ref_for(THREAD, 0), ref_for(THREAD, 1))
}

/// git-t3's diff of the turn and git's of the same checkpoints, each with
/// `config` (`-c` pairs) and `args`; git-t3 must succeed.
fn both(r: &TestRepo, (a, b): (&str, &str), config: &[&str], args: &[&str]) -> (String, String) {
    let conf: Vec<&str> = config.iter().flat_map(|c| ["-c", *c]).collect();
    let mine = r.git_in(&r.root, &[&conf[..], &crate::util::TURN_1_DIFF, args].concat());
    let theirs = r
        .git_in(&r.root, &[&conf[..], &["diff", "-M"], args, &[a, b]].concat())
        .ok();
    assert_eq!(mine.code, 0, "{config:?} {args:?}: {}", mine.stderr);
    (
        String::from_utf8_lossy(&mine.stdout).into_owned(),
        String::from_utf8_lossy(&theirs.stdout).into_owned(),
    )
}

/// Every case of `cases` under every output of `outputs`: the ones whose
/// output differs from git's, with the first differing line.
fn mismatches(
    r: &TestRepo,
    sides: (&str, &str),
    cases: &[(&[&str], &[&str])],
    outputs: &[&[&str]],
) -> Vec<String> {
    let mut bad = Vec::new();
    for (config, args) in cases {
        for output in outputs {
            let config = [DRIVERS, config].concat();
            let args = [*args, *output].concat();
            let (mine, theirs) = both(r, sides, &config, &args);
            assert!(!theirs.is_empty(), "{config:?} {args:?}: git printed nothing");
            if mine != theirs {
                let at = mine.lines().zip(theirs.lines()).position(|(m, t)| m != t);
                bad.push(format!(
                    "{config:?} {args:?}: first difference at line {at:?}\n--- git-t3\n{mine}\n--- git\n{theirs}"
                ));
            }
        }
    }
    bad
}

#[test]
fn drivers_binary_and_whitespace_attributes_print_what_git_prints() {
    let (r, a, b) = fixture();
    let outputs: &[&[&str]] = &[
        &[],
        &["-W"],
        &["--stat"],
        &["--numstat"],
        &["--word-diff=porcelain"],
        &["--color-words"],
        &["--color"],
        &["--binary"],
        &["--dirstat=0"],
        &["--stat", "-p"],
        &["--dirstat=lines,0", "-p"],
    ];
    let cases: &[(&[&str], &[&str])] = &[
        (&[], &[]),
        (&["diff.blobby.binary=true"], &[]),
        (&["diff.cpp.binary=true", "diff.markdown.binary=false"], &[]),
        // A driver's algorithm, for its file and every file after it.
        (&["diff.python.algorithm=patience"], &[]),
        (&["diff.python.algorithm=patience"], &["--histogram"]),
        (&["core.whitespace=tabwidth=4"], &[]),
        (&["diff.default.xfuncname=^(.)"], &[]),
    ];
    let mut bad = mismatches(&r, (&a, &b), cases, outputs);
    // (git adds the patch to a stat given -U: patches only.)
    bad.extend(mismatches(
        &r,
        (&a, &b),
        &[(&[], &["-U1"])],
        &[&[], &["-W"], &["--color"]],
    ));
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    // The fixture means what it says: git itself shows these.
    let (_, git) = both(&r, (&a, &b), DRIVERS, &[]);
    for expected in [
        // cpp skips the label `again:` above the hunk.
        "@@ -20,7 +20,7 @@ static int f1(int x)",
        "@@ -31,6 +31,6 @@ async def m4(self, x):",
        "@@ -15,7 +15,7 @@ pub(crate) fn f1(&self) -> u32 {",
        "@@ -18,7 +18,7 @@ function f2() {",
        "@@ -13,7 +13,7 @@ ## Section 1",
        // Configured patterns: extended, basic; the first group shown.
        "@@ -16,7 +16,7 @@ s2",
        "@@ -11,7 +11,7 @@ s1",
        "Binary files a/bin/data.dat and b/bin/data.dat differ",
        "Binary files a/bin/image.bin and b/bin/image.bin differ",
        "Binary files a/moved.dat and b/moved.txt differ",
        "-a\0b plain",
    ] {
        assert!(
            git.contains(expected),
            "git's own diff lacks {expected:?}:\n{git}"
        );
    }
}

#[test]
fn word_regexes_split_words_as_git_does() {
    let (r, a, b) = fixture();
    // (`--word-diff=color` keeps a regex given before it.)
    let outputs: &[&[&str]] = &[
        &["--word-diff=porcelain"],
        &["--word-diff"],
        &["--word-diff=color"],
    ];
    let cases: &[(&[&str], &[&str])] = &[
        (&[], &["--word-diff-regex=[a-z]+|[0-9]"]),
        (&[], &["--word-diff-regex=."]),
        (&[], &["--word-diff-regex=^|x*"]),
        (&["diff.wordRegex=[^[:space:]_]+"], &[]),
        (
            &["diff.wordRegex=[^[:space:]_]+"],
            &["--word-diff-regex=[[:alpha:]]"],
        ),
        // A driver's own word regex, from the config over the built-in.
        (&["diff.cpp.wordRegex=[a-z]"], &[]),
        (&["diff.custom.wordRegex=[0-9]+|[a-z]"], &[]),
    ];
    let bad = mismatches(&r, (&a, &b), cases, outputs);
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    // --color-words=<regex> is that regex with colour; the options replace
    // each other's regex in their order, as git's.
    let last_wins: &[(&[&str], &[&str])] = &[
        (&[], &["--color-words=[a-z]+"]),
        (&[], &["--word-diff-regex=[a-z]+", "--color-words"]),
        (&[], &["--color-words=[a-z]+", "--word-diff-regex=[0-9]+"]),
        (&[], &["--word-diff-regex", "[a-z]+"]),
        (
            &[],
            &[
                "--word-diff-regex=[a-z]+",
                "--word-diff=none",
                "--word-diff-regex=.",
            ],
        ),
        (&[], &["--color-words=[a-z]+", "--word-diff=porcelain"]),
    ];
    let bad = mismatches(&r, (&a, &b), last_wins, &[&[]]);
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}

/// git's built-in word regexes match whole UTF-8 characters either way: in
/// a single-byte locale by an alternative listed after a single byte
/// (which POSIX's leftmost-longest match prefers), in a UTF-8 locale as
/// characters.
#[test]
fn word_regexes_in_single_byte_and_utf8_locales() {
    let r = TestRepo::seeded();
    r.write(".gitattributes", "*.c diff=cpp\n*.txt diff=basic\n");
    r.write("w.c", "int \u{e9}t\u{e9} = na\u{ef}ve(\u{fc}ber);\n");
    r.write("w.txt", "caf\u{e9} cr\u{e8}me br\u{fb}l\u{e9}e\n");
    r.commit_all("before");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("w.c", "int \u{e9}t\u{e8} = na\u{ef}f(\u{fc}bel);\n");
    r.write("w.txt", "caf\u{e8} cr\u{e9}me brul\u{e9}e\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let (a, b) = (ref_for(THREAD, 0), ref_for(THREAD, 1));
    let outputs: &[&[&str]] = &[&["--word-diff=porcelain"], &["--word-diff=color"]];
    let cases: &[(&[&str], &[&str])] = &[
        (&[], &[]),
        (&[], &["--word-diff-regex=[[:alpha:]]+"]),
        (&[], &["--word-diff-regex=."]),
        (&["diff.basic.wordRegex=[^[:space:]]"], &[]),
    ];
    let mut bad = mismatches(&r, (&a, &b), cases, outputs);
    r.extra_env_set("LC_ALL", "C.UTF-8");
    bad.extend(mismatches(&r, (&a, &b), cases, outputs));
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}

/// `git diff A B` reads the worktree's `.gitattributes` (and
/// `info/attributes`, which wins) and no index: without the worktree's
/// file, nothing applies.
#[test]
fn attributes_come_from_where_git_reads_them() {
    let (r, a, b) = fixture();
    let outputs: &[&[&str]] = &[&[], &["--numstat"]];
    std::fs::write(
        r.root.join(".git/info/attributes"),
        "*.dat diff\nsrc/code.c -diff\n",
    )
    .unwrap();
    let mut bad = mismatches(&r, (&a, &b), &[(&[], &[])], outputs);
    std::fs::remove_file(r.root.join(".git/info/attributes")).unwrap();
    std::fs::remove_file(r.root.join(".gitattributes")).unwrap();
    bad.extend(mismatches(&r, (&a, &b), &[(&[], &[])], outputs));
    let attributes = r.tmp().join("attributes");
    std::fs::write(&attributes, "*.txt -diff\n").unwrap();
    let global = format!("core.attributesFile={}", attributes.display());
    bad.extend(mismatches(&r, (&a, &b), &[(&[&global], &[])], outputs));
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}

/// A driver that runs a program (`textconv`, or `command` as the whole
/// diff) is refused by name in a patch; counts never run it, as in git.
#[test]
fn textconv_and_external_diff_drivers_are_refused_by_name() {
    let (r, a, b) = fixture();
    for setting in ["diff.conv.textconv=cat", "diff.conv.command=false"] {
        let run = r
            .git_in(&r.root, &["-c", setting, "t3", "diff", "--thread", THREAD])
            .fails(2);
        let key = setting.split('=').next().unwrap();
        assert!(run.stderr.contains(key), "{setting}: {}", run.stderr);
        assert!(run.stderr.contains("conv.tc"), "{setting}: {}", run.stderr);
        assert_eq!(run.stderr.trim_end().lines().count(), 1, "{}", run.stderr);
        let bad = mismatches(&r, (&a, &b), &[(&[setting], &[])], &[&["--numstat"], &["--stat"]]);
        assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    }
    // A funcname pattern git cannot compile stops the diff, as git's does.
    let run = r
        .git_in(
            &r.root,
            &["-c", "diff.custom.xfuncname=(", "t3", "diff", "--thread", THREAD],
        )
        .fails(1);
    assert!(run.stderr.contains("diff.custom"), "{}", run.stderr);
}
