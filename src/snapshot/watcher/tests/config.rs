//! Which watcher the configuration chooses.

use super::*;
use crate::testing::git;

fn configured_with(config: &[(&str, &str)]) -> (Option<Watcher>, Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    for (key, value) in config {
        git(dir.path(), &["config", key, value]);
    }
    let repo = gix::open_opts(dir.path(), gix::open::Options::isolated()).unwrap();
    configured(&repo)
}

#[test]
fn configured_watchers() {
    let hook = || Some(Watcher::Hook(".git/hooks/query-watchman".into()));
    let core = ("core.fsmonitor", ".git/hooks/query-watchman");
    assert_eq!(configured_with(&[]), (None, None));
    assert_eq!(configured_with(&[core]), (hook(), None));
    for value in ["true", "false", "yes", "off", "1", "0", ""] {
        assert_eq!(
            configured_with(&[("core.fsmonitor", value)]),
            (None, None),
            "{value}"
        );
    }
    assert_eq!(
        configured_with(&[("t3.fsmonitor", "watchman")]),
        (Some(Watcher::Watchman), None)
    );
    assert_eq!(
        configured_with(&[core, ("t3.fsmonitor", "Watchman")]),
        (Some(Watcher::Watchman), None)
    );
    for value in ["hook", "true"] {
        assert_eq!(
            configured_with(&[core, ("t3.fsmonitor", value)]),
            (hook(), None),
            "{value}"
        );
    }
    for core in [None, Some("true"), Some("false")] {
        let mut config = vec![("t3.fsmonitor", "hook")];
        config.extend(core.map(|v| ("core.fsmonitor", v)));
        let (w, warning) = configured_with(&config);
        assert_eq!(w, None);
        assert!(warning.unwrap().contains("core.fsmonitor names none"), "{core:?}");
    }
    for value in ["false", "off", "0"] {
        assert_eq!(
            configured_with(&[core, ("t3.fsmonitor", value)]),
            (None, None),
            "{value}"
        );
    }
    let (w, warning) = configured_with(&[core, ("t3.fsmonitor", "fanotify\x1b[31m")]);
    assert_eq!(w, None);
    let warning = warning.unwrap();
    assert!(
        warning.contains("t3.fsmonitor = fanotify\\u{1b}[31m"),
        "{warning}"
    );
    assert!(warning.contains("expected watchman, hook or false"), "{warning}");

    let (w, warning) = configured_with(&[core, ("core.fsmonitorHookVersion", "1")]);
    assert_eq!(w, None);
    assert!(warning.unwrap().contains("version 2"));
    assert_eq!(
        configured_with(&[core, ("core.fsmonitorHookVersion", "2")]),
        (hook(), None)
    );
}

#[test]
fn configured_implicit_true_is_gits_daemon() {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    let config = dir.path().join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("[core]\n\tfsmonitor\n");
    std::fs::write(&config, text).unwrap();
    let repo = gix::open_opts(dir.path(), gix::open::Options::isolated()).unwrap();
    assert_eq!(configured(&repo), (None, None));
}
