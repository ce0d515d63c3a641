#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# test/partition/run-partition-test.sh SCENARIO - one MPI scenario of the
# profiler and the partition layer (paper 4). ctest sets:
#   PT_BIN     the test programs (<name>-plain, -profile, -partition), profile_check
#   PT_TOOLS   iopoly-profile, iopoly-partition
#   PT_LIB     libiopoly_profile.so, libiopoly_partition.so
#   PT_TMP     scratch (each scenario wipes its own directory)
#   PT_MPIEXEC, PT_NPFLAG, PT_PREFLAGS   the launcher
#   PT_SANITIZE  the build's IOPOLY_SANITIZE; PT_LSAN_SUPP Open MPI's leaks
# Every comparison of a shared file is `cmp` against the same program run
# without any layer: byte for byte.
set -euo pipefail

scenario=${1:?usage: run-partition-test.sh SCENARIO}
: "${PT_BIN:?}" "${PT_TOOLS:?}" "${PT_LIB:?}" "${PT_TMP:?}" "${PT_MPIEXEC:?}" "${PT_NPFLAG:=-n}"
work=$PT_TMP/$scenario
rm -rf "$work"
mkdir -p "$work"
cd "$work"
unset IOPOLY_PROFILE IOPOLY_PROFILE_MERGE IOPOLY_PROFILE_POSIX IOPOLY_PARTITION_PLAN IOPOLY_LOCAL_DIR \
  IOPOLY_PARTITION_GATHER IOPOLY_PARTITION_REPORT IOPOLY_PARTITION_VERBOSE

launcher=("$PT_MPIEXEC")
if "$PT_MPIEXEC" --version 2>&1 | grep -E "Open MPI|OpenRTE|open-mpi.org" > /dev/null; then
  launcher+=(--oversubscribe --timeout 120)
  [ "$(id -u)" -eq 0 ] && launcher+=(--allow-run-as-root)
  export OMPI_MCA_btl=self,vader
  # Open MPI < 4.1.7 loses bytes of strided collective writes (data sieving
  # without file locks, its issue 12718); the fixed releases lock ranges.
  export OMPI_MCA_fs_ufs_lock_algorithm=${OMPI_MCA_fs_ufs_lock_algorithm:-3}
  openmpi=1
fi
read -r -a preflags <<<"${PT_PREFLAGS:-}"
case "${PT_SANITIZE:-}" in
  *address*)
    # Open MPI's own leaks under mpirun cannot be told apart cheaply (see
    # test/mpi/run-mpi-test.sh); ASan and UBSan errors still fail.
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    ;;
esac

fail() {
  echo "FAIL ($scenario): $*" >&2
  exit 1
}

# mpi NP PROGRAM ARGS...: PROGRAM is a file in PT_BIN.
mpi() {
  local np=$1 v pass=()
  shift
  # Every IOPOLY_* variable set for this call reaches the ranks (Open MPI
  # forwards only what -x names).
  if [ -n "${openmpi:-}" ]; then
    for v in $(compgen -e | grep -E '^(IOPOLY_|ASAN_OPTIONS$|LSAN_OPTIONS$|UBSAN_OPTIONS$|LD_PRELOAD$)'); do
      pass+=(-x "$v")
    done
  fi
  echo "+ mpirun -np $np $*" >&2
  "${launcher[@]}" "${pass[@]}" "$PT_NPFLAG" "$np" "${preflags[@]}" "$PT_BIN/$1" "${@:2}"
}
profile() { "$PT_TOOLS/iopoly-profile" "$@"; }
partition() { "$PT_TOOLS/iopoly-partition" "$@"; }
same() { cmp "$1" "$2" || fail "$1 differs from $2"; }
expect_in() { grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "$1 lacks: $2"; }; }
# report_sum KEY: the sum of KEY over every rank's IOPOLY_PARTITION_REPORT
# and every file (or over the files whose path contains $2).
report_sum() {
  local key=$1 filter=${2:-}
  cat report.*.json | tr '{' '\n' | grep -F -- "$filter" | grep -o "\"$key\":[0-9]*" | cut -d: -f2 |
    awk '{s += $1} END {print s + 0}'
}

head -c $((64 + 4 * 65536)) /dev/urandom > input.dat

