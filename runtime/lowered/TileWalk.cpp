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
  uint64_t Task = 0;             ///< the task in which the array was last seen
};
constexpr int Slots = 8;
thread_local Seen Last[Slots];
thread_local int NextSlot = 0;
/// The task this thread runs (0: none, a sequential walk).
thread_local uint64_t Task = 0;
thread_local uint64_t Tasks = 0;

/// Hints stripes [First, End) of \p A, at most an eighth of the buffer.
void hint(Runtime *RT, iopoly_array *A, size_t First, size_t End) {
  End = std::min({End, A->Geo.numStripes(), First + std::max<size_t>(1, RT->config().bufferFrames() / 8)});
  for (size_t K = First; K < End; ++K) {
    bool Taken;
    (void)RT->buffer().prefetch(A, K, Taken);
  }
}

} // namespace

void tileWalkBegin(uint64_t UnitBytes) {
  TileWalkUnit = UnitBytes;
  Task = 0;
  for (Seen &S : Last)
    S = Seen();
}

void tileWalkTaskBegin() { Task = ++Tasks; }

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
  bool FirstInTask = Task && (!Slot || Slot->Task != Task);
  if (!Slot) {
    Slot = &Last[NextSlot];
    NextSlot = (NextSlot + 1) % Slots;
    *Slot = {A, Unit, A->HintsUsed.load(std::memory_order_relaxed), A->HintsWasted.load(std::memory_order_relaxed),
             Task};
  }
  if (!FirstInTask && Unit == Slot->Unit)
    return;
  bool Next = !FirstInTask && Unit == Slot->Unit + 1;
  Slot->Task = Task;
  Slot->Unit = Unit;
  if (Task && !Next) {
    // A task's tile entered a unit out of a forward walk (its first touch
    // of the array, or a jump): the rest of that unit.
    hint(RT, A, Stripe + 1, static_cast<size_t>(((Unit + 1) * TileWalkUnit + S - 1) / S));
    return;
  }
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
  hint(RT, A, static_cast<size_t>((Unit + 1) * TileWalkUnit / S),
       static_cast<size_t>(((Unit + 2) * TileWalkUnit + S - 1) / S));
}

} // namespace iopoly
