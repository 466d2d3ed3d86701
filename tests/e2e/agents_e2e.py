#!/usr/bin/env python3
"""End-to-end test of git-t3 with the real coding agents.

Runs Claude Code, Codex and opencode (pinned npm versions) against a scripted
local model server (model_server.py), with `git t3 install-hooks` as their
hooks, each run in a fresh temporary HOME and git repository, and checks what
git-t3 records and what its revert does to the files and to the conversation.

    python3 tests/e2e/agents_e2e.py --bin target/release/git-t3 \
        --agents-dir ~/.cache/git-t3-e2e --install [--only claude,codex] [--require]

Prints each agent's version, `PASS name (time)` / `FAIL name: why` /
`SKIP name: reason` per scenario, the hook latency per agent (from git's
trace2 events) and a summary. Exits 1 on a failure, and with --require on a
skip for want of an agent or npm (a scenario an agent has no feature for, such
as a background subagent outside Claude Code, is a SKIP either way). Needs node and npm,
Python 3.11 and git; the whole run takes a few minutes.
"""
import argparse
import glob
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

sys.dont_write_bytecode = True  # no __pycache__ next to the tests
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_server import ModelServer, user_texts  # noqa: E402

PINS = {  # agent: (npm package, version, executable)
    "claude": ("@anthropic-ai/claude-code", "2.1.332", "claude"),
    "codex": ("@openai/codex", "0.171.0", "codex"),
    "opencode": ("opencode-ai", "1.18.33", "opencode"),
}
AGENT_TIMEOUT = 120  # seconds for one agent invocation


class Fail(Exception):
    pass


class Skip(Exception):
    pass


class NotApplicable(Skip):
    """The agent has no such feature: reported as SKIP, not a failure with
    --require (which fails on skips for lack of an agent or of npm)."""


def poll(fn, timeout, every=0.25):
    """fn() until it returns something truthy or timeout seconds pass."""
    end = time.monotonic() + timeout
    while True:
        value = fn()
        if value or time.monotonic() > end:
            return value
        time.sleep(every)


# --- the edits a prompt asks for, and how each agent's tools make them ------
# An op is ("write", path, text) | ("edit", path, old_line, new_line) |
# ("mv", src, dst) | ("rm", path) | ("append", path, line).

def apply_ops(files, ops):
    """What the worktree holds after `ops` (the expected state)."""
    files = dict(files)
    for op in ops:
        if op[0] == "write":
            files[op[1]] = op[2]
        elif op[0] == "edit":
            files[op[1]] = files[op[1]].replace(op[2], op[3], 1)
        elif op[0] == "mv":
            files[op[2]] = files.pop(op[1])
        elif op[0] == "rm":
            del files[op[1]]
        elif op[0] == "append":
            files[op[1]] += op[2] + "\n"
    return files


def shell(op):
    return {"mv": "mv {1} {2}", "rm": "rm {1}", "append": "echo {2} >> {1}"}[op[0]].format(*op)


class Agent:
    """How to drive one agent: its tools, config, command line, session id
    and transcript."""
    name = ""
    flag = ""          # install-hooks option
    scope = []         # extra install-hooks options
    error_status = 500  # the HTTP status of the failing model call (scenario 5)

    def __init__(self, run):
        self.run = run

    def steps(self, ops, answer):
        """The model's script for a prompt making `ops`, then answering."""
        out = []
        for op in ops:
            out += self.op_steps(op)
        return out + [{"text": answer}]

    def op_steps(self, op):
        """The tool calls making one op."""
        raise NotImplementedError

    def configure(self):
        """Write the agent's own config (the model server) into the run's HOME."""

    def command(self, prompt, session):
        """The command line for a prompt, resuming `session` when given."""
        raise NotImplementedError

    def session_id(self, out, err, session):
        """The session id, from the agent's stdout/stderr."""
        raise NotImplementedError

    def transcripts(self, session):
        """The agent's conversation files for a session."""
        return []

    def conversation(self, session):
        """The session's conversation as the agent keeps it: its files' bytes."""
        paths = self.transcripts(session)
        if not paths:
            raise Fail(f"no transcript of session {session} found")
        return read_all(paths)


