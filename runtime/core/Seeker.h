//===- Seeker.h - Seeker/reaper walk over a step sequence -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 3, section 3: a seeker attaches the blocks of the coming steps before
// they are needed (here, in the background) and a reaper releases each block
// once no step of the window needs it, so the working set stays pinned and
// the buffer is never overfilled. A step is whatever unit the program walks
// (a wavefront diagonal, a group of iterations of the compiler's schedule).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_SEEKER_H
#define IOPOLY_RUNTIME_SEEKER_H

#include "iopoly.h"

#include "core/Error.h"

#include <unordered_map>
#include <vector>

namespace iopoly {
class StripeBuffer;
}

struct iopoly_seeker {
  iopoly_seeker(iopoly::StripeBuffer &Buf, iopoly_array *A, size_t NSteps,
                iopoly_step_fn Fn, void *Ctx, size_t MaxPerStep,
                size_t Lookahead, int Mode);
  /// Moves to the next step; -1 past the end (Err empty) or on error.
  long next(iopoly::Status &Err);
  /// Data of a block the current step touches.
  iopoly::Status block(size_t B, void *&Out);
  /// Releases everything held.
  iopoly::Status close();

private:
  struct Held {
    unsigned Steps = 0;    ///< window steps that touch the block
    bool Pinned = false;   ///< attached (ahead or now)
    void *Data = nullptr;  ///< known once the current step needs it
  };
  iopoly::Status enter(size_t Step);
  iopoly::Status leave();

  iopoly::StripeBuffer &Buf;
  iopoly_array *A;
  size_t NSteps;
  iopoly_step_fn Fn;
  void *Ctx;
  size_t MaxPerStep, Lookahead, PinBudget;
  int Mode;
  long Cur = -1;
  size_t NextToEnter = 0;
  size_t PinnedCount = 0;
  /// Calls the step function for \p Step into \p Out and checks its answer.
  iopoly::Status stepBlocks(size_t Step, std::vector<size_t> &Out);

  // The window keeps no per-step lists (they cost look-ahead x blocks per
  // step of memory, more than the buffer's slack under a memory limit): the
  // step function is asked again when a step becomes the current one.
  std::unordered_map<size_t, Held> Blocks;
  std::vector<size_t> Entering; ///< blocks of the step being entered
  std::vector<size_t> Current;  ///< blocks of step Cur, as entered
};

#endif
