//! The revert saga: restore, provider, refs, record; continue, abort, undo.

use std::time::{Duration, SystemTime};

use crate::util::{THREAD, TestRepo, ref_for};

/// A thread with turns 0..=3; returns the oracle tree of each turn.
fn three_turns(r: &TestRepo, provider: Option<&str>) -> Vec<String> {
    let mut args = vec!["baseline", "--thread", THREAD];
    if let Some(p) = provider {
        args.extend(["--provider", p]);
    }
    r.t3(&args).ok();
    let mut trees = vec![r.oracle_tree()];
    for i in 1..=3 {
        r.write(&format!("t{i}.txt"), &format!("turn {i}\n"));
        r.write("README.md", &format!("readme at {i}\n"));
        if i == 2 {
            r.remove("src/lib.rs");
            r.write("deep/er/file.txt", "deep\n");
        }
        r.t3(&["capture", "--thread", THREAD]).ok();
        trees.push(r.oracle_tree());
    }
    trees
}

/// A provider helper script in its own PATH directory; `body` is shell.
fn helper(r: &TestRepo, name: &str, body: &str) -> String {
    let dir = r.tmp().join("helpers");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("git-t3-provider-{name}"));
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!("{}:{}", dir.display(), std::env::var("PATH").unwrap_or_default())
}

#[test]
fn restores_the_turn_and_touches_nothing_else() {
    let r = TestRepo::seeded();
    let trees = three_turns(&r, None);
    r.write("scratch.tmp", "untracked, not ignored\n");
    r.write("keep.log", "ignored: must survive\n");
    r.write("build/out.o", "ignored dir\n");
    r.git(&["add", "README.md"]);
    let head = r.git(&["rev-parse", "HEAD"]);
    let c1 = r.git(&["rev-parse", &ref_for(THREAD, 1)]);
    // An unchanged file keeps its mtime (no churn for build tools).
    let untouched = r.root.join("docs/old name.txt");
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
    std::fs::File::options()
        .write(true)
        .open(&untouched)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let out = r
        .t3(&["--json", "revert", "--thread", THREAD, "--to", "1"])
        .ok()
        .json();
    assert_eq!(out["from_turn"], 3);
    assert_eq!(r.oracle_tree(), trees[1]);
    assert!(!r.root.join("scratch.tmp").exists(), "untracked file survived");
    assert!(!r.root.join("deep").exists(), "emptied folders were left");
    assert_eq!(
        std::fs::read_to_string(r.root.join("keep.log")).unwrap(),
        "ignored: must survive\n"
    );
    assert!(r.root.join("build/out.o").exists());
    assert_eq!(
        std::fs::metadata(&untouched).unwrap().modified().unwrap(),
        old,
        "an unchanged file was rewritten"
    );
    assert_eq!(r.git(&["rev-parse", "HEAD"]), head);
    assert_eq!(r.git(&["symbolic-ref", "HEAD"]), "refs/heads/main");
    assert_eq!(
        r.git_in(&r.root, &["diff", "--cached", "--quiet"]).code,
        0,
        "index is not HEAD"
    );
    assert_eq!(
        r.refs("refs/t3/checkpoints/"),
        vec![ref_for(THREAD, 0), ref_for(THREAD, 1)]
    );
    assert_eq!(r.git(&["rev-parse", &ref_for(THREAD, 1)]), c1, "target rewritten");
    assert!(r.refs("refs/t3/reverts/").is_empty(), "journal left");
    assert!(
        r.refs("refs/t3/undo/").is_empty(),
        "the old single-slot undo ref is written"
    );
    assert_eq!(
        r.git(&["log", "-1", "--format=%s", "refs/t3/ops"]),
        format!("t3 op revert thread={THREAD}"),
        "the revert is not in the operation log"
    );
    let note = r.note(&ref_for(THREAD, 1));
    assert!(
        note.contains("[[reverts]]") && note.contains("from = 3"),
        "{note}"
    );
    // The next turn is 2 again.
    r.write("t2b.txt", "new turn 2\n");
    assert_eq!(r.t3_json(&["capture", "--thread", THREAD])["turn"], 2);
    r.git(&["fsck", "--no-progress"]);
}

