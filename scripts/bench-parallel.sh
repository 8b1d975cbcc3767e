#!/usr/bin/env bash
# Wall time of `ralph run --parallel K` on a DAG of agents that take a fixed time.
#
# Builds --release and generates a git project with a 12-story DAG of width 4 and critical
# path 4 (levels of 4, 4, 2, 2 stories, each blocked by every story of the level before). The
# fake agent sleeps T seconds, writes a file of its own, marks its story passing, commits and
# prints `STORY COMPLETE`; `sh check.sh` is the verify command. Runs, RUNS times each:
#   - `--parallel 4`: target wall <= 1.15 x 4T (four waves, plus worktrees and merges);
#   - only with BASE_BIN (another ralph, e.g. one built before the scheduler existed):
#     `--parallel 1` of this build and the sequential loop (no flag) of BASE_BIN, target
#     within 5% of each other (12T plus overhead). Without BASE_BIN that leg is skipped: both
#     runs would be this build, whose `--parallel 1` is the sequential loop, so the 5% target
#     would hold by construction and say nothing. BASE_BIN's `--parallel 4` runs too, and the
#     ratio of the two `--parallel 4` medians says what this build changed, whatever the load.
# The kinds are interleaved run by run (a, b, c, a, b, c, ...), so the machine's load falls on
# all alike. Prints the medians and the ratios; exits 1 when a target is missed. The machine
# may be shared and noisy: read the numbers with that in mind (a timed test would be flaky;
# this is a script).
#
# Usage: scripts/bench-parallel.sh [RUNS=3] [T=2] [BASE_BIN=]
set -euo pipefail
RUNS=${1:-3}
T=${2:-2}
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
cat > "$work/bin/sleepy-agent" <<EOF
#!/bin/sh
cat >/dev/null
sleep $T
echo "\$RALPH_STORY_ID" > "\$RALPH_STORY_ID.txt"
sed -i -E "s/(\"id\": \"\$RALPH_STORY_ID\"[^}]*\"passes\": )false/\\1true/" prd.json
git add -A >/dev/null && git commit -qm "\$RALPH_STORY_ID" >/dev/null
echo "STORY COMPLETE: \$RALPH_STORY_ID"
EOF
chmod +x "$work/bin/sleepy-agent"

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
levels = [4, 4, 2, 2]
stories, prev, n = [], [], 0
for width in levels:
    cur = []
    for _ in range(width):
        n += 1
        sid = f"S-{n:02d}"
        stories.append({"id": sid, "title": f"Story {n}", "description": f"Do {n}",
                        "acceptanceCriteria": ["works"], "priority": n, "passes": False,
                        "notes": "", "blockedBy": list(prev)})
        cur.append(sid)
    prev = cur
with open(f"{work}/prd.json", "w") as f:
    # One story per line, so the agent's sed finds its own.
    f.write('{\n"project": "bench", "branchName": "ralph/bench", "description": "bench",\n"userStories": [\n')
    f.write(",\n".join(json.dumps(s) for s in stories))
    f.write("\n]\n}\n")
PY

# One fresh project per run: KIND is parallel4, base4, parallel1 or sequential.
run_once() {
  local kind="$1" r="$2" exe="$3"
  local proj="$work/$kind-$r"
  mkdir -p "$proj"
  cp "$work/prd.json" "$proj/"
  printf '.ralph/\n' > "$proj/.gitignore"
  printf 'test -f prd.json\n' > "$proj/check.sh"
  printf '# progress\n' > "$proj/progress.txt"
  git -C "$proj" init -q -b ralph/bench
  git -C "$proj" config user.name b
  git -C "$proj" config user.email b@example.com
  git -C "$proj" add -A
  git -C "$proj" commit -qm init
  local flag=()
  case "$kind" in
    parallel4 | base4) flag=(--parallel 4) ;;
    parallel1) flag=(--parallel 1) ;;
  esac
  local start end code
  start=$(date +%s%N)
  set +e
  (cd "$proj" && PATH="$work/bin:$PATH" "$exe" run 20 --agent-cmd sleepy-agent --sleep 0 \
    --verify "sh check.sh" --no-compact "${flag[@]}" >"$work/$kind-$r.log" 2>&1)
  code=$?
  set -e
  end=$(date +%s%N)
  if [ "$code" != 0 ]; then
    echo "$kind run $r: exit $code; see the log:" >&2
    tail -20 "$work/$kind-$r.log" >&2
    exit 1
  fi
  echo $(( (end - start) / 1000000 ))
}

kinds=(parallel4)
if [ -n "$BASE_BIN" ]; then
  kinds+=(base4 parallel1 sequential)
else
  echo "no BASE_BIN: the --parallel 1 vs sequential leg is skipped (both would run this build)"
fi
declare -A med=([base4]=0 [parallel1]=0 [sequential]=0)
declare -A times=()
for r in $(seq 1 "$RUNS"); do
  for kind in "${kinds[@]}"; do
    exe="$bin"
    case "$kind" in base4 | sequential) exe="$BASE_BIN" ;; esac
    ms=$(run_once "$kind" "$r" "$exe")
    echo "$kind run $r: ${ms} ms"
    times[$kind]="${times[$kind]:-} $ms"
  done
done
for kind in "${kinds[@]}"; do
  # shellcheck disable=SC2086
  med[$kind]=$(median ${times[$kind]})
done

ideal=$((4 * T * 1000))
python3 - "${med[parallel4]}" "${med[parallel1]}" "${med[sequential]}" "$ideal" "$T" "${med[base4]}" <<'PY'
import sys
p4, p1, seq, ideal, t, b4 = (float(x) for x in sys.argv[1:])
r4 = p4 / ideal
print(f"--parallel 4: median {p4:.0f} ms = {r4:.3f} x 4T ({ideal:.0f} ms); target <= 1.15")
if b4 > 0:
    print(f"BASE_BIN --parallel 4: median {b4:.0f} ms = {b4 / ideal:.3f} x 4T; this build / BASE_BIN: {p4 / b4:.3f}")
ok = r4 <= 1.15
if seq > 0:
    r1 = p1 / seq
    print(f"--parallel 1: median {p1:.0f} ms; sequential loop (BASE_BIN): median {seq:.0f} ms; ratio {r1:.3f}; target within 5%")
    print(f"(--parallel 4 is {seq / p4:.2f}x faster than the sequential loop)")
    ok = ok and abs(r1 - 1) <= 0.05
print(f"(12T = {12 * t * 1000:.0f} ms)")
sys.exit(0 if ok else 1)
PY
