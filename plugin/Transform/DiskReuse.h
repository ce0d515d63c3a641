//===- DiskReuse.h - Disk-reuse restructuring of a SCoP ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 1, Fig. 10, on Polly's SCoPs. Builds the locality set graph
// (LocalitySets.h), removes its cycles, orders its nodes by minimal Hamming
// distance (scheduleByHamming), and gives Polly the schedule tree
//     sequence( filter(N_1) -> original schedule restricted to N_1,
//               filter(N_2) -> ..., ... )
// - the LSG order outside, the original order inside each node. With
// dro-l each top-level loop nest is reordered alone; with dro-wp all nests
// of the SCoP together. The schedule is applied only when Polly's
// dependences say it is valid and the cost model says it is better: some
// locality set is visited in several pieces by the original order
// (fragmented) and the new order has fewer disk state changes than the
// original's visits. Remarks say what was done, or why not.
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

/// print<iopoly-lsg>: the locality sets, the LSG and the Hamming order of
/// every SCoP (whole-program scope).
struct LSGPrinterPass : llvm::PassInfoMixin<LSGPrinterPass> {
  explicit LSGPrinterPass(llvm::raw_ostream &OS) : OS(OS) {}
  llvm::PreservedAnalyses run(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                              polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &U);
  llvm::raw_ostream &OS;
};

} // namespace iopoly

#endif
