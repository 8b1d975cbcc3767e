#!/usr/bin/env bash
# Benchmark: `ralph context <id>` (whole process) with a 5,000-entry Pin (and 5,000 spec files)
# and a 100,000-line progress.txt; the story has three blockers.
# Target (issue 4): median under 50 ms.   Usage: scripts/bench-context.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-21}
cargo build --release --quiet
bin="${CARGO_TARGET_DIR:-target}/release/ralph"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 scripts/gen-context-bench.py "$tmp" --entries 5000 --progress-lines 100000
echo "progress.txt: $(wc -l <"$tmp/progress.txt") lines, $(du -h "$tmp/progress.txt" | cut -f1); INDEX.md: $(du -h "$tmp/specs/INDEX.md" | cut -f1)"
"$bin" --root "$tmp" context US-0100 --explain | head -4
"$bin" --root "$tmp" context US-0100 >/dev/null
python3 scripts/median.py "$runs" "$bin" --root "$tmp" context US-0100
