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
export IOPOLY_THRASH=0 # buffers are small on purpose; the warning itself is tested in e2e
unset IOPOLY_STATS IOPOLY_TRACE IOPOLY_MPIIO_HINTS IOPOLY_MPIIO_MODULE IOPOLY_PREFETCH

# Launcher flags: Open MPI refuses root without --allow-run-as-root, and
# needs --oversubscribe for 4 ranks on fewer cores.
launcher=("$MT_MPIEXEC")
if "$MT_MPIEXEC" --version 2>&1 | grep -E "Open MPI|OpenRTE|open-mpi.org" > /dev/null; then
  launcher+=(--oversubscribe --timeout 120)
  [ "$(id -u)" -eq 0 ] && launcher+=(--allow-run-as-root)
  # Shared-memory transports only: no network probing in containers.
  export OMPI_MCA_btl=self,vader
  # Open MPI < 4.1.7 loses bytes of strided collective writes (data sieving
  # without file locks, its issue 12718); the fixed releases lock ranges.
  export OMPI_MCA_fs_ufs_lock_algorithm=${OMPI_MCA_fs_ufs_lock_algorithm:-3}
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

# mpi4 PROGRAM ARGS...: run on 4 ranks; mpin N PROGRAM ARGS...: on N.
mpi4() {
  mpin 4 "$@"
}
mpin() {
  echo "+ mpirun -np $*" >&2
  "${launcher[@]}" "$MT_NPFLAG" "$1" "${preflags[@]}" "$MT_BIN/$2" "${@:3}"
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
  shared_np2 | shared_np4_mpiio | shared_np4_romio | shared_np8 | shared_sync_posix | shared_cb_disabled)
    # One array of every rank (iopoly_open_comm), interleaved writers in
    # every stripe, partial write-backs, sync points, collective close.
    export MT_WORK=$work
    np=4 how=barrier grain=24
    case "$scenario" in
      shared_np2) np=2 grain=100 ;;
      shared_np8) np=8 grain=8 IOPOLY_BUFFER=32K ;;
      shared_sync_posix) IOPOLY_BACKEND=posix how=sync grain=3 ;;
      shared_cb_disabled) IOPOLY_MPIIO_HINTS="romio_cb_write=disable,romio_cb_read=disable" ;;
      shared_np4_mpiio) IOPOLY_MPIIO_HINTS="cb_nodes=2,cb_buffer_size=65536,romio_cb_write=enable" ;;
      shared_np4_romio)
        # ROMIO, where the romio_* hints act too.
        export OMPI_MCA_io=romio321
        IOPOLY_MPIIO_HINTS="cb_nodes=2,cb_buffer_size=65536,romio_cb_write=enable,romio_cb_read=enable" ;;
    esac
    export IOPOLY_BUFFER IOPOLY_BACKEND IOPOLY_MPIIO_HINTS
    mpin "$np" shared_comm "$how" "$grain" 2>"$work/err" || { cat "$work/err" >&2; fail "shared_comm on $np ranks"; }
    cat "$work/err" >&2
    no_errors "$work/err"
    # One file set, not one per rank.
    [ "$(ls "$IOPOLY_DIR"/disk*/common.iop | wc -l)" -eq 4 ] || fail "expected one file per disk"
    expect_json "$work/stats0.json" '"sync_dropped":' '"twin_peak_bytes":' "\"ranks\":\"MPI_COMM_WORLD ($np ranks)\""
    if [ "$IOPOLY_BACKEND" = mpiio ]; then
      if [ "$scenario" = shared_cb_disabled ]; then
        expect_json "$work/stats0.json" '"collective_writes":0,' '"romio_cb_write":"disable"'
        grep -q '"independent_sync_writes":0,' "$work/stats0.json" && fail "romio_cb_write=disable did not make the sync writes independent"
      else
        expect_json "$work/stats0.json" '"independent_sync_writes":0,' '"shared_hints_in_effect":{'
        grep -q '"collective_writes":0,' "$work/stats0.json" && fail "no collective write at the sync points"
      fi
      case "$scenario" in
        shared_np4_mpiio | shared_np4_romio) expect_json "$work/stats0.json" '"cb_nodes":"2"' '"cb_buffer_size":"65536"' ;;
      esac
    fi
    ;;
  redundant_np4 | redundant_np4_posix)
    # Every rank runs the same read-modify-write passes over a shared array
    # 6x the buffer (what a loop left undistributed does): each update must
    # be applied once, not once more per rank that re-read another's
    # eviction. Then a distributed pass between sync points.
    export MT_WORK=$work
    [ "$scenario" = redundant_np4_posix ] && IOPOLY_BACKEND=posix
    export IOPOLY_BACKEND
    IOPOLY_BUFFER=32K mpin 4 redundant 3 2>"$work/err" || { cat "$work/err" >&2; fail "redundant on 4 ranks"; }
    cat "$work/err" >&2
    no_errors "$work/err"
    ;;
  globals_init | globals_thread | globals_never)
    # Disk-resident globals of a program built with iopoly-mpicc: the
    # runtime must not start MPI before the program's MPI_Init (or
    # MPI_Init_thread), and the ranks share the globals: every rank sees
    # every rank's rows after a barrier, with the checksum of the serial
    # mode=off program.
    : "${MT_IOPOLY_MPICC:?iopoly-mpicc of the plugin build}"
    here=$(cd "$(dirname "$0")" && pwd)
    # Compiled for the striping of these runs (4K stripes on 4 disks).
    "$MT_IOPOLY_MPICC" -O2 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 "$here/globals.c" \
      -o "$work/globals" || fail "iopoly-mpicc globals.c"
    "$MT_IOPOLY_MPICC" -O2 -fplugin-arg-iopoly-mode=off "$here/globals.c" -o "$work/globals_ref" ||
      fail "iopoly-mpicc mode=off globals.c"
    ref=$("$work/globals_ref" never | sed -n 's/^rank 0: //p')
    [ -n "$ref" ] || fail "the mode=off program printed no checksum"
    echo "serial $ref" >&2
    # run_globals NP BACKEND MODE: NP=0 runs one process without mpirun.
    run_globals() {
      local np=$1 backend=$2 mode=$3 out=$work/out.$1.$2.$3 st
      rm -rf "$IOPOLY_DIR" "$work"/stats*.json
      if [ "$np" = 0 ]; then
        (cd "$work" && IOPOLY_BACKEND=$backend IOPOLY_STATS=$work/stats0.json ./globals "$mode") >"$out" 2>"$out.err" ||
          { cat "$out.err" "$out" >&2; fail "globals $mode alone ($backend)"; }
        np=1
      else
        IOPOLY_BACKEND=$backend IOPOLY_STATS=$work/stats%r.json MT_BIN=$work mpin "$np" globals "$mode" >"$out" \
          2>"$out.err" || { cat "$out.err" "$out" >&2; fail "globals $mode on $np ranks ($backend)"; }
      fi
      cat "$out.err" >&2
      no_errors "$out.err"
      [ "$(grep -c "$ref\$" "$out")" -eq "$np" ] ||
        { cat "$out" >&2; fail "$mode, $np ranks, $backend: not every rank has the serial checksum"; }
      [ -f "$IOPOLY_DIR/disk0/G.iop" ] || fail "no G.iop in $IOPOLY_DIR/disk0"
      st=$work/stats0.json
      if [ "$backend" = mpiio ]; then
        if [ "$mode" = never ]; then
          expect_json "$st" '"mpi_initialized_by_iopoly":true'
        else
          expect_json "$st" '"mpi_initialized_by_iopoly":false' '"mpi_finalized_by_program":true'
        fi
        if [ "$mode" = thread ]; then
          expect_json "$st" '"mpi_thread_level":"multiple"' '"background_io":true'
        fi
      fi
      if [ "$mode" != never ]; then
        expect_json "$st" "\"array\":\"G\",\"ranks\":\"MPI_COMM_WORLD ($np ranks)\""
      fi
      echo "globals $mode: $np rank(s), $backend: every rank has the serial checksum" >&2
    }
    case "$scenario" in
      globals_init)
        run_globals 1 mpiio init # the program's MPI_Init after the globals exist
        run_globals 4 posix init
        run_globals 4 mpiio init
        ;;
      globals_thread) run_globals 2 mpiio thread ;;
      globals_never)
        run_globals 0 posix never
        run_globals 0 mpiio never # the module starts and stops MPI itself
        ;;
    esac
    ;;
  layout_shared)
    # A file layout chosen for an array the ranks share (iopoly-mpicc, no
    # distribution): every rank records it collectively; rank 0 writes the
    # headers. Before, the other ranks checked headers they never read
    # ("elements of 0 bytes") and stopped.
    : "${MT_IOPOLY_MPICC:?iopoly-mpicc of the plugin build}"
    here=$(cd "$(dirname "$0")" && pwd)
    "$MT_IOPOLY_MPICC" -O2 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 -fplugin-arg-iopoly-layout=V:1,0 \
      "$here/layout_shared.c" -o "$work/layout" || fail "iopoly-mpicc layout_shared.c"
    "$MT_IOPOLY_MPICC" -O2 -fplugin-arg-iopoly-mode=off "$here/layout_shared.c" -o "$work/layout_ref" ||
      fail "iopoly-mpicc mode=off layout_shared.c"
    ref=$(MT_BIN=$work mpin 1 layout_ref | sed -n 's/^rank 0: //p')
    [ -n "$ref" ] || fail "the mode=off program printed no checksum"
    for run in "1 posix" "2 posix" "4 mpiio"; do
      set -- $run
      rm -rf "$IOPOLY_DIR"
      IOPOLY_BACKEND=$2 MT_BIN=$work mpin "$1" layout >"$work/out" 2>"$work/err" ||
        { cat "$work/err" "$work/out" >&2; fail "$1 ranks ($2)"; }
      no_errors "$work/err"
      [ "$(grep -c "$ref\$" "$work/out")" -eq "$1" ] || { cat "$work/out" >&2; fail "$1 ranks ($2): wrong checksum"; }
      head -c 4096 "$IOPOLY_DIR/disk0/V.iop" | grep -aq "^layout 1 0" || fail "$1 ranks ($2): V's header has no layout 1,0"
      head -c 4096 "$IOPOLY_DIR/disk0/U.iop" | grep -aq "^elem_size 8" || fail "$1 ranks ($2): U's header has no elements"
      echo "$1 ranks ($2): serial checksum, layouts recorded" >&2
    done
    ;;
  hierarchy_fig7 | hierarchy_fig7_mpiio | hierarchy_two_storage)
    # The storage-cache hierarchy of paper 2, Fig. 7 for real: 4 compute
    # ranks, 2 I/O-node and 1 storage-node servers spawned by MPI_Init
    # (two storage nodes that ask each other for disk transfers in
    # hierarchy_two_storage). shared_comm checks every byte (server caches
    # must stay coherent across sync points); the statistics carry
    # per-level counters; and iopoly-cachesim replaying the ranks' traces
    # in the servers' order must serve every transfer at the level that
    # served it.
    here=$(cd "$(dirname "$0")" && pwd)
    : "${MT_CACHESIM:?iopoly-cachesim (MT_CACHESIM)}"
    export MT_WORK=$work
    topo=$here/topo-fig7.json
    [ "$scenario" = hierarchy_two_storage ] && topo=$here/topo-fig7-two-storage.json
    export IOPOLY_TOPOLOGY=$topo IOPOLY_TRACE=$work/run.%r.trace IOPOLY_STATS=$work/final%r.json
    export IOPOLY_DISK_MODEL=hdd
    [ "$scenario" != hierarchy_fig7_mpiio ] && export IOPOLY_BACKEND=posix
    # Spawned servers are another job: Open MPI reaches them over TCP.
    export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo
    mpin 4 shared_comm barrier 24 2>"$work/err" || { cat "$work/err" >&2; fail "shared_comm under the hierarchy"; }
    cat "$work/err" >&2
    no_errors "$work/err"
    expect_json "$work/final0.json" '"hierarchy":{"L1":' '"below":{"L2":' '"io_node":"io0"'
    expect_json "$work/final3.json" '"io_node":"io1"'
    "$MT_CACHESIM" --order=recorded --check --per-rank "$IOPOLY_TOPOLOGY" "$work"/run.{0,1,2,3}.trace >"$work/sim.json" ||
      fail "iopoly-cachesim disagrees with the real run"
    python3 - "$work" <<'PY' || fail "per-level counts of the real run and of the simulator differ"
