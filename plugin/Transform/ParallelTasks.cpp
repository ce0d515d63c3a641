//===- ParallelTasks.cpp - Parallel loops of restructured code as tasks ---===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/ParallelTasks.h"
#include "Support/RuntimeABI.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/LLVMContext.h"

#include <map>

#define DEBUG_TYPE "iopoly"

using namespace llvm;

STATISTIC(NumParallelLoops, "Parallel loops run as tasks of the runtime's scheduler");

namespace iopoly {

PreservedAnalyses ParallelTasksPass::run(Module &M, ModuleAnalysisManager &) {
  bool Changed = false;
  std::map<Function *, unsigned> Loops;
  for (const ParallelRedirect &R : ParallelRedirects) {
    Function *F = M.getFunction(R.Gomp);
    if (!F || !F->isDeclaration())
      continue;
    // Polly declares GOMP_loop_runtime_next returning i8 (C's bool) or i1;
    // any other shape would not be the protocol the runtime implements.
    FunctionType *Want = parallelRedirectType(M.getContext(), R), *Have = F->getFunctionType();
    bool Same = Have->getNumParams() == Want->getNumParams() && !Have->isVarArg();
    for (unsigned I = 0; Same && I < Want->getNumParams(); ++I)
      Same = Have->getParamType(I) == Want->getParamType(I);
    Same = Same && (Have->getReturnType() == Want->getReturnType() ||
                    (Want->getReturnType()->isIntegerTy(1) && Have->getReturnType()->isIntegerTy(8)));
    if (!Same) {
      M.getContext().emitError(Twine("iopoly threads=on: Polly's call ") + R.Gomp + " does not have the arguments of " +
                               R.Runtime + " (include/iopoly/abi.h); this LLVM's OpenMP code generation is not supported");
      continue;
    }
    if (StringRef(R.Gomp) == "GOMP_parallel_loop_runtime_start")
      for (User *U : F->users())
        if (auto *CI = dyn_cast<CallInst>(U))
          ++Loops[CI->getFunction()];
    if (Function *Existing = M.getFunction(R.Runtime)) {
      F->replaceAllUsesWith(Existing);
      F->eraseFromParent();
    } else {
      F->setName(R.Runtime);
    }
    Changed = true;
  }
  for (auto &Entry : Loops) {
    Function *F = Entry.first; // plain locals: the remark's lambda captures them
    unsigned N = Entry.second;
    NumParallelLoops += N;
    OptimizationRemarkEmitter ORE(F);
    DebugLoc Loc;
    for (Instruction &I : instructions(*F))
      if (auto *CI = dyn_cast<CallInst>(&I))
        if (CI->getCalledFunction() && CI->getCalledFunction()->getName() == ParallelRedirects[0].Runtime &&
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
