//===- VersionTable.h - IR form of iopoly/tiling.h --------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Builds the table of a SCoP's versions (struct iopoly_tile_table of
// include/iopoly/tiling.h) and emits it as globals with the call that asks
// the runtime which version to run (__iopoly_pick_version). The IR layout
// follows the C header's declarations; test/plugin-unit/AbiLayoutTest.cpp
// checks it against offsetof.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_SUPPORT_VERSIONTABLE_H
#define IOPOLY_PLUGIN_SUPPORT_VERSIONTABLE_H

#include "iopoly/tiling.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/IRBuilder.h"

#include <vector>

namespace iopoly {

/// The versions of one SCoP, as the C structs the runtime reads. The last
/// version added is the original order.
struct VersionSet {
  std::vector<iopoly_tile_version> Versions;
  std::vector<iopoly_tile_term> Terms;
  std::vector<iopoly_band> Bands;
  std::vector<iopoly_band_term> BandTerms;

  /// A version: \p Unit (bytes of a data-tiled unit, 0 for the original
  /// order, the tile size of a band version), \p Flags (IOPOLY_VERSION_*),
  /// its data terms and its footprint model (\p ModelTerms' band indices
  /// count from the first of \p ModelBands; both empty: no model).
  void addVersion(uint64_t Unit, uint32_t Flags, const std::vector<iopoly_tile_term> &DataTerms,
                  const std::vector<iopoly_band> &ModelBands, const std::vector<iopoly_band_term> &ModelTerms);
  /// The table, pointing into these vectors (valid while they are).
  iopoly_tile_table table() const;
};

/// IR struct types of the structs of iopoly/tiling.h.
struct VersionTableTypes {
  explicit VersionTableTypes(llvm::LLVMContext &C);
  llvm::StructType *Term, *Version, *Band, *BandTerm, *Table;
};

/// Emits \p Set and a call of __iopoly_pick_version before \p Before;
/// returns the call. \p Prefetch: the runtime hints the next tile's
/// stripes; \p Tasks: the versions' parallel loops run as tasks
/// (threads=on), which the runtime's choice takes into account.
llvm::CallInst *emitVersionChoice(llvm::Module &M, llvm::Instruction *Before, const VersionSet &Set,
                                  llvm::StringRef Where, bool Prefetch, bool Tasks);

} // namespace iopoly

#endif