#[test]
fn dry_run_lists_and_changes_nothing() {
    let r = TestRepo::seeded();
    three_turns(&r, None);
    r.write("scratch.tmp", "x\n");
    let refs = r.refs("refs/");
    let tree = r.oracle_tree();
    let out = r.t3_json(&["revert", "--thread", THREAD, "--to", "1", "--dry-run"]);
    assert_eq!(out["action"], "dry-run");
    let deletes: Vec<&str> = out["files"]["delete"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        deletes.contains(&"scratch.tmp") && deletes.contains(&"t2.txt"),
        "{deletes:?}"
    );
    assert_eq!(out["refs"].as_array().unwrap().len(), 2);
    assert_eq!(r.refs("refs/"), refs, "dry run changed refs");
    assert_eq!(r.oracle_tree(), tree, "dry run changed files");
}

#[test]
fn provider_failure_keeps_the_journal_then_continue_finishes() {
    let r = TestRepo::seeded();
    let flag = r.tmp().join("fail-once");
    std::fs::write(&flag, "1").unwrap();
    let path = helper(
        &r,
        "flaky",
        &format!(
            "cat > '{0}.in'\nif [ -e '{0}' ]; then rm '{0}'; echo 'provider is offline' >&2; exit 3; fi",
            flag.display()
        ),
    );
    r.extra_env_set("PATH", &path);
    let trees = three_turns(&r, Some("flaky"));
    let out = r.t3(&["revert", "--thread", THREAD, "--to", "1"]).fails(1);
    assert!(out.stderr.contains("provider is offline"), "{}", out.stderr);
    assert_eq!(r.refs("refs/t3/reverts/").len(), 1);
    let status = r.t3_json(&["list", "--thread", THREAD]);
    assert_eq!(status["revert_in_progress"]["step"], "provider", "{status}");
    r.t3(&["revert", "--thread", THREAD, "--to", "1"]).fails(1); // refuses while half-done
    r.t3(&["revert", "--continue", "--thread", THREAD]).ok();
    assert_eq!(r.oracle_tree(), trees[1]);
    let request: serde_json::Value =
        serde_json::from_slice(&std::fs::read(format!("{}.in", flag.display())).unwrap()).unwrap();
    assert_eq!(
        (
            request["thread"].as_str(),
            request["turns"].as_u64(),
            request["target_turn"].as_u64()
        ),
        (Some(THREAD), Some(2), Some(1))
    );
    assert!(r.refs("refs/t3/reverts/").is_empty());
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 2);
}

#[test]
fn a_hanging_provider_is_stopped_and_counts_as_a_failure() {
    let r = TestRepo::seeded();
    let path = helper(&r, "slow", "sleep 30");
    r.extra_env_set("PATH", &path);
    three_turns(&r, Some("slow"));
    let start = std::time::Instant::now();
    let out = r
        .t3_env(
            &["revert", "--thread", THREAD, "--to", "2"],
            &[("T3_PROVIDER_TIMEOUT", "0.5")],
        )
        .fails(1);
    assert!(out.stderr.contains("did not answer"), "{}", out.stderr);
    assert!(start.elapsed() < Duration::from_secs(20));
    r.t3(&["revert", "--abort", "--thread", THREAD]).ok();
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 4);
}

#[test]
fn an_unknown_provider_refuses_unless_files_only() {
    let r = TestRepo::seeded();
    let trees = three_turns(&r, Some("nowhere"));
    let refs = r.refs("refs/");
    let out = r.t3(&["revert", "--thread", THREAD, "--to", "1"]).fails(1);
    assert!(out.stderr.contains("--files-only"), "{}", out.stderr);
    assert_eq!(r.refs("refs/"), refs, "a refused revert changed refs");
    let out = r
        .t3(&["revert", "--thread", THREAD, "--to", "1", "--files-only"])
        .ok();
    assert!(out.stderr.contains("not rolled back"), "{}", out.stderr);
    assert_eq!(r.oracle_tree(), trees[1]);
}

