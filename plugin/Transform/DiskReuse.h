//===- DiskReuse.h - Disk-reuse restructuring of a SCoP ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 1, Fig. 10, on Polly's SCoPs, with locality sets sized at run time
// (Analysis/DataTiling.h). With dro-l each top-level loop nest is a region
// of its own; with dro-wp the whole SCoP is one. Each region's families are
// grouped and tiled by their data; the SCoP is compiled in a few versions
// (unit sizes) plus its original order, and one SCoP parameter, the value
// __iopoly_pick_version returns from the run's buffer and stripe, selects
// one at run time. Every version must be valid by Polly's dependences
// (Dependences::isValidSchedule) or nothing changes. Remarks say what was
// done, which versions exist, and why loops keep their order, in the
// user's terms, once per source location. A SCoP with no array known to be
// disk-resident gets Polly's schedule, as in mode=clo (Transform/CLO.h).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_DISKREUSE_H
#define IOPOLY_PLUGIN_TRANSFORM_DISKREUSE_H

#include "polly/ScopPass.h"

namespace iopoly {

struct DiskReusePass : llvm::PassInfoMixin<DiskReusePass> {
  explicit DiskReusePass(bool WholeProgram) : WholeProgram(WholeProgram) {}
  llvm::PreservedAnalyses run(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                              polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &U);
  bool WholeProgram;
};

/// print<iopoly-lsg>: the families, their LSG and Hamming order, the groups
/// and the versions of every SCoP (whole-program scope).
struct LSGPrinterPass : llvm::PassInfoMixin<LSGPrinterPass> {
  explicit LSGPrinterPass(llvm::raw_ostream &OS) : OS(OS) {}
  llvm::PreservedAnalyses run(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                              polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &U);
  llvm::raw_ostream &OS;
};

} // namespace iopoly

#endif
