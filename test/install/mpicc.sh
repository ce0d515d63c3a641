#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# test/install/mpicc.sh - iopoly-mpicc end to end: builds mpi_halo.c (MPI,
# disk-resident globals) with iopoly-mpicc, compiling and linking in
# separate steps, once lowered and once with -fplugin-arg-iopoly-mode=off,
# runs both under mpirun -np 2 and requires identical output. Every rank of
# the lowered run has its own IOPOLY_DIR (each rank's global A is a file
# named A.iop) and its own IOPOLY_STATS, which must show stripe fetches.
# Environment (set by CMakeLists.txt): IT_BIN (directory of iopoly-mpicc),
# IT_TMP (scratch), IT_MPIEXEC (mpirun/mpiexec).
set -euo pipefail
: "${IT_BIN:?}" "${IT_TMP:?}" "${IT_MPIEXEC:?}"
here=$(cd "$(dirname "$0")" && pwd)
work=$IT_TMP/mpicc
rm -rf "$work"
mkdir -p "$work"
fail() {
  echo "FAIL (mpicc): $*" >&2
  exit 1
}

launcher=("$IT_MPIEXEC" -np 2)
if "$IT_MPIEXEC" --version 2>&1 | grep -E "Open MPI|OpenRTE|open-mpi.org" > /dev/null; then
  launcher+=(--oversubscribe --timeout 60)
  [ "$(id -u)" -eq 0 ] && launcher+=(--allow-run-as-root)
  export OMPI_MCA_btl=self,vader # shared memory only: no network probing
  # Open MPI < 4.1.7 loses bytes of strided collective writes (data sieving
  # without file locks, its issue 12718); the fixed releases lock ranges.
  export OMPI_MCA_fs_ufs_lock_algorithm=${OMPI_MCA_fs_ufs_lock_algorithm:-3}
fi

mpicc=$IT_BIN/iopoly-mpicc
for v in lowered ref; do
  flags=(-O2)
  [ $v = ref ] && flags+=(-fplugin-arg-iopoly-mode=off)
  "$mpicc" "${flags[@]}" -c "$here/mpi_halo.c" -o "$work/$v.o" || fail "iopoly-mpicc -c failed ($v)"
  "$mpicc" "${flags[@]}" "$work/$v.o" -o "$work/$v" || fail "iopoly-mpicc could not link ($v)"
done
nm "$work/lowered.o" | grep ' A\.iopoly$' > /dev/null || fail "the lowered object has no A.iopoly slot: nothing was lowered"
nm "$work/ref.o" | grep ' [BC] A$' > /dev/null || fail "the mode=off object has no ordinary global A"

"${launcher[@]}" "$work/ref" > "$work/ref.out" || fail "the mode=off build failed under mpirun"
# One IOPOLY_DIR and stats file per rank; a 16-stripe buffer (the arrays
# are 20 stripes each; at -O2 the smoothing loop alone keeps 8 pinned) and
# the striping the program was compiled for.
"${launcher[@]}" env IOPOLY_STRIPE=64K IOPOLY_DISKS=8 IOPOLY_BUFFER=1M IOPOLY_DISK_MODEL=none IOPOLY_DIRECT=off \
  sh -c 'r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:?no rank variable}}
         IOPOLY_DIR=$1/rank$r IOPOLY_STATS=$1/stats$r.json exec "$2"' sh "$work" "$work/lowered" \
  > "$work/lowered.out" 2> "$work/lowered.err" || { cat "$work/lowered.err" >&2; fail "the lowered build failed under mpirun"; }
# The thrash notice (each step re-reads the arrays through a 1M buffer) is
# expected; anything else from the runtime is a complaint.
if grep -v "has been read from disk .* times over" "$work/lowered.err" | grep -q "iopoly: "; then
  cat "$work/lowered.err" >&2
  fail "the runtime complained"
fi
[ "$(grep -c '^rank [01] checksum' "$work/ref.out")" = 2 ] || { cat "$work/ref.out"; fail "expected checksums of ranks 0 and 1"; }
cmp "$work/ref.out" "$work/lowered.out" || {
  diff "$work/ref.out" "$work/lowered.out" >&2
  fail "the lowered run's output differs from the mode=off run's"
}
for r in 0 1; do
  [ -f "$work/rank$r/disk0/A.iop" ] || fail "rank $r did not create its own $work/rank$r/disk0/A.iop"
  fetches=$(sed -n 's/.*"stripe_fetches":\([0-9]*\).*/\1/p' "$work/stats$r.json" 2>/dev/null || true)
  [ -n "$fetches" ] && [ "$fetches" -gt 0 ] || fail "rank $r: no stripe fetches in $work/stats$r.json"
  echo "rank $r: $fetches stripe fetches"
done
echo "mpicc: 2 ranks, lowered output identical to mode=off:"
cat "$work/ref.out"
