//===- VersionTable.h - IR form of iopoly/tiling.h --------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Emits the table of a SCoP's tiled versions (struct iopoly_tile_table of
// include/iopoly/tiling.h) as globals and the call that asks the runtime
// which version to run (__iopoly_pick_version). The layout follows the C
// header's declarations; test/plugin-unit/AbiLayoutTest.cpp checks it.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_SUPPORT_VERSIONTABLE_H
#define IOPOLY_PLUGIN_SUPPORT_VERSIONTABLE_H

#include "iopoly/tiling.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/IRBuilder.h"

#include <vector>

namespace iopoly {

/// IR struct types of iopoly_tile_term, iopoly_tile_version, iopoly_tile_table.
struct VersionTableTypes {
  explicit VersionTableTypes(llvm::LLVMContext &C);
  llvm::StructType *Term, *Version, *Table;
};

/// Emits the table (versions in order, the last is the original order;
/// \p Units the unit bytes of the tiled ones) and a call of
/// __iopoly_pick_version before \p Before; returns the call.
llvm::CallInst *emitVersionChoice(llvm::Module &M, llvm::Instruction *Before,
                                  const std::vector<std::vector<iopoly_tile_term>> &Versions,
                                  const std::vector<uint64_t> &Units, llvm::StringRef Where, bool Prefetch);

} // namespace iopoly

#endif
