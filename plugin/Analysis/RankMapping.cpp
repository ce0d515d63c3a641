//===- RankMapping.cpp - Loops to distribute and their chunks --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Analysis/RankMapping.h"
#include "Analysis/LocalitySets.h"
#include "Polly/ElementSizeGuard.h"
#include "Support/DiskResidentRegistry.h"
#include "Support/Options.h"
#include "Support/RuntimeABI.h"

#include "mpi/Topology.h"

#include "polly/DependenceInfo.h"
#include "polly/ScopInfo.h"
#include "polly/Support/GICHelper.h"
#include "polly/Support/ISLTools.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>

#define DEBUG_TYPE "iopoly"

using namespace llvm;

STATISTIC(NumLoopsPlanned, "Loops planned for distribution over MPI ranks");

namespace iopoly {

std::map<const BasicBlock *, DistPlan> &distPlans() {
  static std::map<const BasicBlock *, DistPlan> Plans;
  return Plans;
}

bool markedForDistribution(const Loop *L) {
  MDNode *ID = L->getLoopID();
  if (!ID)
    return false;
  for (const MDOperand &Op : ID->operands())
    if (auto *N = dyn_cast<MDNode>(Op.get()))
      if (N->getNumOperands() >= 1)
        if (auto *S = dyn_cast<MDString>(N->getOperand(0)))
          if (S->getString() == DistributeMD)
            return true;
  return false;
}

namespace {

/// Byte offset of an element in the row-major layout, or "" on success.
std::string byteOf(const polly::ScopArrayInfo *SAI, isl::aff &Out) {
  isl::local_space LS(SAI->getSpace());
  unsigned N = SAI->getNumberOfDimensions();
  std::vector<int64_t> Stride(N, 1);
  for (unsigned D = N; D-- > 1;) {
    auto *C = dyn_cast_or_null<SCEVConstant>(SAI->getDimensionSize(D));
    if (!C)
      return "array '" + userArrayName(SAI) + "' has a dimension of unknown size";
    Stride[D - 1] = Stride[D] * C->getAPInt().getSExtValue();
  }
  isl::aff Byte = isl::manage(isl_aff_zero_on_domain(LS.copy()));
  for (unsigned D = 0; D < N; ++D)
    Byte = Byte.add(isl::aff::var_on_domain(LS, isl::dim::set, D).scale(Stride[D] * SAI->getElemSizeInBytes()));
  Out = Byte;
  return "";
}

/// Bytes of the array the SCoP can touch: a global's size, else (an
/// allocated array, whose size the SCoP does not see) one past the last
/// byte any access of the SCoP reaches; 0 if that is not bounded.
uint64_t arrayBytes(polly::Scop &S, const polly::ScopArrayInfo *SAI, const isl::aff &Byte) {
  if (auto *G = dyn_cast<GlobalVariable>(SAI->getBasePtr()->stripPointerCasts()))
    return G->getParent()->getDataLayout().getTypeAllocSize(G->getValueType());
  isl::set Touched = isl::set::empty(SAI->getSpace());
  for (polly::ScopStmt &Stmt : S)
    for (polly::MemoryAccess *MA : Stmt)
      if (MA->isLatestArrayKind() && MA->getLatestScopArrayInfo() == SAI)
        Touched = Touched.unite(MA->getLatestAccessRelation().intersect_domain(Stmt.getDomain()).range());
  if (Touched.is_empty())
    return 0;
  isl::set Offsets = Touched.apply(isl::map::from_aff(Byte)).project_out_all_params();
  isl::val Last = Offsets.dim_max_val(0);
  if (!Last.is_int() || Last.is_neg())
    return 0;
  return static_cast<uint64_t>(Last.get_num_si()) + SAI->getElemSizeInBytes();
}

/// The parts of the SCoP distributed separately: each child of its
/// top-level sequence (a loop nest), or the whole SCoP.
std::vector<isl::schedule_node> regions(polly::Scop &S) {
  isl::schedule_node Top = S.getScheduleTree().get_root();
  if (Top.has_children())
    Top = Top.child(0);
  std::vector<isl::schedule_node> Out;
  if (Top.isa<isl::schedule_node_sequence>()) {
    for (unsigned K = 0; K < unsignedFromIslSize(Top.n_children()); ++K)
      Out.push_back(Top.child(static_cast<int>(K)));
  } else {
    Out.push_back(Top);
  }
  return Out;
}

/// The first band at or below \p N (through filters and marks).
isl::schedule_node firstBand(isl::schedule_node N) {
  while (!N.is_null() && !N.isa<isl::schedule_node_band>()) {
    if (!N.has_children() || N.isa<isl::schedule_node_sequence>() || N.isa<isl::schedule_node_set>())
      return {};
    N = N.child(0);
  }
  return N;
}

DebugLoc locOf(const Loop *L) {
  if (DebugLoc D = L->getStartLoc())
    return D;
  for (const BasicBlock *BB : L->blocks())
    for (const Instruction &I : *BB)
      if (I.getDebugLoc())
        return I.getDebugLoc();
  return {};
}

std::string whereOf(const Loop *L, const Function &F) {
  if (DebugLoc D = locOf(L))
    if (auto *Scope = dyn_cast<DIScope>(D.getScope()))
      return (Scope->getFilename() + ":" + Twine(D.getLine())).str();
  // Without debug information: the function and the loop's place among its
  // loops in program order.
  unsigned K = 0, Index = 0;
  for (const BasicBlock &BB : F) {
    ++K;
    if (&BB == L->getHeader())
      Index = K;
  }
  return (F.getName() + " (loop at block " + Twine(Index) + ", depth " + Twine(L->getLoopDepth()) + ")").str();
}

struct Analyzer {
  polly::Scop &S;
  isl::union_map Deps;
  MappingOptions O;
  uint64_t Stripe;
  OptimizationRemarkEmitter ORE;
  std::map<const polly::ScopArrayInfo *, std::pair<isl::map, uint64_t>> ChunkOf; ///< element -> [chunk], first chunk
  uint64_t DataChunks = 0;
  std::string Arrays;

