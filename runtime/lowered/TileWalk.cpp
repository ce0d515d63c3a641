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
  size_t HintFirst = 0, HintEnd = 0; ///< the run of stripes its tasks hinted last
  /// Streams of a sequential walk in the array (syr2k reads rows i and j
  /// of A in step): the furthest stripe each touched and where its
  /// read-ahead stopped.
  struct Stream {
    size_t Max = ~size_t(0) - 1, AheadEnd = 0; ///< Max: no stripe matches an unused stream
  };
  static constexpr int NumStreams = 4;
  Stream Streams[NumStreams];
  int NextStream = 0;
};
constexpr int Slots = 8;
thread_local Seen Last[Slots];
thread_local int NextSlot = 0;
/// The task this thread runs (0: none, a sequential walk).
thread_local uint64_t Task = 0;
thread_local uint64_t Tasks = 0;
/// Whether the task may hint the next unit too.
thread_local bool TaskLookAhead = false;
/// Tasks running when this thread's task began, itself included (1 in a
/// sequential walk).
thread_local unsigned TaskRunning = 1;

/// Whether the walk may hint ahead in the array of \p Slot: not where its
/// hinted stripes are pushed out before they are used (the walk stays long
/// in each unit while other arrays stream through the buffer: gemm's A);
/// they cost a fetch each and put their requests between the tile's own on
/// the same disks.
bool lookAhead(const Seen &Slot, uint64_t WastedPerUsed = 8) {
  uint64_t Used = Slot.A->HintsUsed.load(std::memory_order_relaxed) - Slot.Used;
  uint64_t Wasted = Slot.A->HintsWasted.load(std::memory_order_relaxed) - Slot.Wasted;
  return !(Wasted > 2 && Wasted * WastedPerUsed > Used);
}

/// Hints stripes [First, End) of \p A, at most an eighth of the buffer;
/// returns where it stopped.
size_t hint(Runtime *RT, iopoly_array *A, size_t First, size_t End) {
  End = std::min({End, A->Geo.numStripes(), First + std::max<size_t>(1, RT->config().bufferFrames() / 8)});
  for (size_t K = First; K < End; ++K) {
    bool Taken;
    (void)RT->buffer().prefetch(A, K, Taken);
  }
  return End;
}

/// A task's hint of [First, End), less what this thread's tasks hinted of
/// the array last: they enter the same units again and again (the sweeps
/// kernel runs 333,216 tasks, whose hints were 2.2 million, all but 2,738
/// of them for resident stripes, each taking the buffer's lock).
void hintOnce(Runtime *RT, Seen &Slot, size_t First, size_t End) {
  if (First >= Slot.HintFirst && First < Slot.HintEnd)
    First = Slot.HintEnd;
  if (First >= End)
    return;
  if (First != Slot.HintEnd)
    Slot.HintFirst = First;
  Slot.HintEnd = hint(RT, Slot.A, First, End);
}

} // namespace

void tileWalkBegin(uint64_t UnitBytes) {
  TileWalkUnit = UnitBytes;
  Task = 0;
  TaskRunning = 1;
  for (Seen &S : Last)
    S = Seen();
}

void tileWalkTaskBegin(bool LookAhead, unsigned Running) {
  Task = ++Tasks;
  TaskLookAhead = LookAhead;
  TaskRunning = std::max(1u, Running);
}

void tileWalkSeen(iopoly_array *A, size_t Stripe) {
  Runtime *RT = Runtime::existing();
  if (!RT || !TileWalkUnit)
    return;
  size_t S = A->Geo.StripeSize;
  bool Units = TileWalkUnit != TileWalkStreamsOnly;
  uint64_t Unit = Units ? static_cast<uint64_t>(Stripe) * S / TileWalkUnit : 0;
  Seen *Slot = nullptr;
  for (Seen &X : Last)
    if (X.A == A)
      Slot = &X;
  bool FirstInTask = Task && (!Slot || Slot->Task != Task);
  if (!Slot) {
    Slot = &Last[NextSlot];
    NextSlot = (NextSlot + 1) % Slots;
    *Slot = Seen();
    Slot->A = A;
    Slot->Unit = Unit;
    Slot->Used = A->HintsUsed.load(std::memory_order_relaxed);
    Slot->Wasted = A->HintsWasted.load(std::memory_order_relaxed);
    Slot->Task = Task;
  }
  // A walk reading an array stripe after stripe inside units larger than a
  // few stripes (syr2k's data tiles walk the rows of A and B they read in
  // step, 16 stripes a unit) gets ahead of it; the unit rule below fires
  // only where a unit begins. A task does so when it runs alone or the
  // buffer holds another task beside the running ones, by its share of the
  // window: read-ahead beyond that pushed out the stripes of the tasks
  // beside it (transpose at 1/32 of its data, 4 threads: 5x the fetches).
  if (TaskRunning == 1 || TaskLookAhead) {
    Seen::Stream *St = nullptr;
    // A stream goes forward a stripe at a time; a row that straddles two
    // stripes goes back and forth between them and is no new ground.
    for (Seen::Stream &X : Slot->Streams)
      if (Stripe + 1 >= X.Max && Stripe <= X.Max + 1)
        St = &X;
    if (!St) {
      St = &Slot->Streams[Slot->NextStream];
      Slot->NextStream = (Slot->NextStream + 1) % Seen::NumStreams;
      *St = Seen::Stream();
      St->Max = Stripe;
    }
    bool Streak = Stripe == St->Max + 1;
    St->Max = std::max(St->Max, Stripe);
    // Its hints go on while at most a third of the array's are wasted (the
    // unit rule's stop at an eighth: syr2k's rows of A and B then got none).
    if (Streak && lookAhead(*Slot, 2)) {
      size_t From = std::max(Stripe + 1, St->AheadEnd);
      size_t Window = std::max<size_t>(1, RT->config().bufferFrames() / 16 / TaskRunning);
      if (From < Stripe + 1 + Window)
        St->AheadEnd = hint(RT, A, From, Stripe + 1 + Window);
    }
  }
  if (!Units || (!FirstInTask && Unit == Slot->Unit))
    return;
  bool Next = !FirstInTask && Unit == Slot->Unit + 1;
  Slot->Task = Task;
  Slot->Unit = Unit;
  if (!Task && !Next)
    return; // not a forward walk over units: no guess
  bool LookAhead = lookAhead(*Slot);
  size_t NextFirst = static_cast<size_t>((Unit + 1) * TileWalkUnit / S);
  size_t NextEnd = static_cast<size_t>(((Unit + 2) * TileWalkUnit + S - 1) / S);
  if (!Next) {
    // A task's tile entered a unit out of a forward walk (its first touch
    // of the array, or a jump): the rest of that unit, and, where the
    // buffer holds another task beside the running ones, the next unit,
    // which the next task of a forward walk needs (with one thread, tasks
    // run in order: sweeps at 1/32 of its data went from 5.0 to 2.6 modeled
    // seconds, as fast as without tasks).
    hintOnce(RT, *Slot, Stripe + 1, static_cast<size_t>(((Unit + 1) * TileWalkUnit + S - 1) / S));
    if (LookAhead && TaskLookAhead)
      hintOnce(RT, *Slot, NextFirst, NextEnd);
    return;
  }
  // Hint unit + 1, at most an eighth of the buffer.
  if (LookAhead)
    (void)hint(RT, A, NextFirst, NextEnd);
}

} // namespace iopoly