#[test]
fn providers_come_from_git_config_never_from_the_content() {
    let r = TestRepo::seeded();
    let log = r.tmp().join("calls");
    let path = helper(&r, "unused", "exit 1");
    let script = std::path::Path::new(&path.split(':').next().unwrap().to_owned()).join("logger");
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho \"$@\" >> '{}'\ncat >/dev/null\n", log.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    r.git(&[
        "config",
        "t3.provider.mine.command",
        &format!("{} --from-config", script.display()),
    ]);
    three_turns(&r, Some("mine"));
    r.t3(&["revert", "--thread", THREAD, "--to", "2"]).ok();
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "--from-config rollback\n");
    r.git(&["config", "--unset", "t3.provider.mine.command"]);
    // A file in the repository never names what runs (it comes with the
    // content, maybe from someone else): the revert refuses, nothing runs.
    r.write(
        "t3.toml",
        &format!(
            "[provider.mine]\ncommand = \"{} --from-toml\"\n",
            script.display()
        ),
    );
    let out = r.t3(&["revert", "--thread", THREAD, "--to", "1"]).fails(1);
    assert!(out.stderr.contains("git-t3-provider-mine"), "{}", out.stderr);
    assert_eq!(std::fs::read_to_string(&log).unwrap(), "--from-config rollback\n");
    // Arguments are split like a shell would, quotes included.
    r.git(&[
        "config",
        "t3.provider.mine.command",
        &format!("'{}' --label 'two words'", script.display()),
    ]);
    r.t3(&["revert", "--thread", THREAD, "--to", "1"]).ok();
    assert!(
        std::fs::read_to_string(&log)
            .unwrap()
            .ends_with("--label two words rollback\n")
    );
}

#[test]
fn a_kill_between_any_two_steps_can_be_continued_or_aborted() {
    for fault in [
        "after-journal",
        "after-restore",
        "after-provider",
        "after-refs",
        "after-record",
    ] {
        for finish in ["--continue", "--abort"] {
            let r = TestRepo::seeded();
            let trees = three_turns(&r, None);
            r.write("unsaved.txt", "work not in any checkpoint\n");
            let before_tree = r.oracle_tree();
            let refs_before = r.refs("refs/t3/checkpoints/");
            let out = r.t3_env(
                &["revert", "--thread", THREAD, "--to", "1"],
                &[("T3_TEST_FAULT", fault)],
            );
            assert_ne!(out.code, 0, "{fault}: the fault did not fire");
            if fault == "after-record" {
                // Everything but the ref swap was done: --abort finds no journal step to undo
                // beyond putting things back, which must still work.
            }
            r.t3(&["revert", finish, "--thread", THREAD]).ok();
            assert!(
                r.refs("refs/t3/reverts/").is_empty(),
                "{fault} {finish}: journal left"
            );
            if finish == "--continue" {
                assert_eq!(
                    r.oracle_tree(),
                    trees[1],
                    "{fault}: continue did not land on turn 1"
                );
                assert_eq!(r.refs("refs/t3/checkpoints/").len(), 2, "{fault}");
            } else {
                assert_eq!(
                    r.oracle_tree(),
                    before_tree,
                    "{fault}: abort did not bring the work back"
                );
                assert_eq!(
                    r.refs("refs/t3/checkpoints/"),
                    refs_before,
                    "{fault}: abort lost refs"
                );
                for reference in &refs_before {
                    assert!(
                        r.note(reference).contains("schema = 1"),
                        "{fault}: {reference} lost its note"
                    );
                }
            }
            r.git(&["fsck", "--no-progress"]);
        }
    }
}