case "$scenario" in
  profile_sequences)
    # The profiler logs what the hand-written sequences must give: views,
    # nonblocking calls, shared and ordered pointers, split collectives,
    # a read cut at the end of the file.
    IOPOLY_PROFILE=$work/seq mpi 4 sequences-profile "$work/seq.dat" "$work/expected" 2> err.txt ||
      { cat err.txt >&2; fail "sequences under the profiler"; }
    expect_in err.txt "profile: wrote $work/seq.iopp"
    "$PT_BIN/profile_check" seq.iopp expected 4
    # The same bytes as without the profiler.
    mpi 4 sequences-plain "$work/plain.dat" "$work/expected-plain"
    same seq.dat plain.dat
    # Readers: show, csv, summary, Darshan DXT text.
    profile show seq.iopp > show.txt
    expect_in show.txt "[coll|shared|ordered]"
    profile csv seq.iopp > seq.csv
    [ "$(grep -c ',access,' seq.csv)" -eq "$(cat expected.* | wc -l)" ] || fail "csv record count"
    profile summary seq.iopp > summary.txt
    expect_in summary.txt "$work/seq.dat"
    profile dxt seq.iopp > dxt.txt
    expect_in dxt.txt "# DXT_MPIIO module data"
    expect_in dxt.txt "# Module    Rank  Wt/Rd  Segment          Offset       Length    Start(s)      End(s)"
    [ "$(grep -c '^ *X_MPIIO' dxt.txt)" -eq "$(cat expected.* | wc -l)" ] || fail "DXT segment count"
    # Per-rank logs with IOPOLY_PROFILE_MERGE=0 hold the same records.
    IOPOLY_PROFILE=$work/pr IOPOLY_PROFILE_MERGE=0 mpi 4 sequences-profile "$work/seq2.dat" "$work/expected"
    "$PT_BIN/profile_check" <(cat pr.0.iopp pr.1.iopp pr.2.iopp pr.3.iopp) expected 4
    # A bad value switches the profiler off with a clear error; the run goes on.
    IOPOLY_PROFILE_MERGE=maybe IOPOLY_PROFILE=$work/bad mpi 4 sequences-profile "$work/seq3.dat" "$work/e3" 2> bad.txt
    expect_in bad.txt "IOPOLY_PROFILE_MERGE='maybe': expected 0 or 1"
    [ ! -e bad.iopp ] || fail "a profile was written despite the bad variable"
    ;;
  profile_preload)
    # LD_PRELOAD into a program that knows nothing of iopoly.
    case "${PT_SANITIZE:-}" in *address* | *thread*)
      echo "note: sanitizer build: the preloaded library would precede the sanitizer runtime; linking is tested" \
        "by every other scenario"
      echo "PASS ($scenario)"
      exit 0 ;;
    esac
    IOPOLY_PROFILE=$work/pre LD_PRELOAD=$PT_LIB/libiopoly_profile.so mpi 4 sequences-plain "$work/s.dat" "$work/expected"
    "$PT_BIN/profile_check" pre.iopp expected 4
    ;;
  apply_identical | apply_warm)
    # profile -> plan -> apply: the shared file and every read as without a plan.
    mpi 4 workload-plain input.dat "$work/ref.dat" > ref.out
    # The plan names files by path: profile the run that writes out.dat.
    IOPOLY_PROFILE=$work/wl mpi 4 workload-profile input.dat "$work/out.dat" > prof.out
    same out.dat ref.dat
    rm out.dat
    partition wl.iopp -o plan.json > report.txt
    expect_in report.txt "broadcast"
    expect_in plan.json '"class": "duplicate"'
    export IOPOLY_PARTITION_PLAN=$work/plan.json IOPOLY_LOCAL_DIR=$work/local/node%r
    export IOPOLY_PARTITION_REPORT=$work/report.%r.json IOPOLY_PARTITION_VERBOSE=1
    IOPOLY_PROFILE=$work/applied mpi 4 workload-partition input.dat "$work/out.dat" > out.out 2> out.err ||
      { cat out.err >&2; fail "planned run"; }
    same out.dat ref.dat
    same out.out ref.out
    expect_in out.err "'$work/out.dat' profiled at 4 ranks"
    [ "$(report_sum local_write_bytes)" -gt 0 ] || fail "nothing was written node-locally"
    [ "$(report_sum push_bytes)" -gt 0 ] || fail "no broadcast update was sent"
    [ "$(report_sum foreign_calls)" -eq 0 ] || fail "a matching plan reported a mismatch"
    [ "$(report_sum gather_bytes)" -gt 0 ] || fail "nothing was gathered"
    # A file still open at MPI_Finalize is gathered there.
    rm out.dat
    mpi 4 workload-partition --noclose input.dat "$work/out.dat" > noclose.out 2> noclose.err ||
      { cat noclose.err >&2; fail "planned run without MPI_File_close"; }
    same out.dat ref.dat
    same noclose.out ref.out
    # The run's own log says where each byte went; the model reads it.
    profile model applied.iopp > model.txt
    expect_in model.txt "bytes served: shared"
    grep -q "local [1-9]" model.txt || { cat model.txt >&2; fail "the log shows no node-local bytes"; }
    if [ "$scenario" = apply_warm ]; then
      # The input did not change: its node-local copies stay valid.
      rm -f report.*.json
      mpi 4 workload-partition input.dat "$work/out.dat" > out2.out
      same out.dat ref.dat
      [ "$(report_sum stage_bytes input.dat)" -eq 0 ] || fail "the input was staged again"
      [ "$(report_sum local_read_bytes input.dat)" -gt 0 ] || fail "the input was not read locally"
      # A changed input invalidates them.
      head -c $((64 + 4 * 65536)) /dev/urandom > input.dat
      unset IOPOLY_PARTITION_PLAN
      mpi 4 workload-plain input.dat "$work/ref3.dat" > ref3.out
      export IOPOLY_PARTITION_PLAN=$work/plan.json
      rm -f report.*.json
      mpi 4 workload-partition input.dat "$work/out.dat" > out3.out
      same out.dat ref3.dat
      same out3.out ref3.out
      [ "$(report_sum stage_bytes input.dat)" -gt 0 ] || fail "stale copies of a changed input were used"
    fi
    ;;
  gather_manual)
    # IOPOLY_PARTITION_GATHER=manual: the shared file waits for `gather`.
    mpi 4 workload-plain input.dat "$work/ref.dat" > ref.out
    IOPOLY_PROFILE=$work/wl mpi 4 workload-profile input.dat "$work/out.dat" > /dev/null
    partition wl.iopp -o plan.json --quiet
    rm out.dat
    export IOPOLY_PARTITION_PLAN=$work/plan.json IOPOLY_LOCAL_DIR=$work/local/node%r
    IOPOLY_PARTITION_GATHER=manual mpi 4 workload-partition input.dat "$work/out.dat" > out.out 2> out.err
    same out.out ref.out
    expect_in out.err "run \`iopoly-partition gather\`"
    if cmp -s out.dat ref.dat; then fail "the shared file is already complete: nothing was left node-local"; fi
    partition status --local-dir "$work/local/node%r" > status.txt
    expect_in status.txt "closed without gather"
    partition gather plan.json --local-dir "$work/local/node%r" > gather.txt
    expect_in gather.txt "copied"
    same out.dat ref.dat
    # Done: a second gather finds nothing to copy; the next run starts clean.
    partition gather plan.json --local-dir "$work/local/node%r" > gather2.txt
    if grep -q copied gather2.txt; then fail "a second gather copied data again"; fi
    mpi 4 workload-partition input.dat "$work/out.dat" > out2.out
    same out.dat ref.dat
    ;;
  mismatch)
    # A plan that does not fit the run: other sizes, other rank roles.
    IOPOLY_PROFILE=$work/wl mpi 4 workload-profile --block 4096 input.dat "$work/out.dat" > /dev/null
    partition wl.iopp -o plan.json --quiet
    for args in "--block 8192" "--shift 1" "--block 1024 --shift 3"; do
      tag=$(echo "$args" | tr -d ' -')
      mpi 4 workload-plain $args input.dat "$work/ref-$tag.dat" > "ref-$tag.out"
      rm -f report.*.json
      IOPOLY_PARTITION_PLAN=$work/plan.json IOPOLY_LOCAL_DIR=$work/local/node%r \
        IOPOLY_PARTITION_REPORT=$work/report.%r.json mpi 4 workload-partition $args input.dat "$work/out.dat" \
        > "out-$tag.out" 2> "out-$tag.err" || { cat "out-$tag.err" >&2; fail "planned run with $args"; }
      same out.dat "ref-$tag.dat"
      rm out.dat
      same "out-$tag.out" "ref-$tag.out"
      expect_in "out-$tag.err" "does not match this run"
      [ "$(report_sum foreign_calls)" -gt 0 ] || fail "no mismatch counted with $args"
    done
    ;;
  ranks)
    # A plan made at 4 ranks at 2: not applied, and said why.
    IOPOLY_PROFILE=$work/wl mpi 4 workload-profile input.dat "$work/out.dat" > /dev/null
    partition wl.iopp -o plan.json --quiet
    rm out.dat
    mpi 2 workload-plain input.dat "$work/ref2.dat" > ref2.out
    IOPOLY_PARTITION_PLAN=$work/plan.json IOPOLY_LOCAL_DIR=$work/local/node%r \
      mpi 2 workload-partition input.dat "$work/out.dat" > out2.out 2> out2.err
    same out.dat ref2.dat
    same out2.out ref2.out
    expect_in out2.err "is not partitioned in this run: the plan was made at 4 ranks and its accesses are not a function of rank and size"
    # A fixed data set split by rank, profiled at 2 and 4: the plan applies at 8, not at 3.
    total=1048576
    IOPOLY_PROFILE=$work/b2 mpi 2 blocks-profile $total "$work/b.dat"
    IOPOLY_PROFILE=$work/b4 mpi 4 blocks-profile $total "$work/b.dat"
    rm b.dat
    partition b2.iopp b4.iopp -o bplan.json > breport.txt
    expect_in breport.txt "fitted across 2, 4 ranks"
    partition check bplan.json --ranks 8 > check8.txt
    expect_in check8.txt "applies at 8 ranks (derived at 8 ranks from the model"
    if partition check bplan.json --ranks 3 > check3.txt; then fail "check at 3 ranks should fail"; fi
    expect_in check3.txt "not a whole number"
    for np in 8 3; do
      mpi $np blocks-plain $total "$work/ref$np.dat"
      rm -f report.*.json
      IOPOLY_PARTITION_PLAN=$work/bplan.json IOPOLY_LOCAL_DIR=$work/local/node%r IOPOLY_PARTITION_VERBOSE=1 \
        IOPOLY_PARTITION_REPORT=$work/report.%r.json mpi $np blocks-partition $total "$work/b.dat" 2> "err$np.txt"
      same b.dat "ref$np.dat"
      rm b.dat
      [ $np = 3 ] || [ "$(report_sum local_write_bytes)" -eq $total ] || fail "at $np ranks not every byte was local"
    done
    expect_in err8.txt "derived at 8 ranks from the model"
    expect_in err3.txt "is not partitioned in this run"
    expect_in err3.txt "not a whole number"
    ;;
  crash_recover)
    # A crash leaves the shared file as it was plus journals; recover replays them.
    mpi 4 workload-plain input.dat "$work/ref.dat" > ref.out
    IOPOLY_PROFILE=$work/wl mpi 4 workload-profile input.dat "$work/crashed.dat" > /dev/null
    partition wl.iopp -o plan.json --quiet
    cp ref.dat before.dat
    cp ref.dat crashed-plain.dat
    cp ref.dat crashed.dat
    # The same crash without a plan: what recovery must reproduce.
    if mpi 4 workload-plain --seed 7 --crash input.dat "$work/crashed-plain.dat" > /dev/null 2>&1; then
      fail "the crash run did not crash"
    fi
    if cmp -s crashed-plain.dat before.dat; then fail "the crash run wrote nothing"; fi
    export IOPOLY_PARTITION_PLAN=$work/plan.json IOPOLY_LOCAL_DIR=$work/local/node%r
    if mpi 4 workload-partition --seed 7 --crash input.dat "$work/crashed.dat" > /dev/null 2>&1; then
      fail "the planned crash run did not crash"
    fi
    same crashed.dat before.dat # the previous complete state
    partition status > status.txt
    expect_in status.txt "crashed (no clean close)"
    # A new run refuses the file until it is recovered, and says how.
    if mpi 4 workload-partition input.dat "$work/crashed.dat" > /dev/null 2> refuse.err; then
      fail "a run opened a file with unrecovered node-local data"
    fi
    expect_in refuse.err "iopoly-partition recover"
    same crashed.dat before.dat
    partition recover --dry-run > dry.txt
    expect_in dry.txt "would copy"
    same crashed.dat before.dat
    partition recover > recover.txt
    expect_in recover.txt "copied"
    same crashed.dat crashed-plain.dat
    # And the file is usable again.
    mpi 4 workload-partition input.dat "$work/crashed.dat" > again.out
    same crashed.dat ref.dat
    same again.out ref.out
    ;;
  iopoly_backend)
    # iopoly's mpiio backend: one file per rank on MPI_COMM_SELF.
    export IOPOLY_BACKEND=mpiio IOPOLY_DISKS=2 IOPOLY_STRIPE=4K IOPOLY_BUFFER=16K IOPOLY_DISK_MODEL=none
    IOPOLY_DIR=$work/ref mpi 4 backend-plain
    IOPOLY_DIR=$work/data IOPOLY_PROFILE=$work/be mpi 4 backend-profile
    partition be.iopp -o plan.json > report.txt
    [ "$(grep -c '"class": "local"' plan.json)" -ge 8 ] || fail "the array files should be node-local"
    rm -rf data
    IOPOLY_DIR=$work/data IOPOLY_PARTITION_PLAN=$work/plan.json IOPOLY_LOCAL_DIR=$work/local/node%r \
      IOPOLY_PARTITION_REPORT=$work/report.%r.json mpi 4 backend-partition
    [ "$(report_sum local_write_bytes)" -gt 0 ] || fail "the backend's writes did not go node-local"
    n=0
    for f in ref/disk*/*.iop; do
      # The 4 KiB headers carry each creation's random ids: compare the data.
      cmp -i 4096 "$f" "data/${f#ref/}" || fail "the data of $f differs from data/${f#ref/}"
      n=$((n + 1))
    done
    [ $n -eq 8 ] || fail "expected 8 array files, found $n"
    ;;
  *)
    fail "unknown scenario"
    ;;
esac
echo "PASS ($scenario)"
