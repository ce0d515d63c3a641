#!/usr/bin/env bash
# scripts/bench-knowac.sh - the KNOWAC benchmark (issue 14, paper 5): pgea
# over netCDF inputs on a modeled disk, without KNOWAC, learning, and
# prefetching, on 1 and 4 ranks; other inputs, operations and compute
# intensities; the overhead when nothing is read ahead. Writes
# bench/results/knowac.md, bench/results/knowac-*.png and
# bench/results/raw/knowac.json. A few minutes on 2 cores; --quick for a
# short run. Options go to bench/knowac/bench_knowac.py (--help).
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
source "$(dirname "$0")/common.sh"
iopoly_ensure_packages "${IOPOLY_BENCH_PACKAGES[@]}"
dir=${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}
if [ -f "$dir/build.ninja" ]; then
  say "building the benchmark's targets in $dir"
  cmake --build "$dir" --target pgea knowac-gen knowac_slowdisk iopoly_knowac -- -j"$(nproc)"
else
  iopoly_build "$dir"
fi
# The plots need matplotlib: Debian's python3-matplotlib is for /usr/bin/python3,
# which may not be the python3 first on PATH.
py=python3
for c in python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
exec "$py" "$IOPOLY_ROOT/bench/knowac/bench_knowac.py" --build "$dir" "$@"
