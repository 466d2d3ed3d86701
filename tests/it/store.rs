//! Turn numbering, notes, status mapping, placeholders, list and show.

use crate::util::{THREAD, TestRepo, ref_for, rows};

#[test]
fn turns_are_numbered_and_notes_hold_the_schema() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    assert_eq!(
        r.refs("refs/t3/"),
        vec![ref_for(THREAD, 0)],
        "baseline is idempotent"
    );
    for i in 1..=3u64 {
        r.write(&format!("f{i}.txt"), &"x\n".repeat(i as usize));
        let s = r.t3_json(&[
            "capture",
            "--thread",
            THREAD,
            "--turn-id",
            &format!("turn-{i}"),
            "--message-id",
            "m",
        ]);
        assert_eq!(s["turn"], i);
        assert_eq!(s["ref"], ref_for(THREAD, i));
        assert_eq!(s["from_turn"], i - 1);
        assert_eq!(s["tree"].as_str().unwrap(), r.ref_tree(&ref_for(THREAD, i)));
    }
    r.t3(&["baseline", "--thread", THREAD]).ok();
    assert_eq!(
        r.refs("refs/t3/").len(),
        4,
        "baseline wrote a ref although turn 3 exists"
    );
    let note: toml::Value = toml::from_str(&r.note(&ref_for(THREAD, 3))).unwrap();
    assert_eq!(note["schema"].as_integer(), Some(1));
    assert_eq!(note["thread"].as_str(), Some(THREAD));
    assert_eq!(note["turn"].as_integer(), Some(3));
    assert_eq!(note["ref"].as_str(), Some(ref_for(THREAD, 3).as_str()));
    assert_eq!(note["status"].as_str(), Some("ready"));
    assert_eq!(note["placeholder"].as_bool(), Some(false));
    assert_eq!(note["turn_id"].as_str(), Some("turn-3"));
    assert_eq!(note["assistant_message_id"].as_str(), Some("m"));
    assert_eq!(note["from_turn"].as_integer(), Some(2));
    assert!(note["completed_at"].as_str().unwrap().ends_with('Z'));
    let files = note["files"].as_array().unwrap();
    assert_eq!(files.len(), 1);
    assert_eq!(files[0]["path"].as_str(), Some("f3.txt"));
    assert_eq!(files[0]["kind"].as_str(), Some("added"));
    assert_eq!(files[0]["additions"].as_integer(), Some(3));
    let turns = r.listed_turns(THREAD);
    assert_eq!(turns, vec![0, 1, 2, 3]);
    let all = r.t3_json(&["list"]);
    assert_eq!(all["threads"][0]["thread"], THREAD);
    assert_eq!(all["threads"][0]["turns"], 4);
    assert_eq!(all["threads"][0]["latest"], 3);
    // Turn 10 sorts after turn 9.
    for _ in 4..=10 {
        r.t3(&["capture", "--thread", THREAD]).ok();
    }
    assert_eq!(r.t3_json(&["show", "--thread", THREAD])["turn"], 10);
}

#[test]
fn summary_counts_equal_git_numstat() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("README.md", "# demo\n\nline two changed\nline three\n");
    r.remove("src/main.rs");
    r.write("src/new.rs", "pub fn new() {}\n");
    r.write_bytes(
        "assets/logo.bin",
        &(0..=255u8).rev().cycle().take(1024).collect::<Vec<_>>(),
    );
    r.write("src/lib.rs", "fn a() {}\n    fn b() {}\nfn c() {  }\nfn d() {}");
    r.chmod("src/lib.rs", 0o755);
    std::fs::rename(r.root.join("docs/old name.txt"), r.root.join("docs/new name.txt")).unwrap();
    let s = r.t3_json(&["capture", "--thread", THREAD]);
    let (a, b) = (ref_for(THREAD, 0), ref_for(THREAD, 1));
    assert_eq!(rows(&s["files"]), r.numstat(&a, &b, false));
    let by_path = |p: &str| {
        s["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == p)
            .unwrap()
            .clone()
    };
    assert_eq!(by_path("docs/new name.txt")["kind"], "renamed");
    assert_eq!(by_path("docs/new name.txt")["old_path"], "docs/old name.txt");
    assert_eq!(by_path("src/main.rs")["kind"], "deleted");
    assert_eq!(by_path("src/new.rs")["kind"], "added");
    assert_eq!(by_path("assets/logo.bin")["binary"], true);
    let paths: Vec<&str> = s["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted, "files are sorted by path");
}

#[test]
fn states_map_to_statuses() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let want = [
        ("completed", "ready"),
        ("failed", "error"),
        ("cancelled", "missing"),
        ("interrupted", "missing"),
        ("something-else", "ready"),
    ];
    for (i, (state, status)) in want.iter().enumerate() {
        r.write("s.txt", state);
        let s = r.t3_json(&["capture", "--thread", THREAD, "--state", state]);
        assert_eq!(s["status"], *status, "state {state}");
        assert!(
            r.note(&ref_for(THREAD, i as u64 + 1))
                .contains(&format!("status = \"{status}\""))
        );
    }
}

