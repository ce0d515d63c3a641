#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# test/install/install.sh - `cmake --install` into a scratch prefix, then
# use the prefix the way a user would, after moving it elsewhere:
#   1. the layout: bin/, lib/, include/, share/doc/iopoly (README, LICENSE,
#      examples), lib/cmake/IOPoly; no installed text file names the source
#      or build tree or the prefix itself; lib/libiopoly_mpiio.so finds its
#      libraries (ldd);
#   2. the prefix is moved (the original path no longer exists), then the
#      CMake project it ships (share/doc/iopoly/examples/cmake-project, from
#      test/install/downstream) is configured with find_package(IOPoly),
#      built and run: the lowered program prints exactly what its
#      mode=off twin prints, and fetched stripes (IOPOLY_STATS); with gcc as
#      the C compiler, configuring it stops with the reason;
#   3. the same program compiled by the moved bin/iopoly-clang, called
#      through a symbolic link from another directory, gives the same
#      output; so does an example kernel (share/doc/iopoly/examples/kernels);
#   4. opt-19 loads the moved lib/IOPoly.so; the moved bin/iopoly-mpicc
#      builds the program, which runs on the MPI-IO backend (the moved
#      libiopoly loads the moved libiopoly_mpiio.so).
# Environment (set by CMakeLists.txt): IT_SRC (source tree), IT_BUILD (build
# tree), IT_TMP (scratch), IT_CMAKE, IT_GENERATOR, IT_MAKE, IT_CC (clang-19),
# IT_OPT (opt-19), IT_MPIIO (1 when libiopoly_mpiio is built), IT_MPICC (1
# when iopoly-mpicc is generated).
set -euo pipefail
: "${IT_SRC:?}" "${IT_BUILD:?}" "${IT_TMP:?}" "${IT_CMAKE:?}" "${IT_GENERATOR:?}" "${IT_CC:?}"

work=$IT_TMP/prefix-check
rm -rf "$work"
mkdir -p "$work"
fail() {
  echo "FAIL (install): $*" >&2
  exit 1
}
step() { echo "== $*"; }

# Runs of the lowered programs: 64 KiB stripes on 8 disks (what the
# programs were compiled for) and a 16-stripe buffer, 2/3 of heat.c's data.
# (Lowered code keeps stripes pinned per reference, per unrolled copy of a
# loop: heat.c at -O3 needs more than 12 frames, or it stops with "stripe
# buffer full".)
lowered_env=(IOPOLY_DISKS=8 IOPOLY_STRIPE=64K IOPOLY_BUFFER=1M IOPOLY_DISK_MODEL=none IOPOLY_DIRECT=off)
# check_run NAME REF.out: NAME's output and stats in $work/NAME.*.
check_run() {
  local name=$1 ref=$2
  cmp "$ref" "$work/$name.out" || fail "$name: output differs from the mode=off build ($ref)"
  local fetches
  fetches=$(sed -n 's/.*"stripe_fetches":\([0-9]*\).*/\1/p' "$work/$name.stats.json")
  [ -n "$fetches" ] && [ "$fetches" -gt 0 ] || fail "$name: no stripe fetches in $work/$name.stats.json"
  # The thrash notice (a small buffer re-reads the arrays each step) is
  # what this run is expected to say; anything else is a complaint.
  if grep -v "has been read from disk .* times over" "$work/$name.err" | grep -q "iopoly: \(warning\|fatal\|error\)"; then
    cat "$work/$name.err" >&2
    fail "$name: the runtime complained"
  fi
  echo "$name: same output as mode=off, $fetches stripe fetches"
}
# run_lowered NAME PROGRAM [ENV...]
run_lowered() {
  local name=$1 prog=$2
  shift 2
  local rc=0
  env "${lowered_env[@]}" IOPOLY_DIR="$work/data-$name" IOPOLY_STATS="$work/$name.stats.json" "$@" \
    "$prog" > "$work/$name.out" 2> "$work/$name.err" || rc=$?
  if [ $rc -ne 0 ]; then
    cat "$work/$name.err" >&2
    fail "$name: exit status $rc"
  fi
  check_run "$name" "$work/heat_ref.out"
}

