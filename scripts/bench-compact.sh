#!/usr/bin/env bash
# Benchmark `ralph compact --force` on a generated 1,000,000-line progress.txt.
#
# Target (issue 5): under 1 s, peak memory under 3x the file size.
# Builds --release, generates the log in a temp dir, runs the whole process RUNS times on a fresh
# copy each time, prints the median wall time and the median peak RSS (from /usr/bin/time -v)
# with its ratio to the file size.
#
# Usage: scripts/bench-compact.sh            (LINES=1000000 RUNS=5 SHAPE=real by default)
#        LINES=200000 RUNS=3 scripts/bench-compact.sh
#        SHAPE=worst scripts/bench-compact.sh  (every line a distinct learning starting with the
#                                               same two words: the near-duplicate worst case)
set -euo pipefail

LINES=${LINES:-1000000}
RUNS=${RUNS:-5}
SHAPE=${SHAPE:-real}
cd "$(dirname "$0")/.."
# shellcheck source=scripts/bench-lib.sh
. scripts/bench-lib.sh

cargo build --release --quiet
BIN="${CARGO_TARGET_DIR:-target}/release/ralph"
[ -x /usr/bin/time ] || { echo "error: /usr/bin/time (GNU time) is needed for peak memory" >&2; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# A realistic log: bash-Ralph header, a Codebase Patterns section, then entries like the real
# fixture (summary bullet, detail bullets, files changed, a Learnings list, `---`). Half of the
# learnings come from a shared pool (exact repeats and case/punctuation variants, as agents
# write them), half are specific to the story.
python3 - "$TMP/progress.txt" "$LINES" "$SHAPE" <<'PY'
import random, sys
path, target, shape = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = random.Random(5)
if shape == "worst":
    w = "alpha beta gamma delta epsilon zeta theta iota kappa lambda sigma omega".split()
    out = ["# Ralph Progress Log", "---"]
    i = 0
    while len(out) < target:
        i += 1
        out += [f"## 2026-01-01 - US-{i}", "- did it", "- **Learnings:**"]
        out += ["  - The agent must " + " ".join(rng.choice(w) for _ in range(7)) for _ in range(8)]
        out.append("---")
    with open(path, "w") as f:
        f.write("\n".join(out[:target]) + "\n")
    sys.exit(0)
words = ("parser cache index loop agent story graph prompt config schema writer reader "
         "token budget archive fixture branch commit retry timeout signal").split()
pool = [f"{rng.choice(words).capitalize()} {rng.choice(words)} must use the {rng.choice(words)} "
        f"helper, not a hand-written {rng.choice(words)} ({k})" for k in range(300)]
out = ["# Ralph Progress Log", "Started: Sat Jan 17 14:06:48 PST 2026", "---",
       "## Codebase Patterns", "- Use fsutil::atomic_write for every write",
       "- [PATTERN] errors name the file and the line", "---"]
i = 0
while len(out) < target:
    i += 1
    sid = f"US-{i:06d}"
    out.append(f"## 2026-{1 + i % 12:02d}-{1 + i % 28:02d} {i % 24:02d}:{i % 60:02d} - {sid}")
    out.append(f"- Implemented the {rng.choice(words)} {rng.choice(words)} for {sid}")
    for _ in range(rng.randint(2, 5)):
        out.append(f"- Added {rng.choice(words)} handling to src/{rng.choice(words)}.rs line {rng.randint(1, 900)}")
    out.append(f"- Files changed: src/{rng.choice(words)}.rs, tests/{rng.choice(words)}.rs")
    out.append("- **Learnings for future iterations:**")
    for _ in range(rng.randint(2, 4)):
        if rng.random() < 0.5:
            l = rng.choice(pool)
            if rng.random() < 0.3:
                l = l.lower().rstrip(")") + ")."
        else:
            l = f"{sid} needed {rng.choice(words)} before {rng.choice(words)} (took {rng.randint(1, 99)} tries)"
        out.append(f"  - {l}")
    if rng.random() < 0.1:
        out.append(f"- [GOTCHA] {rng.choice(words)} breaks when {rng.choice(words)} is empty")
    out.append("---")
with open(path, "w") as f:
    f.write("\n".join(out[:target]) + "\n")
PY

SIZE=$(stat -c %s "$TMP/progress.txt")
echo "input: $(wc -l < "$TMP/progress.txt") lines, $SIZE bytes"

times=()
rss=()
for run in $(seq "$RUNS"); do
  rm -rf "$TMP/p" && mkdir "$TMP/p" && cp "$TMP/progress.txt" "$TMP/p/"
  /usr/bin/time -v "$BIN" --root "$TMP/p" compact --force >"$TMP/out" 2>"$TMP/time"
  t=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(k=1;k<=n;k++) s=s*60+a[k]; print s}' "$TMP/time")
  m=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$TMP/time")
  times+=("$t"); rss+=("$m")
  echo "run $run: ${t}s, peak RSS ${m} KiB"
done
head -n1 "$TMP/out"
cmp -s "$TMP/progress.txt" "$TMP/p/.ralph/archive/"progress-*.txt && echo "archive: byte-identical"

mt=$(median "${times[@]}")
mr=$(median "${rss[@]}")
awk -v t="$mt" -v r="$mr" -v s="$SIZE" 'BEGIN {
  printf "median time: %.3f s (target < 1 s)\n", t
  printf "median peak RSS: %.1f MiB = %.2fx the file size of %.1f MiB (target < 3x)\n", r/1024, r*1024/s, s/1048576
}'
