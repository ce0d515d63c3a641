//===- StatementInstances.cpp - How many times an access runs --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Analysis/StatementInstances.h"

#include "polly/CodePreparation.h"
#include "polly/ScopInfo.h"

#include "isl/ilp.h"
#include "isl/set.h"
#include "isl/val.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"

using namespace llvm;

namespace iopoly {

std::optional<InstanceCount> countDomainPoints(isl_set *Domain) {
  if (!Domain)
    return std::nullopt;
  isl_set *D = isl_set_copy(Domain);
  InstanceCount R{0, WeightSource::DomainCount};
  isl_size NP = isl_set_dim(D, isl_dim_param);
  if (NP < 0) {
    isl_set_free(D);
    return std::nullopt;
  }
  for (int P = 0; P < NP; ++P) {
    // A SCoP's domains share its parameters; most involve only some.
    isl_bool Involved = isl_set_involves_dims(D, isl_dim_param, P, 1);
    if (Involved == isl_bool_false)
      continue;
    R.Source = WeightSource::DomainParams;
    bool Fixed = false;
    for (int V : {static_cast<int>(RepresentativeCount), 1000, 10000, 10, 1, 0}) {
      isl_set *T = isl_set_fix_si(isl_set_copy(D), isl_dim_param, P, V);
      isl_bool Empty = isl_set_is_empty(T);
      if (Empty == isl_bool_false) {
        isl_set_free(D);
        D = T;
        Fixed = true;
        break;
      }
      isl_set_free(T);
      if (Empty == isl_bool_error)
        break;
    }
    if (!Fixed) {
      isl_set_free(D);
      return std::nullopt;
    }
  }
  D = isl_set_project_out(D, isl_dim_param, 0, NP);
  if (isl_set_is_empty(D) == isl_bool_true) {
    isl_set_free(D);
    return R;
  }
  if (isl_set_is_bounded(D) != isl_bool_true) {
    isl_set_free(D);
    return std::nullopt;
  }
  // The bounding box: its volume is the fallback, and the points of all
  // but the innermost dimension are what isl's count enumerates.
  isl_size N = isl_set_dim(D, isl_dim_set);
  double Box = 1, Outer = 1;
  for (int K = 0; K < N; ++K) {
    isl_val *Lo = isl_set_dim_min_val(isl_set_copy(D), K);
    isl_val *Hi = isl_set_dim_max_val(isl_set_copy(D), K);
    bool Ok = Lo && Hi && isl_val_is_int(Lo) && isl_val_is_int(Hi);
    double Extent = Ok ? isl_val_get_d(Hi) - isl_val_get_d(Lo) + 1 : 0;
    isl_val_free(Lo);
    isl_val_free(Hi);
    if (!Ok || Extent < 1) {
      isl_set_free(D);
      return std::nullopt;
    }
    Box *= Extent;
    if (K + 1 < N)
      Outer *= Extent;
  }
  if (Outer <= MaxEnumeratedPoints) {
    isl_val *C = isl_set_count_val(D);
    bool Ok = C && isl_val_is_int(C);
    if (Ok)
      R.Count = isl_val_get_d(C);
    isl_val_free(C);
    isl_set_free(D);
    if (!Ok)
      return std::nullopt;
    return R;
  }
  isl_set_free(D);
  R.Count = Box;
  R.Source = WeightSource::DomainBox;
  return R;
}

double loopTrips(Loop &L, const BasicBlock &At, ScalarEvolution &SE) {
  unsigned T = SE.getSmallConstantTripCount(&L);
  // The maximum of a count that varies (a triangular loop's); a bound
  // unknown at compile time leaves only its type's range as maximum,
  // which says nothing about the run.
  if (!T) {
    unsigned Max = SE.getSmallConstantMaxTripCount(&L);
    T = Max < (1u << 30) ? Max : 0;
  }
  // Counted at the exit test: in a loop not yet rotated (the layout pass
  // runs early) the test is in the header, which runs once more than the body.
  if (T > 1 && L.getExitingBlock() == L.getHeader() && &At != L.getHeader())
    --T;
  return T ? static_cast<double>(T) : RepresentativeCount;
}

void domainInstanceCounts(Function &F, FunctionAnalysisManager &FAM,
                          const SmallPtrSetImpl<const Instruction *> &Wanted,
                          DenseMap<const Instruction *, InstanceCount> &Out) {
  // As in Polly's own pipeline: the entry block split off, so that loops
  // starting right after it are not refused as "containing the function
  // entry" (SimplifyCFG merges the blocks again later).
  FAM.invalidate(F, polly::CodePreparationPass().run(F, FAM));
  auto &SI = FAM.getResult<polly::ScopInfoAnalysis>(F);
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  for (auto &Entry : SI) {
    polly::Scop *S = Entry.second.get();
    if (!S)
      continue;
    for (polly::ScopStmt &Stmt : *S) {
      std::optional<InstanceCount> Count;
      bool Counted = false;
      for (polly::MemoryAccess *MA : Stmt) {
        Instruction *I = MA->getAccessInstruction();
        if (!MA->isOriginalArrayKind() || !I || !Wanted.count(I))
          continue;
        if (!Counted) {
          isl::set Domain = Stmt.getDomain();
          Count = countDomainPoints(Domain.get());
          Counted = true;
        }
        if (!Count)
          continue;
        InstanceCount C = *Count;
        // Loops around the SCoP (in this function) multiply its instances.
        for (Loop *L = LI.getLoopFor(I->getParent()); L; L = L->getParentLoop())
          if (!S->contains(L))
            C.Count *= loopTrips(*L, *I->getParent(), SE);
        Out[I] = C;
      }
    }
  }
}

} // namespace iopoly
