//===- ScalarExpansion.cpp - Loop-carried scalars given one element per iteration ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/ScalarExpansion.h"
#include "Analysis/ScopParams.h"
#include "Polly/ElementSizeGuard.h"
#include "Support/Options.h"

#include "polly/ScopInfo.h"
#include "polly/Support/GICHelper.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DiagnosticInfo.h"

#include "isl/aff.h"
#include "isl/flow.h"
#include "isl/local_space.h"
#include "isl/map.h"
#include "isl/set.h"
#include "isl/space.h"
#include "isl/union_map.h"
#include "isl/val.h"

#include <string>
#include <vector>

#define DEBUG_TYPE "iopoly"

using namespace llvm;

STATISTIC(NumScalarsExpanded, "Loop-carried scalars expanded into arrays");

namespace iopoly {

namespace {

/// The memory the copies may take: a row or a plane of the loops around the
/// scalar, not a copy of the data (the buffer is the program's memory).
constexpr uint64_t MaxExpandedBytes = 8ULL << 20;
/// Smaller arrays go on the stack (Polly allocates them in the function's
/// entry block), larger ones on the heap for the SCoP's run.
constexpr uint64_t MaxStackBytes = 64ULL << 10;

/// Every access to one scalar (a PHI or a value Polly passes between
/// statements).
using ScalarAccesses = std::vector<polly::MemoryAccess *>;

/// Where the values read come from, in the SCoP's current (original)
/// schedule: source instance -> sink instance. Null when isl fails.
/// \p NoSource gets the reads that no write of the SCoP reaches.
isl::union_map dataflow(const isl::union_map &Reads, const isl::union_map &Writes, const isl::schedule &Sched,
                        isl::union_map &NoSource) {
  isl_union_access_info *AI = isl_union_access_info_from_sink(Reads.copy());
  AI = isl_union_access_info_set_must_source(AI, Writes.copy());
  AI = isl_union_access_info_set_schedule(AI, Sched.copy());
  isl_union_flow *F = isl_union_access_info_compute_flow(AI);
  if (!F)
    return {};
  isl::union_map Dep = isl::manage(isl_union_flow_get_may_dependence(F));
  NoSource = isl::manage(isl_union_flow_get_may_no_source(F));
  isl_union_flow_free(F);
  return Dep;
}

/// The reads and the writes of \p Accs, each with its statement's domain,
/// under the relation \p Rel gives each access.
template <typename RelFn>
void accessMaps(const ScalarAccesses &Accs, RelFn Rel, isl::union_map &Reads, isl::union_map &Writes) {
  for (polly::MemoryAccess *MA : Accs) {
    isl::map M = Rel(MA).intersect_domain(MA->getStatement()->getDomain());
    isl::union_map &To = MA->isRead() ? Reads : Writes;
    To = To.is_null() ? isl::union_map(M) : To.unite(M);
  }
}

/// { Stmt[x] -> T[x_d for d in Dims] }, T the set space \p Range.
isl::map expandedAccess(polly::ScopStmt &Stmt, const isl::space &Range, const std::vector<unsigned> &Dims) {
  isl::space Dom = Stmt.getDomainSpace();
  // The array's space has no parameters; the statement's has the SCoP's.
  isl_space *R = isl_space_align_params(Range.copy(), Dom.copy());
  isl_space *MS = isl_space_map_from_domain_and_range(Dom.copy(), R);
  isl_multi_aff *MAff = isl_multi_aff_zero(MS);
  isl_local_space *LS = isl_local_space_from_space(Dom.release());
  for (size_t K = 0; K < Dims.size(); ++K)
    MAff = isl_multi_aff_set_aff(MAff, static_cast<int>(K),
                                 isl_aff_var_on_domain(isl_local_space_copy(LS), isl_dim_set, Dims[K]));
  isl_local_space_free(LS);
  return isl::manage(isl_map_from_multi_aff(MAff));
}

/// The loops every accessing statement is inside, outermost first (the
/// leading dimensions of their domains).
unsigned commonLoops(const ScalarAccesses &Accs) {
  polly::ScopStmt *First = Accs.front()->getStatement();
  unsigned C = First->getNumIterators();
  for (polly::MemoryAccess *MA : Accs) {
    polly::ScopStmt *St = MA->getStatement();
    unsigned K = 0;
    while (K < C && K < St->getNumIterators() && St->getLoopForDimension(K) == First->getLoopForDimension(K))
      ++K;
    C = K;
  }
  return C;
}

/// Iterations of dimension \p Dim over every accessing statement, counted
/// from 0, when they are constants (0 otherwise).
uint64_t extentOf(polly::Scop &S, const ScalarAccesses &Accs, unsigned Dim) {
  isl::set Params = feasibleParams(S);
  long Hi = -1;
  for (polly::MemoryAccess *MA : Accs) {
    isl::set D = MA->getStatement()->getDomain();
    if (!Params.is_null())
      D = D.intersect_params(Params);
    D = D.project_out_all_params();
    if (D.is_empty())
      continue;
    long Lo, H;
    if (!smallInt(isl::manage(isl_set_dim_min_val(D.copy(), static_cast<int>(Dim))), Lo) ||
        !smallInt(isl::manage(isl_set_dim_max_val(D.copy(), static_cast<int>(Dim))), H) || Lo < 0)
      return 0;
    Hi = std::max(Hi, H);
  }
  return Hi < 0 ? 0 : static_cast<uint64_t>(Hi) + 1;
}

/// Why the scalar is left alone, or "" when it may be expanded at all.
std::string cannotExpand(polly::Scop &S, const polly::ScopArrayInfo *SAI, const ScalarAccesses &Accs) {
  if (!SAI->isPHIKind() && !SAI->isValueKind())
    return "not a loop-carried scalar";
  auto *I = dyn_cast_or_null<Instruction>(SAI->getBasePtr());
  if (!I)
    return "defined before the loops";
  // Its last value is used after the loops: Polly passes it through the
  // scalar's own slot.
  for (const User *U : I->users())
    if (auto *UI = dyn_cast<Instruction>(U); UI && !S.contains(UI))
      return "used after the loops";
  for (polly::MemoryAccess *MA : Accs) {
    if (!MA->isLatestScalarKind())
      return "already mapped to memory";
    if (MA->isMayWrite() || MA->getStatement()->isRegionStmt())
      return "written under a condition Polly could not model";
  }
  return "";
}

} // namespace

PreservedAnalyses ScalarExpansionPass::run(polly::Scop &S, polly::ScopAnalysisManager &,
                                           polly::ScopStandardAnalysisResults &, polly::SPMUpdater &) {
  if (!expandScalars() || scopIsLeftAlone(S))
    return PreservedAnalyses::all();
  MapVector<const polly::ScopArrayInfo *, ScalarAccesses> Scalars;
  for (polly::ScopStmt &Stmt : S)
    for (polly::MemoryAccess *MA : Stmt)
      if (MA->isOriginalScalarKind())
        Scalars[MA->getOriginalScopArrayInfo()].push_back(MA);
  isl::schedule Sched = S.getScheduleTree();
  // Per outermost loop of the copies: scalars expanded, bytes (one remark
  // per loop).
  MapVector<Loop *, std::pair<unsigned, uint64_t>> ByLoop;
  for (auto &[SAI, Accs] : Scalars) {
    if (!cannotExpand(S, SAI, Accs).empty())
      continue;
    bool Written = false;
    for (polly::MemoryAccess *MA : Accs)
      Written |= MA->isWrite();
    unsigned C = commonLoops(Accs);
    if (!Written || !C)
      continue;
    isl::union_map OldReads, OldWrites, OldNoSource;
    accessMaps(Accs, [](polly::MemoryAccess *MA) { return MA->getLatestAccessRelation(); }, OldReads, OldWrites);
    if (OldReads.is_null() || OldWrites.is_null())
      continue;
    isl::union_map OldFlow = dataflow(OldReads, OldWrites, Sched, OldNoSource);
    // A read that sees a value from before the loops would find the new
    // array uninitialised.
    if (OldFlow.is_null() || !OldNoSource.is_empty())
      continue;
    // One copy per iteration of the common loops but the outermost (the
    // loop the others run inside, usually kept outermost: a row of copies,
    // not a plane); failing that, of all of them.
    std::vector<std::vector<unsigned>> Choices;
    if (C >= 2) {
      std::vector<unsigned> Inner;
      for (unsigned D = 1; D < C; ++D)
        Inner.push_back(D);
      Choices.push_back(Inner);
    }
    std::vector<unsigned> All;
    for (unsigned D = 0; D < C; ++D)
      All.push_back(D);
    Choices.push_back(All);
    for (const std::vector<unsigned> &Dims : Choices) {
      std::vector<unsigned> Sizes;
      uint64_t Elems = 1;
      for (unsigned D : Dims) {
        uint64_t E = extentOf(S, Accs, D);
        if (!E || E > (1u << 30)) {
          Elems = 0;
          break;
        }
        Sizes.push_back(static_cast<unsigned>(E));
        Elems *= E;
        if (Elems * SAI->getElemSizeInBytes() > MaxExpandedBytes)
          break;
      }
      uint64_t NewBytes = Elems * SAI->getElemSizeInBytes();
      if (!Elems || NewBytes > MaxExpandedBytes)
        continue;
      // Every read must still take its value from the same write (checked
      // on a stand-in space: Polly allocates every array it is given).
      isl::space Probe = isl::manage(isl_space_set_tuple_name(
          isl_space_set_alloc(S.getIslCtx().get(), 0, static_cast<unsigned>(Dims.size())), isl_dim_set,
          "iopoly_expansion_check"));
      isl::union_map NewReads, NewWrites, NewNoSource;
      accessMaps(Accs, [&](polly::MemoryAccess *MA) { return expandedAccess(*MA->getStatement(), Probe, Dims); },
                 NewReads, NewWrites);
      isl::union_map NewFlow = dataflow(NewReads, NewWrites, Sched, NewNoSource);
      if (NewFlow.is_null() || !NewNoSource.is_empty() || !NewFlow.is_equal(OldFlow))
        continue;
      polly::ScopArrayInfo *T =
          S.createScopArrayInfo(SAI->getElementType(), "iopoly_expanded_" + SAI->getName(), Sizes);
      T->setIsOnHeap(NewBytes > MaxStackBytes);
      for (polly::MemoryAccess *MA : Accs)
        MA->setNewAccessRelation(expandedAccess(*MA->getStatement(), T->getSpace(), Dims));
      ++NumScalarsExpanded;
      std::pair<unsigned, uint64_t> &Sum = ByLoop[Accs.front()->getStatement()->getLoopForDimension(Dims.front())];
      ++Sum.first;
      Sum.second += NewBytes;
      break;
    }
  }
  if (ByLoop.empty())
    return PreservedAnalyses::all();
  OptimizationRemarkEmitter ORE(&S.getFunction());
  for (auto &Entry : ByLoop) {
    Loop *Around = Entry.first;
    unsigned Count = Entry.second.first;
    uint64_t Total = Entry.second.second;
    ORE.emit([&] {
      return OptimizationRemarkAnalysis(DEBUG_TYPE, "ScalarExpansion", Around ? Around->getStartLoc() : DebugLoc(),
                                        Around ? Around->getHeader() : S.getEntry())
             << "gave " << ore::NV("Scalars", Count)
             << (Count == 1 ? " scalar carried through these loops" : " scalars carried through these loops")
             << " one copy per iteration of this loop and those inside it that surround its uses ("
             << ore::NV("Bytes", Total) << " bytes in memory), so that the loops inside may be reordered; every "
             << "value is computed as before";
    });
  }
  // The access relations changed: Polly's dependences must be computed
  // again.
  return PreservedAnalyses::none();
}

} // namespace iopoly
