//===- DiskReuse.cpp - Disk-reuse restructuring of a SCoP ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/DiskReuse.h"
#include "Analysis/LocalitySets.h"
#include "Support/Options.h"

#include "polly/DependenceInfo.h"
#include "polly/ScopInfo.h"
#include "polly/Support/GICHelper.h"
#include "polly/Support/ISLTools.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Support/raw_ostream.h"

#include "isl/union_map.h"

#include <algorithm>

#define DEBUG_TYPE "iopoly"

using namespace llvm;

STATISTIC(NumScopsRestructured, "SCoPs given a disk-reuse schedule");

namespace iopoly {

namespace {

LocalityOptions localityOptions() {
  LocalityOptions O;
  O.Stripe = assumedStripe();
  O.Disks = assumedDisks();
  O.Gran = stripeGranularity() ? Granularity::Stripe : Granularity::Disk;
  O.ChunksPerArray = chunksPerArray();
  O.MaxSplits = maxSplits();
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

/// Whether the original schedule visits \p Set in more than one piece:
/// some other instance runs after the first instance of it and before its
/// last. Comparing the others with Set's first and last time stamps only
/// (not with every instance) keeps this cheap.
bool fragmented(const isl::union_map &Sched, const isl::union_set &Set, const isl::union_set &Others) {
  if (Others.is_empty())
    return false;
  isl::union_set Mine = Set.apply(Sched), Theirs = Others.apply(Sched);
  isl::union_set First = isl::manage(isl_union_set_lexmin(Mine.copy()));
  isl::union_set Last = isl::manage(isl_union_set_lexmax(Mine.copy()));
  isl::union_map After = isl::manage(isl_union_set_lex_lt_union_set(First.release(), Theirs.copy()));
  isl::union_map Before = isl::manage(isl_union_set_lex_lt_union_set(Theirs.release(), Last.release()));
  return !After.range().intersect(Before.domain()).is_empty();
}

struct Plan {
  isl::schedule Schedule;
  unsigned Nodes = 0, Splits = 0, Merges = 0, Fragmented = 0;
  unsigned NewCost = 0, OldCost = 0;
  std::string Why; ///< non-empty: no plan
};

/// The LSG schedule of one region; "Why" set when there is nothing to do.
Plan planRegion(polly::Scop &S, const isl::union_map &AllDeps, const isl::union_set &Region, LocalitySets *Keep) {
  Plan P;
  // Only the dependences inside the region make edges; fewer pieces for
  // every composition below.
  isl::union_map Deps = AllDeps.intersect_domain(Region).intersect_range(Region).coalesce();
  LocalityOptions O = localityOptions();
  O.MaxNodes = maxSets();
  LocalitySets L;
  // Few large sets rather than many small ones: each set becomes a loop
  // nest of its own. Coarsen the chunks until the sets fit the budget.
  while (true) {
    P.Why = buildLocalitySets(S, Deps, O, Region, L);
    if (!P.Why.empty())
      return P;
    if (L.Nodes.size() <= maxSets())
      break;
    if (O.Gran == Granularity::Disk || O.ChunksPerArray <= 1) {
      P.Why = "it has " + std::to_string(L.Nodes.size()) + " locality sets, more than -iopoly-max-sets=" +
              std::to_string(maxSets());
      return P;
    }
    O.ChunksPerArray /= 2;
  }
  removeCycles(L, Deps, O);
  // A set whose stripes do not fit the buffer the user told us about
  // thrashes it in the new order, while the original order may stream.
  if (uint64_t Buffer = assumedBuffer()) {
    for (const LocalityNode &N : L.Nodes) {
      uint64_t Bytes = 0;
      bool Known = true;
      for (unsigned U = 0; U < L.UnitBytes.size(); ++U)
        if (N.Lambda >> U & 1) {
          Bytes += L.UnitBytes[U];
          Known &= L.UnitBytes[U] != 0;
        }
      if (Known && Bytes > Buffer) {
        P.Why = "a locality set (" + N.Label + ") spans " + std::to_string(Bytes >> 10) +
                " KiB of stripes, more than the assumed buffer of " + std::to_string(Buffer >> 10) +
                " KiB (-iopoly-buffer)";
        return P;
      }
    }
  }
  std::vector<unsigned> Order = scheduleByHamming(L.Graph);
  if (debugReverseOrder())
    std::reverse(Order.begin(), Order.end());
  isl::union_map Sched = S.getSchedule();
  isl::union_set All = isl::union_set::empty(S.getIslCtx());
  for (const LocalityNode &N : L.Nodes)
    All = All.unite(N.Instances);
  // Cost: disk state changes. The original order visits the nodes in some
  // topological order, and every node it visits in pieces costs at least
  // leaving and re-entering its units once more.
  P.OldCost = totalHamming(L.Graph, topologicalOrder(L.Graph));
  for (const LocalityNode &N : L.Nodes)
    if (fragmented(Sched, N.Instances, All.subtract(N.Instances))) {
      ++P.Fragmented;
      P.OldCost += 2 * static_cast<unsigned>(__builtin_popcountll(N.Lambda));
    }
  P.NewCost = totalHamming(L.Graph, Order);
  P.Nodes = L.Graph.size();
  P.Splits = L.Splits;
  P.Merges = L.Merges;
  isl::schedule Orig = S.getScheduleTree();
  for (unsigned K : Order) {
    isl::schedule Part = Orig.intersect_domain(L.Nodes[K].Instances);
    P.Schedule = P.Schedule.is_null() ? Part : P.Schedule.sequence(Part);
  }
  if (Keep)
    *Keep = std::move(L);
  return P;
}

DebugLoc locationOf(polly::Scop &S) {
  for (BasicBlock *BB : S.getRegion().blocks())
    for (Instruction &I : *BB)
      if (I.getDebugLoc())
        return I.getDebugLoc();
  return DebugLoc();
}

} // namespace

PreservedAnalyses DiskReusePass::run(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                                     polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &) {
  OptimizationRemarkEmitter ORE(&S.getFunction());
  BasicBlock *Entry = S.getEntry();
  DebugLoc Loc = locationOf(S);
  auto Missed = [&](const std::string &Why) {
    ORE.emit([&] {
      return OptimizationRemarkMissed(DEBUG_TYPE, "DiskReuseNotApplied", Loc, Entry)
             << "disk-reuse schedule not applied to the loops here: " << Why;
    });
    return PreservedAnalyses::all();
  };
  const polly::Dependences &D =
      SAM.getResult<polly::DependenceAnalysis>(S, SAR).getDependences(polly::Dependences::AL_Statement);
  if (!D.hasValidDependences())
    return Missed("Polly could not compute its dependences");
  isl::union_map Deps = D.getDependences(polly::Dependences::TYPE_RAW | polly::Dependences::TYPE_WAR |
                                         polly::Dependences::TYPE_WAW | polly::Dependences::TYPE_RED);

  isl::schedule New;
  Plan Total;
  bool Planned = false;
  std::string LastWhy;
  for (const isl::union_set &Region : regionsOf(S, WholeProgram)) {
    Plan P = planRegion(S, Deps, Region, nullptr);
    isl::schedule Part = P.Why.empty() ? P.Schedule : S.getScheduleTree().intersect_domain(Region);
    if (P.Why.empty()) {
      Planned = true;
      Total.Nodes += P.Nodes;
      Total.Splits += P.Splits;
      Total.Merges += P.Merges;
      Total.Fragmented += P.Fragmented;
      Total.NewCost += P.NewCost;
      Total.OldCost += P.OldCost;
    } else {
      LastWhy = P.Why;
    }
    New = New.is_null() ? Part : New.sequence(Part);
  }
  if (!Planned)
    return Missed(LastWhy);
  if (!Total.Fragmented || Total.NewCost >= Total.OldCost)
    return Missed("the cost model finds the original order as good (" + std::to_string(Total.Fragmented) +
                  " locality sets visited in pieces; disk state changes " + std::to_string(Total.OldCost) +
                  " before, " + std::to_string(Total.NewCost) + " after)");
  // Every instance exactly once: the locality sets must partition the SCoP.
  if (!New.get_domain().is_equal(S.getDomains()))
    return Missed("internal: the locality sets do not cover every statement instance");
  if (!D.isValidSchedule(S, New))
    return Missed("the reordering would violate a dependence (Polly's check)");
  S.setScheduleTree(New);
  ++NumScopsRestructured;
  ORE.emit([&] {
    return OptimizationRemark(DEBUG_TYPE, "DiskReuse", Loc, Entry)
           << (WholeProgram ? "dro-wp" : "dro-l") << ": reordered the loops here by locality sets: "
           << ore::NV("Nodes", Total.Nodes) << " sets (" << ore::NV("Splits", Total.Splits) << " split, "
           << ore::NV("Merges", Total.Merges) << " merged), " << ore::NV("Fragmented", Total.Fragmented)
           << " of them visited in pieces before; disk state changes " << ore::NV("Before", Total.OldCost) << " -> "
           << ore::NV("After", Total.NewCost);
  });
  // Polly's analyses of this SCoP stay valid: only the schedule changed.
  return PreservedAnalyses::all();
}

PreservedAnalyses LSGPrinterPass::run(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                                      polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &) {
  const polly::Dependences &D =
      SAM.getResult<polly::DependenceAnalysis>(S, SAR).getDependences(polly::Dependences::AL_Statement);
  isl::union_map Deps = D.getDependences(polly::Dependences::TYPE_RAW | polly::Dependences::TYPE_WAR |
                                         polly::Dependences::TYPE_WAW | polly::Dependences::TYPE_RED);
  OS << "iopoly LSG of SCoP " << S.getNameStr() << " in function " << S.getFunction().getName() << "\n";
  LocalitySets L;
  Plan P = planRegion(S, Deps, S.getDomains(), &L);
  if (!P.Why.empty()) {
    OS << "  not analyzed: " << P.Why << "\n";
    return PreservedAnalyses::all();
  }
  printLocalitySets(OS, L);
  std::vector<unsigned> Order = scheduleByHamming(L.Graph);
  OS << "Hamming order:";
  for (unsigned K : Order)
    OS << " N" << K;
  OS << "\n";
  for (unsigned K : Order)
    OS << "  N" << K << " Lambda=" << mapString(L.Nodes[K].Lambda, L.Units) << " " << L.Nodes[K].Label << "\n";
  OS << "total Hamming distance: " << totalHamming(L.Graph, Order) << " (original order "
     << totalHamming(L.Graph, topologicalOrder(L.Graph)) << "), fragmented sets " << P.Fragmented << "\n";
  return PreservedAnalyses::all();
}

} // namespace iopoly
