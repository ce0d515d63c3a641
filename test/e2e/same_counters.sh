#!/usr/bin/env bash
# same_counters.sh KERNEL_DIR - the counters and the modeled I/O time of a
# run do not depend on how fast the machine's real I/O is. A window of
# restructured code takes in the resident neighbours of a stripe (a run,
# runtime/core/StripeBuffer.h); it used to take those whose real read had
# landed, without waiting for their modeled arrival, so the same program
# gave other fetch counts and modeled times from one run to the next
# (matmul at 1/8 of its data: 5630 to 5814 fetches, 4.85 to 5.56 modeled
# seconds). Runs now take a stripe only once the model says it has
# arrived. Checks, with prefetching on (hdd model, 8 disks, 4 KiB
# stripes): the same stats with real requests as fast as the page cache
# serves them and with each one lasting its modeled time
# (IOPOLY_MODEL_WAIT=1), and the same output as mode=off.
# Environment: IOPOLY_BIN (build/bin), WORK (scratch dir).
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
kernels=$1
work=${WORK:?}/same-counters
rm -rf "$work" && mkdir -p "$work"
check() { # KERNEL BUFFER [CFLAGS...]
  local k=$1 buffer=$2
  shift 2
  "$IOPOLY_BIN/iopoly-clang" -O2 -I"$kernels" "$@" "$kernels/$k.c" -fplugin-arg-iopoly-mode=off -o "$work/$k.ref"
  "$IOPOLY_BIN/iopoly-clang" -O2 -I"$kernels" "$@" "$kernels/$k.c" -fplugin-arg-iopoly-mode=dro-wp -o "$work/$k"
  "$work/$k.ref" > "$work/$k.ref.out"
  local wait
  for wait in 0 1 0; do
    rm -rf "$work/data"
    env IOPOLY_MODEL_WAIT=$wait IOPOLY_DIR="$work/data" IOPOLY_DISKS=8 IOPOLY_STRIPE=4K IOPOLY_BUFFER="$buffer" \
        IOPOLY_DISK_MODEL=hdd IOPOLY_DIRECT=off IOPOLY_PROGRESS=0 IOPOLY_THRASH=0 \
        IOPOLY_STATS="$work/$k.$wait.json" "$work/$k" > "$work/$k.out"
    cmp "$work/$k.ref.out" "$work/$k.out" || { echo "same_counters.sh: $k differs from mode=off" >&2; exit 1; }
    python3 - "$work/$k.$wait.json" "$k" "$wait" "$work/$k.first.json" <<'PY'
import json, os, sys
path, name, wait, first = sys.argv[1:5]
s = json.load(open(path))
keys = ["stripe_fetches", "buffer_hits", "evictions", "writebacks", "attaches", "modeled_io_seconds",
        "modeled_disk_busy_seconds"]
now = {k: s[k] for k in keys}
now.update({"prefetch." + k: v for k, v in s["prefetch"].items()})
print(f"{name}, IOPOLY_MODEL_WAIT={wait}: {now['stripe_fetches']} fetches, {now['buffer_hits']} hits, "
      f"{now['prefetch.issued']} hinted, modeled I/O {now['modeled_io_seconds']:.4f} s")
if not os.path.exists(first):
    json.dump(now, open(first, "w"))
    sys.exit(0)
then = json.load(open(first))
diff = [f"{k}: {then[k]} then {now[k]}" for k in now if now[k] != then[k]]
if diff:
    sys.exit(f"same_counters.sh: {name} counted otherwise with IOPOLY_MODEL_WAIT={wait}: " + "; ".join(diff))
PY
  done
}
check sweeps 576K
check matmul 192K -DN=256
