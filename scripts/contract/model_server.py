#!/usr/bin/env python3
"""A scripted model server for ralph's agent contract tests (scripts/agent-contract.sh).

Stdlib only. Listens on 127.0.0.1 only and exits by itself (idle timeout, hard limit). It speaks
the three wire protocols the agent CLIs use, streaming (SSE) and not:

- Anthropic Messages API: POST /v1/messages (claude, opencode, copilot with
  COPILOT_PROVIDER_TYPE=anthropic); /v1/messages/count_tokens.
- OpenAI Responses API: POST /v1/responses (codex with wire_api = "responses"); GET /v1/models.
- Gemini API: POST /v1beta/models/<model>:generateContent / :streamGenerateContent / :countTokens.

"Scripted": it reads the story ralph's prompt names (the line `# Your story: <id> - <title>`),
looks the story up in the scenario file and drives the agent through it with calls to the CLI's
own shell tool (picked from the `tools` the request carries): one call per command of the story,
in order, then a final text message (the story's `final`, e.g. `STORY COMPLETE: US-001`). The
step is the number of tool calls this server already made in the conversation the request holds,
so every CLI session starts at step 0. A request that does not carry a story (a title, a summary,
a router's question) is auxiliary and gets a short text (JSON when the request asks for JSON).

Every request is logged as one JSON line (--log): what was asked, what was answered and the exact
usage numbers sent, so the harness can compare them with ralph's .ralph/history.jsonl.

Scenario file (JSON): {"stories": {"US-001": {"commands": ["sh command", ...], "final": "text"}}}
"""

import argparse
import itertools
import json
import os
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STORY_RE = re.compile(r"^\"?# Your story: (\S+) - ", re.M)  # opencode run quotes its message

# Shell tools by name, best first: claude "Bash", opencode/copilot "bash", codex "shell" /
# "exec_command" / "shell_command", gemini "run_shell_command".
SHELL_TOOLS = [
    "Bash",
    "bash",
    "run_shell_command",
    "shell",
    "shell_command",
    "exec_command",
    "local_shell",
]

STATE = {
    "last": time.monotonic(),
    "counter": itertools.count(1),
    "lock": threading.Lock(),
}


class Scenario:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            self.data = json.load(f)

    def story(self, story_id):
        return self.data.get("stories", {}).get(story_id)


def usage_for(n, api):
    """Distinct, deterministic usage numbers for the n-th response (logged as sent)."""
    fresh, cache_read, cache_write, out = 1000 + 10 * n, 400 + n, 50 + n, 20 + n
    if api == "anthropic":
        return {
            "input_tokens": fresh,
            "cache_creation_input_tokens": cache_write,
            "cache_read_input_tokens": cache_read,
            "output_tokens": out,
        }
    if api == "responses":
        return {
            "input_tokens": fresh + cache_read,
            "input_tokens_details": {"cached_tokens": cache_read},
            "output_tokens": out,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": fresh + cache_read + out,
        }
    # gemini: promptTokenCount includes the cached part.
    return {
        "promptTokenCount": fresh + cache_read,
        "cachedContentTokenCount": cache_read,
        "candidatesTokenCount": out,
        "totalTokenCount": fresh + cache_read + out,
    }


def text_of(obj):
    """Every string inside a JSON value, joined (to find the story marker anywhere)."""
    if isinstance(obj, str):
        return obj
    if isinstance(obj, dict):
        return "\n".join(text_of(v) for v in obj.values())
    if isinstance(obj, list):
        return "\n".join(text_of(v) for v in obj)
    return ""


