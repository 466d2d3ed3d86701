"""A scripted stand-in for an LLM API, for driving real coding agents in tests.

One server speaks the three streaming protocols the agents use:

  POST …/v1/messages          Anthropic Messages, SSE        (Claude Code)
  POST …/v1/responses         OpenAI Responses, SSE          (Codex)
  POST …/v1/chat/completions  OpenAI Chat Completions, SSE   (opencode)

It serves a script: a list of steps, the first pending step that fits a
request answers it and is used up.

  {"text": "..."}                            a final answer (the turn ends)
  {"tool": NAME, "input": {...}}             one tool call (a function call)
  {"custom": NAME, "input": "..."}           Responses only: a custom (freeform)
                                             tool call, Codex's apply_patch
  {"error": 500, "message": "..."}           an HTTP error instead of a stream
Optional keys on any step:
  "delay": S        wait S seconds before answering (cut short by stop())
  "subagent": true  serve only Claude Code subagent requests (they carry the
                    header x-claude-code-agent-id); steps without it are never
                    served to subagents
  "match": "s"      serve only a request whose raw body contains s
  "sticky": true    never used up

A request without tools (title generation and other side queries) uses no
step and gets the text "Scripted title"; once no step fits, the answer is the
text "(script exhausted)".

Every request is kept in `requests` (and appended to a JSON-lines log when one
is given): {"n", "t", "path", "served", "side", "headers", "body"}.

Each response ends with Connection: close and the socket closed after the
last event: the agents wait for the end of the body otherwise.

    srv = ModelServer(log_path).start()      # a thread, on an ephemeral port
    srv.script([...]); ...; srv.stop()

Also runnable: python3 model_server.py SCRIPT.json [LOG.jsonl] [PORT].
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SUBAGENT_HEADER = "x-claude-code-agent-id"


class ModelServer:
    def __init__(self, log_path=None, port=0):
        self.lock = threading.Lock()
        self.steps = []
        self.requests = []
        self.log = open(log_path, "a", buffering=1) if log_path else None
        self.stopping = threading.Event()
        handler = type("Handler", (_Handler,), {"owner": self})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda *a: None  # agents hang up mid-request
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self):
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def stop(self):
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        if self.log:
            self.log.close()

    def script(self, steps):
        """Replace the pending steps."""
        with self.lock:
            self.steps = [dict(s) for s in steps]

    def pending(self):
        with self.lock:
            return len(self.steps)

    def _pick(self, raw, subagent):
        for i, s in enumerate(self.steps):
            if "match" in s and s["match"] not in raw:
                continue
            if bool(s.get("subagent")) != subagent:
                continue
            return s if s.get("sticky") else self.steps.pop(i)
        return {"text": "(script exhausted)"}

    def _record(self, entry):
        with self.lock:
            entry["n"] = len(self.requests) + 1
            self.requests.append(entry)
            if self.log:
                self.log.write(json.dumps(entry) + "\n")


def user_texts(body):
    """The texts of the user messages in a request body, whatever the protocol
    (tool results left out)."""
    if not isinstance(body, dict):
        return []
    out = []
    for m in body.get("messages") or body.get("input") or []:
        if not isinstance(m, dict) or m.get("role") != "user":
            continue
        content = m.get("content")
        if isinstance(content, str):
            out.append(content)
            continue
        for part in content or []:
            if isinstance(part, dict) and part.get("type") in ("text", "input_text"):
                out.append(part.get("text", ""))
    return out


# --- the three protocols: each turns a step into a list of SSE events -------

def anthropic_events(step, n, model):
    usage = {"input_tokens": 10, "output_tokens": 1,
             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    msg = {"id": f"msg_{n:04d}", "type": "message", "role": "assistant",
           "model": model, "content": [], "stop_reason": None,
           "stop_sequence": None, "usage": usage}
    if "tool" in step:
        block = {"type": "tool_use", "id": f"toolu_{n:04d}",
                 "name": step["tool"], "input": {}}
        delta = {"type": "input_json_delta",
                 "partial_json": json.dumps(step.get("input", {}))}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": step["text"]}
        stop = "end_turn"
    return [
        ("message_start", {"type": "message_start", "message": msg}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ]


def responses_events(step, n, model):
    if "custom" in step:
        item = {"type": "custom_tool_call", "id": f"ctc_{n}",
                "call_id": f"call_{n}", "name": step["custom"],
                "input": step["input"]}
    elif "tool" in step:
        item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
                "name": step["tool"],
                "arguments": json.dumps(step.get("input", {}))}
    else:
        item = {"type": "message", "id": f"msg_{n}", "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": step["text"],
                             "annotations": []}]}
    rid = f"resp_{n}"
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 15}
    events = [("response.created", {"response": {"id": rid, "model": model}}),
              ("response.output_item.added", {"output_index": 0, "item": item}),
              ("response.output_item.done", {"output_index": 0, "item": item}),
              ("response.completed", {"response": {"id": rid, "usage": usage}})]
    return [(kind, {"type": kind, **data}) for kind, data in events]


def chat_events(step, n, model):
    def chunk(delta, finish=None, usage=None):
        c = {"id": f"chatcmpl-{n:04d}", "object": "chat.completion.chunk",
             "created": int(time.time()), "model": model,
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        if usage:
            c["usage"] = usage
        return (None, c)
    events = [chunk({"role": "assistant", "content": ""})]
    if "tool" in step:
        events.append(chunk({"tool_calls": [{
            "index": 0, "id": f"call_{n:04d}", "type": "function",
            "function": {"name": step["tool"],
                         "arguments": json.dumps(step.get("input", {}))}}]}))
        finish = "tool_calls"
    else:
        events.append(chunk({"content": step["text"]}))
        finish = "stop"
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    return events + [chunk({}, finish, usage), (None, "[DONE]")]


PROTOCOLS = {"/messages": anthropic_events, "/responses": responses_events,
             "/chat/completions": chat_events}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    owner: ModelServer = None

    def log_message(self, *args):
        pass

    def _json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.close_connection = True

    def _sse(self, events):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            payload = data if isinstance(data, str) else json.dumps(data)
            self.wfile.write(f"{head}data: {payload}\n\n".encode())
            self.wfile.flush()
        self.close_connection = True

    def do_GET(self):
        self.owner._record({"t": time.time(), "method": "GET", "path": self.path})
        self._json(404, {"error": {"type": "not_found_error", "message": "not scripted"}})

    def do_POST(self):
        srv = self.owner
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        text = raw.decode("utf-8", "replace")
        try:
            body = json.loads(text)
        except ValueError:
            body = text
        path = self.path.split("?")[0]
        proto = next((f for suffix, f in PROTOCOLS.items() if path.endswith(suffix)), None)
        side = not (isinstance(body, dict) and body.get("tools"))
        with srv.lock:
            if proto is None:
                step = None
            elif side:
                step = {"text": "Scripted title"}
            else:
                step = srv._pick(text, SUBAGENT_HEADER in self.headers)
        srv._record({"t": time.time(), "method": "POST", "path": self.path,
                     "served": step, "side": side,
                     "headers": dict(self.headers), "body": body})
        if step is None:
            return self._json(404, {"error": {"type": "not_found_error",
                                              "message": "not scripted"}})
        if srv.stopping.wait(step.get("delay", 0)):
            return
        try:
            if "error" in step:
                return self._json(int(step["error"]), {"type": "error", "error": {
                    "type": "api_error", "message": step.get("message", "scripted failure")}})
            model = body.get("model", "scripted") if isinstance(body, dict) else ""
            self._sse(proto(step, len(srv.requests), model))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the agent went away (interrupted)


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        steps = json.load(f)
    server = ModelServer(sys.argv[2] if len(sys.argv) > 2 else None,
                         int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    server.script(steps)
    print(f"PORT {server.port}", flush=True)
    server.httpd.serve_forever()