  Analyzer(polly::Scop &S, const isl::union_map &Deps)
      : S(S), Deps(Deps), O(mappingOptions()), Stripe(assumedStripe()), ORE(&S.getFunction()) {}

  void missed(const Loop *L, const std::string &Why) {
    ORE.emit([&] {
      return OptimizationRemarkMissed(DEBUG_TYPE, "NotDistributed", locOf(L), L->getHeader())
             << "loop not distributed over the MPI ranks: " << Why;
    });
  }

  /// element -> data chunk for every disk-resident array of the SCoP.
  std::string chunks() {
    uint64_t CS = O.ChunkBytes ? O.ChunkBytes : Stripe;
    isl::ctx Ctx = S.getIslCtx();
    for (const polly::ScopArrayInfo *SAI : S.arrays()) {
      if (!SAI->isArrayKind() || !isDiskResidentBase(SAI->getBasePtr()))
        continue;
      isl::aff Byte;
      if (std::string Why = byteOf(SAI, Byte); !Why.empty())
        return Why;
      uint64_t Bytes = arrayBytes(S, SAI, Byte);
      if (!Bytes)
        return "the part of disk-resident array '" + userArrayName(SAI) +
               "' the loops touch is not known at compile time (its bounds depend on run-time values)";
      isl::aff C = Byte.scale_down(isl::val(Ctx, static_cast<long>(CS))).floor().add_constant(
          isl::val(Ctx, static_cast<long>(DataChunks)));
      ChunkOf[SAI] = {isl::manage(isl_map_from_aff(C.release())), DataChunks};
      DataChunks += (Bytes + CS - 1) / CS;
      Arrays += (Arrays.empty() ? "'" : ", '") + userArrayName(SAI) + "'";
    }
    if (ChunkOf.empty())
      return "it accesses no disk-resident array";
    if (DataChunks > 1000000)
      return "more than a million data chunks (raise -fplugin-arg-iopoly-map-chunk)";
    return "";
  }

  /// The loop of band member \p M, if every statement of the band agrees.
  Loop *loopOf(const isl::union_set &Dom, unsigned M) {
    Loop *L = nullptr;
    for (polly::ScopStmt &Stmt : S) {
      if (Dom.extract_set(Stmt.getDomainSpace()).is_empty())
        continue;
      if (M >= Stmt.getNumIterators())
        return nullptr;
      Loop *SL = Stmt.getLoopForDimension(M);
      if (!SL || (L && SL != L))
        return nullptr;
      L = SL;
    }
    return L;
  }

  /// Whether the band's member \p M is the iteration of its loop (the
  /// statement's domain dimension \p M), for every statement.
  bool isIdentity(const isl::union_map &P, unsigned M) {
    bool Ok = true;
    P.foreach_map([&](isl::map Map) {
      isl::space Sp = Map.get_space();
      isl::map Want = isl::map::universe(Sp);
      Want = Want.equate(isl::dim::in, M, isl::dim::out, 0);
      Ok &= Map.is_subset(Want);
      return isl::stat::ok();
    });
    return Ok;
  }

