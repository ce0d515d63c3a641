//===- DiskReuse.cpp - Disk-reuse restructuring of a SCoP ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/DiskReuse.h"
#include "Analysis/BandTiling.h"
#include "Analysis/DataTiling.h"
#include "Analysis/FootprintModel.h"
#include "Analysis/LayoutTrial.h"
#include "Analysis/ScopParams.h"
#include "Analysis/Stencil.h"
#include "DiskModel.h"
#include "TileChoice.h"
#include "Polly/BeforeScop.h"
#include "Polly/ElementSizeGuard.h"
#include "Polly/PollyPipeline.h"
#include "Polly/SequentialMark.h"
#include "Support/Options.h"
#include "Support/RemarkOnce.h"
#include "Support/VersionTable.h"
#include "Transform/CLO.h"

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
#include <cmath>

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
  if (remarksSilent())
    return false; // a layout trial's copy of the program says nothing
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
  bool Blocked = false;              ///< disk-resident arrays that could not be analysed
  bool NoDiskArray = false;          ///< no array of the SCoP is known to be disk-resident
};

SCoPPlan planScop(polly::Scop &S, const isl::union_map &Deps, bool Whole) {
  SCoPPlan P;
  P.Why = findDiskArrays(S, P.Arrays);
  if (!P.Why.empty()) {
    // A missed chance, not "nothing to gain", when the SCoP has any.
    P.NoDiskArray = true;
    for (const polly::ScopArrayInfo *SAI : S.arrays()) {
      if (!SAI->isArrayKind())
        continue;
      P.Blocked |= diskResidentPointer(SAI->getBasePtr(), nullptr);
      P.NoDiskArray &= !P.Blocked && !isDiskResidentBase(SAI->getBasePtr());
    }
    return P;
  }
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

/// The C form of a footprint model (iopoly/tiling.h).
void cModel(const FootprintModel &M, std::vector<iopoly_band> &Bands, std::vector<iopoly_band_term> &Terms) {
  for (const ModelBand &B : M.Bands) {
    iopoly_band C{};
    C.dims = static_cast<uint32_t>(B.Count.size());
    for (size_t K = 0; K < B.Count.size(); ++K)
      C.count[K] = B.Count[K];
    C.nest = B.Nest;
    if (B.Bounded) {
      C.flags = IOPOLY_BAND_BOUNDED;
      for (size_t K = 0; K < B.LoStep.size() && K < IOPOLY_BAND_MAX_DIMS; ++K) {
        C.lo_step[K] = B.LoStep[K];
        C.hi_step[K] = B.HiStep[K];
      }
      C.lo_first = B.LoFirst;
      C.hi_first = B.HiFirst;
    }
    Bands.push_back(C);
  }
  for (const ModelTerm &T : M.Terms) {
    iopoly_band_term C{};
    C.base = T.Base;
    for (size_t K = 0; K < T.Step.size(); ++K)
      C.step[K] = T.Step[K];
    for (size_t K = 0; K < T.Upto.size() && K < IOPOLY_BAND_MAX_DIMS; ++K) {
      C.from[K] = T.From[K];
      C.upto[K] = T.Upto[K];
    }
    C.outer = T.Outer;
    C.outer_pitch = T.OuterPitch;
    C.inner = T.Inner;
    C.inner_pitch = T.InnerPitch;
    C.run = T.Run;
    C.bytes = T.Bytes;
    C.band = T.Band;
    C.array = static_cast<uint16_t>(T.Array);
    C.flags = static_cast<uint16_t>((T.Writes ? IOPOLY_BAND_TERM_WRITES : 0) | (T.Reads ? IOPOLY_BAND_TERM_READS : 0) |
                                    (T.Varies ? IOPOLY_BAND_TERM_VARIES : 0));
    if (T.Varies) {
      for (size_t K = 0; K < T.InnerStep.size() && K < IOPOLY_BAND_MAX_DIMS; ++K) {
        C.inner_step[K] = T.InnerStep[K];
        C.run_step[K] = T.RunStep[K];
      }
      C.inner_first = T.InnerFirst;
      C.run_first = T.RunFirst;
    }
    Terms.push_back(C);
  }
}

/// Stripe sizes a run plausibly has: 4 KiB, 64 KiB, 1 MiB and the one
/// the compiler was told to assume.
std::vector<uint64_t> plausibleStripes() {
  std::vector<uint64_t> Stripes{4096, 65536, 1 << 20};
  if (std::find(Stripes.begin(), Stripes.end(), assumedStripe()) == Stripes.end())
    Stripes.push_back(assumedStripe());
  return Stripes;
}

/// The plausible runs, in words (remarks).
std::string plausibleRuns() {
  std::string Out;
  std::vector<uint64_t> Stripes = plausibleStripes();
  for (size_t I = 0; I < Stripes.size(); ++I)
    Out += (I == 0 ? "stripes of " : I + 1 == Stripes.size() ? " or " : ", ") + unitName(Stripes[I]);
  return Out + ", a buffer of 1/64 to 7/10 of the data, the hdd disk model or none";
}

/// A version is compiled only if dropping it would cost some plausible run
/// more than this share of its estimated I/O (the estimates are models;
/// neighbouring tile sizes often differ by a few percent, and every
/// version is code to generate).
constexpr double VersionTolerance = 0.05;
/// Polly's default tile size (-polly-default-tile-size): the unit the table
/// reports for the version for data that fit the buffer.
constexpr uint64_t PollyTileSize = 32;

/// For each version of \p T, whether it is worth compiling: the run-time
/// choice takes it for some plausible run (stripes of 4 KiB, 64 KiB or
/// 1 MiB, or the assumed stripe; a buffer of 1/64 to 7/10 of the data, at
/// least 16 stripes; requests priced as by the hdd disk model on the
/// assumed disks or all at one price, as with IOPOLY_DISK_MODEL=none or
/// ssd) and, without it, the choice among the others would cost that run
/// more than VersionTolerance. One replay of each version gives both
/// prices.
std::vector<bool> versionsWorthCompiling(const iopoly_tile_table &T, const std::vector<DiskArray> &Arrays) {
  struct Run {
    uint64_t Stripe, Frames;
    bool Replayed;
    std::vector<VersionEstimate> Est;
  };
  std::vector<Run> Runs;
  ReplayWalks Walks;
  uint64_t Data = 0;
  for (const DiskArray &A : Arrays)
    Data += A.Bytes;
  for (uint64_t Stripe : plausibleStripes()) {
    FetchCost Cost = fetchCost(HddLatencySec, HddSeqLatencySec, HddBytesPerSec, Stripe, assumedDisks());
    // Buffers a factor of sqrt(2) apart (a version can win over a narrow
    // range only: 3mm's 64K units at 1/8 of its data were missed with
    // steps of 2), each size once.
    uint64_t Previous = 0;
    for (int Step = 1; Step <= 12; ++Step) {
      uint64_t Frames = std::max<uint64_t>(
          16, static_cast<uint64_t>(static_cast<double>(Data) / std::exp2(Step / 2.0) / static_cast<double>(Stripe)));
      if (Frames == Previous)
        continue;
      Previous = Frames;
      Run R{Stripe, Frames, false, {}};
      R.Est = estimateTileVersions(T, Stripe, Frames, Cost, R.Replayed, &Walks);
      Runs.push_back(R);
      for (VersionEstimate &E : R.Est)
        E.Cost = E.Requests;
      Runs.push_back(R);
    }
  }
  // Every version some run takes, then, greedily, drop the one whose
  // absence costs the worst-hit run least while that stays within the
  // tolerance.
  std::vector<bool> Kept(T.num_versions, false);
  Kept[T.num_versions - 1] = true;
  std::vector<double> BestCost;
  for (const Run &R : Runs) {
    uint32_t V = pickTileVersion(T, R.Stripe, R.Frames, R.Est, R.Replayed);
    Kept[V] = true;
    BestCost.push_back(R.Est[V].Cost);
  }
  auto worstLoss = [&](const std::vector<bool> &Among) {
    double Worst = 0;
    for (size_t I = 0; I < Runs.size(); ++I) {
      const Run &R = Runs[I];
      double Cost = R.Est[pickTileVersion(T, R.Stripe, R.Frames, R.Est, R.Replayed, &Among)].Cost;
      if (Cost > BestCost[I])
        Worst = std::max(Worst, BestCost[I] > 0 ? Cost / BestCost[I] - 1 : 1e9);
    }
    return Worst;
  };
  for (;;) {
    uint32_t Drop = T.num_versions;
    double DropLoss = VersionTolerance;
    for (uint32_t V = 0; V + 1 < T.num_versions; ++V) {
      if (!Kept[V])
        continue;
      std::vector<bool> Without = Kept;
      Without[V] = false;
      double Loss = worstLoss(Without);
      if (Loss <= DropLoss) {
        Drop = V;
        DropLoss = Loss;
      }
    }
    if (Drop == T.num_versions)
      return Kept;
    Kept[Drop] = false;
  }
}

/// A parameter space holding just \p Id.
isl::set paramRange(const isl::id &Id, long Lo, long Hi) {
  isl_space *Sp = isl_space_add_param_id(isl_space_params_alloc(Id.ctx().get(), 0), Id.copy());
  isl_set *Set = isl_set_universe(Sp);
  Set = isl_set_lower_bound_si(Set, isl_dim_param, 0, Lo);
  Set = isl_set_upper_bound_si(Set, isl_dim_param, 0, Hi);
  return isl::manage(Set);
}

/// Polly's schedule as clo compiles it, if it is new and Polly's check
/// proves it keeps every dependence (else null).
isl::schedule checkedCloSchedule(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                                 polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &U) {
  isl::schedule Clo = cloSchedule(S, SAM, SAR, U);
  const polly::Dependences &D =
      SAM.getResult<polly::DependenceAnalysis>(S, SAR).getDependences(polly::Dependences::AL_Statement);
  if (Clo.is_null() || !Clo.get_domain().is_equal(S.getDomains()) || !D.hasValidDependences() ||
      !D.isValidSchedule(S, Clo))
    return {};
  return Clo;
}

/// A layout trial of clo (Analysis/LayoutTrial.h) needs the cost of
/// Polly's schedule only: that version and the original order, each with
/// its footprint model, without the data-tiled and band versions whose
/// planning and models were most of the trial's compile time (PolyBench
/// trmm: 1.2 s of clo's 2.0 s). Records nothing (the trial counts the SCoP
/// unmodelled) where either has no model, or where dro-wp's tables have no
/// such version either (a stencil, a buffer given at compile time, loops
/// Polly outlines as parallel).
void recordCloTrial(polly::Scop &S, polly::ScopAnalysisManager &SAM, polly::ScopStandardAnalysisResults &SAR,
                    polly::SPMUpdater &U, LayoutTrial &Trial) {
  std::vector<DiskArray> Arrays;
  if (!findDiskArrays(S, Arrays).empty() || hasStencilStatement(S) || assumedBuffer() ||
      pollyOutlinesParallelLoops())
    return;
  isl::schedule Clo = checkedCloSchedule(S, SAM, SAR, U);
  if (Clo.is_null())
    return;
  isl::set Rep = representativeParams(S);
  FootprintModel CloModel, Original;
  std::string WhyNot;
  if (!modelSchedule(atParams(Clo, Rep), Arrays, CloModel, WhyNot) ||
      !modelSchedule(atParams(S.getScheduleTree(), Rep), Arrays, Original, WhyNot, IOPOLY_BAND_MAX_DIMS, true) ||
      CloModel.Bands.empty() || Original.Bands.empty())
    return;
  VersionSet Set;
  std::vector<iopoly_band> Bands;
  std::vector<iopoly_band_term> Terms;
  cModel(CloModel, Bands, Terms);
  Set.addVersion(PollyTileSize, IOPOLY_VERSION_IN_MEMORY, {}, Bands, Terms);
  Bands.clear();
  Terms.clear();
  cModel(Original, Bands, Terms);
  Set.addVersion(0, 0, {}, Bands, Terms);
  Trial.record(Set.table(), Arrays);
}

} // namespace

