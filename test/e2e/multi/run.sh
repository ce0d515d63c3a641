#!/usr/bin/env bash
# run.sh SCENARIO OPT - programs in several files, some built without the
# plugin, compared byte for byte with their mode=off build (issue 9,
# section 5). Scenarios:
#   alloc  cholesky_like.c (plugin, no pragma) allocates through
#          alloc_other.c (plain clang), writes a temporary through local
#          pointers, frees with free()
#   blas   blas_main.c (plugin) hands disk-resident globals and
#          iopoly_alloc memory to blas_other.c (plain clang): served by
#          page faults, counted (faulted_accesses) and reported naming the
#          routine
#   frame  frame_sites.c: thousands of sites in a recursive function; the
#          window tables stay within IOPOLY_MAX_WINDOWS and the program runs
#          on an 8 MB stack
#   cxx    cxx_names.cpp (clang++): qualified names, a pragma inside a
#          namespace, a static data member, an anonymous namespace, a
#          template and a lambda; then reopen_shape.c (plain) opens the
#          global grid.B with its declared element size and dims
#   thrash colwalk.c walks a 512 KiB array by columns through a 64 KiB
#          buffer: one warning names the array, the loop (colwalk.c:18) and
#          the walk across the rows; IOPOLY_PROGRESS=10ms prints progress
#          lines with the bytes read per array
# Each runs with 4 KiB stripes on 4 disks and a 64 KiB buffer, so that the
# arrays do not fit; every mode of $MODES (default lower) must print what
# mode=off prints. Environment: IOPOLY_BIN, WORK (scratch), MODES, PLAIN_CC.
set -euo pipefail
scenario=$1 opt=$2
here=$(cd "$(dirname "$0")" && pwd)
kern=$here/../kernels
work=${WORK:?}/multi-$scenario$opt
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cc=$IOPOLY_BIN/iopoly-clang
plain=${PLAIN_CC:-clang-19}
inc=$(dirname "$IOPOLY_BIN")/../include
[ -d "$inc" ] || inc=$here/../../../include
common=(-fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 -I"$kern")
fail() {
  echo "FAIL (multi $scenario$opt): $*" >&2
  exit 1
}
runenv() {
  rm -rf "$work/data"
  env IOPOLY_DIR="$work/data" IOPOLY_DISKS=4 IOPOLY_STRIPE=4K IOPOLY_BUFFER=64K IOPOLY_DISK_MODEL=none \
    IOPOLY_DIRECT=off IOPOLY_THRASH=0 IOPOLY_STATS="$work/$1.stats.json" "${@:2}"
}
stat() { sed -n "s/.*\"$2\":\\([0-9]*\\).*/\\1/p" "$work/$1.stats.json" | head -1; }

