//===- Plugin.cpp - Registration of the iopoly passes ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Pipeline placement:
//   pipeline start : iopoly-mark   (pragma names -> IR markers, before SROA
//                                    removes the annotated allocas), then
//                    iopoly-layout (file layouts, on the GEPs clang wrote)
//   vectorizer start (clo, dro-l, dro-wp): Polly's preparation, the SCoP
//                    transformation, Polly's code generation
//   optimizer last : iopoly-globals, iopoly-lower, then a short cleanup
//                    (after vectorization and after Polly, so lowering sees
//                    the final loops)
//
//===----------------------------------------------------------------------===//
#include "Plugin.h"
#include "Polly/PollyPipeline.h"
#include "Support/Options.h"
#include "Transform/DiskGlobals.h"
#include "Transform/DistributeLoops.h"
#include "Transform/FoldMarkers.h"
#include "Transform/FileLayout.h"
#include "Transform/LowerDiskAccesses.h"
#include "Transform/MarkDiskResident.h"
#include "Transform/ParallelTasks.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/GVN.h"
#include "llvm/Transforms/Scalar/LICM.h"
#include "llvm/Transforms/Scalar/LoopPassManager.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace iopoly {

static void addLoweringPipeline(ModulePassManager &MPM, OptimizationLevel Level) {
  if (threadsEnabled())
    MPM.addPass(ParallelTasksPass());
  MPM.addPass(DiskGlobalsPass());
  MPM.addPass(LowerDiskAccessesPass());
  if (Level == OptimizationLevel::O0)
    return;
  FunctionPassManager FPM;
  FPM.addPass(EarlyCSEPass(/*UseMemorySSA=*/true));
  // A strip's accesses are rebased by loop-invariant deltas: an element
  // updated in every iteration (a reduction Polly left in memory) is kept
  // in a register for the strip, as the original code's was.
  FPM.addPass(createFunctionToLoopPassAdaptor(LICMPass(LICMOptions()), /*UseMemorySSA=*/true));
  FPM.addPass(InstCombinePass());
  FPM.addPass(SimplifyCFGPass());
  MPM.addPass(createModuleToFunctionPassAdaptor(std::move(FPM)));
}

void registerIOPolyPasses(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
#define MODULE_PASS(NAME, CREATE)                                                                                      \
  if (Name == NAME) {                                                                                                  \
    MPM.addPass(CREATE);                                                                                               \
    return true;                                                                                                       \
  }
#include "IOPolyPasses.def"
        return false;
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, FunctionPassManager &FPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "print<iopoly-lsg>") {
          configurePolly();
          addLSGPrinter(FPM, outs());
          return true;
        }
        if (Name == "iopoly-fold-markers") {
          FPM.addPass(FoldMarkersPass());
          return true;
        }
        if (Name == "iopoly-distribute-marks") {
          FPM.addPass(DistributeMarksPass());
          return true;
        }
        if (Name == "iopoly-distribute") {
          configurePolly();
          addMappingPipeline(FPM);
          return true;
        }
        static const std::pair<const char *, ScopTransform> Scop[] = {
            {"iopoly-clo", ScopTransform::PollyOptimizer},
            {"iopoly-dro-l", ScopTransform::DiskReuseNests},
            {"iopoly-dro-wp", ScopTransform::DiskReuseWhole}};
        for (auto &[N, T] : Scop)
          if (Name == N) {
            configurePolly();
            addScopPipeline(FPM, T);
            return true;
          }
        return false;
      });
  if (modeUsesPolly()) {
    configurePolly();
    keepLoopsForPolly();
    PB.registerVectorizerStartEPCallback([](FunctionPassManager &FPM, OptimizationLevel Level) {
      if (Level == OptimizationLevel::O0)
        return;
      addScopPipeline(FPM, mode() == Mode::CLO    ? ScopTransform::PollyOptimizer
                           : mode() == Mode::DroL ? ScopTransform::DiskReuseNests
                                                  : ScopTransform::DiskReuseWhole,
                      Level);
    });
  }
  PB.registerPipelineStartEPCallback([](ModulePassManager &MPM, OptimizationLevel Level) {
    if (mode() != Mode::Off)
      MPM.addPass(MarkDiskResidentPass());
    // File layouts (paper 1, sec. 4): loop counters promoted to registers
    // first, so that scalar evolution sees the induction variables.
    if (mode() != Mode::Off && layoutMode() != LayoutMode::Off) {
      if (Level != OptimizationLevel::O0)
        MPM.addPass(createModuleToFunctionPassAdaptor(SROAPass(SROAOptions::PreserveCFG)));
      // -O0: requested layouts only (no trip counts to score with).
      MPM.addPass(FileLayoutPass(/*Choose=*/Level != OptimizationLevel::O0, Level));
    }
    // `#pragma iopoly distribute` markers: loop metadata, or a remark.
    MPM.addPass(createModuleToFunctionPassAdaptor(DistributeMarksPass()));
  });
  if (mpiEnabled()) {
    configurePolly();
    keepLoopsForPolly(); // time loops fully unrolled are no SCoP
    keepLoadsForPolly();
    PB.registerVectorizerStartEPCallback([](FunctionPassManager &FPM, OptimizationLevel Level) {
      if (Level != OptimizationLevel::O0)
        addMappingPipeline(FPM);
    });
  }
  PB.registerOptimizerLastEPCallback([](ModulePassManager &MPM, OptimizationLevel Level) {
    if (mode() != Mode::Off)
      addLoweringPipeline(MPM, Level);
  });
}

} // namespace iopoly

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "iopoly", "0.1.0", iopoly::registerIOPolyPasses};
}