class Claude(Agent):
    name, flag = "claude", "--claude-code"   # the default scope: settings.local.json

    def op_steps(self, op):
        path = os.path.join(self.run.repo, op[1])
        if op[0] == "write":
            return [{"tool": "Write", "input": {"file_path": path, "content": op[2]}}]
        if op[0] == "edit":  # Claude's Edit needs a Read of the file first
            return [{"tool": "Read", "input": {"file_path": path}},
                    {"tool": "Edit", "input": {"file_path": path, "old_string": op[2],
                                               "new_string": op[3]}}]
        return [{"tool": "Bash", "input": {"command": shell(op), "description": op[0]}}]

    def command(self, prompt, session):
        if not session:
            self.new_id = str(uuid.uuid4())
        resume = ["--resume", session] if session else ["--session-id", self.new_id]
        return ["claude", "-p", prompt, "--output-format", "json",
                "--permission-mode", "bypassPermissions"] + resume

    def session_id(self, out, err, session):
        return session or self.new_id

    def transcripts(self, session):
        return glob.glob(f"{self.run.home}/.claude/projects/*/{session}.jsonl")


class Codex(Agent):
    name, flag, scope = "codex", "--codex", ["--scope", "user"]  # the run's CODEX_HOME

    def op_steps(self, op):
        if op[0] == "write":
            body = "".join("+" + line + "\n" for line in op[2].splitlines())
            patch = f"*** Add File: {op[1]}\n{body}"
        elif op[0] == "edit":
            patch = f"*** Update File: {op[1]}\n@@\n-{op[2]}\n+{op[3]}\n"
        else:
            return [{"tool": "exec_command", "input": {"cmd": shell(op)}}]
        return [{"custom": "apply_patch",
                 "input": f"*** Begin Patch\n{patch}*** End Patch\n"}]

    def configure(self):
        os.makedirs(self.run.env["CODEX_HOME"])
        with open(os.path.join(self.run.env["CODEX_HOME"], "config.toml"), "w") as f:
            f.write(f"""model = "gpt-5.5"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.mock]
name = "mock"
base_url = "{self.run.server.url}/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0
""")

    def command(self, prompt, session):
        resume = ["resume"] if session else []
        return (["codex", "exec"] + resume + ["--dangerously-bypass-hook-trust"]
                + ([session] if session else []) + [prompt])

    def session_id(self, out, err, session):
        for line in err.splitlines():
            if line.startswith("session id:"):
                return line.split(":", 1)[1].strip()
        return session

    def transcripts(self, session):
        return glob.glob(f"{self.run.env['CODEX_HOME']}/sessions/**/*{session}*.jsonl",
                         recursive=True)


class OpenCode(Agent):
    name, flag, scope = "opencode", "--opencode", ["--scope", "user"]
    error_status = 400  # opencode retries a 500 for ~80 s, with no switch to stop it

    def op_steps(self, op):
        path = os.path.join(self.run.repo, op[1])
        if op[0] == "write":
            return [{"tool": "write", "input": {"filePath": path, "content": op[2]}}]
        if op[0] == "edit":  # opencode's edit needs a read of the file first
            return [{"tool": "read", "input": {"filePath": path}},
                    {"tool": "edit", "input": {"filePath": path, "oldString": op[2],
                                               "newString": op[3]}}]
        return [{"tool": "bash", "input": {"command": shell(op), "description": op[0]}}]

    def configure(self):
        conf = os.path.join(self.run.env["XDG_CONFIG_HOME"], "opencode")
        os.makedirs(conf)
        model = {"name": "Scripted", "tool_call": True,
                 "limit": {"context": 100000, "output": 4096}}
        config = {"model": "scripted/m", "small_model": "scripted/m", "autoupdate": False,
                  "share": "disabled",
                  "permission": {"edit": "allow", "bash": "allow",
                                 "external_directory": "allow"},
                  "provider": {"scripted": {
                      "npm": "@ai-sdk/openai-compatible", "name": "Scripted",
                      "options": {"baseURL": self.run.server.url + "/v1", "apiKey": "x"},
                      "models": {"m": model}}}}
        with open(os.path.join(conf, "opencode.json"), "w") as f:
            json.dump(config, f)
        # opencode runs `npm install @opencode-ai/plugin` in its config folder
        # unless node_modules exists and the lock lists the dependency.
        os.makedirs(os.path.join(conf, "node_modules"))
        dep = {"@opencode-ai/plugin": PINS["opencode"][1]}
        for name, doc in (("package.json", {"dependencies": dep}),
                          ("package-lock.json", {"lockfileVersion": 3,
                                                 "packages": {"": {"dependencies": dep}}})):
            with open(os.path.join(conf, name), "w") as f:
                json.dump(doc, f)

    def command(self, prompt, session):
        # Words as separate arguments: one argument with spaces reaches the
        # model wrapped in quotes.
        return (["opencode", "run"] + prompt.split() + ["--format", "json"]
                + (["--session", session] if session else []))

    def session_id(self, out, err, session):
        for line in out.splitlines():
            try:
                return json.loads(line)["sessionID"]
            except (ValueError, KeyError, TypeError):
                pass
        return session

    def conversation(self, session):
        """The session's messages as `opencode export` prints them, parsed:
        opencode keeps them in its database, and its import (what a put-back
        uses) writes the same messages with their keys in another order."""
        p = subprocess.run(["opencode", "export", session], cwd=self.run.repo, env=self.run.env,
                           text=True, capture_output=True, timeout=60)
        if p.returncode:
            raise Fail(f"`opencode export {session}` exited {p.returncode}: {tail(p.stderr)}")
        return {f"opencode export {session} (messages)": json.loads(p.stdout)["messages"]}


