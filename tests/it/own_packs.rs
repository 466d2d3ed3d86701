//! git-t3's own packs folded by the background maintenance, whatever
//! `gc.auto` says, and the notes reflog trimmed: the object store stays
//! tidy after many captures.

use std::path::PathBuf;
use std::time::Duration;

use crate::util::{TestRepo, ref_for};

/// The packs recorded as git-t3's (`.git/t3/packs`) whose files are there.
fn own_packs(r: &TestRepo) -> Vec<String> {
    let pack_dir = r.root.join(".git/objects/pack");
    let mut names: Vec<String> = std::fs::read_dir(r.root.join(".git/t3/packs"))
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| pack_dir.join(format!("{n}.pack")).is_file())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The regular files under `dir`, at any depth.
fn loose_files(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| {
        d.filter_map(|e| e.ok())
            .map(|e| match e.file_type() {
                Ok(t) if t.is_dir() => loose_files(&e.path()),
                Ok(t) if t.is_file() => 1,
                _ => 0,
            })
            .sum()
    })
}

/// Wait until no maintenance run holds its lock.
fn wait_idle(r: &TestRepo) {
    let path = r.root.join(".git/t3/maintenance.lock");
    let start = std::time::Instant::now();
    // No lock file: no run ever started.
    while std::fs::File::open(&path).is_ok_and(|f| f.try_lock().is_err()) {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "maintenance never ended"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A pack git makes of one new blob: the user's.
fn user_pack(r: &TestRepo, content: &str) -> (String, Vec<u8>) {
    let blob = r.blob(content);
    let base = r.root.join(".git/objects/pack/pack");
    let out = r
        .git_input(
            &r.root,
            &["pack-objects", "-q", &base.to_string_lossy()],
            format!("{blob}\n").as_bytes(),
        )
        .ok();
    let name = format!("pack-{}", out.out().trim());
    let bytes = std::fs::read(r.root.join(format!(".git/objects/pack/{name}.pack"))).unwrap();
    (name, bytes)
}

fn pack_file(r: &TestRepo, name: &str, ext: &str) -> PathBuf {
    r.root.join(format!(".git/objects/pack/{name}.{ext}"))
}

#[test]
fn many_captures_with_gc_auto_off_leave_few_packs_of_git_t3s_and_every_tree_readable() {
    let r = TestRepo::seeded();
    r.git(&["config", "gc.auto", "0"]);
    let events = r.tmp().join("events");
    r.extra_env_set("T3_TEST_EVENTS", events.to_str().unwrap());
    let (user, user_bytes) = user_pack(&r, "the user's own blob\n");
    r.t3(&["baseline", "--thread", "t"]).ok();
    let turns = 200u64;
    let mut kept = None;
    for i in 1..=turns {
        r.write(&format!("src/f{}.txt", i % 7), &format!("turn {i}\n"));
        r.t3(&["capture", "--thread", "t"]).ok();
        if i == 3 {
            // A capture in flight: its pack has a .keep until its refs are
            // published. Never folded.
            let newest = own_packs(&r).into_iter().last().unwrap();
            std::fs::File::create(pack_file(&r, &newest, "keep")).unwrap();
            kept = Some(newest);
        }
    }
    let kept = kept.unwrap();
    let folds = crate::util::events(&events)
        .iter()
        .filter(|e| e.1 == "maintenance-started" && e.2 == "fold")
        .count();
    assert!(
        folds > 0,
        "no capture started a fold: {:?}",
        crate::util::events(&events)
    );
    // The run a capture starts, once more after the last capture.
    wait_idle(&r);
    let run = r.t3_json(&["maintenance", "--auto"]);
    assert_eq!(
        run["gc"],
        serde_json::Value::Null,
        "git gc ran with gc.auto=0: {run}"
    );
    let own = own_packs(&r);
    assert!(own.len() <= 10, "{} packs of git-t3's left: {own:?}", own.len());
    assert!(own.contains(&kept), "the kept pack was folded");
    assert!(pack_file(&r, &kept, "idx").is_file());
    assert_eq!(
        std::fs::read(pack_file(&r, &user, "pack")).unwrap(),
        user_bytes,
        "the user's pack changed"
    );
    assert!(
        pack_file(&r, &user, "idx").is_file(),
        "the user's pack was removed"
    );
    assert!(!own.contains(&user));
    assert!(r.packs().len() <= 12, "packs: {:?}", r.packs());
    // The turns' refs are packed (git's pack-refs), the branch left loose.
    let loose = loose_files(&r.root.join(".git/refs/t3"));
    assert!(
        loose <= 64,
        "{loose} loose refs under refs/t3 after {turns} turns"
    );
    let branch = r.git(&["symbolic-ref", "HEAD"]);
    assert!(r.root.join(".git").join(&branch).is_file(), "{branch} was packed");
    assert!(
        std::fs::read_to_string(r.root.join(".git/packed-refs")).is_ok_and(|p| p.contains(&ref_for("t", 1))),
        "turn 1's ref is not packed"
    );
    r.git(&["fsck", "--full", "--strict", "--no-dangling"]);
    for turn in 0..=turns {
        let commit = ref_for("t", turn);
        r.git(&["ls-tree", "-r", &commit]);
        if turn > 0 {
            let blob = r.git(&["cat-file", "-p", &format!("{commit}:src/f{}.txt", turn % 7)]);
            assert_eq!(blob, format!("turn {turn}"));
        }
    }
    for turn in [1, turns / 2, turns] {
        let diff = r
            .t3(&["diff", "--thread", "t", "--turn", &turn.to_string()])
            .ok()
            .out();
        assert!(diff.contains(&format!("+turn {turn}")), "turn {turn}: {diff}");
    }
}

#[test]
fn a_recorded_pack_git_wrote_with_deltas_folds_into_whole_objects() {
    let r = TestRepo::seeded();
    r.git(&["config", "gc.auto", "0"]);
    r.t3(&["baseline", "--thread", "t"]).ok();
    // Blobs alike enough for git to store most as deltas, in a pack that
    // is recorded as git-t3's (as if a capture wrote it).
    let body: String = (0..200).map(|i| format!("line {i}\n")).collect();
    let blobs: Vec<String> = (0..5).map(|i| r.blob(&format!("{body}{i}\n"))).collect();
    let base = r.root.join(".git/objects/pack/pack");
    let out = r
        .git_input(
            &r.root,
            &["pack-objects", "-q", &base.to_string_lossy()],
            (blobs.join("\n") + "\n").as_bytes(),
        )
        .ok();
    let name = format!("pack-{}", out.out().trim());
    let listed = r.git(&[
        "verify-pack",
        "-v",
        &pack_file(&r, &name, "idx").to_string_lossy(),
    ]);
    assert!(listed.contains("chain length"), "no delta in {listed}");
    std::fs::File::create(r.root.join(".git/t3/packs").join(&name)).unwrap();
    for i in 0..12 {
        r.write("a.txt", &format!("{i}\n"));
        r.t3(&["capture", "--thread", "t"]).ok();
    }
    wait_idle(&r);
    r.t3(&["maintenance", "--auto"]).ok();
    assert!(
        !pack_file(&r, &name, "pack").exists(),
        "the recorded pack was not folded"
    );
    assert!(own_packs(&r).len() <= 10);
    r.git(&["fsck", "--full", "--strict"]);
    for (i, b) in blobs.iter().enumerate() {
        assert_eq!(r.git(&["cat-file", "-p", b]), format!("{body}{i}"));
    }
}

#[test]
fn the_notes_reflog_is_trimmed_in_the_background() {
    let r = TestRepo::seeded();
    r.git(&["config", "gc.auto", "0"]);
    r.t3(&["baseline", "--thread", "t"]).ok();
    let log = r.root.join(".git/logs/refs/notes/t3");
    let first = std::fs::read_to_string(&log).unwrap();
    let first = format!("{}\n", first.lines().next().unwrap());
    // A thousand captures' worth of entries.
    std::fs::write(&log, first.repeat(1000)).unwrap();
    let events = r.tmp().join("events");
    r.extra_env_set("T3_TEST_EVENTS", events.to_str().unwrap());
    r.write("a.txt", "again\n");
    r.t3(&["capture", "--thread", "t"]).ok();
    crate::util::wait_for_event(&events, "maintenance-started");
    let start = std::time::Instant::now();
    while std::fs::read_to_string(&log).unwrap().lines().count() > 100 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the reflog was not trimmed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    wait_idle(&r);
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.lines().count(), 100);
    // The newest entry stays: it names the notes ref's commit.
    let tip = r.git(&["rev-parse", "refs/notes/t3"]);
    let last = text.lines().last().unwrap();
    assert_eq!(last.split(' ').nth(1), Some(tip.trim()), "{last}");
    r.git(&["reflog", "show", "refs/notes/t3"]);
    assert!(!r.root.join(".git/refs/notes/t3.lock").exists());
    assert!(!r.root.join(".git/logs/refs/notes/t3.lock").exists());
    r.git(&["fsck", "--full"]);
}
