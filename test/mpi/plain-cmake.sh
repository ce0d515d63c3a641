#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# test/mpi/plain-cmake.sh - the runtime as a new user builds it: a plain
# `cmake` + `cmake --build` with whatever C++ compiler CMake picks (g++ on
# Debian), no generator or compiler named. The MPI-IO module of that build
# must load (Open MPI's <mpi.h> pulls in C++ bindings that libmpi does not
# have unless OMPI_SKIP_MPICXX is defined), and two MPI test programs built
# against it must pass: rank_arrays under mpirun -np 4 and plain_c alone.
# Only the runtime and the module are built (-O0), to keep CI time short.
# Environment (set by CMakeLists.txt): PC_SRC (source tree), PC_TMP
# (scratch), PC_CMAKE, PC_MPICC (mpicc), plus the MT_* variables of
# run-mpi-test.sh except MT_BIN and MT_LIB, which point into this build.
set -euo pipefail
: "${PC_SRC:?}" "${PC_TMP:?}" "${PC_CMAKE:?}" "${PC_MPICC:?}"
fail() {
  echo "FAIL (plain cmake build): $*" >&2
  exit 1
}
if ! command -v g++ >/dev/null 2>&1 && ! command -v c++ >/dev/null 2>&1; then
  exec "$PC_SRC/test/skip.sh" "no default C++ compiler (c++/g++) installed" # 77, or 1 with CI=true
fi
build=$PC_TMP/plain-cmake
rm -rf "$build"
mkdir -p "$build"
# The user's environment, not the test suite's: no CC/CXX, no flags.
unset CC CXX CFLAGS CXXFLAGS LDFLAGS
"$PC_CMAKE" -S "$PC_SRC" -B "$build/tree" -DIOPOLY_BUILD_PLUGIN=OFF -DIOPOLY_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=Debug >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; fail "cmake configure"; }
compiler=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/tree/CMakeCache.txt")
echo "plain cmake build with C++ compiler: $compiler"
"$PC_CMAKE" --build "$build/tree" --target iopoly iopoly_mpiio -- -j2 >"$build/build.log" 2>&1 ||
  { tail -40 "$build/build.log"; fail "cmake --build"; }
lib=$build/tree/lib
[ -f "$lib/libiopoly_mpiio.so" ] || fail "no libiopoly_mpiio.so in $lib"
if nm -D --undefined-only "$lib/libiopoly_mpiio.so" | grep -E ' _ZN3MPI' >&2; then
  fail "libiopoly_mpiio.so references Open MPI's C++ bindings (above)"
fi
python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)' "$lib/libiopoly_mpiio.so" ||
  fail "libiopoly_mpiio.so does not load"

bin=$build/bin
mkdir -p "$bin"
inc=$PC_SRC/include
"$PC_MPICC" -std=c11 -I"$inc" "$PC_SRC/test/mpi/rank_arrays.c" -o "$bin/rank_arrays" -L"$lib" -liopoly \
  -Wl,-rpath,"$lib" || fail "cannot build rank_arrays against the plain build"
cc -std=c11 -I"$inc" "$PC_SRC/test/mpi/plain_c.c" -o "$bin/plain_c" -L"$lib" -liopoly -Wl,-rpath,"$lib" ||
  fail "cannot build plain_c against the plain build"
export MT_BIN=$bin MT_LIB=$lib MT_TMP=$build/mpi MT_SANITIZE=
for s in rank_arrays plain_c_alone; do
  "$PC_SRC/test/mpi/run-mpi-test.sh" "$s" || fail "scenario $s with the plain build"
done
echo "PASS (plain cmake build, $compiler)"