def pick_tool(tools):
    """(name, schema) of the CLI's shell tool among the offered ones, or (None, None)."""
    by_name = {}
    for t in tools or []:
        if not isinstance(t, dict):
            continue
        if "functionDeclarations" in t:  # gemini
            for d in t.get("functionDeclarations") or []:
                schema = d.get("parametersJsonSchema") or d.get("parameters") or {}
                by_name[d.get("name")] = schema
        elif t.get("type") == "function" and isinstance(t.get("function"), dict):
            f = t["function"]  # chat-completions shape
            by_name[f.get("name")] = f.get("parameters") or {}
        else:
            schema = t.get("input_schema") or t.get("parameters") or {}
            by_name[t.get("name")] = schema
    for name in SHELL_TOOLS:
        if name in by_name:
            return name, by_name[name]
    return None, None


def tool_args(schema, command, workdir):
    """Arguments for the shell tool: the command where its schema wants it, required rest filled."""
    props = (schema or {}).get("properties") or {}
    required = (schema or {}).get("required") or []
    args = {}
    for key in ("command", "cmd"):
        if key in props or key in required:
            want = props.get(key, {}).get("type")
            args[key] = ["bash", "-lc", command] if want == "array" else command
            break
    else:
        args["command"] = command
    for key in required:
        if key in args:
            continue
        p = props.get(key, {})
        kind = p.get("type")
        if key in ("description", "explanation", "justification"):
            args[key] = "contract test step"
        elif key in ("workdir", "dir_path", "directory", "cwd") and workdir:
            args[key] = workdir
        elif "enum" in p and p["enum"]:
            args[key] = p["enum"][0]
        elif kind == "boolean":
            args[key] = False
        elif kind in ("integer", "number"):
            args[key] = p.get("default", 120000)
        elif kind == "array":
            args[key] = []
        elif kind == "object":
            args[key] = {}
        else:
            args[key] = p.get("default", "")
    return args


def plan(scenario, story_id, done_calls):
    """('tool', command) for the next step of the story, or ('text', final)."""
    story = scenario.story(story_id) or {}
    commands = story.get("commands") or []
    if done_calls < len(commands):
        return "tool", commands[done_calls]
    return "text", story.get("final", "Done.")


