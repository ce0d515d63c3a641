#!/usr/bin/env bash
# scripts/bench-dro.sh - the disk-reuse restructuring benchmark (issue 4):
# every kernel of bench/kernels/ in modes lower, clo, dro-l and dro-wp;
# writes bench/results/dro.md, bench/results/dro-*.png and
# bench/results/raw/dro.json. About a quarter of an hour on 2 cores;
# --quick for a short run. Options go to bench_dro.py (--help).
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
source "$(dirname "$0")/common.sh"
iopoly_ensure_packages "${IOPOLY_BENCH_PACKAGES[@]}"
iopoly_build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}"
# The plots need matplotlib: Debian's python3-matplotlib is for /usr/bin/python3,
# which may not be the python3 first on PATH.
py=python3
for c in python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
exec "$py" "$IOPOLY_ROOT/scripts/bench_dro.py" --build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}" "$@"