#[test]
fn undo_reverses_the_last_revert() {
    let r = TestRepo::seeded();
    three_turns(&r, None);
    r.write("unsaved.txt", "work\n");
    let before = r.oracle_tree();
    let refs = r.refs("refs/t3/checkpoints/");
    r.t3(&["revert", "--thread", THREAD, "--to", "0"]).ok();
    let out = r.t3(&["revert", "--undo", "--thread", THREAD]).ok();
    assert!(
        out.stderr.contains("conversation is not restored"),
        "{}",
        out.stderr
    );
    assert_eq!(r.oracle_tree(), before);
    assert_eq!(r.refs("refs/t3/checkpoints/"), refs);
    assert!(r.note(&ref_for(THREAD, 3)).contains("turn = 3"));
    r.t3(&["revert", "--undo", "--thread", THREAD]).fails(1);
}

#[test]
fn revert_on_an_unborn_branch_puts_the_target_in_the_index() {
    let r = TestRepo::new();
    r.write("a.txt", "a\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("b.txt", "b\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.t3(&["revert", "--thread", THREAD, "--to", "0"]).ok();
    assert!(!r.root.join("b.txt").exists());
    assert_eq!(r.git(&["ls-files"]), "a.txt");
}

#[test]
fn drop_needs_force_for_a_half_done_revert() {
    let r = TestRepo::seeded();
    three_turns(&r, Some("nowhere-but-files-only"));
    let _ = r.t3_env(
        &["revert", "--thread", THREAD, "--to", "1", "--files-only"],
        &[("T3_TEST_FAULT", "after-restore")],
    );
    assert_eq!(r.refs("refs/t3/reverts/").len(), 1);
    let out = r.t3(&["drop", "--thread", THREAD]).fails(1);
    assert!(out.stderr.contains("--force"), "{}", out.stderr);
    r.t3(&["drop", "--thread", THREAD, "--force"]).ok();
    assert!(r.refs("refs/t3/checkpoints/").is_empty());
    assert!(r.refs("refs/t3/reverts/").is_empty());
    // The operation log keeps what was dropped.
    assert_eq!(r.refs("refs/t3/"), vec!["refs/t3/ops".to_owned()]);
    r.t3(&["drop", "--thread", THREAD]).fails(1);
}

#[test]
fn preconditions_fail_before_anything_changes() {
    let r = TestRepo::seeded();
    r.t3(&["revert", "--thread", "ghost", "--to", "0"]).fails(1);
    three_turns(&r, None);
    let refs = r.refs("refs/");
    let out = r.t3(&["revert", "--thread", THREAD, "--to", "5"]).fails(1);
    assert!(out.stderr.contains("turn 5"), "{}", out.stderr);
    r.t3(&["placeholder", "--thread", THREAD, "--turn", "4"]).ok();
    let out = r.t3(&["revert", "--thread", THREAD, "--to", "4"]).fails(1);
    assert!(out.stderr.contains("placeholder"), "{}", out.stderr);
    std::fs::write(r.root.join(".git/MERGE_HEAD"), r.git(&["rev-parse", "HEAD"])).unwrap();
    let out = r.t3(&["revert", "--thread", THREAD, "--to", "1"]).fails(1);
    assert!(out.stderr.to_lowercase().contains("merge"), "{}", out.stderr);
    std::fs::remove_file(r.root.join(".git/MERGE_HEAD")).unwrap();
    assert_eq!(
        r.t3(&["revert", "--thread", THREAD]).code,
        2,
        "revert without --to"
    );
    let mut want = refs.clone();
    want.push(ref_for(THREAD, 4));
    want.sort();
    let mut got = r.refs("refs/");
    got.sort();
    assert_eq!(got, want, "a refused revert changed refs");
}

#[test]
fn reverting_to_the_state_the_worktree_is_in_finishes_at_once() {
    // Regression: with nothing to restore, the saga took the lock it already
    // held and waited for itself.
    let r = TestRepo::seeded();
    three_turns(&r, None);
    let start = std::time::Instant::now();
    let out = r
        .t3_env(
            &["--json", "revert", "--thread", THREAD, "--to", "3"],
            &[("T3_LOCK_TIMEOUT", "5")],
        )
        .ok()
        .json();
    assert!(
        start.elapsed() < Duration::from_secs(4),
        "the revert waited for its own lock"
    );
    assert_eq!(out["files"]["write"], serde_json::json!([]));
    assert_eq!(r.refs("refs/t3/checkpoints/").len(), 4);
}

#[test]
fn the_documented_example_provider_works() {
    let r = TestRepo::seeded();
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/providers");
    r.extra_env_set(
        "PATH",
        &format!("{}:{}", docs.display(), std::env::var("PATH").unwrap_or_default()),
    );
    r.write(".git/info/exclude", ".agent/\n");
    r.write(
        &format!(".agent/{THREAD}.jsonl"),
        "{\"t\":0}\n{\"t\":1}\n{\"t\":2}\n{\"t\":3}\n",
    );
    three_turns(&r, Some("example"));
    let out = r.t3_json(&["revert", "--thread", THREAD, "--to", "1"]);
    assert_eq!(out["rolled_back_turns"], 2);
    let log = std::fs::read_to_string(r.root.join(format!(".agent/{THREAD}.jsonl"))).unwrap();
    assert_eq!(log, "{\"t\":0}\n{\"t\":1}\n");
}

/// A capture from an agent hook that holds the lock while a revert starts:
/// the revert waits, then reads the refs under the lock and removes the new
/// turn too, instead of leaving a mixed thread (it used to read the refs
/// before taking the lock).
#[test]
fn a_capture_racing_a_revert_is_waited_for_and_removed() {
    use std::time::{Duration, Instant};
    let r = TestRepo::seeded();
    let trees = three_turns(&r, None);
    r.write("late.txt", "written by the agent's last turn\n");
    let release = r.tmp().join("release-capture");
    let release_s = release.to_str().unwrap();
    let mut capture = r.spawn_t3(
        &["capture", "--thread", THREAD],
        &[
            ("T3_TEST_FAULT", "pause-after-lock"),
            ("T3_TEST_RELEASE", release_s),
        ],
    );
    let lock = r.root.join(".git/t3/lock");
    let start = Instant::now();
    while std::fs::read_to_string(&lock).map_or(true, |s| !s.contains("capture")) {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the capture never took the lock"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let events = r.tmp().join("events");
    let mut revert = r.spawn_t3(
        &["revert", "--thread", THREAD, "--to", "1", "--files-only"],
        &[
            ("T3_LOCK_TIMEOUT", "60"),
            ("T3_TEST_EVENTS", events.to_str().unwrap()),
        ],
    );
    // The revert says when it finds the lock taken and starts waiting.
    assert_eq!(crate::util::wait_for_event(&events, "lock-wait").1, "revert");
    assert!(
        revert.try_wait().unwrap().is_none(),
        "the revert did not wait for the lock"
    );
    std::fs::write(&release, b"").unwrap();
    assert!(capture.wait().unwrap().success(), "the capture failed");
    assert!(revert.wait().unwrap().success(), "the revert failed");
    assert_eq!(
        r.refs("refs/t3/checkpoints/"),
        vec![ref_for(THREAD, 0), ref_for(THREAD, 1)],
        "the turn captured while the revert waited is left behind"
    );
    assert_eq!(r.oracle_tree(), trees[1]);
}

/// A helper that writes a lot on stderr is read to its end (not killed by a
/// full pipe), and its last words are in the message; one that leaves a
/// child holding stderr does not keep the revert waiting.
#[test]
fn provider_output_is_drained_and_stray_children_do_not_hang() {
    let r = TestRepo::seeded();
    let path = helper(
        &r,
        "chatty",
        "cat >/dev/null; i=0; while [ $i -lt 4000 ]; do echo \"line $i of noise noise noise noise\" >&2; i=$((i+1)); done; echo LAST WORDS >&2; exit 3",
    );
    r.extra_env_set("PATH", &path);
    three_turns(&r, Some("chatty"));
    let out = r.t3(&["revert", "--thread", THREAD, "--to", "2"]).fails(1);
    assert!(
        out.stderr.contains("LAST WORDS") && out.stderr.contains("exit status: 3"),
        "{}",
        out.stderr
    );
    r.t3(&["revert", "--abort", "--thread", THREAD]).ok();

    let r = TestRepo::seeded();
    let path = helper(&r, "forker", "cat >/dev/null; sleep 30 & exit 0");
    r.extra_env_set("PATH", &path);
    three_turns(&r, Some("forker"));
    let start = std::time::Instant::now();
    r.t3(&["revert", "--thread", THREAD, "--to", "2"]).ok();
    assert!(
        start.elapsed() < std::time::Duration::from_secs(10),
        "the revert waited for the helper's child"
    );
}

/// SIGTERM (or SIGINT) during the provider step ends the helper's whole
/// process group, leaves the journal, and exits 143 (130); --abort then
/// puts everything back.
#[test]
fn a_signal_during_the_provider_ends_it_and_keeps_the_journal() {
    let r = TestRepo::seeded();
    let started = r.tmp().join("helper-started");
    let finished = r.tmp().join("helper-finished");
    let pid_file = r.tmp().join("helper-pid");
    let body = format!(
        "cat >/dev/null; echo $$ >'{}'; touch '{}'; sleep 5; touch '{}'",
        pid_file.display(),
        started.display(),
        finished.display()
    );
    let path = helper(&r, "sleepy", &body);
    r.extra_env_set("PATH", &path);
    three_turns(&r, Some("sleepy"));
    let before = r.oracle_tree();
    let mut child = r.spawn_t3(&["revert", "--thread", THREAD, "--to", "1"], &[]);
    let start = std::time::Instant::now();
    while !started.exists() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "the helper never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143), "{status:?}");
    // The helper leads its own process group: once no process of it is
    // left, nothing can write `finished` any more. (A helper left running
    // would write it within 5 s, then end, and be seen here.)
    let group: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let start = std::time::Instant::now();
    while !group_members(group).is_empty() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "the helper's processes never ended: {:?}",
            group_members(group)
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        !finished.exists(),
        "the helper kept running after git t3 was stopped"
    );
    assert_eq!(r.refs("refs/t3/reverts/").len(), 1, "the journal is gone");
    r.t3(&["revert", "--abort", "--thread", THREAD]).ok();
    assert_eq!(r.oracle_tree(), before);
}

/// The live (not zombie) processes of process group `group`.
fn group_members(group: i32) -> Vec<i32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() > 2 && !matches!(fields[0], "Z" | "X") && fields[2] == group.to_string() {
            out.push(pid);
        }
    }
    out
}

