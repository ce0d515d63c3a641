#!/usr/bin/env bash
# run.sh OPT: the profile-based layout choice end to end (paper 1, sec. 4).
# 1. kprofile.c built with -fplugin-arg-iopoly-layout=instrument runs with
#    IOPOLY_LAYOUT_PROFILE=FILE and writes its access counts (through a
#    symbolic link too; a directory is refused);
# 2. rebuilt with layout=profile and that FILE in each mode of $MODES: the
#    remark must say W is stored column-major from the profile's counts,
#    the output must be byte-identical to the mode=off build's, and W's
#    files must record that layout in their header.
# A static build (which ties and keeps W row-major) shows that the profile
# made the difference. Environment: IOPOLY_BIN (build/bin), WORK.
set -euo pipefail
opt=$1
src=$(cd "$(dirname "$0")" && pwd)/kprofile.c
work=${WORK:?}/layout-profile$opt
rm -rf "$work" && mkdir -p "$work"
common=(-fplugin-arg-iopoly-stripe=4K -fplugin-arg-iopoly-disks=4)
run() { # run.sh NAME BINARY ARGS...: runs a lowered build in fresh data directories
  local name=$1
  shift
  rm -rf "$work/data"
  env IOPOLY_DIR="$work/data" IOPOLY_DISKS=4 IOPOLY_STRIPE=4K IOPOLY_BUFFER=64K IOPOLY_DISK_MODEL=none \
      IOPOLY_DIRECT=off "$@" > "$work/$name.out"
}
fail() { echo "layout-profile$opt: $*" >&2; exit 1; }

"$IOPOLY_BIN/iopoly-clang" $opt -fplugin-arg-iopoly-mode=off "$src" -o "$work/ref"
"$work/ref" 3 1 > "$work/ref.out"

"$IOPOLY_BIN/iopoly-clang" $opt -fplugin-arg-iopoly-mode=lower -fplugin-arg-iopoly-layout=instrument "${common[@]}" \
    "$src" -o "$work/instrumented"
run instrumented IOPOLY_LAYOUT_PROFILE="$work/profile.txt" "$work/instrumented" 3 1
cmp "$work/ref.out" "$work/instrumented.out" || fail "the instrumented build's output differs from mode=off"
head -1 "$work/profile.txt" | grep -qx 'iopoly-layout-profile 1' || fail "no profile written"
# Every W site ran: the column walk's read 3 x 96 x 80 times.
grep -q ' W main [0-9]* load 23040 ' "$work/profile.txt" || { cat "$work/profile.txt" >&2; fail "W's column reads are not counted 23040 times"; }
# Written by the runtime's OutputFile: a symbolic link is followed and
# kept, a directory is refused with a message.
mkdir -p "$work/elsewhere" "$work/adir"
ln -s elsewhere/real.txt "$work/link.txt"
run linked IOPOLY_LAYOUT_PROFILE="$work/link.txt" "$work/instrumented" 3 1
[ -L "$work/link.txt" ] || fail "writing the profile replaced the symbolic link"
cmp "$work/profile.txt" "$work/elsewhere/real.txt" || fail "the profile written through a link differs"
run adir IOPOLY_LAYOUT_PROFILE="$work/adir" "$work/instrumented" 3 1 2> "$work/adir.err"
grep -qF "IOPOLY_LAYOUT_PROFILE: cannot write the layout profile to '$work/adir': it is a directory" "$work/adir.err" ||
    { cat "$work/adir.err" >&2; fail "a directory as IOPOLY_LAYOUT_PROFILE is not refused with the reason"; }

"$IOPOLY_BIN/iopoly-clang" $opt -fplugin-arg-iopoly-mode=lower "${common[@]}" -Rpass=iopoly "$src" -o "$work/static" \
    2> "$work/static.remarks"
grep -q "file layout of 'W': 0,1 (row-major)" "$work/static.remarks" || { cat "$work/static.remarks" >&2; fail "the static build did not keep W row-major"; }

# (layout-trial=off: the profile's counts decide alone; clo and dro-wp would
# otherwise also try W against their own schedule, lit layout/trial.c)
for mode in ${MODES:-lower}; do
  "$IOPOLY_BIN/iopoly-clang" $opt -fplugin-arg-iopoly-mode=$mode -fplugin-arg-iopoly-layout=profile \
      -fplugin-arg-iopoly-layout-trial=off \
      -fplugin-arg-iopoly-layout-profile="$work/profile.txt" "${common[@]}" -Rpass=iopoly "$src" -o "$work/$mode" \
      2> "$work/$mode.remarks"
  grep -q "file layout of 'W': 1,0 (column-major), .*weights: profile (3 accesses))" "$work/$mode.remarks" ||
      { cat "$work/$mode.remarks" >&2; fail "mode=$mode: W is not stored column-major from the profile"; }
  run "$mode" IOPOLY_STATS="$work/$mode.stats.json" "$work/$mode" 3 1
  cmp "$work/ref.out" "$work/$mode.out" || fail "mode=$mode's output differs from the mode=off build"
  head -c 300 "$work/data/disk0/W.iop" | grep -qa '^layout 1 0$' || fail "mode=$mode: W's header does not record layout 1 0"
  echo "layout-profile$opt mode=$mode: W column-major from the profile, identical output ($(wc -c < "$work/ref.out") bytes)"
done
