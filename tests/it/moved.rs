//! `--color-moved`, `--color-moved-ws`, `diff.colorMoved` and
//! `diff.colorMovedWS`: moved lines coloured byte for byte as `git diff`
//! colours them on the same two checkpoints, run in the test.

use crate::util::{THREAD, TestRepo, ref_for, turn_diff_and_git};

/// Numbered lines of code-like text, `tag` in each.
fn block(tag: &str, n: usize, indent: &str) -> String {
    (1..=n)
        .map(|i| format!("{indent}let {tag}_{i} = compute_{tag}(value_{i}, other_{i});\n"))
        .collect()
}

/// A turn with moves of every shape: a block moved within a file and one
/// to another file, two adjacent blocks moved apart (zebra), short moved
/// lines (too few letters to count), blocks from two files joined in a
/// third, a block re-indented, a block with its
/// inner whitespace changed, blank lines inside a block, a last line
/// without a newline, a deleted file's lines in a new one.
fn fixture() -> (TestRepo, String, String) {
    let r = TestRepo::seeded();
    let a = block("alpha", 6, "");
    let b = block("beta", 5, "");
    let c = block("gamma", 4, "    ");
    let short = "}\n}\nx\n}\n";
    let spaced =
        "if value  ==  other { return first_choice(value) }\nwhile running { step_once(state, input) }\n";
    r.write(
        "one.rs",
        &format!("fn head() {{}}\n{a}\nfn middle() {{}}\n{b}{short}fn tail() {{}}\n{c}\n{spaced}end\n"),
    );
    r.write("two.rs", "fn two() {}\nplain line one\nplain line two\n");
    r.write(
        "gone.rs",
        &format!(
            "{}\n\n{}",
            block("delta", 5, "\t"),
            "last line without newline here"
        ),
    );
    // Two blocks from two files, joined in a third: adjacent moved blocks.
    r.write("e_src.rs", &format!("fn e_src() {{}}\n{}", block("eps", 4, "")));
    r.write("f_src.rs", &format!("fn f_src() {{}}\n{}", block("phi", 4, "")));
    r.commit_all("before");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let c_reindented = block("gamma", 4, "\t\t");
    let spaced_changed =
        "if value == other { return first_choice(value) }\nwhile  running  { step_once(state, input) }\n";
    r.write(
        "one.rs",
        &format!("fn head() {{}}\n{b}\nfn middle() {{}}\n{short}fn tail() {{}}\n{spaced_changed}end\n{c_reindented}"),
    );
    r.write(
        "two.rs",
        &format!("fn two() {{}}\n{a}plain line one\n}}\n}}\nplain line two\n"),
    );
    std::fs::remove_file(r.root.join("gone.rs")).unwrap();
    r.write(
        "new.rs",
        &format!(
            "{}\n\n{}",
            block("delta", 5, "    "),
            "last line without newline here\n"
        ),
    );
    r.write("e_src.rs", "fn e_src() {}\n");
    r.write("f_src.rs", "fn f_src() {}\n");
    r.write(
        "joined.rs",
        &format!("{}{}", block("phi", 4, ""), block("eps", 4, "")),
    );
    r.t3(&["capture", "--thread", THREAD]).ok();
    (r, ref_for(THREAD, 0), ref_for(THREAD, 1))
}

/// git-t3's diff of the turn and git's, with `config` and `args`.
fn both(r: &TestRepo, sides: (&str, &str), config: &[&str], args: &[&str]) -> (Vec<u8>, Vec<u8>) {
    let (mine, theirs) = turn_diff_and_git(r, sides, config, &["-M"], args);
    assert_eq!(mine.code, 0, "{config:?} {args:?}: {}", mine.stderr);
    (mine.stdout, theirs.ok().stdout)
}

