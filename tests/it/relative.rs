//! `--relative[=<path>]`, `--no-relative`, `diff.relative`, and pathspecs
//! relative to the directory the command runs in (`-C` included), against
//! git run in the same place.

use std::path::Path;

use crate::util::{THREAD, TestRepo, ref_for};

/// A turn with changes inside and outside `sub/`, a rename into it from
/// outside and one within it, and names that only start like it.
fn layout() -> TestRepo {
    let r = TestRepo::new();
    r.write("sub/a.txt", "a\n");
    r.write("sub/deep/b.txt", "b\n");
    r.write("sub/old name.txt", "one\ntwo\nthree\nfour\nfive\n");
    r.write("other/o.txt", "o\n");
    r.write(
        "other/moved.txt",
        &(1..=20).map(|i| format!("{i}\n")).collect::<String>(),
    );
    r.write("subway/x.txt", "x\n");
    r.write("top.txt", "top\n");
    r.commit_all("layout");
    r.t3(&["baseline", "--thread", THREAD]).ok();
    r.write("sub/a.txt", "a\na2 \n");
    r.write("sub/deep/b.txt", "b\nb2\n");
    std::fs::rename(r.root.join("sub/old name.txt"), r.root.join("sub/new name.txt")).unwrap();
    r.write("other/o.txt", "o\no2\n");
    std::fs::rename(r.root.join("other/moved.txt"), r.root.join("sub/moved.txt")).unwrap();
    r.write("subway/x.txt", "x\nx2\n");
    r.write("subfile.txt", "new\n");
    r.write("top.txt", "top\ntop2\n");
    r.t3(&["capture", "--thread", THREAD]).ok();
    r
}

/// `git <config> t3 <pre> diff --thread T --keep-whitespace <ours>` in
/// `cwd` against `git <config> <pre> diff -M <ours> A B` in the same place.
#[track_caller]
fn same(r: &TestRepo, cwd: &Path, (config, pre): (&[&str], &[&str]), ours: &[&str]) {
    let (a, b) = (ref_for(THREAD, 0), ref_for(THREAD, 1));
    let (opts, paths) = match ours.iter().position(|o| *o == "--") {
        Some(i) => ours.split_at(i),
        None => (ours, &[][..]),
    };
    let mine = [
        config,
        &["t3"],
        pre,
        &["diff", "--thread", THREAD, "--keep-whitespace"],
        opts,
        paths,
    ]
    .concat();
    let git = [
        config,
        pre,
        &["diff", "-M"],
        opts,
        &[a.as_str(), b.as_str()],
        paths,
    ]
    .concat();
    let (m, g) = (r.git_in(cwd, &mine).ok(), r.git_in(cwd, &git).ok());
    assert_eq!(
        String::from_utf8_lossy(&m.stdout),
        String::from_utf8_lossy(&g.stdout),
        "in {}: {config:?} {pre:?} {ours:?}",
        cwd.display()
    );
}

#[test]
fn relative_paths_and_limits_like_git() {
    let r = layout();
    let cases: [&[&str]; 17] = [
        &[],
        &["--relative"],
        &["--relative", "--stat"],
        &["--relative", "--numstat"],
        &["--relative", "--name-only"],
        &["--relative", "--name-status"],
        &["--relative", "--name-status", "-z"],
        &["--relative=sub"],
        &["--relative=sub/", "--stat"],
        // A path is a leading part of names, not a directory: git keeps
        // `subway/` and `subfile.txt` too and cuts them.
        &["--relative=su", "--name-status"],
        &["--relative=other", "--name-status"],
        &["--relative=", "--name-only"],
        &["--relative", "--no-relative", "--name-only"],
        &["--no-relative", "--relative=other", "--name-only"],
        &["--name-only", "--", "deep"],
        &["--relative", "--", "deep", "a.txt"],
        &["--relative", "--name-only", "--", "."],
    ];
    for dir in ["", "sub", "sub/deep"] {
        let cwd = r.root.join(dir);
        for ours in cases {
            same(&r, &cwd, (&[], &[]), ours);
        }
    }
    // From a subdirectory, pathspecs may leave it; `..` there, like `.` at
    // the top, is everything (gix alone matched nothing for them).
    same(
        &r,
        &r.root.join("sub"),
        (&[], &[]),
        &["--name-only", "--", "../top.txt"],
    );
    same(&r, &r.root.join("sub"), (&[], &[]), &["--name-only", "--", ".."]);
    same(&r, &r.root, (&[], &[]), &["--name-only", "--", ".", ":!sub"]);
    same(
        &r,
        &r.root.join("sub"),
        (&[], &[]),
        &["--relative", "--", "../other"],
    );
    // diff.relative makes --relative the default; --no-relative wins.
    for ours in [
        &["--stat"][..],
        &["--no-relative", "--stat"],
        &["--relative=other"],
    ] {
        same(
            &r,
            &r.root.join("sub"),
            (&["-c", "diff.relative=true"], &[]),
            ours,
        );
    }
}

/// `-C sub` is running in `sub`: pathspecs and `--relative` start there
/// (pathspecs used to be read from the process's own directory).
#[test]
fn dash_c_counts_as_running_there() {
    let r = layout();
    for ours in [
        &["--name-only", "--", "deep"][..],
        &["--relative", "--name-status"],
        &["--relative", "--", "deep"],
    ] {
        same(&r, &r.root, (&[], &["-C", "sub"]), ours);
    }
    let names = r
        .t3(&[
            "-C",
            "sub",
            "diff",
            "--thread",
            THREAD,
            "--name-only",
            "--",
            "deep",
        ])
        .ok()
        .out();
    assert_eq!(names, "sub/deep/b.txt\n");
}

/// JSON follows `--relative` too, and says what the paths are relative to.
#[test]
fn json_names_what_paths_are_relative_to() {
    let r = layout();
    let d = r.t3_json_in(&r.root.join("sub"), &["diff", "--thread", THREAD, "--relative"]);
    assert_eq!(d["relative"], "sub/");
    let paths: Vec<&str> = d["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["a.txt", "deep/b.txt", "moved.txt", "new name.txt"]);
    let renamed = &d["files"][3];
    assert_eq!(renamed["old_path"], "old name.txt");
    let whole = r.t3_json_in(&r.root.join("sub"), &["diff", "--thread", THREAD]);
    assert!(whole.get("relative").is_none(), "{whole}");
    assert_eq!(whole["files"].as_array().unwrap().len(), 8);
}
