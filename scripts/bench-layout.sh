#!/usr/bin/env bash
# scripts/bench-layout.sh - the file layout benchmark (issue 10, paper 1,
# section 4): the transposed walk (1024x1024 doubles) and the six kernels
# of bench/kernels (64 KiB stripes, 8 disks, buffer 1/8 of the data) in
# modes lower, clo and dro-wp with the layout choice off and on; writes
# bench/results/layout.md and
# bench/results/raw/layout.json. A few minutes on 2 cores; --quick for
# 512x512. The driver is bench/layout/ (python3 -m bench.layout --help).
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
source "$(dirname "$0")/common.sh"
iopoly_ensure_packages
iopoly_build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}"
py=$(iopoly_bench_python)
cd "$IOPOLY_ROOT"
exec "$py" -m bench.layout --build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}" "$@"
