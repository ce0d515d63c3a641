#!/bin/sh
# sets_identical.sh SETSBENCH TMPDIR - every workload of setsbench, with
# disk maps and unit maps, gives the same checksum at 1, 2, 4 and 8 threads
# under the g and naive policies as the sequential order (1 thread), and
# the statistics record the thread count, the policy and every set. With
# the hdd model too (threads then take sets in the order of their modeled
# clocks), where the run's modeled I/O time is at most the sum of every
# thread's waits.
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -eu
prog=$1
tmp=$2/$$
rm -rf "$tmp"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
export IOPOLY_DIR="$tmp/disks" IOPOLY_DISKS=4 IOPOLY_STRIPE=4K IOPOLY_PROGRESS=0
fail=0
for kind in sweep halo wave; do
  for map in disks units; do
    # A buffer of 12 stripes: at most three sets of halo (4 stripes each)
    # fit together; wave's sets also share their neighbours' stripes.
    want=$(IOPOLY_DISK_MODEL=none IOPOLY_BUFFER=48K IOPOLY_THREADS=1 "$prog" $kind 24 1 $map)
    case $want in
      [0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]) ;;
      *) echo "FAIL: $kind $map: no checksum from the sequential run: '$want'"; exit 1 ;;
    esac
    for model in none hdd; do
    for threads in 1 2 4 8; do
      for sched in g naive; do
        got=$(IOPOLY_DISK_MODEL=$model IOPOLY_BUFFER=48K IOPOLY_THREADS=$threads IOPOLY_SCHED=$sched "$prog" $kind 24 1 $map "$tmp/s.json")
        if [ "$got" != "$want" ]; then
          echo "FAIL: $kind $map $model $threads threads $sched: $got, sequential $want"
          fail=1
        fi
        if [ $model = hdd ] && ! python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(0 if 0 < s["modeled_io_seconds"] <= s["modeled_io_wait_seconds"] + 1e-5 else 1)' "$tmp/s.json"; then
          echo "FAIL: $kind $map $threads threads $sched: modeled I/O not within (0, the sum of the waits]"
          fail=1
        fi
        for key in "\"threads\":$threads" "\"sched\":\"$sched\""; do
          if ! grep -q "$key" "$tmp/s.json"; then
            echo "FAIL: $kind $map $threads threads $sched: stats lack $key"
            fail=1
          fi
        done
      done
    done
    done
    echo "ok: $kind $map ($want)"
  done
done
# A bad thread count is an error naming the variable.
if IOPOLY_THREADS=lots "$prog" sweep 4 1 disks > "$tmp/out" 2> "$tmp/err"; then
  echo "FAIL: IOPOLY_THREADS=lots accepted"
  fail=1
elif ! grep -q "IOPOLY_THREADS=lots" "$tmp/err"; then
  echo "FAIL: the error does not name IOPOLY_THREADS=lots:"
  cat "$tmp/err"
  fail=1
fi
exit $fail