step "cmake --install $IT_BUILD --prefix $work/prefix"
prefix=$work/prefix
"$IT_CMAKE" --install "$IT_BUILD" --prefix "$prefix" > "$work/install.log" || { cat "$work/install.log"; fail "cmake --install failed"; }

step "layout"
expect=(bin/iopoly-clang bin/iopoly-trace lib/IOPoly.so lib/libiopoly.so include/iopoly.h
  share/doc/iopoly/LICENSE share/doc/iopoly/examples/cmake-project/CMakeLists.txt
  share/doc/iopoly/examples/cmake-project/heat.c share/doc/iopoly/examples/kernels/stencil.c
  share/doc/iopoly/examples/kernels/kernel.h
  lib/cmake/IOPoly/IOPolyConfig.cmake lib/cmake/IOPoly/IOPolyConfigVersion.cmake
  lib/cmake/IOPoly/IOPolyTargets.cmake)
[ "${IT_MPICC:-0}" = 1 ] && expect+=(bin/iopoly-mpicc)
[ "${IT_MPIIO:-0}" = 1 ] && expect+=(lib/libiopoly_mpiio.so)
[ -f "$IT_SRC/README.md" ] && expect+=(share/doc/iopoly/README.md)
for f in "${expect[@]}"; do
  [ -e "$prefix/$f" ] || fail "missing from the prefix: $f"