AGENTS = {"claude": Claude, "codex": Codex, "opencode": OpenCode}


class Run:
    """One isolated environment: HOME, git config, repository with one commit,
    the model server and the agent's hooks installed."""

    INITIAL = {"a.txt": "one\ntwo\nthree\n", "b.txt": "bravo file\nsecond line\n",
               "c.txt": "charlie\n"}

    def __init__(self, harness, agent_name):
        self.h = harness
        self.dir = tempfile.mkdtemp(prefix=f"{agent_name}-", dir=harness.tmp)
        self.home = os.path.join(self.dir, "home")
        self.repo = os.path.join(self.dir, "repo")
        self.trace = os.path.join(self.dir, "trace2")
        for d in (self.home, self.repo, self.trace):
            os.makedirs(d)
        self.server = ModelServer(os.path.join(self.dir, "requests.jsonl")).start()
        self.procs = []
        try:
            self._setup(harness, agent_name)
        except BaseException:
            self.server.stop()
            raise

    def _setup(self, harness, agent_name):
        gitconfig = os.path.join(self.dir, "gitconfig")
        with open(gitconfig, "w") as f:
            f.write("[user]\n\tname = e2e\n\temail = e2e@example.invalid\n"
                    "[init]\n\tdefaultBranch = main\n")
        self.env = {
            "PATH": os.pathsep.join([harness.bindir, harness.agent_bin, harness.node_bin,
                                     "/usr/local/bin", "/usr/bin", "/bin"]),
            "HOME": self.home, "LANG": "C.UTF-8", "TMPDIR": self.dir,
            "XDG_CONFIG_HOME": f"{self.home}/.config", "XDG_DATA_HOME": f"{self.home}/.local/share",
            "XDG_CACHE_HOME": f"{self.home}/.cache", "XDG_STATE_HOME": f"{self.home}/.local/state",
            "GIT_CONFIG_GLOBAL": gitconfig, "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_TRACE2_EVENT": self.trace,   # hook latency, from git's own traces
            "T3_E2E_RUN": self.dir,           # marks every process of this run
            # Claude Code
            "ANTHROPIC_BASE_URL": self.server.url, "ANTHROPIC_API_KEY": "sk-ant-dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
            "IS_SANDBOX": "1",                # bypassPermissions as root
            "CLAUDE_CODE_MAX_RETRIES": "0",
            # Codex
            "CODEX_HOME": f"{self.home}/.codex", "MOCK_API_KEY": "dummy",
            # opencode
            "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_SHARE": "1",
        }
        self.agent = AGENTS[agent_name](self)
        self.agent.configure()
        self.git("init", "-q")
        for name, text in self.INITIAL.items():
            with open(os.path.join(self.repo, name), "w") as f:
                f.write(text)
        self.git("add", "-A")
        self.git("commit", "-qm", "initial")
        self.t3("install-hooks", self.agent.flag, *self.agent.scope)

    # -- git and git t3 --
    def git(self, *args, check=True):
        p = subprocess.run(["git", *args], cwd=self.repo, env=self.env, text=True,
                           capture_output=True, timeout=60)
        if check and p.returncode:
            raise Fail(f"`git {' '.join(args)}` exited {p.returncode}: {p.stderr.strip()}")
        return p

    def t3(self, *args, check=True):
        return self.git("t3", *args, check=check)

    def turns(self, thread):
        """The thread's turns (list --json), [] when it has none yet."""
        p = self.t3("--json", "list", "--thread", thread, check=False)
        return json.loads(p.stdout)["turns"] if p.returncode == 0 else []

    def turn(self, thread, n):
        return next((t for t in self.turns(thread) if t["turn"] == n), None)

    def wait_turn(self, thread, n, timeout=20):
        """Poll until turn n of the thread is captured (some hooks run detached)."""
        turn = poll(lambda: self.turn(thread, n), timeout)
        if not turn:
            have = [(t["turn"], t["status"]) for t in self.turns(thread)]
            raise Fail(f"turn {n} of {thread} not captured within {timeout}s (turns: {have})")
        return turn

    def diff(self, thread, turn):
        p = self.t3("--json", "diff", "--thread", thread, "--turn", str(turn))
        return summary(json.loads(p.stdout)["files"])

    def files(self):
        """The worktree as git sees it: tracked and untracked, ignored left out."""
        names = self.git("ls-files", "-z", "-co", "--exclude-standard").stdout.split("\0")
        out = {}
        for name in filter(None, names):
            path = os.path.join(self.repo, name)
            if os.path.exists(path):
                with open(path, encoding="utf-8", errors="replace") as f:
                    out[name] = f.read()
        return out

    # -- the agent --
    def start(self, prompt, steps, session=None):
        """Start the agent on a prompt with a fresh script; returns the process."""
        self.server.script(steps)
        k = len(self.procs)
        out = open(os.path.join(self.dir, f"agent{k}.out"), "w+")
        err = open(os.path.join(self.dir, f"agent{k}.err"), "w+")
        proc = subprocess.Popen(self.agent.command(prompt, session), cwd=self.repo,
                                env=self.env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=err, start_new_session=True)
        proc.out, proc.err, proc.session = out, err, session
        self.procs.append(proc)
        return proc

    def finish(self, proc, timeout=AGENT_TIMEOUT):
        """Wait for the agent; returns (exit code, stdout, stderr, session id)."""
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            kill_group(proc.pid, signal.SIGKILL)
            proc.wait()
            raise Fail(f"{self.agent.name} did not finish within {timeout}s")
        proc.out.seek(0)
        proc.err.seek(0)
        out, err = proc.out.read(), proc.err.read()
        return proc.returncode, out, err, self.agent.session_id(out, err, proc.session)

    def prompt(self, prompt, steps, session=None, turn=None):
        """One prompt that must succeed and use the whole script; waits for
        its turn to be captured. Returns the session id."""
        rc, out, err, sid = self.finish(self.start(prompt, steps, session))
        if rc != 0:
            raise Fail(f"{self.agent.name} exited {rc} on {prompt!r}: {tail(err or out)}")
        if self.server.pending():
            raise Fail(f"{self.agent.name} stopped with {self.server.pending()} scripted "
                       f"steps unused on {prompt!r}: {tail(out)}")
        if not sid:
            raise Fail(f"no session id in {self.agent.name}'s output")
        if turn is not None:
            self.wait_turn(sid, turn)
        return sid

    def hook_latencies(self):
        """Seconds each `git t3 hook …` took, from git's trace2 event files."""
        out = []
        for path in glob.glob(os.path.join(self.trace, "*")):
            argv, t = None, None
            with open(path, errors="replace") as f:
                for line in f:
                    try:
                        ev = json.loads(line)
                    except ValueError:
                        continue
                    if ev.get("event") == "start":
                        argv = ev.get("argv", [])
                    elif ev.get("event") == "exit":
                        t = ev.get("t_abs")
            if argv and argv[1:3] == ["t3", "hook"] and t is not None:
                out.append(t)
        return out

    def close(self):
        """Stop everything this run started (process groups, then stragglers
        such as detached hooks, found by the run's marker), and the server."""
        for proc in self.procs:
            kill_group(proc.pid, signal.SIGTERM)
        end = time.monotonic() + 3
        while run_pids(self.dir) and time.monotonic() < end:
            time.sleep(0.1)
        for pid in run_pids(self.dir):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for proc in self.procs:
            kill_group(proc.pid, signal.SIGKILL)
            proc.wait()
            proc.out.close()
            proc.err.close()
        self.server.stop()
        self.h.latency.setdefault(self.agent.name, []).extend(self.hook_latencies())
        if not self.h.args.keep:
            shutil.rmtree(self.dir, ignore_errors=True)


