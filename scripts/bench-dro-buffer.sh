#!/usr/bin/env bash
# scripts/bench-dro-buffer.sh - dro-wp with and without the compiler's
# -fplugin-arg-iopoly-buffer option at a small buffer (1/16 of each kernel's
# data), against lower. Writes bench/results/dro-buffer-option.md.
# Counters (fetches, modeled I/O) are deterministic; runs use the page cache
# (IOPOLY_DIRECT=off) so that thrashing orders finish quickly. The raw data
# (every run's IOPOLY_STATS) goes to bench/results/raw/dro-buffer-option.json.
set -euo pipefail
source "$(dirname "$0")/common.sh"
iopoly_ensure_packages
build=${IOPOLY_BUILD_DIR:-$IOPOLY_ROOT/build}
iopoly_build "$build"
cc=$build/bin/iopoly-clang
work=$(mktemp -d "${TMPDIR:-/tmp}/iopoly-dro-buffer.XXXXXX")
trap 'rm -rf "$work"' EXIT
out=$IOPOLY_ROOT/bench/results/dro-buffer-option.md
raw=$IOPOLY_ROOT/bench/results/raw/dro-buffer-option.json
mkdir -p "$work/stats" "$(dirname "$raw")"
rows=()
for spec in "sweeps -DN=768" "transpose -DN=768" "reductions -DN=768" "multisweep -DN=768" "stencil -DN=1024 -DT=4"; do
  set -- $spec
  k=$1
  shift
  "$cc" -O2 -fplugin-arg-iopoly-mode=off "$@" "$IOPOLY_ROOT/bench/kernels/$k.c" -o "$work/$k.off"
  data=$("$work/$k.off" size)
  buf=$((data / 16 / 32768 * 32768))
  for v in lower dro-wp dro-wp+buffer; do
    say "$k: $v (buffer $((buf >> 10)) KiB)"
    extra=()
    [ "$v" = dro-wp+buffer ] && extra=(-fplugin-arg-iopoly-buffer="$buf")
    "$cc" -O2 -fplugin-arg-iopoly-mode="${v%+buffer}" -fplugin-arg-iopoly-stripe=32K -fplugin-arg-iopoly-disks=8 \
      "${extra[@]}" "$@" "$IOPOLY_ROOT/bench/kernels/$k.c" -o "$work/$k.x"
    rm -rf "$work/d"
    mkdir "$work/d"
    env IOPOLY_DIR="$work/d" IOPOLY_BUFFER="$buf" IOPOLY_STRIPE=32K IOPOLY_DISKS=8 IOPOLY_DIRECT=off \
      IOPOLY_DISK_MODEL=hdd IOPOLY_STATS="$work/s.json" "$work/$k.x" > "$work/$k.$v.out"
    cmp -s "$work/$k.$v.out" <("$work/$k.off") || { echo "$k $v: output differs from mode=off" >&2; exit 1; }
    cp "$work/s.json" "$work/stats/$k.$v.$buf.json"
    rows+=("$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('| %s | %d KiB | %s | %d | %.2f | %.1f |' % (sys.argv[2], int(sys.argv[3]) >> 10, sys.argv[4], d['stripe_fetches'], d['fetches_per_block'], d['modeled_io_seconds']))" "$work/s.json" "$k" "$buf" "$v")")
  done
done
{
  echo "# dro-wp and the compiler's buffer option"
  echo
  echo "Regenerate with \`scripts/bench-dro-buffer.sh\` (commit $(git -C "$IOPOLY_ROOT" rev-parse --short HEAD), $(date -u +%F))."
  echo "Buffer 1/16 of each kernel's disk-resident data, 32 KiB stripes, 8 disks, hdd model, page cache."
  echo "Raw data (each run's \`IOPOLY_STATS\`): [\`raw/dro-buffer-option.json\`](raw/dro-buffer-option.json)."
  echo "\`dro-wp+buffer\` is compiled with \`-fplugin-arg-iopoly-buffer=<the run's IOPOLY_BUFFER>\`; every output equals mode=off's."
  echo
  echo "| kernel | buffer | mode | fetches | fetch/blk | modeled I/O s |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} > "$out"
# Raw data: {"kernel mode buffer": IOPOLY_STATS of that run}.
python3 - "$work/stats" "$raw" <<'PY'
import json, os, sys
runs = {}
for name in sorted(os.listdir(sys.argv[1])):
    k, v, buf = name[:-len('.json')].split('.', 2)
    with open(os.path.join(sys.argv[1], name)) as f:
        runs['%s %s %s' % (k, v, buf)] = json.load(f)
with open(sys.argv[2], 'w') as f:
    json.dump(runs, f, indent=1, sort_keys=True)
PY
cat "$out"
