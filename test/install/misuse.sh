#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# test/install/misuse.sh SCENARIO - code that is not compiled with the
# plugin meets disk-resident memory, and wrong plugin options: each either
# works or stops with a clear error naming the array (or the option).
#   extern         misuse/extern_user.c (plain clang-19) declares
#                  extern double A[] of misuse/global_def.c's disk-resident
#                  A: the link fails naming A (the control, global_def.c
#                  built with mode=off, links and runs)
#   plainA plainB  pass_out.c hands A (a disk-resident global) or B (from
#                  iopoly_alloc) to plain_sum.c built with plain clang-19
#   soA soB        the same with plain_sum in a shared library
#   qsortA qsortB  ... to libc's qsort
#   fwriteA        ... to libc's fwrite
#                  Each of these works through the runtime's page-fault
#                  service: the output is that of the same program built
#                  with mode=off (ordinary memory), and the runtime says
#                  once which code it served ("is used by code built
#                  without the iopoly plugin (...)", naming plain_sum or
#                  qsort where it can). With IOPOLY_FAULTS=off the program
#                  must instead exit non-zero with "direct access to
#                  disk-resident array '<A|B>'" and print no result.
#   options        wrong -fplugin-arg-iopoly-* options through iopoly-clang
#                  and iopoly-mpicc, when compiling and when only linking:
#                  non-zero exit, the message names the option; the right
#                  options (the control) are accepted
# Environment (set by CMakeLists.txt): IT_BIN (iopoly-clang, iopoly-mpicc),
# IT_CC (plain clang-19), IT_TMP (scratch).
set -euo pipefail
scenario=${1:?usage: misuse.sh SCENARIO}
: "${IT_BIN:?}" "${IT_CC:?}" "${IT_TMP:?}"
src=$(cd "$(dirname "$0")" && pwd)/misuse
work=$IT_TMP/misuse/$scenario
rm -rf "$work"
mkdir -p "$work"
cd "$work"
fail() {
  echo "FAIL (misuse $scenario): $*" >&2
  exit 1
}
export IOPOLY_DIR=$work/data IOPOLY_DISKS=2 IOPOLY_STRIPE=4K IOPOLY_BUFFER=16K IOPOLY_DISK_MODEL=none IOPOLY_DIRECT=off
# Compiled for the striping of the runs (no warning about a mismatch).
cc=$IT_BIN/iopoly-clang
pflags=(-fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=2)

# expect_stop NAME PROGRAM ARGS...: PROGRAM must fail, naming array NAME.
expect_stop() {
  local name=$1 rc=0
  shift
  "$@" > out.txt 2> err.txt || rc=$?
  echo "+ $* -> exit $rc"
  cat err.txt
  [ $rc -ne 0 ] || { cat out.txt; fail "$* exited 0"; }
  grep -q "iopoly: fatal: direct access to disk-resident array '$name'" err.txt ||
    fail "$*: no 'direct access to disk-resident array '$name'' message"
  if [ -s out.txt ]; then
    cat out.txt
    fail "$*: printed a result after touching disk-resident memory from plain code"
  fi
}

