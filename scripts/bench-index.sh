#!/usr/bin/env bash
# Benchmark the index behind the Pin and "where to look" (issue 26 targets), on trees of real
# source files copied from the local cargo registry cache (crates copied again under another
# folder when the cache holds fewer files than wanted), each made a git repository so co-change
# is read too. For each tree size, in one run, interleaved where it matters:
#   1. `cat` of the tracked files > /dev/null (the bar);
#   2. cold `ralph pin generate` (no index cache: the Pin and the index built), as a ratio of cat.
#      Targets: <= 3x cat at 5k files, <= 2x at 35k;
#   3. `ralph context B-1` with a warm index. Targets: <= 50 ms at 5k files, <= 100 ms at 35k;
#   4. `ralph context B-1` right after an iteration that changed 20 files and committed them
#      (the index brought up to date, HEAD moved, then the prompt). Target: the refresh <= 100 ms
#      at 35k, so this whole command <= 100 ms + what (3) leaves.
# Prints medians of RUNS runs (default 7) per tree and the ratios.
#
# Usage: scripts/bench-index.sh [RUNS]        (BENCH_SIZES="5000 35000" by default)
#        BENCH_INDEX_KEEP=1 keeps the trees (printed) for profiling.
# Needs: cargo, python3, git, a populated cargo registry cache (`cargo fetch`).
set -euo pipefail

runs="${1:-7}"
sizes="${BENCH_SIZES:-5000 35000}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/bench-lib.sh
. "$repo/scripts/bench-lib.sh"
target="${CARGO_TARGET_DIR:-$repo/target}"
cargo build --release --quiet --manifest-path "$repo/Cargo.toml"
bin="${RALPH:-$target/release/ralph}"

tmp="$(mktemp -d)"
if [ -n "${BENCH_INDEX_KEEP:-}" ]; then
  echo "keeping the trees in $tmp"
else
  trap 'rm -rf "$tmp"' EXIT
fi
src_find=( -type f \( -name '*.rs' -o -name '*.py' -o -name '*.c' -o -name '*.h' -o -name '*.js'
  -o -name '*.ts' -o -name '*.go' -o -name '*.java' -o -name '*.sh' -o -name '*.cpp' \) )

echo "ralph: $bin ($(git -C "$repo" rev-parse --short HEAD)); $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
for want in $sizes; do
  proj="$tmp/proj-$want"
  copy_crates "$proj" "$want" bench-index.sh
  (
    cd "$proj"
    # Crates ship .gitignore files that would hide their own sources; the bench indexes them all.
    find . -name .gitignore -delete
    git init -q && git add -A && git -c user.email=b@e -c user.name=bench commit -qm tree
    cat > prd.json <<'JSON'
{"project": "Bench", "branchName": "bench/index", "description": "bench",
 "userStories": [{"id": "B-1", "title": "Parse a configuration value from an environment variable",
   "description": "Read the value, report an error with its position when it does not parse.",
   "acceptanceCriteria": [], "priority": 1, "passes": false, "notes": ""}]}
JSON
  )
  echo
  echo "tree: $count source files ($pass pass(es) over the cargo registry cache), $(du -sh "$proj" | cut -f1)"
  python3 - "$runs" "$bin" "$proj" "$want" <<'PY'
import os, resource, statistics, subprocess, sys, time

runs, binary, proj, want = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
null = subprocess.DEVNULL

cpu = {}
def timed(cmd, **kw):
    """Wall time of one run; its CPU time (user + system, children included) is added to
    cpu[name of the command]: a loaded machine stretches the wall time, not the CPU time."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=null, stderr=null, cwd=proj, **kw)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.setdefault(" ".join(cmd), []).append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return wall

cache = os.path.join(proj, ".ralph", "code-index.bin")
def drop_cache():
    if os.path.exists(cache):
        os.remove(cache)

tracked = subprocess.run(["git", "-C", proj, "ls-files"], capture_output=True, text=True,
                         check=True).stdout.split("\n")
sources = [p for p in tracked if p.endswith((".rs", ".py", ".go", ".ts", ".js", ".c"))]
step = [0]
def iteration():
    """What an iteration leaves: 20 source files changed, committed."""
    for i in range(20):
        p = sources[(step[0] * 20 + i) % len(sources)]
        with open(os.path.join(proj, p), "a") as f:
            f.write(f"\n// changed by iteration {step[0]}\n")
    step[0] += 1
    subprocess.run(["git", "-C", proj, "commit", "-qam", f"iteration {step[0]}"], check=True)

cat = ["sh", "-c", "git ls-files -z | xargs -0 cat > /dev/null"]
gen = [binary, "pin", "generate"]
ctx = [binary, "context", "B-1"]
os.sync()  # the copy's write-back would otherwise run during the first timings
timed(cat); timed(gen); timed(ctx)  # warm the page cache, write the Pin and the index
cpu.clear()
mc, mg = [], []
for _ in range(runs):  # interleaved: the machine's load hits both alike
    mc.append(timed(cat))
    drop_cache()
    mg.append(timed(gen))
timed(ctx)
mx = [timed(ctx) for _ in range(runs)]
mi = []
for _ in range(runs):
    iteration()
    mi.append(timed(ctx))
mc, mg, mx, mi = (statistics.median(v) for v in (mc, mg, mx, mi))
# CPU medians: cat's runs, the cold builds, then warm and after-iteration contexts (in order).
cc = statistics.median(cpu[" ".join(cat)])
cg = statistics.median(cpu[" ".join(gen)])
ctx_cpu = cpu[" ".join(ctx)]
cx, ci = statistics.median(ctx_cpu[1:runs + 1]), statistics.median(ctx_cpu[runs + 1:])
goal_gen, goal_ctx = (3, 50) if want <= 5000 else (2, 100)
print(f"{'median of ' + str(runs) + ' runs':42} {'wall':>9} {'cpu':>9}")
print(f"{'cat of the tracked files':42} {mc * 1000:6.1f} ms {cc * 1000:6.1f} ms")
print(f"{'pin generate, cold (Pin + index)':42} {mg * 1000:6.1f} ms {cg * 1000:6.1f} ms"
      f"  {mg / mc:5.2f}x cat (target <= {goal_gen}x)")
print(f"{'context, warm index':42} {mx * 1000:6.1f} ms {cx * 1000:6.1f} ms  (target <= {goal_ctx} ms)")
print(f"{'context after 20 files changed, committed':42} {mi * 1000:6.1f} ms {ci * 1000:6.1f} ms"
      f"  (refresh + prompt; refresh target <= 100 ms at 35k)")
PY
done
