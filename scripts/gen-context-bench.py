#!/usr/bin/env python3
"""Generate a project for benchmarking `ralph context`.

usage: gen-context-bench.py DIR [--entries N] [--progress-lines L] [--stories S] [--seed X]
Writes DIR/prd.json (S stories; US-0100 is blocked by US-0097..US-0099, which pass),
DIR/specs/INDEX.md (N Pin entries, 10-20 keywords each, 3 files, a spec link),
DIR/specs/mNNNNN.md (one 150-line spec per entry) and DIR/progress.txt (about L lines:
header, Codebase Patterns, then entries of about 10 lines).
"""
import argparse
import json
import os
import random

p = argparse.ArgumentParser()
p.add_argument("dir")
p.add_argument("--entries", type=int, default=5000)
p.add_argument("--progress-lines", type=int, default=100_000)
p.add_argument("--stories", type=int, default=200)
p.add_argument("--seed", type=int, default=7)
a = p.parse_args()
rng = random.Random(a.seed)
os.makedirs(os.path.join(a.dir, "specs"), exist_ok=True)

syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qu", "dor", "fen", "gal"]
vocab = sorted({"".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(4000)})
common = ["store", "tags", "bookmark", "list", "filter", "render", "cache", "sync", "user", "config"]

stories = []
for i in range(a.stories):
    words = rng.sample(vocab, 6) + rng.sample(common, 2)
    s = {
        "id": f"US-{i:04d}",
        "title": f"Implement {words[0]} {words[1]} for {words[6]}",
        "description": f"As a user I want {' '.join(words[2:5])} so that {words[7]} works.",
        "acceptanceCriteria": [f"{w} is handled" for w in words[:4]] + ["Typecheck passes"],
        "priority": i,
        "passes": i < 100,
        "notes": "",
    }
    if i == 100:
        s["blockedBy"] = ["US-0097", "US-0098", "US-0099"]
    stories.append(s)
with open(os.path.join(a.dir, "prd.json"), "w") as f:
    json.dump({"project": "Bench", "branchName": "ralph/bench", "userStories": stories}, f, indent=2)
    f.write("\n")

with open(os.path.join(a.dir, "specs", "INDEX.md"), "w") as f:
    f.write("# The Pin\n\n## Modules\n\n")
    for e in range(a.entries):
        kws = rng.sample(vocab, rng.randint(8, 18)) + rng.sample(common, 2)
        f.write(f"### Module {e:05d}\n**Keywords**: {', '.join(kws)}\n\n**File Paths**:\n")
        for k in range(3):
            f.write(f"- src/m{e:05d}/{kws[k]}.rs\n")
        f.write(f"\n**Spec Link**: specs/m{e:05d}.md\n\n---\n\n")
        with open(os.path.join(a.dir, "specs", f"m{e:05d}.md"), "w") as s:
            s.write(f"# Module {e:05d}\n\n")
            for line in range(148):
                s.write(f"{' '.join(rng.sample(vocab, 5))} line {line}\n")

with open(os.path.join(a.dir, "progress.txt"), "w") as f:
    f.write("# Ralph Progress Log\nStarted: Sat Jan 17 14:06:48 PST 2026\n---\n")
    f.write("## Codebase Patterns\n")
    for k in range(30):
        f.write(f"- pattern {k}: {' '.join(rng.sample(vocab, 6))}\n")
    f.write("---\n")
    lines, n = 36, 0
    while lines < a.progress_lines:
        sid = f"US-{n % 100:04d}"
        f.write(f"## 2026-01-17 22:{n % 60:02d} - {sid}\n")
        for k in range(5):
            f.write(f"- did {' '.join(rng.sample(vocab, 4))}\n")
        f.write("- Files changed: src/a.rs, src/b.rs\n- **Learnings for future iterations:**\n")
        f.write(f"  - {' '.join(rng.sample(vocab, 5))}\n---\n")
        lines += 10
        n += 1
print(f"{a.dir}: {a.stories} stories, {a.entries} Pin entries, {lines} progress lines")