def aux_text(wants_json):
    if wants_json:
        return json.dumps(
            {
                "reasoning": "contract test",
                "model_choice": "flash",
                "complexity_reasoning": "contract test",
                "complexity_score": 1,
                "title": "contract test",
                "isNewTopic": False,
                "next_speaker": "user",
            }
        )
    return "contract test"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ralph-contract-model/1"

    def log_message(self, fmt, *args):  # quiet; everything goes to the JSONL log
        pass

    # -- plumbing -------------------------------------------------------------------------------

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            raw = self.read_chunked()
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return {}

    def read_chunked(self):
        out = b""
        while True:
            size = int(self.rfile.readline().strip().split(b";")[0] or b"0", 16)
            if size == 0:
                self.rfile.readline()
                return out
            out += self.rfile.read(size)
            self.rfile.readline()

    def send_json(self, obj, status=200):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def start_sse(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, data):
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    def sse(self, obj, event=None):
        head = f"event: {event}\n" if event else ""
        self.chunk((head + "data: " + json.dumps(obj) + "\n\n").encode())

    def end_sse(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def record(self, entry):
        entry["t"] = round(time.time(), 3)
        entry["path"] = self.path
        with STATE["lock"]:
            with open(self.server.log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")

    def dump(self, n, body):
        if self.server.dump_dir:
            os.makedirs(self.server.dump_dir, exist_ok=True)
            name = os.path.join(self.server.dump_dir, f"req-{n:04d}.json")
            with open(name, "w", encoding="utf-8") as f:
                json.dump({"path": self.path, "headers": dict(self.headers), "body": body}, f, indent=1)

    # -- routing --------------------------------------------------------------------------------

    def do_HEAD(self):
        STATE["last"] = time.monotonic()
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        STATE["last"] = time.monotonic()
        path = self.path.split("?")[0]
        self.record({"api": "get", "kind": "aux"})
        if path.endswith("/models"):
            model = self.server.model
            self.send_json(
                {
                    "object": "list",
                    "data": [{"id": model, "object": "model", "created": 0, "owned_by": "contract"}],
                    "models": [],
                }
            )
        else:
            self.send_json({"ok": True})

    def do_POST(self):
        STATE["last"] = time.monotonic()
        body = self.body()
        n = next(STATE["counter"])
        self.dump(n, body)
        path = self.path.split("?")[0]
        try:
            if path.endswith("/messages/count_tokens"):
                self.record({"api": "anthropic", "kind": "count_tokens", "n": n})
                self.send_json({"input_tokens": 1000})
            elif path.endswith("/messages"):
                self.anthropic(n, body)
            elif path.endswith("/responses"):
                self.openai_responses(n, body)
            elif ":countTokens" in path:
                self.record({"api": "gemini", "kind": "count_tokens", "n": n})
                self.send_json({"totalTokens": 1000})
            elif ":generateContent" in path or ":streamGenerateContent" in path:
                self.gemini(n, body, path)
            else:
                self.record({"api": "unknown", "kind": "unknown", "n": n})
                self.send_json({"error": {"message": f"contract server: no route {path}"}}, 404)
        except (BrokenPipeError, ConnectionResetError):
            self.record({"kind": "client-gone", "n": n})
        except Exception as e:  # a bug here must show in the log, not as a silent hang
            self.record({"kind": "server-error", "n": n, "error": repr(e)})
            raise

    # -- decisions shared by the three APIs ----------------------------------------------------

    def decide(self, n, api, story_text, tools, done_calls, workdir):
        """What to answer: a dict logged with the request and used to build the response."""
        m = STORY_RE.search(story_text)
        story_id = m.group(1) if m else None
        name, schema = pick_tool(tools)
        tool_names = []
        for t in tools or []:
            if isinstance(t, dict):
                if "functionDeclarations" in t:
                    tool_names += [d.get("name") for d in t.get("functionDeclarations") or []]
                elif isinstance(t.get("function"), dict):
                    tool_names.append(t["function"].get("name"))
                else:
                    tool_names.append(t.get("name") or t.get("type"))
        d = {
            "api": api,
            "n": n,
            "story": story_id,
            "step": done_calls,
            "tools_offered": tool_names,
            "usage_sent": usage_for(n, api),
            "text": None,
        }
        if story_id is None or self.server.scenario.story(story_id) is None or not tools:
            d["kind"] = "aux"
            d["action"] = "text"
            d["text"] = None
            return d
        d["kind"] = "main"
        action, value = plan(self.server.scenario, story_id, done_calls)
        if action == "tool" and name is None:
            d["action"] = "text"
            d["text"] = "contract server: no shell tool offered among " + ", ".join(
                str(x) for x in tool_names
            )
            return d
        d["action"] = action
        if action == "tool":
            d["tool"] = name
            d["args"] = tool_args(schema, value, workdir)
            d["call_id"] = "call_rc" + uuid.uuid4().hex[:16]
        else:
            d["text"] = value
        return d

    # -- Anthropic Messages ---------------------------------------------------------------------

    def anthropic(self, n, body):
        msgs = body.get("messages") or []
        first_user = next((m for m in msgs if m.get("role") == "user"), {})
        done = sum(
            1
            for m in msgs
            if m.get("role") == "assistant" and isinstance(m.get("content"), list)
            for b in m["content"]
            if isinstance(b, dict) and b.get("type") == "tool_use" and str(b.get("id", "")).startswith("toolu_rc")
        )
        d = self.decide(n, "anthropic", text_of(first_user), body.get("tools"), done, None)
        if d.get("call_id"):
            d["call_id"] = "toolu_rc" + d["call_id"][7:]
        text = d["text"] if d["text"] is not None else aux_text(False)
        model = body.get("model") or self.server.model
        d["model"] = model
        d["stream"] = bool(body.get("stream"))
        self.record(d)
        u = d["usage_sent"]
        msg_id = f"msg_rc{n:06d}"
        if d["action"] == "tool":
            content = [{"type": "tool_use", "id": d["call_id"], "name": d["tool"], "input": d["args"]}]
            stop = "tool_use"
        else:
            content = [{"type": "text", "text": text}]
            stop = "end_turn"
        if not body.get("stream"):
            self.send_json(
                {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": content,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": u,
                }
            )
            return
        self.start_sse()
        start_usage = dict(u, output_tokens=1)  # the real API's snapshot at message start
        self.sse(
            {
                "type": "message_start",
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": start_usage,
                },
            },
            "message_start",
        )
        block = content[0]
        if block["type"] == "text":
            self.sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}, "content_block_start")
            for piece in split_text(block["text"]):
                self.sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}}, "content_block_delta")
        else:
            self.sse(
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}},
                },
                "content_block_start",
            )
            self.sse(
                {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}},
                "content_block_delta",
            )
        self.sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
        self.sse(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": u["output_tokens"]},
            },
            "message_delta",
        )
        self.sse({"type": "message_stop"}, "message_stop")
        self.end_sse()

    # -- OpenAI Responses -----------------------------------------------------------------------

    def openai_responses(self, n, body):
        items = body.get("input") or []
        if isinstance(items, str):
            items = [{"role": "user", "content": items}]
        done = sum(
            1
            for it in items
            if isinstance(it, dict)
            and it.get("type") in ("function_call", "custom_tool_call", "local_shell_call")
            and str(it.get("call_id", "")).startswith("call_rc")
        )
        users = [it for it in items if isinstance(it, dict) and it.get("role") == "user"]
        d = self.decide(n, "responses", text_of(users), body.get("tools"), done, None)
        text = d["text"] if d["text"] is not None else aux_text("json_schema" in json.dumps(body.get("text", {})))
        model = body.get("model") or self.server.model
        d["model"] = model
        d["stream"] = bool(body.get("stream"))
        self.record(d)
        resp_id = f"resp_rc{n:06d}"
        if d["action"] == "tool":
            item = {
                "type": "function_call",
                "id": f"fc_rc{n:06d}",
                "call_id": d["call_id"],
                "name": d["tool"],
                "arguments": json.dumps(d["args"]),
                "status": "completed",
            }
        else:
            item = {
                "type": "message",
                "id": f"msg_rc{n:06d}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        response = {
            "id": resp_id,
            "object": "response",
            "created_at": int(time.time()),
            "status": "completed",
            "model": model,
            "output": [item],
            "usage": d["usage_sent"],
        }
        if not body.get("stream"):
            self.send_json(response)
            return
        self.start_sse()
        seq = itertools.count()
        base = dict(response, status="in_progress", output=[], usage=None)
        self.sse({"type": "response.created", "sequence_number": next(seq), "response": base}, "response.created")
        self.sse({"type": "response.in_progress", "sequence_number": next(seq), "response": base}, "response.in_progress")
        added = dict(item, status="in_progress")
        if item["type"] == "message":
            added["content"] = []
        elif item["type"] == "function_call":
            added["arguments"] = ""
        self.sse({"type": "response.output_item.added", "sequence_number": next(seq), "output_index": 0, "item": added}, "response.output_item.added")
        if item["type"] == "message":
            part = {"type": "output_text", "text": "", "annotations": []}
            self.sse({"type": "response.content_part.added", "sequence_number": next(seq), "item_id": item["id"], "output_index": 0, "content_index": 0, "part": part}, "response.content_part.added")
            for piece in split_text(text):
                self.sse({"type": "response.output_text.delta", "sequence_number": next(seq), "item_id": item["id"], "output_index": 0, "content_index": 0, "delta": piece}, "response.output_text.delta")
            self.sse({"type": "response.output_text.done", "sequence_number": next(seq), "item_id": item["id"], "output_index": 0, "content_index": 0, "text": text}, "response.output_text.done")
            self.sse({"type": "response.content_part.done", "sequence_number": next(seq), "item_id": item["id"], "output_index": 0, "content_index": 0, "part": dict(part, text=text)}, "response.content_part.done")
        else:
            self.sse({"type": "response.function_call_arguments.delta", "sequence_number": next(seq), "item_id": item["id"], "output_index": 0, "delta": item["arguments"]}, "response.function_call_arguments.delta")
            self.sse({"type": "response.function_call_arguments.done", "sequence_number": next(seq), "item_id": item["id"], "output_index": 0, "arguments": item["arguments"]}, "response.function_call_arguments.done")
        self.sse({"type": "response.output_item.done", "sequence_number": next(seq), "output_index": 0, "item": item}, "response.output_item.done")
        self.sse({"type": "response.completed", "sequence_number": next(seq), "response": response}, "response.completed")
        self.end_sse()

    # -- Gemini ---------------------------------------------------------------------------------

    def gemini(self, n, body, path):
        contents = body.get("contents") or []
        done = sum(
            1
            for c in contents
            if c.get("role") == "model"
            for p in c.get("parts") or []
            if isinstance(p, dict) and "functionCall" in p and str(p["functionCall"].get("id", "rc")).startswith("rc")
        )
        users = [c for c in contents if c.get("role") == "user"]
        d = self.decide(n, "gemini", text_of(users[:3]), body.get("tools"), done, None)
        gen = body.get("generationConfig") or {}
        wants_json = gen.get("responseMimeType") == "application/json" or "responseSchema" in gen or "responseJsonSchema" in gen
        text = d["text"] if d["text"] is not None else aux_text(wants_json)
        model = path.split("/models/")[-1].split(":")[0] if "/models/" in path else self.server.model
        d["model"] = model
        d["stream"] = "streamGenerateContent" in path
        self.record(d)
        if d["action"] == "tool":
            parts = [{"functionCall": {"id": "rc" + d["call_id"][7:], "name": d["tool"], "args": d["args"]}}]
        else:
            parts = [{"text": text}]
        final = {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": d["usage_sent"],
            "modelVersion": model,
            "responseId": f"rc{n:06d}",
        }
        if not d["stream"]:
            self.send_json(final)
            return
        if "alt=sse" not in self.path:
            self.send_json([final])
            return
        self.start_sse()
        self.chunk(("data: " + json.dumps(final) + "\r\n\r\n").encode())
        self.end_sse()


