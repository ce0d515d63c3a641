#!/usr/bin/env bash
# scripts/test.sh - set up, build and run every test through ctest.
#
#   scripts/test.sh            the normal build: unit, API, MPI, lit, end-to-end
#   scripts/test.sh --asan     the suite under AddressSanitizer + UBSan (test programs
#                              instrumented too; a slice of the random programs)
#   scripts/test.sh --tsan     threaded tests, e2e kernels and the random slice under
#                              ThreadSanitizer
#   scripts/test.sh --all      all three (what CI runs; .ci/run sets CI=true, which
#                              makes every skipped test a failure)
#   -R REGEX                   only tests matching REGEX (passed to ctest)
# The sanitizer builds reuse the normal build's plugin (it runs inside clang,
# uninstrumented), so they build it first if needed.
set -euo pipefail
source "$(dirname "$0")/common.sh"

variants=() ctest_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --asan) variants+=(asan) ;;
    --tsan) variants+=(tsan) ;;
    --all) variants+=(normal asan tsan) ;;
    -R) ctest_args+=(-R "$2"); shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ ${#variants[@]} -eq 0 ] && variants=(normal)

iopoly_ensure_packages
cd "$IOPOLY_ROOT"
export IOPOLY_ROOT
jobs=$(nproc)

plugin=$IOPOLY_ROOT/build/lib/IOPoly.so
plugin_from_normal_build() {
  iopoly_build build --target IOPoly
}

start=$(date +%s)
for v in "${variants[@]}"; do
  case "$v" in
    normal)
      iopoly_build build
      say "running the test suite (normal build)"
      ctest --test-dir build --output-on-failure -j"$jobs" "${ctest_args[@]}" ;;
    asan)
      plugin_from_normal_build
      iopoly_build build-asan -DIOPOLY_SANITIZE='address;undefined' -DIOPOLY_PREBUILT_PLUGIN="$plugin"
      say "running the test suite under AddressSanitizer + UBSan"
      ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir build-asan --output-on-failure -j"$jobs" "${ctest_args[@]}" ;;
    tsan)
      plugin_from_normal_build
      iopoly_build build-tsan -DIOPOLY_SANITIZE=thread -DIOPOLY_PREBUILT_PLUGIN="$plugin"
      say "running the threaded tests, the e2e kernels and the random slice under ThreadSanitizer"
      TSAN_OPTIONS=halt_on_error=1 IOPOLY_MODEL_SEQUENCES=300 \
        ctest --test-dir build-tsan --output-on-failure -j"$jobs" -L 'threads|e2e|slice' "${ctest_args[@]}" ;;
  esac
done
say "all tests passed (${variants[*]}) in $(( $(date +%s) - start )) s"
