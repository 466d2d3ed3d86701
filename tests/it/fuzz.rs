//! Random bytes wherever git-t3 reads data it did not write itself: notes,
//! ref names and their contents, tree entries and hook payloads. Whatever
//! arrives, every command ends with exit 0, 1 or 2, never a panic, a failure
//! says why, and nothing outside the scratch repository changes.

use crate::util::{Rng, Run, THREAD, TestRepo, ref_for};

/// Scratch repositories tried; each gets a few random mutations
/// (`T3_FUZZ_ROUNDS` tries more, `T3_FUZZ_FROM` starts elsewhere).
const ROUNDS: u64 = 24;

/// Names a hostile tree would use, mixed with random bytes.
const EVIL_NAMES: &[&[u8]] = &[
    b"..",
    b".",
    b"",
    b".git",
    b".GIT",
    b"git~1",
    b".git ",
    b"../outside",
    b"../outside/victim.txt",
    b"a/../../outside",
    b"/etc/passwd",
    b"link",
    b"victim.txt",
    b"README.md",
    b"src",
];

/// Files beside the repository that no command may touch.
fn plant_outside(r: &TestRepo) {
    let outside = r.tmp().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("victim.txt"), "must survive\n").unwrap();
    std::fs::write(outside.join("README.md"), "must survive too\n").unwrap();
}