#[test]
fn placeholders_are_replaced_by_captures_never_the_reverse() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    let p = r.t3_json(&["placeholder", "--thread", THREAD, "--turn-id", "t1"]);
    assert_eq!(
        (
            p["turn"].as_u64(),
            p["status"].as_str(),
            p["placeholder"].as_bool()
        ),
        (Some(1), Some("missing"), Some(true))
    );
    let s = r.t3_json(&["show", "--thread", THREAD, "--turn", "1"]);
    assert_eq!(s["placeholder"], true);
    // A capture of the next turn counts against the last real checkpoint.
    r.write("later.txt", "x\n");
    let two = r.t3_json(&["capture", "--thread", THREAD]);
    assert_eq!(
        (two["turn"].as_u64(), two["from_turn"].as_u64()),
        (Some(2), Some(0))
    );
    let s = r.t3_json(&["capture", "--thread", THREAD, "--turn", "1"]);
    assert_eq!(
        (s["status"].as_str(), s["placeholder"].as_bool()),
        (Some("ready"), Some(false))
    );
    assert_eq!(r.ref_tree(&ref_for(THREAD, 1)), r.oracle_tree());
    r.t3(&["capture", "--thread", THREAD, "--turn", "1"]).fails(1);
    r.t3(&["placeholder", "--thread", THREAD, "--turn", "1"]).fails(1);
    let replaced = r.t3_json(&[
        "capture",
        "--thread",
        THREAD,
        "--turn",
        "1",
        "--replace",
        "--state",
        "failed",
    ]);
    assert_eq!(replaced["status"], "error");
}

#[test]
fn capture_without_baseline_warns_in_the_note() {
    let r = TestRepo::seeded();
    let s = r.t3(&["--json", "capture", "--thread", THREAD]).ok();
    assert!(s.stderr.contains("no checkpoint before turn 1"), "{}", s.stderr);
    let s = s.json();
    assert_eq!(s["turn"], 1);
    assert_eq!(s["warnings"][0], "no baseline: summary unavailable");
    assert!(s.get("from_turn").is_none());
    // -q silences the notice.
    let q = r.t3(&["-q", "capture", "--thread", "other"]).ok();
    assert!(
        q.stderr.is_empty() && q.stdout.is_empty(),
        "{} {}",
        q.stderr,
        q.out()
    );
}

#[test]
fn human_output_names_the_turn_and_quotes_paths() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("tab\there.txt", "x\n");
    let out = r.t3(&["capture", "--thread", THREAD]).ok().out();
    assert!(
        out.starts_with("turn 1 of thread-7f3c: ready, 1 file changed against turn 0, +1 -0"),
        "{out}"
    );
    let show = r.t3(&["show", "--thread", THREAD]).ok().out();
    assert!(show.contains("\"tab\\there.txt\""), "{show}");
    let list = r.t3(&["list", "--thread", THREAD]).ok().out();
    assert!(list.lines().count() == 4, "{list}");
}

#[test]
fn thread_from_environment() {
    let r = TestRepo::seeded();
    r.t3_env(&["baseline"], &[("T3_THREAD", "from-env")]).ok();
    assert_eq!(r.refs("refs/t3/"), vec![ref_for("from-env", 0)]);
}

/// Checkpoints written by T3 Code itself (same refs, its identity, no
/// note) are first-class: listed with a summary computed when read,
/// diffed like git, reverted to, reported by verify as information, and
/// dropped only with --force.
/// Turns 0..turns of `thread` as T3 Code writes them: its identity, no note.
fn t3code_thread(r: &TestRepo, thread: &str, turns: u64) {
    for n in 0..turns {
        if n > 0 {
            r.write(&format!("{thread}-{n}.txt"), &format!("turn {n}\n"));
            r.write("README.md", &format!("# demo\n\nline two\n{thread} turn {n}\n"));
        }
        let tree = r.oracle_tree();
        let out = std::process::Command::new("git")
            .args([
                "commit-tree",
                &tree,
                "-m",
                &format!("t3 checkpoint ref={}", ref_for(thread, n)),
            ])
            .current_dir(&r.root)
            .env("GIT_AUTHOR_NAME", "T3 Code")
            .env("GIT_AUTHOR_EMAIL", "t3code@users.noreply.github.com")
            .env("GIT_COMMITTER_NAME", "T3 Code")
            .env("GIT_COMMITTER_EMAIL", "t3code@users.noreply.github.com")
            .env("GIT_CONFIG_GLOBAL", r.home.join(".gitconfig"))
            .output()
            .unwrap();
        let commit = String::from_utf8(out.stdout).unwrap();
        r.git(&["update-ref", &ref_for(thread, n), commit.trim()]);
    }
}

