#!/usr/bin/env bash
# scripts/bench-mapping.sh - the iteration-to-rank mapping benchmark
# (paper 2; bench/mapping/): every kernel of bench/mapping/kernels in the
# mappings block, intra, cache and cache+local, on 8/4/2 nodes with real
# cache servers and on 64/32/16 nodes simulated by iopoly-cachesim; writes
# bench/results/mapping.md, bench/results/mapping-*.png and
# bench/results/raw/mapping.json. Options go to bench/mapping/bench.py
# (--help); --quick runs three kernels.
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
source "$(dirname "$0")/common.sh"
iopoly_ensure_packages "${IOPOLY_BENCH_PACKAGES[@]}"
iopoly_build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}"
py=python3
for c in python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
cd "$IOPOLY_ROOT"
exec "$py" -m bench.mapping.bench --build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}" "$@"
