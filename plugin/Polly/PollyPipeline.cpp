//===- PollyPipeline.cpp - The one place that drives Polly -----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Polly/PollyPipeline.h"
#include "Analysis/LayoutTrial.h"
#include "Analysis/RankMapping.h"
#include "Analysis/UnmodelledLoops.h"
#include "Polly/ElementSizeGuard.h"
#include "Polly/SequentialMark.h"
#include "Support/Options.h"
#include "Transform/CLO.h"
#include "Transform/DiskReuse.h"
#include "Transform/DistributeLoops.h"
#include "Transform/ExpandDiskCopies.h"
#include "Transform/FoldMarkers.h"
#include "Transform/ScalarExpansion.h"

#include "polly/CodeGen/CodeGeneration.h"
#include "polly/CodeGen/IslAst.h"
#include "polly/CodePreparation.h"
#include "polly/RegisterPasses.h"
#include "polly/DeLICM.h"
#include "polly/ForwardOpTree.h"
#include "polly/Simplify.h"
#include "polly/ScheduleOptimizer.h"
#include "polly/ScopInfo.h"
#include "polly/ScopPass.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include "isl/schedule.h"

using namespace llvm;

namespace iopoly {

/// Sets an LLVM option unless the user gave it on the command line; true
/// when it was set here.
static bool setDefault(const char *Name, const char *Value) {
  if (cl::Option *O = cl::getRegisteredOptions().lookup(Name))
    if (!O->getNumOccurrences()) {
      O->addOccurrence(1, Name, Value);
      return true;
    }
  return false;
}

/// Whether keepLoopsForPolly() turned full unrolling off (not the user).
static bool FullUnrollHeld = false;

namespace {
/// Gives full unrolling back once Polly has generated its code. The
/// simplification pipeline of every function has run by then (the module's
/// optimization pipeline, where Polly sits, starts after it), so only the
/// unrolling after Polly sees the option's default again: the constant-trip
/// point loops of Polly's tiles are unrolled and their enclosing loop
/// vectorized, as in Polly's own build (PolyBench doitgen at LARGE, clo:
/// 0.20 s without it and the clean-up below, 0.14 s with them).
struct ReleaseFullUnrollPass : PassInfoMixin<ReleaseFullUnrollPass> {
  PreservedAnalyses run(Function &, FunctionAnalysisManager &) {
    if (FullUnrollHeld)
      if (cl::Option *O = cl::getRegisteredOptions().lookup("unroll-full-max-count")) {
        O->reset();
        FullUnrollHeld = false;
      }
    return PreservedAnalyses::all();
  }
};

/// Polly's own clean-up after its code generation (Polly's default pipeline
/// does the same): LLVM's function simplification pipeline, run again on
/// the functions Polly generated code in. Without it the loops of Polly's
/// tiles reach the vectorizer as they were generated: a tile's 32-iteration
/// point loop is not unrolled, and the loop around it is not vectorized.
struct CleanupAfterPollyPass : PassInfoMixin<CleanupAfterPollyPass> {
  /// \p HoldUnrollInVersions (dro modes): full unrolling stays off in the
  /// functions that hold versions for a run-time choice (several versions
  /// of a SCoP, fully unrolled, cost 2.5x the compile time: 2mm at -O2,
  /// 5.6 s against 2.2 s) and is released for the others alone.
  CleanupAfterPollyPass(OptimizationLevel Level, bool HoldUnrollInVersions)
      : HoldUnrollInVersions(HoldUnrollInVersions) {
    // A builder of its own: the clean-up must not invoke the extension
    // points (ours among them) a second time.
    PassBuilder PB;
    Simplify = PB.buildFunctionSimplificationPipeline(Level, ThinOrFullLTOPhase::None);
  }
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &FAM) {
    if (!F.hasFnAttribute("polly-optimized"))
      return PreservedAnalyses::all();
    if (!HoldUnrollInVersions || !FullUnrollHeld || hasVersions(F))
      return Simplify.run(F, FAM);
    cl::Option *Unroll = cl::getRegisteredOptions().lookup("unroll-full-max-count");
    Unroll->reset();
    PreservedAnalyses PA = Simplify.run(F, FAM);
    Unroll->addOccurrence(1, "unroll-full-max-count", "0");
    return PA;
  }
  static bool hasVersions(const Function &F) {
    for (const BasicBlock &BB : F)
      for (const Instruction &I : BB)
        if (auto *Call = dyn_cast<CallBase>(&I))
          if (const Function *Callee = Call->getCalledFunction())
            if (Callee->getName() == "__iopoly_pick_version")
              return true;
    return false;
  }
  FunctionPassManager Simplify;
  bool HoldUnrollInVersions;
};

/// dro-l and dro-wp on one SCoP: the restructuring, then Polly's code
/// generation where the schedule changed. A SCoP the restructuring keeps in
/// its order keeps the code the compiler made of it (what mode=lower
/// lowers): Polly's copy of the same order is another program, with
/// scalars given a copy per iteration for a reordering that did not
/// happen and accumulators stored on every iteration (PolyBench nussinov:
/// 1.16x lower's modeled I/O at 1/8 of its data, in the same order). Not
/// where Polly outlines parallel loops: its copy of the original order
/// runs them on threads.
struct RestructurePass : PassInfoMixin<RestructurePass> {
  explicit RestructurePass(bool WholeProgram) : Restructure(WholeProgram) {}
  PreservedAnalyses run(polly::Scop &S, polly::ScopAnalysisManager &SAM, polly::ScopStandardAnalysisResults &AR,
                        polly::SPMUpdater &U) {
    isl::schedule Before = S.getScheduleTree();
    PreservedAnalyses PA = Restructure.run(S, SAM, AR, U);
    if (activeLayoutTrial())
      return PA; // measured only: the copy's code is not generated
    bool Kept = isl_schedule_plain_is_equal(Before.get(), S.getScheduleTree().get()) == isl_bool_true;
    if (Kept && !pollyOutlinesParallelLoops())
      return PA;
    if (pollyOutlinesParallelLoops()) // before code generation reads the flags
      keepMarkedLoopsSequential(SAM.getResult<polly::IslAstAnalysis>(S, AR));
    PA.intersect(polly::CodeGenerationPass().run(S, SAM, AR, U));
    return PA;
  }
  DiskReusePass Restructure;
};
} // namespace

