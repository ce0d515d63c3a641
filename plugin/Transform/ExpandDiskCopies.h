//===- ExpandDiskCopies.h - memcpy/memset on disk arrays as loops -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Polly models a memcpy or memset as an access of bytes. Beside the loads
// and stores of the array's elements (doubles, say) it cannot relate the
// two, and it drops every loop of the region around the call: one row copy
// in a time loop keeps the whole stencil in its original order. In the
// Polly modes, a memcpy or memset on a disk-resident array whose other
// accesses in the function all have one element size, at an offset and a
// length that are multiples of it, becomes a loop over those elements,
// which Polly models like any other (of a copy's two arrays, one whose
// accesses already mix sizes does not decide). memmove (its copies may
// overlap) and volatile calls are left alone; a copy left as it is, into a
// multi-dimensional array, makes ElementSizeGuardPass leave its SCoP in
// the original order. Runs before Polly's preparation.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_EXPANDDISKCOPIES_H
#define IOPOLY_PLUGIN_TRANSFORM_EXPANDDISKCOPIES_H

#include "llvm/IR/PassManager.h"

namespace iopoly {

struct ExpandDiskCopiesPass : llvm::PassInfoMixin<ExpandDiskCopiesPass> {
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);
};

} // namespace iopoly

#endif