#[test]
fn large_files_are_restored_exactly_loose_or_packed() {
    let r = TestRepo::seeded();
    // Over the streaming threshold (8 MiB), with content that shows a shift.
    let big: Vec<u8> = (0..9u32 << 20).map(|i| (i % 251) as u8).collect();
    r.write_bytes("data/big.bin", &big);
    r.write_bytes("tools/big-tool", &big[..(9 << 20) - 7]);
    r.chmod("tools/big-tool", 0o755);
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let want = r.git(&["rev-parse", &format!("{}:data/big.bin", ref_for(THREAD, 0))]);
    r.write("data/big.bin", "small now\n");
    // The folder of the tool becomes a symlink out of the worktree.
    std::fs::remove_dir_all(r.root.join("tools")).unwrap();
    std::fs::create_dir_all(r.tmp().join("elsewhere")).unwrap();
    std::os::unix::fs::symlink(r.tmp().join("elsewhere"), r.root.join("tools")).unwrap();
    r.t3(&["capture", "--thread", THREAD]).ok();
    for packed in [false, true] {
        if packed {
            r.t3(&["revert", "--undo", "--thread", THREAD]).ok();
            r.git(&["gc", "-q", "--prune=now"]);
        }
        r.t3(&["revert", "--thread", THREAD, "--to", "0", "--files-only"])
            .ok();
        assert_eq!(
            std::fs::read(r.root.join("data/big.bin")).unwrap(),
            big,
            "packed {packed}"
        );
        assert_eq!(r.git(&["hash-object", "data/big.bin"]), want);
        let tool = r.root.join("tools/big-tool");
        assert!(
            !std::fs::symlink_metadata(r.root.join("tools"))
                .unwrap()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&tool).unwrap().len(), (9 << 20) - 7);
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(
            std::fs::metadata(&tool).unwrap().permissions().mode() & 0o111,
            0o111
        );
        assert!(
            std::fs::read_dir(r.tmp().join("elsewhere"))
                .unwrap()
                .next()
                .is_none(),
            "written through the symlink"
        );
        let leftovers: Vec<_> = std::fs::read_dir(r.root.join("data"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().starts_with(".t3-"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
}

#[test]
fn checkout_attributes_come_from_the_whole_target_tree() {
    let r = TestRepo::seeded();
    // An unchanged .gitattributes still decides how changed files are written.
    r.write(".gitattributes", "*.txt eol=crlf\n");
    r.write("notes.txt", "one\ntwo\n");
    r.commit_all("attributes");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("notes.txt", "changed\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.t3(&["revert", "--thread", THREAD, "--to", "0", "--files-only"])
        .ok();
    assert_eq!(
        std::fs::read(r.root.join("notes.txt")).unwrap(),
        b"one\r\ntwo\r\n"
    );
}

#[test]
fn checkout_attributes_of_every_folder_above_a_file_apply() {
    let r = TestRepo::seeded();
    // The nearest .gitattributes decides; ones elsewhere do not.
    r.write(
        ".gitattributes",
        "*.txt eol=lf
",
    );
    r.write(
        "a/.gitattributes",
        "*.txt eol=crlf
",
    );
    r.write("a/b/c/deep.txt", "one\ntwo\n");
    r.write(
        "other/.gitattributes",
        "*.md eol=crlf
",
    );
    r.write("other/x.md", "x\ny\n");
    r.write("top.txt", "t\nu\n");
    r.commit_all("attributes in folders");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    for (f, c) in [
        ("a/b/c/deep.txt", "changed\n"),
        ("other/x.md", "z\n"),
        ("top.txt", "v\n"),
    ] {
        r.write(f, c);
    }
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.t3(&["revert", "--thread", THREAD, "--to", "0", "--files-only"])
        .ok();
    assert_eq!(
        std::fs::read(r.root.join("a/b/c/deep.txt")).unwrap(),
        b"one\r\ntwo\r\n"
    );
    assert_eq!(std::fs::read(r.root.join("other/x.md")).unwrap(), b"x\r\ny\r\n");
    assert_eq!(std::fs::read(r.root.join("top.txt")).unwrap(), b"t\nu\n");
}

#[test]
fn the_provider_gets_an_absolute_workspace_and_runs_in_the_root_from_a_subdirectory() {
    let r = TestRepo::seeded();
    let seen = r.tmp().join("seen");
    let path = helper(
        &r,
        "where",
        &format!("cat > '{0}.json'\npwd > '{0}.pwd'", seen.display()),
    );
    r.extra_env_set("PATH", &path);
    three_turns(&r, Some("where"));
    r.t3_in(&r.root.join("src"), &["revert", "--thread", THREAD, "--to", "1"])
        .ok();
    let request: serde_json::Value =
        serde_json::from_slice(&std::fs::read(seen.with_extension("json")).unwrap()).unwrap();
    let root = std::fs::canonicalize(&r.root).unwrap();
    let workspace = std::path::PathBuf::from(request["workspace"].as_str().unwrap());
    assert!(workspace.is_absolute(), "{request}");
    assert_eq!(std::fs::canonicalize(&workspace).unwrap(), root);
    let pwd = std::fs::read_to_string(seen.with_extension("pwd")).unwrap();
    assert_eq!(std::fs::canonicalize(pwd.trim()).unwrap(), root);
    assert_eq!(request["turns"], 2);
    assert_eq!(request["target_turn"], 1);
}

#[test]
fn an_index_that_is_head_without_a_cache_tree_is_left_as_it_is() {
    use std::os::unix::fs::MetadataExt as _;
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("README.md", "# changed\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    // Unstaged and staged again: the same entries as HEAD, but git drops
    // the cache-tree of the folders above.
    r.git(&["rm", "-q", "--cached", "src/lib.rs"]);
    r.git(&["add", "src/lib.rs"]);
    let index = r.root.join(".git/index");
    let identity = |p: &std::path::Path| {
        let md = std::fs::metadata(p).unwrap();
        (md.ino(), md.mtime(), md.mtime_nsec(), md.size())
    };
    let before = identity(&index);
    r.t3(&["revert", "--thread", THREAD, "--to", "0", "--files-only"])
        .ok();
    assert_eq!(identity(&index), before, "the user's index was rewritten");
    assert_eq!(r.git(&["diff", "--cached", "--name-only"]), "");
    assert_eq!(
        std::fs::read_to_string(r.root.join("README.md")).unwrap(),
        "# demo\n\nline two\n"
    );
}

#[test]
fn revert_and_restore_name_the_uncaptured_work_they_replace_and_keep_it() {
    let r = TestRepo::seeded();
    let t = "0ca97000-0000-4000-8000-000000000001";
    r.t3(&["baseline", "--thread", t]).ok();
    r.write("b.txt", "b\n");
    r.t3(&["capture", "--thread", t]).ok();
    r.write("c.txt", "c\n");
    r.t3(&["capture", "--thread", t]).ok();
    // Since turn 2: c.txt edited, new.txt never captured; README.md edited
    // but turn 1 has the same README, so it is not touched.
    r.write("c.txt", "c\nmine\n");
    r.write("new.txt", "new\n");
    let dry = r.t3_json(&["revert", "--thread", t, "--to", "1", "--dry-run", "--files-only"]);
    assert_eq!(
        dry["uncaptured"],
        serde_json::json!(["c.txt", "new.txt"]),
        "{dry}"
    );
    let text = r
        .t3(&["revert", "--thread", t, "--to", "1", "--dry-run", "--files-only"])
        .ok()
        .out();
    assert!(
        text.contains("work no checkpoint holds") && text.contains("    new.txt"),
        "{text}"
    );
    // The revert replaces them and keeps them; undo brings them back.
    let done = r.t3_json(&["revert", "--thread", t, "--to", "1", "--files-only"]);
    assert_eq!(
        done["uncaptured"],
        serde_json::json!(["c.txt", "new.txt"]),
        "{done}"
    );
    assert!(!r.root.join("new.txt").exists());
    r.t3(&["revert", "--thread", t, "--undo"]).ok();
    assert_eq!(
        std::fs::read_to_string(r.root.join("c.txt")).unwrap(),
        "c\nmine\n"
    );
    assert_eq!(std::fs::read_to_string(r.root.join("new.txt")).unwrap(), "new\n");
    // A restore of one path names it too; a captured file is not named.
    r.t3(&["capture", "--thread", t]).ok();
    r.write("b.txt", "b edited\n");
    let restored = r.t3_json(&["restore", "--thread", t, "--turn", "1", "b.txt", "c.txt"]);
    assert_eq!(restored["uncaptured"], serde_json::json!(["b.txt"]), "{restored}");
}
