#!/usr/bin/env bash
# read_ahead.sh KERNEL_DIR - a data-tiled walk that reads an array stripe
# after stripe inside its units gets ahead of itself (read-ahead per stream,
# runtime/lowered/TileWalk.h), so its fetches wait in the queues of all the
# disks at once. Before, only a walk entering the next unit hinted it:
# multisweep at 4 KiB stripes and a buffer of 576 KiB waited for 0.66 of
# its disks' busy time, reductions at 64 KiB and 1 MiB for 0.98 (hdd
# model). Polly's tiles read ahead along their rows too, where their model
# can spare the room (runtime/lowered/TileVersions.cpp): read-ahead/twomm.c
# at 128 KiB waited for 0.75 of its disks' busy time without. Checks, on
# the hdd model with 8 disks: same output as mode=off, modeled I/O at most
# 0.4, 0.7 and 0.5 of the disks' busy time.
# Environment: IOPOLY_BIN (build/bin), WORK (scratch dir).
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
kernels=$1
work=${WORK:?}/read-ahead
rm -rf "$work" && mkdir -p "$work"
check() { # SOURCE STRIPE BUFFER MAX_SHARE
  local k
  k=$(basename "$1" .c)
  "$IOPOLY_BIN/iopoly-clang" -O2 -I"$kernels" "$1" -fplugin-arg-iopoly-mode=off -o "$work/$k.ref"
  "$IOPOLY_BIN/iopoly-clang" -O2 -I"$kernels" "$1" -fplugin-arg-iopoly-mode=dro-wp -o "$work/$k"
  "$work/$k.ref" > "$work/$k.ref.out"
  rm -rf "$work/data"
  env IOPOLY_DIR="$work/data" IOPOLY_DISKS=8 IOPOLY_STRIPE="$2" IOPOLY_BUFFER="$3" IOPOLY_DISK_MODEL=hdd \
      IOPOLY_DIRECT=off IOPOLY_PROGRESS=0 IOPOLY_STATS="$work/$k.json" "$work/$k" > "$work/$k.out"
  cmp "$work/$k.ref.out" "$work/$k.out" || { echo "read_ahead.sh: $k differs from mode=off" >&2; exit 1; }
  python3 - "$work/$k.json" "$k" "$4" <<'PY'
import json, sys
s, name, most = json.load(open(sys.argv[1])), sys.argv[2], float(sys.argv[3])
io, busy = s["modeled_io_seconds"], s["modeled_disk_busy_seconds"]
p = s["prefetch"]
print(f"{name}: modeled I/O {io:.2f} s of {busy:.2f} s of disk time ({io / busy:.2f}); "
      f"{p['issued']} stripes hinted and fetched, {p['used']} used, {s['stripe_fetches']} fetches")
if busy <= 0 or io > most * busy:
    sys.exit(f"read_ahead.sh: {name} waits for more than {most} of its disks' busy time")
PY
}
check "$kernels/multisweep.c" 4K 576K 0.4
check "$kernels/reductions.c" 64K 1M 0.7
check "$(dirname "$0")/read-ahead/twomm.c" 4K 128K 0.5
