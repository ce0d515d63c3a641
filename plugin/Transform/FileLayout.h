//===- FileLayout.h - File layout selection (paper 1, section 4) -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The layout permutation at IR level. For a disk-resident global array
// whose every use is an access through the array's own dimensions
// (V[i][j], in this module), the pass scores the m! file layouts
// (Analysis/LayoutChoice.h: accesses weighted by the trip counts of their
// loops) or takes the one requested (#pragma iopoly layout(V, 1, 0),
// -fplugin-arg-iopoly-layout=V:1,0), and stores the array permuted: double
// V[N][M] in layout {1,0} becomes V'[M][N] and every V[i][j] becomes
// V'[j][i]. The bytes of V' are then the file's bytes in that layout, so
// everything after (Polly, restructuring, lowering) simply sees V'. The
// global carries !iopoly.layout (the permutation) and its declared shape,
// which DiskGlobalsPass hands to the runtime (__iopoly_global_init), so the
// file header records the declared dims and the layout.
//
// Allocated arrays (Transform/LayoutAccesses.h: an allocation followed
// into the static functions it is passed to) are permuted the same way,
// each access through the permuted type from its own base pointer, and
// each allocation is followed by __iopoly_alloc_layout, so that the header
// of iopoly_alloc memory records the shape and the layout.
//
// An array whose address escapes (passed to a function, stored, pointer
// arithmetic across rows, used by another global) keeps row-major, with a
// remark saying why. In clo, dro-l and dro-wp a layout the vote chose is
// tried against row-major on copies of the module by the cost model of the
// mode's schedule, and kept only if it is not estimated worse
// (Analysis/LayoutTrial.h). Runs at the start of the pipeline, after iopoly-mark
// and a promotion of scalars to registers (loop counters become the
// induction variables that scalar evolution reads).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_FILELAYOUT_H
#define IOPOLY_PLUGIN_TRANSFORM_FILELAYOUT_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/OptimizationLevel.h"

#include <optional>

namespace llvm {
class GlobalVariable;
}

namespace iopoly {

/// !iopoly.layout on a permuted global: !{i32 P0, i32 P1, ...}.
inline constexpr const char *LayoutMD = "iopoly.layout";
/// !iopoly.layout.request: a layout requested by #pragma iopoly layout.
inline constexpr const char *LayoutRequestMD = "iopoly.layout.request";

/// The permutation in \p G's !iopoly.layout (empty: row-major).
llvm::SmallVector<unsigned, 4> layoutOf(const llvm::GlobalVariable &G);

struct FileLayoutPass : llvm::PassInfoMixin<FileLayoutPass> {
  /// \p Choose false (at -O0, where loop counters live in memory and no
  /// trip count is known): only requested layouts are applied. \p Level:
  /// the pipeline the program is compiled with, for the layout trials
  /// (Analysis/LayoutTrial.h); without it (opt -passes=iopoly-layout) the
  /// vote alone decides.
  explicit FileLayoutPass(bool Choose = true, std::optional<llvm::OptimizationLevel> Level = std::nullopt)
      : Choose(Choose), Level(Level) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
  bool Choose;
  std::optional<llvm::OptimizationLevel> Level;
  static bool isRequired() { return true; }
};

} // namespace iopoly

#endif