def kill_group(pid, sig):
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def run_pids(marker):
    """Processes whose environment carries this run's T3_E2E_RUN."""
    needle = f"T3_E2E_RUN={marker}\0".encode()
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if needle in f.read() + b"\0":
                    pids.append(int(pid))
        except OSError:
            pass
    return [p for p in pids if p != os.getpid()]


def tail(text, n=300):
    text = " ".join(text.split())
    return text[-n:] or "(no output)"


def summary(files):
    """{path: (kind, +, -, old path)} from a --json files list."""
    return {f["path"]: (f["kind"], f["additions"], f["deletions"], f.get("old_path"))
            for f in files}


def expect(what, got, want):
    if got != want:
        raise Fail(f"{what}: expected {want!r}, got {got!r}")


# --- scenarios -------------------------------------------------------------

PROMPTS = ["PROMPT-ONE create edit rename and delete",
           "PROMPT-TWO add two.txt and edit a.txt",
           "PROMPT-THREE append rename and delete",
           "PROMPT-FOUR after the revert"]
OPS = [
    [("write", "new.txt", "new file\n"), ("edit", "a.txt", "two", "TWO"),
     ("mv", "b.txt", "b2.txt"), ("rm", "c.txt")],
    [("write", "two.txt", "2a\n2b\n"), ("edit", "a.txt", "one", "ONE")],
    [("append", "b2.txt", "more"), ("mv", "new.txt", "renamed.txt"), ("rm", "two.txt")],
    [("write", "four.txt", "four\n")],
]
DIFFS = [  # what `git t3 diff --turn N --json` must list for prompts 1-3
    {"new.txt": ("added", 1, 0, None), "a.txt": ("modified", 1, 1, None),
     "b2.txt": ("renamed", 0, 0, "b.txt"), "c.txt": ("deleted", 0, 1, None)},
    {"two.txt": ("added", 2, 0, None), "a.txt": ("modified", 1, 1, None)},
    {"b2.txt": ("modified", 1, 0, None), "renamed.txt": ("renamed", 0, 0, "new.txt"),
     "two.txt": ("deleted", 0, 2, None)},
]


