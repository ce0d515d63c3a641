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
// the module) are recorded as escapes, for remarks.
//
// Every other pointer is classified by its roots (through GEPs, casts, phis
// and selects): a stack slot, a global, a constant or a malloc-like call is
// ordinary memory; anything else (a parameter, a pointer loaded from memory
// or returned by a call, an integer cast) *may* be disk-resident: its
// accesses get the same window test at run time, which costs one compare
// on ordinary memory and reaches the stripe buffer on disk-resident memory
// (issue 9: an allocator in another file, pointers kept in structs).
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
  /// The origin of \p P if it may point to disk-resident memory, including
  /// pointers of unknown origin (unknownOrigin()); null when \p P surely
  /// points to ordinary memory or its accesses are lowered already.
  const DiskOrigin *classify(const llvm::Value *P);
  /// The origin of pointers the analysis cannot classify.
  const DiskOrigin *unknownOrigin() const { return &Unknown; }
  /// \p P is an address the lowering produced (already served).
  void markLowered(const llvm::Value *P) { Lowered.insert(P); }
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

  bool rootsMayBeDisk(const llvm::Value *P);

  std::vector<DiskOrigin> Origins;
  DiskOrigin Unknown{""};
  llvm::DenseMap<const llvm::Value *, bool> MayBeDisk; ///< memo of rootsMayBeDisk
  llvm::SmallPtrSet<const llvm::Value *, 32> Lowered;
  llvm::DenseMap<const llvm::Value *, unsigned> Derived;
  llvm::SmallPtrSet<const llvm::Function *, 16> Functions;
  std::vector<DiskEscape> Escapes;
  llvm::SmallVector<llvm::CallInst *, 16> Markers;
  bool HasGlobals = false;
};

} // namespace iopoly

#endif
