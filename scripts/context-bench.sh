#!/usr/bin/env bash
# Run the shared context benchmark (../shared/context-bench/run.py) on a ralph binary.
#
# run.py reads `prompt`, `tokens`, `keywords` and `pins` at the top level of `ralph context --json`;
# since the JSON envelope (schema_version 2) they are under `data`. Until run.py reads the
# envelope, this puts a small adapter in front of ralph that unwraps `data` for `context --json`
# and passes every other command straight through. The adapter adds a Python start-up (~20-40 ms)
# to the `ctx ms` column; the recall columns are unaffected.
#
# Usage: scripts/context-bench.sh [BINARY] [run.py options...]
#   BINARY defaults to target/release/ralph (or $CARGO_TARGET_DIR/release/ralph).
#   MIRRORS must name the folder holding the four mirrors (see the bench's README).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench="${CONTEXT_BENCH:-$repo/../shared/context-bench}"
bin="${1:-${CARGO_TARGET_DIR:-$repo/target}/release/ralph}"
[ $# -gt 0 ] && shift
[ -x "$bin" ] || { echo "context-bench.sh: no ralph binary at $bin (cargo build --release)" >&2; exit 2; }
[ -f "$bench/run.py" ] || { echo "context-bench.sh: no $bench/run.py (set CONTEXT_BENCH)" >&2; exit 2; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/ralph" <<PY
#!/usr/bin/env python3
import json, os, subprocess, sys
args = sys.argv[1:]
if args[:1] != ["context"] or "--json" not in args:
    os.execv("$(realpath "$bin")", ["ralph"] + args)
out = subprocess.run(["$(realpath "$bin")"] + args, capture_output=True, text=True)
sys.stderr.write(out.stderr)
try:
    o = json.loads(out.stdout)
    print(json.dumps(o["data"] if isinstance(o, dict) and "data" in o else o))
except ValueError:
    sys.stdout.write(out.stdout)
sys.exit(out.returncode)
PY
chmod +x "$tmp/ralph"
python3 "$bench/run.py" --ralph "$tmp/ralph" "$@"