void configurePolly() {
  setDefault("polly-process-unprofitable", "true");
  // Reductions stay in program order unless the user allows reassociation.
  setDefault("polly-detect-reductions", reassociateReductions() ? "true" : "false");
  // Polly's matrix-product optimization packs operands into stack arrays
  // (3 MiB each for PolyBench's gemm): copies of disk-resident data in
  // memory the stripe buffer does not account for, and a stack overflow
  // when a program has three products (3mm). The buffer is the memory.
  setDefault("polly-pattern-matching-based-opts", "false");
  // threads=on: Polly outlines the loops its dependences prove parallel
  // (ParallelTasksPass hands them to the runtime's scheduler).
  if (threadsEnabled())
    setDefault("polly-parallel", "true");
}

long schedulerQuota() {
  // Polly declares it cl::opt<int> (ScheduleOptimizer.cpp).
  if (auto *O = static_cast<cl::opt<int> *>(cl::getRegisteredOptions().lookup("polly-schedule-computeout")))
    return O->getValue();
  return 300000;
}

int exactDepsMaxCoefficient() {
  // Polly declares it cl::opt<int> (ScheduleOptimizer.cpp).
  auto *O = static_cast<cl::opt<int> *>(cl::getRegisteredOptions().lookup("polly-opt-max-coefficient"));
  return O && O->getNumOccurrences() ? O->getValue() : ExactDepsMaxCoefficient;
}

bool pollyOutlinesParallelLoops() {
  if (threadsEnabled())
    return true;
  cl::Option *O = cl::getRegisteredOptions().lookup("polly-parallel");
  return O && O->getNumOccurrences();
}

