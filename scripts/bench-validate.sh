#!/usr/bin/env bash
# Benchmark: `ralph validate` (whole process) on a generated 10,000-story prd.json with a dense blockedBy DAG.
# Target (issue 2): median under 100 ms.   Usage: scripts/bench-validate.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-21}
cargo build --release --quiet
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 scripts/gen-prd.py 10000 "$tmp/prd.json" --deps 8
edges=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(s.get('blockedBy',[])) for s in d['userStories']))" "$tmp/prd.json")
echo "prd.json: 10000 stories, $edges blockedBy edges, $(du -h "$tmp/prd.json" | cut -f1)"
./target/release/ralph validate --prd "$tmp/prd.json" >/dev/null
python3 scripts/median.py "$runs" ./target/release/ralph validate --prd "$tmp/prd.json"
