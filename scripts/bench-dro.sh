#!/usr/bin/env bash
# scripts/bench-dro.sh - the disk-reuse restructuring benchmark (issue 4):
# every kernel of bench/kernels/ in modes lower, clo, dro-l and dro-wp;
# writes bench/results/dro.md, bench/results/dro-*.png and
# bench/results/raw/dro.json. About a quarter of an hour on 2 cores;
# --quick for a short run. The driver is bench/dro/ (python3 -m bench.dro
# --help for the options).
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
source "$(dirname "$0")/common.sh"
iopoly_ensure_packages "${IOPOLY_BENCH_PACKAGES[@]}"
iopoly_build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}"
py=$(iopoly_bench_python)
cd "$IOPOLY_ROOT"
exec "$py" -m bench.dro --build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}" "$@"
