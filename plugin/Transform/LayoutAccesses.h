//===- LayoutAccesses.h - Every access of an array whose layout may change -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The file layout of an array can change only if the pass sees, and can
// rewrite, every access of it. Two kinds of arrays qualify:
//
// * a disk-resident global whose every use is an access through its own
//   dimensions (V[i][j]);
// * an allocated array (paper 1's arrays are mostly malloc'd): a call to an
//   allocator (malloc, calloc, aligned_alloc, iopoly_alloc, or a function
//   declared __attribute__((malloc))) whose result, and the parameters of
//   the functions of this module it is passed to (static ones, only ever
//   called with arrays of the same kind), is used only by accesses through
//   the array's dimensions, null tests and free/iopoly_free. Its shape is
//   the array type the program casts it to (double (*)[N][M]), or its
//   rows' type and the allocation's constant size.
//
// Anything else (a pointer stored or returned, passed to a function of
// another file, indexed across rows) keeps the array row-major, and the
// reason is returned for the remark.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_LAYOUTACCESSES_H
#define IOPOLY_PLUGIN_TRANSFORM_LAYOUTACCESSES_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/PassManager.h"

#include <string>
#include <utility>
#include <vector>

namespace llvm {
class CallBase;
class GlobalVariable;
class Instruction;
class Module;
class Type;
class User;
class Value;
} // namespace llvm

namespace iopoly {

/// The array as its IR type nests: Levels[k] is the type indexed by
/// subscript k (Levels[0] the whole array, Levels[m] the element).
struct ArrayForm {
  llvm::SmallVector<llvm::Type *, 5> Levels;
  llvm::SmallVector<uint64_t, 4> Dims;
  unsigned rank() const { return Dims.size(); }
  llvm::Type *elem() const { return Levels.back(); }
};

/// Fills \p F from an array type; false unless it has at least two
/// dimensions of scalars.
bool formOf(llvm::Type *T, ArrayForm &F);

/// One load or store of an element, with its subscripts in array order.
struct ElementAccess {
  llvm::Instruction *I;
  /// Points to the array's first element: the global, or the allocation,
  /// parameter or marker the access is computed from.
  llvm::Value *Base;
  llvm::SmallVector<llvm::Value *, 4> Index;
  /// Further terms of a subscript: (dimension, value) when rows are
  /// stepped twice (p = A + i; p[k][j] is row i + k).
  llvm::SmallVector<std::pair<unsigned, llvm::Value *>, 1> Added;
};

/// Why \p U stops the layout from changing, in words.
std::string describeUse(const llvm::User *U);

/// Every access of disk-resident global \p G; "" or why its layout cannot
/// change.
std::string collectAccesses(llvm::GlobalVariable &G, const ArrayForm &F, std::vector<ElementAccess> &Out);

/// An allocated array (all allocations whose pointers meet in one
/// parameter share a layout) and its accesses in this module.
struct AllocatedArray {
  std::string Name; ///< the disk-resident name its pointers carry
  llvm::SmallVector<llvm::CallBase *, 2> Allocations;
  ArrayForm F;
  std::vector<ElementAccess> Accesses;
  std::string Escape; ///< why its layout cannot change ("" if it can)
  llvm::Instruction *Anchor = nullptr; ///< where remarks about it point
};

/// The allocated arrays of \p M that reach a disk-resident pragma, and,
/// with why not, the pointers a pragma names whose allocation it never met.
std::vector<AllocatedArray> findAllocatedArrays(llvm::Module &M, llvm::FunctionAnalysisManager &FAM);

} // namespace iopoly

#endif
