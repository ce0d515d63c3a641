//===- DataTiling.cpp - Buffer-sized data-centric tiling of a SCoP ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Analysis/DataTiling.h"
#include "Analysis/ScopParams.h"
#include "Analysis/SubscriptExtents.h"

#include "iopoly/tiling.h"
#include "TileChoice.h"

#include "polly/ScopInfo.h"
#include "polly/Support/GICHelper.h"
#include "polly/Support/ISLTools.h"

#include "llvm/Support/raw_ostream.h"

#include "isl/aff.h"
#include "isl/ilp.h"
#include "isl/map.h"
#include "isl/set.h"
#include "isl/union_map.h"

#include <algorithm>

using namespace llvm;

namespace iopoly {

namespace {

/// Tile coordinates of instances that touch no disk-resident array: before
/// every tile of their group, or after every one.
constexpr long Prologue = -1;
constexpr long Epilogue = 1L << 40;

isl::ctx ctxOf(const RegionTiling &R) { return R.Domain.ctx(); }

/// byte_A(access(x)) on the statement's instances.
isl::pw_aff byteOf(const DiskArray &A, const isl::map &Access) {
  return isl::pw_aff(A.Byte).pullback(Access.as_pw_multi_aff());
}

/// The unit of \p Byte: floor(byte / U), or the disk floor(byte / S) mod T.
isl::pw_aff unitOf(const isl::pw_aff &Byte, uint64_t Unit, const TilingOptions &O) {
  isl::ctx Ctx = Byte.ctx();
  if (O.DiskUnits)
    return Byte.scale_down(isl::val(Ctx, static_cast<long>(O.Stripe))).floor().mod(isl::val(Ctx, O.Disks));
  return Byte.scale_down(isl::val(Ctx, static_cast<long>(Unit))).floor();
}

isl::pw_aff constantOn(const isl::set &Dom, long V) {
  return isl::manage(isl_pw_aff_val_on_domain(Dom.copy(), isl_val_int_from_si(Dom.ctx().get(), V)));
}

/// \p T on \p Dom, and \p Fill where \p T is undefined (instances whose
/// access happens only under a condition): a band must place every
/// instance.
isl::pw_aff completeOn(const isl::pw_aff &T, const isl::set &Dom, long Fill) {
  isl::pw_aff In = T.intersect_domain(Dom);
  isl::set Rest = Dom.subtract(In.domain());
  if (Rest.is_empty())
    return In;
  return isl::manage(isl_pw_aff_union_add(In.release(), constantOn(Rest, Fill).release()));
}

/// The single-valued accesses of \p Stmt (restricted to \p Dom) to the
/// region's disk-resident arrays: (array index, relation), reads and
/// writes; writes first.
std::vector<std::pair<int, isl::map>> diskAccesses(polly::ScopStmt &Stmt, const isl::set &Dom,
                                                   const std::vector<DiskArray> &Arrays, bool &AllAffine) {
  std::vector<std::pair<int, isl::map>> W, R;
  AllAffine = true;
  for (polly::MemoryAccess *MA : Stmt) {
    if (!MA->isLatestArrayKind())
      continue;
    for (size_t K = 0; K < Arrays.size(); ++K) {
      if (Arrays[K].SAI != MA->getLatestScopArrayInfo())
        continue;
      // Whole relations: a statement split into families shares them.
      isl::map Rel = MA->getLatestAccessRelation();
      if (!Rel.intersect_domain(Dom).is_single_valued()) {
        AllAffine = false;
        continue;
      }
      (MA->isWrite() ? W : R).push_back({static_cast<int>(K), Rel});
    }
  }
  W.insert(W.end(), R.begin(), R.end());
  return W;
}

struct Box {
  bool Known = false;
  uint64_t Span = 0, Runs = 0, Run = 0;
};

/// The box of elements one key value touches, from { [key] -> A[a] }: the
/// largest difference of two elements with the same key, per subscript.
/// Sizes bounded only by their C type take their values from \p Nominal
/// (nominalParams).
Box boxOf(const isl::map &KeyToElem, const DiskArray &A, const isl::set &Nominal) {
  Box B;
  if (KeyToElem.is_null() || KeyToElem.is_empty())
    return B;
  unsigned N = static_cast<unsigned>(A.Stride.size());
  std::vector<uint64_t> Ext;
  isl::map KE = Nominal.is_null() ? KeyToElem : KeyToElem.intersect_params(Nominal);
  if (!subscriptExtents(KE.project_out_all_params(), N, Ext))
    return B;
  B.Known = true;
  B.Span = A.ElemBytes;
  for (unsigned D = 0; D < N; ++D)
    B.Span += (Ext[D] - 1) * A.Stride[D];
  // Inner subscripts that cover a whole row run on into the next one.
  unsigned J = N - 1;
  while (J > 0 && Ext[J] * A.Stride[J] >= A.Stride[J - 1])
    --J;
  B.Run = Ext[J] * A.Stride[J];
  B.Runs = 1;
  for (unsigned D = 0; D < J; ++D)
    B.Runs *= Ext[D];
  return B;
}

/// Number of values of a 1-D key over \p Keys (a union of 1-D sets), 0 if
/// unbounded; sizes bounded only by their C type at \p Nominal.
uint64_t countOf(const isl::union_set &Keys, const isl::set &Nominal) {
  if (Keys.is_null() || Keys.is_empty())
    return 0;
  isl::set K = isl::manage(isl_set_from_union_set(Keys.copy()));
  if (!Nominal.is_null())
    K = K.intersect_params(Nominal);
  K = K.project_out_all_params();
  if (K.is_null())
    return 0;
  isl::val Lo = isl::manage(isl_set_dim_min_val(K.copy(), 0));
  isl::val Hi = isl::manage(isl_set_dim_max_val(K.copy(), 0));
  if (Lo.is_null() || Hi.is_null() || !Lo.is_int() || !Hi.is_int())
    return 0;
  return static_cast<uint64_t>(Hi.get_num_si() - Lo.get_num_si() + 1);
}

/// { key -> elements of Arrays[A] } for the instances of \p Stmts.
isl::map keyToElems(const RegionTiling &R, const std::vector<polly::ScopStmt *> &Stmts,
                    const std::map<const polly::ScopStmt *, isl::union_map> &Key, int A,
                    const std::vector<DiskArray> &Arrays, isl::space KeySpace) {
  isl::union_map U = isl::union_map::empty(ctxOf(R));
  for (polly::ScopStmt *Stmt : Stmts) {
    auto It = Key.find(Stmt);
    if (It == Key.end())
      continue;
    for (polly::MemoryAccess *MA : *Stmt)
      if (MA->isLatestArrayKind() && MA->getLatestScopArrayInfo() == Arrays[A].SAI)
        U = U.unite(It->second.reverse().apply_range(isl::union_map(MA->getLatestAccessRelation())));
  }
  isl::space Sp = KeySpace.map_from_domain_and_range(Arrays[A].SAI->getSpace());
  return U.extract_map(Sp);
}

/// Statements of a group with their instances in the region.
std::vector<std::pair<polly::ScopStmt *, isl::set>> partsOf(const RegionTiling &R, const TiledGroup &G) {
  std::vector<std::pair<polly::ScopStmt *, isl::set>> P;
  for (unsigned F : G.Families)
    for (const auto &Part : R.Families.Nodes[F].Parts)
      P.push_back(Part);
  return P;
}

isl::union_set domainOf(const std::vector<std::pair<polly::ScopStmt *, isl::set>> &Parts) {
  isl::union_set U;
  for (const auto &P : Parts)
    U = U.is_null() ? isl::union_set(P.second) : U.unite(isl::union_set(P.second));
  return U;
}

/// Tile coordinate of every instance of \p Parts at unit \p Unit; statements
/// without a pivot at \p Place (Prologue/Epilogue) unless given in \p Fixed.
isl::union_pw_aff tileKey(const RegionTiling &R, const std::vector<std::pair<polly::ScopStmt *, isl::set>> &Parts,
                          const std::vector<DiskArray> &Arrays, const TilingOptions &O, uint64_t Unit,
                          const std::map<const polly::ScopStmt *, long> &Place) {
  isl::union_pw_aff U;
  for (const auto &[Stmt, Dom] : Parts) {
    isl::pw_aff T;
    const Pivot &P = R.Pivots.at(Stmt);
    if (P.Array >= 0)
      T = completeOn(unitOf(byteOf(Arrays[P.Array], P.Access), Unit, O), Dom,
                     Place.count(Stmt) ? Place.at(Stmt) : Prologue);
    else
      T = constantOn(Dom, Place.count(Stmt) ? Place.at(Stmt) : Prologue);
    U = U.is_null() ? isl::union_pw_aff(T) : U.union_add(isl::union_pw_aff(T));
  }
  return U;
}

/// The streamed step s of every instance of \p Parts (StreamUnit bytes of
/// its streamed array), serpentine over the tile coordinate \p T when asked.
isl::union_pw_aff streamKey(const RegionTiling &R, const std::vector<std::pair<polly::ScopStmt *, isl::set>> &Parts,
                            const std::vector<DiskArray> &Arrays, const TilingOptions &O,
                            const isl::union_pw_aff &T, bool Serpentine,
                            const std::map<const polly::ScopStmt *, long> &Place) {
  isl::union_pw_aff U;
  isl::ctx Ctx = ctxOf(R);
  for (const auto &[Stmt, Dom] : Parts) {
    isl::pw_aff S;
    auto It = R.Stream.find(Stmt);
    bool Streams = It != R.Stream.end() && It->second >= 0;
    if (Streams) {
      bool Dummy;
      for (auto &[A, Rel] : diskAccesses(*Stmt, Dom, Arrays, Dummy))
        if (A == It->second) {
          S = byteOf(Arrays[A], Rel).scale_down(isl::val(Ctx, static_cast<long>(O.StreamUnit))).floor();
          break;
        }
    }
    long Where = Place.count(Stmt) ? Place.at(Stmt) : Prologue;
    if (S.is_null())
      S = constantOn(Dom, Where);
    S = completeOn(S, Dom, Where);
    if (Serpentine) {
      // Odd tiles walk the stream backwards: s' = -s there (and a prologue
      // or epilogue stays before or after every step of the tile).
      isl::pw_aff TS = isl::manage(isl_union_pw_aff_extract_pw_aff(
          T.get(), Dom.get_space().map_from_domain_and_range(isl::space(Ctx, 0, 1)).release()));
      isl::pw_aff Odd = TS.mod(isl::val(Ctx, 2));
      isl::pw_aff Back = Streams ? S.neg() : constantOn(Dom, Where == Prologue ? -Epilogue : 1);
      isl::pw_aff Fwd = Streams ? S : constantOn(Dom, Where == Prologue ? Prologue : Epilogue);
      S = Odd.cond(Back, Fwd).intersect_domain(Dom);
    }
    U = U.is_null() ? isl::union_pw_aff(S) : U.union_add(isl::union_pw_aff(S));
  }
  return U;
}

isl::union_map asMap(const isl::union_pw_aff &K) {
  return isl::manage(isl_union_map_from_multi_union_pw_aff(isl::multi_union_pw_aff(K).release()));
}

isl::union_map asMap(const isl::union_pw_aff &T, const isl::union_pw_aff &S) {
  isl::union_pw_aff_list L(T.ctx(), 2);
  L = L.add(T).add(S);
  isl::space Sp = isl::space(T.ctx(), 0, 2).align_params(T.get_space()).align_params(S.get_space());
  return isl::manage(isl_union_map_from_multi_union_pw_aff(
      isl_multi_union_pw_aff_from_union_pw_aff_list(Sp.release(), L.release())));
}

/// Whether every dependence of \p Deps goes from a key to the same or a
/// later key (lexicographically): the keys can be the outer loops.
bool keysKeepDeps(const isl::union_map &Deps, const isl::union_map &Key) {
  isl::union_map KD = Deps.apply_domain(Key).apply_range(Key);
  if (KD.is_empty())
    return true;
  for (isl::map M : KD.get_map_list()) {
    isl::map Bad = M.intersect(isl::map::lex_gt(M.get_space().range()));
    if (!Bad.is_empty())
      return false;
  }
  return true;
}

/// Whether the original order visits the keys out of order somewhere: then
/// tiling changes (and shortens) the walk; otherwise it is already a walk
/// over the units and tiling gains nothing.
bool originalOrderWanders(polly::Scop &S, const isl::union_set &Dom, const isl::union_map &Key) {
  isl::union_map Sched = S.getSchedule().intersect_domain(Dom);
  isl::union_map Later = isl::manage(isl_union_map_lex_lt_union_map(Sched.copy(), Sched.copy()));
  isl::union_map KeyPairs = Later.apply_domain(Key).apply_range(Key);
  for (isl::map M : KeyPairs.get_map_list())
    if (!M.intersect(isl::map::lex_gt(M.get_space().range())).is_empty())
      return true;
  return false;
}

/// Chooses the pivot of each statement: the array whose tiles leave the
/// least data to stream (written arrays count twice), ties to a written
/// array, then to the larger one.
void choosePivots(polly::Scop &S, RegionTiling &R, const std::vector<DiskArray> &Arrays, const TilingOptions &O) {
  isl::set Nominal = nominalParams(S);
  uint64_t Ref = O.Units.empty() ? O.Stripe : O.Units.back();
  for (const Family &F : R.Families.Nodes)
    for (const auto &[Stmt, Dom] : F.Parts) {
      bool Affine;
      auto Acc = diskAccesses(*Stmt, Dom, Arrays, Affine);
      Pivot Best;
      double BestCost = -1;
      std::vector<int> Seen;
      for (auto &[P, Rel] : Acc) {
        if (std::find(Seen.begin(), Seen.end(), P) != Seen.end())
          continue;
        Seen.push_back(P);
        isl::pw_aff T = unitOf(byteOf(Arrays[P], Rel), Ref, O).intersect_domain(Dom);
        isl::union_map Key = asMap(isl::union_pw_aff(T));
        double Cost = 0;
        for (auto &[A, Rel2] : Acc) {
          if (A == P)
            continue;
          isl::map KE = Key.reverse().apply_range(isl::union_map(Rel2)).extract_map(
              isl::space(S.getIslCtx(), 0, 1).map_from_domain_and_range(Arrays[A].SAI->getSpace()));
          Box B = boxOf(KE, Arrays[A], Nominal);
          bool Streamed = !B.Known || B.Span > 4 * Ref + Arrays[A].Stride[0];
          bool Written = false;
          for (polly::MemoryAccess *MA : *Stmt)
            Written |= MA->isWrite() && MA->getLatestScopArrayInfo() == Arrays[A].SAI;
          if (Streamed)
            Cost += static_cast<double>(Arrays[A].Bytes ? Arrays[A].Bytes : 1) * (Written ? 2 : 1);
        }
        if (BestCost < 0 || Cost < BestCost) {
          BestCost = Cost;
          Best = {P, Rel};
        }
      }
      R.Pivots[Stmt] = Best;
    }
}

bool touches(const std::vector<std::pair<polly::ScopStmt *, isl::set>> &Parts, const DiskArray &A) {
  for (const auto &P : Parts)
    for (polly::MemoryAccess *MA : *P.first)
      if (MA->isLatestArrayKind() && MA->getLatestScopArrayInfo() == A.SAI)
        return true;
  return false;
}

/// The original order's model of one family: its outermost loop is the
/// "tile" (the first schedule dimension that varies); an array one of its
/// iterations touches for the most part is streamed by every iteration.
void originalTerms(polly::Scop &S, const RegionTiling &R, unsigned F, const std::vector<DiskArray> &Arrays,
                   unsigned Group, const isl::set &Nominal, std::vector<TileTerm> &Out) {
  const Family &Fam = R.Families.Nodes[F];
  std::vector<std::pair<polly::ScopStmt *, isl::set>> Parts = Fam.Parts;
  std::map<const polly::ScopStmt *, isl::union_map> Key;
  std::vector<polly::ScopStmt *> Stmts;
  isl::union_set Keys = isl::union_set::empty(ctxOf(R));
  for (const auto &[Stmt, Dom] : Parts) {
    isl::map Sched = Stmt->getSchedule().intersect_domain(Dom);
    if (Sched.is_null() || Sched.is_empty())
      continue;
    isl::set Range = (Nominal.is_null() ? Sched.range() : Sched.range().intersect_params(Nominal)).project_out_all_params();
    unsigned N = unsignedFromIslSize(Range.tuple_dim());
    unsigned D = 0;
    for (; D < N; ++D) {
      isl::val Lo = isl::manage(isl_set_dim_min_val(Range.copy(), static_cast<int>(D)));
      isl::val Hi = isl::manage(isl_set_dim_max_val(Range.copy(), static_cast<int>(D)));
      if (Lo.is_null() || Hi.is_null() || !Lo.eq(Hi))
        break;
    }
    isl::map K = Sched;
    if (D < N) {
      K = K.project_out(isl::dim::out, D + 1, N - D - 1).project_out(isl::dim::out, 0, D);
    } else {
      K = K.project_out(isl::dim::out, 1, N - 1);
    }
    Key[Stmt] = Key.count(Stmt) ? Key[Stmt].unite(isl::union_map(K)) : isl::union_map(K);
    Keys = Keys.unite(isl::union_set(K.range()));
    Stmts.push_back(Stmt);
  }
  uint64_t Tiles = std::max<uint64_t>(1, countOf(Keys, Nominal));
  for (size_t A = 0; A < Arrays.size(); ++A) {
    if (!touches(Parts, Arrays[A]))
      continue;
    Box B = boxOf(keyToElems(R, Stmts, Key, static_cast<int>(A), Arrays, isl::space(S.getIslCtx(), 0, 1)), Arrays[A], Nominal);
    TileTerm T;
    T.Array = Arrays[A].Name;
    T.ArrayIndex = static_cast<unsigned>(A);
    T.Total = Arrays[A].Bytes;
    T.Tiles = Tiles;
    T.Group = Group;
    T.Original = true;
    if (!B.Known) {
      B.Span = B.Run = T.Total;
      B.Runs = 1;
    }
    T.Span = B.Span;
    T.Runs = B.Runs;
    T.Run = B.Run;
    T.Streamed = Tiles > 1 && 2 * B.Span >= T.Total;
    T.Window = T.Span;
    Out.push_back(T);
  }
}

/// The top-level loop of the original schedule that runs statement
/// \p Stmt, or -1 when it has none of its own: the statements of one such
/// loop interleave per outer iteration, so in the original order they share
/// its iterations' stripes.
int outerLoopOf(polly::Scop &S, polly::ScopStmt *Stmt) {
  // Marks (Polly's loop metadata) sit above the bands they name.
  auto SkipMarks = [](isl::schedule_node N) {
    while (N.isa<isl::schedule_node_mark>() && N.has_children())
      N = N.child(0);
    return N;
  };
  isl::schedule_node Top = S.getScheduleTree().get_root();
  if (!Top.has_children())
    return -1;
  Top = SkipMarks(Top.child(0));
  if (Top.isa<isl::schedule_node_band>())
    return 0;
  if (!Top.isa<isl::schedule_node_sequence>())
    return -1;
  isl::union_set Mine = isl::union_set(Stmt->getDomain());
  unsigned N = unsignedFromIslSize(Top.n_children());
  for (unsigned K = 0; K < N; ++K) {
    isl::schedule_node C = Top.child(static_cast<int>(K));
    if (C.as<isl::schedule_node_filter>().get_filter().intersect(Mine).is_empty())
      continue;
    return C.has_children() && SkipMarks(C.child(0)).isa<isl::schedule_node_band>() ? static_cast<int>(K) : -1;
  }
  return -1;
}

/// The terms of every version (iopoly/tiling.h): tiled groups at each unit,
/// untiled families and the original order by the model above. In the
/// original order, the families of one top-level loop form one group.
void computeTerms(polly::Scop &S, RegionTiling &R, const std::vector<DiskArray> &Arrays, const TilingOptions &O) {
  isl::set Nominal = nominalParams(S);
  R.Terms.assign(O.Units.size() + 1, {});
  unsigned Orig = static_cast<unsigned>(O.Units.size());
  for (unsigned F = 0; F < R.Families.Nodes.size(); ++F) {
    const auto &Parts = R.Families.Nodes[F].Parts;
    int Loop = Parts.empty() ? -1 : outerLoopOf(S, Parts.front().first);
    for (const auto &P : Parts)
      if (outerLoopOf(S, P.first) != Loop)
        Loop = -1;
    originalTerms(S, R, F, Arrays, Loop >= 0 ? 2000 + static_cast<unsigned>(Loop) : F, Nominal, R.Terms[Orig]);
  }
  for (unsigned V = 0; V < O.Units.size(); ++V) {
    unsigned Group = 0;
    for (const TiledGroup &G : R.Groups) {
      ++Group;
      if (!G.Tiled) {
        for (unsigned F : G.Families)
          originalTerms(S, R, F, Arrays, 1000 + F, Nominal, R.Terms[V]);
        continue;
      }
      auto Parts = partsOf(R, G);
      std::vector<polly::ScopStmt *> Stmts, Pivoted;
      for (const auto &P : Parts) {
        Stmts.push_back(P.first);
        if (R.Pivots.at(P.first).Array >= 0)
          Pivoted.push_back(P.first);
      }
      isl::union_pw_aff T = tileKey(R, Parts, Arrays, O, O.Units[V], R.Place);
      isl::union_pw_aff SK = streamKey(R, Parts, Arrays, O, T, false, R.Place);
      std::map<const polly::ScopStmt *, isl::union_map> Key, Key2;
      isl::union_set Keys = isl::union_set::empty(ctxOf(R));
      for (const auto &[Stmt, Dom] : Parts) {
        isl::union_map K1 = asMap(T).intersect_domain(isl::union_set(Dom));
        isl::union_map K2 = asMap(T, SK).intersect_domain(isl::union_set(Dom));
        Key[Stmt] = Key.count(Stmt) ? Key[Stmt].unite(K1) : K1;
        Key2[Stmt] = Key2.count(Stmt) ? Key2[Stmt].unite(K2) : K2;
        if (R.Pivots.at(Stmt).Array >= 0)
          Keys = Keys.unite(Key[Stmt].range());
      }
      uint64_t Tiles = std::max<uint64_t>(1, countOf(Keys, Nominal));
      for (size_t A = 0; A < Arrays.size(); ++A) {
        if (!touches(Parts, Arrays[A]))
          continue;
        Box B = boxOf(keyToElems(R, Stmts, Key, static_cast<int>(A), Arrays, isl::space(S.getIslCtx(), 0, 1)),
                      Arrays[A], Nominal);
        Box W = boxOf(keyToElems(R, Stmts, Key2, static_cast<int>(A), Arrays, isl::space(S.getIslCtx(), 0, 2)),
                      Arrays[A], Nominal);
        TileTerm Tm;
        Tm.Array = Arrays[A].Name;
        Tm.ArrayIndex = static_cast<unsigned>(A);
        Tm.Total = Arrays[A].Bytes;
        Tm.Tiles = Tiles;
        Tm.Group = Group;
        if (!B.Known) {
          B.Span = B.Run = Tm.Total;
          B.Runs = 1;
        }
        Tm.Span = B.Span;
        Tm.Runs = B.Runs;
        Tm.Run = B.Run;
        Tm.Streamed = B.Span > 4 * O.Units[V] + Arrays[A].Stride[0];
        Tm.Window = W.Known ? W.Span : B.Span;
        R.Terms[V].push_back(Tm);
      }
    }
  }
}

/// The user's words for a group that cannot be tiled: what chains it.
std::string whyNotTiled(polly::Scop &S, const std::vector<std::pair<polly::ScopStmt *, isl::set>> &Parts,
                        const std::vector<DiskArray> &Arrays) {
  // A scalar written and read by the group's statements (a running sum, a
  // temporary carried across iterations) orders every instance.
  for (const auto &[Stmt, Dom] : Parts)
    for (polly::MemoryAccess *MA : *Stmt)
      if (MA->isWrite() && (MA->isLatestScalarKind() || MA->getLatestScopArrayInfo()->getNumberOfDimensions() == 0)) {
        std::string N = userArrayName(MA->getLatestScopArrayInfo());
        return (N == "an array" ? std::string("a scalar") : "the scalar '" + N + "'") +
               " chains every iteration of these loops to the next";
      }
  for (const auto &[Stmt, Dom] : Parts)
    for (polly::MemoryAccess *MA : *Stmt)
      if (MA->isWrite() && MA->isLatestArrayKind())
        return "array '" + userArrayName(MA->getLatestScopArrayInfo()) +
               "' is written in one unit and read in an earlier one (a dependence goes backwards over the data)";
  return "a dependence goes backwards over the data";
}

} // namespace

isl::schedule regionSchedule(polly::Scop &S, const RegionTiling &R, const std::vector<DiskArray> &Arrays,
                             const TilingOptions &O, unsigned V) {
  isl::schedule Orig = S.getScheduleTree();
  if (V >= O.Units.size())
    return Orig.intersect_domain(R.Domain);
  isl::schedule New;
  for (const TiledGroup &G : R.Groups) {
    auto Parts = partsOf(R, G);
    isl::union_set D = domainOf(Parts);
    isl::schedule Part = Orig.intersect_domain(D);
    if (G.Tiled) {
      isl::union_pw_aff T = tileKey(R, Parts, Arrays, O, O.Units[V], R.Place);
      bool Streams = false;
      for (const auto &P : Parts)
        Streams |= R.Stream.count(P.first) && R.Stream.at(P.first) >= 0;
      if (Streams)
        Part = Part.insert_partial_schedule(
            isl::multi_union_pw_aff(streamKey(R, Parts, Arrays, O, T, G.Serpentine, R.Place)));
      Part = Part.insert_partial_schedule(isl::multi_union_pw_aff(T));
    }
    New = New.is_null() ? Part : New.sequence(Part);
  }
  return New;
}

unsigned pickVersion(const std::vector<std::vector<TileTerm>> &Terms, uint64_t BufferBytes, uint64_t Stripe) {
  std::vector<iopoly_tile_version> Vers;
  std::vector<iopoly_tile_term> All;
  for (const auto &V : Terms) {
    Vers.push_back({0, static_cast<uint32_t>(All.size()), static_cast<uint32_t>(V.size()), 0, 0, 0, 0});
    for (const TileTerm &T : V)
      All.push_back({T.Span, T.Runs, T.Run, T.Window, T.Total, T.Tiles, T.Group,
                     static_cast<uint16_t>((T.Streamed ? IOPOLY_TILE_STREAMED : 0u) | (T.Original ? IOPOLY_TILE_ORIGINAL : 0u)),
                   static_cast<uint16_t>(T.ArrayIndex)});
  }
  iopoly_tile_table Table{IOPOLY_TILE_ABI, static_cast<uint32_t>(Vers.size()), Vers.data(), All.data(), "", -1, 0,
                          nullptr, nullptr};
  return chooseTileVersion(Table, Stripe, BufferBytes / Stripe);
}

void printRegionTiling(raw_ostream &OS, const RegionTiling &R, const std::vector<DiskArray> &Arrays,
                       const TilingOptions &O) {
  printFamilies(OS, R.Families, Arrays);
  // Each family is parametric in its unit u: member u is the paper's
  // locality set of the instances whose pivot access lies in unit u.
  uint64_t Finest = O.Units.empty() ? O.Stripe : O.Units.back();
  OS << "members (unit " << (O.DiskUnits ? "= disk of the stripe" : std::to_string(Finest) + " bytes") << "):\n";
  for (unsigned K = 0; K < R.Families.Nodes.size(); ++K)
    for (const auto &P : R.Families.Nodes[K].Parts) {
      int A = R.Pivots.at(P.first).Array;
      OS << "  F" << K << " " << P.first->getBaseName() << " pivot " << (A >= 0 ? Arrays[A].Name : std::string("-"));
      auto It = R.Stream.find(P.first);
      if (It != R.Stream.end() && It->second >= 0)
        OS << ", streams " << Arrays[It->second].Name;
      if (A >= 0)
        OS << ": " << polly::stringFromIslObj(
                          unitOf(byteOf(Arrays[A], R.Pivots.at(P.first).Access), Finest, O).intersect_domain(P.second));
      OS << "\n";
      for (polly::MemoryAccess *MA : *P.first)
        if (MA->isLatestArrayKind())
          OS << "      " << (MA->isWrite() ? "write " : "read ") << polly::stringFromIslObj(MA->getLatestAccessRelation())
             << "\n";
    }
  OS << "groups (" << R.Groups.size() << "):\n";
  for (size_t K = 0; K < R.Groups.size(); ++K) {
    const TiledGroup &G = R.Groups[K];
    OS << "  G" << K << (G.Tiled ? " tiled" : " original order") << (G.Serpentine ? ", serpentine" : "") << ":";
    for (unsigned F : G.Families)
      OS << " F" << F;
    if (!G.Why.empty())
      OS << " (" << G.Why << ")";
    OS << "\n";
  }
  if (!R.Why.empty()) {
    OS << "not tiled: " << R.Why << "\n";
    return;
  }
  for (size_t V = 0; V < R.Terms.size(); ++V) {
    OS << "version " << V << ": ";
    if (V < O.Units.size())
      OS << "unit " << O.Units[V] << " bytes";
    else
      OS << "original order";
    OS << "\n";
    for (const TileTerm &T : R.Terms[V])
      OS << "    group " << T.Group << " " << T.Array << ": span " << T.Span << ", " << T.Runs << " x " << T.Run
         << " bytes, window " << T.Window << ", total " << T.Total << ", tiles " << T.Tiles
         << (T.Streamed ? ", streamed" : "") << (T.Original ? ", original" : "") << "\n";
  }
}

RegionTiling planRegion(polly::Scop &S, const isl::union_set &Region, const isl::union_map &Deps,
                        const std::vector<DiskArray> &Arrays, const TilingOptions &O) {
  RegionTiling R;
  R.Domain = Region;
  R.Families = buildFamilies(S, Region, Deps, Arrays, O.MaxSplits);
  if (R.Families.Order.size() != R.Families.Nodes.size()) {
    R.Why = "internal: the family graph kept a cycle";
    return R;
  }
  choosePivots(S, R, Arrays, O);
  uint64_t Finest = O.Units.empty() ? O.Stripe : O.Units.back();
  isl::set Nominal = nominalParams(S);

  // Greedy fusion along the Hamming order: a family joins the current group
  // when the group's units still order every dependence among them.
  std::vector<TiledGroup> Groups;
  std::map<const polly::ScopStmt *, long> &Place = R.Place;
  for (unsigned F : R.Families.Order) {
    auto TryWith = [&](TiledGroup &G) {
      G.Families.push_back(F);
      auto Parts = partsOf(R, G);
      isl::union_set D = domainOf(Parts);
      isl::union_map GD = Deps.intersect_domain(D).intersect_range(D);
      // Statements without a pivot: before every tile, else after.
      std::vector<const polly::ScopStmt *> Free;
      for (const auto &P : R.Families.Nodes[F].Parts)
        if (R.Pivots[P.first].Array < 0)
          Free.push_back(P.first);
      for (long Where : {Prologue, Epilogue}) {
        for (const polly::ScopStmt *St : Free)
          Place[St] = Where;
        if (keysKeepDeps(GD, asMap(tileKey(R, Parts, Arrays, O, Finest, Place))))
          return true;
        if (Free.empty())
          break;
      }
      G.Families.pop_back();
      return false;
    };
    if (!Groups.empty() && Groups.back().Tiled && TryWith(Groups.back()))
      continue;
    TiledGroup G;
    G.Tiled = true;
    if (!TryWith(G)) {
      G.Families = {F};
      G.Tiled = false;
      G.Why = whyNotTiled(S, partsOf(R, G), Arrays);
      G.Blocked = true;
    }
    Groups.push_back(G);
  }

  // The streamed array of each tiled group, and whether tiling changes
  // anything: the original order must wander over the (t, s) units.
  bool Any = false;
  for (TiledGroup &G : Groups) {
    if (!G.Tiled)
      continue;
    auto Parts = partsOf(R, G);
    std::vector<polly::ScopStmt *> Stmts;
    for (const auto &P : Parts)
      Stmts.push_back(P.first);
    std::map<const polly::ScopStmt *, isl::union_map> Key;
    isl::union_pw_aff T = tileKey(R, Parts, Arrays, O, Finest, Place);
    for (const auto &[Stmt, Dom] : Parts) {
      isl::union_map K1 = asMap(T).intersect_domain(isl::union_set(Dom));
      Key[Stmt] = Key.count(Stmt) ? Key[Stmt].unite(K1) : K1;
    }
    int Stream = -1;
    uint64_t StreamBytes = 0;
    for (size_t A = 0; A < Arrays.size(); ++A) {
      Box B = boxOf(keyToElems(R, Stmts, Key, static_cast<int>(A), Arrays, isl::space(S.getIslCtx(), 0, 1)),
                    Arrays[A], Nominal);
      if (!touches(Parts, Arrays[A]))
        continue;
      bool Streamed = !B.Known || B.Span > 4 * Finest + Arrays[A].Stride[0];
      if (Streamed && Arrays[A].Bytes >= StreamBytes) {
        Stream = static_cast<int>(A);
        StreamBytes = Arrays[A].Bytes;
      }
    }
    for (const auto &[Stmt, Dom] : Parts) {
      bool Uses = false;
      if (Stream >= 0)
        for (polly::MemoryAccess *MA : *Stmt)
          Uses |= MA->isLatestArrayKind() && MA->getLatestScopArrayInfo() == Arrays[Stream].SAI &&
                  MA->getLatestAccessRelation().is_single_valued();
      R.Stream[Stmt] = Uses ? Stream : -1;
    }
    isl::union_set D = domainOf(Parts);
    isl::union_map GD = Deps.intersect_domain(D).intersect_range(D);
    isl::union_map K = asMap(T);
    if (Stream >= 0) {
      // The stream walked back and forth if the dependences allow it, else
      // forwards in every tile, else not at all.
      G.Serpentine = O.Serpentine;
      while (true) {
        isl::union_map K2 = asMap(T, streamKey(R, Parts, Arrays, O, T, G.Serpentine, Place));
        if (keysKeepDeps(GD, K2)) {
          K = K2;
          break;
        }
        if (!G.Serpentine) {
          for (const auto &P : Parts)
            R.Stream[P.first] = -1;
          break;
        }
        G.Serpentine = false;
      }
    }
    if (!originalOrderWanders(S, D, K)) {
      G.Tiled = false;
      G.Why = "the original order already walks the data unit by unit";
      continue;
    }
    Any = true;
    R.TiledGroups++;
    if (G.Families.size() > 1)
      R.Fused += static_cast<unsigned>(G.Families.size()) - 1;
  }
  // Neighbouring untiled groups run in the original order together.
  for (TiledGroup &G : Groups) {
    if (!R.Groups.empty() && !R.Groups.back().Tiled && !G.Tiled) {
      R.Groups.back().Families.insert(R.Groups.back().Families.end(), G.Families.begin(), G.Families.end());
      continue;
    }
    R.Groups.push_back(G);
  }
  for (const auto &[St, W] : Place)
    R.Stream.emplace(St, -1);
  if (!Any) {
    std::string Why;
    for (const TiledGroup &G : Groups)
      if (!G.Why.empty() && (Why.empty() || (G.Blocked && !R.Blocked))) {
        Why = G.Why;
        R.Blocked = G.Blocked;
      }
    R.Why = Why.empty() ? "nothing to tile" : Why;
    return R;
  }
  if (R.Groups.size() > O.MaxGroups) {
    R.Why = "it would need " + std::to_string(R.Groups.size()) + " groups of loops, more than -iopoly-max-sets=" +
            std::to_string(O.MaxGroups);
    return R;
  }
  computeTerms(S, R, Arrays, O);
  return R;
}

} // namespace iopoly