def three_prompts(h, agent, ctx):
    """1. Three prompts: turns 1-3 titled by their prompts, each turn's diff
    exactly its prompt's edits, the files as scripted."""
    run = ctx["run"] = Run(h, agent)
    want, sid = dict(Run.INITIAL), None
    ctx["states"] = [want]
    for i in range(3):
        sid = run.prompt(PROMPTS[i], run.agent.steps(OPS[i], f"Done {i + 1}."), sid, i + 1)
        ctx["sid"] = sid
        want = apply_ops(want, OPS[i])
        ctx["states"].append(want)
        expect(f"files after prompt {i + 1}", run.files(), want)
    turns = run.turns(sid)
    expect("turns", [t["turn"] for t in turns], [0, 1, 2, 3])
    expect("titles of turns 1-3", [t.get("title") for t in turns[1:]], PROMPTS[:3])
    expect("statuses", [t["status"] for t in turns], ["ready"] * 4)
    for i in range(3):
        expect(f"`git t3 diff --thread {sid} --turn {i + 1} --json`", run.diff(sid, i + 1),
               DIFFS[i])


def revert_conversation(h, agent, ctx):
    """2. `revert --to 1` puts turn 1's files back; the resumed session then
    sends the model prompt 1 but not prompts 2 and 3."""
    run, sid = need_session(ctx)
    p = run.t3("revert", "--thread", sid, "--to", "1", check=False)
    if p.returncode:
        raise Fail(f"`git t3 revert --thread {sid} --to 1` exited {p.returncode}: "
                   f"{p.stderr.strip()}")
    expect("files after revert --to 1", run.files(), ctx["states"][1])
    expect("turns after revert", [t["turn"] for t in run.turns(sid)], [0, 1])
    seen = len(run.server.requests)
    run.prompt(PROMPTS[3], run.agent.steps(OPS[3], "Done 4."), sid, 2)
    sent = [r for r in run.server.requests[seen:] if not r["side"]]
    if not sent:
        raise Fail("the resumed session sent no model request")
    for r in sent:
        texts = "\n".join(user_texts(r["body"]))
        have = [p.split()[0] for p in PROMPTS if p in texts]
        expect(f"prompts in model request {r['n']} of the resumed session", have,
               ["PROMPT-ONE", "PROMPT-FOUR"])
    expect("title of the turn after the revert", run.turn(sid, 2).get("title"), PROMPTS[3])


