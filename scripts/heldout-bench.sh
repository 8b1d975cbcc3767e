#!/usr/bin/env bash
# Context quality on both benchmark sets in one run: the shared context-bench (48 commits of eza, fzf, hono, rich)
# and the held-out set (scripts/heldout/cases.jsonl, 60 commits of five other repositories; never tuned on); on
# request the tuning set too (scripts/tuning/cases.jsonl, 150 commits of ten more, for deciding changes on).
#
# Each set goes through scripts/context-bench.sh (run.py behind the adapter that unwraps the JSON envelope); run.py
# prints its table per set, and a recap of both sets' overall numbers follows.
#
# Usage: scripts/heldout-bench.sh [BINARY] [run.py options...]
#   BINARY defaults to target/release/ralph (or $CARGO_TARGET_DIR/release/ralph).
#   MIRRORS      the folder holding every set's mirrors (`<owner>+<name>/repo`, as the `fetch` tool gives them).
#   SETS         which sets, in order (default "context heldout"; "tuning" is the third).
#   OUT_DIR      keep the per-case results as OUT_DIR/<set>.jsonl (default: a temporary folder, removed).
#   COMPARE_DIR  compare each set with COMPARE_DIR/<set>.jsonl (an earlier OUT_DIR): cases that changed.
# Example: MIRRORS=/work/.mirror OUT_DIR=/tmp/after COMPARE_DIR=/tmp/before scripts/heldout-bench.sh --verbose
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${CARGO_TARGET_DIR:-$repo/target}/release/ralph"
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then bin="$1"; shift; fi
[ -x "$bin" ] || { echo "heldout-bench.sh: no ralph binary at $bin (cargo build --release)" >&2; exit 2; }
[ -n "${MIRRORS:-}" ] && [ -d "$MIRRORS" ] || {
  echo "heldout-bench.sh: set MIRRORS to the folder of the mirrors (see scripts/heldout/README.md)" >&2; exit 2; }

cases_of() {
  case "$1" in
    context) echo "${CONTEXT_BENCH:-$repo/../shared/context-bench}/cases.jsonl" ;;
    heldout) echo "$repo/scripts/heldout/cases.jsonl" ;;
    tuning) echo "$repo/scripts/tuning/cases.jsonl" ;;
    *) echo "heldout-bench.sh: unknown set '$1' (context, heldout, tuning)" >&2; return 2 ;;
  esac
}

tmp=""
out_dir="${OUT_DIR:-}"
if [ -z "$out_dir" ]; then tmp="$(mktemp -d)"; out_dir="$tmp"; fi
trap '[ -z "$tmp" ] || rm -rf "$tmp"' EXIT
mkdir -p "$out_dir"

sets=(${SETS:-context heldout})
for set in "${sets[@]}"; do
  cases="$(cases_of "$set")"
  [ -f "$cases" ] || { echo "heldout-bench.sh: no $cases" >&2; exit 2; }
  compare=()
  if [ -n "${COMPARE_DIR:-}" ] && [ -f "$COMPARE_DIR/$set.jsonl" ]; then compare=(--compare "$COMPARE_DIR/$set.jsonl"); fi
  echo "=== $set: $cases"
  "$repo/scripts/context-bench.sh" "$bin" --cases "$cases" --mirrors "$MIRRORS" --out "$out_dir/$set.jsonl" \
    ${compare[@]+"${compare[@]}"} "$@"
  echo
done

echo "=== both sets (means over cases; BM25 = BM25 over file text; tokens = median prompt chars/4)"
python3 - "$out_dir" "${sets[@]}" <<'PY'
import json, statistics, sys
out, sets = sys.argv[1], sys.argv[2:]
print(f"{'set':<8} {'n':>3} {'err':>3} | {'ralph R@5':>9} {'R@10':>5} {'R@20':>5} | {'BM25 R@5':>8} {'R@10':>5} {'R@20':>5} | {'tokens':>6}")
for s in sets:
    rows = [json.loads(l) for l in open(f"{out}/{s}.jsonl") if l.strip()]
    def mean(f):
        return sum(f(r) for r in rows) / len(rows)
    r = [mean(lambda x, k=k: x["recall"][k] if "recall" in x else 0.0) for k in ("5", "10", "20")]
    b = [mean(lambda x, k=k: x["baselines"]["bm25_files"]["recall"][k] if "baselines" in x else 0.0) for k in ("5", "10", "20")]
    tok = statistics.median([x["prompt_tokens"] for x in rows if "prompt_tokens" in x] or [0])
    err = sum(1 for x in rows if "recall" not in x)
    print(f"{s:<8} {len(rows):>3} {err:>3} | {r[0]:>9.2f} {r[1]:>5.2f} {r[2]:>5.2f} | {b[0]:>8.2f} {b[1]:>5.2f} {b[2]:>5.2f} | {tok:>6.0f}")
PY
[ -n "$tmp" ] || echo "per-case results: $out_dir/<set>.jsonl"