#[test]
fn moved_lines_are_coloured_as_git_colours_them() {
    let (r, a, b) = fixture();
    let sides = (a.as_str(), b.as_str());
    let modes = [
        "",
        "=zebra",
        "=default",
        "=plain",
        "=blocks",
        "=dimmed-zebra",
        "=dimmed_zebra",
        "=true",
        "=no",
    ];
    let ws = [
        None,
        Some("ignore-all-space"),
        Some("ignore-space-change"),
        Some("ignore-space-at-eol"),
        Some("allow-indentation-change"),
        Some("ignore-space-at-eol,ignore-space-change"),
        Some("no"),
    ];
    let mut seen = String::new();
    for mode in modes {
        for w in ws {
            let moved = format!("--color-moved{mode}");
            let ws_arg = w.map(|w| format!("--color-moved-ws={w}"));
            let mut args = vec!["--color=always", moved.as_str()];
            args.extend(ws_arg.as_deref());
            let (mine, git) = both(&r, sides, &[], &args);
            assert_eq!(
                String::from_utf8_lossy(&mine),
                String::from_utf8_lossy(&git),
                "{args:?}"
            );
            seen.push_str(&String::from_utf8_lossy(&mine));
        }
    }
    // Every colour is seen: moved, alternative, dimmed, alternative dimmed.
    for colour in [
        "\x1b[1;35m",
        "\x1b[1;36m",
        "\x1b[1;34m",
        "\x1b[1;33m",
        "\x1b[2m",
        "\x1b[2;3m",
    ] {
        assert!(seen.contains(colour), "the fixture has lines in {colour:?}");
    }
    // The settings, their slots, and the flags over them.
    let configs: &[(&[&str], &[&str])] = &[
        (&["diff.colorMoved=true"], &[]),
        (&["diff.colorMoved=plain"], &[]),
        (
            &[
                "diff.colorMoved=dimmed-zebra",
                "diff.colorMovedWS=allow-indentation-change",
            ],
            &[],
        ),
        (&["diff.colorMoved=blocks"], &["--color-moved"]),
        (&["diff.colorMoved=blocks"], &["--no-color-moved"]),
        (&["diff.colorMoved=zebra"], &["--color-moved=no"]),
        (
            &["diff.colorMoved=zebra", "diff.colorMovedWS=ignore-all-space"],
            &[],
        ),
        (
            &["diff.colorMoved=zebra", "diff.colorMovedWS=ignore-all-space"],
            &["--no-color-moved-ws"],
        ),
        (&["diff.colorMoved=0"], &[]),
        (&["diff.colorMoved=2"], &[]),
        (
            &[
                "diff.colorMoved=dimmed-zebra",
                "color.diff.oldMoved=red bold",
                "color.diff.newMovedAlternative=blue",
                "color.diff.newMovedDimmed=ul",
                "color.diff.oldMovedAlternativeDimmed=#ff0080",
            ],
            &[],
        ),
        (&["diff.colorMoved=zebra"], &["--color-moved=plain", "-U1"]),
        (&["diff.colorMoved=zebra"], &["--color-moved", "--stat"]),
        (&["diff.colorMoved=zebra"], &["--color-moved", "--word-diff"]),
        (&["diff.colorMoved=zebra"], &["--color-moved", "-R"]),
    ];
    for (config, args) in configs {
        let args = [&["--color=always"][..], args].concat();
        let (mine, git) = both(&r, sides, config, &args);
        assert_eq!(
            String::from_utf8_lossy(&mine),
            String::from_utf8_lossy(&git),
            "{config:?} {args:?}"
        );
    }
    // Without colour there is nothing to colour.
    let (mine, git) = both(&r, sides, &["diff.colorMoved=zebra"], &["--no-color"]);
    assert_eq!(mine, git);
}

/// Values git refuses: a setting stops the diff (exit 1, naming it), even
/// uncoloured, as git's config reader does; a flag is a usage error.
#[test]
fn bad_moved_settings_are_refused_like_git() {
    let (r, _, _) = fixture();
    let diff = ["t3", "diff", "--thread", THREAD];
    for setting in [
        "diff.colorMoved=bogus",
        "diff.colorMovedWS=bogus",
        "diff.colorMovedWS=allow-indentation-change,ignore-all-space",
    ] {
        let run = r.git_in(&r.root, &[&["-c", setting][..], &diff, &["--no-color"]].concat());
        assert_eq!(run.code, 1, "{setting}: {}", run.stderr);
        let key = setting.split('=').next().unwrap();
        assert!(run.stderr.contains(key), "{setting}: {}", run.stderr);
        assert_eq!(run.stderr.trim_end().lines().count(), 1, "{}", run.stderr);
        let git = r.git_in(&r.root, &["-c", setting, "diff", "--no-color"]);
        assert_eq!(git.code, 128, "git refuses {setting} too");
    }
    for flag in ["--color-moved=bogus", "--color-moved-ws=bogus"] {
        let run = r.t3(&["diff", "--thread", THREAD, flag]).fails(2);
        assert!(run.stderr.contains("bogus"), "{flag}: {}", run.stderr);
        assert_ne!(r.git_in(&r.root, &["diff", flag]).code, 0, "git refuses {flag}");
    }
}