PreservedAnalyses DiskReusePass::run(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                                     polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &U) {
  if (scopIsLeftAlone(S))
    return PreservedAnalyses::all();
  OptimizationRemarkEmitter ORE(&S.getFunction());
  BasicBlock *Entry = S.getEntry();
  DebugLoc Loc = locationOf(S);
  // A layout trial (Analysis/LayoutTrial.h) records costs instead of
  // transforming; loops kept in their order for want of a model have none.
  LayoutTrial *Trial = activeLayoutTrial();
  struct RecordUnmodelled {
    LayoutTrial *T;
    polly::Scop &S;
    size_t Before;
    ~RecordUnmodelled() {
      if (!T || T->Scops.size() != Before)
        return;
      std::vector<DiskArray> Arrays;
      findDiskArrays(S, Arrays);
      T->unmodelled(Arrays);
    }
  } Unrecorded{Trial, S, Trial ? Trial->Scops.size() : 0};
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
  if (Trial && mode() == Mode::CLO) {
    recordCloTrial(S, SAM, SAR, U, *Trial);
    return PreservedAnalyses::all();
  }
  const polly::Dependences &D =
      SAM.getResult<polly::DependenceAnalysis>(S, SAR).getDependences(polly::Dependences::AL_Statement);
  if (!D.hasValidDependences())
    return Missed(Loc, "Polly could not compute the dependences of these loops");
  SCoPPlan P = planScop(S, dependencesToKeep(D), WholeProgram);
  // Beside the data-tiled versions: Polly's own schedule, tiled for the
  // buffer at a few tile sizes (where the SCoP's arrays could be analysed).
  // Where Polly outlines parallel loops (threads=on) they run on one thread
  // (markSequential): tasks are the data-tiled versions' units.
  BandPlan B;
  if (!P.Regions.empty())
    B = planBandTiling(S, dependencesToKeep(D), P.Arrays, bandTiles());
  for (auto It = B.Versions.begin(); It != B.Versions.end();) {
    // Tiling permutable bands keeps every dependence; Polly checks anyway.
    if (It->Schedule.get_domain().is_equal(S.getDomains()) && D.isValidSchedule(S, It->Schedule)) {
      ++It;
      continue;
    }
    B.Why = "Polly's check refused its tiled schedule";
    It = B.Versions.erase(It);
  }
  if (printTiling()) {
    errs() << "iopoly tiling plan of SCoP " << S.getNameStr() << " in function " << S.getFunction().getName()
           << (Loc ? " at line " + std::to_string(Loc.getLine()) : std::string()) << ":\n";
    for (const RegionTiling &R : P.Regions)
      printRegionTiling(errs(), R, P.Arrays, P.Opts);
    if (P.Regions.empty())
      errs() << "  " << P.Why << "\n";
    else
      printBandPlan(errs(), B, P.Arrays);
  }
  // Loops on memory the compiler does not know to be disk-resident (arrays
  // of the program's own, pointers from another file checked at run time)
  // get the conventional locality optimization: what clo does.
  // Not where Polly outlines parallel loops (threads=on): its parallel code
  // of tiled bands is not used anywhere else.
  if (P.NoDiskArray && !pollyOutlinesParallelLoops())
    return applyPollySchedule(S, SAM, SAR, U, "no array here is known to be disk-resident: as in mode=clo, ");
  bool DataPlanned = P.Why.empty();
  if (!DataPlanned && B.Versions.empty()) {
    bool Blocked = false;
    for (const RegionTiling &R : P.Regions)
      Blocked |= R.Blocked;
    if (Blocked || P.Blocked || (P.Regions.empty() && P.Arrays.size()))
      return Missed(Loc, P.Why);
    return NoGain(Loc, P.Why);
  }
  // Loops kept in their order inside tiled regions, and why.
  for (size_t K = 0; DataPlanned && K < P.Regions.size(); ++K) {
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

  // The versions, in the order of the runtime's table: data-tiled ones
  // (coarsest unit first), band versions, the original order; each with
  // its footprint model for the run-time choice (all or none: the choice
  // compares replayed models only when every version has one).
  unsigned NumTiled = DataPlanned ? static_cast<unsigned>(P.Opts.Units.size()) : 0;
  std::vector<isl::schedule> Schedules;
  std::vector<std::vector<iopoly_tile_term>> DataTerms;
  std::vector<uint32_t> Flags;
  for (unsigned V = 0; V < NumTiled; ++V) {
    // Every version must keep every dependence (Polly's check); the
    // versions differ only in unit sizes, so one that fails means the plan
    // is wrong.
    isl::schedule New = versionSchedule(S, P, V);
    if (!New.get_domain().is_equal(S.getDomains()))
      return Missed(Loc, "internal: the tiled schedule does not cover every statement instance");
    if (!D.isValidSchedule(S, New))
      return Missed(Loc, "the tiled order would violate a dependence (Polly's check refused it)");
    Schedules.push_back(New);
    DataTerms.push_back(versionTerms(P, V));
    Flags.push_back(0);
  }
  for (const BandVersion &V : B.Versions) {
    Schedules.push_back(V.Schedule);
    DataTerms.push_back({});
    Flags.push_back(IOPOLY_VERSION_BANDS | (V.RowWalks ? IOPOLY_VERSION_ROWS : 0u));
  }
  Schedules.push_back(S.getScheduleTree());
  DataTerms.push_back(DataPlanned ? versionTerms(P, NumTiled) : std::vector<iopoly_tile_term>());
  Flags.push_back(0);
  // One run of loops whose bounds or subscripts take parameters (the
  // counter of a loop around them Polly could not model) is modelled.
  isl::set Rep = representativeParams(S);
  std::vector<FootprintModel> Models(Schedules.size());
  bool Modelled = true;
  std::string WhyNoModel;
  for (size_t V = 0; V < Schedules.size() && Modelled; ++V) {
    if (V >= NumTiled && V < NumTiled + B.Versions.size())
      Models[V] = B.Versions[V - NumTiled].Model;
    else if (V < NumTiled) // by its tile loops: the unit, the streamed step
      Modelled = modelSchedule(atParams(Schedules[V], Rep), P.Arrays, Models[V], WhyNoModel, /*MaxDepth=*/2,
                               !hasStencilStatement(S));
    else
      Modelled = modelSchedule(atParams(Schedules[V], Rep), P.Arrays, Models[V], WhyNoModel, IOPOLY_BAND_MAX_DIMS,
                               !hasStencilStatement(S));
  }
  if (!Modelled && !B.Versions.empty()) {
    // Band versions are chosen by their models only.
    Schedules.erase(Schedules.begin() + NumTiled, Schedules.begin() + NumTiled + B.Versions.size());
    DataTerms.erase(DataTerms.begin() + NumTiled, DataTerms.begin() + NumTiled + B.Versions.size());
    Flags.erase(Flags.begin() + NumTiled, Flags.begin() + NumTiled + B.Versions.size());
    B.Why = "the run-time choice has no footprint model of these loops (" + WhyNoModel + ")";
    B.Versions.clear();
    if (!DataPlanned)
      return Missed(Loc, B.Why);
  }
  if (printTiling() && !Modelled)
    errs() << "no footprint models: " << WhyNoModel << "\n";
  uint64_t Buffer = assumedBuffer();
  auto buildSet = [&] {
    VersionSet Out;
    for (size_t V = 0; V < Schedules.size(); ++V) {
      std::vector<iopoly_band> Bands;
      std::vector<iopoly_band_term> Terms;
      if (Modelled)
        cModel(Models[V], Bands, Terms);
      uint64_t Unit = V < NumTiled                           ? P.Opts.Units[V]
                      : Flags[V] & IOPOLY_VERSION_IN_MEMORY ? PollyTileSize
                      : V + 1 < Schedules.size()            ? B.Versions[V - NumTiled].Tile
                                                            : 0;
      Out.addVersion(Unit, Flags[V], DataTerms[V], Bands, Terms);
    }
    return Out;
  };
  VersionSet Set = buildSet();
  // Every version is code to generate and optimize, most of the compile
  // time (2mm: 2.7 s with nine versions per SCoP, 1.3 s with the ones
  // kept): a version no plausible run needs (versionsWorthCompiling: the
  // run-time choice never takes it, or the others kept cost no run more
  // than 5% more) is not compiled. That needs the data's size
  // (every array's extent known, not a nominal one: the buffer is a fraction of it; the
  // run-time choice replays the same models, one representative run of
  // loops with parameters); otherwise only the versions with rows
  // innermost are pruned so (heat-3d: 12.6 s with them, 8.8 s without).
  if (Modelled && !Buffer && !allVersions() && !Trial) {
    bool Plausible =
        std::all_of(P.Arrays.begin(), P.Arrays.end(), [](const DiskArray &A) { return A.Bytes > 0; });
    std::vector<bool> Chosen = versionsWorthCompiling(Set.table(), P.Arrays);
    auto drop = [&](size_t V) {
      Schedules.erase(Schedules.begin() + static_cast<long>(V));
      DataTerms.erase(DataTerms.begin() + static_cast<long>(V));
      Flags.erase(Flags.begin() + static_cast<long>(V));
      Models.erase(Models.begin() + static_cast<long>(V));
    };
    for (size_t V = Schedules.size() - 1; V-- > 0;) {
      if (Chosen[V])
        continue;
      if (V >= NumTiled && (Plausible || B.Versions[V - NumTiled].RowWalks)) {
        drop(V);
        B.Versions.erase(B.Versions.begin() + static_cast<long>(V - NumTiled));
      } else if (V < NumTiled && Plausible) {
        drop(V);
        P.Opts.Units.erase(P.Opts.Units.begin() + static_cast<long>(V));
        --NumTiled;
      }
    }
    if (Schedules.size() == 1)
      return NoGain(Loc, "the original order is within " + std::to_string(std::lround(VersionTolerance * 100)) +
                             "% of the best version for every plausible run (estimated; " + plausibleRuns() +
                             "); -fplugin-arg-iopoly-versions=all compiles the other versions anyway");
    if (Schedules.size() != Set.Versions.size())
      Set = buildSet();
  }
  // For runs whose data all fit the buffer (no order fetches a stripe
  // twice; the processor's caches decide): Polly's schedule as clo compiles
  // it. Where it can be modelled it is a candidate out of core too. Not for stencils: their
  // original order ran faster than Polly's or as fast (PolyBench heat-3d,
  // jacobi-2d; seidel-2d even; LARGE, bench/results/overhead.md). Where Polly
  // outlines parallel loops it runs on one thread, as the band versions do.
  bool InMemory = false, InMemoryModelled = false;
  if (!Buffer && !hasStencilStatement(S)) {
    if (isl::schedule Clo = checkedCloSchedule(S, SAM, SAR, U); !Clo.is_null()) {
      size_t At = Schedules.size() - 1;
      Schedules.insert(Schedules.begin() + static_cast<long>(At), Clo);
      DataTerms.insert(DataTerms.begin() + static_cast<long>(At), std::vector<iopoly_tile_term>());
      Flags.insert(Flags.begin() + static_cast<long>(At), IOPOLY_VERSION_IN_MEMORY);
      // Its footprint model too, where the others have one: out of core it
      // is then a candidate like them (PolyBench trmm: Polly's tiles fetch
      // 5x less than the original order at 1/2 of the data).
      FootprintModel CloModel;
      std::string WhyNot;
      if (Modelled && !modelSchedule(atParams(Clo, Rep), P.Arrays, CloModel, WhyNot))
        CloModel = FootprintModel();
      InMemoryModelled = !CloModel.Bands.empty();
      Models.insert(Models.begin() + static_cast<long>(At), CloModel);
      Set = buildSet();
      InMemory = true;
    }
  }
  if (Trial) {
    if (Modelled)
      Trial->record(Set.table(), P.Arrays);
    return PreservedAnalyses::all();
  }
  if (printTiling() && Modelled)
    for (size_t V = 0; V < Schedules.size(); ++V) {
      errs() << "footprint model of version " << V << ":\n";
      printFootprintModel(errs(), Models[V], P.Arrays);
    }
  unsigned NumVersionsHere = static_cast<unsigned>(Schedules.size());

  auto describe = [&](unsigned V) {
    if (V < NumTiled)
      return "unit " + unitName(P.Opts.Units[V]);
    const BandVersion &BV = B.Versions[V - NumTiled];
    return std::string(BV.RowWalks ? "Polly's schedule with rows innermost" : "Polly's schedule") + " in tiles of " +
           std::to_string(BV.Tile);
  };
  // The versions in Polly's schedule run on one thread where Polly outlines
  // parallel loops: its parallel code generation of their tiles crashed
  // (PolyBench deriche, adi), and their units have no disk map for tasks.
  auto generated = [&](unsigned V) {
    bool PollyOrder = Flags[V] & (IOPOLY_VERSION_BANDS | IOPOLY_VERSION_IN_MEMORY);
    return PollyOrder && pollyOutlinesParallelLoops() ? markSequential(Schedules[V]) : Schedules[V];
  };
  std::string Versions;
  isl::schedule New;
  if (Buffer) {
    // One version fixed at compile time (a known buffer).
    iopoly_tile_table Table = Set.table();
    unsigned V = chooseTileVersion(Table, P.Opts.Stripe, Buffer / P.Opts.Stripe);
    if (V + 1 == NumVersionsHere)
      return Missed(Loc, "with the assumed buffer of " + unitName(Buffer) +
                             " bytes (-iopoly-buffer) the cost model prefers the original order");
    New = generated(V);
    Versions = describe(V) + " (for the assumed buffer)";
  } else {
    // One SCoP parameter selects the version: the value the runtime
    // returns for this run's buffer and stripe.
    // Where the choice is made. A call between two SCoPs of a function
    // would end the one before it (Polly cannot analyse the call: its loops
    // would keep their order), so the call goes at the function's entry;
    // its arguments are constants. Where Polly outlines parallel loops it
    // stays right before the loops, in a block of its own (BeforeScop.h):
    // it also tells the task scheduler the footprint of the region about to
    // run (and Polly's parallel code generation expects the value there).
    Instruction *At = &*S.getFunction().getEntryBlock().getFirstInsertionPt();
    if (pollyOutlinesParallelLoops()) {
      At = insertionPointBeforeScop(S, SAR);
      if (!At) // several entering edges: where they meet
        At = SAR.DT.getNode(S.getEntry())->getIDom()->getBlock()->getTerminator();
    }
    std::string Where = S.getFunction().getName().str();
    if (Loc)
      Where = (Loc->getScope() ? Loc->getScope()->getFilename().str() : std::string("?")) + ":" +
              std::to_string(Loc.getLine());
    CallInst *Call = emitVersionChoice(*S.getFunction().getParent(), At, Set, Where, tilePrefetch(), threadsEnabled());
    const SCEV *Param = SAR.SE.getSCEV(Call);
    polly::ParameterSetTy NewParams;
    NewParams.insert(Param);
    S.addParams(NewParams);
    isl::id Id = S.getIdForParam(Param);
    unsigned Last = NumVersionsHere - 1;
    S.setContext(S.getContext().intersect_params(paramRange(Id, 0, Last)));
    for (unsigned V = 0; V <= Last; ++V) {
      isl::union_set Dom = isl::manage(isl_union_set_intersect_params(
          S.getDomains().release(), paramRange(Id, V, V).release()));
      isl::schedule Part = generated(V).intersect_domain(Dom);
      New = New.is_null() ? Part : New.sequence(Part);
    }
    if (NumTiled) {
      for (unsigned V = 0; V < NumTiled; ++V)
        Versions += (V ? ", " : "units ") + unitName(P.Opts.Units[V]);
    }
    for (bool Rows : {false, true}) {
      std::string Tiles;
      for (const BandVersion &BV : B.Versions)
        if (BV.RowWalks == Rows)
          Tiles += (Tiles.empty() ? "" : ", ") + std::to_string(BV.Tile);
      if (!Tiles.empty())
        Versions += std::string(Versions.empty() ? "" : ", ") +
                    (Rows ? "Polly's schedule with rows innermost in tiles of " : "Polly's schedule in tiles of ") + Tiles;
    }
    if (InMemory)
      Versions += std::string(Versions.empty() ? "" : ", ") +
                  (InMemoryModelled ? "Polly's schedule as in mode=clo (for data that fit the buffer, and wherever its "
                                      "model is the cheapest)"
                                    : "Polly's schedule as in mode=clo (for data that fit the buffer)");
    Versions += " and the original order, one chosen at run time from the buffer and stripe";
    NumVersions += Last;
  }
  S.setScheduleTree(New);
  ++NumScopsRestructured;
  unsigned Groups = 0, Fused = 0;
  for (size_t K = 0; DataPlanned && NumTiled && K < P.Regions.size(); ++K)
    if (P.Planned[K]) {
      Groups += P.Regions[K].TiledGroups;
      Fused += P.Regions[K].Fused;
    }
  if (firstTimeAt(Loc, "applied", std::to_string(Groups) + "/" + std::to_string(Fused) + "/" + Versions))
    ORE.emit([&] {
      OptimizationRemark R(DEBUG_TYPE, "DiskReuse", Loc, Entry);
      R << (WholeProgram ? "dro-wp" : "dro-l");
      if (DataPlanned && NumTiled)
        R << ": tiled the loops here by their data: " << ore::NV("Groups", Groups) << " tiled group(s), "
          << ore::NV("Fused", Fused) << " loop nest(s) fused into another's tiles";
      else
        R << ": tiled the loops here in Polly's schedule: " << ore::NV("Bands", B.TiledBands)
          << " band(s) tiled (by their data: "
          << (DataPlanned ? "no plausible run needs those versions" : P.Why) << ")";
      R << "; versions: " << Versions;
      return R;
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
  if (scopIsLeftAlone(S)) {
    OS << "  not analyzed: Polly's model of its arrays is wrong (see the MixedElementSizes remark)\n";
    return PreservedAnalyses::all();
  }
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
