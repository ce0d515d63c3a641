#!/usr/bin/env bash
# scripts/bench-runtime.sh - the runtime benchmark report (issue 2, section 6).
#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# One command builds what is needed (a Release build in build-bench/), runs
# the benchmarks and writes bench/results/runtime.md, bench/results/*.png and
# the raw per-run data under bench/results/raw/runtime/ (kept in git):
#
#  (a) the Comanche wavefront (paper 3, Fig. 4.1) on N x N doubles at several
#      N, the stripe buffer at 1/4 of the data, in four versions under one
#      memory limit per N (a memory cgroup created for each run, the page
#      cache dropped before each run): mmap (plain kernel over an mmap of the
#      file), mmap+MADV_RANDOM (the same without the kernel's read-around),
#      attach (iopoly attach/release) and seeker (seeker/reaper); plus, at
#      one N, a seeker look-ahead sweep and the versions with the data in
#      memory (tmpfs, no limit: their CPU cost). Checksums must agree.
#  (b) attach+release of a resident block, ns per pair (bench/micro).
#  (c) a sequential scan through the posix backend against O_DIRECT dd on
#      the same directory with the same block size (bench/scan).
#
# Usage: scripts/bench-runtime.sh [options]
#   --sizes "N1 N2 ..."  wavefront sizes (default "2048 4096 8192")
#   --large              also N=16384 (2 GiB matrix; adds at least one
#                        timeout, for the plain mmap run, plus the others)
#   --timeout SEC        per-run time limit (default 400); a run that hits it
#                        is reported as "> SEC s (timeout)" and its ratios
#                        as lower bounds
#   --sweep-n N          N of the seeker look-ahead sweep and of the
#                        in-memory reference (default 4096, or the middle
#                        size; 0 skips both)
#   --scan-bytes BYTES   size of the scanned array (K/M/G; default 1G)
#   --scan-reps R        repetitions of each scan/dd measurement (default 3)
#   --disk-model MODEL   IOPOLY_DISK_MODEL for modeled_io_seconds (default hdd)
#   --dir DIR            data directory, on the disk to measure (default
#                        iopoly-data/bench in the repository; needs space for
#                        2 x 8 N^2 bytes and the scan, about 2.2 GiB by default)
#   --build DIR          build directory (default build-bench)
#   --only PARTS         comma list of wavefront,micro,scan (default all)
#   --keep-data          keep the data directory afterwards
#   --no-plots           do not make the PNG plots
#   --quick              smoke run: --sizes "1024 2048" --timeout 60
#                        --scan-bytes 256M --scan-reps 1 --sweep-n 0
#
# Needs root (or a delegated cgroup) for the memory limit and for dropping
# the page cache; without them it still runs and the report says plainly
# what could not be done. Wall times depend on the machine and on whatever
# else runs on it; the report describes both. It is not part of CI.
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$IOPOLY_ROOT"

sizes="2048 4096 8192" large=0 timeout_s=400 sweep_n="" scan_bytes=1G scan_reps=3
disk_model=hdd data_dir="$IOPOLY_ROOT/iopoly-data/bench" build_dir=build-bench
only="wavefront,micro,scan" keep_data=0 plots=1
command_line="scripts/bench-runtime.sh${*:+ $*}"
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes=$2; shift ;;
    --large) large=1 ;;
    --timeout) timeout_s=$2; shift ;;
    --sweep-n) sweep_n=$2; shift ;;
    --scan-bytes) scan_bytes=$2; shift ;;
    --scan-reps) scan_reps=$2; shift ;;
    --disk-model) disk_model=$2; shift ;;
    --dir) data_dir=$2; shift ;;
    --build) build_dir=$2; shift ;;
    --only) only=$2; shift ;;
    --keep-data) keep_data=1 ;;
    --no-plots) plots=0 ;;
    --quick) sizes="1024 2048" timeout_s=60 scan_bytes=256M scan_reps=1 sweep_n=0 ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
    *) echo "bench-runtime.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ "$large" = 1 ] && sizes="$sizes 16384"
read -r -a size_list <<<"$sizes"
for n in "${size_list[@]}"; do
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 512 ] && [ $((n % 512)) -eq 0 ] ||
    { echo "bench-runtime.sh: N=$n: sizes must be multiples of 512" >&2; exit 2; }
