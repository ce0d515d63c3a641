//===- TileWalk.cpp - Schedule-informed prefetch of restructured code ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "lowered/TileWalk.h"

#include "core/Array.h"
#include "core/Runtime.h"

#include <algorithm>

namespace iopoly {

thread_local uint64_t TileWalkUnit = 0;

namespace {

/// The last unit entered, per array (a few arrays at a time).
struct Seen {
  iopoly_array *A = nullptr;
  uint64_t Unit = 0;
  uint64_t Used = 0, Wasted = 0; ///< the array's hint counters when the walk began
};
constexpr int Slots = 8;
thread_local Seen Last[Slots];
thread_local int NextSlot = 0;

} // namespace

void tileWalkBegin(uint64_t UnitBytes) {
  TileWalkUnit = UnitBytes;
  for (Seen &S : Last)
    S = Seen();
}

void tileWalkSeen(iopoly_array *A, size_t Stripe) {
  Runtime *RT = Runtime::existing();
  if (!RT || !TileWalkUnit)
    return;
  size_t S = A->Geo.StripeSize;
  uint64_t Unit = static_cast<uint64_t>(Stripe) * S / TileWalkUnit;
  Seen *Slot = nullptr;
  for (Seen &X : Last)
    if (X.A == A)
      Slot = &X;
  if (!Slot) {
    Slot = &Last[NextSlot];
    NextSlot = (NextSlot + 1) % Slots;
    *Slot = {A, Unit, A->HintsUsed.load(std::memory_order_relaxed), A->HintsWasted.load(std::memory_order_relaxed)};
    return;
  }
  bool Next = Unit == Slot->Unit + 1;
  if (Unit == Slot->Unit)
    return;
  Slot->Unit = Unit;
  if (!Next)
    return; // not a forward walk over units: no guess
  // The hints of an array whose hinted stripes are pushed out before they
  // are used (the walk stays long in each unit while other arrays stream
  // through the buffer: gemm's A) cost a fetch each and put their requests
  // between the tile's own on the same disks: stop hinting it.
  uint64_t Used = A->HintsUsed.load(std::memory_order_relaxed) - Slot->Used;
  uint64_t Wasted = A->HintsWasted.load(std::memory_order_relaxed) - Slot->Wasted;
  if (Wasted > 2 && Wasted * 8 > Used)
    return;
  // Hint unit + 1, at most an eighth of the buffer.
  size_t First = static_cast<size_t>((Unit + 1) * TileWalkUnit / S);
  size_t End = static_cast<size_t>(((Unit + 2) * TileWalkUnit + S - 1) / S);
  End = std::min({End, A->Geo.numStripes(), First + std::max<size_t>(1, RT->config().bufferFrames() / 8)});
  for (size_t K = First; K < End; ++K) {
    bool Taken;
    (void)RT->buffer().prefetch(A, K, Taken);
  }
}

} // namespace iopoly
