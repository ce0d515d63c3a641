#!/usr/bin/env bash
# compare.sh KERNEL.c OPT [EXTRA_CFLAGS...]
# Builds KERNEL.c with the iopoly plugin in -fplugin-arg-iopoly-mode=off
# (the reference: ordinary memory) and in each mode of $MODES (default
# "lower"), runs them and requires byte-identical output. The lowered run uses 4 disks, 4 KiB stripes and a
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
"$work/ref" > "$work/ref.out"
for mode in ${MODES:-lower}; do
  "$IOPOLY_BIN/iopoly-clang" $opt -fplugin-arg-iopoly-mode=$mode "${common[@]}" "$src" -o "$work/$mode"
  rm -rf "$work/data"
  env IOPOLY_DIR="$work/data" IOPOLY_DISKS=4 IOPOLY_STRIPE=4K IOPOLY_BUFFER=64K IOPOLY_DISK_MODEL=none IOPOLY_DIRECT=off \
      IOPOLY_STATS="$work/$mode.stats.json" "$work/$mode" > "$work/$mode.out"
  if ! cmp "$work/ref.out" "$work/$mode.out"; then
    echo "compare.sh: $name: mode=$mode's output differs from the mode=off build" >&2
    exit 1
  fi
  fetches=$(sed -n 's/.*"stripe_fetches":\([0-9]*\).*/\1/p' "$work/$mode.stats.json")
  if [ -z "$fetches" ] || [ "$fetches" -eq 0 ]; then
    echo "compare.sh: $name: mode=$mode fetched no stripes: nothing went through the runtime" >&2
    exit 1
  fi
  echo "$name mode=$mode: identical output ($(wc -c < "$work/ref.out") bytes), $fetches stripe fetches"
done
