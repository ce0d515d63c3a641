#!/usr/bin/env bash
# scripts/bench-threads.sh - locality sets on threads (paper 1, section 5,
# issue 12): the G and naive policies against the single-thread order at
# 1/2/4/8 threads, buffers of 1/8 and 1/32 of the data, hdd and ssd models;
# writes bench/results/threads.md and bench/results/raw/threads.json. About
# 30 minutes on 2 cores, the bench kernels included (threads=on and the
# Polly-OpenMP baseline, medians of 3 runs; --no-omp skips them); --quick
# for a short run. The driver is
# bench/threads/ (python3 -m bench.threads --help for the options).
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
source "$(dirname "$0")/common.sh"
iopoly_build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}"
cd "$IOPOLY_ROOT"
exec python3 -m bench.threads --build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}" "$@"
