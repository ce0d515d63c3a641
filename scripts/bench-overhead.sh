#!/usr/bin/env bash
# scripts/bench-overhead.sh --polybench DIR [options] - lowering overhead on
# PolyBench/C 4.2.1 with the data in the buffer (issue 9, section 2): every
# kernel in mode=off, lower, Polly's own build, clo, dro-l and dro-wp, timed
# by PolyBench's kernel timer; writes bench/results/overhead.md, overhead.png
# and raw/overhead.json. DIR is an unpacked PolyBench/C 4.2.1 (not part of
# this repository). Options: see python3 -m bench.overhead.polybench --help
# (--size, --kernels, --modes, --reps, --buffer, --work).
set -euo pipefail
source "$(dirname "$0")/common.sh"
iopoly_ensure_packages "${IOPOLY_BENCH_PACKAGES[@]}"
iopoly_build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}"
cd "$IOPOLY_ROOT"
# The plot needs matplotlib: Debian's python3 has it (python3-matplotlib).
py=python3
python3 -c "import matplotlib" 2>/dev/null || { [ -x /usr/bin/python3 ] && py=/usr/bin/python3; }
exec "$py" -m bench.overhead.polybench --bin "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}/bin" "$@"
