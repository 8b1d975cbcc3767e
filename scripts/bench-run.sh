#!/usr/bin/env bash
# Runner overhead per iteration of `ralph run` (everything but the agent).
#
# Builds --release, generates a git project with a 2,000-story prd.json and a 100,000-line
# progress.txt, and runs `ralph run N` with a no-op agent (reads its prompt, does nothing).
# Overhead per iteration = (wall time of the run - time spent inside the agent, as recorded
# in .ralph/history.jsonl) / N. Prints the median over RUNS runs. Target: < 20 ms.
# With BASE_BIN (another ralph, e.g. one built from an older commit), each run of this build is
# followed by one of BASE_BIN on a fresh copy of the same project, and the two medians and
# their ratio are printed: on a shared, noisy machine the ratio of interleaved runs says more
# than either absolute number.
#
# Usage: scripts/bench-run.sh [RUNS=5] [N=20] [BASE_BIN]
set -euo pipefail
RUNS=${1:-5}
N=${2:-20}
BASE_BIN=${3:-}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
# shellcheck source=scripts/bench-lib.sh
. "$here/scripts/bench-lib.sh"
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-$here/target}/release/ralph"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/bin"
printf '#!/bin/sh\ncat >/dev/null\n' > "$work/bin/noop-agent"
chmod +x "$work/bin/noop-agent"

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
stories = []
for i in range(2000):
    s = {"id": f"S-{i:04d}", "title": f"Story number {i}", "description": "As a user I want thing %d so that it works." % i,
         "acceptanceCriteria": ["criterion one", "criterion two", "typecheck passes"],
         "priority": i + 1, "passes": False, "notes": ""}
    if i > 0 and i % 3 == 0:
        s["blockedBy"] = [f"S-{i-1:04d}"]
    stories.append(s)
prd = {"project": "bench", "branchName": "ralph/bench", "description": "benchmark", "userStories": stories}
with open(f"{work}/prd.json", "w") as f:
    f.write(json.dumps(prd, indent=2) + "\n")
with open(f"{work}/progress.txt", "w") as f:
    f.write("# Ralph Progress Log\nStarted: bench\n---\n## Codebase Patterns\n- pattern a\n- pattern b\n---\n")
    n = 8
    i = 0
    while n < 100000:
        f.write(f"## 2026-01-01 00:00 - S-{i % 2000:04d}\n- did a thing\n- Files changed: src/x.rs\n- **Learnings for future iterations:**\n  - learned {i}\n---\n")
        n += 6
        i += 1
PY
echo "prd.json: $(wc -c < "$work/prd.json") bytes, 2000 stories; progress.txt: $(wc -l < "$work/progress.txt") lines"

# One run of `$1` on a fresh copy of the project; prints the overhead per iteration in ms.
one_run() {
  local bin=$1 proj
  proj=$(mktemp -d "$work/proj-XXXX")
  cp "$work/prd.json" "$work/progress.txt" "$proj/"
  printf '.ralph/\n' > "$proj/.gitignore"
  git -C "$proj" init -q
  git -C "$proj" -c user.name=b -c user.email=b@example.com add -A
  git -C "$proj" -c user.name=b -c user.email=b@example.com commit -qm init
  local start end code agent_ms wall_ms
  start=$(date +%s%N)
  set +e
  (cd "$proj" && PATH="$work/bin:$PATH" "$bin" run "$N" --agent-cmd noop-agent --sleep 0 --max-failures 1000 --no-compact >/dev/null 2>&1)
  code=$?
  set -e
  end=$(date +%s%N)
  [ "$code" = 3 ] || { echo "unexpected exit code $code from $bin" >&2; exit 1; }
  agent_ms=$(python3 -c "import json,sys; print(sum(json.loads(l)['duration_ms'] for l in open(sys.argv[1])))" "$proj/.ralph/history.jsonl")
  wall_ms=$(( (end - start) / 1000000 ))
  rm -rf "$proj"
  python3 -c "print(f'{($wall_ms - $agent_ms) / $N:.2f}')"
}

results=()
base=()
for r in $(seq 1 "$RUNS"); do
  per=$(one_run "$bin")
  results+=("$per")
  line="run $r: overhead ${per} ms/iteration"
  if [ -n "$BASE_BIN" ]; then
    b=$(one_run "$BASE_BIN")
    base+=("$b")
    line="$line; base ${b} ms/iteration"
  fi
  echo "$line"
done
m=$(median "${results[@]}")
echo "median runner overhead: ${m} ms/iteration (target < 20 ms)"
if [ -n "$BASE_BIN" ]; then
  mb=$(median "${base[@]}")
  echo "base ($BASE_BIN): median ${mb} ms/iteration; ratio this/base $(python3 -c "print(f'{$m / $mb:.3f}')")"
fi
