//! The review commands: `rev` (a checkpoint's commit id for git's own
//! commands), `restore` (some paths from a turn, with a safety checkpoint in
//! the operation log), `log` (turns newest first) and `status` (what is not
//! captured yet).

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::{THREAD, TestRepo, ref_for};

/// Turns 0..=2 where f.txt and g.txt say which turn they are at; turn 2
/// also adds new/one.txt.
fn two_turns(r: &TestRepo) {
    r.write("f.txt", "f at 0\n");
    r.write("g.txt", "g at 0\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    for n in 1..=2 {
        r.write("f.txt", &format!("f at {n}\n"));
        r.write("g.txt", &format!("g at {n}\n"));
        if n == 2 {
            r.write("new/one.txt", "one\n");
        }
        r.t3(&["capture", "--thread", THREAD]).ok();
    }
}

/// Every file under the worktree (not `.git`), with its content or link target.
fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if rel == ".git" {
                continue;
            }
            let md = std::fs::symlink_metadata(&p).unwrap();
            if md.is_symlink() {
                let target = std::fs::read_link(&p).unwrap();
                out.insert(rel, target.to_string_lossy().as_bytes().to_vec());
            } else if md.is_dir() {
                walk(&p, root, out);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn text(r: &TestRepo, rel: &str) -> String {
    std::fs::read_to_string(r.root.join(rel)).unwrap()
}

/// Append top-level fields to the note of `turn` (before its `[[files]]`).
fn add_note_fields(r: &TestRepo, turn: u64, fields: &str) {
    let commit = r.git(&["rev-parse", &ref_for(THREAD, turn)]);
    let keys: Vec<String> = fields
        .lines()
        .filter_map(|l| l.split(" =").next())
        .map(|k| format!("{k} ="))
        .collect();
    let note: String = r
        .note(&ref_for(THREAD, turn))
        .lines()
        .filter(|l| !keys.iter().any(|k| l.starts_with(k.as_str())))
        .map(|l| format!("{l}\n"))
        .collect();
    let note = note.replacen("completed_at", &format!("{fields}\ncompleted_at"), 1);
    let file = r.tmp().join("note.toml");
    std::fs::write(&file, note).unwrap();
    r.git(&[
        "notes",
        "--ref=refs/notes/t3",
        "add",
        "-f",
        "-F",
        file.to_str().unwrap(),
        &commit,
    ]);
}

fn op_kinds(r: &TestRepo) -> Vec<String> {
    let log = r.t3(&["--json", "op", "log"]).ok().json();
    log["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn rev_prints_the_commit_id_for_git() {
    let r = TestRepo::seeded();
    two_turns(&r);
    for (args, turn) in [(vec!["--turn", "1"], 1), (vec!["--turn", "0"], 0), (vec![], 2)] {
        let mut all = vec!["rev", "--thread", THREAD];
        all.extend(args);
        let out = r.t3(&all).ok();
        assert_eq!(
            out.out(),
            format!("{}\n", r.git(&["rev-parse", &ref_for(THREAD, turn)]))
        );
    }
    // What it prints is something git takes.
    let one = r.t3(&["rev", "--thread", THREAD, "--turn", "1"]).ok().out();
    let two = r.t3(&["rev", "--thread", THREAD]).ok().out();
    let diff = r.git(&["diff", "--name-only", one.trim(), two.trim()]);
    assert_eq!(diff, "f.txt\ng.txt\nnew/one.txt");
    let json = r
        .t3(&["--json", "rev", "--thread", THREAD, "--turn", "1"])
        .ok()
        .json();
    assert_eq!(json["commit"], one.trim());
    assert_eq!(json["ref"], ref_for(THREAD, 1));
    // T3_THREAD stands in for --thread.
    let env = r.t3_env(&["rev"], &[("T3_THREAD", THREAD)]).ok();
    assert_eq!(
        env.out(),
        format!("{}\n", r.git(&["rev-parse", &ref_for(THREAD, 2)]))
    );

    let out = r.t3(&["rev", "--thread", THREAD, "--turn", "7"]).fails(1);
    assert!(
        out.stderr.contains("turn 7") && out.stdout.is_empty(),
        "{}",
        out.stderr
    );
    let out = r.t3(&["rev", "--thread", "no-such-thread"]).fails(1);
    assert!(out.stderr.contains("no checkpoints"), "{}", out.stderr);
    // No thread named: the current one (this worktree's only thread).
    assert_eq!(
        r.t3(&["rev"]).ok().out(),
        r.t3(&["rev", "--thread", THREAD]).ok().out()
    );
    // A placeholder's commit is the empty tree: git would read "all deleted".
    r.t3(&["placeholder", "--thread", THREAD]).ok();
    let out = r.t3(&["rev", "--thread", THREAD, "--turn", "3"]).fails(1);
    assert!(out.stderr.contains("placeholder"), "{}", out.stderr);
}

#[test]
fn restore_puts_back_only_the_paths_and_can_be_undone() {
    let r = TestRepo::seeded();
    two_turns(&r);
    r.write("f.txt", "my edit, not captured\n");
    r.write("scratch.tmp", "untracked\n");
    r.write("keep.log", "ignored\n");
    r.git(&["add", "README.md"]);
    let user = r.user_state();
    let refs = r.refs("refs/t3/checkpoints/");
    let before = files(&r.root);

    let out = r
        .t3(&["restore", "--thread", THREAD, "--turn", "0", "--", "f.txt"])
        .ok();
    assert_eq!(out.out(), "restored f.txt\n");
    assert!(out.stderr.contains("op undo"), "{}", out.stderr);
    assert_eq!(text(&r, "f.txt"), "f at 0\n");
    let mut after = files(&r.root);
    let mut want = before.clone();
    want.remove("f.txt");
    after.remove("f.txt");
    assert_eq!(after, want, "restore changed other files");
    assert_eq!(r.refs("refs/t3/checkpoints/"), refs, "the thread's refs changed");
    let now = r.user_state();
    assert_eq!(
        (&now.0, &now.1, &now.2),
        (&user.0, &user.1, &user.2),
        "HEAD, branch or index changed"
    );
    assert_eq!(op_kinds(&r).first().map(String::as_str), Some("restore"));
    let op = &r.t3(&["--json", "op", "log"]).ok().json()["ops"][0];
    assert_eq!(op["thread"], THREAD);
    let safety = op["safety"].as_str().unwrap();
    // The safety checkpoint holds the edit the restore overwrote.
    assert_eq!(
        r.git(&["show", &format!("{safety}:f.txt")]),
        "my edit, not captured"
    );

    // op undo brings the edit back (and is itself recorded).
    r.t3(&["op", "undo"]).ok();
    assert_eq!(text(&r, "f.txt"), "my edit, not captured\n");
    assert_eq!(files(&r.root), before);
    assert_eq!(op_kinds(&r)[..2], ["undo", "restore"]);
    assert_eq!(r.refs("refs/t3/checkpoints/"), refs);
}

#[test]
fn restore_deletes_what_the_turn_lacks_and_takes_folders_whole() {
    let r = TestRepo::seeded();
    two_turns(&r);
    r.write("new/two.txt", "added after turn 2\n");
    r.write("src/extra.rs", "added after turn 2\n");
    r.write("src/lib.rs", "edited\n");
    // A folder: everything under it as in turn 1 (new/ did not exist then).
    let out = r
        .t3(&[
            "--json", "restore", "--thread", THREAD, "--turn", "1", "new", "src/",
        ])
        .ok()
        .json();
    assert!(!r.root.join("new").exists(), "new/ survived");
    assert_eq!(text(&r, "src/lib.rs"), "fn a() {}\nfn b() {}\nfn c() {}\n");
    assert!(!r.root.join("src/extra.rs").exists());
    assert!(r.root.join("src/main.rs").exists());
    assert_eq!(text(&r, "f.txt"), "f at 2\n", "a path not named changed");
    assert_eq!(out["turn"], 1);
    assert_eq!(out["write"], serde_json::json!(["src/lib.rs"]));
    assert_eq!(
        out["delete"],
        serde_json::json!(["new/one.txt", "new/two.txt", "src/extra.rs"])
    );
    assert!(out["op"].as_str().is_some_and(|s| s.len() == 40), "{out}");

    // From a subdirectory, paths are relative to it, like git's.
    r.write("src/lib.rs", "edited again\n");
    let human = r
        .t3_in(
            &r.root.join("src"),
            &["restore", "--thread", THREAD, "--turn", "0", "lib.rs", "../g.txt"],
        )
        .ok();
    assert_eq!(human.out(), "restored g.txt\nrestored src/lib.rs\n");
    assert_eq!(text(&r, "g.txt"), "g at 0\n");
    // Nothing to do: said, and nothing recorded.
    let ops = op_kinds(&r).len();
    let out = r
        .t3(&["restore", "--thread", THREAD, "--turn", "0", "g.txt"])
        .ok();
    assert!(out.stderr.contains("nothing to restore"), "{}", out.stderr);
    assert_eq!(op_kinds(&r).len(), ops);
}

#[test]
fn restore_refuses_what_it_cannot_do_and_changes_nothing() {
    let r = TestRepo::seeded();
    two_turns(&r);
    let before = files(&r.root);
    let ops = op_kinds(&r).len();
    let out = r
        .t3(&["restore", "--thread", THREAD, "--turn", "1", "no/such/file"])
        .fails(1);
    assert!(out.stderr.contains("no/such/file"), "{}", out.stderr);
    r.t3(&["restore", "--thread", THREAD, "--turn", "1", "../outside"])
        .fails(2);
    r.t3(&["restore", "--thread", THREAD, "--turn", "1", ".git/config"])
        .fails(2);
    r.t3(&["restore", "--thread", THREAD, "--turn", "9", "f.txt"])
        .fails(1);
    r.t3(&["restore", "--thread", "nobody", "--turn", "0", "f.txt"])
        .fails(1);
    assert_eq!(r.t3(&["restore", "--thread", THREAD, "--turn", "1"]).code, 2);
    assert_eq!(files(&r.root), before);
    assert_eq!(op_kinds(&r).len(), ops);

    // A forged turn with a path git refuses is refused whole, even when the
    // path asked for is harmless.
    let hook = r.blob("#!/bin/sh\ntouch ../hook-ran\n");
    let hooks = r.raw_tree(&[("100755", b"post-checkout", hook)]);
    let dotgit = r.raw_tree(&[("40000", b"hooks", hooks)]);
    let f = r.blob("forged\n");
    let tree = r.raw_tree(&[("40000", b".GIT", dotgit), ("100644", b"f.txt", f)]);
    r.forge_turn(THREAD, 1, &tree);
    let out = r
        .t3(&["restore", "--thread", THREAD, "--turn", "1", "f.txt"])
        .fails(1);
    assert!(out.stderr.contains("refused"), "{}", out.stderr);
    assert_eq!(files(&r.root), before);
    assert!(!r.root.join(".GIT").exists() && !r.tmp().join("hook-ran").exists());
}

#[test]
fn restore_never_writes_through_a_symlink() {
    let r = TestRepo::seeded();
    r.write("tools/run.sh", "echo run\n");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    // The folder becomes a symlink out of the worktree.
    std::fs::remove_dir_all(r.root.join("tools")).unwrap();
    let elsewhere = r.tmp().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, r.root.join("tools")).unwrap();
    r.t3(&["capture", "--thread", THREAD]).ok();
    r.t3(&["restore", "--thread", THREAD, "--turn", "0", "tools/run.sh"])
        .ok();
    assert!(
        !std::fs::symlink_metadata(r.root.join("tools"))
            .unwrap()
            .is_symlink()
    );
    assert_eq!(text(&r, "tools/run.sh"), "echo run\n");
    assert!(
        std::fs::read_dir(&elsewhere).unwrap().next().is_none(),
        "written through the symlink"
    );
    // The symlink the restore replaced is in its safety checkpoint.
    let op = &r.t3(&["--json", "op", "log"]).ok().json()["ops"][0];
    let safety = op["safety"].as_str().unwrap();
    let entry = r.git(&["ls-tree", safety, "tools"]);
    assert!(entry.starts_with("120000"), "{entry}");
}

#[test]
fn log_lists_turns_newest_first() {
    let r = TestRepo::seeded();
    two_turns(&r);
    add_note_fields(&r, 2, "title = \"fix the flaky test\"\nagent = \"codex\"");
    let doc = r.t3(&["--json", "log", "--thread", THREAD]).ok().json();
    assert_eq!(doc["thread"], THREAD);
    assert_eq!(crate::util::turn_numbers(&doc), [2, 1, 0]);
    // Each turn is the checkpoint `list --thread` shows.
    let mut listed = r.t3(&["--json", "list", "--thread", THREAD]).ok().json()["turns"].clone();
    listed.as_array_mut().unwrap().reverse();
    assert_eq!(doc["turns"], listed);
    assert_eq!(doc["turns"][0]["title"], "fix the flaky test");
    assert_eq!(
        doc["turns"][0]["commit"],
        r.git(&["rev-parse", &ref_for(THREAD, 2)])
    );

    let human = r
        .t3_env(&["log", "--thread", THREAD], &[("TZ", "UTC")])
        .ok()
        .out();
    let blocks: Vec<&str> = human.split("\n\n").collect();
    assert_eq!(blocks.len(), 3, "{human}");
    assert!(blocks[0].starts_with("turn 2  fix the flaky test\n"), "{human}");
    assert!(blocks[0].contains("Agent:   codex"), "{human}");
    assert!(blocks[0].contains("Status:  ready"), "{human}");
    assert!(
        blocks[0].contains("+0000 (") && blocks[0].contains("ago)"),
        "{human}"
    );
    assert!(
        blocks[0].contains("3 files changed, 3 insertions(+), 2 deletions(-)"),
        "{human}"
    );
    assert!(blocks[2].starts_with("turn 0\n"), "{human}");

    let oneline = r.t3(&["log", "--thread", THREAD, "--oneline"]).ok().out();
    let lines: Vec<&str> = oneline.lines().collect();
    assert_eq!(lines.len(), 3, "{oneline}");
    assert!(lines[0].trim_start().starts_with("2  ready"), "{oneline}");
    assert!(
        lines[0].ends_with("3 files +3 -2  fix the flaky test"),
        "{oneline}"
    );

    let patch = r.t3_env(&["log", "-p"], &[("T3_THREAD", THREAD)]).ok().out();
    let at = |s: &str| patch.find(s).unwrap_or_else(|| panic!("no {s:?} in {patch}"));
    assert!(
        at("turn 2") < at("+f at 2") && at("+f at 2") < at("turn 1"),
        "{patch}"
    );
    assert!(
        at("turn 1") < at("+f at 1") && at("+f at 1") < at("turn 0"),
        "{patch}"
    );
    assert!(
        patch.contains("diff --git a/new/one.txt b/new/one.txt"),
        "{patch}"
    );

    // No thread named: the current one (this worktree's only thread). As
    // JSON: the text says "1 second ago", which may tick between the two.
    assert_eq!(r.t3_json(&["log"]), r.t3_json(&["log", "--thread", THREAD]));
    r.t3(&["log", "--thread", "nobody"]).fails(1);
}

#[test]
fn status_shows_what_is_not_captured() {
    let r = TestRepo::seeded();
    two_turns(&r);
    let rows = |r: &TestRepo| r.t3(&["--json", "status"]).ok().json()["threads"].clone();
    let st = rows(&r);
    assert_eq!(st.as_array().unwrap().len(), 1, "{st}");
    assert_eq!(st[0]["thread"], THREAD);
    assert_eq!(st[0]["latest"], 2);
    assert_eq!(st[0]["uncaptured"], serde_json::json!([]));
    assert_eq!(st[0]["revert_in_progress"], false);

    r.write("g.txt", "g edited, not captured\n");
    r.write("brand-new.txt", "new\n");
    r.remove("new/one.txt");
    r.write("ignored.log", "ignored\n");
    let user = r.user_state();
    let st = rows(&r);
    assert_eq!(
        st[0]["uncaptured"],
        serde_json::json!(["brand-new.txt", "g.txt", "new/one.txt"])
    );
    let now = r.user_state();
    assert_eq!((&now.0, &now.1, &now.2), (&user.0, &user.1, &user.2));
    let human = r.t3(&["status"]).ok().out();
    assert!(human.contains("latest turn 2"), "{human}");
    assert!(
        human.contains("M g.txt") && human.contains("D new/one.txt"),
        "{human}"
    );

    // Capturing clears it; no ref was written by status itself.
    let refs = r.refs("refs/t3/");
    rows(&r);
    assert_eq!(r.refs("refs/t3/"), refs, "status wrote a ref");
    r.t3(&["capture", "--thread", THREAD]).ok();
    assert_eq!(rows(&r)[0]["uncaptured"], serde_json::json!([]));
    assert_eq!(rows(&r)[0]["latest"], 3);

    // A revert stopped half-way: its journal ref exists.
    let journal = ref_for(THREAD, 0)
        .replace("checkpoints", "reverts")
        .replace("/turn/0", "");
    let head = r.git(&["rev-parse", "HEAD"]);
    r.git(&["update-ref", &journal, &head]);
    assert_eq!(rows(&r)[0]["revert_in_progress"], true);
    r.git(&["update-ref", "-d", &journal]);

    // A thread bound to another worktree is not this one's.
    add_note_fields(&r, 0, "worktree = \"/somewhere/else\"");
    assert_eq!(rows(&r), serde_json::json!([]));
    let here = std::fs::canonicalize(&r.root).unwrap();
    add_note_fields(&r, 0, &format!("worktree = {:?}", here.to_str().unwrap()));
    assert_eq!(rows(&r).as_array().unwrap().len(), 1);
}

#[test]
fn status_without_threads_says_so() {
    let r = TestRepo::seeded();
    assert_eq!(
        r.t3(&["--json", "status"]).ok().json(),
        serde_json::json!({"threads": []})
    );
    assert_eq!(r.t3(&["status"]).ok().out(), "no threads in this worktree\n");
}

#[test]
fn thread_ids_accept_a_unique_prefix() {
    let r = TestRepo::new();
    r.write("f.txt", "0\n");
    for t in ["alpha-1", "alpha-2", "beta-7", "beta"] {
        r.t3(&["baseline", "--thread", t]).ok();
    }
    r.write("f.txt", "1\n");
    r.t3(&["capture", "--thread", "beta-7"]).ok();
    // A unique prefix names the thread for every reading command.
    let rev = r.t3(&["rev", "--thread", "beta-", "--turn", "1"]).ok().out();
    assert_eq!(rev.trim(), r.git(&["rev-parse", &ref_for("beta-7", 1)]).trim());
    // "alp" starts both alpha threads: refused, naming both.
    let amb = r.t3(&["show", "--thread", "alp"]).fails(2);
    assert!(
        amb.stderr.contains("'alpha-1'") && amb.stderr.contains("'alpha-2'"),
        "{}",
        amb.stderr
    );
    r.t3(&["drop", "--thread", "alpha"]).fails(2);
    // An id that is itself a thread wins over longer ones it starts.
    let exact = r.t3_json(&["list", "--thread", "beta"]);
    assert_eq!(exact["thread"], "beta", "{exact}");
    assert!(
        r.t3(&["diff", "--thread", "beta-", "--name-only"])
            .ok()
            .out()
            .contains("f.txt")
    );
    // Creating commands take the id exactly: a prefix starts a new thread.
    r.t3(&["baseline", "--thread", "alph"]).ok();
    assert_eq!(
        r.t3_json(&["list"])["threads"]
            .as_array()
            .map(|a| a.iter().filter(|t| t["thread"] == "alph").count()),
        Some(1)
    );
    // Nothing matches: the thread is unknown, as before.
    r.t3(&["show", "--thread", "gamma"]).fails(1);
}

#[test]
fn log_takes_pathspecs_like_git_log() {
    let r = TestRepo::new();
    two_turns(&r);
    r.write("g.txt", "g at 3\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    let turns_of = |doc: &serde_json::Value| -> Vec<(u64, Vec<String>)> {
        doc["turns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let files = t["files"].as_array().unwrap();
                let paths = files
                    .iter()
                    .map(|f| f["path"].as_str().unwrap().to_owned())
                    .collect();
                (t["turn"].as_u64().unwrap(), paths)
            })
            .collect()
    };
    // Only the turns that touched the paths, and only those paths.
    let doc = r.t3_json(&["log", "--thread", THREAD, "--", "new/"]);
    assert_eq!(turns_of(&doc), vec![(2, vec!["new/one.txt".to_owned()])]);
    let doc = r.t3_json(&["log", "--thread", THREAD, "--", "f.txt"]);
    assert_eq!(
        turns_of(&doc),
        vec![(2, vec!["f.txt".to_owned()]), (1, vec!["f.txt".to_owned()])]
    );
    let doc = r.t3_json(&["log", "--thread", THREAD, "--", "*.txt", ":!f.txt"]);
    assert_eq!(
        turns_of(&doc).iter().map(|t| t.0).collect::<Vec<_>>(),
        vec![3, 2, 1]
    );
    // -p shows only those paths' patches.
    let text = r.t3(&["log", "--thread", THREAD, "-p", "--", "g.txt"]).ok().out();
    assert!(
        text.contains("diff --git a/g.txt b/g.txt") && !text.contains("a/f.txt"),
        "{text}"
    );
    assert_eq!(text.matches("diff --git").count(), 3, "{text}");
    // Without pathspecs every turn is there.
    assert_eq!(turns_of(&r.t3_json(&["log", "--thread", THREAD])).len(), 4);
}