def split_text(text):
    """Stream text in a few pieces, as a real model does."""
    if len(text) < 8:
        return [text]
    cut = len(text) // 2
    return [text[:cut], text[cut:]]


def watchdog(server, idle, hard):
    start = time.monotonic()
    while True:
        time.sleep(0.5)
        now = time.monotonic()
        if now - STATE["last"] > idle or now - start > hard:
            why = "idle" if now - STATE["last"] > idle else "hard limit"
            print(f"model_server: exiting ({why})", file=sys.stderr, flush=True)
            os._exit(0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", required=True, help="scenario JSON (stories: commands, final)")
    ap.add_argument("--log", required=True, help="JSONL file: one line per request")
    ap.add_argument("--port", type=int, default=0, help="0: any free port")
    ap.add_argument("--port-file", help="write the port here once listening")
    ap.add_argument("--model", default="contract-model")
    ap.add_argument("--idle-timeout", type=float, default=300, help="seconds without a request")
    ap.add_argument("--hard-limit", type=float, default=1800, help="seconds in all")
    ap.add_argument("--dump-dir", help="save every request body here (debugging)")
    a = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    server.daemon_threads = True
    server.scenario = Scenario(a.scenario)
    server.log_path = a.log
    server.model = a.model
    server.dump_dir = a.dump_dir
    threading.Thread(target=watchdog, args=(server, a.idle_timeout, a.hard_limit), daemon=True).start()
    port = server.server_address[1]
    if a.port_file:
        tmp = a.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(port))
        os.replace(tmp, a.port_file)
    print(f"model_server: listening on 127.0.0.1:{port}", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
