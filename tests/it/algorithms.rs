//! `diff.algorithm=patience` and the algorithm flags, checked against git
//! itself on generated edits where patience and git's default part ways.

use crate::diff::{c_edit, c_function};
use crate::util::{Rng, THREAD, TURN_1_DIFF, TestRepo, ref_for, rows};

/// Generated text of one of six kinds: C-like functions, blank-line heavy,
/// brace heavy, repeated lines only (no unique line: patience falls back to
/// Myers), mostly unique lines, and whitespace variants with CRs.
/// `scale` times as many lines as the kind has at 1.
fn text(rng: &mut Rng, kind: u64, scale: u64) -> Vec<String> {
    let pick = |rng: &mut Rng, choices: &[&str], extra: String| {
        let k = rng.below(choices.len() as u64 + 1) as usize;
        choices.get(k).map_or(extra, |s| (*s).to_owned())
    };
    let mut lines = Vec::new();
    match kind {
        0 => {
            for _ in 0..(4 + rng.below(6)) * scale {
                lines.extend(c_function(rng));
            }
        }
        _ => {
            let n = (20 + rng.below(60)) * scale;
            for _ in 0..n {
                let extra = format!("u{}", rng.below(if kind == 4 { 10_000 } else { 30 }));
                lines.push(match kind {
                    1 => pick(rng, &["", "", "", "a", "b", "}"], extra),
                    2 => pick(rng, &["{", "}", "", "  {", "  }"], extra),
                    3 => pick(rng, &["x", "y", "z", "", "w"], "x".into()),
                    4 => pick(rng, &[], extra),
                    _ => pick(rng, &["a", " a", "a ", "\tb", "b\r", "", "c  d"], extra),
                });
            }
        }
    }
    lines
}

/// One random edit: the code edits of `diff.rs` (inserted and moved
/// functions, deletions, re-indents, wrapped blocks, stray blank lines and
/// braces), or a copied block, two blocks swapped, a dedent, or lines
/// overwritten with frequent ones.
fn edit(rng: &mut Rng, lines: &mut Vec<String>) {
    let n = lines.len();
    let i = rng.below(n as u64 + 1) as usize;
    let j = (i + 1 + rng.below(11) as usize).min(n);
    match rng.below(12) {
        0..=7 => c_edit(rng, lines),
        8 => {
            let block = lines[i..j].to_vec();
            let t = rng.below(n as u64 + 1) as usize;
            drop(lines.splice(t..t, block));
        }
        9 => {
            let mut cut: Vec<usize> = (0..4).map(|_| rng.below(n as u64 + 1) as usize).collect();
            cut.sort_unstable();
            let (a0, a1, b0, b1) = (cut[0], cut[1], cut[2], cut[3]);
            let swapped = [&lines[b0..b1], &lines[a1..b0], &lines[a0..a1]].concat();
            drop(lines.splice(a0..b1, swapped));
        }
        10 => {
            for l in &mut lines[i..j] {
                if let Some(rest) = l.strip_prefix("    ") {
                    *l = rest.to_owned();
                }
            }
        }
        _ => {
            for l in &mut lines[i..j] {
                *l = ["", "}", "{", "x"][rng.below(4) as usize].to_owned();
            }
        }
    }
}

/// A patch cut into its files (or `--numstat` into its lines).
fn files(out: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(out);
    let mut parts: Vec<String> = Vec::new();
    for line in text.split_inclusive('\n') {
        match parts.last_mut() {
            Some(p) if !line.starts_with("diff --git ") && !p.ends_with("\t\n") && !is_numstat(p) => {
                p.push_str(line);
            }
            _ => parts.push(line.to_owned()),
        }
    }
    parts
}

fn is_numstat(line: &str) -> bool {
    line.split('\t').count() == 3 && line.ends_with('\n') && !line.starts_with("diff --git ")
}

/// Differential: with `diff.algorithm=patience`, the patch (with and
/// without `-w`), `--numstat` and the counts a capture writes in its note
/// are byte-identical to git's, on generated edits of blank-line and brace
/// heavy texts, moved, copied and swapped blocks, re-indents and files of
/// repeated lines only.
/// git's own output under `setting` on generated edits, file by file, for
/// the patch and the numstat, with and without whitespace; the note holds
/// `git diff-tree -r -M`'s counts whatever the setting. `parted`: how many
/// files must come out otherwise than with git's default diff (the setup).
fn byte_identical_to_git_on_generated_edits(setting: &[&str], seed: u64, parted_at_least: usize) {
    generated_edits_like_git(setting, seed, parted_at_least, (36, 1, 5));
}