  /// Whether the dependences inside the region that members 0..M-1 do not
  /// carry all have distance 0 in member M.
  bool parallel(const isl::multi_union_pw_aff &Prefix, unsigned M, const isl::union_set &Dom) {
    isl::union_map D = Deps.intersect_domain(Dom).intersect_range(Dom);
    if (D.is_empty())
      return true;
    isl::union_map P = isl::union_map::from(Prefix);
    isl::union_set Delta = D.apply_domain(P).apply_range(P).deltas();
    bool Carried = false;
    Delta.foreach_set([&](isl::set Set) {
      for (unsigned K = 0; K < M; ++K)
        Set = Set.fix_si(isl::dim::set, K, 0);
      isl::set Zero = Set.fix_si(isl::dim::set, M, 0);
      Carried |= !Set.subtract(Zero).is_empty();
      return isl::stat::ok();
    });
    return !Carried;
  }

  /// M: [i] -> [data chunk] through member \p P (instance -> [i]).
  std::string tagMap(const isl::union_map &P, const isl::union_set &Dom, isl::map &Out) {
    isl::union_map All = isl::union_map::empty(S.getIslCtx());
    for (polly::ScopStmt &Stmt : S) {
      isl::set D = Dom.extract_set(Stmt.getDomainSpace());
      if (D.is_empty())
        continue;
      for (polly::MemoryAccess *MA : Stmt) {
        if (!MA->isLatestArrayKind())
          continue;
        auto It = ChunkOf.find(MA->getLatestScopArrayInfo());
        if (It == ChunkOf.end())
          continue;
        isl::map A = MA->getLatestAccessRelation().intersect_domain(D).apply_range(It->second.first);
        All = All.unite(isl::union_map(A));
      }
    }
    isl::union_map M = P.reverse().apply_range(All);
    if (M.is_empty())
      return "no access of its iterations touches a disk-resident array";
    isl::map Single;
    std::string Why;
    M.foreach_map([&](isl::map Map) {
      Map = Map.project_out_all_params();
      Single = Single.is_null() ? Map : Single.unite(Map);
      return isl::stat::ok();
    });
    Out = Single;
    return "";
  }

  /// The iteration chunks of M over iterations [0, N).
  std::string iterationChunks(const isl::map &M, int64_t N, std::vector<IterChunk> &Out) {
    // Interval end points of every data chunk's iterations.
    std::map<int64_t, std::vector<std::pair<uint32_t, int>>> Events; // i -> (chunk, +1/-1)
    std::string Why;
    M.range().foreach_point([&](isl::point Pt) {
      long C = Pt.get_coordinate_val(isl::dim::set, 0).get_num_si();
      isl::set Pre = M.intersect_range(isl::set(Pt)).domain().coalesce();
      Pre.foreach_basic_set([&](isl::basic_set B) {
        isl::val Lo = B.dim_min_val(0), Hi = B.dim_max_val(0);
        if (!Lo.is_int() || !Hi.is_int()) {
          Why = "the iterations touching a data chunk are not bounded";
          return isl::stat::error();
        }
        long L = Lo.get_num_si(), H = Hi.get_num_si();
        isl::set Box(S.getIslCtx(), "{ [i] : " + std::to_string(L) + " <= i <= " + std::to_string(H) + " }");
        if (!isl::set(B).is_equal(Box)) {
          Why = "the iterations touching a data chunk do not form intervals (strided accesses)";
          return isl::stat::error();
        }
        Events[L].push_back({static_cast<uint32_t>(C), +1});
        Events[H + 1].push_back({static_cast<uint32_t>(C), -1});
        return isl::stat::ok();
      });
      return Why.empty() ? isl::stat::ok() : isl::stat::error();
    });
    if (!Why.empty())
      return Why;
    // Sweep: the active chunks between consecutive end points form a tag.
    std::map<uint32_t, int> Active;
    std::map<std::vector<uint32_t>, size_t> ByTag;
    int64_t Prev = 0;
    auto Emit = [&](int64_t From, int64_t To) {
      if (From >= To)
        return;
      std::vector<uint32_t> Tag;
      for (const auto &KV : Active)
        if (KV.second > 0)
          Tag.push_back(KV.first);
      auto It = ByTag.find(Tag);
      if (It == ByTag.end()) {
        It = ByTag.emplace(Tag, Out.size()).first;
        Out.push_back({Tag, {}});
      }
      std::vector<Piece> &Ps = Out[It->second].Pieces;
      if (!Ps.empty() && Ps.back().second == From)
        Ps.back().second = To;
      else
        Ps.push_back({From, To});
    };
    for (auto &E : Events) {
      Emit(std::max<int64_t>(Prev, 0), std::min(E.first, N));
      for (auto [C, D] : E.second)
        Active[C] += D;
      Prev = E.first;
    }
    Emit(std::max<int64_t>(Prev, 0), N);
    return "";
  }