#[test]
fn list_shows_threads_newest_first_with_what_tells_them_apart() {
    let r = TestRepo::new();
    // The old thread is written a minute ago (an injected clock, not a
    // sleep); its name sorts first, so only its age puts it last.
    r.extra_env_set("T3_TEST_CLOCK_AHEAD", "-60");
    r.write("f.txt", "0\n");
    r.t3(&["baseline", "--thread", "aa-old", "--agent", "codex"]).ok();
    r.write("f.txt", "1\n");
    r.t3(&["capture", "--thread", "aa-old", "--title", "the old one"])
        .ok();
    r.extra_env_set("T3_TEST_CLOCK_AHEAD", "0");
    r.git(&["checkout", "-q", "-b", "feature"]);
    r.t3(&["baseline", "--thread", "zz-new", "--agent", "claude-code"])
        .ok();
    r.write("f.txt", "2\n");
    r.t3(&["capture", "--thread", "zz-new", "--title", "fix the flaky test"])
        .ok();
    r.write("f.txt", "3\n");
    r.t3(&["capture", "--thread", "zz-new", "--title", "and then this"])
        .ok();
    let doc = r.t3_json(&["list"]);
    let threads = doc["threads"].as_array().unwrap();
    let ids: Vec<&str> = threads.iter().map(|t| t["thread"].as_str().unwrap()).collect();
    assert_eq!(ids, ["zz-new", "aa-old"], "newest first");
    // The first prompt names the thread; the baseline's agent and worktree, the latest branch.
    assert_eq!(threads[0]["title"], "fix the flaky test");
    assert_eq!(threads[0]["agent"], "claude-code");
    assert_eq!(threads[0]["branch"], "feature");
    assert_eq!(threads[1]["branch"], "main");
    let root = std::fs::canonicalize(&r.root).unwrap();
    assert_eq!(threads[1]["worktree"].as_str(), root.to_str());
    // JSON keeps the raw UTC time; text shows it in local time and relative.
    assert!(threads[0]["updated_at"].as_str().unwrap().ends_with('Z'));
    let text = r.t3_env(&["list"], &[("TZ", "Asia/Kolkata")]).ok().out();
    let first = text.lines().next().unwrap();
    assert!(first.contains("+0530") && first.contains("ago)"), "{text}");
    assert!(
        first.contains("zz-new  fix the flaky test") && first.contains("claude-code"),
        "{text}"
    );
    assert!(first.contains("3 turns") && first.contains("feature"), "{text}");
    // A thread of another worktree says where it lives.
    let wt = r.tmp().join("other");
    r.git(&["worktree", "add", "-q", "-b", "side", wt.to_str().unwrap()]);
    r.t3_in(&wt, &["baseline", "--thread", "elsewhere"]).ok();
    let text = r.t3(&["list"]).ok().out();
    let other = std::fs::canonicalize(&wt).unwrap();
    assert!(text.contains(&format!("side in {}", other.display())), "{text}");
}