done
for f in "$prefix"/bin/*; do
  [ -x "$f" ] || fail "not executable: ${f#"$prefix"/}"
done
ls "$prefix"/lib/libiopoly.so.* > /dev/null 2>&1 || fail "missing from the prefix: lib/libiopoly.so.<version>"
for tree in "$IT_SRC" "$IT_BUILD" "$prefix"; do
  if refs=$(grep -rIl -F -- "$tree" "$prefix"); then
    fail "installed text files name $tree (they must work from the prefix alone, wherever it is): $refs"
  fi
done
if [ "${IT_MPIIO:-0}" = 1 ] && ldd "$prefix/lib/libiopoly_mpiio.so" | grep "not found"; then
  fail "lib/libiopoly_mpiio.so does not find its libraries (RPATH)"
fi
echo "layout ok (${#expect[@]} files); no text file names the source, build or install tree"

step "move the prefix"
moved=$work/elsewhere/iopoly
mkdir -p "$work/elsewhere"
mv "$prefix" "$moved"
ex=$moved/share/doc/iopoly/examples

step "downstream CMake project (find_package(IOPoly), IOPoly::plugin)"
gen=(-G "$IT_GENERATOR")
[ -n "${IT_MAKE:-}" ] && gen+=(-DCMAKE_MAKE_PROGRAM="$IT_MAKE")
"$IT_CMAKE" -S "$ex/cmake-project" -B "$work/downstream" "${gen[@]}" -DCMAKE_C_COMPILER="$IT_CC" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$moved" > "$work/downstream.configure.log" 2>&1 ||
  { cat "$work/downstream.configure.log"; fail "the downstream project does not configure"; }
"$IT_CMAKE" --build "$work/downstream" > "$work/downstream.build.log" 2>&1 ||
  { cat "$work/downstream.build.log"; fail "the downstream project does not build"; }
"$work/downstream/heat_ref" > "$work/heat_ref.out" || fail "heat_ref failed"
# With a compiler the plugin cannot load into, configuring stops and says why.
if command -v gcc > /dev/null; then
  if "$IT_CMAKE" -S "$ex/cmake-project" -B "$work/downstream-gcc" "${gen[@]}" -DCMAKE_C_COMPILER=gcc \
    -DCMAKE_PREFIX_PATH="$moved" > "$work/downstream-gcc.log" 2>&1; then
    fail "the downstream project configures with gcc as the C compiler"
  fi
  grep -q "IOPoly::plugin is a clang 19 plugin" "$work/downstream-gcc.log" ||
    { cat "$work/downstream-gcc.log"; fail "configuring with gcc does not say that the plugin needs clang 19"; }
  echo "configuring the downstream project with gcc stops: IOPoly::plugin needs clang 19"
elif [ "${CI:-}" = true ]; then
  fail "CI=true: gcc is not installed, so the check that the plugin refuses gcc would be skipped"
else
  echo "note: gcc is not installed; the check that the plugin refuses gcc is skipped"
fi
grep -q '^checksum [0-9a-f]\{16\}$' "$work/heat_ref.out" || fail "heat_ref printed no checksum"
run_lowered heat "$work/downstream/heat"

step "moved bin/iopoly-clang, called through a symbolic link"
mkdir -p "$work/links"
ln -s "$moved/bin/iopoly-clang" "$work/links/iopoly-clang"
(cd "$work" && "$work/links/iopoly-clang" -O2 "$ex/cmake-project/heat.c" -o "$work/heat_clang") ||
  fail "the moved iopoly-clang cannot compile heat.c"
run_lowered heat_clang "$work/heat_clang"
ldd "$work/heat_clang" | grep "libiopoly.so.0 => $moved/lib/" > /dev/null ||
  fail "heat_clang does not load libiopoly from the moved prefix: $(ldd "$work/heat_clang" | grep libiopoly)"
# An example kernel, small (2 x 72 KiB) on 4 KiB stripes and a 64 KiB
# buffer: mode=off and lowered print the same checksum.
k=(-O1 -DN=96 -DT=2 -fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 "$ex/kernels/stencil.c")
"$moved/bin/iopoly-clang" -fplugin-arg-iopoly-mode=off "${k[@]}" -o "$work/stencil_ref"
"$moved/bin/iopoly-clang" "${k[@]}" -o "$work/stencil"
"$work/stencil_ref" > "$work/stencil_ref.out" || fail "examples/kernels/stencil.c (mode=off) failed"
env "${lowered_env[@]}" IOPOLY_STRIPE=4K IOPOLY_DISKS=4 IOPOLY_BUFFER=64K IOPOLY_DIR="$work/data-stencil" \
  "$work/stencil" > "$work/stencil.out" || fail "examples/kernels/stencil.c (lowered) failed"
cmp "$work/stencil_ref.out" "$work/stencil.out" || fail "examples/kernels/stencil.c: lowered output differs"
grep -q '^checksum' "$work/stencil.out" || fail "examples/kernels/stencil.c printed no checksum"
echo "examples/kernels/stencil.c: same checksum lowered and mode=off"

if [ -n "${IT_OPT:-}" ]; then
  step "opt loads the moved lib/IOPoly.so"
  "$IT_OPT" -load-pass-plugin="$moved/lib/IOPoly.so" -passes=iopoly-globals,iopoly-lower -disable-output /dev/null ||
    fail "opt cannot load the moved IOPoly.so"
fi

if [ "${IT_MPICC:-0}" = 1 ] && [ "${IT_MPIIO:-0}" = 1 ]; then
  step "moved bin/iopoly-mpicc, MPI-IO backend from the moved lib/"
  "$moved/bin/iopoly-mpicc" -O2 "$ex/cmake-project/heat.c" -o "$work/heat_mpicc" ||
    fail "the moved iopoly-mpicc cannot compile heat.c"
  readelf -d "$work/heat_mpicc" | grep libmpi > /dev/null || fail "iopoly-mpicc did not link MPI"
  run_lowered heat_mpicc "$work/heat_mpicc" IOPOLY_BACKEND=mpiio
  grep -q '"backend":"mpiio"' "$work/heat_mpicc.stats.json" || fail "heat_mpicc did not run on the MPI-IO backend"
fi
echo "install: all checks passed"
