#!/usr/bin/env python3
"""The project's own capture benchmark (Python 3 standard library only).

usage: scripts/bench-capture.py [--files N] [--turns T] [--bin PATH]

Builds a synthetic repository of N tracked files with an ignored folder,
takes a baseline, then plays T agent turns (edit 10 files, add 5, delete 2).
After each turn it times, on the same worktree state:
  t3      git-t3 capture
  status  git status --porcelain -uall   (what listing the changes costs)
  ref     read-tree HEAD + add -A + write-tree in a copy of the user's index
and checks that git-t3's tree equals git's. Prints medians and ratios.
Machines are noisy: compare ratios from one run, not absolute times.
"""
import argparse, os, random, shutil, statistics, subprocess, sys, tempfile, time
from pathlib import Path


def run(args, cwd, env, extra=None):
    e = dict(env, **(extra or {}))
    p = subprocess.run(args, cwd=cwd, env=e, capture_output=True)
    if p.returncode:
        sys.exit(f"{' '.join(map(str, args))} failed: {p.stderr.decode()[-500:]}")
    return p.stdout.decode().strip()


def timed(args, cwd, env, extra=None):
    t = time.perf_counter()
    out = run(args, cwd, env, extra)
    return time.perf_counter() - t, out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--turns", type=int, default=5)
    ap.add_argument("--bin", default=str(Path(__file__).resolve().parent.parent / "target/release/git-t3"))
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="t3-bench-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(HOME=str(tmp), GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b",
               GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@b", LC_ALL="C")
    repo = tmp / "repo"
    repo.mkdir()
    rng = random.Random(3)
    run(["git", "init", "-q", "-b", "main"], repo, env)
    paths = []
    for i in range(a.files):
        p = repo / f"d{i % 17}/e{(i // 17) % 23}/f{i // 391}/file{i}.txt"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"line of file {i}\n" * rng.randint(1, 200))
        paths.append(p)
    (repo / ".gitignore").write_text("node_modules/\n*.log\n")
    for i in range(a.files // 4):
        p = repo / f"node_modules/pkg{i % 50}/lib{i}.js"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("module.exports = 1;\n")
    run(["git", "add", "-A"], repo, env)
    run(["git", "commit", "-qm", "init"], repo, env)
    run([a.bin, "baseline", "--thread", "bench"], repo, env)
    fig = {"t3": [], "status": [], "ref": []}
    idx = tmp / "ref-index"
    for turn in range(1, a.turns + 1):
        for p in rng.sample(paths, 10):
            with open(p, "a") as f:
                f.write(f"turn {turn}\n")
        for j in range(5):
            (repo / f"new{turn}").mkdir(exist_ok=True)
            (repo / f"new{turn}/f{j}.txt").write_text("new\n" * 10)
        for p in rng.sample(paths, 2):
            p.unlink(missing_ok=True)
        dt, _ = timed([a.bin, "capture", "--thread", "bench"], repo, env)
        fig["t3"].append(dt)
        fig["status"].append(timed(["git", "status", "--porcelain", "-uall"], repo, env)[0])
        shutil.copy(repo / ".git/index", idx)
        t = time.perf_counter()
        gi = {"GIT_INDEX_FILE": str(idx)}
        run(["git", "read-tree", "--reset", "HEAD"], repo, env, gi)
        run(["git", "add", "-A"], repo, env, gi)
        tree = run(["git", "write-tree"], repo, env, gi)
        fig["ref"].append(time.perf_counter() - t)
        mine = run(["git", "rev-parse", f"refs/t3/checkpoints/YmVuY2g/turn/{turn}^{{tree}}"], repo, env)
        if mine != tree:
            sys.exit(f"turn {turn}: git-t3 tree {mine} != git's {tree}")
    m = {k: statistics.median(v) for k, v in fig.items()}
    print(f"{a.files} files, {a.turns} turns: capture {m['t3']*1000:.1f} ms, "
          f"git status {m['status']*1000:.1f} ms, git read-tree+add -A {m['ref']*1000:.1f} ms")
    print(f"ratio_t3_capture_over_status {m['t3'] / m['status']:.2f}")
    print(f"ratio_ref_over_t3_capture {m['ref'] / m['t3']:.2f}")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
