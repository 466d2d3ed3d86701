#!/usr/bin/env python3
"""What git-t3's checkpoints cost on disk, before and after git packs them.

usage: scripts/disk-per-checkpoint.py [--files N] [--turns T] [--edits E] [--bin PATH]
                                      [--auto-gc]

Builds a repository of N tracked files (about 1 KiB each, nested three
folders deep), commits them and packs (`git gc`), then takes a baseline and
T agent turns; each turn rewrites E files and adds one. It prints:

  loose   bytes added to .git/objects per checkpoint as git-t3 writes them
          (loose objects, zlib-compressed, and the notes)
  packed  the same after `git gc` (deltas between checkpoints)
  du      what `git t3 du` reports for the thread and in all

With --auto-gc, git's `gc.auto` stays at its default, so captures start
`git gc --auto` in the background as they would for a user, and it prints
instead the loose objects and .git/objects bytes left after the turns.

Python 3 standard library only. The binary is --bin, else $T3_BIN, else
target/release/git-t3, else target/debug/git-t3.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def binary(given):
    for c in [given, os.environ.get("T3_BIN"), ROOT / "target/release/git-t3", ROOT / "target/debug/git-t3"]:
        if c and Path(c).is_file():
            return str(Path(c).resolve())
    sys.exit("no git-t3 binary: build it (cargo build --release) or pass --bin")


def objects_bytes(repo):
    total = 0
    for dirpath, _, files in os.walk(repo / ".git" / "objects"):
        for f in files:
            total += (Path(dirpath) / f).stat().st_size
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--turns", type=int, default=50)
    ap.add_argument("--edits", type=int, default=10)
    ap.add_argument("--bin")
    ap.add_argument("--auto-gc", action="store_true")
    a = ap.parse_args()
    t3 = binary(a.bin)
    rng = random.Random(7)
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b",
               GIT_COMMITTER_EMAIL="b@b", GIT_CONFIG_NOSYSTEM="1")
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()

        def git(*args):
            return subprocess.run(["git", *args], cwd=repo, env=env, check=True,
                                  capture_output=True).stdout.decode()

        def run_t3(*args):
            p = subprocess.run([t3, *args], cwd=repo, env=env, capture_output=True)
            if p.returncode != 0:
                sys.exit(f"git t3 {' '.join(args)} failed: {p.stderr.decode(errors='replace')}")
            return p.stdout.decode()

        git("init", "-q")
        if not a.auto_gc:
            # No background gc while measuring loose objects.
            git("config", "gc.auto", "0")
        git("config", "t3.pruneAfter", "never")
        paths = []
        for i in range(a.files):
            p = Path(f"d{i % 10}/e{i % 100}/f{i % 1000}/file{i}.txt")
            paths.append(p)
            (repo / p).parent.mkdir(parents=True, exist_ok=True)
            (repo / p).write_text("".join(f"line {j} of file {i}\n" for j in range(60)))
        git("add", "-A")
        git("commit", "-qm", "initial")
        git("gc", "-q")
        start = objects_bytes(repo)
        run_t3("baseline", "--thread", "disk")
        for turn in range(1, a.turns + 1):
            for p in rng.sample(paths, a.edits):
                with open(repo / p, "a") as f:
                    f.write(f"turn {turn} {rng.random()}\n")
            (repo / f"new/turn{turn}.txt").parent.mkdir(exist_ok=True)
            (repo / f"new/turn{turn}.txt").write_text(f"added in turn {turn}\n" * 20)
            run_t3("capture", "--thread", "disk")
        checkpoints = a.turns + 1
        if a.auto_gc:
            import time
            time.sleep(5)  # a background gc may still be finishing
            du = json.loads(run_t3("--json", "du"))
            print(f"files {a.files}, turns {a.turns}, gc.auto default: {du['loose_objects']} loose "
                  f"objects, .git/objects {objects_bytes(repo)} bytes, packs "
                  f"{len(list((repo / '.git/objects/pack').glob('*.pack')))}")
            return
        loose = objects_bytes(repo) - start
        du_loose = json.loads(run_t3("--json", "du"))
        git("gc", "-q")
        packed_all = objects_bytes(repo)
        # The same repository packed without git-t3's refs: the difference
        # is what the checkpoints cost packed.
        git("update-ref", "-d", "refs/notes/t3")
        for line in git("for-each-ref", "--format=%(refname)", "refs/t3/").split():
            git("update-ref", "-d", line)
        git("-c", "gc.reflogExpire=now", "-c", "gc.reflogExpireUnreachable=now", "gc", "-q", "--prune=now")
        packed_without = objects_bytes(repo)
        packed = packed_all - packed_without
        du = du_loose["threads"][0]["bytes"] if du_loose["threads"] else 0
        print(f"files {a.files}, turns {a.turns}, {a.edits} files rewritten and 1 added per turn")
        print(f"loose   {loose / checkpoints:12.0f} bytes per checkpoint ({loose} for {checkpoints})")
        print(f"packed  {packed / checkpoints:12.0f} bytes per checkpoint ({packed} for {checkpoints})")
        print(f"du      thread {du} bytes, total {du_loose['total_bytes']} bytes, "
              f"{du_loose['loose_objects']} loose objects (before packing)")
        print(f"ratio   loose/packed {loose / max(packed, 1):.1f}")


if __name__ == "__main__":
    main()