case "$scenario" in
  alloc | blas)
    main=$here/cholesky_like.c other=$here/alloc_other.c
    [ "$scenario" = blas ] && main=$here/blas_main.c other=$here/blas_other.c
    "$plain" "$opt" -DIOPOLY_REFERENCE -I"$inc" -c "$other" -o other_ref.o
    "$plain" "$opt" -I"$inc" -c "$other" -o other.o
    "$cc" "$opt" -fplugin-arg-iopoly-mode=off -DIOPOLY_REFERENCE "${common[@]}" "$main" other_ref.o -lm -o ref
    ./ref > ref.out
    for mode in ${MODES:-lower}; do
      # -rdynamic: the runtime names the routine at fault in the program.
      "$cc" "$opt" -fplugin-arg-iopoly-mode="$mode" "${common[@]}" "$main" other.o -lm -rdynamic -o "$mode"
      runenv "$mode" "./$mode" > "$mode.out" 2> "$mode.err" || { cat "$mode.err"; fail "mode=$mode failed"; }
      cmp ref.out "$mode.out" || fail "mode=$mode prints something else than mode=off"
      [ "$(stat "$mode" stripe_fetches)" -gt 0 ] || fail "mode=$mode fetched no stripes"
      if [ "$scenario" = blas ]; then
        [ "$(stat "$mode" faulted_accesses)" -gt 0 ] || fail "mode=$mode: no page faults counted for my_dgemm"
        grep -q "is used by code built without the iopoly plugin ('my_d" "$mode.err" ||
          { cat "$mode.err"; fail "mode=$mode: the page faults are not reported naming the routine"; }
      elif grep -q "iopoly: " "$mode.err"; then
        cat "$mode.err"
        fail "mode=$mode: the runtime complained about compiled code"
      fi
      echo "$scenario$opt mode=$mode: identical output, $(stat "$mode" stripe_fetches) stripe fetches, $(stat "$mode" faulted_accesses) page faults served"
    done
    ;;
  frame)
    "$cc" "$opt" -fplugin-arg-iopoly-mode=off "${common[@]}" "$here/frame_sites.c" -o ref
    ./ref > ref.out
    for mode in ${MODES:-lower}; do
      "$cc" "$opt" -fplugin-arg-iopoly-mode="$mode" "${common[@]}" "$here/frame_sites.c" -S -emit-llvm -o "$mode.ll"
      # Every function's window tables together: at most IOPOLY_MAX_WINDOWS.
      max=$(awk '$1 == "#define" && $2 == "IOPOLY_MAX_WINDOWS" {print $3}' "$here/../../../include/iopoly/abi.h")
      [ -n "$max" ] || fail "IOPOLY_MAX_WINDOWS not found in include/iopoly/abi.h"
      awk -v max="$max" '/^define/ {n = 0} /alloca \[[0-9]+ x %struct.iopoly_window\]/ {
             match($0, /\[[0-9]+ x/); n += substr($0, RSTART + 1, RLENGTH - 3)
             if (n > max) { print "too many windows: " n; exit 1 } }' "$mode.ll" ||
        fail "mode=$mode reserves more than $max windows in a function"
      sites=$(grep -c "call ptr @__iopoly_translate" "$mode.ll" || true)
      "$cc" "$opt" -fplugin-arg-iopoly-mode="$mode" "${common[@]}" "$here/frame_sites.c" -o "$mode"
      ( ulimit -s 8192 && runenv "$mode" "./$mode" ) > "$mode.out" || fail "mode=$mode failed on an 8 MB stack"
      cmp ref.out "$mode.out" || fail "mode=$mode prints something else than mode=off"
      echo "frame$opt mode=$mode: $sites translate sites, bounded windows, identical output on an 8 MB stack"
    done
    ;;
  cxx)
    export IOPOLY_CC=clang++-19
    "$cc" "$opt" -fplugin-arg-iopoly-mode=off "${common[@]}" "$here/cxx_names.cpp" -o ref
    ./ref > ref.out
    for mode in ${MODES:-lower}; do
      "$cc" "$opt" -fplugin-arg-iopoly-mode="$mode" "${common[@]}" "$here/cxx_names.cpp" -o "$mode"
      runenv "$mode" "./$mode" > "$mode.out" || fail "mode=$mode failed"
      cmp ref.out "$mode.out" || fail "mode=$mode prints something else than mode=off"
      for f in grid.B.iop grid.inner.W.iop Field.Values.iop Counts.iop; do
        [ -f "$work/data/disk0/$f" ] || fail "mode=$mode: no file $f (array names: C++ scopes joined by dots)"
      done
      head -c 200 "$work/data/disk0/grid.B.iop" | tr '\0' ' ' | grep -q "elem_size 8" ||
        fail "grid.B's header does not record elem_size 8"
      # Another program opens grid.B with its declared shape.
      unset IOPOLY_CC
      "$plain" -I"$inc" "$here/reopen_shape.c" -L"$(dirname "$IOPOLY_BIN")/lib" -liopoly \
        -Wl,-rpath,"$(dirname "$IOPOLY_BIN")/lib" -o reopen
      export IOPOLY_CC=clang++-19
      env IOPOLY_DIR="$work/data" IOPOLY_DISKS=4 IOPOLY_STRIPE=4K IOPOLY_DISK_MODEL=none IOPOLY_DIRECT=off \
        ./reopen > reopen.out || { cat reopen.out; fail "reopen_shape could not open grid.B as double[64][48]"; }
      grep -q "grid.B\[10\]\[7\] = 12$" reopen.out || { cat reopen.out; fail "reopen_shape read the wrong value"; }
      grep -q "as bytes: .*elem" reopen.out || { cat reopen.out; fail "opening grid.B as bytes was not refused"; }
      echo "cxx$opt mode=$mode: identical output; grid.B reopened as double[64][48] by a plain program"
    done
    ;;
  thrash)
    "$cc" "$opt" -fplugin-arg-iopoly-mode=off "${common[@]}" "$here/colwalk.c" -o ref
    ./ref > ref.out
    for mode in ${MODES:-lower}; do
      "$cc" "$opt" -fplugin-arg-iopoly-mode="$mode" "${common[@]}" "$here/colwalk.c" -o "$mode"
      rm -rf "$work/data"
      env IOPOLY_DIR="$work/data" IOPOLY_DISKS=4 IOPOLY_STRIPE=4K IOPOLY_BUFFER=64K IOPOLY_DISK_MODEL=none \
        IOPOLY_DIRECT=off IOPOLY_PROGRESS=10ms "./$mode" > "$mode.out" 2> "$mode.err" ||
        { cat "$mode.err"; fail "mode=$mode failed"; }
      cmp ref.out "$mode.out" || fail "mode=$mode prints something else than mode=off"
      n=$(grep -c "iopoly: warning: array 'G' (512.0 KiB) has been read from disk" "$mode.err" || true)
      [ "$n" = 1 ] || { cat "$mode.err"; fail "mode=$mode: $n thrash warnings for G, not 1"; }
      if [ "$mode" = lower ]; then
        grep -q "most of its fetches come from the loop at .*colwalk.c:18:.* in 'main'" "$mode.err" ||
          { cat "$mode.err"; fail "mode=$mode: the warning does not name the loop"; }
        # The stride is known where the address is an add recurrence (not
        # at -O0, where every access reloads its pointer).
        [ "$opt" = -O0 ] || grep -q "it walks 'G' across its rows" "$mode.err" ||
          { cat "$mode.err"; fail "mode=$mode: the warning does not say how the loop walks G"; }
      fi
      grep -q "iopoly: progress [0-9]* s: 'G' .* read (.*/s)" "$mode.err" ||
        { cat "$mode.err"; fail "mode=$mode: no progress line"; }
      echo "thrash$opt mode=$mode: one warning naming the loop, progress reported"
    done
    ;;
  *) fail "unknown scenario" ;;
esac
