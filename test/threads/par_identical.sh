#!/bin/sh
# par_identical.sh PROGRAM TMPDIR - par_protocol gives the same checksum at
# 1, 2, 4 and 8 threads under g and naive, and its statistics count every
# iteration as a task (4 loops: 40 + 40 + 13 + 0 iterations). With the hdd
# model too: there each thread has its own modeled clock.
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -eu
prog=$1
tmp=$2/par.$$
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
export IOPOLY_DIR="$tmp/disks" IOPOLY_DISKS=4 IOPOLY_STRIPE=4K IOPOLY_BUFFER=32K IOPOLY_PROGRESS=0
want=$(IOPOLY_DISK_MODEL=none IOPOLY_THREADS=1 "$prog" 40)
[ ${#want} -eq 16 ] || { echo "FAIL: no checksum from 1 thread: '$want'"; exit 1; }
fail=0
for model in none hdd; do
for threads in 1 2 4 8; do
  for sched in g naive; do
    got=$(IOPOLY_DISK_MODEL=$model IOPOLY_THREADS=$threads IOPOLY_SCHED=$sched IOPOLY_STATS="$tmp/s.json" "$prog" 40)
    if [ "$got" != "$want" ]; then
      echo "FAIL: $model $threads threads $sched: $got, 1 thread $want"
      fail=1
    fi
    if ! grep -q '"regions":4,"sets":93' "$tmp/s.json"; then
      echo "FAIL: $model $threads threads $sched: the statistics do not count 4 loops of 93 iterations:"
      grep -o '"threads":{[^}]*}' "$tmp/s.json"
      fail=1
    fi
  done
done
done
[ $fail = 0 ] && echo "ok: $want"
exit $fail
