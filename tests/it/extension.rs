//! Git-extension conventions: man pages, shell completions through git's own
//! completion script.

use crate::util::TestRepo;

#[test]
fn man_pages_for_the_command_and_each_subcommand() {
    let r = TestRepo::new();
    let dir = r.tmp().join("man1");
    let out = r.t3(&["mangen", dir.to_str().unwrap()]).ok();
    assert!(out.out().contains("git-t3.1"), "{}", out.out());
    let main = std::fs::read_to_string(dir.join("git-t3.1")).unwrap();
    assert!(main.contains(".TH git-t3") && main.contains("capture"), "{main}");
    for sub in ["capture", "diff", "revert", "verify"] {
        assert!(dir.join(format!("git-t3-{sub}.1")).is_file(), "no page for {sub}");
    }
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
