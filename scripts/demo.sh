#!/usr/bin/env bash
# scripts/demo.sh - the README's first command.
#
# Installs what is missing (apt), builds iopoly, then compiles the example
# kernels of bench/kernels/ in every mode the plugin offers and runs them on
# the embedded default: 8 disk directories under a temporary directory,
# 64 KiB stripes, the buffer at 1/8 of each kernel's data, the hdd disk
# model. Prints one table: kernel, mode, stripe fetches, fetches per block,
# modeled I/O seconds, wall seconds, output checksum (identical across modes).
# Extra arguments go to scripts/run-kernels.py (e.g. --kernels transpose).
set -euo pipefail
source "$(dirname "$0")/common.sh"
iopoly_ensure_packages
iopoly_build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}"
say "running the example kernels (progress below; about a minute or two)"
exec python3 "$IOPOLY_ROOT/scripts/run-kernels.py" --build "${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}" \
  --modes "${IOPOLY_DEMO_MODES:-off,lower}" --buffer-fraction 0.125 --stripe 64K --disks 8 --model hdd "$@"
