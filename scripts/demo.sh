#!/usr/bin/env bash
# scripts/demo.sh - the README's first command.
#
# Installs what is missing (apt), builds iopoly, then compiles the example
# kernels of bench/kernels/ in every mode the plugin offers and runs them on
# the embedded default: 8 disk directories under a temporary directory,
# 64 KiB stripes, the buffer at 1/8 of each kernel's data, the hdd disk
# model. Prints one table: kernel, mode, stripe fetches, fetches per block,
# modeled I/O seconds, wall seconds, output checksum (identical across modes).
# A run that takes longer than 60 s (a mode thrashing a buffer of 1/8 of the
# data with real I/O) is stopped and shown as such.
# Extra arguments go to scripts/run-kernels.py (e.g. --kernels transpose).
set -euo pipefail
source "$(dirname "$0")/common.sh"
iopoly_ensure_packages
iopoly_build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}"
say "running the example kernels in every mode (progress below; a few minutes)"
exec python3 "$IOPOLY_ROOT/scripts/run-kernels.py" --build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}" \
  --modes "${IOPOLY_DEMO_MODES:-off,lower,clo,dro-l,dro-wp}" --run-timeout 60 --buffer-fraction 0.125 --stripe 64K --disks 8 --model hdd "$@"
