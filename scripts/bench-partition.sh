#!/usr/bin/env bash
# scripts/bench-partition.sh - profile-guided file partitioning (paper 4):
# five workloads at 4, 8 and 16 ranks, central MPI-IO against the partition
# layer, on the modeled cluster; writes bench/results/partition.md, the
# partition-*.png plots and bench/results/raw/partition.json. A few minutes
# on 2 cores; --quick for a smaller run. Options go to
# bench/partition/bench_partition.py (--help).
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
source "$(dirname "$0")/common.sh"
iopoly_ensure_packages "${IOPOLY_BENCH_PACKAGES[@]}"
build=${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}
iopoly_build "$build"
py=python3
for c in python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
exec "$py" "$IOPOLY_ROOT/bench/partition/bench_partition.py" --build "$build" "$@"