case "$scenario" in
  extern)
    "$IT_CC" -O1 -c "$src/extern_user.c" -o extern_user.o
    "$cc" -O1 "${pflags[@]}" -c "$src/global_def.c" -o global_def.o
    nm global_def.o | grep ' A\.iopoly$' > /dev/null || fail "global_def.o has no A.iopoly slot: A was not lowered"
    rc=0
    "$cc" global_def.o extern_user.o -o linked 2> link.err || rc=$?
    cat link.err
    [ $rc -ne 0 ] || fail "a TU without the plugin linked against the disk-resident A"
    grep -q "undefined reference to .A'" link.err || fail "the link error does not name A"
    # Control: the same two files link and run when A is ordinary memory.
    "$cc" -O1 -fplugin-arg-iopoly-mode=off -c "$src/global_def.c" -o global_def_off.o
    "$cc" global_def_off.o extern_user.o -o linked_off || fail "control: mode=off does not link"
    [ "$(./linked_off)" = 8386560 ] || fail "control: mode=off prints $(./linked_off), not 8386560"
    echo "extern: the link fails naming A; with mode=off it links and prints 8386560"
    ;;
  plainA | plainB | soA | soB | qsortA | qsortB | fwriteA)
    name=${scenario: -1}
    "$IT_CC" -O1 -c "$src/plain_sum.c" -o plain_sum.o
    "$IT_CC" -O1 -fPIC -shared "$src/plain_sum.c" -o libplain.so
    "$cc" -O1 "${pflags[@]}" -c "$src/pass_out.c" -o pass_out.o
    "$cc" pass_out.o plain_sum.o -o pass_out
    "$cc" pass_out.o -L. -lplain -Wl,-rpath,"$work" -o pass_out_so
    # The reference: the same program on ordinary memory.
    "$cc" -O1 -fplugin-arg-iopoly-mode=off -c "$src/pass_out.c" -o pass_out_off.o
    "$cc" pass_out_off.o plain_sum.o -o pass_out_off
    # Control: the program works while nothing leaves compiled code.
    ./pass_out inside > inside.txt || fail "control: pass_out inside failed"
    [ "$(cat inside.txt)" = "inside: 8.39066e+06 4.19328e+06" ] || fail "control: pass_out inside printed $(cat inside.txt)"
    prog=./pass_out
    case "$scenario" in
      so*) prog=./pass_out_so; what=plain$name ;;
      *) what=$scenario ;;
    esac
    ./pass_out_off "$what" > ref.txt || fail "mode=off reference failed"
    rc=0
    $prog "$what" > out.txt 2> err.txt || rc=$?
    echo "+ $prog $what -> exit $rc"
    cat err.txt
    [ $rc -eq 0 ] || fail "$prog $what failed with plain code on disk-resident memory"
    cmp ref.txt out.txt || { diff ref.txt out.txt; fail "$prog $what printed something else than mode=off"; }
    # fwrite goes through libiopoly's wrapper, without faults; the others
    # are served through page faults and reported once, naming the code.
    if [ "$scenario" != fwriteA ]; then
      [ "$(grep -c "iopoly: note: disk-resident array '$name' is used by code built without the iopoly plugin" err.txt)" = 1 ] ||
        fail "the page faults on '$name' are not reported exactly once"
      case "$scenario" in
        so*) grep -q "'plain_sum' in libplain.so" err.txt || fail "the report does not name plain_sum in libplain.so" ;;
        qsort*) grep -q "in libc.so" err.txt || fail "the report does not name libc" ;;
      esac
    fi
    echo "$scenario: same output as mode=off ($(head -1 out.txt))"
    # With the service off, the same program stops naming the array.
    if [ "$scenario" != fwriteA ]; then
      IOPOLY_FAULTS=off expect_stop "$name" $prog "$what"
    fi
    ;;
  options)
    wrappers=("$cc")
    [ -x "$IT_BIN/iopoly-mpicc" ] && wrappers+=("$IT_BIN/iopoly-mpicc")
    "$IT_CC" -O1 -c "$src/plain_sum.c" -o plain_sum.o
    printf 'int main(void) { return 0; }\n' > ok.c
    "$IT_CC" -c ok.c -o ok.o
    for w in "${wrappers[@]}"; do
      # Control: right options compile and link.
      good=(-fplugin-arg-iopoly-mode=off -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4
        -fplugin-arg-iopoly-hoist=false)
      "$w" "${good[@]}" -c "$src/global_def.c" -o g.o || fail "$(basename "$w") rejects right options"
      "$w" "${good[@]}" ok.o -o ok || fail "$(basename "$w") rejects right options when linking"
      for bad in mode=fast bogus=1 disks=0 stripe=abc hoist=maybe mode; do
        opt=${bad%%=*}
        for step in compile link; do
          args=(-c "$src/global_def.c" -o bad.o)
          [ $step = link ] && args=(ok.o -o bad)
          rc=0
          "$w" "-fplugin-arg-iopoly-$bad" "${args[@]}" > out.txt 2> err.txt || rc=$?
          echo "+ $(basename "$w") -fplugin-arg-iopoly-$bad ($step) -> exit $rc: $(grep -m1 error: err.txt || true)"
          [ $rc -ne 0 ] || fail "$(basename "$w") accepted -fplugin-arg-iopoly-$bad ($step)"
          grep "error:" err.txt | grep "$opt" > /dev/null || { cat err.txt; fail "the error does not name '$opt'"; }
        done
      done
    done
    echo "options: every wrong option is an error naming it, compiling and linking"
    ;;
  *) fail "unknown scenario" ;;
esac
