//===- LowerDiskAccesses.h - Serve disk-resident accesses via the runtime -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every load and store whose address derives from a disk-resident pointer
// (a slot of DiskGlobals, a marker of MarkDiskResident, or a parameter that
// receives one, followed through GEPs, phis, selects and calls inside the
// module) is rewritten to go through a window (include/iopoly/abi.h):
//
//     off = p - win.lo
//     if (off < win.limit)   q = p + win.delta        ; fast: no call
//     else                   q = __iopoly_translate(&win, p, size, mode)
//     load/store q
//
// The window of a site keeps the stripe it last touched attached, so there
// is no runtime call while a reference stays inside that stripe; windows
// are released at function exit. Loops that provably walk within one stripe
// between boundaries are strip-mined first (StripMine.h), translating once
// per strip. memset/memcpy/memmove on such memory call the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_LOWERDISKACCESSES_H
#define IOPOLY_PLUGIN_TRANSFORM_LOWERDISKACCESSES_H

#include "llvm/IR/PassManager.h"

namespace iopoly {

struct LowerDiskAccessesPass : llvm::PassInfoMixin<LowerDiskAccessesPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace iopoly

#endif
