//===- ParallelTasks.cpp - Parallel loops of restructured code as tasks ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/ParallelTasks.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <map>

#define DEBUG_TYPE "iopoly"

using namespace llvm;

STATISTIC(NumParallelLoops, "Parallel loops run as tasks of the runtime's scheduler");

namespace iopoly {

PreservedAnalyses ParallelTasksPass::run(Module &M, ModuleAnalysisManager &) {
  // Polly's GOMP calls and the runtime's entry points with the same types.
  static const std::pair<const char *, const char *> Names[] = {
      {"GOMP_parallel_loop_runtime_start", "__iopoly_par_start"},
      {"GOMP_loop_runtime_next", "__iopoly_par_next"},
      {"GOMP_loop_end_nowait", "__iopoly_par_end_nowait"},
      {"GOMP_parallel_end", "__iopoly_par_end"}};
  bool Changed = false;
  std::map<Function *, unsigned> Loops;
  for (auto &[From, To] : Names) {
    Function *F = M.getFunction(From);
    if (!F || !F->isDeclaration())
      continue;
    if (StringRef(From) == "GOMP_parallel_loop_runtime_start")
      for (User *U : F->users())
        if (auto *CI = dyn_cast<CallInst>(U))
          ++Loops[CI->getFunction()];
    if (Function *Existing = M.getFunction(To)) {
      F->replaceAllUsesWith(Existing);
      F->eraseFromParent();
    } else {
      F->setName(To);
    }
    Changed = true;
  }
  for (auto &[F, N] : Loops) {
    NumParallelLoops += N;
    OptimizationRemarkEmitter ORE(F);
    DebugLoc Loc;
    for (Instruction &I : instructions(*F))
      if (auto *CI = dyn_cast<CallInst>(&I))
        if (CI->getCalledFunction() && CI->getCalledFunction()->getName() == "__iopoly_par_start" &&
            (Loc = CI->getDebugLoc()))
          break;
    ORE.emit([&] {
      return OptimizationRemark(DEBUG_TYPE, "ParallelTasks", Loc, &F->getEntryBlock())
             << "threads: " << ore::NV("Loops", N)
             << " loop(s) that Polly's dependences prove parallel run as tasks on IOPOLY_THREADS threads, "
                "scheduled by disk map; the other loops of the restructured code run in order";
    });
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace iopoly
