//! `git t3 install-hooks` / `uninstall-hooks`: each agent's configuration is
//! edited in place (order, indentation, comments and other hooks kept),
//! twice is once, and uninstalling gives the file back byte for byte.
//! HOME is the test's own (see util.rs).

use std::path::{Path, PathBuf};

use crate::util::{THREAD, TestRepo, ref_for};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

/// The commands of every handler of `event` (Claude Code and Codex shape).
fn commands(settings: &serde_json::Value, event: &str) -> Vec<String> {
    settings["hooks"][event]
        .as_array()
        .map(|groups| {
            groups
                .iter()
                .flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default())
                .filter_map(|h| h["command"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Lines of `before` that are not in `after`: a minimal edit only touches
/// the line before an insertion (which gains a comma).
fn lost_lines(before: &str, after: &str) -> Vec<String> {
    before
        .lines()
        .filter(|l| !after.lines().any(|n| n == *l))
        .map(str::to_owned)
        .collect()
}

const TEAM_SETTINGS: &str = r#"{
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {
        "allow": [
            "Bash(npm run test:*)"
        ]
    },
    "model": "opus",
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": "echo pre-tool"
                    }
                ]
            }
        ]
    },
    "env": {
        "FOO": "1"
    }
}
"#;

#[test]
fn claude_default_scope_is_local_and_leaves_the_teams_file_alone() {
    let r = TestRepo::seeded();
    r.write(".claude/settings.json", TEAM_SETTINGS);
    r.commit_all("team settings");
    let out = r.t3(&["install-hooks", "--claude-code"]).ok().out();
    let local = r.root.join(".claude/settings.local.json");
    assert!(out.contains("settings.local.json"), "{out}");
    assert_eq!(read(&r.root.join(".claude/settings.json")), TEAM_SETTINGS);
    let settings = json(&read(&local));
    for event in ["UserPromptSubmit", "Stop", "StopFailure", "SessionEnd"] {
        assert_eq!(commands(&settings, event), ["git t3 hook claude-code"], "{event}");
    }
    assert_eq!(
        read(&local),
        include_str!("../../hooks/claude-code/settings.json")
    );
    r.t3(&["uninstall-hooks", "--claude-code"]).ok();
    assert!(!local.exists(), "the file git t3 created is still there");
    assert_eq!(read(&r.root.join(".claude/settings.json")), TEAM_SETTINGS);
    assert_eq!(r.git(&["status", "--porcelain"]), "");
}

#[test]
fn claude_project_settings_keep_their_formatting_and_other_hooks() {
    let originals = [
        // Two spaces, our events already used by the user's own hooks.
        "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\"type\": \"command\", \"command\": \"say done\"}\n        ]\n      }\n    ]\n  },\n  \"model\": \"x\"\n}\n",
        // Four spaces, unusual key order.
        TEAM_SETTINGS,
        // Tabs, no trailing newline.
        "{\n\t\"env\": {\n\t\t\"A\": \"1\"\n\t},\n\t\"apiKeyHelper\": \"x\"\n}",
        // CRLF.
        "{\r\n  \"model\": \"x\"\r\n}\r\n",
        // Comments and trailing commas (JSONC).
        "// the team's\n{\n  /* model */ \"model\": \"x\", // fast\n  \"permissions\": {\"allow\": [\"Bash\",],},\n}\n",
        // A "hooks" object of comments only.
        "{\n  \"hooks\": {\n    // ours later\n  }\n}\n",
    ];
    for original in originals {
        let r = TestRepo::seeded();
        let path = r.root.join(".claude/settings.json");
        write(&path, original);
        r.t3(&["install-hooks", "--claude-code", "--scope", "project"])
            .ok();
        let installed = read(&path);
        let lost = lost_lines(original, &installed);
        assert!(
            lost.len() <= 2,
            "more than a comma changed: {lost:?}\n{installed}"
        );
        let first_indent = |t: &str| {
            t.lines()
                .find(|l| l.starts_with([' ', '\t']))
                .map(|l| l.len() - l.trim_start().len())
        };
        assert_eq!(first_indent(&installed), first_indent(original), "{installed}");
        assert_eq!(original.contains("\r\n"), installed.contains("\r\n"));
        for comment in ["// the team's", "/* model */", "// fast", "// ours later"] {
            assert_eq!(
                original.contains(comment),
                installed.contains(comment),
                "{installed}"
            );
        }
        if !original.contains("//") {
            let v = json(&installed);
            assert!(commands(&v, "Stop").contains(&"git t3 hook claude-code".to_owned()));
            if original.contains("say done") {
                assert_eq!(commands(&v, "Stop"), ["say done", "git t3 hook claude-code"]);
            }
            // Key order: the user's keys come first, in their order.
            let keys: Vec<_> = ["\"$schema\"", "\"permissions\"", "\"model\"", "\"env\""]
                .iter()
                .filter_map(|k| installed.find(k))
                .collect();
            assert!(keys.windows(2).all(|w| w[0] < w[1]), "{installed}");
        }
        r.t3(&["install-hooks", "--claude-code", "--scope", "project"])
            .ok();
        assert_eq!(read(&path), installed, "install twice is install once");
        r.t3(&["uninstall-hooks", "--claude-code", "--scope", "project"])
            .ok();
        assert_eq!(
            read(&path),
            original,
            "uninstall gives the file back byte for byte"
        );
        r.t3(&["uninstall-hooks", "--claude-code", "--scope", "project"])
            .ok();
        assert_eq!(read(&path), original);
    }
}

