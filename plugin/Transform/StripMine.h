//===- StripMine.h - Translate once per stripe, not per access --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Hoisting of the lowering (issue 3, section 3). An innermost loop whose
// disk-resident accesses walk affinely (address = start + i * step) runs in
// strips: a driver translates each stream's address once (accesses a small
// constant apart, as after unrolling, form one stream and share a window),
// computes how many iterations every access stays inside the stripes its
// window now holds, and runs the loop for that many iterations without a
// test or a call: the in-place copy (the loop as compiled) when every
// window maps its stripes at their own addresses (all deltas 0, the usual
// case), else the original loop with the accesses rebased by the windows'
// deltas. When some access cannot be served that way (it straddles two
// stripes), one iteration runs in a checked copy of the loop whose accesses
// are lowered one by one. Header phis and values used after the loop are
// carried across strips. Accesses under a guard (Polly's generated loops)
// take part too: their streams are translated as probes
// (IOPOLY_TRANSLATE_PROBE), which never stop the program for an address
// that the guard would not let through. An inner loop with a small
// constant bound on its trips (a tile) makes the driver cost as much as
// the body: its enclosing loop then gets a copy that runs as compiled when,
// on entering it, the windows already hold (in place) the bounding box of
// every address the inner loop's streams reach there.
//
//   preheader -> strip.head: done, carried phis; translate; n = min(room)
//                  n > 0 ? (deltas 0 ? in-place : rebased) loop, n iterations
//                        : checked copy (1)
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
class RemarkOnce;
class WindowPool;
struct RuntimeABI;

struct StripMineStats {
  unsigned Loops = 0;    ///< loops strip-mined
  unsigned Accesses = 0; ///< accesses served without a per-access test
  std::set<std::string> Arrays;
};

/// Strip-mines every eligible innermost loop of \p F, with the pinned
/// windows of \p Pool (reserved here: as many as the most streams of one
/// loop, at most WindowPool::StripShare; loops never run at the same time,
/// so they share them).
StripMineStats stripMineLoops(llvm::Function &F, DiskPointers &DP, RuntimeABI &ABI, llvm::DominatorTree &DT,
                              llvm::LoopInfo &LI, llvm::ScalarEvolution &SE, llvm::OptimizationRemarkEmitter &ORE,
                              RemarkOnce &Once, WindowPool &Pool);

} // namespace iopoly

#endif
