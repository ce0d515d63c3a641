//===- Seeker.cpp - Seeker/reaper walk over a step sequence ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/Seeker.h"
#include "core/Array.h"
#include "core/StripeBuffer.h"

#include <algorithm>

using iopoly::format;
using iopoly::Status;

iopoly_seeker::iopoly_seeker(iopoly::StripeBuffer &Buf, iopoly_array *A,
                             size_t NSteps, iopoly_step_fn Fn, void *Ctx,
                             size_t MaxPerStep, size_t Lookahead, int Mode)
    : Buf(Buf), A(A), NSteps(NSteps), Fn(Fn), Ctx(Ctx), MaxPerStep(MaxPerStep),
      Lookahead(Lookahead), Mode(Mode) {
  // Leave an eighth of the buffer to the program's own attaches; blocks
  // beyond the budget are only hinted (prefetched without a pin).
  size_t Frames = Buf.numFrames();
  PinBudget = Frames > 8 ? Frames - Frames / 8 : Frames;
}

Status iopoly_seeker::stepBlocks(size_t Step, std::vector<size_t> &Out) {
  Out.resize(MaxPerStep);
  size_t N = Fn(Ctx, Step, Out.data(), MaxPerStep);
  if (N > MaxPerStep)
    return Status::error(format("seeker on array '%s': step %zu has %zu blocks, more than max_blocks_per_step=%zu",
                                A->Name.c_str(), Step, N, MaxPerStep));
  Out.resize(N);
  size_t NB = A->Geo.numStripes();
  for (size_t B : Out)
    if (B >= NB)
      return Status::error(format("seeker on array '%s': step %zu touches block %zu, but the array has %zu blocks",
                                  A->Name.c_str(), Step, B, NB));
  return {};
}

// A block is counted once per occurrence in a step's list (duplicates
// included): leave() walks the same list, so the counts balance.
Status iopoly_seeker::enter(size_t Step) {
  if (Status E = stepBlocks(Step, Entering))
    return E;
  std::vector<size_t> New;
  for (size_t B : Entering)
    if (Blocks[B].Steps++ == 0)
      New.push_back(B);
  // New blocks are requested in block order: sequential on each disk.
  std::sort(New.begin(), New.end());
  for (size_t B : New) {
    Held &H = Blocks[B];
    if (PinnedCount < PinBudget) {
      if (Status E = Buf.pinAhead(A, B, Mode, H.Pinned))
        return E;
      PinnedCount += H.Pinned;
    }
    if (!H.Pinned) {
      bool Taken;
      (void)Buf.prefetch(A, B, Taken);
    }
  }
  return {};
}

Status iopoly_seeker::leave() {
  Status First;
  for (size_t B : Current) {
    auto It = Blocks.find(B);
    if (It == Blocks.end() || --It->second.Steps > 0)
      continue;
    if (It->second.Pinned) {
      if (Status E = Buf.release(A, B))
        if (First.ok())
          First = E;
      --PinnedCount;
    }
    Blocks.erase(It);
  }
  Current.clear();
  return First;
}

long iopoly_seeker::next(Status &Err) {
  Err = Status();
  if (Cur >= 0 && Cur < static_cast<long>(NSteps))
    if ((Err = leave()))
      return -1;
  if (Cur + 1 >= static_cast<long>(NSteps)) {
    Cur = static_cast<long>(NSteps);
    return -1;
  }
  ++Cur;
  size_t Until = std::min(NSteps, static_cast<size_t>(Cur) + Lookahead + 1);
  while (NextToEnter < Until)
    if ((Err = enter(NextToEnter++)))
      return -1;
  // The step function is asked again for the current step (the window
  // keeps no lists); it must answer as it did when the step was entered.
  if ((Err = stepBlocks(static_cast<size_t>(Cur), Current)))
    return -1;
  // Everything the current step touches must now be attached and present.
  for (size_t B : Current) {
    auto It = Blocks.find(B);
    if (It == Blocks.end()) {
      Err = Status::error(format("seeker on array '%s': step %ld now touches block %zu, which it did not name when "
                                 "it was entered (the step function must give the same blocks each time)",
                                 A->Name.c_str(), Cur, B));
      Current.clear();
      return -1;
    }
    Held &H = It->second;
    if (H.Data)
      continue;
    if (!H.Pinned) {
      if ((Err = Buf.attach(A, B, Mode, H.Data)))
        return -1;
      H.Pinned = true;
      ++PinnedCount;
    } else if ((Err = Buf.waitReady(A, B, H.Data))) {
      return -1;
    }
  }
  return Cur;
}

Status iopoly_seeker::block(size_t B, void *&Out) {
  auto It = Blocks.find(B);
  // Data is set only while the block is pinned and present.
  if (It == Blocks.end() || !It->second.Data)
    return Status::error(format("seeker on array '%s': block %zu is not held for the current step %ld",
                                A->Name.c_str(), B, Cur));
  Out = It->second.Data;
  return {};
}

Status iopoly_seeker::close() {
  Status First;
  for (auto &KV : Blocks)
    if (KV.second.Pinned)
      if (Status E = Buf.release(A, KV.first))
        if (First.ok())
          First = E;
  Blocks.clear();
  Current.clear();
  PinnedCount = 0;
  return First;
}
