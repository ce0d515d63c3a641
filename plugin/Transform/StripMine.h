//===- StripMine.h - Translate once per stripe, not per access --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Hoisting of the lowering (issue 3, section 3). An innermost loop whose
// disk-resident accesses walk affinely (address = start + i * step) runs in
// strips: a driver translates each access's address once, computes how many
// iterations every access stays inside the stripe it now holds, and runs the
// original loop for that many iterations with the accesses rebased by the
// windows' deltas (no test, no call). When some access cannot be served
// that way (it straddles two stripes), one iteration runs in a checked copy
// of the loop whose accesses are lowered one by one. Header phis and values
// used after the loop are carried across strips.
//
//   preheader -> strip.head: done, carried phis; translate; n = min(room)
//                  n > 0 ? fast loop (n iterations) : checked copy (1)
//             -> strip.latch: done += n or 1; done == total ? exit : head
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_STRIPMINE_H
#define IOPOLY_PLUGIN_TRANSFORM_STRIPMINE_H

#include <set>
#include <string>

namespace llvm {
class AllocaInst;
class DominatorTree;
class Function;
class LoopInfo;
class OptimizationRemarkEmitter;
class ScalarEvolution;
template <typename T> class SmallVectorImpl;
} // namespace llvm

namespace iopoly {

class DiskPointers;
struct RuntimeABI;

struct StripMineStats {
  unsigned Loops = 0;    ///< loops strip-mined
  unsigned Accesses = 0; ///< accesses served without a per-access test
  std::set<std::string> Arrays;
};

/// Strip-mines every eligible innermost loop of \p F. Windows it creates
/// are appended to \p Windows (the caller releases them at function exit).
StripMineStats stripMineLoops(llvm::Function &F, DiskPointers &DP, RuntimeABI &ABI, llvm::DominatorTree &DT,
                              llvm::LoopInfo &LI, llvm::ScalarEvolution &SE, llvm::OptimizationRemarkEmitter &ORE,
                              llvm::SmallVectorImpl<llvm::AllocaInst *> &Windows);

} // namespace iopoly

#endif
