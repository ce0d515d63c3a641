#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# test/knowac/run-knowac-test.sh SCENARIO - KNOWAC on real PnetCDF programs.
# ctest sets: KT_BIN (knowac_probe, knowac_probe_linked), KT_LIB
# (libiopoly_knowac.so), KT_TOOL (iopoly-knowac), KT_TMP (scratch),
# KT_MPIEXEC (mpirun), KT_SANITIZE (the build's IOPOLY_SANITIZE).
# Every scenario compares what the program reads and writes with KNOWAC to
# the same program without it (checksums of all bytes read, output files
# byte for byte), and checks the knowac statistics and the tool.
set -euo pipefail

scenario=${1:?usage: run-knowac-test.sh SCENARIO}
: "${KT_BIN:?}" "${KT_LIB:?}" "${KT_TOOL:?}" "${KT_TMP:?}" "${KT_MPIEXEC:?}"
work=$KT_TMP/$scenario
rm -rf "$work"
mkdir -p "$work"
cd "$work"
for v in $(env | grep -o '^IOPOLY_[A-Z_]*' || true); do unset "$v"; done
export IOPOLY_KNOWAC_DB=$work/k.db
probe=$KT_BIN/knowac_probe

launcher=("$KT_MPIEXEC")
if "$KT_MPIEXEC" --version 2>&1 | grep -E "Open MPI|OpenRTE" > /dev/null; then
  launcher+=(--oversubscribe --timeout 200)
  [ "$(id -u)" -eq 0 ] && launcher+=(--allow-run-as-root)
  export OMPI_MCA_btl=self,vader
  # Open MPI < 4.1.7 loses bytes of strided collective writes (data sieving
  # without file locks, its issue 12718); the fixed releases lock ranges.
  export OMPI_MCA_fs_ufs_lock_algorithm=${OMPI_MCA_fs_ufs_lock_algorithm:-3}
fi
# One process without mpirun: no orted (it would inherit LD_PRELOAD).
export OMPI_MCA_ess_singleton_isolated=1
mpi_asan=
case "${KT_SANITIZE:-}" in
  *address*)
    # As test/mpi/run-mpi-test.sh: single processes keep LeakSanitizer on with
    # Open MPI's own leaks suppressed; under mpirun it is off (ASan and UBSan
    # errors still fail). No symbolizer: it would inherit LD_PRELOAD and fail
    # to start (reports give module and offset; symbolize them by hand).
    here=$(cd "$(dirname "$0")" && pwd)
    export LSAN_OPTIONS="suppressions=$here/../mpi/lsan-openmpi.supp:print_suppressions=0"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0:symbolize=0"
    export OMPI_MCA_mca_base_component_disable_dlclose=1
    mpi_asan="${ASAN_OPTIONS}:detect_leaks=0"
    ;;
esac