import json, sys
work = sys.argv[1]
sim = json.load(open(work + "/sim.json"))
for r in range(4):
    real = json.load(open("%s/final%d.json" % (work, r)))["hierarchy"]
    mine = sim["per_rank"][r]
    for level in ("L2", "L3", "disk"):
        for k in ("reads", "hits", "misses", "writes", "bytes_read", "bytes_written"):
            a, b = real["below"][level][k], mine[level][k]
            if a != b:
                sys.exit("rank %d %s %s: real %d, simulated %d" % (r, level, k, a, b))
    if real["L1"]["accesses"] != mine["L1"]["accesses"] or real["L1"]["hits"] != mine["L1"]["hits"]:
        sys.exit("rank %d L1: real %s, trace %s" % (r, real["L1"], mine["L1"]))
tot = sim["L2"]
if tot["hits"] == 0 or sim["L3"]["hits"] == 0:
    sys.exit("no hit in the shared caches: the test does not exercise them: %s" % sim)
print("real run and simulator agree: L2 %d hits / %d misses, L3 %d / %d, %d disk reads" %
      (tot["hits"], tot["misses"], sim["L3"]["hits"], sim["L3"]["misses"], sim["disk"]["reads"]))
PY
    ;;
  dist_block | dist_cyclic | dist_intra | dist_cache | dist_cache_nolocal | dist_cache_topology)
    # Loops distributed by -fplugin-arg-iopoly-mpi=on: every rank must print
    # the checksum of the serial mode=off program, at 1, 2 and 4 ranks (the
    # cache mapping also at 8, and with the table compiled for Fig. 7's
    # hierarchy, and computed at startup from IOPOLY_TOPOLOGY).
    : "${MT_IOPOLY_MPICC:?iopoly-mpicc of the plugin build}"
    here=$(cd "$(dirname "$0")" && pwd)
    mapping=${scenario#dist_}
    flags=(-O2 -fplugin-arg-iopoly-mpi=on -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4)
    case "$mapping" in
      cache_nolocal) flags+=(-fplugin-arg-iopoly-mapping=cache -fplugin-arg-iopoly-map-local=off) ;;
      cache_topology) flags+=(-fplugin-arg-iopoly-topology="$here/topo-fig7.json") ;;
      *) flags+=(-fplugin-arg-iopoly-mapping="$mapping") ;;
    esac
    "$MT_IOPOLY_MPICC" -O2 -fplugin-arg-iopoly-mode=off "$here/dist_kernels.c" -o "$work/ref" || fail "mode=off build"
    "$MT_IOPOLY_MPICC" "${flags[@]}" -Rpass=iopoly "$here/dist_kernels.c" -o "$work/dist" 2>"$work/remarks" ||
      { cat "$work/remarks" >&2; fail "mpi=on build"; }
    n=$(grep -c "remark: distributed this loop over the MPI ranks" "$work/remarks" || true)
    # Under a sanitizer the pipeline distributes fewer loops (the rest run
    # on every rank, which the checksums below must survive).
    need=8
    [ -n "${MT_SANITIZE:-}" ] && need=1
    [ "$n" -ge "$need" ] || { cat "$work/remarks" >&2; fail "only $n loops were distributed"; }
    grep -q "(marked '#pragma iopoly distribute')" "$work/remarks" || fail "the marked loop was not the one distributed"
    ref=$(MT_BIN=$work mpin 1 ref | sed -n 's/^rank 0: //p')
    [ -n "$ref" ] || fail "the mode=off program printed no checksum"
    nps="1 2 4"
    case "$mapping" in cache | cache_topology) nps="1 2 4 8" ;; esac
    for np in $nps; do
      rm -rf "$IOPOLY_DIR"
      IOPOLY_STATS="$work/stats.$np.%r.json" MT_BIN=$work mpin "$np" dist >"$work/out.$np" 2>"$work/err.$np" ||
        { cat "$work/err.$np" >&2; fail "$np ranks"; }
      no_errors "$work/err.$np"
      if [ "$np" = 1 ]; then
        # One rank: its sync points keep its copies (nobody else wrote).
        python3 - "$work/stats.1.0.json" <<'PY' || fail "1 rank: sync points dropped or re-read copies"