def revert_undo(h, agent, ctx):
    """3. `revert --undo` after a fresh revert: the files and the agent's
    transcript byte for byte as before the revert (opencode: the messages it
    exports)."""
    run, sid = need_session(ctx)
    files, transcript = run.files(), run.agent.conversation(sid)
    p = run.t3("revert", "--thread", sid, "--to", "1", check=False)
    if p.returncode:
        raise Fail(f"`git t3 revert --thread {sid} --to 1` exited {p.returncode}: "
                   f"{p.stderr.strip()}")
    if run.files() == files or run.agent.conversation(sid) == transcript:
        raise Fail("the revert changed nothing to undo (files or transcript unchanged)")
    p = run.t3("revert", "--thread", sid, "--undo", check=False)
    if p.returncode:
        raise Fail(f"`git t3 revert --thread {sid} --undo` exited {p.returncode}: "
                   f"{p.stderr.strip()}")
    expect("files after revert --undo", run.files(), files)
    after = run.agent.conversation(sid)
    for path, was in transcript.items():
        if after.get(path) != was:
            raise Fail(f"transcript {path} after --undo: {len(after.get(path) or '')} "
                       f"bytes/messages, expected the {len(was)} from before the revert")


def interrupted(h, agent, ctx):
    """4. SIGINT to the agent after its first tool call: the turn is captured
    at once with status `interrupted`."""
    run = ctx["run"] = Run(h, agent)
    steps = run.agent.steps([("write", "first.txt", "first\n")], "too late")
    steps[-1]["delay"] = 60
    proc = run.start("PROMPT-INT write first.txt", steps)
    # The delayed answer is being served: the tool call has run.
    if not poll(lambda: run.server.pending() == 0 or proc.poll() is not None, 60):
        raise Fail("the agent never asked for its second model response")
    if proc.poll() is not None:
        raise Fail(f"{agent} exited {proc.returncode} before the SIGINT")
    if not os.path.exists(os.path.join(run.repo, "first.txt")):
        raise Fail("first.txt not written by the first tool call")
    kill_group(proc.pid, signal.SIGINT)  # Ctrl-C: the foreground process group
    sent = time.monotonic()
    rc, out, err, sid = run.finish(proc, 30)
    turn = poll(lambda: run.turn(sid, 1), 10) if sid else None
    took = time.monotonic() - sent
    if not turn:
        have = [(t["turn"], t["status"]) for t in run.turns(sid)] if sid else "no session id"
        raise Fail(f"no turn 1 captured within {took:.0f}s of the SIGINT "
                   f"(agent exit {rc}; turns: {have})")
    expect("status of the interrupted turn (list --json)", turn["status"], "interrupted")
    show = json.loads(run.t3("--json", "show", "--thread", sid, "--turn", "1").stdout)
    expect("status in `git t3 show`", show["status"], "interrupted")
    expect("files of the interrupted turn", sorted(summary(show["files"])), ["first.txt"])


def model_error(h, agent, ctx):
    """5. A model call that fails (HTTP 500, no retries; opencode: 400): the
    turn is captured with status `error`."""
    run = ctx["run"] = Run(h, agent)
    steps = run.agent.op_steps(("write", "err.txt", "err\n"))
    steps.append({"error": run.agent.error_status, "sticky": True,
                  "message": "scripted failure"})
    rc, out, err, sid = run.finish(run.start("PROMPT-ERR write err.txt", steps))
    if not sid:
        raise Fail(f"no session id in {agent}'s output (exit {rc})")
    turn = poll(lambda: run.turn(sid, 1), 15)
    if not turn:
        raise Fail(f"no turn 1 captured within 15s after the failed model call (agent "
                   f"exit {rc}; turns: {[(t['turn'], t['status']) for t in run.turns(sid)]})")
    expect(f"status of the failed turn (HTTP {run.agent.error_status})", turn["status"], "error")
    expect("files of the failed turn", sorted(summary(turn["files"])), ["err.txt"])


