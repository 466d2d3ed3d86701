//! Coloured output against git's own bytes: the patch (signs, function
//! context, whitespace errors, `\ No newline`, binary files, renames, mode
//! changes, submodules), the stat graph, `color.diff.<slot>` in git's colour
//! syntax, `core.whitespace` and `diff.wsErrorHighlight`, and the settings
//! git refuses.

use std::path::Path;

use crate::util::{Rng, THREAD, TestRepo, ref_for};

/// `git <config> t3 diff --color=always <ours>` in `cwd` against
/// `git <config> diff --color=always <theirs>`, byte for byte.
#[track_caller]
fn same_bytes(r: &TestRepo, cwd: &Path, config: &[&str], ours: &[&str], theirs: &[&str]) {
    let mut mine = config.to_vec();
    mine.extend(["t3", "diff", "--color=always"]);
    mine.extend_from_slice(ours);
    let mut git = config.to_vec();
    git.extend(["diff", "--color=always"]);
    git.extend_from_slice(theirs);
    let (m, g) = (r.git_in(cwd, &mine).ok(), r.git_in(cwd, &git).ok());
    assert!(!g.stdout.is_empty(), "setup: git {git:?} printed nothing");
    assert_eq!(
        String::from_utf8_lossy(&m.stdout),
        String::from_utf8_lossy(&g.stdout),
        "{config:?} {ours:?} against git {theirs:?}"
    );
}

/// A turn with every kind of change whose colouring git spells out.
fn many_kinds() -> TestRepo {
    let r = TestRepo::seeded();
    let nested = r.root.join("vendor/lib");
    std::fs::create_dir_all(&nested).unwrap();
    r.git_in(&nested, &["init", "-q"]).ok();
    std::fs::write(nested.join("v"), "v\n").unwrap();
    r.git_in(&nested, &["add", "v"]).ok();
    r.git_in(&nested, &["commit", "-qm", "v"]).ok();
    r.write(
        "func.c",
        "int f(void)\n{\n  a;\n  b;\n  c;\n  d;\n  e;\n  f;\n  g;\n}\n",
    );
    r.write("ws.txt", "x\ny\n");
    r.write("nonl.txt", "no newline");
    r.write("crlf.txt", "one\r\ntwo\r\nthree\r\n");
    r.write("eof.txt", "a\n\n");
    r.write("eof2.txt", "a\nb\n");
    r.write("gone.txt", "bye\n");
    r.write("mode.sh", "echo\n");
    r.write("pure/moved.txt", "same\ncontent\n");
    r.write(
        "edited.txt",
        &(1..=20).map(|i| format!("line {i}\n")).collect::<String>(),
    );
    r.write("becomes-link", "file\n");
    r.commit_all("kinds");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    std::fs::write(nested.join("v"), "w\n").unwrap();
    r.git_in(&nested, &["commit", "-qam", "w"]).ok();
    r.write(
        "func.c",
        "int f(void)\n{\n  a;\n  b;\n  c;\n  d;\n  e;\n  F;\n  g;\n}\n",
    );
    r.write("ws.txt", "x \ny\n \tz\n\tok\n  \t  \tmixed \t\n\n");
    r.write("nonl.txt", "still no newline ");
    r.write("crlf.txt", "one\r\nTWO\r\nthree\r\n\r\n");
    r.write("eof.txt", "a\n\n  \n\t\n");
    r.write("eof2.txt", "a\n\nb\n\n");
    r.remove("gone.txt");
    r.write("new.txt", "fresh \n\n");
    r.chmod("mode.sh", 0o755);
    std::fs::rename(r.root.join("pure/moved.txt"), r.root.join("pure/there.txt")).unwrap();
    std::fs::rename(r.root.join("edited.txt"), r.root.join("renamed.txt")).unwrap();
    let mut edited: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    edited.push_str("line 21\t\n");
    r.write("renamed.txt", &edited);
    r.remove("becomes-link");
    std::os::unix::fs::symlink("README.md", r.root.join("becomes-link")).unwrap();
    r.write_bytes(
        "assets/logo.bin",
        &(0..=255u8).rev().cycle().take(1500).collect::<Vec<_>>(),
    );
    r.t3(&["capture", "--thread", THREAD]).ok();
    r
}