#[test]
fn checkpoints_written_by_t3code_are_readable() {
    let r = TestRepo::seeded();
    let thread = "t3code-thread";
    t3code_thread(&r, thread, 3);
    let list = r.t3(&["list", "--thread", thread]).ok();
    assert!(!list.out().contains("unreadable"), "{}", list.out());
    let turns = r.t3_json(&["list", "--thread", thread]);
    assert_eq!(crate::util::turn_numbers(&turns), [0, 1, 2]);
    assert!(
        turns["turns"][2]["warnings"][0]
            .as_str()
            .unwrap()
            .contains("T3 Code")
    );
    let mine = r
        .t3(&["diff", "--thread", thread, "--turn", "2", "--numstat"])
        .ok()
        .stdout;
    let git = r
        .git_in(
            &r.root,
            &[
                "diff",
                "--numstat",
                "-M",
                "-w",
                &ref_for(thread, 1),
                &ref_for(thread, 2),
            ],
        )
        .ok()
        .stdout;
    assert_eq!(mine, git);
    let v = r.t3(&["verify"]).ok();
    assert!(v.out().contains("T3 Code"), "{}", v.out());
    r.t3(&["revert", "--thread", thread, "--to", "1", "--files-only"])
        .ok();
    assert!(!r.root.join("t3code-thread-2.txt").exists());
    let refused = r.t3(&["drop", "--thread", thread]).fails(1);
    assert!(refused.stderr.contains("T3 Code"), "{}", refused.stderr);
    r.t3(&["drop", "--thread", thread, "--force"]).ok();
}

#[test]
fn notes_backfill_writes_our_notes_for_t3code_checkpoints() {
    let r = TestRepo::seeded();
    t3code_thread(&r, "tc-a", 3);
    t3code_thread(&r, "tc-b", 2);
    r.t3(&["baseline", "--thread", "ours"]).ok();
    let on_the_fly = r.t3_json(&["list", "--thread", "tc-a"]);
    let before_notes = r.git(&["rev-parse", "refs/notes/t3"]);
    // --dry-run lists them and writes nothing.
    let dry = r.t3_json(&["notes", "backfill", "--dry-run"]);
    assert_eq!(dry["notes"].as_array().map(Vec::len), Some(5), "{dry}");
    assert_eq!(r.git(&["rev-parse", "refs/notes/t3"]), before_notes);
    // One thread, by a unique prefix.
    let one = r.t3_json(&["notes", "backfill", "--thread", "tc-b"]);
    let turns: Vec<(String, u64)> = one["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            (
                n["thread"].as_str().unwrap().to_owned(),
                n["turn"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(turns, vec![("tc-b".to_owned(), 0), ("tc-b".to_owned(), 1)]);
    assert!(r.note(&ref_for("tc-b", 1)).contains("backfilled"));
    assert!(
        r.t3(&["notes", "backfill", "--thread", "tc-b"])
            .ok()
            .out()
            .contains("nothing to backfill")
    );
    // Every thread: the rest; the summaries are the ones computed on the fly.
    let all = r.t3_json(&["notes", "backfill"]);
    assert_eq!(all["notes"].as_array().map(Vec::len), Some(3), "{all}");
    let stored = r.t3_json(&["list", "--thread", "tc-a"]);
    for (live, kept) in on_the_fly["turns"]
        .as_array()
        .unwrap()
        .iter()
        .zip(stored["turns"].as_array().unwrap())
    {
        assert_eq!(live["files"], kept["files"]);
        assert!(
            kept["warnings"][0].as_str().unwrap().contains("backfilled"),
            "{kept}"
        );
    }
    // Our own checkpoints' notes are untouched, and verify has nothing to say.
    assert!(!r.note(&ref_for("ours", 0)).contains("backfilled"));
    let v = r.t3(&["verify"]).ok();
    assert!(!v.out().contains("without a note"), "{}", v.out());
    r.t3(&["notes", "backfill", "--thread", "nobody"]).fails(1);
}
