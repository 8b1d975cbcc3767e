#!/usr/bin/env bash
# Benchmark the Pin (issue 6 targets):
#   1. `ralph pin generate --stdout` on a tree of ~5,000 real source files (crate sources copied
#      from the local cargo registry cache) vs `cat` of the same source files > /dev/null, measured
#      in the same run, interleaved. Target: within 2x.
#   2. `ralph pin search` (whole process: load, parse, index, rank) on a 5,000-entry Pin.
#      Target: under 20 ms.
# Prints the median of N runs (default 7) and the ratio.
#
# Usage: scripts/bench-pin.sh [RUNS]
# Needs: cargo, python3, a populated cargo registry cache (`cargo fetch`).
set -euo pipefail

runs="${1:-7}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/bench-lib.sh
. "$repo/scripts/bench-lib.sh"
target="${CARGO_TARGET_DIR:-$repo/target}"
cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
bin="$target/release/ralph"

tmp="$(mktemp -d)"
# BENCH_PIN_KEEP=1 keeps the generated tree and Pin (for profiling with callgrind).
if [ -n "${BENCH_PIN_KEEP:-}" ]; then
  echo "keeping data in $tmp"
else
  trap 'rm -rf "$tmp"' EXIT
fi
want=5000
src_find=( -type f \( -name '*.rs' -o -name '*.py' -o -name '*.js' -o -name '*.ts' -o -name '*.go'
  -o -name '*.java' -o -name '*.sh' -o -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.rb' \) )

# Copy whole crates until the tree holds about $want source files (a second pass if needed).
copy_crates "$tmp/tree" "$want" bench-pin.sh
(cd "$tmp/tree" && find . "${src_find[@]}" -print0 | sort -z) > "$tmp/files"
echo "tree: $count source files, $(du -sh "$tmp/tree" | cut -f1) in $tmp/tree"

python3 - "$runs" "$bin" "$tmp" <<'PY'
import os, random, statistics, subprocess, sys, time

runs, binary, tmp = int(sys.argv[1]), sys.argv[2], sys.argv[3]
tree = os.path.join(tmp, "tree")
null = subprocess.DEVNULL

def timed(cmd, **kw):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=null, **kw)
    return time.perf_counter() - t

cat_cmd = ["sh", "-c", f"cd '{tree}' && xargs -0 cat < '{tmp}/files' > /dev/null"]
gen_cmd = [binary, "--root", tree, "pin", "generate", "--stdout"]
timed(cat_cmd); timed(gen_cmd, stderr=null)  # warm the page cache
cat, gen = [], []
for _ in range(runs):
    cat.append(timed(cat_cmd))
    gen.append(timed(gen_cmd, stderr=null))
mc, mg = statistics.median(cat), statistics.median(gen)
print(f"cat of the source files:        median {mc * 1000:8.1f} ms  ({runs} runs)")
print(f"ralph pin generate --stdout:    median {mg * 1000:8.1f} ms  ({runs} runs)")
print(f"ratio generate / cat:           {mg / mc:8.2f}x   (target: <= 2x)")

# A 5,000-entry Pin made of real words: the keywords generate found in the tree.
out = subprocess.run(gen_cmd, check=True, capture_output=True, text=True).stdout
vocab = sorted({k.strip() for line in out.splitlines() if line.startswith("**Keywords**:")
                for k in line[len("**Keywords**:"):].split(",") if k.strip()})
rng = random.Random(6)
parts = ["# The Pin\n\n## Modules\n\n"]
for i in range(5000):
    kws = ", ".join(rng.sample(vocab, 15))
    files = "".join(f"- src/m{i}/{rng.choice(vocab)}_{j}.rs\n" for j in range(5))
    parts.append(f"### module {i}: {rng.choice(vocab)} {rng.choice(vocab)}\n**Keywords**: {kws}\n\n"
                 f"**File Paths**:\n{files}\n**Spec Link**: N/A\n\n---\n\n")
proj = os.path.join(tmp, "search")
os.makedirs(os.path.join(proj, "specs"))
with open(os.path.join(proj, "specs", "INDEX.md"), "w") as f:
    f.write("".join(parts))
query = " ".join(rng.sample(vocab, 4))
search_cmd = [binary, "--root", proj, "pin", "search", *query.split(), "--limit", "10"]
timed(search_cmd)
print("search command:", " ".join(search_cmd))
s = [timed(search_cmd) for _ in range(max(runs, 11))]
print(f"ralph pin search (5,000 entries, {os.path.getsize(os.path.join(proj, 'specs', 'INDEX.md')) // 1024} KiB): "
      f"median {statistics.median(s) * 1000:.1f} ms  (target: < 20 ms; query: {query})")
PY
