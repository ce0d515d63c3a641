//===- DiskReuse.cpp - Disk-reuse restructuring of a SCoP ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/DiskReuse.h"
#include "Analysis/DataTiling.h"
#include "Support/Options.h"
#include "Support/VersionTable.h"

#include "polly/DependenceInfo.h"
#include "polly/ScopInfo.h"
#include "polly/Support/GICHelper.h"
#include "polly/Support/ISLTools.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/Dominators.h"
#include "llvm/Support/raw_ostream.h"

#include "isl/set.h"
#include "isl/space.h"
#include "isl/union_set.h"

#include <algorithm>

#define DEBUG_TYPE "iopoly"

using namespace llvm;

STATISTIC(NumScopsRestructured, "SCoPs given a disk-reuse schedule");
STATISTIC(NumVersions, "Tiled versions compiled");

namespace iopoly {

namespace {

/// Unit sizes of the versions, coarsest first: 4 KiB times powers of 4,
/// below the largest array, at most MaxVersions of them (the finest kept
/// for small buffers, the coarsest for large ones).
std::vector<uint64_t> unitGrid(const std::vector<DiskArray> &Arrays) {
  constexpr unsigned MaxVersions = 6;
  uint64_t Largest = 0;
  for (const DiskArray &A : Arrays)
    Largest = std::max(Largest, A.Bytes);
  if (!Largest)
    Largest = 1ULL << 40;
  std::vector<uint64_t> U;
  for (uint64_t Unit = 4096; Unit < Largest && U.size() < 16; Unit *= 4)
    U.push_back(Unit);
  if (U.empty())
    U.push_back(4096);
  while (U.size() > MaxVersions)
    U.erase(U.begin() + static_cast<long>(U.size() / 2));
  std::reverse(U.begin(), U.end());
  return U;
}

TilingOptions tilingOptions(const std::vector<DiskArray> &Arrays) {
  TilingOptions O;
  O.Stripe = assumedStripe();
  O.Disks = assumedDisks();
  O.DiskUnits = !stripeGranularity();
  O.MaxSplits = maxSplits();
  O.MaxGroups = maxSets();
  O.Serpentine = serpentineStreams();
  if (O.DiskUnits) {
    O.Units = {O.Stripe};
  } else if (unsigned Chunks = chunksPerArray()) {
    uint64_t Largest = 0;
    for (const DiskArray &A : Arrays)
      Largest = std::max(Largest, A.Bytes);
    O.Units = {std::max<uint64_t>(64, (Largest + Chunks - 1) / Chunks)};
  } else {
    O.Units = unitGrid(Arrays);
  }
  return O;
}

/// The parts reordered independently: the whole SCoP, or each child of
/// its top-level sequence (a loop nest).
std::vector<isl::union_set> regionsOf(polly::Scop &S, bool Whole) {
  isl::union_set All = S.getDomains();
  if (Whole)
    return {All};
  isl::schedule_node Top = S.getScheduleTree().get_root();
  if (Top.has_children())
    Top = Top.child(0);
  if (!Top.isa<isl::schedule_node_sequence>())
    return {All};
  std::vector<isl::union_set> Out;
  unsigned N = unsignedFromIslSize(Top.n_children());
  for (unsigned K = 0; K < N; ++K)
    Out.push_back(Top.child(static_cast<int>(K)).as<isl::schedule_node_filter>().get_filter());
  return Out;
}

DebugLoc locationOf(polly::Scop &S) {
  for (BasicBlock *BB : S.getRegion().blocks())
    for (Instruction &I : *BB)
      if (I.getDebugLoc())
        return I.getDebugLoc();
  return DebugLoc();
}

/// Where the loops of a group start in the source.
DebugLoc locationOf(const RegionTiling &R, const TiledGroup &G, const DebugLoc &Fallback) {
  for (unsigned F : G.Families)
    for (const auto &P : R.Families.Nodes[F].Parts) {
      if (Loop *L = P.first->getSurroundingLoop()) {
        while (L->getParentLoop() && P.first->getParent()->getRegion().contains(L->getParentLoop()))
          L = L->getParentLoop();
        if (DebugLoc D = L->getStartLoc())
          return D;
      }
      for (Instruction *I : P.first->getInstructions())
        if (I->getDebugLoc())
          return I->getDebugLoc();
    }
  return Fallback;
}

/// Remarks are printed once per source location (inlined copies of a loop
/// and repeated passes over a function say the same thing).
bool firstTimeAt(const DebugLoc &Loc, StringRef Kind, const std::string &Msg) {
  static StringSet<> Seen;
  std::string Key = Kind.str() + "|" + Msg;
  if (Loc)
    Key += "@" + std::to_string(Loc.getLine()) + ":" + std::to_string(Loc.getCol()) + "@" +
           (Loc->getScope() ? Loc->getScope()->getFilename().str() : std::string());
  else
    Key += "@?";
  return Seen.insert(Key).second;
}

std::string unitName(uint64_t U) {
  if (U % (1 << 20) == 0)
    return std::to_string(U >> 20) + "M";
  if (U % (1 << 10) == 0)
    return std::to_string(U >> 10) + "K";
  return std::to_string(U);
}

std::vector<iopoly_tile_term> cTerms(const std::vector<TileTerm> &V) {
  std::vector<iopoly_tile_term> Out;
  for (const TileTerm &T : V)
    Out.push_back({T.Span, T.Runs, T.Run, T.Window, T.Total, T.Tiles, T.Group,
                   static_cast<uint16_t>((T.Streamed ? IOPOLY_TILE_STREAMED : 0u) | (T.Original ? IOPOLY_TILE_ORIGINAL : 0u)),
                   static_cast<uint16_t>(T.ArrayIndex)});
  return Out;
}

isl::union_map dependencesToKeep(const polly::Dependences &D) {
  int Kinds = polly::Dependences::TYPE_RAW | polly::Dependences::TYPE_WAR | polly::Dependences::TYPE_WAW;
  // With reassociation allowed, Polly's reduction dependences may be
  // reordered (its reduction detection is on then); otherwise every
  // dependence, reductions included, keeps its order.
  if (!reassociateReductions())
    Kinds |= polly::Dependences::TYPE_RED;
  return D.getDependences(Kinds);
}

struct SCoPPlan {
  std::vector<DiskArray> Arrays;
  TilingOptions Opts;
  std::vector<RegionTiling> Regions; ///< one per region
  std::vector<bool> Planned;         ///< the region is tiled
  std::string Why;                   ///< nothing planned: why
};

SCoPPlan planScop(polly::Scop &S, const isl::union_map &Deps, bool Whole) {
  SCoPPlan P;
  P.Why = findDiskArrays(S, P.Arrays);
  if (!P.Why.empty())
    return P;
  P.Opts = tilingOptions(P.Arrays);
  bool Any = false;
  for (const isl::union_set &Region : regionsOf(S, Whole)) {
    isl::union_map RD = Deps.intersect_domain(Region).intersect_range(Region).coalesce();
    RegionTiling R = planRegion(S, Region, RD, P.Arrays, P.Opts);
    if (debugReverseOrder() && R.Why.empty()) {
      // Test only: every family alone, in reverse order; the dependence
      // check must refuse this.
      std::vector<TiledGroup> Rev;
      for (auto It = R.Families.Order.rbegin(); It != R.Families.Order.rend(); ++It) {
        TiledGroup G;
        G.Families = {*It};
        Rev.push_back(G);
      }
      R.Groups = Rev;
    }
    bool Ok = R.Why.empty();
    if (!Ok && P.Why.empty())
      P.Why = R.Why;
    Any |= Ok;
    P.Planned.push_back(Ok);
    P.Regions.push_back(std::move(R));
  }
  if (Any)
    P.Why.clear();
  return P;
}

isl::schedule versionSchedule(polly::Scop &S, const SCoPPlan &P, unsigned V) {
  isl::schedule New;
  for (size_t K = 0; K < P.Regions.size(); ++K) {
    const RegionTiling &R = P.Regions[K];
    isl::schedule Part = P.Planned[K] ? regionSchedule(S, R, P.Arrays, P.Opts, V)
                                      : S.getScheduleTree().intersect_domain(R.Domain);
    New = New.is_null() ? Part : New.sequence(Part);
  }
  return New;
}

/// The terms of version \p V over every planned region.
std::vector<iopoly_tile_term> versionTerms(const SCoPPlan &P, unsigned V) {
  std::vector<iopoly_tile_term> Out;
  unsigned Base = 0;
  for (size_t K = 0; K < P.Regions.size(); ++K) {
    if (!P.Planned[K])
      continue;
    for (iopoly_tile_term T : cTerms(P.Regions[K].Terms[V])) {
      T.group += Base;
      Out.push_back(T);
    }
    Base += 10000;
  }
  return Out;
}

std::vector<std::vector<TileTerm>> allTerms(const SCoPPlan &P) {
  std::vector<std::vector<TileTerm>> Out(P.Opts.Units.size() + 1);
  unsigned Base = 0;
  for (size_t K = 0; K < P.Regions.size(); ++K) {
    if (!P.Planned[K])
      continue;
    for (size_t V = 0; V < Out.size(); ++V)
      for (TileTerm T : P.Regions[K].Terms[V]) {
        T.Group += Base;
        Out[V].push_back(T);
      }
    Base += 10000;
  }
  return Out;
}

/// A parameter space holding just \p Id.
isl::set paramRange(const isl::id &Id, long Lo, long Hi) {
  isl_space *Sp = isl_space_add_param_id(isl_space_params_alloc(Id.ctx().get(), 0), Id.copy());
  isl_set *Set = isl_set_universe(Sp);
  Set = isl_set_lower_bound_si(Set, isl_dim_param, 0, Lo);
  Set = isl_set_upper_bound_si(Set, isl_dim_param, 0, Hi);
  return isl::manage(Set);
}

} // namespace

PreservedAnalyses DiskReusePass::run(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                                     polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &) {
  OptimizationRemarkEmitter ORE(&S.getFunction());
  BasicBlock *Entry = S.getEntry();
  DebugLoc Loc = locationOf(S);
  auto Missed = [&](const DebugLoc &At, const std::string &Why) {
    if (firstTimeAt(At, "missed", Why))
      ORE.emit([&] {
        return OptimizationRemarkMissed(DEBUG_TYPE, "DiskReuseNotApplied", At, Entry)
               << "disk-reuse restructuring left the loops here in their order: " << Why;
      });
    return PreservedAnalyses::all();
  };
  // Nothing to gain is not a missed optimization: an analysis remark.
  auto NoGain = [&](const DebugLoc &At, const std::string &Why) {
    if (firstTimeAt(At, "analysis", Why))
      ORE.emit([&] {
        return OptimizationRemarkAnalysis(DEBUG_TYPE, "DiskReuseNoGain", At, Entry)
               << "disk-reuse restructuring keeps the loops here in their order: " << Why;
      });
    return PreservedAnalyses::all();
  };
  const polly::Dependences &D =
      SAM.getResult<polly::DependenceAnalysis>(S, SAR).getDependences(polly::Dependences::AL_Statement);
  if (!D.hasValidDependences())
    return Missed(Loc, "Polly could not compute the dependences of these loops");
  SCoPPlan P = planScop(S, dependencesToKeep(D), WholeProgram);
  if (printTiling()) {
    errs() << "iopoly tiling plan of SCoP " << S.getNameStr() << " in function " << S.getFunction().getName()
           << (Loc ? " at line " + std::to_string(Loc.getLine()) : std::string()) << ":\n";
    for (const RegionTiling &R : P.Regions)
      printRegionTiling(errs(), R, P.Arrays, P.Opts);
    if (P.Regions.empty())
      errs() << "  " << P.Why << "\n";
  }
  if (!P.Why.empty()) {
    bool Blocked = false;
    for (const RegionTiling &R : P.Regions)
      Blocked |= R.Blocked;
    if (Blocked || (P.Regions.empty() && P.Arrays.size()))
      return Missed(Loc, P.Why);
    return NoGain(Loc, P.Why);
  }
  // Loops kept in their order inside tiled regions, and why.
  for (size_t K = 0; K < P.Regions.size(); ++K) {
    const RegionTiling &R = P.Regions[K];
    if (!P.Planned[K]) {
      DebugLoc At = locationOf(R, R.Groups.empty() ? TiledGroup() : R.Groups.front(), Loc);
      if (R.Blocked)
        Missed(At, R.Why);
      else if (!R.Why.empty())
        NoGain(At, R.Why);
      continue;
    }
    for (const TiledGroup &G : R.Groups)
      if (!G.Tiled && !G.Why.empty()) {
        DebugLoc At = locationOf(R, G, Loc);
        if (G.Blocked)
          Missed(At, G.Why);
        else
          NoGain(At, G.Why);
      }
  }

  unsigned NumTiled = static_cast<unsigned>(P.Opts.Units.size());
  // Every version must keep every dependence (Polly's check); the versions
  // differ only in unit sizes, so one that fails means the plan is wrong.
  for (unsigned V = 0; V < NumTiled; ++V) {
    isl::schedule New = versionSchedule(S, P, V);
    if (!New.get_domain().is_equal(S.getDomains()))
      return Missed(Loc, "internal: the tiled schedule does not cover every statement instance");
    if (!D.isValidSchedule(S, New))
      return Missed(Loc, "the tiled order would violate a dependence (Polly's check refused it)");
  }

  // Which versions run: one fixed at compile time (a known buffer), or the
  // runtime's pick among the tiled versions and the original order (also
  // when there is a single tiled version: it may still lose to the
  // original order at the run's buffer).
  std::vector<std::vector<TileTerm>> Terms = allTerms(P);
  std::string Versions;
  isl::schedule New;
  uint64_t Buffer = assumedBuffer();
  if (Buffer) {
    unsigned V = pickVersion(Terms, Buffer, P.Opts.Stripe);
    if (V == NumTiled)
      return Missed(Loc, "with the assumed buffer of " + unitName(Buffer) +
                             " bytes (-iopoly-buffer) the cost model prefers the original order");
    New = versionSchedule(S, P, V);
    Versions = "unit " + unitName(P.Opts.Units[V]) + " (for the assumed buffer)";
  } else {
    // One SCoP parameter selects the version: the value the runtime
    // returns for this run's buffer and stripe.
    BasicBlock *Dom = SAR.DT.getNode(S.getEntry())->getIDom()->getBlock();
    std::vector<std::vector<iopoly_tile_term>> Table;
    for (unsigned V = 0; V <= NumTiled; ++V)
      Table.push_back(versionTerms(P, V));
    std::string Where = S.getFunction().getName().str();
    if (Loc)
      Where = (Loc->getScope() ? Loc->getScope()->getFilename().str() : std::string("?")) + ":" +
              std::to_string(Loc.getLine());
    CallInst *Call = emitVersionChoice(*S.getFunction().getParent(), Dom->getTerminator(), Table, P.Opts.Units,
                                       Where, tilePrefetch());
    const SCEV *Param = SAR.SE.getSCEV(Call);
    polly::ParameterSetTy NewParams;
    NewParams.insert(Param);
    S.addParams(NewParams);
    isl::id Id = S.getIdForParam(Param);
    S.setContext(S.getContext().intersect_params(paramRange(Id, 0, NumTiled)));
    for (unsigned V = 0; V <= NumTiled; ++V) {
      isl::schedule Part = V < NumTiled ? versionSchedule(S, P, V) : S.getScheduleTree();
      isl::union_set Dom = isl::manage(isl_union_set_intersect_params(
          S.getDomains().release(), paramRange(Id, V, V).release()));
      Part = Part.intersect_domain(Dom);
      New = New.is_null() ? Part : New.sequence(Part);
    }
    for (unsigned V = 0; V < NumTiled; ++V)
      Versions += (V ? ", " : "") + unitName(P.Opts.Units[V]);
    Versions = "units " + Versions + " and the original order, one chosen at run time from the buffer and stripe";
    NumVersions += NumTiled;
  }
  S.setScheduleTree(New);
  ++NumScopsRestructured;
  unsigned Groups = 0, Fused = 0;
  for (size_t K = 0; K < P.Regions.size(); ++K)
    if (P.Planned[K]) {
      Groups += P.Regions[K].TiledGroups;
      Fused += P.Regions[K].Fused;
    }
  if (firstTimeAt(Loc, "applied", std::to_string(Groups) + "/" + std::to_string(Fused) + "/" + Versions))
    ORE.emit([&] {
      return OptimizationRemark(DEBUG_TYPE, "DiskReuse", Loc, Entry)
             << (WholeProgram ? "dro-wp" : "dro-l") << ": tiled the loops here by their data: "
             << ore::NV("Groups", Groups) << " tiled group(s), " << ore::NV("Fused", Fused)
             << " loop nest(s) fused into another's tiles; versions: " << Versions;
    });
  // Polly's analyses of this SCoP stay valid: the schedule (and a
  // parameter) changed, nothing else.
  return PreservedAnalyses::all();
}

PreservedAnalyses LSGPrinterPass::run(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                                      polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &) {
  const polly::Dependences &D =
      SAM.getResult<polly::DependenceAnalysis>(S, SAR).getDependences(polly::Dependences::AL_Statement);
  OS << "iopoly LSG of SCoP " << S.getNameStr() << " in function " << S.getFunction().getName() << "\n";
  SCoPPlan P = planScop(S, dependencesToKeep(D), /*Whole=*/true);
  if (P.Regions.empty()) {
    OS << "  not analyzed: " << P.Why << "\n";
    return PreservedAnalyses::all();
  }
  const RegionTiling &R = P.Regions.front();
  printRegionTiling(OS, R, P.Arrays, P.Opts);
  if (R.Why.empty()) {
    // The run-time choice at a few buffer sizes (fractions of the data).
    uint64_t Data = 0;
    for (const DiskArray &A : P.Arrays)
      Data += A.Bytes;
    for (unsigned Frac : {2u, 8u, 32u}) {
      uint64_t Buffer = std::max<uint64_t>(P.Opts.Stripe, Data / Frac / P.Opts.Stripe * P.Opts.Stripe);
      unsigned V = pickVersion(R.Terms, Buffer, P.Opts.Stripe);
      OS << "buffer " << Buffer / P.Opts.Stripe << " stripes of " << unitName(P.Opts.Stripe) << " (data/" << Frac
         << "): version " << V << (V + 1 == R.Terms.size() ? " (original order)" : "") << "\n";
    }
  }
  return PreservedAnalyses::all();
}

} // namespace iopoly
