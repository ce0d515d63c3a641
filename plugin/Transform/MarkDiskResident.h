//===- MarkDiskResident.h - Pragma names -> IR markers -----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Runs at the start of the pipeline. Global arrays named by a file-scope
// pragma get !iopoly.disk_resident metadata. Parameters and locals named by
// a function-scope pragma arrive as llvm.var.annotation on their stack slot;
// every load of that slot is wrapped in a call to @__iopoly_mark, a pure
// function whose result later passes know to be "possibly disk-resident".
// The marker survives SROA, inlining and Polly (it is readnone) and is
// removed by iopoly-lower.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_MARKDISKRESIDENT_H
#define IOPOLY_PLUGIN_TRANSFORM_MARKDISKRESIDENT_H

#include "llvm/IR/PassManager.h"

namespace iopoly {

struct MarkDiskResidentPass : llvm::PassInfoMixin<MarkDiskResidentPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace iopoly

#endif
