//===- LocalitySets.cpp - Set families and their LSG on a SCoP -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Analysis/LocalitySets.h"
#include "Analysis/ScopParams.h"
#include "Support/DiskResidentRegistry.h"
#include "Support/NodeSplit.h"
#include "Support/RuntimeABI.h"

#include "polly/ScopInfo.h"
#include "polly/Support/GICHelper.h"
#include "polly/Support/ISLTools.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

#include "isl/ilp.h"

using namespace llvm;

namespace iopoly {

namespace {

/// Whether \p Base is a disk-resident base pointer (before lowering: a
/// global with the pragma's metadata, or a marked pointer), looking through
/// the phis and selects code generation of an earlier SCoP leaves between a
/// marker and its later users; \p Name gets the pragma's name if known.
bool diskResidentBase(const Value *Base, std::string *Name, SmallPtrSetImpl<const Value *> &Seen) {
  if (!Base)
    return false; // an array Polly allocates itself (Transform/ScalarExpansion.h)
  Base = Base->stripPointerCasts();
  if (!Seen.insert(Base).second)
    return true; // a cycle of phis: decided by the other incoming values
  const MDNode *MD = nullptr;
  if (auto *G = dyn_cast<GlobalVariable>(Base)) {
    MD = G->getMetadata(DiskResidentMD);
    if (!MD)
      return false;
  } else if (auto *C = dyn_cast<CallInst>(Base)) {
    const Function *F = C->getCalledFunction();
    if (!F || F->getName() != MarkerName)
      return false;
    MD = C->getMetadata(DiskResidentMD);
  } else if (auto *P = dyn_cast<PHINode>(Base)) {
    if (!P->getNumIncomingValues())
      return false;
    for (const Value *V : P->incoming_values())
      if (!diskResidentBase(V, Name, Seen))
        return false;
    return true;
  } else if (auto *L = dyn_cast<LoadInst>(Base)) {
    // Polly's code generation of an earlier SCoP passes the values its
    // statements define (a copy of a marker) to later code through a stack
    // slot: disk-resident if everything stored there is.
    auto *Slot = dyn_cast<AllocaInst>(L->getPointerOperand()->stripPointerCasts());
    if (!Slot)
      return false;
    bool Any = false;
    for (const User *U : Slot->users()) {
      if (auto *St = dyn_cast<StoreInst>(U)) {
        if (St->getPointerOperand()->stripPointerCasts() != Slot || !diskResidentBase(St->getValueOperand(), Name, Seen))
          return false;
        Any = true;
      } else if (!isa<LoadInst>(U) && !(isa<IntrinsicInst>(U) && cast<IntrinsicInst>(U)->isLifetimeStartOrEnd())) {
        return false;
      }
    }
    return Any;
  } else if (auto *Sel = dyn_cast<SelectInst>(Base)) {
    return diskResidentBase(Sel->getTrueValue(), Name, Seen) && diskResidentBase(Sel->getFalseValue(), Name, Seen);
  } else {
    return false;
  }
  if (Name && Name->empty() && MD && MD->getNumOperands())
    if (auto *S = dyn_cast<MDString>(MD->getOperand(0)))
      *Name = S->getString().str();
  return true;
}


/// Total bytes of the array when the compiler knows it (global arrays).
uint64_t globalBytes(const polly::ScopArrayInfo *SAI) {
  auto *G = dyn_cast<GlobalVariable>(SAI->getBasePtr()->stripPointerCasts());
  if (!G)
    return 0;
  return G->getParent()->getDataLayout().getTypeAllocSize(G->getValueType());
}

isl::union_map instanceToNode(const FamilyGraph &G, isl::ctx Ctx) {
  isl::union_map M = isl::union_map::empty(Ctx);
  for (size_t K = 0; K < G.Nodes.size(); ++K) {
    isl::set Id(Ctx, "{ N[" + std::to_string(K) + "] }");
    M = M.unite(isl::union_map::from_domain_and_range(G.Nodes[K].instances(), isl::union_set(Id)));
  }
  return M;
}

/// Recomputes the LSG's edges from the dependences between families.
void rebuildGraph(FamilyGraph &G, const isl::union_map &Deps) {
  G.Graph = LSG();
  for (const Family &F : G.Nodes)
    G.Graph.addNode(F.Lambda);
  if (G.Nodes.empty())
    return;
  isl::union_map I2N = instanceToNode(G, Deps.ctx());
  isl::union_map NodeDeps = I2N.reverse().apply_range(Deps).apply_range(I2N).project_out_all_params();
  NodeDeps.wrap().foreach_point([&](isl::point P) {
    long From = P.get_coordinate_val(isl::dim::set, 0).get_num_si();
    long To = P.get_coordinate_val(isl::dim::set, 1).get_num_si();
    G.Graph.addEdge(static_cast<unsigned>(From), static_cast<unsigned>(To));
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

/// \p F restricted to \p Keep (a subset of its instances).
Family restrict(const Family &F, const isl::union_set &Keep, const std::string &Suffix) {
  Family R = F;
  R.Label += Suffix;
  R.Parts.clear();
  for (const auto &[Stmt, Dom] : F.Parts) {
    isl::set D = Keep.extract_set(Dom.get_space()).intersect(Dom);
    if (!D.is_empty())
      R.Parts.push_back({Stmt, D});
  }
  return R;
}

/// Breaks every cycle of the family LSG: a satisfactory split of the node
/// the feedback vertex set heuristic picks (then of the cycle's other
/// nodes), at most \p MaxSplits in all; otherwise node merging.
void removeCycles(FamilyGraph &G, const isl::union_map &Deps, unsigned MaxSplits) {
  IslSplitOps Ops{Deps};
  while (true) {
    auto Cycles = cyclicComponents(G.Graph);
    if (Cycles.empty())
      return;
    const std::vector<unsigned> &C = Cycles.front();
    bool Split = false;
    if (G.Splits < MaxSplits) {
      LSG Sub;
      for (unsigned U : C)
        Sub.addNode(G.Graph.Map[U]);
      for (size_t A = 0; A < C.size(); ++A)
        for (unsigned V : G.Graph.Succ[C[A]]) {
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
      auto Pred = G.Graph.predecessors();
      for (unsigned N : Try) {
        isl::union_set P = isl::union_set::empty(Deps.ctx()), Q = P;
        for (unsigned U : Pred[N])
          if (std::binary_search(C.begin(), C.end(), U))
            P = P.unite(G.Nodes[U].instances());
        for (unsigned U : G.Graph.Succ[N])
          if (std::binary_search(C.begin(), C.end(), U))
            Q = Q.unite(G.Nodes[U].instances());
        auto R = splitNode(Ops, G.Nodes[N].instances(), P, Q);
        if (!R.Satisfactory)
          continue;
        Family Before = restrict(G.Nodes[N], R.B, " (before)");
        G.Nodes[N] = restrict(G.Nodes[N], R.A, " (after)");
        G.Nodes.push_back(Before);
        ++G.Splits;
        rebuildGraph(G, Deps);
        Split = true;
        break;
      }
    }
    if (Split)
      continue;
    // Node merging (paper 1, Fig. 7b-c): the graph side is LSG's
    // mergeNodes; the families follow its remapping.
    std::vector<unsigned> Remap;
    LSG Merged = mergeNodes(G.Graph, C, Remap);
    std::vector<Family> Nodes(Merged.size());
    for (unsigned U = 0; U < G.Nodes.size(); ++U) {
      Family &Into = Nodes[Remap[U]];
      Into.Parts.insert(Into.Parts.end(), G.Nodes[U].Parts.begin(), G.Nodes[U].Parts.end());
      Into.Lambda |= G.Nodes[U].Lambda;
      Into.Label += (Into.Label.empty() ? "" : " + ") + G.Nodes[U].Label;
    }
    G.Nodes = std::move(Nodes);
    G.Graph = std::move(Merged);
    ++G.Merges;
  }
}

} // namespace

bool isDiskResidentBase(const Value *Base) {
  SmallPtrSet<const Value *, 8> Seen;
  return diskResidentBase(Base, nullptr, Seen);
}

bool diskResidentPointer(const Value *Ptr, std::string *Name) {
  if (!Ptr)
    return false;
  SmallPtrSet<const Value *, 8> Seen;
  return diskResidentBase(getUnderlyingObject(Ptr, /*MaxLookup=*/0), Name, Seen);
}

std::string userArrayName(const polly::ScopArrayInfo *SAI) {
  std::string N;
  SmallPtrSet<const Value *, 8> Seen;
  if (diskResidentBase(SAI->getBasePtr(), &N, Seen) && !N.empty())
    return N;
  const Value *B = SAI->getBasePtr();
  if (B && B->hasName())
    return B->getName().str();
  return "an array";
}

isl::union_set Family::instances() const {
  isl::union_set U;
  for (const auto &P : Parts)
    U = U.is_null() ? isl::union_set(P.second) : U.unite(isl::union_set(P.second));
  return U;
}

std::string findDiskArrays(polly::Scop &S, std::vector<DiskArray> &Out) {
  Out.clear();
  isl::set Nominal = nominalParams(S);
  for (const polly::ScopArrayInfo *SAI : S.arrays()) {
    if (!SAI->isArrayKind() || !isDiskResidentBase(SAI->getBasePtr()))
      continue;
    DiskArray A;
    A.SAI = SAI;
    A.Name = userArrayName(SAI);
    A.ElemBytes = static_cast<unsigned>(SAI->getElemSizeInBytes());
    unsigned N = SAI->getNumberOfDimensions();
    A.Stride.assign(N, A.ElemBytes);
    for (unsigned D = N; D-- > 1;) {
      auto *C = dyn_cast_or_null<SCEVConstant>(SAI->getDimensionSize(D));
      if (!C)
        return "array '" + A.Name + "' has a dimension whose size is only known at run time (the data tiles "
               "and the cost model need its row length at compile time; mode=clo tiles such loops without them)";
      A.Stride[D - 1] = A.Stride[D] * C->getAPInt().getZExtValue();
    }
    isl::space Space = SAI->getSpace();
    isl::local_space LS(Space);
    isl::aff Byte = isl::manage(isl_aff_zero_on_domain(LS.copy()));
    for (unsigned D = 0; D < N; ++D)
      Byte = Byte.add(isl::aff::var_on_domain(LS, isl::dim::set, D).scale(isl::val(S.getIslCtx(), A.Stride[D])));
    A.Byte = Byte;
    // The elements the SCoP touches: their box gives the extents (the
    // outermost one is unknown for pointers) and the bytes in play.
    isl::set Touched = isl::set::empty(Space);
    for (polly::ScopStmt &Stmt : S)
      for (polly::MemoryAccess *MA : Stmt)
        if (MA->isLatestArrayKind() && MA->getLatestScopArrayInfo() == SAI)
          Touched = Touched.unite(MA->getLatestAccessRelation().intersect_domain(Stmt.getDomain()).range());
    A.Extent.assign(N, 0);
    // All the runs of the SCoP's code (bounded by their parameters; a
    // size bounded only by its C type at its nominal value).
    isl::set Feasible = Touched.intersect_params(feasibleParams(S));
    isl::set T = Feasible;
    if (!Nominal.is_null())
      T = T.intersect_params(Nominal);
    T = T.project_out_all_params();
    isl::set Anywhere = Feasible.project_out_all_params();
    uint64_t Span = A.ElemBytes;
    for (unsigned D = 0; D < N && !T.is_empty(); ++D) {
      isl::val Lo = isl::manage(isl_set_dim_min_val(T.copy(), static_cast<int>(D)));
      isl::val Hi = isl::manage(isl_set_dim_max_val(T.copy(), static_cast<int>(D)));
      long L, H;
      if (!smallInt(Lo, L) || !smallInt(Hi, H)) {
        Span = 0;
        break;
      }
      A.Extent[D] = static_cast<uint64_t>(H - L + 1);
      Span += (A.Extent[D] - 1) * A.Stride[D];
      isl::val AnyHi = isl::manage(isl_set_dim_max_val(Anywhere.copy(), static_cast<int>(D)));
      A.NominalSize |= !AnyHi.eq(Hi);
    }
    A.Bytes = T.is_empty() ? 0 : Span;
    if (!A.Bytes)
      A.Bytes = globalBytes(SAI);
    Out.push_back(std::move(A));
  }
  if (Out.empty())
    return "it accesses no disk-resident array";
  if (Out.size() > 64)
    return "it accesses more than 64 disk-resident arrays";
  return "";
}

FamilyGraph buildFamilies(polly::Scop &S, const isl::union_set &Within, const isl::union_map &Deps,
                          const std::vector<DiskArray> &Arrays, unsigned MaxSplits) {
  FamilyGraph G;
  for (polly::ScopStmt &Stmt : S) {
    isl::set Domain = Stmt.getDomain().intersect(Within.extract_set(Stmt.getDomainSpace()));
    if (Domain.is_empty())
      continue;
    Family F;
    F.Parts.push_back({&Stmt, Domain});
    F.Label = Stmt.getBaseName();
    for (polly::MemoryAccess *MA : Stmt) {
      if (!MA->isLatestArrayKind())
        continue;
      for (size_t K = 0; K < Arrays.size(); ++K)
        if (Arrays[K].SAI == MA->getLatestScopArrayInfo())
          F.Lambda |= 1ULL << K;
    }
    G.Nodes.push_back(std::move(F));
  }
  rebuildGraph(G, Deps);
  removeCycles(G, Deps, MaxSplits);
  G.Order = scheduleByHamming(G.Graph);
  return G;
}

void printFamilies(raw_ostream &OS, const FamilyGraph &G, const std::vector<DiskArray> &Arrays) {
  OS << "disk-resident arrays (map bits):";
  for (size_t K = 0; K < Arrays.size(); ++K)
    OS << " [" << K << "] " << Arrays[K].Name << " (" << Arrays[K].Bytes << " bytes"
       << (Arrays[K].NominalSize ? " at the nominal size" : "") << ")";
  unsigned Bits = static_cast<unsigned>(Arrays.size());
  OS << "\nset families (" << G.Nodes.size() << "), splits " << G.Splits << ", merges " << G.Merges << ":\n";
  for (unsigned K = 0; K < G.Nodes.size(); ++K)
    OS << "  F" << K << " Lambda=" << mapString(G.Nodes[K].Lambda, Bits) << " " << G.Nodes[K].Label << ": "
       << polly::stringFromIslObj(G.Nodes[K].instances()) << "\n";
  OS << "LSG edges:";
  bool Any = false;
  for (unsigned U = 0; U < G.Graph.size(); ++U)
    for (unsigned V : G.Graph.Succ[U]) {
      OS << " F" << U << "->F" << V;
      Any = true;
    }
  OS << (Any ? "\n" : " none\n");
  OS << "Hamming order:";
  for (unsigned K : G.Order)
    OS << " F" << K;
  OS << "\ntotal Hamming distance: " << totalHamming(G.Graph, G.Order) << " (original order "
     << totalHamming(G.Graph, topologicalOrder(G.Graph)) << ")\n";
}

} // namespace iopoly
