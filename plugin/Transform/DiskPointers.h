//===- DiskPointers.h - Which pointers may reach disk-resident memory -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Starting from the roots (loads of DiskGlobals slots, @__iopoly_mark calls)
// follows pointer values through GEPs, phis, selects and casts, into the
// parameters of functions of this module they are passed to, and out of
// functions that return them. Every value reached "may be disk-resident"
// and keeps the name of the array it came from, for remarks. Uses the
// analysis cannot follow (stores of the pointer, calls to functions outside
// the module) are recorded as escapes.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_DISKPOINTERS_H
#define IOPOLY_PLUGIN_TRANSFORM_DISKPOINTERS_H

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Module.h"

#include <string>
#include <vector>

namespace iopoly {

struct DiskOrigin {
  std::string Name; ///< array name (or "pointer" when unknown)
};

struct DiskEscape {
  llvm::Instruction *At;
  std::string Origin;
  std::string What; ///< e.g. "is stored to memory"
};

class DiskPointers {
public:
  explicit DiskPointers(llvm::Module &M);

  /// The origin of \p P if it may point to disk-resident memory.
  const DiskOrigin *originOf(const llvm::Value *P) const;
  /// Records \p New (a clone or rebase of \p Old) as derived like \p Old.
  void addDerived(const llvm::Value *New, const llvm::Value *Old);
  /// Whether any disk-resident pointer lives in \p F.
  bool touches(const llvm::Function &F) const { return Functions.count(&F); }
  bool hasGlobals() const { return HasGlobals; }
  const std::vector<DiskEscape> &escapes() const { return Escapes; }
  /// Replaces every marker call by its operand (keeping origins); true if
  /// anything changed.
  bool removeMarkers();

private:
  void add(const llvm::Value *V, unsigned Origin, std::vector<const llvm::Value *> &Work);
  void propagate(std::vector<const llvm::Value *> &Work);

  std::vector<DiskOrigin> Origins;
  llvm::DenseMap<const llvm::Value *, unsigned> Derived;
  llvm::SmallPtrSet<const llvm::Function *, 16> Functions;
  std::vector<DiskEscape> Escapes;
  llvm::SmallVector<llvm::CallInst *, 16> Markers;
  bool HasGlobals = false;
};

} // namespace iopoly

#endif
