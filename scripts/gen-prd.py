#!/usr/bin/env python3
"""Generate a large valid prd.json for benchmarks.

usage: gen-prd.py N_STORIES OUT [--deps K] [--seed S] [--passing FRACTION]
Each story is blocked by up to K random earlier stories (a dense DAG, no cycles).
"""
import argparse
import json
import random

p = argparse.ArgumentParser()
p.add_argument("n", type=int)
p.add_argument("out")
p.add_argument("--deps", type=int, default=8)
p.add_argument("--seed", type=int, default=42)
p.add_argument("--passing", type=float, default=0.0)
a = p.parse_args()
rng = random.Random(a.seed)
stories = []
for i in range(a.n):
    k = min(i, a.deps)
    deps = sorted(rng.sample(range(i), k)) if k else []
    s = {
        "id": f"US-{i:05d}",
        "title": f"Story number {i}: implement feature {i % 97} for module {i % 13}",
        "description": f"As a user I want feature {i} so that workflow {i % 7} works end to end.",
        "acceptanceCriteria": [f"criterion {j} of story {i} holds" for j in range(3)] + ["Typecheck passes"],
        "priority": i // 10,
        "passes": i < a.n * a.passing,
        "notes": "",
    }
    if deps:
        s["blockedBy"] = [f"US-{d:05d}" for d in deps]
    stories.append(s)
doc = {"project": "Bench", "branchName": "ralph/bench", "description": "generated", "userStories": stories}
with open(a.out, "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