/// The patch and the stat of one turn, in git's default colours and with
/// every slot set, byte-identical to `git diff --color=always -M` (`-w`
/// for the default whitespace-blind turn diff).
#[test]
fn patch_and_stat_colours_are_gits() {
    let r = many_kinds();
    let (a, b) = (ref_for(THREAD, 0), ref_for(THREAD, 1));
    let configs: [&[&str]; 7] = [
        &[],
        &[
            "-c",
            "color.diff.context=magenta",
            "-c",
            "color.diff.func=blue ul",
            "-c",
            "color.diff.frag=bold #ff8800",
            "-c",
            "color.diff.meta=reverse no-italic",
            "-c",
            "color.diff.old=brightred dim",
            "-c",
            "color.diff.new=28 default",
            "-c",
            "color.diff.whitespace=ul #abc",
        ],
        // Empty colours: runs still end in a reset; no whitespace colour,
        // no whitespace highlighting.
        &[
            "-c",
            "color.diff.new=normal",
            "-c",
            "color.diff.meta=normal",
            "-c",
            "color.diff.whitespace=normal",
        ],
        // The other spellings: `plain`, `diff.color.<slot>`, upper case.
        &[
            "-c",
            "color.diff.plain=red",
            "-c",
            "diff.color.OLD=blue",
            "-c",
            "color.diff.Frag=reset green",
        ],
        &[
            "-c",
            "core.whitespace=cr-at-eol,tab-in-indent,-blank-at-eof",
            "-c",
            "diff.wsErrorHighlight=all",
        ],
        &[
            "-c",
            "core.whitespace=indent-with-non-tab,tabwidth=4,-space-before-tab",
            "-c",
            "diff.wsErrorHighlight=old,context",
        ],
        &["-c", "diff.wsErrorHighlight=none"],
    ];
    let cases: [(&[&str], &[&str]); 5] = [
        (&["--keep-whitespace"], &["-M"]),
        (&[], &["-M", "-w"]),
        (&["--keep-whitespace", "--stat"], &["--stat", "-M"]),
        // -U0: git's blank-at-eof check reads the range line's numbers.
        (&["--keep-whitespace", "-U0"], &["-M", "-U0"]),
        (&["-U1"], &["-M", "-w", "-U1"]),
    ];
    for config in configs {
        for (ours, theirs) in cases {
            let mut ours = ours.to_vec();
            ours.extend(["--thread", THREAD, "--turn", "1"]);
            let mut theirs = theirs.to_vec();
            theirs.extend([a.as_str(), b.as_str()]);
            same_bytes(&r, &r.root, config, &ours, &theirs);
        }
    }
}