import json, sys
s = json.load(open(sys.argv[1]))["sharing"]
if not s["sync_points"] or s["sync_dropped"] or s["sync_reread"]:
    sys.exit("1 rank: %d sync points, %d copies dropped, %d re-read" % (
        s["sync_points"], s["sync_dropped"], s["sync_reread"]))
PY
      fi
      [ "$(grep -c "$ref\$" "$work/out.$np")" -eq "$np" ] ||
        { cat "$work/out.$np" >&2; fail "$mapping on $np ranks: not every rank has the serial checksum $ref"; }
      echo "$mapping: $np ranks, every rank has the serial checksum" >&2
    done
    if [ "$mapping" = cache_topology ]; then
      # The same run with the topology given at run time (servers off): the
      # table is the compiled one; with another tree it is recomputed.
      rm -rf "$IOPOLY_DIR"
      IOPOLY_VERBOSE=1 IOPOLY_TOPOLOGY=$here/topo-fig7.json IOPOLY_CACHE_SERVERS=0 MT_BIN=$work mpin 4 dist \
        >"$work/out.t" 2>"$work/err.t" || { cat "$work/err.t" >&2; fail "with IOPOLY_TOPOLOGY"; }
      grep -q "table compiled for this topology" "$work/err.t" || { cat "$work/err.t" >&2; fail "the compiled table was not used"; }
      [ "$(grep -c "$ref\$" "$work/out.t")" -eq 4 ] || fail "with IOPOLY_TOPOLOGY: wrong checksum"
      printf '{"uniform": {"clients": 2, "io_nodes": 1, "storage_nodes": 1, "ranks_per_client": 2, "disks": 4,
        "io_cache": "64K", "storage_cache": "64K"}}' >"$work/topo2x2.json"
      rm -rf "$IOPOLY_DIR"
      IOPOLY_VERBOSE=1 IOPOLY_TOPOLOGY=$work/topo2x2.json IOPOLY_CACHE_SERVERS=0 MT_BIN=$work mpin 4 dist \
        >"$work/out.u" 2>"$work/err.u" || { cat "$work/err.u" >&2; fail "with another topology"; }
      grep -q "computed at startup for IOPOLY_TOPOLOGY" "$work/err.u" || { cat "$work/err.u" >&2; fail "the table was not recomputed"; }
      [ "$(grep -c "$ref\$" "$work/out.u")" -eq 4 ] || fail "with another topology: wrong checksum"
    fi
    ;;
  *)
    fail "unknown scenario"
    ;;
esac
echo "PASS ($scenario)"
