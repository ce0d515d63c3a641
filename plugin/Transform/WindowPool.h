//===- WindowPool.h - The bounded window table of a function ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The windows of one lowered function (include/iopoly/abi.h): two tables in
// its entry block, pinned ones for strip drivers and plain ones for single
// access sites, together at most IOPOLY_MAX_WINDOWS, whatever the number of
// sites after unrolling and tiling (issue 9: 3mm under mode=clo reserved a
// 10 MB frame with one window per site). Sites that walk the same stream
// share a window (they touch the same stripes); when there are more streams
// than windows, streams share round-robin, which costs translations but
// never correctness. A window serves either reads or writes (a window
// attached for reading must never let a store through), so each table has
// a part for each. The pool also releases each window when the loop nest
// using it is left and at every return.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_WINDOWPOOL_H
#define IOPOLY_PLUGIN_TRANSFORM_WINDOWPOOL_H

#include "Support/RuntimeABI.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"

#include <map>
#include <set>
#include <utility>

namespace iopoly {

struct RuntimeABI;

class WindowPool {
public:
  /// Windows for strip drivers (their share of IOPOLY_MAX_WINDOWS).
  static constexpr unsigned StripShare = MaxWindows / 2;

  WindowPool(llvm::Function &F, RuntimeABI &ABI) : F(F), ABI(ABI) {}

  /// Creates the pinned table, \p Reads windows for reading and \p Writes
  /// for writing (once; both may be 0; together at most StripShare).
  void reserveStrip(unsigned Reads, unsigned Writes);
  /// Creates the plain table (once); together at most free().
  void reserveSites(unsigned Reads, unsigned Writes);
  /// Windows still available for reserveSites.
  unsigned free() const;
  unsigned stripCount() const { return StripR + StripW; }
  unsigned siteCount() const { return SiteR + SiteW; }

  /// The address of strip window \p K for reading or writing (or of site
  /// window \p K, modulo the windows of that kind), used in \p B's block
  /// (recorded for the releases).
  llvm::Value *strip(llvm::IRBuilderBase &B, unsigned K, bool Write);
  llvm::Value *site(llvm::IRBuilderBase &B, unsigned K, bool Write);

  /// Inserts the releases: at the exits of every outermost loop in which a
  /// window is used, and before every return. Call once, last.
  void releaseAtExits();

private:
  /// A window: its table (0 strip, 1 site) and index. Keys that are not
  /// pointers, so that the releases come out in the same order in every
  /// compile (reproducible builds).
  using WindowKey = std::pair<unsigned, unsigned>;
  llvm::Value *use(llvm::IRBuilderBase &B, unsigned Table, unsigned K);
  llvm::AllocaInst *table(unsigned Table) const { return Table ? SiteT : StripT; }

  llvm::Function &F;
  RuntimeABI &ABI;
  llvm::AllocaInst *StripT = nullptr, *SiteT = nullptr;
  unsigned StripR = 0, StripW = 0, SiteR = 0, SiteW = 0;
  std::map<WindowKey, std::set<llvm::BasicBlock *>> Uses;
};

} // namespace iopoly

#endif
