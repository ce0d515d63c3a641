#!/usr/bin/env bash
# Shared set-up of scripts/demo.sh and scripts/test.sh: check or install the
# Debian packages, then configure and build with CMake + Ninja.
# Sourced, not run. Honors IOPOLY_BUILD_DIR (default: build).

IOPOLY_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
IOPOLY_PACKAGES=(clang-19 llvm-19-dev libpolly-19-dev libclang-19-dev llvm-19-tools
  libclang-rt-19-dev libopenmpi-dev openmpi-bin libgtest-dev cmake ninja-build python3
  nlohmann-json3-dev libpnetcdf-dev libsqlite3-dev) # the last two: KNOWAC (runtime/knowac)
# What the benchmark reports need besides (their plots): iopoly_ensure_packages
# "${IOPOLY_BENCH_PACKAGES[@]}".
IOPOLY_BENCH_PACKAGES=(python3-matplotlib)

# The python3 that has matplotlib (Debian's python3-matplotlib is for
# /usr/bin/python3, which may not be the python3 first on PATH).
iopoly_bench_python() {
  local c
  for c in python3 /usr/bin/python3; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import matplotlib' 2>/dev/null; then echo "$c"; return; fi
  done
  echo python3
}

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# Installs whatever is missing with apt-get (as root or through sudo), or
# says exactly what to install.
iopoly_ensure_packages() {
  local extra=("$@") missing=() p
  for p in "${IOPOLY_PACKAGES[@]}" "${extra[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep 'install ok installed' > /dev/null || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    say "missing packages: ${missing[*]}"
    say "this is not a Debian/Ubuntu system: install LLVM/clang 19 with Polly, OpenMPI, GoogleTest, CMake and Ninja, then rerun"
    return 1
  fi
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
      say "missing packages: ${missing[*]}; run: apt-get install -y ${missing[*]}"
      return 1
    fi
  fi
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq || true
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# iopoly_build DIR [--target T] [cmake args...]: configure (once) and build
# (everything, or target T).
iopoly_build() {
  local dir=$1 target=()
  shift
  if [ "${1:-}" = --target ]; then target=(--target "$2"); shift 2; fi
  if [ ! -f "$dir/build.ninja" ]; then
    say "configuring $dir"
    cmake -S "$IOPOLY_ROOT" -B "$dir" -G Ninja \
      -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 "$@" >"$dir.configure.log" 2>&1 ||
      { cat "$dir.configure.log"; return 1; }
  fi
  say "building $dir${target[*]:+ (${target[*]})}"
  cmake --build "$dir" "${target[@]}" -- -j"$(nproc)"
}
