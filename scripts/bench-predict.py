#!/usr/bin/env python3
"""How well a parallel run's conflict prediction (src/run/parallel/predict.rs) foretells two stories
touching a common file, on real commits: the cases of ../shared/context-bench (each a real commit's
message as a one-story prd.json, on the tree just before it, with the files the commit changed).

For each case: check its parent out of a local mirror (`git clone --shared`, never writing to the
mirror), `ralph pin generate`, then `ralph run --dry-run --parallel 2 --explain`, and read the
story's predicted files. Then for every pair of cases of the same repository: the truth is "the two
real commits changed a common file", the prediction "their overlap (the strongest shared file,
weighted by the weaker side) is at least t". Prints, per threshold t, how many pairs would wait,
the precision and the recall. Not a test: the mirrors are fetched by hand (see context-bench's
README); the numbers go in the README.

Usage: scripts/bench-predict.py --ralph target/release/ralph --mirrors /work/.mirror
       [--cases ../shared/context-bench/cases.jsonl]
"""
import argparse
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"(.*) \((named|[0-9.]+)\)$")


def predict(ralph, mirror, case):
    """The story's predicted files: {path: weight}."""
    with tempfile.TemporaryDirectory() as d:
        wt = os.path.join(d, "wt")
        subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", mirror, wt], check=True)
        subprocess.run(["git", "-C", wt, "-c", "advice.detachedHead=false", "checkout", "-q", "-f",
                        "--detach", case["parent"]], check=True)
        subprocess.run([ralph, "pin", "generate"], cwd=wt, capture_output=True)
        story = {"id": "H-1", "title": case["title"], "description": case["description"] or case["title"],
                 "acceptanceCriteria": [], "priority": 1, "passes": False, "notes": ""}
        with open(os.path.join(wt, "prd.json"), "w") as f:
            json.dump({"project": "eval", "branchName": "eval/x", "description": "eval",
                       "userStories": [story]}, f)
        out = subprocess.run([ralph, "run", "--dry-run", "--parallel", "2", "--explain", "--no-preflight",
                              "--agent-cmd", "true"], cwd=wt, capture_output=True, text=True).stdout
    # The last "  H-1: ..." line is the prediction (the one before it names the worktree).
    lines = [l for l in out.splitlines() if l.startswith("  H-1: ")]
    files = {}
    if lines and "no file predicted" not in lines[-1]:
        for part in lines[-1][len("  H-1: "):].split(", "):
            m = LINE.match(part)
            if m:
                files[m.group(1)] = 1.0 if m.group(2) == "named" else float(m.group(2))
    return files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ralph", required=True)
    ap.add_argument("--mirrors", required=True, help="folder of <owner>+<name>/repo mirrors")
    ap.add_argument("--cases", default=os.path.join(os.path.dirname(__file__), "../../shared/context-bench/cases.jsonl"))
    a = ap.parse_args()
    cases = [json.loads(l) for l in open(a.cases)]
    preds = {}
    for c in cases:
        mirror = os.path.join(a.mirrors, c["upstream"].replace("/", "+"), "repo")
        preds[c["id"]] = predict(os.path.abspath(a.ralph), mirror, c)
        print(f"{c['id']}: predicted {sorted(preds[c['id']])}, changed {c['gold']}", file=sys.stderr)
    pairs = []
    for x, y in itertools.combinations(cases, 2):
        if x["repo"] != y["repo"]:
            continue
        truth = bool(set(x["gold"]) & set(y["gold"]))
        px, py = preds[x["id"]], preds[y["id"]]
        overlap = max([min(px[f], py[f]) for f in px if f in py] or [0.0])
        pairs.append((truth, overlap))
    n, pos = len(pairs), sum(t for t, _ in pairs)
    print(f"{len(cases)} cases, {n} pairs of the same repository, {pos} ({pos / n:.0%}) changed a common file")
    for t in [0.3, 0.4, 0.5, 0.6, 0.7, 0.8]:
        tp = sum(1 for tr, o in pairs if tr and o >= t)
        fp = sum(1 for tr, o in pairs if not tr and o >= t)
        prec = f"{tp / (tp + fp):.2f}" if tp + fp else "-"
        print(f"threshold {t}: {tp + fp} pairs wait ({(tp + fp) / n:.0%}), precision {prec}, recall {tp / pos:.2f}")


if __name__ == "__main__":
    main()