def background_agent(h, agent, ctx):
    """6. Claude's background subagent writes a file after the main turn's
    Stop: the file is in a turn titled "<task> (background agent's edits)"
    and no title holds the <task-notification>."""
    if agent != "claude":
        raise NotApplicable("background subagents with <task-notification> are Claude Code's")
    run = ctx["run"] = Run(h, agent)
    task = "bg helper"
    steps = [
        {"tool": "Agent", "input": {"description": task, "prompt": "write sub.txt",
                                    "subagent_type": "general-purpose",
                                    "run_in_background": True}},
        {"text": "Launched a helper in the background."},
        {"subagent": True, "tool": "Bash",
         "input": {"command": "sleep 1; echo from-subagent > sub.txt",
                   "description": "subagent edit"}},
        {"subagent": True, "text": "Subagent wrote sub.txt."},
    ] + run.agent.op_steps(("write", "after.txt", "after the notification\n")) + [
        {"text": "Saw the task notification."}]
    sid = run.prompt("PROMPT-BG start a background helper", steps)
    poll(lambda: any("sub.txt" in [f["path"] for f in t["files"]] for t in run.turns(sid)), 10)
    turns = run.turns(sid)
    titles = [(t["turn"], t.get("title")) for t in turns]
    bad = [t for t in titles if t[1] and "<task-notification>" in t[1]]
    if bad:
        raise Fail(f"titles hold <task-notification>: {bad}")
    holding = [t.get("title") for t in turns if "sub.txt" in [f["path"] for f in t["files"]]]
    expect(f"titles of the turns holding the subagent's sub.txt (all turns: {titles})",
           holding, [f"{task} (background agent's edits)"])


def two_sessions(h, agent, ctx):
    """7. Two sessions in one worktree, interleaved (A, B, A): each turn's
    diff holds only its own session's edits."""
    run = ctx["run"] = Run(h, agent)
    a = run.prompt("PROMPT-A1 write a1.txt",
                   run.agent.steps([("write", "a1.txt", "a1\n")], "A1 done."), None, 1)
    b = run.prompt("PROMPT-B1 write b1.txt",
                   run.agent.steps([("write", "b1.txt", "b1\n")], "B1 done."), None, 1)
    if a == b:
        raise Fail(f"the second session reused the first's id {a}")
    run.prompt("PROMPT-A2 write a2.txt and edit a.txt",
               run.agent.steps([("write", "a2.txt", "a2\n"), ("edit", "a.txt", "one", "ONE")],
                               "A2 done."), a, 2)
    expect("diff of session A turn 1", run.diff(a, 1), {"a1.txt": ("added", 1, 0, None)})
    expect("diff of session B turn 1", run.diff(b, 1), {"b1.txt": ("added", 1, 0, None)})
    expect("diff of session A turn 2", run.diff(a, 2),
           {"a2.txt": ("added", 1, 0, None), "a.txt": ("modified", 1, 1, None)})


def need_session(ctx):
    if not ctx.get("sid"):
        raise Fail("scenario three-prompts did not leave a session to work on")
    return ctx["run"], ctx["sid"]


def read_all(paths):
    out = {}
    for p in paths:
        with open(p, "rb") as f:
            out[p] = f.read()
    return out


# Scenarios sharing a context run in one environment (2 and 3 use 1's session).
SCENARIOS = [[("three-prompts", three_prompts), ("revert-conversation", revert_conversation),
              ("revert-undo", revert_undo)],
             [("interrupted", interrupted)], [("model-error", model_error)],
             [("background-agent", background_agent)], [("two-sessions", two_sessions)]]


# --- the harness -----------------------------------------------------------