void keepLoadsForPolly() { setDefault("enable-load-pre", "false"); }

void keepLoopsForPolly() {
  // Fully unrolled copies of a nest (kmatmul's 3x3x3 block loops at -O3)
  // give Polly dozens of statements and minutes of dependence analysis.
  // In mode=clo only until Polly has run (ReleaseFullUnrollPass): the
  // loops of Polly's tiles are unrolled after it.
  FullUnrollHeld |= setDefault("unroll-full-max-count", "0");
  // Copy and fill loops stay loops: loop-idiom recognition would turn
  // `A[i][j] = B[i][j]` into a memcpy of a row, a byte-typed access Polly
  // cannot relate to the array's doubles, and the whole nest around it
  // (a time-stepped stencil's copy-back) is dismissed ("Inbounds
  // assumption: false"). The vectorizer still makes them fast loops.
  setDefault("disable-loop-idiom-all", "true");
}

/// Polly's own clean-up of scalar dependences, as in its default pipeline:
/// forward operand trees into their users, map promoted scalars (LICM'd
/// accumulators) back to array elements. Without them a register reused
/// across loop iterations chains every instance to the next.
static void addScalarCleanup(polly::ScopPassManager &SPM) {
  SPM.addPass(ElementSizeGuardPass()); // arrays Polly would model wrongly: SCoP left alone
  SPM.addPass(polly::SimplifyPass(0));
  SPM.addPass(polly::ForwardOpTreePass());
  SPM.addPass(polly::DeLICMPass());
  SPM.addPass(polly::SimplifyPass(1));
}

void addScopPipeline(FunctionPassManager &FPM, ScopTransform T, std::optional<OptimizationLevel> Level) {
  FPM.addPass(FoldMarkersPass());
  FPM.addPass(ExpandDiskCopiesPass()); // memcpy/memset on disk arrays: element loops Polly models
  FPM.addPass(polly::CodePreparationPass());
  FPM.addPass(UnmodelledLoopsPass()); // remarks: loops no SCoP holds, and why
  polly::ScopPassManager SPM;
  addScalarCleanup(SPM);
  switch (T) {
  case ScopTransform::PollyOptimizer:
    SPM.addPass(CLOPass()); // Polly's scheduler, plus a remark saying what it did
    SPM.addPass(polly::CodeGenerationPass());
    break;
  case ScopTransform::DiskReuseNests:
    SPM.addPass(ScalarExpansionPass()); // loop-carried scalars no longer order every iteration
    SPM.addPass(RestructurePass(/*WholeProgram=*/false));
    break;
  case ScopTransform::DiskReuseWhole:
    SPM.addPass(ScalarExpansionPass());
    SPM.addPass(RestructurePass(/*WholeProgram=*/true));
    break;
  case ScopTransform::CloMeasure:
    // Without clo's scalars expanded, Polly keeps symm's kernel in its
    // order (temp2 orders every instance); expanded, the trial priced a
    // schedule clo never runs: 0.04x row-major's I/O estimated with C and
    // B column-major, 8.5x measured at 1/2 of the data.
    SPM.addPass(RestructurePass(/*WholeProgram=*/true));
    break;
  }
  FPM.addPass(polly::createFunctionToScopPassAdaptor(std::move(SPM)));
  // dro-l and dro-wp: the clean-up everywhere (without it the lowered
  // code of Polly's tiles ran PolyBench 3mm at LARGE in 4.5 s, not 0.39),
  // full unrolling only where no SCoP has versions.
  if (Level && T == ScopTransform::PollyOptimizer)
    FPM.addPass(ReleaseFullUnrollPass());
  if (Level)
    FPM.addPass(CleanupAfterPollyPass(*Level, /*HoldUnrollInVersions=*/T != ScopTransform::PollyOptimizer));
}

