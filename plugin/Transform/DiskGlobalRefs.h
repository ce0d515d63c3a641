//===- DiskGlobalRefs.h - Disk-resident arrays in other initializers -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Valid C may take the address of a disk-resident global in the initializer
// of another global: `double *gp = A;` at file scope, or a local
// `double *arr[2] = {A, A + 100};`, which clang turns into a private
// constant copied into the local. The array's address is only known at run
// time (DiskGlobals.cpp), so each such pointer - the array itself or a
// constant offset into it - is left null in the initializer, and a module
// constructor that runs right after the arrays are set up stores the real
// address there. Uses of another kind (an address turned into an integer,
// say) are an error naming both globals, with the source location when the
// program was compiled with debug information.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_DISKGLOBALREFS_H
#define IOPOLY_PLUGIN_TRANSFORM_DISKGLOBALREFS_H

namespace llvm {
class GlobalVariable;
class Module;
} // namespace llvm

namespace iopoly {

/// Rewrites every use of disk-resident global \p G inside the initializer of
/// another global; \p Slot holds G's run-time address once the constructor
/// of priority \p Priority - 1 has run. Leaves only instruction users.
void rewriteInitializerRefs(llvm::Module &M, llvm::GlobalVariable *G, llvm::GlobalVariable *Slot, int Priority);

} // namespace iopoly

#endif
