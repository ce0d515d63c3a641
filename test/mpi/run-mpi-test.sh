#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# test/mpi/run-mpi-test.sh SCENARIO - one MPI-IO backend test scenario.
# ctest runs it (test/mpi/CMakeLists.txt) with these variables set:
#   MT_BIN      directory of the test programs
#   MT_LIB      directory of libiopoly.so and libiopoly_mpiio.so
#   MT_TMP      scratch directory (each scenario uses and wipes its own)
#   MT_MPIEXEC  mpiexec/mpirun; MT_NPFLAG its process-count flag (-n/-np);
#               MT_PREFLAGS extra flags before the program (may be empty)
#   MT_SANITIZE the build's IOPOLY_SANITIZE (may be empty)
# Each scenario runs programs with 4 ranks under mpirun, or alone, with
# IOPOLY_BACKEND=mpiio and a buffer much smaller than the arrays; the
# programs check the data and the statistics themselves, and this script
# checks exit codes and what reaches stderr.
set -euo pipefail

scenario=${1:?usage: run-mpi-test.sh SCENARIO}
: "${MT_BIN:?}" "${MT_LIB:?}" "${MT_TMP:?}" "${MT_MPIEXEC:?}" "${MT_NPFLAG:=-n}"

work=$MT_TMP/$scenario
rm -rf "$work"
mkdir -p "$work"

export IOPOLY_BACKEND=mpiio
export IOPOLY_DIR=$work/data
export IOPOLY_DISKS=4
export IOPOLY_STRIPE=4K
export IOPOLY_BUFFER=64K # 16 frames
export IOPOLY_DISK_MODEL=none
unset IOPOLY_STATS IOPOLY_TRACE IOPOLY_MPIIO_HINTS IOPOLY_MPIIO_MODULE IOPOLY_PREFETCH

# Launcher flags: Open MPI refuses root without --allow-run-as-root, and
# needs --oversubscribe for 4 ranks on fewer cores.
launcher=("$MT_MPIEXEC")
if "$MT_MPIEXEC" --version 2>&1 | grep -E "Open MPI|OpenRTE|open-mpi.org" > /dev/null; then
  launcher+=(--oversubscribe --timeout 120)
  [ "$(id -u)" -eq 0 ] && launcher+=(--allow-run-as-root)
  # Shared-memory transports only: no network probing in containers.
  export OMPI_MCA_btl=self,vader
fi
read -r -a preflags <<<"${MT_PREFLAGS:-}"

# AddressSanitizer builds: Open MPI leaks what MPI_Init allocates, and its
# libraries lack frame pointers, so its leaks can only be told apart (and
# suppressed, see lsan-openmpi.supp) with the slow unwinder, which makes a
# 4-rank run take tens of seconds. Hence: the single-process scenarios keep
# LeakSanitizer on with those suppressions (every leak of iopoly or of the
# module still fails them); under mpirun only LeakSanitizer is turned off,
# ASan and UBSan errors still fail every scenario.
case "${MT_SANITIZE:-}" in
  *address*)
    here=$(cd "$(dirname "$0")" && pwd)
    case "$scenario" in
      plain_c_alone | errors)
        export LSAN_OPTIONS="suppressions=$here/lsan-openmpi.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
        export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
        export OMPI_MCA_mca_base_component_disable_dlclose=1
        echo "note: sanitizer build: leak checking on, leaks inside Open MPI suppressed ($here/lsan-openmpi.supp)" >&2
        ;;
      *)
        export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
        echo "note: sanitizer build: LeakSanitizer off under mpirun (Open MPI's own leaks cannot be suppressed" \
          "cheaply; plain_c_alone and errors check leaks); ASan/UBSan errors still fail" >&2
        ;;
    esac
    ;;
esac

fail() {
  echo "FAIL ($scenario): $*" >&2
  exit 1
}

# mpi4 PROGRAM ARGS...: run on 4 ranks.
mpi4() {
  echo "+ mpirun -np 4 $*" >&2
  "${launcher[@]}" "$MT_NPFLAG" 4 "${preflags[@]}" "$MT_BIN/$1" "${@:2}"
}

# alone PROGRAM ARGS...: run one process without a launcher.
alone() {
  echo "+ $*" >&2
  "$MT_BIN/$1" "${@:2}"
}

# no_errors FILE: stderr of a run must not carry iopoly errors or warnings.
no_errors() {
  if grep -E "iopoly: (error|warning|fatal)" "$1" >&2; then
    fail "unexpected iopoly diagnostics (above)"
  fi
}

# expect_json FILE STRING...: the statistics file holds every STRING.
expect_json() {
  local file=$1 want
  shift
  [ -s "$file" ] || fail "no statistics file $file"
  for want in "$@"; do
    grep -qF -- "$want" "$file" || { cat "$file" >&2; fail "$file lacks $want"; }
  done
}

