//===- CLO.cpp - mode=clo: Polly's isl scheduler, with a remark ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/CLO.h"
#include "Analysis/Stencil.h"
#include "Polly/ElementSizeGuard.h"
#include "Polly/PollyPipeline.h"
#include "Support/RemarkOnce.h"

#include "polly/ScheduleOptimizer.h"
#include "polly/ScheduleTreeTransform.h"
#include "polly/ScopInfo.h"
#include "polly/Support/GICHelper.h"

#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/Support/CommandLine.h"

#include "isl/ctx.h"
#include "isl/schedule.h"
#include "isl/schedule_node.h"


#define DEBUG_TYPE "iopoly"

using namespace llvm;

namespace iopoly {

namespace {

/// Polly's register tiling (its point loops strip-mined by 2, unrolled and
/// jammed), applied to the point bands of Polly's tiling that have at least
/// three loops: the matrix products and their kin, whose reductions then
/// reuse registers. A tile runs the same iterations and every reduction
/// keeps its order, so results stay bit-identical.
isl_schedule_node *registerTileDeepPointBand(isl_schedule_node *N, void *User) {
  isl::schedule_node Node = isl::manage(N);
  if (isl_schedule_node_get_type(Node.get()) != isl_schedule_node_band ||
      isl_schedule_node_band_n_member(Node.get()) < 3 || !isl_schedule_node_has_parent(Node.get()))
    return Node.release();
  isl::schedule_node Parent = Node.parent();
  if (isl_schedule_node_get_type(Parent.get()) != isl_schedule_node_mark)
    return Node.release();
  isl::id Mark = isl::manage(isl_schedule_node_mark_get_id(Parent.get()));
  if (Mark.is_null() || Mark.get_name() != "1st level tiling - Points")
    return Node.release();
  // Default size 2 in every dimension, as -polly-register-tiling does.
  isl::schedule_node Tiled = polly::applyRegisterTiling(Node, {}, 2);
  ++*static_cast<unsigned *>(User);
  // Back to where the band was: above the two marks and the tile band
  // that tileNode inserted.
  return Tiled.parent().parent().parent().release();
}

bool userChoseRegisterTiling() {
  cl::Option *O = cl::getRegisteredOptions().lookup("polly-register-tiling");
  return O && O->getNumOccurrences();
}

/// What one scheduling of a SCoP did.
struct Scheduled {
  bool Changed = false;     ///< the schedule is new
  bool Exact = false;       ///< found only once the dependences were given unsimplified
  bool Quota = false;       ///< the last attempt ran out of its quota of operations
  long QuotaOps = 0;        ///< the last attempt's quota
  unsigned RegisterTiled = 0;
  PreservedAnalyses PA = PreservedAnalyses::all(); ///< what Polly's pass preserved
};

/// Polly's isl scheduler on \p S and the register tiling clo adds.
Scheduled schedule(polly::Scop &S, polly::ScopAnalysisManager &SAM, polly::ScopStandardAnalysisResults &SAR,
                   polly::SPMUpdater &U) {
  Scheduled R;
  std::string Before = polly::stringFromIslObj(S.getScheduleTree());
  isl_ctx *Ctx = S.getIslCtx().get();
  // Polly's pass leaves the error of a scheduler stopped by its quota set.
  auto RunPolly = [&] {
    isl_ctx_reset_error(Ctx);
    R.QuotaOps = schedulerQuota();
    R.PA = polly::IslScheduleOptimizerPass().run(S, SAM, SAR, U);
    bool Stopped = isl_ctx_last_error(Ctx) == isl_error_quota;
    isl_ctx_reset_error(Ctx);
    return Stopped;
  };
  // Polly simplifies the dependences by the statements' domains before its
  // scheduler sees them (polly-opt-simplify-deps): a gist drops the
  // constraints the domains imply, so the relations grow pairs that never
  // run, and the scheduler must respect those too. On PolyBench's ludcmp
  // (its scalar w mapped onto A by DeLICM, then two substitutions) it then
  // finds no tiling at all. Where it kept the original schedule, it is
  // asked once more with the exact dependences, unless the user chose that
  // option, or the quota of operations stopped the scheduler (the exact
  // dependences are a larger problem than the simplified ones), with a
  // smaller bound on the schedule's coefficients (exactDepsMaxCoefficient:
  // compile time). Either way the schedule respects every dependence.
  R.Quota = RunPolly();
  R.Changed = polly::stringFromIslObj(S.getScheduleTree()) != Before;
  if (!R.Changed && !R.Quota)
    if (cl::Option *O = cl::getRegisteredOptions().lookup("polly-opt-simplify-deps"); O && !O->getNumOccurrences()) {
      cl::Option *Coefficient = cl::getRegisteredOptions().lookup("polly-opt-max-coefficient");
      bool SetCoefficient = Coefficient && !Coefficient->getNumOccurrences();
      O->addOccurrence(1, "polly-opt-simplify-deps", "no");
      if (SetCoefficient)
        Coefficient->addOccurrence(1, "polly-opt-max-coefficient", std::to_string(exactDepsMaxCoefficient()));
      R.Quota = RunPolly();
      O->reset();
      if (SetCoefficient)
        Coefficient->reset();
      R.Changed = R.Exact = polly::stringFromIslObj(S.getScheduleTree()) != Before;
    }
  if (R.Changed && !userChoseRegisterTiling() && !hasStencilStatement(S)) {
    isl::schedule Sched = S.getScheduleTree();
    Sched = isl::manage(
        isl_schedule_map_schedule_node_bottom_up(Sched.release(), registerTileDeepPointBand, &R.RegisterTiled));
    if (R.RegisterTiled && !Sched.is_null())
      S.setScheduleTree(Sched);
  }
  return R;
}

} // namespace

isl::schedule cloSchedule(polly::Scop &S, polly::ScopAnalysisManager &SAM, polly::ScopStandardAnalysisResults &SAR,
                          polly::SPMUpdater &U) {
  // The matrix-product optimization (off unless the user asks for it) adds
  // statements to the SCoP: no schedule of it can be set aside.
  if (auto *O = static_cast<cl::opt<bool> *>(cl::getRegisteredOptions().lookup("polly-pattern-matching-based-opts")))
    if (O->getValue())
      return {};
  isl::schedule Original = S.getScheduleTree();
  bool Changed = schedule(S, SAM, SAR, U).Changed;
  isl::schedule New = S.getScheduleTree();
  S.setScheduleTree(Original);
  return Changed ? New : isl::schedule();
}

PreservedAnalyses applyPollySchedule(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                                     polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &U,
                                     const char *Why) {
  Scheduled R = schedule(S, SAM, SAR, U);
  DebugLoc Loc;
  for (BasicBlock *BB : S.getRegion().blocks())
    for (Instruction &I : *BB)
      if (!Loc && I.getDebugLoc())
        Loc = I.getDebugLoc();
  // Once per source location: inlined copies of a loop are SCoPs too.
  static RemarkOnce Once("clo");
  if (!Once.first(std::string(Why) + (R.Changed ? "applied" : "kept"), Loc, &S.getFunction()))
    return R.PA;
  OptimizationRemarkEmitter ORE(&S.getFunction());
  if (R.Changed)
    ORE.emit([&] {
      OptimizationRemark Rem(DEBUG_TYPE, "CLO", Loc, S.getEntry());
      Rem << Why << "Polly's isl scheduler applied a new schedule (tiling, interchange or fusion) to the loops here";
      if (R.RegisterTiled)
        Rem << ", with register tiling of " << ore::NV("Bands", R.RegisterTiled)
            << (R.RegisterTiled == 1 ? " band" : " bands");
      if (R.Exact)
        Rem << " (from the exact dependences: simplified by the loops' bounds, as Polly gives them by default, they "
               "let it find no new schedule)";
      return Rem;
    });
  else
    ORE.emit([&] {
      OptimizationRemarkMissed Rem(DEBUG_TYPE, "CLONotApplied", Loc, S.getEntry());
      Rem << Why << "Polly's isl scheduler kept the original schedule of the loops here";
      if (R.Quota)
        Rem << " (it stopped at its quota of " << ore::NV("Operations", R.QuotaOps)
            << " operations; -mllvm -polly-schedule-computeout=N raises it, at the cost of compile time)";
      return Rem;
    });
  return R.PA;
}

PreservedAnalyses CLOPass::run(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                               polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &U) {
  if (scopIsLeftAlone(S))
    return PreservedAnalyses::all();
  return applyPollySchedule(S, SAM, SAR, U, "clo: ");
}

} // namespace iopoly
