#!/usr/bin/env bash
# The cost of the red-green gate's red run on the demo project, against the gate alone.
#
# Builds --release, creates the demo project once (`ralph demo`), and for each of RUNS rounds
# runs the demo's loop (its scripted agent, `sh check.sh` as the gate) on two fresh clones of
# its first commit, interleaved: one with the gate alone, one with `--red-green`. The demo's
# two documentation stories (DEMO-4 USAGE.md, DEMO-5 CHANGELOG.md) change no test file, so
# they carry `"redGreen": false` as a person would write it; DEMO-1..3 each add a tests/*.sh.
# From .ralph/history.jsonl of the red-green runs: per story, the gate's time (its verify
# commands) and the red run's (scratch worktree made, tests copied, `sh check.sh` run,
# worktree removed). Prints the medians, their ratio, and the median wall time of a whole run
# with and without --red-green.
#
# Usage: scripts/bench-red-green.sh [RUNS=7]
set -euo pipefail
RUNS=${1:-7}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
# shellcheck source=scripts/bench-lib.sh
. "$here/scripts/bench-lib.sh"
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-$here/target}/release/ralph"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin" demo "$work/demo" >/dev/null 2>&1
first=$(git -C "$work/demo" rev-list --max-parents=0 HEAD)

# A fresh clone of the demo's first commit; with $2 = red-green, DEMO-4/5 opt out.
fresh() {
  local dir=$1 mode=$2
  git clone -q "$work/demo" "$dir"
  git -C "$dir" checkout -q -B ralph/greet-demo "$first"
  git -C "$dir" config user.name b
  git -C "$dir" config user.email b@example.com
  if [ "$mode" = red-green ]; then
    python3 - "$dir/prd.json" <<'PY'
import json, sys
path = sys.argv[1]
prd = json.load(open(path))
for s in prd["userStories"]:
    if s["id"] in ("DEMO-4", "DEMO-5"):
        s["redGreen"] = False
open(path, "w").write(json.dumps(prd, indent=2) + "\n")
PY
    git -C "$dir" commit -qam "docs stories: no red run"
  fi
}

# One loop run in a fresh clone, $work/run-<mode>: prints its wall time in ms.
one_run() {
  local mode=$1 flag=() start end code proj="$work/run-$1"
  rm -rf "$proj"
  fresh "$proj" "$mode"
  [ "$mode" = red-green ] && flag=(--red-green)
  start=$(date +%s%N)
  set +e
  (cd "$proj" && "$bin" run 10 --agent-cmd "$bin demo --scripted-agent" --verify "sh check.sh" \
    --sleep 0 --no-compact "${flag[@]}" >/dev/null 2>&1)
  code=$?
  set -e
  end=$(date +%s%N)
  [ "$code" = 0 ] || { echo "unexpected exit code $code ($mode run in $proj)" >&2; exit 1; }
  echo $(( (end - start) / 1000000 ))
}

gates=()
reds=()
walls=()
walls_rg=()
for r in $(seq 1 "$RUNS"); do
  w=$(one_run gate)
  walls+=("$w")
  w_rg=$(one_run red-green)
  walls_rg+=("$w_rg")
  read -r g red n < <(python3 - "$work/run-red-green/.ralph/history.jsonl" <<'PY'
import json, sys
gate = red = n = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    rg = r.get("red_green")
    if rg and rg["result"] == "red":
        gate += sum(v["duration_ms"] for v in r["verify"])
        red += rg["duration_ms"]
        n += 1
print(f"{gate / n:.1f} {red / n:.1f} {n}")
PY
)
  gates+=("$g")
  reds+=("$red")
  echo "run $r: gate ${g} ms/story, red run ${red} ms/story ($n stories); whole run ${w} ms alone, ${w_rg} ms with --red-green"
  rm -rf "$work"/run-*
done
mg=$(median "${gates[@]}")
mr=$(median "${reds[@]}")
mw=$(median "${walls[@]}")
mwr=$(median "${walls_rg[@]}")
echo "median per story: gate ${mg} ms, red run ${mr} ms (red run / gate $(python3 -c "print(f'{$mr / $mg:.2f}')"))"
echo "median whole run: ${mw} ms with the gate alone, ${mwr} ms with --red-green (ratio $(python3 -c "print(f'{$mwr / $mw:.2f}')"))"