case "$scenario" in
  rank_arrays)
    # (a) + (f): private arrays, evictions and write-backs, stats, hints.
    export IOPOLY_MPIIO_HINTS="cb_buffer_size=1048576, romio_no_indep_rw = false"
    mpi4 rank_arrays rw 2>"$work/rw.err" || { cat "$work/rw.err" >&2; fail "rank_arrays rw"; }
    cat "$work/rw.err" >&2
    no_errors "$work/rw.err"
    [ "$(ls "$IOPOLY_DIR"/disk*/rank*.iop | wc -l)" -eq 16 ] || fail "expected 4 ranks x 4 disk files"
    # A new process with the POSIX backend reads what MPI-IO wrote.
    IOPOLY_BACKEND=posix mpi4 rank_arrays verify
    ;;
  shared_array)
    # (b): rank 0 writes, every rank reads it at the same time.
    mpi4 shared_array
    ;;
  finalize_noclose)
    # (c): MPI_Finalize with arrays open and dirty; data must be on disk.
    export IOPOLY_BUFFER=1M # the arrays fit: only the hook writes them
    mpi4 finalize_noclose write 2>"$work/write.err" || { cat "$work/write.err" >&2; fail "finalize_noclose write"; }
    cat "$work/write.err" >&2
    no_errors "$work/write.err"
    mpi4 finalize_noclose verify
    IOPOLY_BACKEND=posix mpi4 finalize_noclose verify
    # Writing after MPI_Finalize: reported, never silent.
    # The unwritten block is rescued and the process ends with IOPOLY_EXIT_UNSAVED (74).
    rc=0
    IOPOLY_STATS=$work/late-stats.json alone finalize_noclose late_write 2>"$work/late.err" || rc=$?
    [ "$rc" = 74 ] || { cat "$work/late.err" >&2; fail "late_write: exit status $rc, expected 74 (unsaved data)"; }
    grep -q "saved to '.*late.rescue'" "$work/late.err" || fail "late_write: no rescue file named"
    # (f) IOPOLY_STATS is still written at exit after the program's MPI_Finalize.
    expect_json "$work/late-stats.json" '"backend":"mpiio"' '"mpi_finalized_by_program":true' \
      '"mpi_initialized_by_iopoly":false' '"write_errors":'
    cat "$work/late.err" >&2
    grep -q "iopoly: warning: MPI-IO backend: cannot write '.*late.iop': the program called MPI_Finalize" \
      "$work/late.err" || fail "no warning about writing after MPI_Finalize"
    grep -q "iopoly: error: at exit, array 'late' could not be written back" "$work/late.err" ||
      fail "the exit handler did not report the unwritten block"
    ;;
  plain_c_alone | plain_c_mpirun)
    # (d): no MPI in the program; the module starts and stops MPI.
    if readelf -d "$MT_BIN/plain_c" | grep "libmpi" > /dev/null; then
      fail "plain_c links an MPI library"
    fi
    run=alone
    [ "$scenario" = plain_c_mpirun ] && run=mpi4
    for mode in full noclose verify; do
      $run plain_c "$mode" 2>"$work/$mode.err" || { cat "$work/$mode.err" >&2; fail "plain_c $mode"; }
      cat "$work/$mode.err" >&2
      no_errors "$work/$mode.err"
    done
    if [ "$scenario" = plain_c_alone ]; then
      # (f) IOPOLY_STATS written at exit, before the module finalizes MPI.
      IOPOLY_STATS=$work/stats.json alone plain_c full 2>/dev/null || fail "plain_c full with IOPOLY_STATS"
      expect_json "$work/stats.json" '"backend":"mpiio"' '"mpi_initialized_by_iopoly":true' \
        '"hints":{"striping_unit":"4096","striping_factor":"1","start_iodevice":"disk index"}' \
        '"hints_in_effect":{' '"striping_unit":"4096"'
    fi
    ;;
  prefetch_multiple | prefetch_serialized | prefetch_funneled | prefetch_single)
    # (e): background I/O under MPI_THREAD_MULTIPLE, inline below it.
    level=${scenario#prefetch_}
    mpi4 prefetch_levels "$level" 2>"$work/err" || { cat "$work/err" >&2; fail "prefetch_levels $level"; }
    cat "$work/err" >&2
    no_errors "$work/err"
    ;;
  errors)
    # (g): clear errors from iopoly_open for a broken configuration.
    IOPOLY_MPIIO_HINTS="striping_unit" alone errors "IOPOLY_MPIIO_HINTS=striping_unit" "'striping_unit' is not key=value"
    IOPOLY_MPIIO_HINTS="striping_unit=64k" alone errors "IOPOLY_MPIIO_HINTS" "'striping_unit' needs a positive integer, not '64k'"
    IOPOLY_MPIIO_HINTS="cb_nodes=2,=4" alone errors "IOPOLY_MPIIO_HINTS=cb_nodes=2,=4" "empty key"
    IOPOLY_MPIIO_HINTS="romio_cb_read=" alone errors "'romio_cb_read' has an empty value"
    IOPOLY_MPIIO_MODULE=/nonexistent alone errors "IOPOLY_BACKEND=mpiio" "cannot load the MPI-IO module '/nonexistent'"
    IOPOLY_MPIIO_MODULE="$MT_LIB/libiopoly.so" alone errors "does not export iopoly_mpiio_backend"
    # The same under mpirun: every rank fails cleanly, nobody hangs.
    IOPOLY_MPIIO_HINTS="striping_factor=0" mpi4 errors "'striping_factor' needs a positive integer, not '0'" >/dev/null
    [ ! -e "$IOPOLY_DIR" ] || fail "a failed open left files in $IOPOLY_DIR"
    ;;
  *)
    fail "unknown scenario"
    ;;
esac
echo "PASS ($scenario)"
