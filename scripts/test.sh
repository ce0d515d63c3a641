#!/usr/bin/env bash
# scripts/test.sh - set up, build and run every test through ctest.
#
#   scripts/test.sh            the normal build: unit, API, MPI, lit, end-to-end
#   scripts/test.sh --asan     the whole suite under AddressSanitizer + UBSan
#   scripts/test.sh --tsan     the threaded tests under ThreadSanitizer
#   scripts/test.sh --all      all three (what CI runs)
#   -R REGEX                   only tests matching REGEX (passed to ctest)
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

for v in "${variants[@]}"; do
  case "$v" in
    normal)
      iopoly_build build
      say "running the test suite (normal build)"
      ctest --test-dir build --output-on-failure -j"$jobs" "${ctest_args[@]}" ;;
    asan)
      iopoly_build build-asan -DIOPOLY_SANITIZE='address;undefined' -DIOPOLY_BUILD_PLUGIN=OFF
      say "running the test suite under AddressSanitizer + UBSan"
      ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir build-asan --output-on-failure -j"$jobs" "${ctest_args[@]}" ;;
    tsan)
      iopoly_build build-tsan -DIOPOLY_SANITIZE=thread -DIOPOLY_BUILD_PLUGIN=OFF
      say "running the threaded tests under ThreadSanitizer"
      TSAN_OPTIONS=halt_on_error=1 IOPOLY_MODEL_SEQUENCES=300 \
        ctest --test-dir build-tsan --output-on-failure -j"$jobs" -L threads "${ctest_args[@]}" ;;
  esac
done
say "all tests passed (${variants[*]})"
