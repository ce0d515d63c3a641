//===- DiskGlobals.h - Disk-resident global arrays ---------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A global array with !iopoly.disk_resident occupies no memory: it becomes
// a pointer slot @<name>.iopoly that a module constructor fills with
// disk-resident memory from the runtime (files <name>.iop under IOPOLY_DIR,
// zero-filled and then given the C initializer, as C requires at program
// start). Every use of the array becomes a load of the slot. The original
// symbol disappears, so code built without the plugin that refers to it
// fails to link instead of reading garbage.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_DISKGLOBALS_H
#define IOPOLY_PLUGIN_TRANSFORM_DISKGLOBALS_H

#include "llvm/IR/PassManager.h"

namespace iopoly {

/// Metadata kind on the pointer slots this pass creates.
inline constexpr const char *SlotMD = "iopoly.slot";

struct DiskGlobalsPass : llvm::PassInfoMixin<DiskGlobalsPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  static bool isRequired() { return true; }
};

} // namespace iopoly

#endif
