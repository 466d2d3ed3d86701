#!/usr/bin/env python3
"""Time `git t3 capture` after a few edits, with and without Watchman.

usage: scripts/bench-watcher.py REPO [--edits 20] [--rounds 5]

REPO is a repository to play turns in, e.g. one kept by
`../shared/bench/run --files 100000 --parts capture --keep DIR`. The binary
is $T3_BIN, else target/release/git-t3. Each round edits --edits tracked
files (appends a line) and times one capture, first with
`t3.fsmonitor = watchman`, then with the watcher off (the untracked-walk
cache alone), then `git status --porcelain -uall` on the same state. Prints
the medians. Standard library only; needs `watchman` on PATH.
"""
import argparse
import os
import random
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(args, cwd, check=True):
    return subprocess.run(args, cwd=cwd, check=check, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def timed(args, cwd):
    start = time.perf_counter()
    out = run(args, cwd)
    return (time.perf_counter() - start) * 1000, out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("repo")
    p.add_argument("--edits", type=int, default=20)
    p.add_argument("--rounds", type=int, default=5)
    a = p.parse_args()
    t3 = os.environ.get("T3_BIN") or os.path.join(HERE, "..", "target", "release", "git-t3")
    repo = os.path.abspath(a.repo)
    files = run(["git", "ls-files", "-z"], repo).stdout.split(b"\0")
    files = [f.decode() for f in files if f]
    rng = random.Random(14)
    thread = "watcher-bench"

    def edit():
        for f in rng.sample(files, a.edits):
            with open(os.path.join(repo, f), "a") as fh:
                fh.write("edited %d\n" % rng.randrange(1 << 30))

    figures = {}
    for mode in ("watchman", "off"):
        if mode == "watchman":
            run(["git", "config", "t3.fsmonitor", "watchman"], repo)
        else:
            run(["git", "config", "t3.fsmonitor", "false"], repo)
        # Two warm-up captures: the first one takes the watcher's first
        # token (and Watchman crawls the tree), the second one settles.
        for _ in range(2):
            run([t3, "capture", "--thread", thread], repo)
        times, status = [], []
        for _ in range(a.rounds):
            edit()
            ms, out = timed([t3, "capture", "--thread", thread], repo)
            if b"walked instead" in out.stderr:
                sys.exit("the watcher failed: " + out.stderr.decode(errors="replace"))
            times.append(ms)
            ms, _ = timed(["git", "status", "--porcelain", "-uall"], repo)
            status.append(ms)
        figures[mode] = statistics.median(times)
        figures["status_" + mode] = statistics.median(status)
    run(["git", "config", "--unset", "t3.fsmonitor"], repo, check=False)
    print("files %d, %d edits per capture, median of %d rounds" % (len(files), a.edits, a.rounds))
    print("capture t3 with watchman   %8.1f ms" % figures["watchman"])
    print("capture t3 without watcher %8.1f ms" % figures["off"])
    print("git status --porcelain -uall %6.1f ms" % statistics.median([figures["status_watchman"], figures["status_off"]]))


if __name__ == "__main__":
    main()
