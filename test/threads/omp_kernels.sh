#!/usr/bin/env bash
# omp_kernels.sh KERNEL.c tasks|omp - KERNEL.c (bench/kernels, at a small
# size) built with mode=dro-wp and -fplugin-arg-iopoly-threads=on (tasks:
# the runtime's scheduler, IOPOLY_THREADS, policies g and naive) or with
# Polly's OpenMP code generation as it is (omp: -mllvm -polly-parallel,
# libgomp, OMP_NUM_THREADS) prints exactly what the mode=off build prints
# at 1, 2, 4 and 8 threads. Threads of one process share the stripe
# buffer; the parallel loops are those Polly's dependences prove parallel
# in the restructured schedule. A kernel in which Polly parallelizes
# nothing still has to give identical output.
# The buffer (64 stripes, a quarter of the data or less) is larger than the
# e2e tests' 16: with no capacity control, 8 threads each pinning the
# stripes of their strips can attach all 16 frames at once, and the
# program then stops with "stripe buffer full" (seen with matmul, stencil
# and multisweep; the runtime's own task scheduler starts a set only when
# its stripes fit).
# Environment: IOPOLY_BIN (build/bin), WORK (scratch dir).
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
src=$1 variant=$2
name=$(basename "$src" .c)
work=${WORK:?}/$variant-$name
rm -rf "$work" && mkdir -p "$work"
common=(-O2 -DN=256 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 -I"$(dirname "$src")")
"$IOPOLY_BIN/iopoly-clang" "${common[@]}" -fplugin-arg-iopoly-mode=off "$src" -o "$work/ref" 2> "$work/ref.log"
"$work/ref" > "$work/ref.out"
if [ "$variant" = omp ]; then
  flags=(-mllvm -polly-parallel -fopenmp=libgomp) scheds=(omp) entry="U GOMP_parallel_loop"
else
  flags=(-fplugin-arg-iopoly-threads=on) scheds=(g naive) entry="U __iopoly_par_start"
fi
"$IOPOLY_BIN/iopoly-clang" "${common[@]}" -fplugin-arg-iopoly-mode=dro-wp "${flags[@]}" "$src" -o "$work/prog" \
  2> "$work/prog.log"
parallel=$(nm "$work/prog" | grep -q "$entry" && echo yes || echo no)
for threads in 1 2 4 8; do
  for sched in "${scheds[@]}"; do
    rm -rf "$work/data"
    env OMP_NUM_THREADS=$threads IOPOLY_THREADS=$threads IOPOLY_SCHED=${sched/omp/g} IOPOLY_DIR="$work/data" \
        IOPOLY_DISKS=4 IOPOLY_STRIPE=4K IOPOLY_BUFFER=256K IOPOLY_DISK_MODEL=none IOPOLY_DIRECT=off IOPOLY_THRASH=0 \
        IOPOLY_STATS="$work/$threads.stats.json" "$work/prog" > "$work/$threads.out"
    if ! cmp "$work/ref.out" "$work/$threads.out"; then
      echo "omp_kernels.sh: $name: dro-wp ($variant, $sched) at $threads threads differs from mode=off" >&2
      exit 1
    fi
    fetches=$(sed -n 's/.*"stripe_fetches":\([0-9]*\).*/\1/p' "$work/$threads.stats.json")
    echo "$name: $variant $sched, $threads threads: identical output, $fetches stripe fetches"
  done
done
echo "$name: loops parallelized by Polly ($variant): $parallel"