class Harness:
    def __init__(self, args):
        self.args = args
        self.results = []   # (outcome, name, counts as missing with --require)
        self.latency = {}
        self.tmp = tempfile.mkdtemp(prefix="git-t3-agents-e2e-")
        self.bindir = os.path.join(self.tmp, "bin")
        os.makedirs(self.bindir)
        os.symlink(os.path.abspath(args.bin), os.path.join(self.bindir, "git-t3"))
        self.agent_bin = os.path.join(os.path.abspath(args.agents_dir), "node_modules", ".bin")
        node = shutil.which("node")  # Codex's launcher is a node script
        self.node_bin = os.path.dirname(node) if node else "/usr/bin"

    def report(self, outcome, name, detail, applicable=True):
        self.results.append((outcome, name, applicable))
        print(f"{outcome} {name}{detail}", flush=True)

    def installed_version(self, agent):
        pkg = os.path.join(self.args.agents_dir, "node_modules", PINS[agent][0], "package.json")
        try:
            with open(pkg) as f:
                return json.load(f).get("version")
        except (OSError, ValueError):
            return None

    def install(self, agents):
        """npm install the pinned versions missing from --agents-dir; None or
        the reason it failed."""
        want = [f"{PINS[a][0]}@{PINS[a][1]}" for a in agents
                if self.installed_version(a) != PINS[a][1]]
        if not want:
            return None
        print(f"npm install {' '.join(want)} into {self.args.agents_dir}", flush=True)
        os.makedirs(self.args.agents_dir, exist_ok=True)
        try:
            p = subprocess.run(["npm", "install", "--prefix", self.args.agents_dir,
                                "--no-audit", "--no-fund", "--loglevel=error",
                                "--fetch-retries=1", *want],
                               capture_output=True, text=True, timeout=480)
        except (OSError, subprocess.TimeoutExpired) as e:
            return str(e)
        if p.returncode == 0:
            return None
        errors = [line[10:] for line in p.stderr.splitlines() if line.startswith("npm error ")]
        return "; ".join(errors[:2]) or tail(p.stderr or p.stdout, 200)

    def version(self, agent):
        exe = os.path.join(self.agent_bin, PINS[agent][2])
        try:
            p = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60,
                               stdin=subprocess.DEVNULL,
                               env={"PATH": os.environ["PATH"], "HOME": self.tmp})
            return (p.stdout or p.stderr).strip().splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return None

    def run_agent(self, agent):
        have = self.installed_version(agent)
        if have != PINS[agent][1]:
            reason = (f"{PINS[agent][0]}@{PINS[agent][1]} not in {self.args.agents_dir} "
                      f"(found {have}; use --install)")
            for group in SCENARIOS:
                for name, _ in group:
                    self.report("SKIP", f"{agent}/{name}", f": {reason}")
            return
        print(f"{agent}: {self.version(agent)}", flush=True)
        for group in SCENARIOS:
            ctx = {}
            try:
                for name, fn in group:
                    start = time.monotonic()
                    try:
                        fn(self, agent, ctx)
                        self.report("PASS", f"{agent}/{name}",
                                    f" ({time.monotonic() - start:.1f}s)")
                    except Skip as e:
                        self.report("SKIP", f"{agent}/{name}", f": {e}",
                                    not isinstance(e, NotApplicable))
                    except Fail as e:
                        self.report("FAIL", f"{agent}/{name}",
                                    f": {e} ({time.monotonic() - start:.1f}s)")
                    except Exception as e:  # a harness error is a failure too
                        self.report("FAIL", f"{agent}/{name}",
                                    f": harness error {type(e).__name__}: {e}")
            finally:
                if "run" in ctx:
                    ctx["run"].close()

    def main(self):
        agents = self.args.only
        start = time.monotonic()
        if self.args.install:
            reason = self.install(agents)
            if reason:
                print(f"SKIP all: npm: {reason}")
                return 1 if self.args.require else 0
        for agent in agents:
            self.run_agent(agent)
        for agent, times in self.latency.items():
            if times:
                ms = sorted(t * 1000 for t in times)
                print(f"hooks {agent}: {len(ms)} calls, median {statistics.median(ms):.0f} ms, "
                      f"max {ms[-1]:.0f} ms")
        count = {k: sum(1 for o, *_ in self.results if o == k) for k in ("PASS", "FAIL", "SKIP")}
        missing = sum(1 for o, _, applicable in self.results if o == "SKIP" and applicable)
        print(f"SUMMARY: {count['PASS']} passed, {count['FAIL']} failed, {count['SKIP']} skipped "
              f"({count['SKIP'] - missing} not applicable) in {time.monotonic() - start:.1f}s")
        return 1 if count["FAIL"] or (self.args.require and missing) else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="the git-t3 binary")
    ap.add_argument("--agents-dir", default=os.path.expanduser("~/.cache/git-t3-e2e-agents"),
                    help="npm prefix holding the agents (cached between runs)")
    ap.add_argument("--install", action="store_true",
                    help="npm install the pinned agent versions missing from --agents-dir")
    ap.add_argument("--only", default="claude,codex,opencode",
                    type=lambda s: [a for a in s.split(",") if a],
                    help="comma-separated agents to run")
    ap.add_argument("--require", action="store_true", help="a skip is a failure")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directories")
    args = ap.parse_args()
    unknown = set(args.only) - set(PINS)
    if unknown:
        ap.error(f"unknown agents: {', '.join(sorted(unknown))}")
    h = Harness(args)
    # Ctrl-C or SIGTERM: still clean up (Run.close runs in finally blocks).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        return h.main()
    finally:
        if not args.keep:
            shutil.rmtree(h.tmp, ignore_errors=True)
        else:
            print(f"kept {h.tmp}")


if __name__ == "__main__":
    sys.exit(main())
