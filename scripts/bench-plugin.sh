#!/usr/bin/env bash
# scripts/bench-plugin.sh - overhead of lowering and compile time (issue 3,
# section 7); writes bench/results/plugin.md. Options go to bench_plugin.py.
set -euo pipefail
source "$(dirname "$0")/common.sh"
iopoly_ensure_packages
iopoly_build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}"
exec python3 "$IOPOLY_ROOT/scripts/bench_plugin.py" --build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}" "$@"
