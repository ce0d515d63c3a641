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
      Lookahead(Lookahead), Mode(Mode), Scratch(MaxPerStep) {
  // Leave an eighth of the buffer to the program's own attaches; blocks
  // beyond the budget are only hinted (prefetched without a pin).
  size_t Frames = Buf.numFrames();
  PinBudget = Frames > 8 ? Frames - Frames / 8 : Frames;
}

Status iopoly_seeker::enter(size_t Step) {
  size_t N = Fn(Ctx, Step, Scratch.data(), MaxPerStep);
  if (N > MaxPerStep)
    return Status::error(format("seeker on array '%s': step %zu has %zu blocks, more than max_blocks_per_step=%zu",
                                A->Name.c_str(), Step, N, MaxPerStep));
  std::vector<size_t> List(Scratch.begin(), Scratch.begin() + static_cast<long>(N));
  std::sort(List.begin(), List.end());
  List.erase(std::unique(List.begin(), List.end()), List.end());
  size_t NB = A->Geo.numStripes();
  for (size_t B : List) {
    if (B >= NB)
      return Status::error(format("seeker on array '%s': step %zu touches block %zu, but the array has %zu blocks",
                                  A->Name.c_str(), Step, B, NB));
    Held &H = Blocks[B];
    if (H.Steps++ > 0)
      continue;
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
  Window.push_back(std::move(List));
  return {};
}

Status iopoly_seeker::leave() {
  Status First;
  for (size_t B : Window.front()) {
    auto It = Blocks.find(B);
    if (--It->second.Steps > 0)
      continue;
    if (It->second.Pinned) {
      if (Status E = Buf.release(A, B))
        if (First.ok())
          First = E;
      --PinnedCount;
    }
    Blocks.erase(It);
  }
  Window.pop_front();
  return First;
}

long iopoly_seeker::next(Status &Err) {
  Err = Status();
  if (Cur >= 0 && !Window.empty())
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
  // Everything the current step touches must now be attached and present.
  for (size_t B : Window.front()) {
    Held &H = Blocks[B];
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
  Window.clear();
  PinnedCount = 0;
  return First;
}
