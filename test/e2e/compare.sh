#!/usr/bin/env bash
# compare.sh KERNEL.c OPT [EXTRA_CFLAGS...]
# Builds KERNEL.c twice with the iopoly plugin, -fplugin-arg-iopoly-mode=off
# (the reference: ordinary memory) and =lower, runs both and requires
# byte-identical output. The lowered run uses 4 disks, 4 KiB stripes and a
# 64 KiB buffer, so every array is larger than the buffer, and it must have
# fetched stripes (IOPOLY_STATS) - a lowering that did nothing cannot pass.
# Buffered I/O (IOPOLY_DIRECT=off): these runs test results, not speed.
# Environment: IOPOLY_BIN (build/bin), IOPOLY_PLUGIN, WORK (scratch dir).
set -euo pipefail
src=$1 opt=$2
shift 2
name=$(basename "$src" .c)$opt
work=${WORK:?}/$name
rm -rf "$work" && mkdir -p "$work"
common=(-fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4 -I"$(dirname "$src")" "$@")
"$IOPOLY_BIN/iopoly-clang" $opt -fplugin-arg-iopoly-mode=off -DIOPOLY_REFERENCE "${common[@]}" "$src" -o "$work/ref"
"$IOPOLY_BIN/iopoly-clang" $opt -fplugin-arg-iopoly-mode=lower "${common[@]}" "$src" -o "$work/lowered"
"$work/ref" > "$work/ref.out"
env IOPOLY_DIR="$work/data" IOPOLY_DISKS=4 IOPOLY_STRIPE=4K IOPOLY_BUFFER=64K IOPOLY_DISK_MODEL=none IOPOLY_DIRECT=off \
    IOPOLY_STATS="$work/stats.json" "$work/lowered" > "$work/lowered.out"
if ! cmp "$work/ref.out" "$work/lowered.out"; then
  echo "compare.sh: $name: the lowered build's output differs from the mode=off build" >&2
  exit 1
fi
fetches=$(sed -n 's/.*"stripe_fetches":\([0-9]*\).*/\1/p' "$work/stats.json")
if [ -z "$fetches" ] || [ "$fetches" -eq 0 ]; then
  echo "compare.sh: $name: the lowered build fetched no stripes: nothing went through the runtime" >&2
  exit 1
fi
echo "$name: identical output ($(wc -c < "$work/ref.out") bytes), $fetches stripe fetches"
