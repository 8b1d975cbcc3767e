#!/usr/bin/env bash
# Conflict-aware scheduling on a conflict-heavy plan: send-backs and wall time of
# `ralph run --parallel 4` with the predicted-conflict threshold (the default) and with it off.
#
# The plan (scripts/gen-conflicts.py): a small Python project and 8 independent stories, four
# pairs of which edit the same line of the same file; some stories name their file, some only
# the function or the module's words. A fake agent sleeps T seconds, makes its story's edit,
# marks it passing and commits; `sh check.sh` verifies. Each run gets a fresh project; the two
# kinds are interleaved (on, off, on, off, ...) so the machine's load falls on both alike.
# Targets: the median number of send-backs (merge-conflict or merge-verify-failed records in
# history.jsonl) with conflict-awareness on is at most half of it off, and its median wall time
# within 10% of off's (at most 1.10x). Prints the runs, the medians and the ratios; exits 1
# when a target is missed. A timed test would be flaky on a shared machine; this is a script.
#
# Usage: scripts/bench-conflicts.sh [RUNS=3] [T=2]
set -euo pipefail
RUNS=${1:-3}
T=${2:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
# shellcheck source=scripts/bench-lib.sh
. "$here/scripts/bench-lib.sh"
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-$here/target}/release/ralph"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One fresh project per run: KIND is on or off. Prints "<wall ms> <send-backs>".
run_once() {
  local kind="$1" r="$2"
  local dir="$work/$kind-$r"
  python3 "$here/scripts/gen-conflicts.py" "$dir/proj" "$T"
  git -C "$dir/proj" init -q -b ralph/conflicts
  git -C "$dir/proj" config user.name b
  git -C "$dir/proj" config user.email b@example.com
  git -C "$dir/proj" add -A
  git -C "$dir/proj" commit -qm init
  local flag=()
  [ "$kind" = off ] && flag=(--conflict-threshold off)
  local start end code
  start=$(date +%s%N)
  set +e
  (cd "$dir/proj" && PATH="$dir/bin:$PATH" "$bin" run 30 --agent-cmd edit-agent --sleep 0 \
    --verify "sh check.sh" --no-compact --no-preflight --parallel 4 "${flag[@]}" >"$dir/log" 2>&1)
  code=$?
  set -e
  end=$(date +%s%N)
  if [ "$code" != 0 ]; then
    echo "$kind run $r: exit $code; see the log:" >&2
    tail -20 "$dir/log" >&2
    exit 1
  fi
  local sent
  sent=$(grep -c '"outcome":"merge-' "$dir/proj/.ralph/history.jsonl" || true)
  echo "$(( (end - start) / 1000000 )) $sent"
}

on_ms=() off_ms=() on_sb=() off_sb=()
for r in $(seq 1 "$RUNS"); do
  for kind in on off; do
    read -r ms sb < <(run_once "$kind" "$r")
    echo "$kind run $r: ${ms} ms, $sb send-back(s)"
    if [ "$kind" = on ]; then on_ms+=("$ms"); on_sb+=("$sb"); else off_ms+=("$ms"); off_sb+=("$sb"); fi
  done
done

python3 - "$(median "${on_ms[@]}")" "$(median "${off_ms[@]}")" "$(median "${on_sb[@]}")" "$(median "${off_sb[@]}")" "$T" <<'PY'
import sys
on_ms, off_ms, on_sb, off_sb, t = (float(x) for x in sys.argv[1:])
ratio = on_ms / off_ms
print(f"conflict-aware (default 0.5): median {on_ms:.0f} ms, {on_sb:g} send-back(s)")
print(f"off (--conflict-threshold off): median {off_ms:.0f} ms, {off_sb:g} send-back(s)")
print(f"send-backs {on_sb:g} vs {off_sb:g}: target at most half; wall {ratio:.3f}x off's: target <= 1.10")
print(f"(T = {t * 1000:.0f} ms; the plan's best case is 2 waves, 2T, plus merges)")
ok = on_sb * 2 <= off_sb and ratio <= 1.10
sys.exit(0 if ok else 1)
PY
