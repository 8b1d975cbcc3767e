#!/usr/bin/env bash
# Render `ralph report --format html` to a PNG with headless Chromium, to look at the page as a
# person would. Not run by CI.
#
#   scripts/render-report.sh [OUT.png] [HISTORY.jsonl | PROJECT_DIR] [-- extra ralph report args]
#
# Defaults: target/report.png, the fixture tests/fixtures/history/history.jsonl. A project
# directory means its .ralph/history.jsonl. Needs chromium (Debian: apt-get install chromium)
# or set CHROMIUM=/path/to/chrome. Prints the paths of the HTML and the PNG.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$here/target/report.png}"
src="${2:-$here/tests/fixtures/history/history.jsonl}"
shift $(( $# > 2 ? 2 : $# ))
[ "${1:-}" = "--" ] && shift
if [ -d "$src" ]; then src="$src/.ralph/history.jsonl"; fi
[ -f "$src" ] || { echo "render-report: no history at $src" >&2; exit 1; }

chromium="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}"
[ -n "$chromium" ] || { echo "render-report: chromium not found (apt-get install chromium, or set CHROMIUM)" >&2; exit 1; }

(cd "$here" && cargo build --quiet --locked)
target="${CARGO_TARGET_DIR:-$here/target}"
mkdir -p "$(dirname "$out")"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
html="${out%.png}.html"
"$target/debug/ralph" report --format html --history "$src" --out "$html" "$@"

# A throwaway profile: nothing of the user's browser is read or written.
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
"$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
  --hide-scrollbars --screenshot="$out" --window-size="${WINDOW_SIZE:-1200,800}" \
  "file://$html" >/dev/null 2>&1
[ -s "$out" ] || { echo "render-report: chromium wrote no screenshot" >&2; exit 1; }
echo "$html"
echo "$out"
