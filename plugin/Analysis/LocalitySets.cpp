//===- LocalitySets.cpp - Disk locality sets and the LSG of a SCoP ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Analysis/LocalitySets.h"
#include "Support/DiskResidentRegistry.h"
#include "Support/NodeSplit.h"
#include "Support/RuntimeABI.h"

#include "polly/ScopInfo.h"
#include "polly/Support/GICHelper.h"
#include "polly/Support/ISLTools.h"

#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/raw_ostream.h"

#include "isl/aff.h"
#include "isl/map.h"

#include <map>

using namespace llvm;

namespace iopoly {

namespace {

/// Whether \p Base points to a disk-resident array (before lowering: a
/// global with the pragma's metadata, or a marked pointer).
bool isDiskResidentBase(const Value *Base) {
  Base = Base->stripPointerCasts();
  if (auto *G = dyn_cast<GlobalVariable>(Base))
    return G->getMetadata(DiskResidentMD) != nullptr;
  if (auto *C = dyn_cast<CallInst>(Base))
    if (const Function *F = C->getCalledFunction())
      return F->getName() == MarkerName;
  return false;
}

struct ArrayUnits {
  const polly::ScopArrayInfo *SAI;
  isl::map UnitOf; ///< A[...] -> [unit]
};

/// byte(A[a0, ..., an]) = elem * (((a0 * D1 + a1) * D2 + a2) ...): the
/// element's offset in the row-major file layout.
std::string byteAffine(const polly::ScopArrayInfo *SAI, isl::aff &Out) {
  isl::space Space = SAI->getSpace();
  isl::local_space LS(Space);
  unsigned N = SAI->getNumberOfDimensions();
  std::vector<int64_t> Stride(N, 1);
  for (unsigned D = N; D-- > 1;) {
    auto *C = dyn_cast_or_null<SCEVConstant>(SAI->getDimensionSize(D));
    if (!C)
      return "array '" + SAI->getName() + "' has a dimension of unknown size";
    Stride[D - 1] = Stride[D] * C->getAPInt().getSExtValue();
  }
  isl::aff Byte = isl::manage(isl_aff_zero_on_domain(LS.copy()));
  for (unsigned D = 0; D < N; ++D)
    Byte = Byte.add(isl::aff::var_on_domain(LS, isl::dim::set, D).scale(Stride[D] * SAI->getElemSizeInBytes()));
  Out = Byte;
  return "";
}

/// Total bytes of the array when the compiler knows it (global arrays).
uint64_t knownBytes(const polly::ScopArrayInfo *SAI) {
  auto *G = dyn_cast<GlobalVariable>(SAI->getBasePtr()->stripPointerCasts());
  if (!G)
    return 0;
  return G->getParent()->getDataLayout().getTypeAllocSize(G->getValueType());
}

std::string statementName(const polly::ScopStmt &Stmt) { return Stmt.getBaseName(); }

isl::union_map instanceToNode(const LocalitySets &L, isl::ctx Ctx) {
  isl::union_map M = isl::union_map::empty(Ctx);
  for (size_t K = 0; K < L.Nodes.size(); ++K) {
    isl::set Id(Ctx, "{ N[" + std::to_string(K) + "] }");
    M = M.unite(isl::union_map::from_domain_and_range(L.Nodes[K].Instances, isl::union_set(Id)));
  }
  return M;
}

/// Recomputes the LSG's edges from the dependences between node sets.
void rebuildGraph(LocalitySets &L, const isl::union_map &Deps) {
  L.Graph = LSG();
  for (const LocalityNode &N : L.Nodes)
    L.Graph.addNode(N.Lambda);
  if (L.Nodes.empty())
    return;
  isl::ctx Ctx = Deps.ctx();
  isl::union_map I2N = instanceToNode(L, Ctx);
  isl::union_map NodeDeps = I2N.reverse().apply_range(Deps).apply_range(I2N).project_out_all_params();
  NodeDeps.wrap().foreach_point([&](isl::point P) {
    long From = P.get_coordinate_val(isl::dim::set, 0).get_num_si();
    long To = P.get_coordinate_val(isl::dim::set, 1).get_num_si();
    L.Graph.addEdge(static_cast<unsigned>(From), static_cast<unsigned>(To));
    return isl::stat::ok();
  });
}

/// isl instance sets for the generic split of NodeSplit.h.
struct IslSplitOps {
  using Set = isl::union_set;
  isl::union_map Deps;
  Set intersect(const Set &A, const Set &B) const { return A.intersect(B); }
  Set subtract(const Set &A, const Set &B) const { return A.subtract(B); }
  bool empty(const Set &S) const { return S.is_empty(); }
  Set dependents(const Set &X) const { return X.apply(Deps); }
};

} // namespace

std::string buildLocalitySets(polly::Scop &S, const isl::union_map &Deps, const LocalityOptions &O,
                              const isl::union_set &Within, LocalitySets &Out) {
  LocalitySets L;
  isl::ctx Ctx = S.getIslCtx();
  std::map<const polly::ScopArrayInfo *, ArrayUnits> Units;
  std::vector<const polly::ScopArrayInfo *> DiskArrays;
  for (const polly::ScopArrayInfo *SAI : S.arrays())
    if (SAI->isArrayKind() && isDiskResidentBase(SAI->getBasePtr()))
      DiskArrays.push_back(SAI);
  if (DiskArrays.empty())
    return "it accesses no disk-resident array";

  unsigned NextUnit = 0;
  if (O.Gran == Granularity::Disk) {
    if (O.Disks > 64)
      return "more than 64 disks";
    NextUnit = O.Disks;
    for (unsigned D = 0; D < O.Disks; ++D)
      L.UnitNames.push_back("disk " + std::to_string(D));
    L.UnitBytes.assign(O.Disks, 0);
  }
  unsigned Budget = std::max(1u, 64u / static_cast<unsigned>(DiskArrays.size()));
  for (const polly::ScopArrayInfo *SAI : DiskArrays) {
    isl::aff Byte;
    std::string Why = byteAffine(SAI, Byte);
    if (!Why.empty())
      return Why;
    L.Arrays.push_back(SAI->getName());
    isl::aff Unit;
    uint64_t Bytes = knownBytes(SAI);
    if (O.Gran == Granularity::Disk || !Bytes) {
      // Disk maps (also the fallback for arrays of unknown size).
      if (O.Gran != Granularity::Disk && NextUnit + O.Disks > 64)
        return "too many locality units";
      unsigned Base = O.Gran == Granularity::Disk ? 0 : NextUnit;
      Unit = Byte.scale_down(isl::val(Ctx, static_cast<long>(O.Stripe))).floor().mod(isl::val(Ctx, O.Disks));
      Unit = Unit.add_constant(isl::val(Ctx, Base));
      if (O.Gran != Granularity::Disk) {
        for (unsigned D = 0; D < O.Disks; ++D)
          L.UnitNames.push_back(SAI->getName() + " disk " + std::to_string(D));
        L.UnitBytes.insert(L.UnitBytes.end(), O.Disks, 0);
        NextUnit += O.Disks;
      }
    } else {
      // Contiguous chunks of C stripes: at most min(budget, option) units.
      uint64_t Stripes = (Bytes + O.Stripe - 1) / O.Stripe;
      uint64_t Chunks = std::min<uint64_t>({Stripes, O.ChunksPerArray, Budget});
      uint64_t PerChunk = (Stripes + Chunks - 1) / Chunks;
      Chunks = (Stripes + PerChunk - 1) / PerChunk;
      if (NextUnit + Chunks > 64)
        return "too many locality units";
      Unit = Byte.scale_down(isl::val(Ctx, static_cast<long>(O.Stripe * PerChunk))).floor();
      Unit = Unit.add_constant(isl::val(Ctx, NextUnit));
      for (uint64_t C = 0; C < Chunks; ++C) {
        L.UnitNames.push_back(SAI->getName() + " stripes " + std::to_string(C * PerChunk) + ".." +
                              std::to_string(std::min(Stripes, (C + 1) * PerChunk) - 1));
        L.UnitBytes.push_back((std::min(Stripes, (C + 1) * PerChunk) - C * PerChunk) * O.Stripe);
      }
      NextUnit += static_cast<unsigned>(Chunks);
    }
    Units[SAI] = {SAI, isl::manage(isl_map_from_aff(Unit.release()))};
  }
  L.Units = NextUnit;

  for (polly::ScopStmt &Stmt : S) {
    isl::set Domain = Stmt.getDomain();
    if (!Within.is_null())
      Domain = Domain.intersect(Within.extract_set(Domain.get_space()));
    if (Domain.is_empty())
      continue;
    isl::map Tuple;
    for (polly::MemoryAccess *MA : Stmt) {
      if (!MA->isLatestArrayKind())
        continue;
      auto It = Units.find(MA->getLatestScopArrayInfo());
      if (It == Units.end())
        continue;
      isl::map U = MA->getLatestAccessRelation().intersect_domain(Domain).apply_range(It->second.UnitOf);
      if (!U.is_single_valued())
        return "statement " + statementName(Stmt) + " has an access that is not a function of the iteration";
      Tuple = Tuple.is_null() ? U : Tuple.flat_range_product(U);
    }
    if (Tuple.is_null()) {
      L.Nodes.push_back({isl::union_set(Domain), 0, statementName(Stmt)});
      continue;
    }
    isl::set Range = Tuple.range().project_out_all_params();
    if (!Range.is_bounded())
      return "statement " + statementName(Stmt) + " touches an unbounded set of units";
    std::map<uint64_t, isl::set> ByMap;
    unsigned Points = 0;
    bool TooMany = false;
    Range.foreach_point([&](isl::point P) {
      if (++Points > O.MaxPoints) {
        TooMany = true;
        return isl::stat::error();
      }
      uint64_t Lambda = 0;
      unsigned Dims = unsignedFromIslSize(Range.tuple_dim());
      for (unsigned D = 0; D < Dims; ++D)
        Lambda |= 1ULL << P.get_coordinate_val(isl::dim::set, static_cast<int>(D)).get_num_si();
      isl::set PS(P);
      auto [It, New] = ByMap.try_emplace(Lambda, PS);
      if (!New)
        It->second = It->second.unite(PS);
      return isl::stat::ok();
    });
    if (TooMany)
      return "statement " + statementName(Stmt) + " has more than " + std::to_string(O.MaxPoints) +
             " combinations of units";
    isl::set Rest = Domain;
    for (auto &[Lambda, Points] : ByMap) {
      // detect_equalities lets isl see that the stripe's floor() is a
      // constant inside most sets, so the sets (and the loops generated from
      // them) come out as plain bounds.
      isl::set Q = Tuple.intersect_range(Points).domain().detect_equalities().coalesce();
      Rest = Rest.subtract(Q);
      L.Nodes.push_back({isl::union_set(Q), Lambda, statementName(Stmt)});
    }
    // Instances where no disk access happens (partial accesses) form a set
    // of their own: every instance must be in exactly one set.
    if (!Rest.is_empty())
      L.Nodes.push_back({isl::union_set(Rest), 0, statementName(Stmt) + " (no disk access)"});
  }
  if (L.Nodes.size() <= O.MaxNodes)
    rebuildGraph(L, Deps);
  Out = std::move(L);
  return "";
}

void removeCycles(LocalitySets &L, const isl::union_map &Deps, const LocalityOptions &O) {
  IslSplitOps Ops{Deps};
  while (true) {
    auto Cycles = cyclicComponents(L.Graph);
    if (Cycles.empty())
      return;
    const std::vector<unsigned> &C = Cycles.front();
    bool Split = false;
    if (L.Splits < O.MaxSplits) {
      // The heuristic's choice first, then the other nodes of the cycle.
      LSG Sub;
      for (unsigned U : C)
        Sub.addNode(L.Graph.Map[U]);
      for (size_t A = 0; A < C.size(); ++A)
        for (unsigned V : L.Graph.Succ[C[A]]) {
          auto It = std::find(C.begin(), C.end(), V);
          if (It != C.end())
            Sub.addEdge(static_cast<unsigned>(A), static_cast<unsigned>(It - C.begin()));
        }
      std::vector<unsigned> Try;
      for (unsigned K : feedbackVertexSet(Sub))
        Try.push_back(C[K]);
      for (unsigned U : C)
        if (std::find(Try.begin(), Try.end(), U) == Try.end())
          Try.push_back(U);
      auto Pred = L.Graph.predecessors();
      for (unsigned N : Try) {
        isl::union_set P = isl::union_set::empty(Deps.ctx()), Q = P;
        for (unsigned U : Pred[N])
          if (std::binary_search(C.begin(), C.end(), U))
            P = P.unite(L.Nodes[U].Instances);
        for (unsigned U : L.Graph.Succ[N])
          if (std::binary_search(C.begin(), C.end(), U))
            Q = Q.unite(L.Nodes[U].Instances);
        auto R = splitNode(Ops, L.Nodes[N].Instances, P, Q);
        if (!R.Satisfactory)
          continue;
        LocalityNode B = L.Nodes[N];
        L.Nodes[N].Instances = R.A;
        L.Nodes[N].Label += " (after)";
        B.Instances = R.B;
        B.Label += " (before)";
        L.Nodes.push_back(B);
        ++L.Splits;
        rebuildGraph(L, Deps);
        Split = true;
        break;
      }
    }
    if (Split)
      continue;
    // Node merging: the cycle becomes one node with the OR of the maps.
    LocalityNode M;
    M.Instances = isl::union_set::empty(Deps.ctx());
    std::vector<LocalityNode> Kept;
    for (unsigned U = 0; U < L.Nodes.size(); ++U) {
      if (std::binary_search(C.begin(), C.end(), U)) {
        M.Instances = M.Instances.unite(L.Nodes[U].Instances);
        M.Lambda |= L.Nodes[U].Lambda;
        M.Label += (M.Label.empty() ? "" : " + ") + L.Nodes[U].Label;
      } else {
        Kept.push_back(L.Nodes[U]);
      }
    }
    Kept.push_back(M);
    L.Nodes = std::move(Kept);
    ++L.Merges;
    rebuildGraph(L, Deps);
  }
}

void printLocalitySets(raw_ostream &OS, const LocalitySets &L) {
  OS << "disk-resident arrays:";
  for (const std::string &A : L.Arrays)
    OS << " " << A;
  OS << "\nunits (" << L.Units << "):";
  for (unsigned U = 0; U < L.UnitNames.size(); ++U)
    OS << " [" << U << "] " << L.UnitNames[U] << (U + 1 < L.UnitNames.size() ? ";" : "");
  OS << "\nlocality sets (" << L.Nodes.size() << "), splits " << L.Splits << ", merges " << L.Merges << ":\n";
  for (unsigned K = 0; K < L.Nodes.size(); ++K) {
    OS << "  N" << K << " Lambda=" << mapString(L.Nodes[K].Lambda, L.Units) << " " << L.Nodes[K].Label << ": "
       << polly::stringFromIslObj(L.Nodes[K].Instances) << "\n";
  }
  OS << "LSG edges:";
  bool Any = false;
  for (unsigned U = 0; U < L.Graph.size(); ++U)
    for (unsigned V : L.Graph.Succ[U]) {
      OS << " N" << U << "->N" << V;
      Any = true;
    }
  OS << (Any ? "\n" : " none\n");
}

} // namespace iopoly