#[test]
fn claude_uninstall_after_the_user_edited_keeps_their_edit() {
    let r = TestRepo::seeded();
    let path = r.root.join(".claude/settings.json");
    write(&path, TEAM_SETTINGS);
    r.t3(&["install-hooks", "--claude-code", "--scope", "project"])
        .ok();
    let edited = read(&path).replace("\"opus\"", "\"sonnet\"");
    write(&path, &edited);
    let out = r
        .t3(&["uninstall-hooks", "--claude-code", "--scope", "project"])
        .ok()
        .out();
    assert!(out.contains("removed the git t3 hooks"), "{out}");
    assert_eq!(read(&path), TEAM_SETTINGS.replace("\"opus\"", "\"sonnet\""));
}

#[test]
fn claude_settings_that_cannot_be_edited_safely_are_refused_untouched() {
    for bad in [
        "{\"a\": 1,,}",
        "{'a': 1}",
        "[1, 2]",
        "{\"hooks\": []}",
        "{\"hooks\": {\"Stop\": {}}}",
        "{\"a\": \"\u{0}\"",
    ] {
        let r = TestRepo::seeded();
        let path = r.root.join(".claude/settings.local.json");
        write(&path, bad);
        let run = r.t3(&["install-hooks", "--claude-code"]).fails(1);
        assert!(run.stderr.contains("settings.local.json"), "{}", run.stderr);
        assert_eq!(read(&path), bad);
    }
    let r = TestRepo::seeded();
    let path = r.root.join(".claude/settings.local.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, b"{\"a\": \"\xff\"}").unwrap();
    r.t3(&["install-hooks", "--claude-code"]).fails(1);
    let deep = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
    write(&path, &deep);
    r.t3(&["install-hooks", "--claude-code"]).fails(1);
    assert_eq!(read(&path), deep);
}

#[test]
fn claude_user_scope_lives_in_home_and_needs_no_repository() {
    let r = TestRepo::new();
    let outside = r.tmp().to_owned();
    let path = r.home.join(".claude/settings.json");
    let original = "{\n    \"model\": \"opus\"\n}\n";
    write(&path, original);
    r.t3_in(&outside, &["install-hooks", "--claude-code", "--scope", "user"])
        .ok();
    assert_eq!(
        commands(&json(&read(&path)), "UserPromptSubmit"),
        ["git t3 hook claude-code"]
    );
    r.t3_in(&outside, &["uninstall-hooks", "--claude-code", "--scope", "user"])
        .ok();
    assert_eq!(read(&path), original);
    // The repository-scoped default needs one.
    r.t3_in(&outside, &["install-hooks", "--claude-code"]).fails(1);
}

#[test]
fn a_linked_user_config_folder_is_used_but_no_link_below_it() {
    let r = TestRepo::new();
    // A dotfiles set-up: ~/.claude itself is a link; the file goes there.
    let dotfiles = r.home.join("dotfiles/claude");
    std::fs::create_dir_all(&dotfiles).unwrap();
    let dir = r.home.join(".claude");
    std::os::unix::fs::symlink(&dotfiles, &dir).unwrap();
    r.t3(&["install-hooks", "--claude-code", "--scope", "user"]).ok();
    assert!(std::fs::symlink_metadata(&dir).unwrap().file_type().is_symlink());
    assert!(read(&dotfiles.join("settings.json")).contains("git t3 hook claude-code"));
    r.t3(&["uninstall-hooks", "--claude-code", "--scope", "user"])
        .ok();
    assert!(!dotfiles.join("settings.json").exists());
    assert!(dotfiles.is_dir());
    // A linked file below it is refused, at install and at uninstall.
    let linked = r.home.join("dotfiles/claude.json");
    let original = "{\n  \"model\": \"opus\"\n}\n";
    write(&linked, original);
    std::os::unix::fs::symlink(&linked, dotfiles.join("settings.json")).unwrap();
    for command in ["install-hooks", "uninstall-hooks"] {
        let run = r.t3(&[command, "--claude-code", "--scope", "user"]).fails(1);
        assert!(
            run.stderr.contains("settings.json is a symbolic link"),
            "{}",
            run.stderr
        );
        assert_eq!(read(&linked), original);
    }
    // Codex: the feature flag's config.toml too, before hooks.json is written.
    let codex = r.home.join(".codex");
    std::fs::create_dir_all(&codex).unwrap();
    let config = r.home.join("dotfiles/config.toml");
    write(&config, "model = \"o3\"\n");
    std::os::unix::fs::symlink(&config, codex.join("config.toml")).unwrap();
    let run = r.t3(&["install-hooks", "--codex"]).fails(1);
    assert!(
        run.stderr.contains("config.toml is a symbolic link"),
        "{}",
        run.stderr
    );
    assert_eq!(read(&config), "model = \"o3\"\n");
    assert!(!codex.join("hooks.json").exists());
    // opencode: ~/.config/opencode may be a link, its plugins folder not.
    let plugins = r.home.join("dotfiles/plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::create_dir_all(r.home.join(".config/opencode")).unwrap();
    std::os::unix::fs::symlink(&plugins, r.home.join(".config/opencode/plugins")).unwrap();
    let run = r.t3(&["install-hooks", "--opencode"]).fails(1);
    assert!(
        run.stderr.contains("plugins is a symbolic link"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_dir(&plugins).unwrap().count(), 0);
    assert!(
        !r.home.join(".local/state/git-t3").exists(),
        "a record was written"
    );
}

/// `name` in a folder outside the repository, holding `text`.
fn outside_file(r: &TestRepo, name: &str, text: &str) -> PathBuf {
    let path = r.tmp().join("outside").join(name);
    write(&path, text);
    path
}

/// What a refused install or uninstall must have left as it was.
struct Untouched {
    exclude: Option<String>,
    status: String,
}

impl Untouched {
    fn of(r: &TestRepo) -> Self {
        Untouched {
            exclude: std::fs::read_to_string(r.root.join(".git/info/exclude")).ok(),
            status: r.git(&["status", "--porcelain"]),
        }
    }

    #[track_caller]
    fn check(&self, r: &TestRepo, what: &str) {
        let exclude = std::fs::read_to_string(r.root.join(".git/info/exclude")).ok();
        assert_eq!(exclude, self.exclude, "{what}: info/exclude changed");
        assert_eq!(r.git(&["status", "--porcelain"]), self.status, "{what}");
        assert!(
            !r.root.join(".git/t3/install").exists(),
            "{what}: a record was written"
        );
        assert!(!r.home.join(".codex").exists(), "{what}: ~/.codex was written");
    }
}

/// Every agent's file inside the repository, with the options that install it.
const IN_REPO: [(&[&str], &str); 5] = [
    (&["--claude-code"], ".claude/settings.local.json"),
    (&["--claude-code", "--scope", "project"], ".claude/settings.json"),
    (&["--codex", "--scope", "project"], ".codex/hooks.json"),
    (&["--cursor", "--scope", "project"], ".cursor/hooks.json"),
    (
        &["--opencode", "--scope", "project"],
        ".opencode/plugins/git-t3.js",
    ),
];

#[test]
fn a_committed_link_at_a_settings_file_is_never_written_through() {
    for (options, rel) in IN_REPO {
        let r = TestRepo::seeded();
        // Text each agent's install would edit (an older plugin of ours).
        let text = if rel.ends_with(".js") {
            "// git-t3 opencode plugin, an old one\n"
        } else {
            "{\n  \"model\": \"x\"\n}\n"
        };
        let target = outside_file(&r, "target", text);
        std::fs::create_dir_all(r.root.join(rel).parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&target, r.root.join(rel)).unwrap();
        r.commit_all("a link");
        let before = Untouched::of(&r);
        let mut args = vec!["install-hooks"];
        args.extend_from_slice(options);
        let run = r.t3(&args).fails(1);
        assert!(
            run.stderr.contains(&format!("{rel} is a symbolic link")),
            "{rel}: {}",
            run.stderr
        );
        assert_eq!(read(&target), text, "{rel}: written through the link");
        assert!(
            std::fs::symlink_metadata(r.root.join(rel))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        before.check(&r, rel);
    }
}

#[test]
fn a_committed_link_at_a_settings_folder_is_never_written_through() {
    for (options, link) in [
        (&["--claude-code"][..], ".claude"),
        (&["--claude-code", "--scope", "project"][..], ".claude"),
        (&["--codex", "--scope", "project"][..], ".codex"),
        (&["--cursor", "--scope", "project"][..], ".cursor"),
        (&["--opencode", "--scope", "project"][..], ".opencode/plugins"),
    ] {
        let r = TestRepo::seeded();
        let target = r.tmp().join("outside");
        std::fs::create_dir_all(&target).unwrap();
        std::fs::create_dir_all(r.root.join(link).parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&target, r.root.join(link)).unwrap();
        r.commit_all("a link");
        let before = Untouched::of(&r);
        let mut args = vec!["install-hooks"];
        args.extend_from_slice(options);
        let run = r.t3(&args).fails(1);
        assert!(
            run.stderr.contains(&format!("{link} is a symbolic link")),
            "{link}: {}",
            run.stderr
        );
        assert_eq!(
            std::fs::read_dir(&target).unwrap().count(),
            0,
            "{options:?}: written through {link}"
        );
        before.check(&r, link);
    }
}

#[test]
fn uninstall_never_writes_through_a_linked_file() {
    for (options, rel) in [IN_REPO[0], IN_REPO[2]] {
        let r = TestRepo::seeded();
        let mut args = vec!["install-hooks"];
        args.extend_from_slice(options);
        r.t3(&args).ok();
        // The installed file moved outside, a link in its place.
        let path = r.root.join(rel);
        let installed = read(&path);
        let target = outside_file(&r, "moved", &installed);
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&target, &path).unwrap();
        let exclude = std::fs::read_to_string(r.root.join(".git/info/exclude")).ok();
        args[0] = "uninstall-hooks";
        let run = r.t3(&args).fails(1);
        assert!(
            run.stderr.contains(&format!("{rel} is a symbolic link")),
            "{rel}: {}",
            run.stderr
        );
        assert_eq!(read(&target), installed, "{rel}: written through the link");
        assert!(std::fs::symlink_metadata(&path).unwrap().file_type().is_symlink());
        assert_eq!(
            std::fs::read_to_string(r.root.join(".git/info/exclude")).ok(),
            exclude
        );
    }
}

#[test]
fn git_hooks_and_the_exclude_file_are_never_written_through_a_link() {
    // A pre-push hook linked to a script of the repository's.
    let r = TestRepo::seeded();
    r.write("scripts/pre-push", "#!/bin/sh\necho team\n");
    r.commit_all("team hook");
    std::fs::create_dir_all(r.root.join(".git/hooks")).unwrap();
    std::os::unix::fs::symlink(
        r.root.join("scripts/pre-push"),
        r.root.join(".git/hooks/pre-push"),
    )
    .unwrap();
    let run = r.t3(&["install-hooks", "--git"]).fails(1);
    assert!(
        run.stderr.contains("pre-push is a symbolic link"),
        "{}",
        run.stderr
    );
    assert_eq!(read(&r.root.join("scripts/pre-push")), "#!/bin/sh\necho team\n");
    assert!(
        std::fs::symlink_metadata(r.root.join(".git/hooks/pre-push"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // The hooks folder itself.
    let r = TestRepo::seeded();
    let target = r.tmp().join("outside");
    std::fs::create_dir_all(&target).unwrap();
    let _ = std::fs::remove_dir_all(r.root.join(".git/hooks"));
    std::os::unix::fs::symlink(&target, r.root.join(".git/hooks")).unwrap();
    let run = r.t3(&["install-hooks", "--git"]).fails(1);
    assert!(run.stderr.contains("hooks is a symbolic link"), "{}", run.stderr);
    assert_eq!(std::fs::read_dir(&target).unwrap().count(), 0);
    // info/exclude, and the info folder: refused before the settings are written.
    for (link, is_dir) in [("info/exclude", false), ("info", true)] {
        let r = TestRepo::seeded();
        let target = if is_dir {
            let d = r.tmp().join("outside");
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("exclude"), "# theirs\n").unwrap();
            d
        } else {
            outside_file(&r, "exclude", "# theirs\n")
        };
        let at = r.root.join(".git").join(link);
        let _ = std::fs::remove_dir_all(&at);
        let _ = std::fs::remove_file(&at);
        std::os::unix::fs::symlink(&target, &at).unwrap();
        let run = r.t3(&["install-hooks", "--claude-code"]).fails(1);
        assert!(
            run.stderr.contains(&format!("{link} is a symbolic link")),
            "{link}: {}",
            run.stderr
        );
        let exclude = if is_dir { target.join("exclude") } else { target };
        assert_eq!(read(&exclude), "# theirs\n", "{link}: written through");
        assert!(!r.root.join(".claude").exists(), "{link}: settings written");
    }
}

#[test]
fn a_fifo_where_install_reads_is_refused_at_once() {
    use crate::util::mkfifo;
    // (what to install, the FIFO, what it must not have written)
    let cases: [(&[&str], &str, &str); 6] = [
        (
            &["--claude-code"],
            ".claude/settings.local.json",
            ".git/t3/install",
        ),
        (&["--claude-code"], ".git/t3/install/records.json", ".claude"),
        (&["--claude-code"], ".git/info/exclude", ".claude"),
        (
            &["--codex", "--scope", "project"],
            ".codex/hooks.json",
            ".git/t3/install",
        ),
        (&["--git"], ".git/hooks/pre-push", ".git/t3/install"),
        (
            &["--claude-code", "--scope", "user"],
            "../home/.local/state/git-t3/install-records.json",
            "../home/.claude",
        ),
    ];
    for (options, fifo, unwritten) in cases {
        let r = TestRepo::seeded();
        let path = r.root.join(fifo);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let _ = std::fs::remove_file(&path);
        mkfifo(&path);
        for command in ["install-hooks", "uninstall-hooks"] {
            let mut args = vec![command];
            args.extend_from_slice(options);
            let run = r.t3_within(&args, 10).fails(1);
            let name = Path::new(fifo).file_name().unwrap().to_str().unwrap();
            assert!(run.stderr.contains(name), "{command} {fifo}: {}", run.stderr);
            assert!(
                run.stderr.contains("not a regular file"),
                "{command} {fifo}: {}",
                run.stderr
            );
            assert!(
                !r.root.join(unwritten).exists(),
                "{command} {fifo}: {unwritten} written"
            );
        }
    }
}

#[test]
fn uninstall_at_the_wrong_scope_says_where_the_hooks_are() {
    let r = TestRepo::seeded();
    r.t3(&["install-hooks", "--claude-code", "--scope", "project"])
        .ok();
    // Committed: the team's file, so the default scope is local.
    r.commit_all("hooks for everyone");
    let out = r.t3(&["uninstall-hooks", "--claude-code"]).ok().out();
    assert!(out.contains("--scope project"), "{out}");
    assert!(r.root.join(".claude/settings.json").exists());
}

#[test]
fn usage_errors_change_nothing() {
    let r = TestRepo::seeded();
    r.t3(&["install-hooks"]).fails(2);
    r.t3(&["uninstall-hooks"]).fails(2);
    r.t3(&["install-hooks", "--codex", "--scope", "local"]).fails(2);
    r.t3(&["install-hooks", "--claude-code", "--scope", "team"])
        .fails(2);
    r.t3(&["install-hooks", "--codex-notify", "--scope", "project"])
        .fails(2);
    assert!(!r.home.join(".codex").exists());
    assert!(!r.root.join(".claude").exists());
}

const CODEX_CONFIG: &str = r#"# my Codex
model = "o3" # the good one
approval_policy = "on-request"

[profiles.fast]
model = "o4-mini"

# servers
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
"#;

#[test]
fn codex_lifecycle_hooks_and_the_feature_flag() {
    let r = TestRepo::seeded();
    let config = r.home.join(".codex/config.toml");
    write(&config, CODEX_CONFIG);
    let out = r.t3(&["install-hooks", "--codex"]).ok().out();
    assert!(
        out.contains("/hooks"),
        "the user is told to trust the hooks: {out}"
    );
    let hooks = r.home.join(".codex/hooks.json");
    assert_eq!(read(&hooks), include_str!("../../hooks/codex/hooks.json"));
    let v = json(&read(&hooks));
    for event in [
        "SessionStart",
        "UserPromptSubmit",
        "Stop",
        "Interrupt",
        "SessionEnd",
    ] {
        assert_eq!(commands(&v, event), ["git t3 hook codex"], "{event}");
    }
    let text = read(&config);
    assert!(text.starts_with(CODEX_CONFIG), "only added at the end:\n{text}");
    let parsed: toml::Table = toml::from_str(&text).unwrap();
    assert_eq!(parsed["features"]["hooks"].as_bool(), Some(true));
    r.t3(&["install-hooks", "--codex"]).ok();
    assert_eq!(read(&config), text, "install twice is install once");
    // The repository's own hooks file needs the flag too.
    r.t3(&["install-hooks", "--codex", "--scope", "project"]).ok();
    assert!(r.root.join(".codex/hooks.json").is_file());
    r.t3(&["uninstall-hooks", "--codex"]).ok();
    assert!(!hooks.exists());
    assert_eq!(read(&config), text, "the project's hooks still need the flag");
    r.t3(&["uninstall-hooks", "--codex", "--scope", "project"]).ok();
    assert!(!r.root.join(".codex").exists());
    assert_eq!(read(&config), CODEX_CONFIG, "config.toml back byte for byte");
    assert!(r.home.join(".codex").is_dir(), "the user's folder stays");
}

#[test]
fn codex_flag_already_set_by_the_user_is_left_alone() {
    let r = TestRepo::new();
    let config = r.home.join(".codex/config.toml");
    let original = "[features]\nhooks = true # newer Codex\n";
    write(&config, original);
    r.t3(&["install-hooks", "--codex"]).ok();
    assert_eq!(read(&config), original);
    r.t3(&["uninstall-hooks", "--codex"]).ok();
    assert_eq!(read(&config), original);
    // One the user turned off is turned on, and off again on uninstall.
    let off = "[features]\nhooks = false\n";
    write(&config, off);
    let out = r.t3(&["install-hooks", "--codex"]).ok().out();
    assert!(out.contains("was off"), "{out}");
    assert_eq!(read(&config), "[features]\nhooks = true\n");
    r.t3(&["uninstall-hooks", "--codex"]).ok();
    assert_eq!(read(&config), off);
}

fn top_level_notify(text: &str) -> Vec<String> {
    let parsed: toml::Table = toml::from_str(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    parsed["notify"]
        .as_array()
        .unwrap_or_else(|| panic!("no top-level notify:\n{text}"))
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn codex_notify_lands_top_level_and_chains_the_users_notifier() {
    let r = TestRepo::new();
    let config = r.home.join(".codex/config.toml");
    write(&config, CODEX_CONFIG);
    r.t3(&["install-hooks", "--codex-notify"]).ok();
    let text = read(&config);
    assert_eq!(top_level_notify(&text), ["git", "t3", "hook", "codex"]);
    let parsed: toml::Table = toml::from_str(&text).unwrap();
    assert!(parsed["mcp_servers"]["docs"].get("notify").is_none());
    assert_eq!(lost_lines(CODEX_CONFIG, &text), Vec::<String>::new());
    r.t3(&["uninstall-hooks", "--codex-notify"]).ok();
    assert_eq!(read(&config), CODEX_CONFIG);

    // A notifier of the user's own runs after ours, and comes back as written.
    let theirs = "model = \"o3\"\nnotify = [\n  \"python3\",\n  \"/home/me/notify.py\", # says done\n] # mine\n\n[tui]\nnotifications = true\n";
    write(&config, theirs);
    let out = r.t3(&["install-hooks", "--codex-notify"]).ok().out();
    assert!(out.contains("python3 /home/me/notify.py"), "{out}");
    let text = read(&config);
    assert_eq!(
        top_level_notify(&text),
        [
            "git",
            "t3",
            "hook",
            "codex",
            "--then",
            "python3",
            "/home/me/notify.py"
        ]
    );
    assert!(text.contains("# mine"), "{text}");
    r.t3(&["install-hooks", "--codex-notify"]).ok();
    assert_eq!(read(&config), text, "install twice is install once");
    // The user changes something else meanwhile: their notify comes back
    // exactly as written, and their change stays.
    write(
        &config,
        &text.replace("notifications = true", "notifications = false"),
    );
    r.t3(&["uninstall-hooks", "--codex-notify"]).ok();
    assert_eq!(
        read(&config),
        theirs.replace("notifications = true", "notifications = false")
    );
}

#[test]
fn codex_notify_misplaced_by_the_old_readme_is_moved_top_level() {
    let r = TestRepo::new();
    let config = r.home.join(".codex/config.toml");
    let old = format!("{CODEX_CONFIG}notify = [\"git\", \"t3\", \"hook\", \"codex\"]\n");
    write(&config, &old);
    let out = r.t3(&["install-hooks", "--codex-notify"]).ok().out();
    assert!(out.contains("mcp_servers.docs"), "{out}");
    let text = read(&config);
    assert_eq!(top_level_notify(&text), ["git", "t3", "hook", "codex"]);
    let parsed: toml::Table = toml::from_str(&text).unwrap();
    assert!(parsed["mcp_servers"]["docs"].get("notify").is_none(), "{text}");
    r.t3(&["uninstall-hooks", "--codex-notify"]).ok();
    assert_eq!(read(&config), old);
}

#[test]
fn codex_config_that_is_not_toml_is_refused_untouched() {
    let r = TestRepo::new();
    let config = r.home.join(".codex/config.toml");
    for bad in ["model = \n", "notify = \"say\"\n", "features = 1\n"] {
        write(&config, bad);
        r.t3(&["install-hooks", "--codex-notify", "--codex"]).fails(1);
        assert_eq!(read(&config), bad);
        assert!(
            !r.home.join(".codex/hooks.json").exists(),
            "nothing is written when one file cannot be edited"
        );
    }
}

#[test]
fn codex_home_moves_the_user_files() {
    let r = TestRepo::new();
    let codex_home = r.tmp().join("codex-home");
    r.extra_env_set("CODEX_HOME", codex_home.to_str().unwrap());
    r.t3(&["install-hooks", "--codex", "--codex-notify"]).ok();
    assert!(codex_home.join("hooks.json").is_file());
    assert!(read(&codex_home.join("config.toml")).contains("hooks = true"));
    assert!(!r.home.join(".codex").exists());
    r.t3(&["uninstall-hooks", "--codex", "--codex-notify"]).ok();
    assert!(!codex_home.exists(), "what git t3 created is gone");
}

#[test]
fn cursor_hooks_json_user_and_project() {
    let r = TestRepo::seeded();
    let user = r.home.join(".cursor/hooks.json");
    r.t3(&["install-hooks", "--cursor"]).ok();
    assert_eq!(read(&user), include_str!("../../hooks/cursor/hooks.json"));
    let v = json(&read(&user));
    assert_eq!(v["version"], 1);
    assert_eq!(
        v["hooks"]["beforeSubmitPrompt"][0]["command"],
        "git t3 hook cursor"
    );
    assert_eq!(v["hooks"]["stop"][0]["command"], "git t3 hook cursor");
    r.t3(&["uninstall-hooks", "--cursor"]).ok();
    assert!(!r.home.join(".cursor").exists());

    let project = r.root.join(".cursor/hooks.json");
    let theirs = "{\n\t\"version\": 1,\n\t\"hooks\": {\n\t\t\"stop\": [\n\t\t\t{ \"command\": \"./audit.sh\" }\n\t\t],\n\t\t\"afterFileEdit\": [\n\t\t\t{ \"command\": \"./fmt.sh\" }\n\t\t]\n\t}\n}\n";
    write(&project, theirs);
    r.t3(&["install-hooks", "--cursor", "--scope", "project"]).ok();
    let text = read(&project);
    let v = json(&text);
    assert_eq!(v["hooks"]["stop"][0]["command"], "./audit.sh");
    assert_eq!(v["hooks"]["stop"][1]["command"], "git t3 hook cursor");
    assert_eq!(v["hooks"]["afterFileEdit"][0]["command"], "./fmt.sh");
    assert!(
        text.contains("\n\t\t\"beforeSubmitPrompt\": ["),
        "tabs kept:\n{text}"
    );
    r.t3(&["install-hooks", "--cursor", "--scope", "project"]).ok();
    assert_eq!(read(&project), text);
    r.t3(&["uninstall-hooks", "--cursor", "--scope", "project"]).ok();
    assert_eq!(read(&project), theirs);
}

#[test]
fn opencode_plugin_is_written_and_removed_only_while_unchanged() {
    let r = TestRepo::seeded();
    let user: PathBuf = r.home.join(".config/opencode/plugins/git-t3.js");
    r.t3(&["install-hooks", "--opencode"]).ok();
    assert_eq!(
        read(&user),
        include_str!("../../hooks/opencode/plugins/git-t3.js")
    );
    r.t3(&["install-hooks", "--opencode"]).ok();
    r.t3(&["uninstall-hooks", "--opencode"]).ok();
    assert!(!r.home.join(".config/opencode").exists());

    let project = r.root.join(".opencode/plugins/git-t3.js");
    std::fs::create_dir_all(r.root.join(".opencode")).unwrap();
    r.t3(&["install-hooks", "--opencode", "--scope", "project"]).ok();
    let changed = format!("{}// my tweak\n", read(&project));
    write(&project, &changed);
    let out = r
        .t3(&["uninstall-hooks", "--opencode", "--scope", "project"])
        .ok()
        .out();
    assert!(out.contains("left in place"), "{out}");
    assert_eq!(read(&project), changed);
    // A plugin of the user's that happens to have our name is not ours.
    let theirs = "export const Mine = async () => ({})\n";
    write(&project, theirs);
    r.t3(&["install-hooks", "--opencode", "--scope", "project"])
        .fails(1);
    r.t3(&["uninstall-hooks", "--opencode", "--scope", "project"])
        .ok();
    assert_eq!(read(&project), theirs);
    assert!(r.root.join(".opencode").is_dir());
}

#[test]
fn json_output_lists_each_change() {
    let r = TestRepo::seeded();
    let v = r.t3_json(&["install-hooks", "--claude-code", "--cursor"]);
    let changes = v["changes"].as_array().unwrap();
    // Claude Code's hooks, the info/exclude line for its local file, Cursor's.
    assert_eq!(changes.len(), 3, "{v}");
    assert_eq!(changes[0]["action"], "added");
    assert_eq!(changes[0]["what"]["agent"], "claude-code");
    assert_eq!(changes[1]["what"]["kind"], "excluded", "{v}");
    assert_eq!(
        changes[2]["what"]["events"],
        serde_json::json!(["beforeSubmitPrompt", "stop"])
    );
    let v = r.t3_json(&["uninstall-hooks", "--claude-code", "--cursor"]);
    let actions: Vec<_> = v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["action"].clone())
        .collect();
    // Uninstall goes the other way round: Cursor, then Claude Code and its line.
    assert_eq!(actions, ["deleted", "deleted", "removed"]);
}

#[test]
fn git_pre_push_block_leaves_an_existing_hook_byte_identical() {
    let r = TestRepo::seeded();
    let hook = r.root.join(".git/hooks/pre-push");
    let user_hook = "#!/bin/sh\necho user pre-push"; // no trailing newline
    r.write(".git/hooks/pre-push", user_hook);
    r.t3(&["install-hooks", "--git"]).ok();
    assert!(read(&hook).contains("t3.pushCheckpoints"));
    let installed = read(&hook);
    r.t3(&["install-hooks", "--git"]).ok();
    assert_eq!(read(&hook), installed);
    r.t3(&["uninstall-hooks", "--git"]).ok();
    assert_eq!(read(&hook), user_hook);
}

#[test]
fn git_pre_push_block_pushes_checkpoints_and_goes_away_whole() {
    let r = TestRepo::seeded();
    r.git(&["config", "core.hooksPath", "myhooks"]);
    r.t3(&["install-hooks", "--git"]).ok();
    let hook = r.root.join("myhooks/pre-push");
    assert!(hook.is_file(), "core.hooksPath not honoured");
    let remote = r.tmp().join("remote.git");
    r.git_in(r.tmp(), &["init", "-q", "--bare", remote.to_str().unwrap()])
        .ok();
    r.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    r.t3(&["baseline", "--thread", "t"]).ok();
    r.git(&["config", "t3.pushCheckpoints", "true"]);
    r.git(&["push", "-q", "origin", "main"]);
    let remote_refs = r
        .git_in(
            r.tmp(),
            &["--git-dir", remote.to_str().unwrap(), "for-each-ref", "refs/t3/"],
        )
        .ok()
        .out();
    assert!(remote_refs.contains(&ref_for("t", 0)), "{remote_refs}");
    r.t3(&["uninstall-hooks", "--git"]).ok();
    assert!(!hook.exists(), "the hook git t3 created is still there");
}

#[test]
fn a_file_git_t3_created_that_the_user_added_to_stays_with_their_part() {
    let r = TestRepo::seeded();
    let local = r.root.join(".claude/settings.local.json");
    r.t3(&["install-hooks", "--claude-code"]).ok();
    // The user adds a setting, and deletes one of our hooks by hand.
    let mut v = json(&read(&local));
    v["model"] = "sonnet".into();
    v["hooks"].as_object_mut().unwrap().remove("StopFailure");
    write(&local, &serde_json::to_string_pretty(&v).unwrap());
    let out = r.t3(&["install-hooks", "--claude-code"]).ok().out();
    assert!(
        out.contains("for StopFailure"),
        "only the missing hook is added: {out}"
    );
    r.t3(&["uninstall-hooks", "--claude-code"]).ok();
    let left = read(&local);
    assert!(!left.contains("git t3"), "{left}");
    assert_eq!(json(&left), serde_json::json!({"model": "sonnet"}));
}

#[test]
fn claude_default_scope_is_an_untracked_settings_json_of_this_checkout() {
    // Not tracked by git: this checkout's own file, not the team's.
    let r = TestRepo::seeded();
    r.write(".claude/settings.json", TEAM_SETTINGS);
    let out = r.t3(&["install-hooks", "--claude-code"]).ok().out();
    assert!(out.contains(".claude/settings.json"), "{out}");
    let settings = json(&read(&r.root.join(".claude/settings.json")));
    assert_eq!(commands(&settings, "Stop"), ["git t3 hook claude-code"]);
    assert!(!r.root.join(".claude/settings.local.json").exists());
    r.t3(&["uninstall-hooks", "--claude-code"]).ok();
    assert_eq!(read(&r.root.join(".claude/settings.json")), TEAM_SETTINGS);
}

/// The per-checkout settings file install writes is kept out of git (and
/// so out of every checkpoint) by a line in info/exclude, never in
/// .gitignore; uninstall takes exactly that line out again.
#[test]
fn the_local_settings_file_stays_out_of_git_and_of_checkpoints() {
    let r = TestRepo::seeded();
    let exclude = r.root.join(".git/info/exclude");
    let before = std::fs::read(&exclude).ok();
    r.t3(&["install-hooks", "--claude-code"]).ok();
    let status = r.git(&["status", "--porcelain", "--untracked-files=all"]);
    assert!(!status.contains("settings.local.json"), "{status}");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let tree = r.git(&["ls-tree", "-r", "--name-only", &ref_for(THREAD, 0)]);
    assert!(!tree.contains(".claude"), "{tree}");
    assert!(
        !r.root.join(".gitignore").exists()
            || !std::fs::read_to_string(r.root.join(".gitignore"))
                .unwrap()
                .contains(".claude")
    );
    r.t3(&["uninstall-hooks", "--claude-code"]).ok();
    assert_eq!(
        std::fs::read(&exclude).ok(),
        before,
        "info/exclude is not as it was"
    );
    // Already ignored: no line is added.
    r.write(".gitignore", ".claude/\n");
    r.t3(&["install-hooks", "--claude-code"]).ok();
    assert_eq!(
        std::fs::read(&exclude).ok(),
        before,
        "a line was added for an ignored file"
    );
}