  /// Whether a band in the subtree of \p N (its members at schedule depth
  /// \p Depth and below) is the loop of a '#pragma iopoly distribute'.
  bool markedIn(const isl::schedule_node &N, unsigned Depth) {
    if (N.is_null())
      return false;
    if (N.isa<isl::schedule_node_band>()) {
      unsigned K = unsignedFromIslSize(N.as<isl::schedule_node_band>().n_member());
      for (unsigned M = 0; M < K; ++M)
        if (Loop *L = loopOf(N.get_domain(), Depth + M); L && markedForDistribution(L))
          return true;
      return N.has_children() && markedIn(N.child(0), Depth + K);
    }
    for (unsigned C = 0; N.has_children() && C < unsignedFromIslSize(N.n_children()); ++C)
      if (markedIn(N.child(static_cast<int>(C)), Depth))
        return true;
    return false;
  }

  /// The schedule of members 0..M after \p Outer.
  static isl::multi_union_pw_aff prefix(const isl::multi_union_pw_aff &Outer,
                                        const std::vector<isl::union_pw_aff> &Members, unsigned M) {
    isl::multi_union_pw_aff P = Outer;
    for (unsigned K = 0; K <= M; ++K) {
      isl::multi_union_pw_aff One(Members[K]);
      P = P.is_null() ? One : P.flat_range_product(One);
    }
    return P;
  }

  /// "" if every execution of the loop (the last member of \p Prefix) runs
  /// all of [0, N): its pieces replace its bounds, so a loop whose bounds
  /// follow an enclosing loop's value (a triangle) cannot be distributed.
  static std::string sameIterationsEveryTime(const isl::multi_union_pw_aff &Prefix, const isl::union_set &Dom,
                                             int64_t N) {
    isl::set Runs;
    isl::union_map::from(Prefix).intersect_domain(Dom).range().foreach_set([&](isl::set X) {
      Runs = Runs.is_null() ? X : Runs.unite(X);
      return isl::stat::ok();
    });
    if (Runs.is_null())
      return "";
    Runs = Runs.project_out_all_params();
    unsigned Last = unsignedFromIslSize(Runs.tuple_dim()) - 1;
    if (Last == 0)
      return "";
    isl::set Full = Runs.project_out(isl::dim::set, Last, 1).insert_dims(isl::dim::set, Last, 1);
    Full = Full.lower_bound_si(isl::dim::set, Last, 0);
    Full = isl::manage(isl_set_upper_bound_val(Full.release(), isl_dim_set, Last,
                                               isl::val(Runs.ctx(), static_cast<long>(N - 1)).release()));
    if (!Full.is_subset(Runs))
      return "its iterations depend on an enclosing loop's value (its bounds are not the same in every execution)";
    return "";
  }