/// The live modes and `log -p` colour their patches the same way.
#[test]
fn live_modes_and_log_colour_like_git() {
    let r = TestRepo::seeded();
    r.git(&["checkout", "-q", "-b", "feature"]);
    r.write("feature.txt", "f \n \tg\n");
    r.commit_all("feature work");
    r.write("README.md", "# demo\n\nline two \n\n");
    same_bytes(&r, &r.root, &[], &["--worktree"], &["-M", "HEAD"]);
    same_bytes(&r, &r.root, &[], &["--branch", "main"], &["-M", "main...HEAD"]);
    same_bytes(
        &r,
        &r.root,
        &[],
        &["--branch", "main", "--stat"],
        &["-M", "--stat", "main...HEAD"],
    );
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("src/lib.rs", "fn a() {}\nfn b() {} \n\tfn c() {}\n\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let config = ["-c", "color.ui=always", "-c", "color.diff.commit=blue"];
    let log = r
        .git_in(
            &r.root,
            &[&config[..], &["t3", "log", "--thread", THREAD, "-p"]].concat(),
        )
        .ok()
        .out();
    let git = r
        .git_in(
            &r.root,
            &[
                &config[..],
                &["diff", "-M", "-w", &ref_for(THREAD, 0), &ref_for(THREAD, 1)],
            ]
            .concat(),
        )
        .ok()
        .out();
    assert!(log.starts_with("\x1b[34mturn 1\x1b[m"), "{log:?}");
    assert!(log.contains(&git), "log -p:\n{log:?}\ngit:\n{git:?}");
}

/// Generated lines of spaces, TABs, CRs and text under many
/// `core.whitespace` and `diff.wsErrorHighlight` settings: every
/// highlighted part where git puts it.
#[test]
fn whitespace_errors_are_highlighted_like_git() {
    const PIECES: [&str; 9] = [" ", "  ", "\t", "x", "y z", "\r", "\x0b", "        ", ""];
    let mut rng = Rng(0x5eed_c010_4a11);
    let r = TestRepo::new();
    let line = |rng: &mut Rng| -> String {
        let n = rng.below(6);
        (0..n)
            .map(|_| PIECES[rng.below(PIECES.len() as u64) as usize])
            .collect()
    };
    let file = |rng: &mut Rng| -> String {
        let mut lines: Vec<String> = (0..rng.below(12)).map(|_| line(rng)).collect();
        // Often end with blank lines, for blank-at-eof.
        for _ in 0..rng.below(3) {
            lines.push(if rng.below(2) == 0 {
                String::new()
            } else {
                " \t".into()
            });
        }
        let mut text = lines.join("\n");
        if rng.below(5) != 0 {
            text.push('\n');
        }
        text
    };
    let olds: Vec<String> = (0..40).map(|_| file(&mut rng)).collect();
    for (i, old) in olds.iter().enumerate() {
        r.write(&format!("f{i:02}.txt"), old);
    }
    r.commit_all("old");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    for (i, old) in olds.iter().enumerate() {
        let new = match rng.below(3) {
            0 => file(&mut rng),
            // An edit of the old text: lines inserted and replaced.
            _ => {
                let mut lines: Vec<String> = old.split('\n').map(str::to_owned).collect();
                for _ in 0..=rng.below(3) {
                    let at = rng.below(lines.len() as u64 + 1) as usize;
                    lines.insert(at, line(&mut rng));
                }
                lines.join("\n")
            }
        };
        r.write(&format!("f{i:02}.txt"), &new);
    }
    r.t3(&["capture", "--thread", THREAD]).ok();
    let (a, b) = (ref_for(THREAD, 0), ref_for(THREAD, 1));
    for rules in [
        "",
        "-trailing-space",
        "-space-before-tab",
        "tab-in-indent",
        "tab-in-indent,-space-before-tab",
        "indent-with-non-tab",
        "indent-with-non-tab,tabwidth=2,-blank-at-eol",
        "cr-at-eol",
        "cr-at-eol,-blank-at-eol,tab-in-indent",
        "-trailing-space,-space-before-tab",
        "t,-b,i",
    ] {
        for highlight in ["default", "all", "old,context"] {
            let ws = format!("core.whitespace={rules}");
            let h = format!("diff.wsErrorHighlight={highlight}");
            let config = ["-c", ws.as_str(), "-c", h.as_str()];
            same_bytes(
                &r,
                &r.root,
                &config,
                &["--thread", THREAD, "--keep-whitespace"],
                &["-M", &a, &b],
            );
        }
        let ws = format!("core.whitespace={rules}");
        same_bytes(
            &r,
            &r.root,
            &["-c", &ws],
            &["--thread", THREAD],
            &["-M", "-w", &a, &b],
        );
    }
}

/// Colour values give the bytes `git config --get-color` gives, and the
/// values git rejects are rejected.
#[test]
fn colour_values_match_git_config_get_color() {
    let r = TestRepo::new();
    for value in [
        "red",
        "bold red",
        "ul blue yellow",
        "brightred",
        "BrightGreen bold",
        "1",
        "9 12",
        "16",
        "255",
        "#ff0080",
        "#F08",
        "normal",
        "-1 red",
        "default",
        "red default",
        "reset",
        "reset red",
        "bold reset",
        "no-bold nodim",
        "no-ul noblink no-reverse no-italic no-strike",
        "dim italic strike blink reverse",
        "bold bold ul",
        "normal normal",
        "",
        "bright red",
        "Bold",
        "underline",
        "256",
        "-2",
        "red green blue",
        "#12345",
        "foo",
        "no-",
        "red,bold",
    ] {
        let git = r.git_in(&r.root, &["config", "--get-color", "", value]);
        let ours = git_t3::model::color::parse(value);
        match ours {
            Some(bytes) => assert_eq!(
                (git.code, bytes.as_bytes()),
                (0, git.stdout.as_slice()),
                "{value:?}"
            ),
            None => assert_ne!(git.code, 0, "{value:?}: git accepts it"),
        }
    }
}

/// Settings git refuses stop the diff with one line naming the key (exit
/// 1), coloured or not, as git stops; JSON, which has no colour, is not
/// stopped by a colour.
#[test]
fn settings_git_refuses_stop_the_diff() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("README.md", "changed\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let cases: [(&[&str], &str); 5] = [
        (&["-c", "color.diff.old=bogus"], "color.diff.old"),
        (&["-c", "color.diff.new"], "color.diff.new"),
        (
            &["-c", "core.whitespace=tab-in-indent,indent-with-non-tab"],
            "tab-in-indent",
        ),
        (&["-c", "diff.wsErrorHighlight=bogus"], "diff.wsErrorHighlight"),
        (&["-c", "diff.relative=maybe"], "diff.relative"),
    ];
    for (config, names) in cases {
        let git = r.git_in(&r.root, &[config, &["diff", "HEAD"]].concat());
        assert_ne!(git.code, 0, "setup: git accepts {config:?}");
        for extra in [&["--no-color"][..], &["--color=always", "--stat"]] {
            let args = [config, &["t3", "diff", "--thread", THREAD], extra].concat();
            let out = r.git_in(&r.root, &args).fails(1);
            assert!(out.stderr.contains(names), "{config:?}: {}", out.stderr);
        }
    }
    // In .git/config the message says which file.
    r.git(&["config", "color.diff.meta", "bolder"]);
    let out = r.t3(&["diff", "--thread", THREAD]).fails(1);
    assert!(
        out.stderr.contains("bolder") && out.stderr.contains(".git/config"),
        "{}",
        out.stderr
    );
    r.t3_json(&["diff", "--thread", THREAD]);
    // An out-of-range tabwidth is a warning, as in git.
    r.git(&["config", "--unset", "color.diff.meta"]);
    let out = r
        .git_in(
            &r.root,
            &[
                "-c",
                "core.whitespace=tabwidth=0",
                "t3",
                "diff",
                "--thread",
                THREAD,
            ],
        )
        .ok();
    assert!(out.stderr.contains("tabwidth 0"), "{}", out.stderr);
}
