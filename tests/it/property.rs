//! A property: whatever a random mix of agent turns (of two threads in one
//! worktree), user edits between every two operations (tracked, untracked,
//! ignored, staged, skip-worktree, nested repositories), reverts, one-file
//! restores, undos, aborts, `op undo`, drop, prune, `git gc --prune=now`,
//! push and fetch does, every version of a file that a git-t3 command took
//! away from the worktree or the index stays reachable from a ref (the
//! operation log included) — after `git gc --prune=now` — and every
//! checkpoint stays whole (`git fsck --connectivity-only` after each gc).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::util::{Rng, THREAD, TestRepo};

/// The second agent's thread, in the same worktree.
const OTHER: &str = "0the4-agent";

fn blob_id(data: &[u8]) -> String {
    gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, data)
        .expect("sha1 works")
        .to_string()
}

/// Every file's blob id in the worktree (ignored files included, `.git`
/// folders left out) and every blob in the index: `id -> where`.
fn versions(r: &TestRepo) -> BTreeMap<String, String> {
    fn walk(dir: &Path, base: &Path, out: &mut BTreeMap<String, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(ft) = e.file_type() else { continue };
            if e.file_name() == ".git" {
                continue;
            }
            if ft.is_dir() {
                walk(&p, base, out);
            } else if ft.is_file()
                && let Ok(data) = std::fs::read(&p)
            {
                let rel = p.strip_prefix(base).unwrap().display().to_string();
                out.insert(blob_id(&data), rel);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&r.root, &r.root, &mut out);
    for line in r.git(&["ls-files", "-s"]).lines() {
        let mut parts = line.split_whitespace();
        if let (Some(_mode), Some(id)) = (parts.next(), parts.next()) {
            out.entry(id.to_owned())
                .or_insert_with(|| format!("index:{line}"));
        }
    }
    out
}

fn user_edit(r: &TestRepo, rng: &mut Rng, step: usize) {
    let n = rng.below(4);
    match rng.below(7) {
        0 => r.write(&format!("src/f{n}.rs"), &format!("fn v{step}() {{}}\n")),
        1 => r.write(&format!("notes/u{n}.txt"), &format!("untracked {step}\n")),
        2 => r.write(&format!("logs/run{n}.log"), &format!("ignored {step}\n")),
        3 => {
            r.write("README.md", &format!("staged {step}\n"));
            r.git(&["add", "README.md"]);
            r.write("README.md", &format!("staged {step}\nand unstaged\n"));
        }
        4 => {
            if r.git_in(&r.root, &["ls-files", "--error-unmatch", "docs/old name.txt"])
                .code
                == 0
            {
                r.git(&["update-index", "--skip-worktree", "docs/old name.txt"]);
                r.write("docs/old name.txt", &format!("hidden edit {step}\n"));
            }
        }
        5 => {
            let p = r.root.join(format!("vendor/n{n}"));
            if !p.exists() {
                std::fs::create_dir_all(&p).unwrap();
                r.git_in(&p, &["init", "-q", "-b", "main"]).ok();
                std::fs::write(p.join("x.txt"), format!("nested {step}\n")).unwrap();
                r.git_in(&p, &["add", "."]).ok();
                r.git_in(&p, &["commit", "-qm", "n"]).ok();
            }
        }
        _ => {
            let _ = std::fs::remove_file(r.root.join(format!("src/f{n}.rs")));
        }
    }
}

fn latest(r: &TestRepo) -> Option<u64> {
    let out = r.t3(&["--json", "list", "--thread", THREAD]);
    (out.code == 0).then(|| {
        out.json()["turns"]
            .as_array()
            .and_then(|t| t.last())
            .and_then(|t| t["turn"].as_u64())
            .unwrap_or(0)
    })
}

/// One git-t3 (or gc) step; returns what it was, for failure messages.
fn t3_step(r: &TestRepo, rng: &mut Rng) -> String {
    let to = latest(r).map(|l| rng.below(l + 1)).unwrap_or(0).to_string();
    let path = match rng.below(3) {
        0 => format!("src/f{}.rs", rng.below(4)),
        1 => format!("notes/u{}.txt", rng.below(4)),
        _ => "README.md".to_owned(),
    };
    let args: Vec<&str> = match rng.below(14) {
        0..=2 => vec!["capture", "--thread", THREAD],
        9 => vec!["capture", "--thread", OTHER],
        10 => vec!["restore", "--thread", THREAD, "--turn", &to, "--force", &path],
        11 => vec!["drop", "--thread", OTHER],
        12 => vec!["prune", "--keep-last", "1"],
        3 => vec![
            "revert",
            "--thread",
            THREAD,
            "--to",
            &to,
            "--files-only",
            "--force",
        ],
        4 => vec!["revert", "--undo", "--thread", THREAD, "--force"],
        5 => {
            let _ = r.t3_env(
                &[
                    "revert",
                    "--thread",
                    THREAD,
                    "--to",
                    &to,
                    "--files-only",
                    "--force",
                ],
                &[("T3_TEST_FAULT", "after-restore")],
            );
            vec!["revert", "--abort", "--thread", THREAD, "--force"]
        }
        6 => vec!["op", "undo", "--force"],
        7 => {
            r.git(&["gc", "-q", "--prune=now"]);
            // Every checkpoint (every ref) is whole after gc.
            let fsck = r.git_in(&r.root, &["fsck", "--connectivity-only", "--no-progress"]);
            assert_eq!(fsck.code, 0, "after gc: {}", fsck.stderr);
            return "gc".into();
        }
        _ => {
            let _ = r.t3(&["push", "origin"]);
            vec!["fetch", "origin"]
        }
    };
    let out = r.t3(&args);
    assert!(
        !out.stderr.contains("panicked") && out.code != 101,
        "{args:?} panicked: {}",
        out.stderr
    );
    format!("{args:?} -> {}", out.code)
}

// One test per seed, so the three run side by side.
#[test]
fn no_version_a_command_took_away_is_ever_lost_seed_7() {
    no_version_is_lost(7);
}

#[test]
fn no_version_a_command_took_away_is_ever_lost_seed_1234() {
    no_version_is_lost(1234);
}

#[test]
fn no_version_a_command_took_away_is_ever_lost_seed_99991() {
    no_version_is_lost(99_991);
}

/// 60 random user edits and git-t3 commands from `seed`; then every
/// version of a file that a command took away is still in the repository.
fn no_version_is_lost(seed: u64) {
    {
        let r = TestRepo::seeded();
        let remote = r.tmp().join("remote.git");
        r.git(&["init", "-q", "--bare", remote.to_str().unwrap()]);
        r.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
        r.write(".gitignore", "*.log\nbuild/\nvendor/\n");
        r.commit_all("ignore logs");
        r.t3(&["baseline", "--thread", THREAD]).ok();
        let mut rng = Rng(seed);
        let mut taken: BTreeMap<String, String> = BTreeMap::new();
        for step in 0..60 {
            user_edit(&r, &mut rng, step);
            let before = versions(&r);
            let what = t3_step(&r, &mut rng);
            let after = versions(&r);
            for (id, path) in before {
                if !after.contains_key(&id) {
                    taken.insert(id, format!("{path} (seed {seed}, step {step}: {what})"));
                }
            }
        }
        // Finish anything half-done, then let gc take all it can.
        let _ = r.t3(&["revert", "--abort", "--thread", THREAD, "--force"]);
        r.git(&["reflog", "expire", "--expire=now", "--all"]);
        r.git(&["gc", "-q", "--prune=now"]);
        r.git(&["fsck", "--no-progress"]);
        let reachable: BTreeSet<String> = r
            .git(&["rev-list", "--objects", "--all"])
            .lines()
            .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
            .collect();
        let now = versions(&r);
        let lost: Vec<&String> = taken
            .iter()
            .filter(|(id, _)| !reachable.contains(*id) && !now.contains_key(*id))
            .map(|(_, what)| what)
            .collect();
        assert!(
            lost.is_empty(),
            "versions lost:\n{}",
            lost.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
        );
    }
}
