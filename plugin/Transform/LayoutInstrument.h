//===- LayoutInstrument.h - Counters for layout profiles --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// -fplugin-arg-iopoly-layout=instrument (paper 1, section 4: the program
// profiled with counters attached to its disk-resident arrays): each access
// site FileLayoutPass numbers gets a 64-bit counter incremented where the
// access runs, and a module constructor registers the sites and counters
// with the runtime (__iopoly_layout_profile, include/iopoly/abi.h), which
// writes them to IOPOLY_LAYOUT_PROFILE at exit.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_LAYOUTINSTRUMENT_H
#define IOPOLY_PLUGIN_TRANSFORM_LAYOUTINSTRUMENT_H

#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace llvm {
class Instruction;
class Module;
} // namespace llvm

namespace iopoly {

/// One access site: the load or store, its array and its number among the
/// array's accesses in its function.
struct LayoutSiteRef {
  llvm::Instruction *I;
  std::string Array;
  unsigned Site;
};

/// Counts every execution of \p Sites (atomic adds: tasks may run them on
/// several threads) and registers them with the runtime.
void instrumentLayoutSites(llvm::Module &M, llvm::ArrayRef<LayoutSiteRef> Sites);

} // namespace iopoly

#endif
