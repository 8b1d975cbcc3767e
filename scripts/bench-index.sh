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
#        RALPH=<binary> times that binary instead of building this checkout's.
#        RALPH_BASE=<binary> compares with another build on the same trees: every timed step
#          runs both, one after the other, so a shared machine's load swings hit both alike;
#          each keeps its own index cache (their formats may differ). Prints both, and the
#          ratio of their medians (below 1: this build is faster).
#        BENCH_INDEX_KEEP=1 keeps the trees (printed) for profiling.
#        BENCH_FETCH=1 first fills the cargo registry cache from crates.io (`fetch_crates` in
#          scripts/bench-lib.sh: 1.2 GB, once), so the 35k tree holds 35,000 distinct files;
#          without it a small cache is copied several times (a warning says so).
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

[ -n "${BENCH_FETCH:-}" ] && fetch_crates
tmp="$(mktemp -d)"
if [ -n "${BENCH_INDEX_KEEP:-}" ]; then
  echo "keeping the trees in $tmp"
else
  trap 'rm -rf "$tmp"' EXIT
fi
src_find=( -type f \( -name '*.rs' -o -name '*.py' -o -name '*.c' -o -name '*.h' -o -name '*.js'
  -o -name '*.ts' -o -name '*.go' -o -name '*.java' -o -name '*.sh' -o -name '*.cpp' \) )

base="${RALPH_BASE:-}"
echo "ralph: $bin ($(git -C "$repo" rev-parse --short HEAD))${base:+, against $base}; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
for want in $sizes; do
  proj="$tmp/proj-$want"
  copy_crates "$proj" "$want" bench-index.sh
  (
    cd "$proj"
    # Crates ship .gitignore files that would hide their own sources; the bench indexes them all.
    find . -name .gitignore -delete
    # No automatic `git gc`: after the first commit of tens of thousands of loose objects git
    # packs them in the background for a minute or more, on the cores the timings below use
    # (it had made the 35k cold build read 5.5 s instead of 3.2 s).
    git init -q && git config gc.auto 0 && git config maintenance.auto false
    git add -A && git -c user.email=b@e -c user.name=bench commit -qm tree
    cat > prd.json <<'JSON'
{"project": "Bench", "branchName": "bench/index", "description": "bench",
 "userStories": [{"id": "B-1", "title": "Parse a configuration value from an environment variable",
   "description": "Read the value, report an error with its position when it does not parse.",
   "acceptanceCriteria": [], "priority": 1, "passes": false, "notes": ""}]}
JSON
  )
  echo
  echo "tree: $count source files ($pass pass(es) over the cargo registry cache), $(du -sh "$proj" | cut -f1)"
  python3 - "$runs" "$proj" "$want" "$bin" ${base:+"$base"} <<'PY'
import os, resource, statistics, subprocess, sys, time

runs, proj, want, bins = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4:]
null = subprocess.DEVNULL

def timed(cmd):
    """Wall and CPU time (user + system, children included) of one run: a loaded machine
    stretches the wall time, not the CPU time."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=null, stderr=null, cwd=proj)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime

ralph = os.path.join(proj, ".ralph")
cache = os.path.join(ralph, "code-index.bin")
def drop_cache():
    if os.path.exists(cache):
        os.remove(cache)

# Each binary's own .ralph (index cache) is moved in place before it runs.
kept = {b: os.path.join(proj, f".ralph-bench-{i}") for i, b in enumerate(bins)}
current = [bins[0]]
def use(b):
    if current[0] == b:
        return
    # The swap is no change to the project: the folder's time is put back, or every run
    # after it would re-list the folder and save the walk's cache (as after a file came or
    # went), and "warm" would not be warm.
    st = os.stat(proj)
    if os.path.exists(ralph):
        os.rename(ralph, kept[current[0]])
    if os.path.exists(kept[b]):
        os.rename(kept[b], ralph)
    os.utime(proj, ns=(st.st_atime_ns, st.st_mtime_ns))
    current[0] = b

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
gen = lambda b: [b, "pin", "generate"]
ctx = lambda b: [b, "context", "B-1"]
os.sync()  # the copy's write-back would otherwise run during the first timings
timed(cat)
for b in bins:  # warm the page cache, write the Pin and each binary's index
    use(b); timed(gen(b)); timed(ctx(b))
# Interleaved, the machine's load hits all alike; two binaries take turns going first, so
# neither always runs right after `cat` or after the other's write.
turns = lambda r: bins if r % 2 == 0 else bins[::-1]
mc, mg, mx, mi = [], {b: [] for b in bins}, {b: [] for b in bins}, {b: [] for b in bins}
for r in range(runs):
    mc.append(timed(cat))
    for b in turns(r):
        use(b); drop_cache(); mg[b].append(timed(gen(b)))
for b in bins:
    use(b); timed(ctx(b))
for r in range(runs):
    for b in turns(r):
        use(b); mx[b].append(timed(ctx(b)))
for r in range(runs):
    iteration()  # each binary's index was current before it: both see the same 20 changes
    for b in turns(r):
        use(b); mi[b].append(timed(ctx(b)))
use(bins[0])
for b in bins[1:]:
    subprocess.run(["rm", "-rf", kept[b]], check=True)

med = lambda v: tuple(statistics.median(x[k] for x in v) for k in (0, 1))
goal_gen, goal_ctx = (3, 50) if want <= 5000 else (2, 100)
(cw, cc) = med(mc)
print(f"{'median of ' + str(runs) + ' runs':42} {'wall':>9} {'cpu':>9}")
print(f"{'cat of the tracked files':42} {cw * 1000:6.1f} ms {cc * 1000:6.1f} ms")
for i, b in enumerate(bins):
    if len(bins) > 1:
        print(f"{('this', 'base')[i]}: {b}")
    (gw, gc), (xw, xc), (iw, ic) = med(mg[b]), med(mx[b]), med(mi[b])
    print(f"{'pin generate, cold (Pin + index)':42} {gw * 1000:6.1f} ms {gc * 1000:6.1f} ms"
          f"  {gw / cw:5.2f}x cat (target <= {goal_gen}x)")
    print(f"{'context, warm index':42} {xw * 1000:6.1f} ms {xc * 1000:6.1f} ms  (target <= {goal_ctx} ms)")
    print(f"{'context after 20 files changed, committed':42} {iw * 1000:6.1f} ms {ic * 1000:6.1f} ms"
          f"  (refresh + prompt; refresh target <= 100 ms at 35k)")
if len(bins) > 1:
    this, base = bins
    ratio = lambda m, k: statistics.median(x[k] for x in m[this]) / statistics.median(x[k] for x in m[base])
    print("this/base, wall (cpu): " + ", ".join(
        f"{name} {ratio(m, 0):.3f} ({ratio(m, 1):.3f})"
        for name, m in (("cold", mg), ("warm", mx), ("after 20", mi))))
PY
done