namespace {
/// Diagnostics of a layout trial's copy: none is printed (the program's
/// own compile reports them); an error fails the trial.
struct SilentDiagnostics : DiagnosticHandler {
  explicit SilentDiagnostics(bool &Error) : Error(Error) {}
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    if (DI.getSeverity() == DS_Error)
      Error = true;
    return true;
  }
  bool &Error;
};

/// A trial's function once measured: nothing after the restructuring
/// needs its code, so the rest of the pipeline has nothing to optimize.
struct DropMeasuredBodyPass : PassInfoMixin<DropMeasuredBodyPass> {
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    if (F.isDeclaration())
      return PreservedAnalyses::all();
    for (BasicBlock &BB : F)
      BB.dropAllReferences();
    while (!F.empty())
      F.begin()->eraseFromParent();
    new UnreachableInst(F.getContext(), BasicBlock::Create(F.getContext(), "measured", &F));
    return PreservedAnalyses::none();
  }
};

/// The program's target, for the trial's cost models of inlining and
/// unrolling (null if the triple is unknown: generic costs).
std::unique_ptr<TargetMachine> targetOf(const Module &M) {
  std::string Error;
  const Target *T = TargetRegistry::lookupTarget(M.getTargetTriple(), Error);
  if (!T)
    return nullptr;
  return std::unique_ptr<TargetMachine>(
      T->createTargetMachine(M.getTargetTriple(), "", "", TargetOptions(), std::nullopt));
}
} // namespace

void measureLayoutTrial(Module &M, OptimizationLevel Level, ScopTransform T, LayoutTrial &Trial) {
  // The copy runs in a context of its own (through bitcode): its remarks
  // and diagnostics reach neither the terminal nor an optimization record
  // (-fsave-optimization-record), and an error only fails the trial.
  SmallVector<char, 0> Bitcode;
  raw_svector_ostream OS(Bitcode);
  WriteBitcodeToFile(M, OS);
  LLVMContext Ctx;
  Ctx.setDiagnosticHandler(std::make_unique<SilentDiagnostics>(Trial.Failed));
  Expected<std::unique_ptr<Module>> Copy =
      parseBitcodeFile(MemoryBufferRef(StringRef(Bitcode.data(), Bitcode.size()), M.getModuleIdentifier()), Ctx);
  if (!Copy) {
    consumeError(Copy.takeError());
    Trial.Failed = true;
    return;
  }
  LayoutTrialScope Scope(Trial);
  std::unique_ptr<TargetMachine> TM = targetOf(**Copy);
  // A builder of its own: none of the plugin's extension points but the
  // restructuring's, which records instead of transforming.
  PassBuilder PB(TM.get());
  polly::registerPollyPasses(PB);
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  // clo is measured by the version that is Polly's schedule.
  ScopTransform Measured = T == ScopTransform::PollyOptimizer ? ScopTransform::CloMeasure : T;
  PB.registerVectorizerStartEPCallback([Measured](FunctionPassManager &FPM, OptimizationLevel) {
    addScopPipeline(FPM, Measured);
    FPM.addPass(DropMeasuredBodyPass());
  });
  ModulePassManager MPM = PB.buildPerModuleDefaultPipeline(Level);
  MPM.run(**Copy, MAM);
}

void addMappingPipeline(FunctionPassManager &FPM) {
  FPM.addPass(FoldMarkersPass());
  FPM.addPass(ExpandDiskCopiesPass());
  FPM.addPass(polly::CodePreparationPass());
  polly::ScopPassManager SPM;
  addScalarCleanup(SPM);
  SPM.addPass(RankMappingPass());
  FPM.addPass(polly::createFunctionToScopPassAdaptor(std::move(SPM)));
  FPM.addPass(DistributeLoopsPass());
}

void addLSGPrinter(FunctionPassManager &FPM, raw_ostream &OS) {
  FPM.addPass(polly::CodePreparationPass());
  polly::ScopPassManager SPM;
  addScalarCleanup(SPM);
  SPM.addPass(LSGPrinterPass(OS));
  FPM.addPass(polly::createFunctionToScopPassAdaptor(std::move(SPM)));
}

} // namespace iopoly