fail() {
  echo "FAIL ($scenario): $*" >&2
  exit 1
}
# pre VAR=VALUE... PROGRAM ARGS: one process with libiopoly_knowac.so preloaded.
pre() { env LD_PRELOAD="$KT_LIB" "$@"; }
# mpi4 [-x VAR=VALUE]... PROGRAM ARGS: four ranks.
mpi4() {
  if [ -n "$mpi_asan" ]; then
    ASAN_OPTIONS=$mpi_asan OMPI_MCA_ess_singleton_isolated=0 "${launcher[@]}" -np 4 "$@"
  else
    OMPI_MCA_ess_singleton_isolated=0 "${launcher[@]}" -np 4 "$@"
  fi
}
# stat FILE EXPR: evaluate a Python expression on the knowac member K.
stat() {
  python3 - "$1" "$2" <<'PY' || { cat "$1" >&2; fail "statistics $1: $2"; }
import json, sys
K = json.load(open(sys.argv[1]))["knowac"]
ok = eval(sys.argv[2])
if not ok:
    print(f"false: {sys.argv[2]} in {json.dumps(K)}", file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}
# Time stamps of the inputs must be older than a second before anything is
# read ahead from them (KNOWAC does not trust fresher ones).
settle() { sleep 1.2; }

case "$scenario" in
  preload)
    "$probe" gen in.nc 7 >/dev/null
    "$probe" gen in2.nc 8 >/dev/null
    settle
    plain=$("$probe" run in.nc plain.nc)
    plain2=$("$probe" run in2.nc plain2.nc)
    [ "$(IOPOLY_KNOWAC=off pre "$probe" run in.nc off.nc)" = "$plain" ] || fail "IOPOLY_KNOWAC=off changed the data"
    for i in 1 2 3; do
      out=$(IOPOLY_STATS="$work/s$i-%p.json" pre "$probe" run in.nc o$i.nc)
      [ "$out" = "$plain" ] || fail "run $i read other data: $out vs $plain"
      cmp o$i.nc plain.nc || fail "run $i wrote another file"
      mv s$i-*.json s$i.json
    done
    stat s1.json 'K["predictions"] == 0 and K["accesses"] == 35 and K["merged"] and K["new_vertices"] == 36'
    stat s2.json 'K["new_vertices"] == 0 and K["hits"] > 0 and K["graph_vertices"] == 36'
    # 32 reads: grid and s right after the open (usually no idle time
    # before them: not prefetched; on a slow run, as under ASan, the
    # prefetcher may serve them too: 32 hits of 9 regions), then 30 served
    # from 7 regions read ahead (time, and the records of t and q, each
    # serving several kinds of get).
    stat s3.json 'K["hits"] >= 30 and K["hits"] + K["misses"] == 32 and K["predictions"] >= 7 and K["accuracy"] == 1.0'
    stat s3.json 'K["wasted_bytes"] == 0 and K["metadata_seconds"] > 0 and K["next_access_accuracy"] > 0.9'
    # Another input of the same format uses the same knowledge.
    out=$(IOPOLY_STATS=s4.json pre "$probe" run in2.nc o4.nc)
    [ "$out" = "$plain2" ] || fail "the second input read other data"
    cmp o4.nc plain2.nc || fail "the second input wrote another file"
    stat s4.json 'K["hits"] >= 30 and K["new_vertices"] == 0'
    # The tool.
    app=$("$KT_TOOL" list | awk '{print $1}')
    [ "$(echo "$app" | wc -l)" -eq 1 ] || fail "one application expected: $app"
    case "$app" in knowac_probe-????????) ;; *) fail "unexpected application name '$app'" ;; esac
    "$KT_TOOL" list | grep -q " 4 runs" || fail "list does not count 4 runs"
    "$KT_TOOL" show "$app" > show.txt
    grep -q "read   t \[=0,\*,\*\] in file 0 (in2.nc, opened read-only)" show.txt || { cat show.txt; fail "show lacks t of in.nc"; }
    grep -q "write  mean \[=2,\*,\*\] in file 1 (o.\.nc, created)" show.txt || { cat show.txt; fail "show lacks the writes"; }
    "$KT_TOOL" dot "$app" | head -1 | grep -q '^digraph' || fail "dot"
    "$KT_TOOL" export "$app" | python3 -c 'import json,sys; J=json.load(sys.stdin); assert len(J["branches"][0]["vertices"]) == 36' ||
      fail "export"
    ! "$KT_TOOL" show nosuchapp 2>err.txt || fail "show of an unknown application succeeded"
    grep -q "no knowledge about 'nosuchapp'" err.txt || fail "no clear error for an unknown application"
    "$KT_TOOL" forget "$app" | grep -q "forgot $app" || fail "forget"
    [ -z "$("$KT_TOOL" list | grep "$app" || true)" ] || fail "forget left the application"
    ;;
  linked)
    linked=$KT_BIN/knowac_probe_linked
    readelf -d "$linked" | grep NEEDED | grep -n . | grep -E "libiopoly_knowac|libpnetcdf" > needed.txt
    head -1 needed.txt | grep -q libiopoly_knowac || { cat needed.txt; fail "libiopoly_knowac.so is not linked before libpnetcdf"; }
    "$probe" gen in.nc 7 >/dev/null
    settle
    plain=$("$probe" run in.nc plain.nc)
    for i in 1 2; do
      [ "$(IOPOLY_STATS=s$i.json "$linked" run in.nc o$i.nc)" = "$plain" ] || fail "linked run $i read other data"
      cmp o$i.nc plain.nc || fail "linked run $i wrote another file"
    done
    stat s2.json 'K["app"] == "probe_linked" and K["hits"] >= 30'
    "$KT_TOOL" list | grep -q "^probe_linked " || fail "the compile-time name is not used"
    IOPOLY_KNOWAC_APP=renamed IOPOLY_KNOWAC_CURRENT=b2 "$linked" run in.nc o3.nc >/dev/null
    "$KT_TOOL" list | grep -q "^renamed  *branch b2 " || fail "IOPOLY_KNOWAC_APP/CURRENT do not override"
    ;;
  mpi4)
    mpi4 "$probe" gen in.nc 7 >/dev/null
    settle
    plain=$(mpi4 "$probe" run in.nc plain.nc)
    for i in 1 2 3; do
      out=$(mpi4 -x LD_PRELOAD="$KT_LIB" -x IOPOLY_KNOWAC_DB -x IOPOLY_STATS="$work/s$i-%r.json" "$probe" run in.nc o$i.nc)
      [ "$out" = "$plain" ] || fail "4 ranks, run $i read other data: $out vs $plain"
      cmp o$i.nc plain.nc || fail "4 ranks, run $i wrote another file"
    done
    for r in 0 1 2 3; do
      stat s1-$r.json "K['rank'] == $r and K['nprocs'] == 4 and K['merged']"
      stat s3-$r.json 'K["hits"] >= 20 and K["accuracy"] >= 0.95'
    done
    "$KT_TOOL" list | grep -q " 12 runs" || fail "12 runs (3 x 4 ranks) not merged"
    ;;
  baddb)
    "$probe" gen in.nc 7 >/dev/null
    plain=$("$probe" run in.nc plain.nc 0)
    head -c 20000 /dev/urandom > garbage.db
    export IOPOLY_KNOWAC_DB=$work/garbage.db
    out=$(IOPOLY_STATS=s1.json pre "$probe" run in.nc o1.nc 0 2>err1.txt) || { cat err1.txt; fail "the program failed"; }
    [ "$out" = "$plain" ] || fail "other data with a damaged database"
    grep -q "iopoly: knowac: error: knowledge database '$work/garbage.db'.*not a SQLite database" err1.txt ||
      { cat err1.txt; fail "no clear error for a damaged database"; }
    stat s1.json 'K["error_code"] == "db-corrupt" and not K["merged"]'
    out=$(mpi4 -x LD_PRELOAD="$KT_LIB" -x IOPOLY_KNOWAC_DB "$probe" run in.nc o2.nc 0 2>err2.txt) ||
      { cat err2.txt; fail "4 ranks with a damaged database"; }
    [ "$(grep -c "knowac: error" err2.txt)" -eq 4 ] || { cat err2.txt; fail "not every rank said why"; }
    python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("CREATE TABLE knowac_meta(key, value)"); c.execute("PRAGMA user_version=99"); c.commit()' newer.db
    export IOPOLY_KNOWAC_DB=$work/newer.db
    out=$(pre "$probe" run in.nc o3.nc 0 2>err3.txt) || { cat err3.txt; fail "the program failed on a newer schema"; }
    [ "$out" = "$plain" ] || fail "other data with a newer schema"
    grep -q "schema version 99; this iopoly reads versions 1 to" err3.txt || { cat err3.txt; fail "no clear version error"; }
    out=$(IOPOLY_KNOWAC_CACHE=12Q pre "$probe" run in.nc o4.nc 0 2>err4.txt) || fail "the program failed on a bad option"
    [ "$out" = "$plain" ] || fail "other data with a bad option"
    grep -q "IOPOLY_KNOWAC_CACHE=12Q" err4.txt || { cat err4.txt; fail "no clear option error"; }
    ;;
  coherence)
    # Own writes: the read after the put sees the put, though last run's
    # knowledge had the helper read that region ahead before it.
    "$probe" gen rw.nc 5 >/dev/null
    settle
    for i in 1 2; do
      IOPOLY_STATS=s$i.json pre "$probe" rw rw.nc | grep -q "rw ok" || fail "read after write, run $i"
      settle # the run wrote the file: let its time stamps age
    done
    stat s2.json 'K["prefetched_bytes"] > 0 and K["invalidations"] >= 1 and K["hits"] == 0'
    mpi4 -x LD_PRELOAD="$KT_LIB" -x IOPOLY_KNOWAC_DB "$probe" rw rw.nc | grep -q "rw ok" || fail "read after write, 4 ranks"
    # Another process's write between the read ahead and the read.
    "$probe" gen ext.nc 9 >/dev/null
    settle
    mkdir -p sync
    (while [ ! -e sync/ready ]; do sleep 0.02; done; touch sync/go) &
    pre "$probe" pause ext.nc sync >/dev/null # learn
    wait
    rm -f sync/*
    (while [ ! -e sync/ready ]; do sleep 0.02; done; "$probe" modify ext.nc 42 && touch sync/go) &
    out=$(IOPOLY_STATS=s4.json pre "$probe" pause ext.nc sync)
    wait
    ref=$(IOPOLY_KNOWAC=off pre "$probe" pause ext.nc sync)
    [ "$out" = "$ref" ] || fail "served data older than the file: $out vs $ref"
    stat s4.json 'K["stale_drops"] == 1 and K["hits"] == 0'
    ;;
  wrapper)
    # iopoly-mpicc -iopoly-knowac links the library ahead of -lpnetcdf and
    # compiles the name in.
    : "${KT_MPICC:?}" "${KT_SRC:?}"
    "$KT_MPICC" -iopoly-knowac -DIOPOLY_KNOWAC_APP=via_wrapper -O1 "$KT_SRC/knowac_probe.c" -o probe_w -lpnetcdf ||
      fail "iopoly-mpicc -iopoly-knowac did not build the program"
    readelf -d probe_w | grep NEEDED | grep -n . | grep -E "libiopoly_knowac|libpnetcdf" | head -1 | grep -q libiopoly_knowac ||
      fail "libiopoly_knowac.so is not linked before libpnetcdf"
    "$probe" gen in.nc 7 >/dev/null
    settle
    plain=$("$probe" run in.nc plain.nc)
    for i in 1 2; do
      [ "$(IOPOLY_STATS=s$i.json ./probe_w run in.nc o$i.nc)" = "$plain" ] || fail "wrapper-built run $i read other data"
      cmp o$i.nc plain.nc || fail "wrapper-built run $i wrote another file"
    done
    stat s2.json 'K["app"] == "via_wrapper" and K["hits"] >= 30'
    # Without -iopoly-knowac: no KNOWAC, and the flag is not passed to the compiler.
    "$KT_MPICC" -O1 "$KT_SRC/knowac_probe.c" -o probe_n -lpnetcdf || fail "iopoly-mpicc without -iopoly-knowac"
    ! readelf -d probe_n | grep -q libiopoly_knowac || fail "libiopoly_knowac.so linked without -iopoly-knowac"
    ;;
  runtime)
    # The runtime's statistics and the knowac member in one object.
    "$probe" gen in.nc 7 >/dev/null
    export IOPOLY_DIR=$work/data IOPOLY_DISKS=2 IOPOLY_DISK_MODEL=none
    pre IOPOLY_STATS=both.json "$probe" runtime arr in.nc o1.nc >/dev/null
    python3 -c 'import json,sys; J=json.load(open(sys.argv[1])); assert "stripe_fetches" in J and J["knowac"]["accesses"] == 35' both.json ||
      { cat both.json; fail "the runtime and knowac statistics are not one object"; }
    ;;
  *)
    fail "unknown scenario"
    ;;
esac
echo "PASS ($scenario)"