done
if [ -z "$sweep_n" ]; then
  sweep_n=${size_list[$((${#size_list[@]} / 2))]}
  for n in "${size_list[@]}"; do [ "$n" = 4096 ] && sweep_n=4096; done
fi
part() { [[ ",$only," == *",$1,"* ]]; }

to_bytes() { # 64K, 1G, 123 -> bytes
  local v=${1%[KkMmGg]} u=${1: -1}
  case "$u" in
    K|k) echo $((v << 10)) ;; M|m) echo $((v << 20)) ;; G|g) echo $((v << 30)) ;; *) echo "$1" ;;
  esac
}
scan_bytes=$(to_bytes "$scan_bytes")
mib() { echo $(($1 >> 20)); }

results="$IOPOLY_ROOT/bench/results"
raw="$results/raw/runtime" # its own folder: it is emptied before each run
t_start=$(date +%s)

# ---- build ------------------------------------------------------------------
iopoly_ensure_packages
iopoly_build "$build_dir" -DCMAKE_BUILD_TYPE=Release -DIOPOLY_BUILD_TESTS=OFF \
  -DIOPOLY_BUILD_PLUGIN=OFF -DIOPOLY_WITH_MPI=OFF
case "$build_dir" in /*) bin="$build_dir/bench" ;; *) bin="$IOPOLY_ROOT/$build_dir/bench" ;; esac
for p in wavefront attach-release scan; do
  [ -x "$bin/$p" ] || { say "missing $bin/$p after the build"; exit 1; }
done

# ---- python for the report and the plots -------------------------------------
py=""
for c in python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
if [ -z "$py" ] && [ "$plots" = 1 ]; then
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null 2>&1; }; then
    say "installing python3-matplotlib for the plots"
    s=(); [ "$(id -u)" -eq 0 ] || s=(sudo)
    DEBIAN_FRONTEND=noninteractive "${s[@]}" apt-get install -y -qq --no-install-recommends python3-matplotlib \
      >/dev/null 2>&1 || true
    /usr/bin/python3 -c 'import matplotlib' 2>/dev/null && py=/usr/bin/python3
  fi
  [ -n "$py" ] || say "matplotlib is not available (apt-get install python3-matplotlib): the plots are skipped"
fi
if [ -z "$py" ]; then
  plots=0
  py=$(command -v python3 || command -v /usr/bin/python3 || true)
  [ -n "$py" ] || { say "python3 is needed to write the report"; exit 1; }
fi

# ---- memory cgroup and page cache --------------------------------------------
# A fresh cgroup for each limited run, created below the cgroup this script
# runs in (so it stays inside whatever limits the machine already imposes).
cg_kind=none cg_base="" cg_note=""
cg_probe() {
  local line path mnt
  line=$(grep -E '^[0-9]+:([^:]*,)?memory(,[^:]*)?:' /proc/self/cgroup 2>/dev/null | head -1 || true)
  if [ -n "$line" ] && [ -d /sys/fs/cgroup/memory ]; then
    path=${line##*:}
    cg_base="/sys/fs/cgroup/memory${path%/}"
    if mkdir "$cg_base/iopoly-bench-probe-$$" 2>/dev/null; then
      if echo $((64 << 20)) >"$cg_base/iopoly-bench-probe-$$/memory.limit_in_bytes" 2>/dev/null; then
        cg_kind=v1
      fi
      rmdir "$cg_base/iopoly-bench-probe-$$"
      [ "$cg_kind" = v1 ] && return 0
    fi
    cg_note="cgroup v1 memory controller at $cg_base is not writable"
  fi
  mnt=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
  line=$(grep -E '^0::' /proc/self/cgroup | head -1 || true)
  if [ -n "$mnt" ] && [ -n "$line" ]; then
    path=${line#0::}
    cg_base="$mnt${path%/}"
    if mkdir "$cg_base/iopoly-bench-probe-$$" 2>/dev/null; then
      [ -e "$cg_base/iopoly-bench-probe-$$/memory.max" ] ||
        echo +memory >"$cg_base/cgroup.subtree_control" 2>/dev/null || true
      if [ -e "$cg_base/iopoly-bench-probe-$$/memory.max" ] &&
        echo $((64 << 20)) >"$cg_base/iopoly-bench-probe-$$/memory.max" 2>/dev/null; then
        cg_kind=v2
      fi
      rmdir "$cg_base/iopoly-bench-probe-$$"
      [ "$cg_kind" = v2 ] && return 0
    fi
    cg_note="${cg_note:+$cg_note; }cgroup v2 at $cg_base has no writable memory controller"
  fi
  [ -n "$cg_note" ] || cg_note="no memory cgroup hierarchy is mounted"
  return 1
}
cg_probe || say "NO MEMORY LIMIT: $cg_note; the mmap runs will have all of the machine's memory"

can_drop=0
if [ -w /proc/sys/vm/drop_caches ]; then can_drop=1; else
  say "cannot drop the page cache (needs root): runs may start with a warm cache"
fi
drop_caches() {
  sync
  [ "$can_drop" = 1 ] && echo 3 >/proc/sys/vm/drop_caches
  return 0
}

# run_limited NAME LIMIT_BYTES TIMEOUT -- CMD...: runs CMD in a fresh memory
# cgroup with that limit (when possible; LIMIT_BYTES "none": no cgroup), the
# page cache dropped first, under a time limit. Writes raw/NAME.out (stdout),
# NAME.err and NAME.meta.
run_limited() {
  local name=$1 limit=$2 tmo=$3 cg="" rc t0 t1 peak="" oom="" load
  shift 4
  drop_caches
  if [ "$cg_kind" != none ] && [ "$limit" != none ]; then
    cg="$cg_base/iopoly-bench-$$-$name"
    mkdir "$cg"
    if [ "$cg_kind" = v1 ]; then
      echo "$limit" >"$cg/memory.limit_in_bytes"
    else
      echo "$limit" >"$cg/memory.max"
      echo 0 >"$cg/memory.swap.max" 2>/dev/null || true
    fi
  fi
  load=$(cut -d' ' -f1 /proc/loadavg)
  t0=$(date +%s.%N)
  set +e
  # In a subshell whose stderr is discarded: when the program is killed
  # (OOM), timeout kills itself with the same signal and bash would print
  # "Killed" over the progress line.
  (
    if [ -n "$cg" ]; then
      timeout -k 10 "$tmo" sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" "$@" \
        >"$raw/$name.out" 2>"$raw/$name.err"
    else
      timeout -k 10 "$tmo" "$@" >"$raw/$name.out" 2>"$raw/$name.err"
    fi
  ) 2>/dev/null
  rc=$?
  set -e
  t1=$(date +%s.%N)
  if [ -n "$cg" ]; then
    if [ "$cg_kind" = v1 ]; then
      peak=$(cat "$cg/memory.max_usage_in_bytes")
      oom=$(awk '$1 == "oom_kill" {print $2}' "$cg/memory.oom_control")
    else
      peak=$(cat "$cg/memory.peak" 2>/dev/null || true)
      oom=$(awk '$1 == "oom_kill" {print $2}' "$cg/memory.events")
    fi
    local i
    for i in 1 2 3 4 5 6 7 8 9 10; do rmdir "$cg" 2>/dev/null && break; sleep 0.5; done
  fi
  {
    echo "name=$name"
    echo "rc=$rc"
    echo "timed_out=$([ "$rc" = 124 ] && echo 1 || echo 0)"
    echo "timeout_s=$tmo"
    echo "elapsed_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", b - a}')"
    echo "limit_bytes=$([ -n "$cg" ] && echo "$limit" || echo none)"
    echo "peak_bytes=$peak"
    echo "oom_kills=$oom"
    echo "load_at_start=$load"
    echo "cmd=$*"
  } >"$raw/$name.meta"
  return 0
}

# Progress: "[k/total] what ... result".
step=0 total=0
progress() { step=$((step + 1)); printf '[%2d/%d] %-58s ' "$step" "$total" "$1" >&2; }
result() { printf '%s\n' "$1" >&2; }
field() { awk -v k="$2" '$1 == k {print $2}' "$raw/$1.out"; }
meta() { awk -F= -v k="$2" '$1 == k {sub(/^[^=]*=/, ""); print}' "$raw/$1.meta"; }
describe_run() { # NAME -> one line for the progress output
  if [ "$(meta "$1" timed_out)" = 1 ]; then
    echo "> $(meta "$1" timeout_s) s (timeout$(awk '$1 == "diagonals_done" {printf ", %d of %d diagonals done", $2, $3}' "$raw/$1.out"))"
  elif [ "$(meta "$1" oom_kills)" ] && [ "$(meta "$1" oom_kills)" != 0 ]; then echo "OOM-killed under the memory limit"
  elif [ "$(meta "$1" rc)" != 0 ]; then echo "FAILED (rc $(meta "$1" rc)): $(head -c 200 "$raw/$1.err")"
  else echo "wall $(field "$1" wall) s  checksum $(field "$1" checksum)"; fi
}

rm -rf "$raw"
mkdir -p "$raw" "$data_dir"
data_dir=$(cd "$data_dir" && pwd)

# ---- machine ----------------------------------------------------------------
{
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "git=$(git -C "$IOPOLY_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$IOPOLY_ROOT" diff --quiet HEAD -- runtime include bench 2>/dev/null || echo '+local changes')"
  echo "cpu=$(lscpu 2>/dev/null | awk -F: '/^Model name/ {gsub(/^ +/, "", $2); print $2; exit}')"
  echo "cpus=$(nproc)"
  echo "hypervisor=$(lscpu 2>/dev/null | awk -F: '/^Hypervisor vendor/ {gsub(/^ +/, "", $2); print $2; exit}')"
  echo "mem_total_kib=$(awk '/^MemTotal/ {print $2}' /proc/meminfo)"
  echo "kernel=$(uname -sr)"
  src=$(findmnt -n -o SOURCE -T "$data_dir" 2>/dev/null || df --output=source "$data_dir" | tail -1)
  echo "fs_source=$src"
  echo "fs_type=$(findmnt -n -o FSTYPE -T "$data_dir" 2>/dev/null || stat -f -c %T "$data_dir")"
  dev=$(basename "$(readlink -f "$src" 2>/dev/null || echo "$src")")
  parent=$(lsblk -no PKNAME "/dev/$dev" 2>/dev/null | head -1 || true)
  [ -n "$parent" ] && dev=$parent
  echo "disk_dev=$dev"
  echo "disk_model=$(lsblk -dno MODEL "/dev/$dev" 2>/dev/null | sed 's/ *$//' || true)"
  echo "disk_size=$(lsblk -dno SIZE "/dev/$dev" 2>/dev/null | tr -d ' ' || true)"
  for f in rotational scheduler read_ahead_kb max_sectors_kb; do
    echo "disk_$f=$(cat "/sys/block/$dev/queue/$f" 2>/dev/null || true)"
  done
  echo "data_dir=$data_dir"
  echo "cgroup=$cg_kind"
  echo "cgroup_base=$cg_base"
  echo "cgroup_note=$cg_note"
  echo "drop_caches=$can_drop"
  echo "load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "sizes=${size_list[*]}"
  echo "timeout_s=$timeout_s"
  echo "disk_model_param=$disk_model"
  echo "scan_bytes=$scan_bytes"
  echo "scan_reps=$scan_reps"
  echo "sweep_n=$sweep_n"
  echo "command=$command_line"
} >"$raw/machine.meta"

# Sizes of one wavefront configuration.
stripe_of() { echo "$1"; }                   # S = N bytes: a diagonal's blocks are 1/2 of the buffer
buffer_of() { echo $((8 * $1 * $1 / 4)); }   # 1/4 of the matrix
limit_of() { # buffer + max(16 MiB, buffer/2): the same for every version
  local b; b=$(buffer_of "$1")
  echo $((b + (b / 2 > (16 << 20) ? b / 2 : (16 << 20))))
}
lookahead_of() { echo $(($1 / 8 / 2)); }     # half the diagonals one block spans

# Counts the steps.
if part wavefront; then
  total=$((total + 5 * ${#size_list[@]}))
  [ "$sweep_n" != 0 ] && total=$((total + 8))
fi
part micro && total=$((total + 1))
part scan && total=$((total + 1 + 4 * scan_reps))

export IOPOLY_DISK_MODEL=$disk_model IOPOLY_MODEL_WAIT=0 IOPOLY_DISKS=8 IOPOLY_BACKEND=posix
unset IOPOLY_TRACE IOPOLY_STATS IOPOLY_PREFETCH IOPOLY_DIRECT IOPOLY_VERBOSE

# ---- (a) wavefront ----------------------------------------------------------
if part wavefront; then
  say "wavefront: sizes ${size_list[*]}, buffer 1/4 of the data, timeout $timeout_s s per run, memory limit: $cg_kind"
  for n in "${size_list[@]}"; do
    S=$(stripe_of "$n") B=$(buffer_of "$n") L=$(limit_of "$n") LA=$(lookahead_of "$n")
    export IOPOLY_DIR="$data_dir/wf" IOPOLY_STRIPE=$S IOPOLY_BUFFER=$B
    rawf="$data_dir/wf/raw$n"
    mkdir -p "$data_dir/wf"
    progress "N=$n: create the matrix ($(mib $((8 * n * n))) MiB, twice)"
    "$bin/wavefront" init "$n" "$rawf" >"$raw/wf-$n-init.out" 2>&1 ||
      { result "FAILED"; cat "$raw/wf-$n-init.out" >&2; exit 1; }
    result "done"
    for v in mmap mmap-random attach seeker; do
      progress "N=$n: $v (limit $(mib "$L") MiB)"
      case "$v" in
        mmap) cmd=("$bin/wavefront" mmap "$n" "$rawf" "$data_dir/wf/out") ;;
        mmap-random) cmd=("$bin/wavefront" mmap "$n" "$rawf" "$data_dir/wf/out" random) ;;
        attach) cmd=("$bin/wavefront" attach "$n" "$data_dir/wf/out") ;;
        seeker) cmd=("$bin/wavefront" seeker "$n" "$data_dir/wf/out" "$LA") ;;
      esac
      IOPOLY_STATS="$raw/wf-$n-$v.stats.json" run_limited "wf-$n-$v" "$L" "$timeout_s" -- "${cmd[@]}"
      printf 'n=%s\nversion=%s\nstripe=%s\nbuffer=%s\nlookahead=%s\nmatrix_bytes=%s\n' \
        "$n" "$v" "$S" "$B" "$([ "$v" = seeker ] && echo "$LA")" $((8 * n * n)) >>"$raw/wf-$n-$v.meta"
      result "$(describe_run "wf-$n-$v")"
    done
    if [ "$n" = "$sweep_n" ]; then
      for la in 0 16 64 $((2 * LA)); do # and LA, the seeker run above
        progress "N=$n: seeker look-ahead $la (limit $(mib "$L") MiB)"
        IOPOLY_STATS="$raw/sweep-$n-$la.stats.json" run_limited "sweep-$n-$la" "$L" "$timeout_s" -- \
          "$bin/wavefront" seeker "$n" "$data_dir/wf/out" "$la"
        printf 'n=%s\nversion=seeker\nstripe=%s\nbuffer=%s\nlookahead=%s\nmatrix_bytes=%s\n' \
          "$n" "$S" "$B" "$la" $((8 * n * n)) >>"$raw/sweep-$n-$la.meta"
        result "$(describe_run "sweep-$n-$la")"
      done
      # The same N with the data in memory (tmpfs) and no limit: what is left
      # is the CPU cost of each version, the runtime's overhead included.
      shm=/dev/shm
      if [ "$(stat -f -c %T "$shm" 2>/dev/null)" = tmpfs ] &&
        [ "$(df -Pk "$shm" | awk 'NR == 2 {print $4}')" -gt $((3 * 8 * n * n / 1024)) ]; then
        mem_dir=$(mktemp -d "$shm/iopoly-bench.XXXXXX")
        progress "N=$n in memory (tmpfs): create the matrix"
        IOPOLY_DIR="$mem_dir" "$bin/wavefront" init "$n" "$mem_dir/raw" >"$raw/mem-$n-init.out" 2>&1 ||
          { result "FAILED"; cat "$raw/mem-$n-init.out" >&2; exit 1; }
        result "done"
        for v in mmap attach seeker; do
          progress "N=$n in memory (tmpfs): $v, no memory limit"
          case "$v" in
            mmap) cmd=("$bin/wavefront" mmap "$n" "$mem_dir/raw" "$mem_dir/out") ;;
            attach) cmd=("$bin/wavefront" attach "$n" "$mem_dir/out") ;;
            seeker) cmd=("$bin/wavefront" seeker "$n" "$mem_dir/out" "$LA") ;;
          esac
          IOPOLY_DIR="$mem_dir" IOPOLY_STATS="$raw/mem-$n-$v.stats.json" \
            run_limited "mem-$n-$v" none "$timeout_s" -- "${cmd[@]}"
          printf 'n=%s\nversion=%s\nstripe=%s\nbuffer=%s\nlookahead=%s\nmatrix_bytes=%s\n' \
            "$n" "$v" "$S" "$B" "$([ "$v" = seeker ] && echo "$LA")" $((8 * n * n)) >>"$raw/mem-$n-$v.meta"
          result "$(describe_run "mem-$n-$v")"
        done
        rm -rf "$mem_dir"
      else
        say "no tmpfs with room at /dev/shm: the in-memory reference is skipped"
      fi
    fi
    rm -rf "$data_dir/wf" # the next N has another stripe size
  done
fi

# ---- (b) attach+release of a resident block ---------------------------------
if part micro; then
  progress "attach+release of a resident block (9 x 2,000,000 pairs)"
  echo "load_at_start=$(cut -d' ' -f1 /proc/loadavg)" >"$raw/micro.meta"
  IOPOLY_DIR="$data_dir/micro" IOPOLY_STRIPE=64K IOPOLY_BUFFER=64M \
    "$bin/attach-release" 2000000 9 >"$raw/micro.json" 2>"$raw/micro.err" ||
    { result "FAILED"; cat "$raw/micro.err" >&2; exit 1; }
  result "$("$py" -c 'import json,sys; d=json.load(open(sys.argv[1]))["one_block"]; print("%.1f ns per pair (median; CPU clock %.1f ns)" % (d["median_ns"], d["cpu_median_ns"]))' "$raw/micro.json")"
  rm -rf "$data_dir/micro"
fi

# ---- (c) sequential scan vs dd ----------------------------------------------
if part scan; then
  scan_stripe=64K
  export IOPOLY_DIR="$data_dir/scan" IOPOLY_STRIPE=$scan_stripe IOPOLY_BUFFER=64M
  progress "scan: create a $(mib "$scan_bytes") MiB array and the dd file"
  "$bin/scan" init scanarr "$scan_bytes" >"$raw/scan-init.out" 2>&1 ||
    { result "FAILED"; cat "$raw/scan-init.out" >&2; exit 1; }
  # dd reads a file of the same bytes in the same directory (the eight
  # stripe files, concatenated).
  cat "$data_dir"/scan/disk*/scanarr.iop >"$data_dir/scan/dd-file"
  sync
  result "done"
  sbytes=$(to_bytes "$scan_stripe")
  run_dd() { # NAME BS
    drop_caches
    dd if="$data_dir/scan/dd-file" of=/dev/null bs="$2" iflag=direct 2>"$raw/$1.err" || {
      result "FAILED"; cat "$raw/$1.err" >&2; exit 1; }
    # "<bytes> bytes (...) copied, <seconds> s, <rate>"
    awk -v bs="$2" '/copied/ {printf "{\"bytes\": %s, \"seconds\": %s, \"mb_per_s\": %.1f, \"block_bytes\": %s}\n", $1, $(NF-3), $1 / $(NF-3) / 1e6, bs}' \
      "$raw/$1.err" >"$raw/$1.json"
  }
  for r in $(seq 1 "$scan_reps"); do
    progress "scan rep $r: dd iflag=direct bs=$sbytes"
    run_dd "dd-$sbytes-$r" "$sbytes"
    result "$("$py" -c 'import json,sys; print("%.0f MB/s" % json.load(open(sys.argv[1]))["mb_per_s"])' "$raw/dd-$sbytes-$r.json")"
    progress "scan rep $r: dd iflag=direct bs=1M (reference)"
    run_dd "dd-1M-$r" $((1 << 20))
    result "$("$py" -c 'import json,sys; print("%.0f MB/s" % json.load(open(sys.argv[1]))["mb_per_s"])' "$raw/dd-1M-$r.json")"
    for depth in 0 64; do
      progress "scan rep $r: iopoly posix, attach in order, prefetch depth $depth"
      drop_caches
      IOPOLY_STATS="$raw/scan-$depth-$r.stats.json" "$bin/scan" read scanarr "$scan_bytes" "$depth" \
        >"$raw/scan-$depth-$r.json" 2>"$raw/scan-$depth-$r.err" || { result "FAILED"; cat "$raw/scan-$depth-$r.err" >&2; exit 1; }
      result "$("$py" -c 'import json,sys; print("%.0f MB/s" % json.load(open(sys.argv[1]))["mb_per_s"])' "$raw/scan-$depth-$r.json")"
    done
  done
  rm -rf "$data_dir/scan"
fi

[ "$keep_data" = 1 ] || rmdir "$data_dir" 2>/dev/null || true
echo "load_at_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$raw/machine.meta"
echo "total_seconds=$(($(date +%s) - t_start))" >>"$raw/machine.meta"

# ---- report ------------------------------------------------------------------
say "writing bench/results/runtime.md$([ "$plots" = 1 ] && echo ' and the plots')"
plot_flag=()
[ "$plots" = 1 ] || plot_flag=(--no-plots)
"$py" "$IOPOLY_ROOT/bench/tools/runtime_report.py" --raw "$raw" --out "$results" "${plot_flag[@]}"