  /// The loop nest at \p R: the marked loop, or the outermost loop of the
  /// perfectly nested bands at \p R that carries no dependence; when every
  /// one carries one (a time loop), the nests inside them, each on its own
  /// (\p Outer: the schedule of the enclosing loops, \p Offset of them).
  void region(const isl::schedule_node &R, const isl::multi_union_pw_aff &Outer = {}, unsigned Offset = 0) {
    isl::schedule_node B = firstBand(R);
    if (B.is_null())
      return;
    isl::union_set Dom = B.get_domain();
    // Polly gives every loop a band of its own: follow the chain of bands.
    std::vector<isl::union_pw_aff> Members;
    std::vector<isl::union_set> Doms; ///< the statements inside each member's loop
    isl::schedule_node After = B;
    while (!After.is_null() && After.isa<isl::schedule_node_band>()) {
      isl::multi_union_pw_aff P = After.as<isl::schedule_node_band>().get_partial_schedule();
      for (unsigned K = 0; K < unsignedFromIslSize(After.as<isl::schedule_node_band>().n_member()); ++K) {
        Members.push_back(P.at(static_cast<int>(K)));
        Doms.push_back(After.get_domain());
      }
      After = After.has_children() ? After.child(0) : isl::schedule_node();
      while (!After.is_null() && (After.isa<isl::schedule_node_mark>() || After.isa<isl::schedule_node_filter>()))
        After = After.has_children() ? After.child(0) : isl::schedule_node();
    }
    unsigned NM = static_cast<unsigned>(Members.size());
    int Pick = -1;
    Loop *Marked = nullptr, *Top = loopOf(Dom, Offset);
    for (unsigned M = 0; M < NM; ++M)
      if (Loop *L = loopOf(Doms[M], Offset + M); L && markedForDistribution(L))
        Marked = L, Pick = static_cast<int>(M);
    if (Pick >= 0 && !parallel(prefix(Outer, Members, static_cast<unsigned>(Pick)), Offset + Pick, Doms[Pick])) {
      missed(Marked, "it is marked '#pragma iopoly distribute' but carries a dependence (Polly's dependence "
                     "analysis); distributing it would change the results");
      return;
    }
    // A loop marked deeper (inside a sequence below these loops) wins over
    // the outermost parallel one here.
    bool MarkedBelow = Pick < 0 && !After.is_null() && markedIn(After, Offset + NM);
    for (unsigned M = 0; Pick < 0 && !MarkedBelow && M < NM; ++M)
      if (parallel(prefix(Outer, Members, M), Offset + M, Doms[M]))
        Pick = static_cast<int>(M);
    if (Pick < 0) {
      // Inside loops that carry dependences: the nests they contain.
      size_t Before = distPlans().size();
      if (!After.is_null() && (After.isa<isl::schedule_node_sequence>() || After.isa<isl::schedule_node_set>()))
        for (unsigned K = 0; K < unsignedFromIslSize(After.n_children()); ++K)
          region(After.child(static_cast<int>(K)), prefix(Outer, Members, NM - 1), Offset + NM);
      if (distPlans().size() > Before)
        return;
      if (mappingPrint())
        errs() << "iopoly mapping: no parallel loop; dependences of the nest: "
               << polly::stringFromIslObj(Deps.intersect_domain(Dom).intersect_range(Dom)) << "\n";
      if (Top && Offset == 0)
        missed(Top, "every loop of the nest carries a dependence (Polly's dependence analysis)");
      return;
    }
    unsigned M = Offset + static_cast<unsigned>(Pick);
    Dom = Doms[static_cast<size_t>(Pick)];
    Loop *L = loopOf(Dom, M);
    if (!L)
      return;
    isl::union_map P = isl::union_map::from(isl::multi_union_pw_aff(Members[static_cast<size_t>(Pick)]));
    if (!isIdentity(P, M))
      return missed(L, "its schedule is not the loop's own iteration");
    isl::union_set Iters = P.intersect_domain(Dom).range();
    isl::set I;
    Iters.foreach_set([&](isl::set X) {
      I = I.is_null() ? X : I.unite(X);
      return isl::stat::ok();
    });
    I = I.project_out_all_params();
    isl::val Lo = I.dim_min_val(0), Hi = I.dim_max_val(0);
    if (!Lo.is_int() || !Hi.is_int() || Lo.get_num_si() != 0)
      return missed(L, "its iteration count is not a compile-time constant (the mapping tables need constant bounds)");
    if (!I.params().is_equal(isl::set::universe(I.params().get_space())) || S.getNumParams() != 0) {
      isl::set Box(S.getIslCtx(), "{ [i] : 0 <= i <= " + std::to_string(Hi.get_num_si()) + " }");
      if (!I.is_equal(Box))
        return missed(L, "its iterations depend on parameters (the mapping tables need constant bounds)");
    }
    int64_t N = Hi.get_num_si() + 1;
    if (std::string Why = sameIterationsEveryTime(prefix(Outer, Members, static_cast<unsigned>(Pick)), Dom, N);
        !Why.empty())
      return missed(L, Why);
    isl::map Tags;
    if (std::string Why = tagMap(P, Dom, Tags); !Why.empty())
      return missed(L, Why);
    DistPlan Plan;
    if (std::string Why = iterationChunks(Tags, N, Plan.Chunks); !Why.empty())
      return missed(L, Why);
    Plan.Chunks = coarsen(std::move(Plan.Chunks), O.MaxChunks);
    Plan.Where = whereOf(L, S.getFunction());
    Plan.Iterations = N;
    Plan.DataChunks = DataChunks;
    Plan.ChunkBytes = O.ChunkBytes ? O.ChunkBytes : Stripe;
    Plan.Arrays = Arrays;
    Plan.FromPragma = Marked == L;
    Plan.Depth = M;
    if (!O.Topology.empty()) {
      Topology T;
      if (loadTopology(O.Topology, T).empty()) {
        MapTree Tree = MapTree::fromTopology(T);
        MapOptions MO;
        MO.Kind = static_cast<MapKind>(O.Kind);
        MO.Local = O.Local;
        MO.BThres = O.BThresPercent / 100.0;
        MO.Alpha = O.AlphaPercent / 100.0;
        MO.Beta = O.BetaPercent / 100.0;
        Plan.Table = mapIterations(Plan.Chunks, N, Tree, MO, &Plan.Report);
        Plan.TableRanks = Tree.numRanks();
        Plan.Signature = Tree.signature();
        MapOptions Block = MO;
        Block.Kind = MapKind::Block;
        mapIterations(Plan.Chunks, N, Tree, Block, &Plan.BlockReport);
      }
    }
    if (mappingPrint()) {
      errs() << "iopoly mapping of loop " << Plan.Where << " (depth " << M << "): " << N << " iterations, "
             << Plan.Chunks.size() << " iteration chunks over " << DataChunks << " data chunks of " << Plan.ChunkBytes
             << " bytes (" << Arrays << ")\n";
      for (size_t C = 0; C < Plan.Chunks.size(); ++C) {
        errs() << "  chunk " << C << " tag {";
        for (size_t K = 0; K < Plan.Chunks[C].Tag.size(); ++K)
          errs() << (K ? "," : "") << Plan.Chunks[C].Tag[K];
        errs() << "} iterations";
        for (const Piece &Pc : Plan.Chunks[C].Pieces)
          errs() << " [" << Pc.first << "," << Pc.second << ")";
        errs() << "\n";
      }
      for (size_t R = 0; R < Plan.Table.size(); ++R) {
        errs() << "  rank " << R << ":";
        for (const Piece &Pc : Plan.Table[R])
          errs() << " [" << Pc.first << "," << Pc.second << ")";
        errs() << "\n";
      }
    }
    distPlans()[L->getHeader()] = std::move(Plan);
    ++NumLoopsPlanned;
  }
};

} // namespace

PreservedAnalyses RankMappingPass::run(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                                       polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &) {
  if (scopIsLeftAlone(S))
    return PreservedAnalyses::all();
  const polly::Dependences &D =
      SAM.getResult<polly::DependenceAnalysis>(S, SAR).getDependences(polly::Dependences::AL_Statement);
  Analyzer A(S, isl::union_map());
  if (!D.hasValidDependences())
    return PreservedAnalyses::all();
  // Every flow and anti dependence; output dependences on arrays only. A
  // scalar written in every iteration and read in none (Polly's PHI writes
  // for the code after the loop) is not an order between iterations; a
  // value that leaves the loop is refused by the rewrite itself.
  A.Deps = D.getDependences(polly::Dependences::TYPE_RAW | polly::Dependences::TYPE_WAR |
                            polly::Dependences::TYPE_RED);
  const polly::Dependences &DR =
      SAM.getResult<polly::DependenceAnalysis>(S, SAR).getDependences(polly::Dependences::AL_Reference);
  DR.getDependences(polly::Dependences::TYPE_WAW).foreach_map([&](isl::map M) {
    isl::space Dom = M.get_space().domain();
    if (!Dom.is_wrapping()) // the statement-level copy of a tagged one
      return isl::stat::ok();
    isl::space Ref = Dom.unwrap();
    const polly::ScopArrayInfo *SAI =
        Ref.has_tuple_id(isl::dim::out) ? polly::ScopArrayInfo::getFromId(Ref.get_tuple_id(isl::dim::out)) : nullptr;
    if (!SAI || SAI->isArrayKind())
      A.Deps = A.Deps.unite(isl::union_map(M.domain_factor_domain().range_factor_domain()));
    return isl::stat::ok();
  });
  if (std::string Why = A.chunks(); !Why.empty()) {
    if (Why != "it accesses no disk-resident array")
      for (const isl::schedule_node &R : regions(S))
        if (isl::schedule_node B = firstBand(R); !B.is_null()) // a statement outside loops has none
          if (Loop *L = A.loopOf(B.get_domain(), 0))
            A.missed(L, Why);
    return PreservedAnalyses::all();
  }
  for (const isl::schedule_node &R : regions(S))
    A.region(R);
  return PreservedAnalyses::all();
}

} // namespace iopoly
