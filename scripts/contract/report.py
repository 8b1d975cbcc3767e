#!/usr/bin/env python3
"""Helpers of scripts/agent-contract.sh (stdlib only): ralph's argv from `ralph run --dry-run`,
the usage comparison (model server log vs .ralph/history.jsonl), stories done, processes left
behind, and the results table.

  report.py argv DRYRUN_OUT PROMPT        ralph's argv, the prompt replaced: one arg per line (JSON)
  report.py usage SERVER_LOG HISTORY API  compare usage; prints a JSON verdict
  report.py stories PRD                   "done/total"
  report.py commits PROJECT               "N agent commit(s)": the scenario's commits (`US-NNN: …`)
  report.py procs MARKER                  pids whose environment holds MARKER (one per line)
  report.py table RESULTS                 the table, one row per (user, cli, mode)
"""

import json
import os
import re
import shlex
import subprocess
import sys


def cmd_argv(dry_out, prompt):
    text = open(dry_out, encoding="utf-8", errors="replace").read()
    m = re.search(r"^argv: (.*?)\nprompt: (on stdin|as an argument|in the file)", text, re.S | re.M)
    if not m:
        print(json.dumps({"error": "no argv line in ralph run --dry-run output"}))
        return 1
    argv = shlex.split(m.group(1))
    mode = {"on stdin": "stdin", "as an argument": "arg", "in the file": "file"}[m.group(2)]
    out = [prompt if "# Your story:" in a else a for a in argv]
    print(json.dumps({"argv": out, "mode": mode, "ralph_argv": [a if "# Your story:" not in a else "<prompt>" for a in argv]}))
    return 0


def sent_totals(entries, api):
    """(input incl. cached, output, cached) as ralph counts them, from what the server sent."""
    i = o = c = 0
    for e in entries:
        u = e.get("usage_sent") or {}
        if api == "anthropic":
            i += u.get("input_tokens", 0) + u.get("cache_creation_input_tokens", 0) + u.get("cache_read_input_tokens", 0)
            c += u.get("cache_read_input_tokens", 0)
            o += u.get("output_tokens", 0)
        elif api == "responses":
            i += u.get("input_tokens", 0)
            c += (u.get("input_tokens_details") or {}).get("cached_tokens", 0)
            o += u.get("output_tokens", 0)
        elif api == "gemini":
            i += u.get("promptTokenCount", 0)
            c += u.get("cachedContentTokenCount", 0)
            o += u.get("candidatesTokenCount", 0)
    return {"input_tokens": i, "output_tokens": o, "cached_tokens": c}


def read_jsonl(path):
    out = []
    if not os.path.exists(path):
        return out
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.strip()
        if not line:
            continue
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def cmd_usage(server_log, history, api):
    sent = [e for e in read_jsonl(server_log) if "usage_sent" in e]
    recs = read_jsonl(history)
    got = {"input_tokens": 0, "output_tokens": 0, "cached_tokens": 0}
    with_usage = 0
    for r in recs:
        u = r.get("usage")
        if not u:
            continue
        with_usage += 1
        for k in got:
            got[k] += u.get(k, 0) or 0
    all_ = sent_totals(sent, api)
    main = sent_totals([e for e in sent if e.get("kind") == "main"], api)
    if not sent:
        verdict = "no model calls"
    elif with_usage == 0:
        verdict = "none recorded"
    elif got == all_:
        verdict = "equal"
    elif got == main:
        verdict = "equal (main calls; the CLI does not report its %d side call(s))" % (len(sent) - sum(1 for e in sent if e.get("kind") == "main"))
    else:
        verdict = "DIFFERENT"
    print(json.dumps({"verdict": verdict, "history": got, "records_with_usage": with_usage, "records": len(recs),
                      "sent_all": all_, "sent_main": main, "calls": len(sent)}))
    return 0


def cmd_stories(prd):
    try:
        d = json.load(open(prd, encoding="utf-8"))
    except (OSError, ValueError) as e:
        print("0/? (%s)" % e)
        return 0
    stories = d.get("userStories") or []
    print("%d/%d" % (sum(1 for s in stories if s.get("passes") is True), len(stories)))
    return 0


def cmd_commits(proj):
    """How many commits the scenario's agents made (their messages start `US-NNN: `)."""
    try:
        out = subprocess.run(["git", "-c", "safe.directory=*", "-C", proj, "log", "--format=%s"], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print("? agent commit(s) (%s)" % e)
        return 0
    n = sum(1 for line in out.splitlines() if re.match(r"US-\d+: ", line))
    print("%d agent commit(s)" % n)
    return 0


def cmd_procs(marker):
    needle = marker.encode() + b"\0"
    me = os.getpid()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == me:
            continue
        try:
            env = open(f"/proc/{pid}/environ", "rb").read()
        except OSError:
            continue
        if needle in env or env.endswith(marker.encode()):
            try:
                cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                cmd = "?"
            try:
                print(f"{pid} {cmd[:120]}", flush=True)
            except BrokenPipeError:  # the reader (grep -q) has seen enough
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                return 0
    return 0


def cmd_table(results):
    rows = read_jsonl(results)
    cols = ["user", "cli", "version", "mode", "argv accepted", "e2e (stories done)", "usage equal", "Ctrl-C clean"]
    keys = ["user", "cli", "version", "mode", "argv", "e2e", "usage", "ctrlc"]
    table = [cols] + [[str(r.get(k, "")) for k in keys] for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(cols))]
    def line(row):
        return "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |"
    print(line(cols))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in table[1:]:
        print(line(row))
    notes = [(r["user"], r["cli"], r["mode"], n) for r in rows for n in r.get("notes", [])]
    if notes:
        print()
        for u, c, m, n in notes:
            print(f"- {c} ({u}, {m}): {n}")
    return 0


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = argv[1], argv[2:]
    fn = {"argv": cmd_argv, "usage": cmd_usage, "stories": cmd_stories, "commits": cmd_commits, "procs": cmd_procs, "table": cmd_table}.get(cmd)
    if fn is None:
        print(__doc__, file=sys.stderr)
        return 2
    return fn(*args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
