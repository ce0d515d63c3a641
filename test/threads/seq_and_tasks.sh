# seq_and_tasks.sh - sourced by the thread tests that set a kernel's tasks
# against its sequential build (walk_ahead.sh, tiles_leave_room.sh).
#
# seq_and_tasks WORK SOURCE THREADS BUFFER NAME: builds SOURCE (with -I its
# directory) in mode=off, mode=dro-wp and dro-wp with threads=on into WORK,
# runs the last two at THREADS threads on 8 disks of 4 KiB stripes with
# IOPOLY_BUFFER=BUFFER and the hdd model, leaves their stats in
# WORK/seq.json and WORK/tasks.json, and fails (naming NAME) if an output
# differs from mode=off's.
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
seq_and_tasks() {
  local work=$1 src=$2 threads=$3 buffer=$4 name=$5
  local common=(-O2 -I"$(dirname "$src")" "$src")
  "$IOPOLY_BIN/iopoly-clang" "${common[@]}" -fplugin-arg-iopoly-mode=off -o "$work/ref"
  "$IOPOLY_BIN/iopoly-clang" "${common[@]}" -fplugin-arg-iopoly-mode=dro-wp -o "$work/seq"
  "$IOPOLY_BIN/iopoly-clang" "${common[@]}" -fplugin-arg-iopoly-mode=dro-wp -fplugin-arg-iopoly-threads=on \
    -o "$work/tasks"
  "$work/ref" > "$work/ref.out"
  local build
  for build in seq tasks; do
    rm -rf "$work/data"
    env IOPOLY_THREADS="$threads" IOPOLY_DIR="$work/data" IOPOLY_DISKS=8 IOPOLY_STRIPE=4K IOPOLY_BUFFER="$buffer" \
        IOPOLY_DISK_MODEL=hdd IOPOLY_DIRECT=off IOPOLY_PROGRESS=0 IOPOLY_THRASH=0 IOPOLY_STATS="$work/$build.json" \
        "$work/$build" > "$work/$build.out"
    cmp "$work/ref.out" "$work/$build.out" || { echo "$name: $build differs from mode=off" >&2; return 1; }
  done
}
