#!/usr/bin/env bash
# Regenerate specs/INDEX.md (the Pin) from the source tree: a thin wrapper around
# `ralph pin generate` for scripts, hooks and people used to the bash Ralph's script name.
#
# Usage: scripts/generate-pin.sh [--check | --stdout] [--root DIR]
#   --check   write nothing; exit 1 and print a diff when the Pin is out of date
#   --stdout  print the new Pin instead of writing it
# Uses $RALPH, else `ralph` on PATH, else builds this checkout with cargo.
set -euo pipefail

if [ -n "${RALPH:-}" ]; then
  exec "$RALPH" pin generate "$@"
fi
if command -v ralph >/dev/null 2>&1; then
  exec ralph pin generate "$@"
fi
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -f "$repo/Cargo.toml" ] && grep -q '^name = "ralph"' "$repo/Cargo.toml"; then
  exec cargo run --quiet --release --manifest-path "$repo/Cargo.toml" -- pin generate "$@"
fi
echo "generate-pin.sh: ralph not found; install it (cargo install --path .) or set RALPH=/path/to/ralph" >&2
exit 1
