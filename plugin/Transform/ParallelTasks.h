//===- ParallelTasks.h - Parallel loops of restructured code as tasks -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// -fplugin-arg-iopoly-threads=on (paper 1, section 5). Polly's OpenMP code
// generation (-polly-parallel, turned on by the option) outlines every loop
// that Polly's dependences prove parallel in the restructured schedule and
// drives it through the GOMP work-sharing calls; loops it cannot prove
// parallel stay sequential. This pass points those calls at the runtime's
// task scheduler (__iopoly_par_*, include/iopoly/abi.h), which hands the
// iterations (the tiles of a data-tiled region) to IOPOLY_THREADS threads
// by disk map (runtime/sched/ParallelLoop.h), and says in a remark per
// function how many loops run as tasks.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_TRANSFORM_PARALLELTASKS_H
#define IOPOLY_PLUGIN_TRANSFORM_PARALLELTASKS_H

#include "llvm/IR/PassManager.h"

namespace iopoly {

struct ParallelTasksPass : llvm::PassInfoMixin<ParallelTasksPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &AM);
};

} // namespace iopoly

#endif
