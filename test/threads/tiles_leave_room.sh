#!/usr/bin/env bash
# tiles_leave_room.sh KERNEL_DIR - with -fplugin-arg-iopoly-threads=on,
# another tile starts only while the running tiles and its own fit in half
# the buffer (runtime/sched/ParallelLoop.cpp): the other half is for their
# read-ahead. With the whole buffer, bench/kernels/matmul.c at 1/32 of its
# data (4 KiB stripes, 8 disks: 48 frames) ran three tiles at once, their
# hints were pushed out before use, the walk stopped hinting, and 4 threads
# took 3.1x the single thread's modeled I/O on hdd. Checks at 4 threads:
# same output as mode=off, at most half the frames pinned whenever two
# tiles ran, and at most 1.5x the sequential build's modeled I/O.
# Environment: IOPOLY_BIN (build/bin), WORK (scratch dir).
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
kernels=$1
work=${WORK:?}/tiles-leave-room
rm -rf "$work" && mkdir -p "$work"
source "$(dirname "$0")/seq_and_tasks.sh"
seq_and_tasks "$work" "$kernels/matmul.c" 4 192K tiles_leave_room.sh # 3 x 512 x 512 doubles: 6 MiB
python3 - "$work/seq.json" "$work/tasks.json" <<'PY'
import json, sys
seq, tasks = (json.load(open(p)) for p in sys.argv[1:3])
th = tasks["threads"]
ms, mt = seq["modeled_io_seconds"], tasks["modeled_io_seconds"]
print(f"matmul at 1/32, 4 threads: {th['max_running']} tiles at most at once, {th['max_pinned_stripes']} stripes "
      f"pinned at most of 48; modeled I/O {mt:.3f} s, sequential {ms:.3f} s")
if th["max_running"] > 1 and th["max_pinned_stripes"] > 24:
    sys.exit("tiles_leave_room.sh: tiles ran together with more than half the buffer pinned")
if mt > 1.5 * ms:
    sys.exit("tiles_leave_room.sh: 4 threads take more than 1.5x the sequential modeled I/O")
PY
