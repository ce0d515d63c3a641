#!/usr/bin/env bash
# scripts/bench-polybench.sh <polybench-dir> [options] - PolyBench/C 4.2.1
# with every array disk-resident, in modes lower, clo, dro-l and dro-wp
# against the plain-memory build: MEDIUM and LARGE datasets, 4K and 64K
# stripes, the buffer at 1/2, 1/8 and 1/32 of each kernel's data, each run
# beside its floor (distinct stripes, Belady's MIN of its order). Writes
# bench/results/polybench.md, bench/results/polybench-*.png and
# bench/results/raw/polybench.json. The full matrix takes many hours on 2
# cores: --quick runs all 30 kernels at MEDIUM with 4K stripes and the three
# buffers; --kernels, --sizes, --stripes, --buffers, --modes choose a subset
# and --resume continues an interrupted run. PolyBench is not part of this
# repository: fetch PolyBench/C 4.2.1 and give its directory. The driver is
# bench/polybench/ (python3 -m bench.polybench --help).
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
if [ $# -lt 1 ] || [ "${1#-}" != "$1" ]; then
  echo "usage: scripts/bench-polybench.sh <polybench-4.2.1-dir> [--quick] [options]" >&2
  exit 2
fi
pb=$(cd "$1" && pwd)
shift
source "$(dirname "$0")/common.sh"
iopoly_ensure_packages "${IOPOLY_BENCH_PACKAGES[@]}"
iopoly_build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}"
py=$(iopoly_bench_python)
cd "$IOPOLY_ROOT"
exec "$py" -m bench.polybench "$pb" --build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}" "$@"