/// [`byte_identical_to_git_on_generated_edits`] on `files` texts `scale`
/// times longer, with up to `edits` edits per file and turn.
fn generated_edits_like_git(
    setting: &[&str],
    seed: u64,
    parted_at_least: usize,
    (files_n, scale, edits): (usize, u64, u64),
) {
    let r = TestRepo::seeded();
    let mut rng = Rng(seed);
    let mut texts: Vec<Vec<String>> = (0..files_n)
        .map(|k| text(&mut rng, k as u64 % 6, scale))
        .collect();
    let write = |r: &TestRepo, k: usize, lines: &[String], newline: bool| {
        let end = if newline { "\n" } else { "" };
        r.write(&format!("gen/t{k:02}.txt"), &(lines.join("\n") + end));
    };
    for (k, t) in texts.iter().enumerate() {
        write(&r, k, t, true);
    }
    r.commit_all("texts");
    let run = |args: &[&str]| r.git_in(&r.root, &[setting, args].concat()).ok().stdout;
    run(&["t3", "baseline", "--thread", THREAD]);
    let (mut compared, mut parted) = (0, 0);
    for turn in 1..=5u64 {
        for (k, t) in texts.iter_mut().enumerate() {
            for _ in 0..1 + rng.below(edits) {
                edit(&mut rng, t);
            }
            write(&r, k, t, rng.below(8) != 0);
        }
        run(&["t3", "capture", "--thread", THREAD]);
        let (a, b) = (ref_for(THREAD, turn - 1), ref_for(THREAD, turn));
        let numstat = r
            .git_in(&r.root, &["diff-tree", "-r", "-M", "--numstat", &a, &b])
            .ok()
            .stdout;
        let note = r.t3_json(&["show", "--thread", THREAD]);
        assert_eq!(
            rows(&note["files"]),
            files(&numstat)
                .iter()
                .map(|l| {
                    let f: Vec<&str> = l.trim_end().split('\t').collect();
                    (f[2].to_owned(), f[0].parse().unwrap(), f[1].parse().unwrap())
                })
                .collect::<Vec<(String, u64, u64)>>(),
            "turn {turn}: the note's counts are diff-tree's, whatever {setting:?} says"
        );
        let t = turn.to_string();
        for (ours, theirs) in [
            (vec![], vec!["-w"]),
            (vec!["--keep-whitespace"], vec![]),
            (vec!["--numstat"], vec!["--numstat", "-w"]),
            (vec!["--numstat", "--keep-whitespace"], vec!["--numstat"]),
        ] {
            let mine = run(&[&["t3", "diff", "--thread", THREAD, "--turn", &t][..], &ours].concat());
            let git = run(&[&["diff", "-M"][..], &theirs, &[&a, &b]].concat());
            let (mine, git) = (files(&mine), files(&git));
            for (m, g) in mine.iter().zip(&git) {
                assert!(
                    m == g,
                    "{setting:?} turn {turn}, {ours:?}:\n--- git-t3\n{m}\n--- git\n{g}"
                );
            }
            assert_eq!(mine.len(), git.len(), "turn {turn}, {ours:?}");
            compared += git.len();
        }
        // The setup: git's default diff parts ways with this setting here.
        let default = r.git_in(&r.root, &["diff", "-M", &a, &b]).ok().stdout;
        let this = run(&["diff", "-M", &a, &b]);
        parted += files(&default)
            .iter()
            .zip(files(&this))
            .filter(|(d, p)| **d != *p)
            .count();
    }
    assert!(compared >= 15 * files_n, "setup: {compared} files compared");
    assert!(
        parted >= parted_at_least,
        "setup: {setting:?} parted from git's default in only {parted} files"
    );
}

#[test]
fn patience_is_byte_identical_to_git_on_generated_edits() {
    byte_identical_to_git_on_generated_edits(&["-c", "diff.algorithm=patience"], 0x9a71_e9ce_0000_0001, 15);
}

/// xdiff's histogram: its candidate rule (the rarest, then the longest run),
/// its 64-occurrence cut and its fallback to Myers, as git runs them.
#[test]
fn histogram_is_byte_identical_to_git_on_generated_edits() {
    byte_identical_to_git_on_generated_edits(&["-c", "diff.algorithm=histogram"], 0x4157_0000_0000_0002, 15);
}

