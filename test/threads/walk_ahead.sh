#!/usr/bin/env bash
# walk_ahead.sh KERNEL_DIR - with -fplugin-arg-iopoly-threads=on, one
# thread runs the tasks of a restructured loop in order, and their tile
# walk must prefetch as the sequential build's does: each task hints the
# rest of its unit and the next one (runtime/lowered/TileWalk.h). Before,
# a task hinted only its own unit, so the next task's stripes were demand
# fetched, each waited for: bench/kernels/sweeps.c (8 disks, 4 KiB
# stripes, a buffer of 1/8 of its data, as bench/threads runs it) took
# 1.9x the sequential build's modeled I/O (6.37 s against 3.38 s). Checks,
# on the hdd model at one thread: same output as mode=off, at least 3/4 as
# many hinted stripes fetched as the sequential build, at most 1.25x its
# modeled I/O seconds. The tasks waited longer than the sequential build
# (3.79 s against 1.78 s) because a fetch that evicted a dirty stripe
# first waited for its write, queued on another disk, and the tasks' LRU
# order paired reads and writes across disks (2.3 disks busy on average
# in the column sums, 7.9 for the sequential build). With write-behind
# (runtime/core/WriteBehind.cpp) they take 1.51 s against 1.63 s. Both are
# the same on every run (same_counters.sh).
# Environment: IOPOLY_BIN (build/bin), WORK (scratch dir).
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
kernels=$1
work=${WORK:?}/walk-ahead
rm -rf "$work" && mkdir -p "$work"
source "$(dirname "$0")/seq_and_tasks.sh"
seq_and_tasks "$work" "$kernels/sweeps.c" 1 576K walk_ahead.sh # N=768: 4.5 MiB, as in bench/threads
python3 - "$work/seq.json" "$work/tasks.json" <<'PY'
import json, sys
seq, tasks = (json.load(open(p)) for p in sys.argv[1:3])
hs, ht = seq["prefetch"]["issued"], tasks["prefetch"]["issued"]
ms, mt = seq["modeled_io_seconds"], tasks["modeled_io_seconds"]
print(f"sweeps at one thread: {ht} hinted stripes fetched with tasks, {hs} without; modeled I/O {mt:.3f} s, {ms:.3f} s")
if hs == 0 or 4 * ht < 3 * hs:
    sys.exit("walk_ahead.sh: the tasks' walk prefetches fewer than 3/4 of the stripes the sequential walk does")
if mt > 1.25 * ms:
    sys.exit("walk_ahead.sh: the tasks at one thread take more than 1.25x the sequential modeled I/O")
PY