/// Everything under the scratch directory except the repository itself:
/// each path with its size and, for files, its content.
fn outside_state(r: &TestRepo) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    fn walk(dir: &std::path::Path, skip: &std::path::Path, out: &mut Vec<(std::path::PathBuf, Vec<u8>)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p == skip {
                continue;
            }
            let ft = e.file_type().unwrap();
            let data = if ft.is_file() {
                std::fs::read(&p).unwrap_or_default()
            } else {
                Vec::new()
            };
            out.push((p.clone(), data));
            if ft.is_dir() {
                walk(&p, skip, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(r.tmp(), &r.root, &mut out);
    out.sort();
    out
}

/// What every run must satisfy, whatever it was fed.
#[track_caller]
fn sane(run: &Run, seed: u64) {
    assert!(
        matches!(run.code, 0..=2),
        "seed {seed}: {} exited {}: {}",
        run.what,
        run.code,
        run.stderr
    );
    assert!(
        !run.stderr.contains("panicked") && !run.stderr.contains("RUST_BACKTRACE"),
        "seed {seed}: {} panicked: {}",
        run.what,
        run.stderr
    );
    if run.code != 0 {
        assert!(
            !run.stderr.trim().is_empty(),
            "seed {seed}: {} failed without a word",
            run.what
        );
    }
}

fn random_name(rng: &mut Rng) -> Vec<u8> {
    if rng.below(2) == 0 {
        EVIL_NAMES[rng.below(EVIL_NAMES.len() as u64) as usize].to_vec()
    } else {
        rng.some_bytes(12, b"\0")
    }
}

/// A tree of random entries (some nested, some hostile), every id one that
/// exists or a random one that does not.
fn random_tree(r: &TestRepo, rng: &mut Rng, depth: u32) -> String {
    let mut entries = Vec::new();
    for _ in 0..1 + rng.below(4) {
        let name = random_name(rng);
        let (mode, id) = match rng.below(7) {
            0 if depth < 2 => ("40000", random_tree(r, rng, depth + 1)),
            1 => (
                "120000",
                r.blob(["../outside", "/tmp", "x"][rng.below(3) as usize]),
            ),
            2 => ("100755", r.blob("#!/bin/sh\ntouch ../../outside/ran\n")),
            3 => ("160000", r.git(&["rev-parse", "HEAD"])),
            4 => (
                ["100644", "777", "40000", "100644x"][rng.below(4) as usize],
                (0..20).map(|_| format!("{:02x}", rng.below(256))).collect(),
            ),
            _ => ("100644", r.blob("payload\n")),
        };
        entries.push((mode, name, id));
    }
    let borrowed: Vec<(&str, &[u8], String)> = entries
        .iter()
        .map(|(m, n, i)| (*m, n.as_slice(), i.clone()))
        .collect();
    r.raw_tree(&borrowed)
}

/// The note of `turn` becomes random bytes, or the real note with bytes
/// flipped.
fn mangle_note(r: &TestRepo, rng: &mut Rng, turn: u64) {
    let commit = r.git(&["rev-parse", &ref_for(THREAD, turn)]);
    let real = r.git_in(&r.root, &["notes", "--ref=refs/notes/t3", "show", &commit]);
    let mut data = real.stdout;
    if rng.below(3) == 0 || data.is_empty() {
        let len = rng.below(400) as usize;
        data = rng.bytes(len, &[]);
    } else {
        for _ in 0..1 + rng.below(6) {
            let at = rng.below(data.len() as u64) as usize;
            data[at] = rng.bytes(1, &[])[0];
        }
    }
    let blob = r.hash_object(&[], &data);
    r.git(&["notes", "--ref=refs/notes/t3", "add", "-f", "-C", &blob, &commit]);
}

/// A loose ref with a random name (any bytes but `/` and NUL) under the
/// thread's or another checkpoint folder, holding a real id of any type or
/// garbage.
fn plant_ref(r: &TestRepo, rng: &mut Rng) {
    use std::os::unix::ffi::OsStrExt;
    let thread_dir = ref_for(THREAD, 0).trim_end_matches("/turn/0").to_owned();
    let folder = if rng.below(2) == 0 {
        r.root.join(".git").join(&thread_dir).join("turn")
    } else {
        let name = rng.some_bytes(10, b"/\0");
        r.root
            .join(".git/refs/t3/checkpoints")
            .join(std::ffi::OsStr::from_bytes(&name))
            .join("turn")
    };
    let file: Vec<u8> = match rng.below(3) {
        0 => rng.some_bytes(8, b"/\0"),
        1 => b"18446744073709551615".to_vec(),
        _ => (3 + rng.below(5)).to_string().into_bytes(),
    };
    let content = match rng.below(4) {
        0 => r.git(&["rev-parse", "HEAD^{tree}"]),
        1 => r.blob("a blob\n"),
        2 => r.git(&["rev-parse", "HEAD"]),
        _ => String::from_utf8_lossy(&rng.bytes(40, b"\n")).into_owned(),
    };
    if std::fs::create_dir_all(&folder).is_ok() {
        let _ = std::fs::write(folder.join(std::ffi::OsStr::from_bytes(&file)), content + "\n");
    }
}

/// A hook payload: random bytes, or a real one with random values.
fn random_payload(rng: &mut Rng, r: &TestRepo) -> Vec<u8> {
    if rng.below(2) == 0 {
        let len = rng.below(600) as usize;
        return rng.bytes(len, &[]);
    }
    let value = String::from_utf8_lossy(&rng.some_bytes(30, &[])).into_owned();
    let events = [
        "UserPromptSubmit",
        "Stop",
        "StopFailure",
        "SessionStart",
        "PostToolUse",
        "beforeSubmitPrompt",
        "stop",
        "chat.message",
        "session.idle",
        "x",
    ];
    let event = events[rng.below(events.len() as u64) as usize];
    let id = if rng.below(2) == 0 {
        serde_json::json!(value)
    } else {
        serde_json::json!(rng.next())
    };
    serde_json::json!({
        "session_id": id, "sessionID": id, "conversation_id": id,
        "hook_event_name": event,
        "event": event,
        "cwd": r.root.display().to_string(),
        "directory": r.root.display().to_string(),
        "workspace_roots": [value, r.root.display().to_string()],
        "transcript_path": value,
        "prompt": value,
        "prompt_id": value,
        "turn_id": rng.next(),
        "stop_hook_active": rng.below(2) == 0,
    })
    .to_string()
    .into_bytes()
}

fn commands(r: &TestRepo, seed: u64) {
    let t = THREAD;
    for args in [
        &["list"][..],
        &["list", "--thread", t],
        &["--json", "list", "--thread", t],
        &["show", "--thread", t, "--turn", "1"],
        &["show", "--thread", t, "--turn", "2"],
        &["--json", "show", "--thread", t, "--turn", "2"],
        &["diff", "--thread", t, "--turn", "2"],
        &["diff", "--thread", t, "--full", "--stat"],
        &[
            "diff",
            "--thread",
            t,
            "--from",
            "1",
            "--to",
            "2",
            "--numstat",
            "-z",
        ],
        &["verify"],
        &["verify", "--thread", t],
        &["revert", "--thread", t, "--to", "2", "--dry-run", "--files-only"],
        &["revert", "--thread", t, "--to", "2", "--files-only"],
        &["revert", "--thread", t, "--to", "1", "--files-only"],
        &["revert", "--thread", t, "--abort"],
        &["revert", "--thread", t, "--undo"],
        &["capture", "--thread", t],
    ] {
        let before = outside_state(r);
        let run = r.t3(args);
        sane(&run, seed);
        assert_eq!(
            outside_state(r),
            before,
            "seed {seed}: {} changed something outside: {}",
            run.what,
            run.stderr
        );
    }
}

#[test]
fn random_bytes_from_others_never_panic_or_write_outside() {
    let env = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let from = env("T3_FUZZ_FROM", 1);
    for seed in from..from + env("T3_FUZZ_ROUNDS", ROUNDS) {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0x1000_0001));
        let r = TestRepo::seeded();
        plant_outside(&r);
        std::os::unix::fs::symlink("../outside", r.root.join("link-out")).unwrap();
        r.write("link-out-ignored.log", "x\n");
        r.t3(&["baseline", "--thread", THREAD]).ok();
        r.write("victim.txt", "inside\n");
        r.t3(&["capture", "--thread", THREAD]).ok();
        r.write("src/lib.rs", "changed\n");
        r.t3(&["capture", "--thread", THREAD]).ok();
        let before = outside_state(&r);
        for _ in 0..1 + rng.below(3) {
            match rng.below(4) {
                0 => {
                    let turn = rng.below(3);
                    mangle_note(&r, &mut rng, turn);
                }
                1 => plant_ref(&r, &mut rng),
                2 => {
                    let tree = random_tree(&r, &mut rng, 0);
                    let turn = 1 + rng.below(2);
                    r.forge_turn(THREAD, turn, &tree);
                }
                _ => {
                    for agent in ["claude-code", "codex", "opencode", "cursor"] {
                        let payload = random_payload(&mut rng, &r);
                        let run = r.t3_input(&["hook", agent], &payload);
                        sane(&run, seed);
                        assert_eq!(run.code, 0, "seed {seed}: a hook must never fail the agent");
                        let out = run.out();
                        assert!(
                            out.is_empty()
                                || (out.lines().count() == 1
                                    && serde_json::from_str::<serde_json::Value>(&out)
                                        .is_ok_and(|v| v.is_object())),
                            "seed {seed}: {agent} printed more than one JSON object: {out:?}"
                        );
                    }
                }
            }
        }
        commands(&r, seed);
        assert_eq!(
            outside_state(&r),
            before,
            "seed {seed}: something outside changed"
        );
    }
}
