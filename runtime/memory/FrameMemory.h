//===- FrameMemory.h - Buffer memory and views of resident stripes -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The stripe buffer's frames live in one shared-memory file (memfd), so a
// frame can also be mapped at a second address: the stripe's own address in
// the iopoly_alloc arena (its view). While a stripe of such an array is
// resident its view is mapped - read-only while the frame is clean,
// read-write while it is dirty - and unmapped (PROT_NONE again) when the
// frame is given to another stripe. Compiled code can then serve a run of
// consecutive pinned stripes through one window with no address change, and
// code built without the plugin can read resident data; a write from such
// code to a clean stripe still faults and is reported, so no write can be
// lost. Views need stripes that are whole pages; otherwise they are off and
// compiled code works stripe by stripe through frame addresses.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_FRAMEMEMORY_H
#define IOPOLY_RUNTIME_FRAMEMEMORY_H

#include "core/Error.h"

#include <cstddef>

struct iopoly_array;

namespace iopoly {

enum class ViewState : unsigned char { None, ReadOnly, ReadWrite };

class FrameMemory {
public:
  /// Reserves address space for \p Frames frames; nothing is touched until
  /// used. A failure is kept in status() (the buffer is then unusable).
  FrameMemory(size_t Frames, size_t StripeSize);
  const Status &status() const { return Error; }
  ~FrameMemory();
  FrameMemory(const FrameMemory &) = delete;
  FrameMemory &operator=(const FrameMemory &) = delete;

  char *frame(size_t Index) const { return Base + Index * Stripe; }
  /// Whether views can be used at all (memfd and page-sized stripes).
  bool viewsPossible() const { return Fd >= 0; }
  /// Whether stripes of \p A get views (arena arrays only).
  bool hasViews(const iopoly_array &A) const;
  /// Makes the view of \p StripeIndex of \p A show frame \p Frame with
  /// state \p Want (None unmaps). \p Have is the current state.
  void setView(const iopoly_array &A, size_t StripeIndex, size_t Frame, ViewState Have, ViewState Want);

private:
  int Fd = -1;
  char *Base = nullptr;
  Status Error;
  size_t Count, Stripe;
};

} // namespace iopoly

#endif
