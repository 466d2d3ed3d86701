//! Git-extension conventions: man pages, shell completions through git's own
//! completion script.

use crate::util::TestRepo;

#[test]
fn man_pages_for_the_command_and_each_subcommand() {
    let r = TestRepo::new();
    let man = r.tmp().join("man");
    let out = r.t3(&["mangen", man.to_str().unwrap()]).ok();
    // Into DIR/man1, where `man -M DIR` finds them.
    let dir = man.join("man1");
    assert!(out.out().contains("git-t3.1"), "{}", out.out());
    let main = std::fs::read_to_string(dir.join("git-t3.1")).unwrap();
    assert!(
        main.contains(".TH \"GIT-T3\" \"1\"") && main.contains("capture"),
        "{main}"
    );
    for sub in ["capture", "diff", "revert", "verify"] {
        assert!(dir.join(format!("git-t3-{sub}.1")).is_file(), "no page for {sub}");
    }
    let found = std::process::Command::new("man")
        .args(["-M", man.to_str().unwrap(), "-w", "git-t3-diff"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&found.stdout).trim(),
        dir.join("git-t3-diff.1").display().to_string()
    );
}

#[test]
fn completions_for_each_shell() {
    let r = TestRepo::new();
    // Each script asks git-t3 itself for the candidates.
    for shell in ["bash", "zsh", "fish"] {
        let out = r.t3(&["completions", shell]).ok().out();
        assert!(
            out.contains("GIT_T3_COMPLETE") && out.contains("git-t3"),
            "{shell}: {out}"
        );
    }
    assert_eq!(r.t3(&["completions", "tcsh"]).code, 2);
    // The protocol itself, as fish speaks it: candidates with their help.
    r.write("f.txt", "x\n");
    r.t3(&["baseline", "--thread", "alpha-1"]).ok();
    let out = r.t3_env(
        &["--", "git-t3", "diff", "--thread", "al"],
        &[("GIT_T3_COMPLETE", "fish")],
    );
    assert_eq!(out.out(), "alpha-1\t1 turn\n");
}

#[test]
fn bash_completion_works_through_gits_completion_script() {
    let git_completion = std::path::Path::new("/usr/share/bash-completion/completions/git");
    if !git_completion.is_file() {
        eprintln!("skipped: git's bash completion is not installed here");
        return;
    }
    let r = TestRepo::new();
    r.write("f.txt", "x\n");
    for t in ["alpha-1", "alpha-2", "beta"] {
        r.t3(&["baseline", "--thread", t]).ok();
    }
    let script = r.tmp().join("git-t3.bash");
    std::fs::write(&script, r.t3(&["completions", "bash"]).ok().stdout).unwrap();
    let driver = format!(
        r#"source {git}
source {t3}
complete_words() {{
  COMP_WORDS=("$@"); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); COMP_LINE="$*"; COMP_POINT=${{#COMP_LINE}}; COMPREPLY=()
  if [ "$1" = git ]; then __git_wrap__git_main; else _clap_complete_git_t3 git-t3 "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"; fi
  printf '%s ' "${{COMPREPLY[@]}}"; echo
}}
complete_words git t3 ca
complete_words git t3 capture --tu
complete_words git-t3 reve
complete_words git-t3 diff --nu
complete_words git t3 diff --thread al
complete_words git-t3 show --thread b
complete_words git -C . t3 log --thread=al
"#,
        git = git_completion.display(),
        t3 = script.display()
    );
    let out = std::process::Command::new("bash")
        .current_dir(&r.root)
        .env("HOME", &r.home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .arg("-c")
        .arg(driver)
        .env(
            "PATH",
            format!(
                "{}:{}",
                crate::util::bin().parent().unwrap().display(),
                std::env::var("PATH").unwrap()
            ),
        )
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    assert_eq!(
        lines,
        vec![
            "capture",
            "--turn --turn-id",
            "revert",
            "--numstat",
            "alpha-1 alpha-2",
            "beta",
            "alpha-1 alpha-2"
        ],
        "{text}"
    );
}

/// A copy of git-t3 in `<dir>/bin`, as `cargo install --root <dir>` leaves it.
fn installed_copy(dir: &std::path::Path) -> std::path::PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let exe = bin.join("git-t3");
    std::fs::copy(crate::util::bin(), &exe).unwrap();
    exe
}

fn have(program: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Run `command` under `script`, so that its stdout is a terminal.
fn on_a_terminal(command: &str, path: &str) -> String {
    let out = std::process::Command::new("script")
        .args(["-qec", command, "/dev/null"])
        .env("PATH", path)
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "80")
        .env_remove("MANPATH")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    // man's overstrike (`X\bX` bold, `_\bX` underline) read as plain text.
    let mut text = String::new();
    for c in String::from_utf8_lossy(&out.stdout).chars() {
        if c == '\u{8}' {
            text.pop();
        } else {
            text.push(c);
        }
    }
    text
}

#[test]
fn man_pages_install_where_man_finds_them_and_help_opens_them() {
    if !have("man") || !have("script") {
        eprintln!("skipped: man or script is not installed here");
        return;
    }
    let r = TestRepo::new();
    let root = r.tmp().join("cargo");
    let exe = installed_copy(&root);
    let path = format!("{}:/usr/bin:/bin", exe.parent().unwrap().display());
    let run = |args: &[&str]| {
        std::process::Command::new(&exe)
            .args(args)
            .env("PATH", &path)
            .env_remove("MANPATH")
            .output()
            .unwrap()
    };
    // Before the pages are installed, --help on a terminal is clap's help.
    let before = on_a_terminal("git-t3 diff --help", &path);
    assert!(
        before.contains("Usage:") && !before.contains("SYNOPSIS"),
        "{before}"
    );
    // `mangen` with no folder: share/man/man1 beside bin/, where man looks
    // for every bin folder on PATH (~/.cargo/share/man/man1 for cargo install).
    let out = run(&["mangen"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pages = root.join("share/man/man1");
    assert!(pages.join("git-t3.1").is_file() && pages.join("git-t3-diff.1").is_file());
    let found = std::process::Command::new("man")
        .args(["-w", "git-t3"])
        .env("PATH", &path)
        .env_remove("MANPATH")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&found.stdout).trim(),
        pages.join("git-t3.1").display().to_string()
    );
    // Now --help on a terminal opens the page, with the sections git's have.
    let page = on_a_terminal("git-t3 diff --help", &path);
    assert!(page.contains("SYNOPSIS") && page.contains("EXAMPLES"), "{page}");
    assert!(
        page.contains("[--thread <ID>]"),
        "the synopsis keeps value names: {page}"
    );
    let main = on_a_terminal("git t3 --help", &path);
    for section in ["EXIT STATUS", "ENVIRONMENT", "CONFIGURATION", "EXAMPLES"] {
        assert!(main.contains(section), "no {section} in {main}");
    }
    // Not on a terminal (a script reading the help): the built-in text.
    let piped = run(&["diff", "--help"]);
    assert!(String::from_utf8_lossy(&piped.stdout).contains("Usage: git t3 diff"));
}
