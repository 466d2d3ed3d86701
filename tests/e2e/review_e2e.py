#!/usr/bin/env python3
"""End-to-end test of `git t3 review` in headless Chromium.

Standard library only: it talks to chromedriver's W3C WebDriver HTTP API
with urllib. It builds a repository with a thread of turns through the
binary, starts `git t3 review --no-open`, drives the page (a thread, a turn,
side by side, the whole thread, dark colours, a revert with
`--allow-revert`, a thread named `..`), checks what the page shows against
`git t3 --json diff`, and saves screenshots as target/review-*.png.

Usage: review_e2e.py [--bin PATH] [--out DIR] [--docs PATH]
  --bin   the git-t3 binary (default: target/release/git-t3)
  --out   where the screenshots go (default: target)
  --docs  also copy the turn screenshot there (docs/review.png for the README)
"""

import argparse
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
THREAD = "e2e-thread"
DOTS = ".."
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class Failed(Exception):
    pass


def png(rgb):
    """A 1x1 PNG of one colour."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes((0,) + tuple(rgb)))) + chunk(b"IEND", b""))


def need(cond, msg):
    if not cond:
        raise Failed(msg)


def find_tool(names):
    for n in names:
        p = shutil.which(n)
        if p:
            return p
        if os.path.exists(n):
            return n
    return None


class Repo:
    def __init__(self, bin_path: str):
        self.bin = bin_path
        self.tmp = tempfile.mkdtemp(prefix="t3-e2e-")
        self.root = os.path.join(self.tmp, "repo")
        home = os.path.join(self.tmp, "home")
        os.makedirs(self.root)
        os.makedirs(home)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "T3_"))}
        self.env.pop("BROWSER", None)
        self.env.update({
            "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "E2E", "GIT_AUTHOR_EMAIL": "e2e@example.com",
            "GIT_COMMITTER_NAME": "E2E", "GIT_COMMITTER_EMAIL": "e2e@example.com",
            "NO_COLOR": "1", "GIT_PAGER": "cat",
        })

    def git(self, *args):
        return subprocess.run(["git", *args], cwd=self.root, env=self.env, check=True,
                              capture_output=True, text=True).stdout

    def t3(self, *args):
        p = subprocess.run([self.bin, *args], cwd=self.root, env=self.env, capture_output=True, text=True)
        if p.returncode != 0:
            raise Failed(f"git t3 {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
        return p.stdout

    def write(self, path, data):
        p = Path(self.root, path)
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            p.write_bytes(data)
        else:
            p.write_text(data)

    def read(self, path):
        return Path(self.root, path).read_text()

    def build(self):
        self.git("init", "-q", "-b", "main")
        self.write("README.md", "# demo\n\nA small project.\n")
        self.write("src/app.py", "".join(f"def f{i}():\n    return {i}\n\n" for i in range(30)))
        self.write("notes/old-name.txt", "a file that gets renamed\n" * 5)
        self.git("add", "-A")
        self.git("commit", "-qm", "initial")
        self.t3("baseline", "--thread", THREAD)
        # turn 1: edits, a new file, a rename, a binary file, a whitespace-only change
        self.write("src/app.py", self.read("src/app.py").replace("return 3\n", "return 33\n")
                   .replace("return 7\n", "return  7\n") + "def added():\n    return 'new'\n")
        self.write("src/new_module.py", "VALUE = 1\n\ndef run():\n    return VALUE\n")
        os.rename(os.path.join(self.root, "notes/old-name.txt"), os.path.join(self.root, "notes/new-name.txt"))
        self.write("assets/logo.bin", bytes(range(256)) * 4)
        self.write("assets/dot.png", png((255, 0, 0)))
        self.t3("capture", "--thread", THREAD, "--title", "Add a module and rename the notes")
        # turn 2: a placeholder (its snapshot never taken)
        self.t3("placeholder", "--thread", THREAD)
        # turn 3: more edits, a deletion
        self.write("README.md", "# demo\n\nA small project, reviewed.\n\nSee src/.\n")
        os.remove(os.path.join(self.root, "src/new_module.py"))
        self.t3("capture", "--thread", THREAD, "--title", "Drop the module again")

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


class Server:
    def __init__(self, repo: Repo, *extra):
        self.proc = subprocess.Popen([repo.bin, "review", "--no-open", "--port", "0", *extra], cwd=repo.root,
                                     env=repo.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        got: list = []
        t = threading.Thread(target=lambda: got.append(self.proc.stdout.readline()), daemon=True)
        t.start()
        t.join(20)
        line = got[0].decode().strip() if got else ""
        if not line.startswith("http://127.0.0.1:"):
            self.stop()
            raise Failed(f"git t3 review printed no URL first: {line!r}")
        self.url = line

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for f in (self.proc.stdout, self.proc.stderr):
            if f:
                f.close()


def http(method, url, body=None, timeout=60):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"} if data else {})
    try:
        with OPENER.open(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


class Driver:
    """A W3C WebDriver session with chromedriver."""

    def __init__(self, chromedriver, chromium):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.proc = subprocess.Popen([chromedriver, f"--port={self.port}"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 30
        while True:
            try:
                status, body = http("GET", self.base + "/status", timeout=5)
                if status == 200 and json.loads(body)["value"].get("ready"):
                    break
            except (OSError, ValueError):
                pass
            if time.time() > deadline:
                self.proc.kill()
                raise Failed("chromedriver did not come up within 30 s")
            time.sleep(0.2)
        args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1440,1000", "--force-color-profile=srgb", "--no-first-run"]
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome",
                                                 "goog:chromeOptions": {"binary": chromium, "args": args}}}}
        status, body = http("POST", self.base + "/session", caps, timeout=90)
        need(status == 200, f"could not start a Chromium session: {body[:500]!r}")
        self.session = json.loads(body)["value"]["sessionId"]

    def cmd(self, method, path, body=None):
        status, raw = http(method, f"{self.base}/session/{self.session}{path}", body)
        value = json.loads(raw).get("value") if raw else None
        if status != 200:
            raise Failed(f"WebDriver {method} {path}: {status} {value}")
        return value

    def go(self, url):
        self.cmd("POST", "/url", {"url": url})

    def js(self, script, *args):
        return self.cmd("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css):
        return self.cmd("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def click(self, css):
        self.cmd("POST", f"/element/{self.find(css)}/click", {})

    def wait(self, script, what, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.js(script):
                return
            time.sleep(0.1)
        raise Failed(f"timed out waiting for {what}; error banner: {self.js(ERROR_TEXT)!r}")

    def idle(self, what):
        self.wait("return document.body.dataset.loading === '0'", what)

    def screenshot(self, path: Path):
        png = base64.b64decode(self.cmd("GET", "/screenshot"))
        path.write_bytes(png)
        need(png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 2000, f"{path} is not a non-empty PNG")
        print(f"  screenshot {path} ({len(png)} bytes)")

    def quit(self):
        try:
            http("DELETE", f"{self.base}/session/{self.session}", timeout=20)
        except OSError:
            pass
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


ERROR_TEXT = "const e = document.getElementById('error'); return e.hidden ? '' : e.textContent;"

PAGE_FILES = """
return Array.from(document.querySelectorAll('#files li.file')).map(li => ({
  path: li.dataset.path,
  kind: li.dataset.kind,
  add: (li.querySelector('.counts .add') || {}).textContent || null,
  del: (li.querySelector('.counts .del') || {}).textContent || null,
  binary: !!li.querySelector('.counts .muted'),
}));
"""


def compare_files(d: Driver, want: dict, what: str):
    got = d.js(PAGE_FILES)
    need(len(got) == len(want["files"]), f"{what}: the page lists {len(got)} files, git t3 --json diff {len(want['files'])}")
    for g, w in zip(got, want["files"]):
        need(g["path"] == w["path"] and g["kind"] == w["kind"], f"{what}: page file {g} vs {w}")
        if w["binary"]:
            need(g["binary"], f"{what}: {w['path']} is binary but the page shows counts")
        else:
            need(g["add"] == f"+{w['additions']}" and g["del"] == f"-{w['deletions']}",
                 f"{what}: {w['path']}: page {g['add']} {g['del']}, CLI +{w['additions']} -{w['deletions']}")
    totals = d.js("return [document.getElementById('total-add').textContent, document.getElementById('total-del').textContent]")
    t = want["totals"]
    need(totals == [f"+{t['additions']}", f"-{t['deletions']}"], f"{what}: totals {totals} vs {t}")
    blocks = d.js("return document.querySelectorAll('#diff .filediff').length")
    need(blocks == len(want["files"]), f"{what}: {blocks} file blocks for {len(want['files'])} files")


def check_token(url: str):
    u = urllib.parse.urlsplit(url)
    token = u.path.strip("/")
    for bad in (f"{u.scheme}://{u.netloc}/", f"{u.scheme}://{u.netloc}/{'x' * len(token)}/",
                f"{u.scheme}://{u.netloc}/api/threads", f"{u.scheme}://{u.netloc}/{'y' * len(token)}/api/threads"):
        status, _ = http("GET", bad)
        need(status == 403, f"GET {bad}: {status}, want 403")
    status, _ = http("GET", url)
    need(status == 200, f"GET {url}: {status}")
    print("  requests without the token get 403")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / "target/release/git-t3"))
    ap.add_argument("--out", default=str(ROOT / "target"))
    ap.add_argument("--docs", default=None)
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    chromium = find_tool(["chromium", "chromium-browser", "google-chrome", "/usr/bin/chromium"])
    chromedriver = find_tool(["chromedriver", "/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"])
    need(chromium and chromedriver, "chromium and chromedriver are needed (Debian: apt-get install chromium chromium-driver)")
    need(os.path.exists(a.bin), f"no binary at {a.bin}")

    repo = Repo(os.path.abspath(a.bin))
    server = driver = None
    try:
        repo.build()
        server = Server(repo)
        print(f"review at {server.url}")
        check_token(server.url)
        driver = Driver(chromedriver, chromium)
        d = driver
        d.go(server.url)
        d.wait(f"return !!document.querySelector('#threads button[data-thread=\"{THREAD}\"]')", "the thread list")
        d.idle("the first load")

        # a thread, then a turn
        d.click(f'#threads button[data-thread="{THREAD}"]')
        d.wait("return document.querySelectorAll('#turns button.turn').length === 4", "the timeline")
        d.idle("the thread")
        placeholder = d.js("return document.querySelector('#turns button[data-turn=\"2\"]').textContent")
        need("placeholder" in placeholder, f"turn 2 is not shown as a placeholder: {placeholder!r}")
        d.click('#turns button[data-turn="1"]')
        d.wait("return document.querySelector('#turns button[data-turn=\"1\"]').getAttribute('aria-current') === 'true'", "turn 1 selected")
        d.idle("turn 1's diff")
        want = json.loads(repo.t3("--json", "diff", "--thread", THREAD, "--turn", "1"))
        compare_files(d, want, "turn 1")
        kinds = {f["kind"] for f in want["files"]}
        need({"added", "modified", "renamed"} <= kinds, f"turn 1 should add, modify and rename: {kinds}")
        rename = d.js("return Array.from(document.querySelectorAll('#files li.file a')).map(a => a.textContent).join('\\n')")
        need("notes/old-name.txt → notes/new-name.txt" in rename, f"the rename is not shown: {rename!r}")
        binary = d.js("return document.querySelector('#diff .filediff[data-path=\"assets/logo.bin\"] .note').textContent")
        need("Binary file assets/logo.bin" in binary, f"the binary file is not named: {binary!r}")
        need(d.js("return document.querySelectorAll('table.code.unified tr.add').length") > 0, "no added lines shown")
        # an image: drawn from the checkpoint, not named as a binary file
        d.wait("const i = document.querySelector('#diff .imgdiff img[data-side=\"new\"]'); return !!i && i.complete && i.naturalWidth === 1",
               "the image of assets/dot.png")
        need(d.js("return !document.querySelector('#diff .imgdiff img[data-side=\"old\"]')"), "an added image has no old side")
        # the files as a tree: each folder with its files' counts
        dirs = d.js("return Array.from(document.querySelectorAll('#files li.dir')).map(li => li.textContent)")
        need(any(x.startswith("src/ · 2 files") and "+7" in x for x in dirs), f"no folder row for src/ with its counts: {dirs}")
        # `return 3` became `return 33`: the changed word is marked on both lines
        marked = d.js("return Array.from(document.querySelectorAll('#diff .wd')).map(s => s.closest('tr').className + ':' + s.textContent)")
        need("del:3" in marked and "add:33" in marked, f"the changed word is not highlighted: {marked}")
        d.screenshot(out / "review-turn.png")
        if a.docs:
            shutil.copyfile(out / "review-turn.png", a.docs)

        # whitespace: counting it shows turn 1's whitespace-only change
        d.click("#ws")
        d.idle("the diff with whitespace")
        want_ws = json.loads(repo.t3("--json", "diff", "--thread", THREAD, "--turn", "1", "--keep-whitespace"))
        compare_files(d, want_ws, "turn 1 with whitespace")
        need(want_ws["totals"] != want["totals"], "the whitespace-only change did not count with --keep-whitespace")
        d.click("#ws")
        d.idle("the diff without whitespace")

        # side by side
        d.click("#view-split")
        d.wait("return document.querySelectorAll('table.code.split').length > 0", "the side-by-side view")
        d.idle("the side-by-side view")
        compare_files(d, want, "turn 1 side by side")
        d.screenshot(out / "review-split.png")

        # the whole thread
        d.click("#view-unified")
        d.idle("unified")
        d.click("#mode-full")
        d.wait("return document.getElementById('mode-full').classList.contains('active')", "the whole-thread mode")
        d.idle("the whole thread's diff")
        want_full = json.loads(repo.t3("--json", "diff", "--thread", THREAD, "--full"))
        compare_files(d, want_full, "the whole thread")
        d.screenshot(out / "review-full.png")

        # the live worktree (no changes since turn 3's capture but for HEAD's)
        d.click("#mode-worktree")
        d.idle("the worktree diff")
        compare_files(d, json.loads(repo.t3("--json", "diff", "--worktree", "-w")), "the worktree")

        # dark colours
        d.click("#mode-turn")
        d.idle("the selected turn")
        for _ in range(3):
            if d.js("return document.documentElement.dataset.theme === 'dark'"):
                break
            d.click("#theme")
        bg = d.js("return getComputedStyle(document.body).backgroundColor")
        need(bg in ("rgb(13, 17, 23)",), f"the dark theme's background is {bg}")
        d.screenshot(out / "review-dark.png")
        # the system's scheme, when the theme is left to it
        for _ in range(3):
            if d.js("return document.documentElement.dataset.theme === undefined"):
                break
            d.click("#theme")
        need(d.js("return document.documentElement.dataset.theme === undefined"),
             "the theme button did not come back to the system's scheme")
        for scheme, want in (("dark", "rgb(13, 17, 23)"), ("light", "rgb(255, 255, 255)")):
            d.cmd("POST", "/goog/cdp/execute", {"cmd": "Emulation.setEmulatedMedia", "params": {
                "features": [{"name": "prefers-color-scheme", "value": scheme}]}})
            bg = d.js("return getComputedStyle(document.body).backgroundColor")
            need(bg == want, f"with a {scheme} system scheme the background is {bg}")

        # keyboard: j moves to the next file
        d.js("document.body.focus()")
        d.cmd("POST", "/actions", {"actions": [{"type": "key", "id": "kb", "actions": [
            {"type": "keyDown", "value": "j"}, {"type": "keyUp", "value": "j"},
            {"type": "keyDown", "value": "j"}, {"type": "keyUp", "value": "j"}]}]})
        cur = d.js("const c = document.querySelector('.filediff.current'); return c ? c.dataset.index : null")
        need(cur == "1", f"j j did not move to the second file: {cur}")

        # the page changed nothing
        status = repo.git("status", "--porcelain")
        refs = repo.git("for-each-ref", "refs/t3", "refs/notes")
        server.stop()

        # revert, with --allow-revert
        server = Server(repo, "--allow-revert")
        d.go(server.url)
        d.wait(f"return !!document.querySelector('#threads button[data-thread=\"{THREAD}\"]')", "the thread list")
        d.idle("the first load")
        d.wait("return document.querySelectorAll('#turns button.turn').length === 4", "the timeline")
        d.click('#turns button[data-turn="1"]')
        d.idle("turn 1")
        need(status == repo.git("status", "--porcelain") and refs == repo.git("for-each-ref", "refs/t3", "refs/notes"),
             "browsing changed the repository")
        d.wait("return !document.getElementById('revert').hidden", "the revert button")
        d.click("#revert")
        d.wait("return document.getElementById('confirm').open", "the confirmation")
        preview = d.js("return [...document.querySelectorAll('#confirm-files li')].map(li => li.textContent)")
        need(any("src/new_module.py" in p for p in preview), f"the preview does not list the files: {preview}")
        d.click("#files-only")
        d.screenshot(out / "review-revert.png")
        d.click("#confirm-yes")
        d.wait("return document.body.dataset.reverted === '1'", "the revert")
        d.idle("after the revert")
        need(os.path.exists(os.path.join(repo.root, "src/new_module.py")), "the revert did not put turn 1's files back")
        need(repo.read("README.md") == "# demo\n\nA small project.\n", "README.md is not turn 1's")
        ops = json.loads(repo.t3("--json", "op", "log"))["ops"]
        need(ops and ops[0]["kind"] == "revert" and ops[0]["safety"], f"no revert with a safety checkpoint in the op log: {ops[:1]}")
        print("  revert from the page: previewed, files back at turn 1, op log entry with a safety checkpoint")

        # the operation log on the page undoes the revert
        d.wait("return !!document.querySelector('#ops li button.undo')", "the undo button in the op log")
        d.click("#ops li button.undo")
        d.wait("return document.body.dataset.undone === '1'", "the undo")
        d.idle("after the undo")
        ops = json.loads(repo.t3("--json", "op", "log"))["ops"]
        need(ops and ops[0]["kind"] == "undo", f"the page's undo is not in the op log: {ops[:1]}")
        print("  undo from the page's operation log: recorded as an undo")

        # a capture while the page is open shows up without a reload
        before = d.js("return document.querySelectorAll('#turns button.turn').length")
        repo.write("live.txt", "captured while the page is open\n")
        repo.t3("capture", "--thread", THREAD)
        d.wait(f"return document.querySelectorAll('#turns button.turn').length === {before} + 1", "the live refresh", timeout=15)
        print("  a capture while the page is open appears without a reload")

        # a bookmarked view: the URL's fragment names thread, turn and file
        d.go("about:blank")  # a fragment alone would not load the page again
        d.go(server.url + "#" + urllib.parse.urlencode({"thread": THREAD, "mode": "turn", "turn": "1", "file": "src/new_module.py"}))
        d.wait("return document.body.dataset.located === '1'", "the bookmarked view")
        d.idle("the bookmarked view")
        cur = d.js("return document.querySelector('#turns button[aria-current=\"true\"]').dataset.turn")
        need(cur == "1", f"the bookmarked turn is not selected: {cur}")
        shown = d.js("const c = document.querySelector('.filediff.current summary'); return c ? c.textContent : ''")
        need("src/new_module.py" in shown, f"the bookmarked file is not the current one: {shown!r}")
        print("  a bookmarked URL opens its thread, turn and file")
        d.js("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'n'}))")
        need(d.js("return !!document.querySelector('#diff tr.hunk.current')"), "n did not go to a hunk")
        d.js("document.dispatchEvent(new KeyboardEvent('keydown', {key: ']'}))")
        d.idle("the next turn")
        nxt = d.js("return document.querySelector('#turns button[aria-current=\"true\"]').dataset.turn")
        need(nxt == "2", f"] did not step to the next turn: {nxt}")
        print("  n goes to the next hunk, ] to the next turn")

        # a thread whose id is ".." and whose title is ".": the browser would
        # resolve such a path segment away, so its id goes in the query
        repo.t3("baseline", "--thread", DOTS)
        repo.write("notes/dots.txt", "a turn of the thread named ..\n")
        repo.t3("capture", "--thread", DOTS, "--title", ".")
        d.go(server.url)
        dots = f'#threads button[data-thread="{DOTS}"]'
        d.wait(f"return !!document.querySelector('{dots}')", "the thread named ..")
        d.idle("the reload")
        title = d.js(f"return document.querySelector('{dots} .t-title').textContent")
        need(title == ".", f"the thread titled . shows {title!r}")
        d.click(dots)
        d.wait(f"return document.querySelector('{dots}').getAttribute('aria-current') === 'true'", "the thread named .. selected")
        d.wait("return document.querySelectorAll('#turns button.turn').length === 2", "the timeline of the thread named ..")
        d.idle("the diff of the thread named ..")
        compare_files(d, json.loads(repo.t3("--json", "diff", "--thread", DOTS)), "the thread named ..")
        need(not d.js(ERROR_TEXT), f"the page shows an error: {d.js(ERROR_TEXT)!r}")
        print("  a thread named .. (titled .) opens with its turns and diff")
        print("review e2e: ok")
    finally:
        if driver:
            driver.quit()
        if server:
            server.stop()
        repo.cleanup()


if __name__ == "__main__":
    try:
        main()
    except Failed as e:
        print(f"review e2e: FAILED: {e}", file=sys.stderr)
        sys.exit(1)