/// `minimal` is xdiff's search without the cost cut-offs, with the
/// pre-pass the user's git runs (its frequency limit was dropped in 2.50).
#[test]
fn minimal_is_byte_identical_to_git_on_generated_edits() {
    // Long texts edited much: past the cost where the default cuts its search.
    generated_edits_like_git(
        &["-c", "diff.algorithm=minimal"],
        0x313a_0000_0000_0003,
        1,
        (8, 12, 60),
    );
}

/// Without context (`diff.context=0`, `-U0`), git first drops the common
/// tail in 1024-byte blocks, which can change what the diff pairs.
#[test]
fn no_context_is_byte_identical_to_git_on_generated_edits() {
    generated_edits_like_git(&["-c", "diff.context=0"], 0x0c0e_0000_0000_0006, 1, (16, 6, 8));
}

/// `diff.indentHeuristic=false`: ambiguous hunks stay where xdiff slid them.
#[test]
fn indent_heuristic_off_is_byte_identical_to_git_on_generated_edits() {
    byte_identical_to_git_on_generated_edits(&["-c", "diff.indentHeuristic=false"], 0x1d7e_0000_0000_0004, 5);
    byte_identical_to_git_on_generated_edits(
        &[
            "-c",
            "diff.algorithm=histogram",
            "-c",
            "diff.indentHeuristic=false",
        ],
        0x1d7e_0000_0000_0005,
        5,
    );
}

const OLD_C: &str = "#include <stdio.h>\n\n// Frobs foo heartily\nint frobnitz(int foo)\n{\n    int i;\n    for(i = 0; i < 10; i++)\n    {\n        printf(\"Your answer is: \");\n        printf(\"%d\\n\", foo);\n    }\n}\n\nint fact(int n)\n{\n    if(n > 1)\n    {\n        return fact(n-1) * n;\n    }\n    return 1;\n}\n\nint main(int argc, char **argv)\n{\n    frobnitz(fact(10));\n}\n";
const NEW_C: &str = "#include <stdio.h>\n\nint fib(int n)\n{\n    if(n > 2)\n    {\n        return fib(n-1) + fib(n-2);\n    }\n    return 1;\n}\n\n// Frobs foo heartily\nint frobnitz(int foo)\n{\n    int i;\n    for(i = 0; i < 10; i++)\n    {\n        printf(\"%d\\n\", foo);\n    }\n}\n\nint main(int argc, char **argv)\n{\n    frobnitz(fib(10));\n}\n";

/// `--patience`, `--histogram`, `--minimal` and `--diff-algorithm=<name>`
/// beat `diff.algorithm` as git's flags do, on the classic edit where
/// patience and Myers part ways.
#[test]
fn algorithm_flags_beat_the_setting_like_git() {
    let r = TestRepo::seeded();
    r.write("frob.c", OLD_C);
    r.commit_all("frob");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("frob.c", NEW_C);
    r.t3(&["capture", "--thread", THREAD]).ok();
    let (a, b) = (ref_for(THREAD, 0), ref_for(THREAD, 1));
    let git = |args: &[&str]| r.git_in(&r.root, args).ok().out();
    let mut seen = std::collections::BTreeSet::new();
    for setting in ["diff.algorithm=patience", "diff.algorithm=myers"] {
        for flag in [
            "--patience",
            "--histogram",
            "--minimal",
            "--diff-algorithm=patience",
            "--diff-algorithm=default",
            "--diff-algorithm=myers",
        ] {
            for fmt in ["-U3", "--numstat"] {
                let mine = git(&[
                    "-c",
                    setting,
                    "t3",
                    "diff",
                    "--thread",
                    THREAD,
                    "--keep-whitespace",
                    flag,
                    fmt,
                ]);
                let theirs = git(&["-c", setting, "diff", "-M", flag, fmt, &a, &b]);
                assert_eq!(mine, theirs, "{setting} {flag} {fmt}");
                seen.insert(theirs);
            }
        }
    }
    assert!(
        seen.len() >= 3,
        "setup: the flags gave {} different outputs",
        seen.len()
    );
    // Two algorithms: the last one wins, as in git.
    for flags in [["--patience", "--histogram"], ["--histogram", "--patience"]] {
        let mine = git(&[&TURN_1_DIFF[..], &flags].concat());
        let theirs = git(&[&["diff", "-M"][..], &flags, &[&a, &b]].concat());
        assert_eq!(mine, theirs, "{flags:?}");
    }
}
