#!/usr/bin/env bash
# Benchmark the code index behind "where to look" (issue 12 targets):
#   1. `ralph context` with a warm index on a tree of ~5,000 real source files (crate sources
#      copied from the local cargo registry cache, made a git repository so co-change is read
#      too). Target: median under 50 ms.
#   2. the cold build of the index (`ralph pin generate` with no cache) and `pin generate
#      --stdout` (the Pin alone), each against `cat` of the same files, measured in the same run.
# Prints medians of N runs (default 7).
#
# Usage: scripts/bench-index.sh [RUNS]
# Needs: cargo, python3, git, a populated cargo registry cache (`cargo fetch`).
set -euo pipefail

runs="${1:-7}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/bench-lib.sh
. "$repo/scripts/bench-lib.sh"
target="${CARGO_TARGET_DIR:-$repo/target}"
cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
bin="$target/release/ralph"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
want=5000
src_find=( -type f \( -name '*.rs' -o -name '*.py' -o -name '*.c' -o -name '*.h' -o -name '*.js'
  -o -name '*.ts' -o -name '*.go' -o -name '*.java' -o -name '*.sh' -o -name '*.cpp' \) )
# Copy whole crates until the tree holds $want source files; when the cache holds fewer, a
# second pass copies them again under another folder (same files, separate paths).
copy_crates "$tmp/proj" "$want" bench-index.sh

cd "$tmp/proj"
# Crates ship .gitignore files that would hide their own sources; the bench indexes them all.
find . -name .gitignore -delete
git init -q && git add -A && git -c user.email=b@e -c user.name=bench commit -qm tree
cat > prd.json <<'JSON'
{"project": "Bench", "branchName": "bench/index", "description": "bench",
 "userStories": [{"id": "B-1", "title": "Parse a configuration value from an environment variable",
   "description": "Read the value, report an error with its position when it does not parse.",
   "acceptanceCriteria": [], "priority": 1, "passes": false, "notes": ""}]}
JSON
echo "tree: $count source files ($pass pass(es) over the cargo registry cache), $(du -sh . | cut -f1)"

python3 - "$runs" "$bin" "$tmp/proj" <<'PY'
import os, statistics, subprocess, sys, time

runs, binary, proj = int(sys.argv[1]), sys.argv[2], sys.argv[3]
null = subprocess.DEVNULL
files = subprocess.run(["git", "-C", proj, "ls-files", "-z"], capture_output=True, check=True).stdout

def timed(cmd, **kw):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=null, stderr=null, cwd=proj, **kw)
    return time.perf_counter() - t

def median(cmd, before=None, **kw):
    out = []
    for _ in range(runs):
        if before:
            before()
        out.append(timed(cmd, **kw))
    return statistics.median(out)

cache = os.path.join(proj, ".ralph", "code-index.bin")
def drop_cache():
    if os.path.exists(cache):
        os.remove(cache)

cat = ["sh", "-c", "git ls-files -z | xargs -0 cat > /dev/null"]
timed(cat); timed([binary, "pin", "generate"])  # warm the page cache and the index
mc = median(cat)
mp = median([binary, "pin", "generate", "--stdout"])
mg = median([binary, "pin", "generate"], before=drop_cache)
timed([binary, "context", "B-1"])
mx = median([binary, "context", "B-1"])
print(f"cat of the tracked files:                  median {mc * 1000:8.1f} ms")
print(f"pin generate --stdout (the Pin alone):     median {mp * 1000:8.1f} ms  ({mp / mc:.2f}x cat)")
print(f"pin generate, no cache (Pin + code index): median {mg * 1000:8.1f} ms  ({mg / mc:.2f}x cat)")
print(f"context with a warm index:                 median {mx * 1000:8.1f} ms  (target: < 50 ms)")
PY
