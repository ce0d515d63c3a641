//===- FootprintModel.cpp - Where a schedule's loops touch the arrays ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Analysis/FootprintModel.h"
#include "Analysis/SubscriptExtents.h"
#include "Support/Options.h"

#include "iopoly/tiling.h"

#include "polly/ScopInfo.h"
#include "polly/Support/GICHelper.h"
#include "polly/Support/ISLTools.h"

#include "llvm/Support/raw_ostream.h"

#include "isl/aff.h"
#include "isl/ilp.h"
#include "isl/map.h"
#include "isl/options.h"
#include "isl/ctx.h"
#include "isl/point.h"
#include "isl/schedule_node.h"
#include "isl/set.h"
#include "isl/union_map.h"
#include "isl/union_set.h"
#include "isl/val.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

using namespace llvm;

namespace iopoly {

namespace {

/// Per dimension the least and greatest coordinate of a set; Known[D]
/// false where it is unbounded.
struct SetBox {
  std::vector<long> Lo, Hi;
  std::vector<bool> Known;
  bool bounded() const { return std::all_of(Known.begin(), Known.end(), [](bool K) { return K; }); }
};

SetBox boxOfSet(const isl::set &S, unsigned Dims) {
  SetBox B{std::vector<long>(Dims), std::vector<long>(Dims), std::vector<bool>(Dims, false)};
  for (unsigned D = 0; D < Dims; ++D) {
    isl::val L = isl::manage(isl_set_dim_min_val(S.copy(), static_cast<int>(D)));
    isl::val H = isl::manage(isl_set_dim_max_val(S.copy(), static_cast<int>(D)));
    if (L.is_null() || H.is_null() || !L.is_int() || !H.is_int())
      continue;
    B.Lo[D] = L.get_num_si();
    B.Hi[D] = H.get_num_si();
    B.Known[D] = true;
  }
  return B;
}

/// The point \p F of the way along every loop of \p Dom's (bounded) box
/// \p Box, if it is in \p Dom (a cheap membership test); else null.
isl::point pointOfBox(const isl::set &Dom, const SetBox &Box, unsigned Dims, double F) {
  isl_point *P = isl_point_zero(Dom.get_space().release());
  for (unsigned D = 0; D < Dims; ++D) {
    long C = Box.Lo[D] + std::lround(F * static_cast<double>(Box.Hi[D] - Box.Lo[D]));
    P = isl_point_set_coordinate_val(P, isl_dim_set, static_cast<int>(D), isl_val_int_from_si(Dom.ctx().get(), C));
  }
  isl::point Pt = isl::manage(P);
  if (Pt.is_null() || !isl::set(Pt).is_subset(Dom))
    return isl::point();
  return Pt;
}

/// The tile where a pattern is measured: the middle of \p Dom's box \p Box
/// if it is in \p Dom, else a quarter or three quarters of the way, else
/// \p Dom's lexicographically last point, else any. Null when the box is
/// unbounded.
isl::point representativeTile(const isl::set &Dom, const SetBox &Box, unsigned Dims) {
  if (!Box.bounded())
    return isl::point();
  for (double F : {0.5, 0.25, 0.75})
    if (isl::point Pt = pointOfBox(Dom, Box, Dims, F); !Pt.is_null())
      return Pt;
  isl::set Last = Dom.lexmax();
  if (!Last.is_null() && !Last.is_empty())
    return Last.sample_point();
  return Dom.sample_point();
}

/// Coordinates of \p P.
std::vector<long> coordinates(const isl::point &P, unsigned Dims) {
  std::vector<long> C(Dims);
  for (unsigned D = 0; D < Dims; ++D)
    C[D] = P.get_coordinate_val(isl::dim::set, static_cast<int>(D)).get_num_si();
  return C;
}

/// The subscript whose extent makes the runs of a tile with subscript
/// extents \p Ext: inner subscripts that cover a whole row run on into the
/// next one.
unsigned runLevel(const DiskArray &A, const std::vector<uint64_t> &Ext) {
  unsigned J = static_cast<unsigned>(A.Stride.size()) - 1;
  while (J > 0 && Ext[J] * A.Stride[J] >= A.Stride[J - 1])
    --J;
  return J;
}

/// Fills the run structure of \p T from the subscript extents of one tile.
void runsOf(const DiskArray &A, const std::vector<uint64_t> &Ext, ModelTerm &T) {
  unsigned J = runLevel(A, Ext);
  T.Run = Ext[J] * A.Stride[J];
  if (J >= 1) {
    T.Inner = Ext[J - 1];
    T.InnerPitch = A.Stride[J - 1];
  }
  if (J >= 2) {
    T.Outer = 1;
    for (unsigned D = 0; D + 1 < J; ++D)
      T.Outer *= Ext[D];
    T.OuterPitch = A.Stride[J - 2];
  }
}

polly::ScopStmt *stmtOf(const isl::map &M) {
  return static_cast<polly::ScopStmt *>(isl_id_get_user(M.get_tuple_id(isl::dim::in).get()));
}

/// The top-level loop nests of \p Sched: each one's statement instances
/// mapped to its flattened schedule (loops and sequence positions).
std::vector<isl::union_map> nestsOf(const isl::schedule &Sched) {
  std::vector<isl::union_map> Out;
  isl::schedule_node Root = Sched.get_root();
  if (!Root.has_children())
    return Out;
  isl::schedule_node N = Root.child(0);
  auto Subtree = [](const isl::schedule_node &At) {
    isl::union_map M = isl::manage(isl_schedule_node_get_subtree_schedule_union_map(At.get()));
    return M.intersect_domain(At.get_domain());
  };
  if (N.isa<isl::schedule_node_sequence>() || N.isa<isl::schedule_node_set>()) {
    unsigned K = unsignedFromIslSize(N.n_children());
    for (unsigned I = 0; I < K; ++I)
      Out.push_back(Subtree(N.child(static_cast<int>(I)).child(0)));
  } else {
    Out.push_back(Subtree(N));
  }
  return Out;
}

/// \p Nest with its schedule cut (or padded with zeros) to its first \p D
/// dimensions, all in one anonymous space.
isl::union_map outerLoops(const isl::union_map &Nest, unsigned D) {
  isl::union_map Out = isl::union_map::empty(Nest.ctx());
  for (isl::map M : Nest.get_map_list()) {
    isl_map *X = M.release();
    unsigned N = static_cast<unsigned>(isl_map_dim(X, isl_dim_out));
    if (N > D)
      X = isl_map_project_out(X, isl_dim_out, D, N - D);
    else if (N < D) {
      X = isl_map_add_dims(X, isl_dim_out, D - N);
      for (unsigned K = N; K < D; ++K)
        X = isl_map_fix_si(X, isl_dim_out, K, 0);
    }
    X = isl_map_reset_tuple_id(X, isl_dim_out);
    Out = Out.unite(isl::manage(X));
  }
  return Out;
}

/// Most schedule dimensions of a statement of \p Nest.
unsigned depthOf(const isl::union_map &Nest) {
  unsigned D = 0;
  for (isl::map M : Nest.get_map_list())
    D = std::max(D, static_cast<unsigned>(unsignedFromIslSize(M.range_tuple_dim())));
  return D;
}

/// The elements one tile \p P touches, of { tile -> elements } \p K.
isl::set elementsAt(const isl::map &K, const isl::point &P) {
  return K.intersect_domain(isl::set(P)).range();
}

/// The first byte of the elements \p E of \p A (false when unbounded).
bool firstByte(const isl::set &E, const DiskArray &A, long &Out) {
  if (E.is_null() || E.is_empty())
    return false;
  isl::val V = isl::manage(isl_set_min_val(E.get(), A.Byte.get()));
  if (V.is_null() || !V.is_int())
    return false;
  Out = V.get_num_si();
  return true;
}

/// \p P moved by \p By along dimension \p D.
isl::point moved(const isl::point &P, unsigned D, int By) {
  if (By > 0)
    return isl::manage(isl_point_add_ui(P.copy(), isl_dim_set, static_cast<int>(D), static_cast<unsigned>(By)));
  return isl::manage(isl_point_sub_ui(P.copy(), isl_dim_set, static_cast<int>(D), static_cast<unsigned>(-By)));
}

/// The extent of each of the \p N subscripts of the elements \p E (0 where
/// \p E is empty); false where unbounded.
bool extentsOf(const isl::set &E, unsigned N, std::vector<uint64_t> &Ext) {
  Ext.assign(N, 0);
  if (E.is_null())
    return false;
  if (E.is_empty())
    return true;
  SetBox B = boxOfSet(E, N);
  if (!B.bounded())
    return false;
  for (unsigned J = 0; J < N; ++J)
    Ext[J] = static_cast<uint64_t>(B.Hi[J] - B.Lo[J] + 1);
  return true;
}

/// How the tiles of a triangular loop differ: the subscript extents of the
/// measured tile and what one iteration of each loop adds to them.
struct Slope {
  bool Varies = false;
  std::vector<uint64_t> Here;                ///< extents at the measured tile
  std::vector<std::vector<int64_t>> PerLoop; ///< per loop, per subscript
};

/// Tiles of \p Dom where a linear description measured at another tile is
/// checked: a quarter and three quarters of the way along every loop of
/// its box (those in \p Dom).
std::vector<isl::point> checkTiles(const isl::set &Dom, unsigned Dims) {
  std::vector<isl::point> Out;
  SetBox Box = boxOfSet(Dom, Dims);
  if (!Box.bounded())
    return Out;
  for (double F : {0.25, 0.75})
    if (isl::point Pt = pointOfBox(Dom, Box, Dims, F); !Pt.is_null())
      Out.push_back(Pt);
  return Out;
}

/// The slope of the tiles of { tile -> elements } \p K at tile \p P, whose
/// largest extents over all tiles are \p Max: none where P's are the
/// largest (rectangular loops, and the full tiles of Polly's; this keeps
/// the compile time of those unchanged), else from P's neighbours.
Slope slopeOf(const isl::map &K, const isl::point &P, unsigned Dims, unsigned N, const std::vector<uint64_t> &Max) {
  Slope S;
  if (!extentsOf(elementsAt(K, P), N, S.Here) || S.Here == Max)
    return S;
  S.PerLoop.assign(Dims, std::vector<int64_t>(N, 0));
  for (unsigned D = 0; D < Dims; ++D) {
    // The neighbours on both sides, where there are tiles: the extents
    // must change by the same amount to each (a triangle, not the
    // diagonal tile of a tiled one, whose neighbours are full tiles).
    std::vector<int64_t> Delta[2];
    for (int Side = 0; Side < 2; ++Side) {
      int Dir = Side ? -1 : 1;
      isl::set E = elementsAt(K, moved(P, D, Dir));
      std::vector<uint64_t> There;
      if (E.is_null() || E.is_empty() || !extentsOf(E, N, There))
        continue;
      for (unsigned J = 0; J < N; ++J)
        Delta[Side].push_back(Dir * (static_cast<int64_t>(There[J]) - static_cast<int64_t>(S.Here[J])));
    }
    if (!Delta[0].empty() && !Delta[1].empty() && Delta[0] != Delta[1])
      return Slope();
    const std::vector<int64_t> &By = Delta[0].empty() ? Delta[1] : Delta[0];
    for (unsigned J = 0; J < By.size(); ++J) {
      S.PerLoop[D][J] = By[J];
      S.Varies |= By[J] != 0;
    }
  }
  if (!S.Varies)
    return S;
  // Far from P too: the extents the slope predicts (within the largest
  // tile's) must be those measured. A tiled triangle's tiles change
  // piecewise, not linearly (PolyBench lu's tiles of 32 were estimated
  // at a third of what they fetch).
  std::vector<long> C = coordinates(P, Dims);
  for (const isl::point &At : checkTiles(K.domain(), Dims)) {
    std::vector<long> Q = coordinates(At, Dims);
    std::vector<uint64_t> Got;
    if (!extentsOf(elementsAt(K, At), N, Got))
      return Slope();
    for (unsigned J = 0; J < N; ++J) {
      int64_t Want = static_cast<int64_t>(S.Here[J]);
      for (unsigned D = 0; D < Dims; ++D)
        Want += S.PerLoop[D][J] * (Q[D] - C[D]);
      Want = std::clamp<int64_t>(Want, 0, static_cast<int64_t>(Max[J]));
      if (static_cast<uint64_t>(Want) != Got[J])
        return Slope();
    }
  }
  return S;
}

/// Sets \p T's runs to change along the loops as \p S says (T's run
/// structure is that of the largest tile, from runsOf); \p InnerAt and
/// \p RunAt get the measured tile's. Only the number of runs and their
/// length change; a slope of the outer subscripts of a 3-D or deeper array
/// is not modelled (the largest tile stands).
void applySlope(const DiskArray &A, const std::vector<uint64_t> &Max, const Slope &S, ModelTerm &T, int64_t &InnerAt,
                int64_t &RunAt) {
  if (!S.Varies)
    return;
  unsigned J = runLevel(A, Max);
  if (runLevel(A, S.Here) != J)
    return;
  for (unsigned D = 0; D < S.PerLoop.size(); ++D)
    for (unsigned K = 0; K + 1 < J; ++K)
      if (S.PerLoop[D][K])
        return;
  T.Varies = true;
  T.InnerStep.assign(S.PerLoop.size(), 0);
  T.RunStep.assign(S.PerLoop.size(), 0);
  for (unsigned D = 0; D < S.PerLoop.size(); ++D) {
    T.RunStep[D] = S.PerLoop[D][J] * static_cast<int64_t>(A.Stride[J]);
    if (J >= 1)
      T.InnerStep[D] = S.PerLoop[D][J - 1];
  }
  RunAt = static_cast<int64_t>(S.Here[J] * A.Stride[J]);
  InnerAt = J >= 1 ? static_cast<int64_t>(S.Here[J - 1]) : 1;
}

/// Where the tiles of { tile -> elements } \p K lie: the first byte of the
/// tile \p P, how far it moves per tile along each loop
/// (from that tile's neighbours), and the largest extent of each subscript
/// over all tiles. The first byte is asked of one tile at a time (small
/// integer programs), not as a parametric optimum over all tiles.
/// With \p Triangles, \p Sl gets how the tiles' extents change (slopeOf).
bool placeTiles(const isl::map &K, const isl::point &P, unsigned Dims, const DiskArray &A, bool Triangles,
                long &At, std::vector<int64_t> &Step, std::vector<uint64_t> &Ext, Slope &Sl) {
  if (P.is_null())
    return false;
  if (!firstByte(elementsAt(K, P), A, At))
    return false;
  Step.assign(Dims, 0);
  for (unsigned D = 0; D < Dims; ++D) {
    long V;
    if (firstByte(elementsAt(K, moved(P, D, 1)), A, V))
      Step[D] = V - At;
    else if (firstByte(elementsAt(K, moved(P, D, -1)), A, V))
      Step[D] = At - V;
  }
  // Extents: the largest difference of two elements of one tile, over all
  // tiles (a pattern's tiles differ in size: triangular and partial ones),
  // and how they change from tile to tile.
  unsigned N = static_cast<unsigned>(A.Stride.size());
  if (!subscriptExtents(K, N, Ext))
    return false;
  if (Triangles)
    Sl = slopeOf(K, P, Dims, N, Ext);
  return true;
}

/// Whether access \p To is access \p From moved by constant subscripts
/// (the same instances, each touching the element \p From does plus
/// them); \p Shift gets the bytes the move adds in \p A's layout.
bool translation(const isl::map &From, const isl::map &To, const DiskArray &A, long &Shift) {
  if (From.is_null() || To.is_null() || !From.domain().is_equal(To.domain()))
    return false;
  isl::set D = From.reverse().apply_range(To).deltas();
  if (D.is_null() || D.is_empty() || !D.is_singleton())
    return false;
  isl::point P = D.sample_point();
  unsigned N = static_cast<unsigned>(A.Stride.size());
  Shift = 0;
  for (unsigned I = 0; I < N; ++I) {
    isl::val V = P.get_coordinate_val(isl::dim::set, static_cast<int>(I));
    if (V.is_null() || !V.is_int())
      return false;
    Shift += V.get_num_si() * static_cast<long>(A.Stride[I]);
  }
  return true;
}

/// Whether \p Stmt writes \p SAI without reading it.
bool onlyWrites(polly::ScopStmt &Stmt, const polly::ScopArrayInfo *SAI) {
  bool Writes = false;
  for (polly::MemoryAccess *MA : Stmt) {
    if (!MA->isLatestArrayKind() || MA->getLatestScopArrayInfo() != SAI)
      continue;
    if (MA->isRead())
      return false;
    Writes |= MA->isWrite();
  }
  return Writes;
}

/// The box of tiles [First, Last] (per loop, absolute coordinates) of a
/// set of tiles whose box is \p Where, within the band's box (first tile
/// \p Lo, \p Count tiles per loop): the whole box along a loop whose
/// bounds are not known.
void tilesOf(const SetBox &Where, unsigned Dims, const std::vector<long> &Lo, const std::vector<uint64_t> &Count,
             std::vector<long> &First, std::vector<long> &Last) {
  First.assign(Dims, 0);
  Last.assign(Dims, 0);
  for (unsigned D = 0; D < Dims; ++D) {
    First[D] = Lo[D];
    Last[D] = Lo[D] + static_cast<long>(Count[D]) - 1;
    if (!Where.Known[D])
      continue;
    First[D] = std::max(First[D], Where.Lo[D]);
    Last[D] = std::min(Last[D], Where.Hi[D]);
    if (First[D] > Last[D]) { // (cannot happen: the tiles are the band's)
      First[D] = Lo[D];
      Last[D] = Lo[D] + static_cast<long>(Count[D]) - 1;
    }
  }
}

/// The first and last iteration of the last loop of the tiles \p R whose
/// outer loops are at \p Q (false where there is none).
bool lastLoopAt(const isl::set &R, const std::vector<long> &Q, long &First, long &Last) {
  isl_set *F = R.copy();
  for (unsigned D = 0; D < Q.size(); ++D)
    F = isl_set_fix_si(F, isl_dim_set, D, Q[D]);
  isl::set Fiber = isl::manage(F);
  if (Fiber.is_null() || Fiber.is_empty())
    return false;
  unsigned L = static_cast<unsigned>(Q.size());
  isl::val Lv = isl::manage(isl_set_dim_min_val(Fiber.copy(), static_cast<int>(L)));
  isl::val Hv = isl::manage(isl_set_dim_max_val(Fiber.copy(), static_cast<int>(L)));
  if (Lv.is_null() || Hv.is_null() || !Lv.is_int() || !Hv.is_int())
    return false;
  First = Lv.get_num_si();
  Last = Hv.get_num_si();
  return true;
}

/// Triangular loops: where the last of the \p Dims loops of the tiles \p R
/// (first tile \p Lo) does not run over the whole box at a representative
/// tile of the outer loops, its bounds as linear functions of them, from
/// that tile's neighbours (both sides must agree: a triangle, not the
/// diagonal tiles of a tiled one).
void lastLoopBounds(const isl::set &R, unsigned Dims, const std::vector<long> &Lo, ModelBand &Band) {
  if (Dims < 2)
    return;
  unsigned L = Dims - 1;
  isl::set Outer = R.project_out(isl::dim::set, L, 1);
  isl::point P = representativeTile(Outer, boxOfSet(Outer, L), L);
  if (P.is_null())
    return;
  std::vector<long> Q = coordinates(P, L);
  long First, Last;
  if (!lastLoopAt(R, Q, First, Last) ||
      (First == Lo[L] && Last == Lo[L] + static_cast<long>(Band.Count[L]) - 1))
    return;
  std::vector<int64_t> LoStep(L, 0), HiStep(L, 0);
  for (unsigned D = 0; D < L; ++D) {
    bool Seen = false;
    for (int Dir : {1, -1}) {
      std::vector<long> N = Q;
      N[D] += Dir;
      long F, La;
      if (!lastLoopAt(R, N, F, La))
        continue;
      int64_t DL = Dir * (F - First), DH = Dir * (La - Last);
      if (Seen && (DL != LoStep[D] || DH != HiStep[D]))
        return;
      LoStep[D] = DL;
      HiStep[D] = DH;
      Seen = true;
    }
  }
  // Both bounds moving alike: a skewed loop (a shifted box, as Polly skews
  // a time-stepped stencil), not a triangle. Its box stands: the tiles a
  // skewed schedule's box has beyond the arrays keep such a version from
  // running (TileChoice.h, MaxModelOutside), whose model does not describe
  // its tiles well (PolyBench seidel-2d: 17x the fetches estimated).
  if (LoStep == HiStep)
    return;
  // Far from that tile too, as for a tile's extents (slopeOf).
  long BoxLo = Lo[L], BoxHi = Lo[L] + static_cast<long>(Band.Count[L]) - 1;
  for (const isl::point &At : checkTiles(Outer, L)) {
    std::vector<long> C = coordinates(At, L);
    long F, La;
    if (!lastLoopAt(R, C, F, La))
      return;
    long WantLo = First, WantHi = Last;
    for (unsigned D = 0; D < L; ++D) {
      WantLo += LoStep[D] * (C[D] - Q[D]);
      WantHi += HiStep[D] * (C[D] - Q[D]);
    }
    if (std::clamp(WantLo, BoxLo, BoxHi) != F || std::clamp(WantHi, BoxLo, BoxHi) != La)
      return;
  }
  Band.Bounded = true;
  Band.LoFirst = First - Lo[L];
  Band.HiFirst = Last - Lo[L];
  for (unsigned D = 0; D < L; ++D) {
    Band.LoFirst -= LoStep[D] * (Q[D] - Lo[D]);
    Band.HiFirst -= HiStep[D] * (Q[D] - Lo[D]);
  }
  LoStep.resize(Dims, 0);
  HiStep.resize(Dims, 0);
  Band.LoStep = LoStep;
  Band.HiStep = HiStep;
}

/// Models the nest \p Tiles (instances -> their first \p Dims loops) as band
/// \p Index (with \p Triangles, its triangular loops as they run); false
/// (with \p Why) when it cannot.
bool modelBand(const isl::union_map &Tiles, unsigned Dims, unsigned Index, const std::vector<DiskArray> &Arrays,
               bool Triangles, ModelBand &Band, std::vector<ModelTerm> &Terms, std::string &Why) {
  // Iterations of each loop.
  std::vector<long> Lo(Dims, 0);
  if (Dims) {
    isl::union_set Range = Tiles.range();
    isl::set R = isl::manage(isl_set_from_union_set(Range.copy()));
    if (R.is_null())
      return Why = "internal: the loops of a nest are not in one space", false;
    R = R.project_out_all_params();
    for (unsigned D = 0; D < Dims; ++D) {
      isl::val L = isl::manage(isl_set_dim_min_val(R.copy(), static_cast<int>(D)));
      isl::val H = isl::manage(isl_set_dim_max_val(R.copy(), static_cast<int>(D)));
      if (L.is_null() || H.is_null() || !L.is_int() || !H.is_int())
        return Why = "the loop bounds are not known at compile time", false;
      Lo[D] = L.get_num_si();
      Band.Count.push_back(static_cast<uint64_t>(H.get_num_si() - Lo[D] + 1));
    }
    if (Triangles)
      lastLoopBounds(R, Dims, Lo, Band);
  }
  // Each access as { tile -> elements }, one term per array and step: the
  // neighbours a stencil reads move with the tile together, and the term
  // takes the union of their extents.
  struct Pattern {
    ModelTerm T;
    long At = 0;
    std::vector<long> Coord;
    std::vector<long> First, Last; ///< the box of tiles where its accesses run
    int64_t InnerAt = 0, RunAt = 0; ///< Varies: the runs of the tile at Coord
  };
  // Keyed by array, whether the statements only write it (an
  // initialisation: the replay takes such a term to come first in its tile,
  // so it is kept apart from the reads of the same bytes), and step.
  std::map<std::tuple<unsigned, bool, std::vector<int64_t>>, Pattern> Patterns;
  for (isl::map StmtTiles : Tiles.get_map_list()) {
    polly::ScopStmt *Stmt = stmtOf(StmtTiles);
    if (!Stmt)
      continue;
    // The tiles where the statement runs (its accesses run in all of them:
    // one box per statement, not per access, bounds the compile time).
    std::vector<long> First, Last;
    bool Placed = false;
    // Accesses already placed, per array: a neighbour (the same subscripts
    // plus constants, a stencil's reads) touches the same tiles' elements
    // moved by those constants, and is placed from them without modelling
    // its tiles again.
    struct PlacedAccess {
      unsigned Array;
      isl::map Rel;
      isl::point Tile;
      long At;
      std::vector<int64_t> Step;
      std::vector<uint64_t> Ext;
      Slope Sl;
    };
    std::vector<PlacedAccess> Done;
    // The tiles where the statement runs, and their box (once it
    // accesses a disk-resident array).
    isl::set StmtRange;
    std::optional<SetBox> StmtBox;
    auto stmtBox = [&]() -> const SetBox & {
      if (!StmtBox) {
        StmtRange = StmtTiles.range().project_out_all_params();
        StmtBox = boxOfSet(StmtRange, Dims);
      }
      return *StmtBox;
    };
    std::optional<isl::point> StmtTile;
    for (polly::MemoryAccess *MA : *Stmt) {
      if (!MA->isLatestArrayKind())
        continue;
      for (unsigned A = 0; A < Arrays.size(); ++A) {
        if (Arrays[A].SAI != MA->getLatestScopArrayInfo())
          continue;
        isl::map Rel = MA->getLatestAccessRelation().intersect_domain(StmtTiles.domain());
        isl::point Tile;
        long At = 0;
        std::vector<int64_t> Step;
        std::vector<uint64_t> Ext;
        Slope Sl;
        bool Known = false;
        for (const PlacedAccess &P : Done) {
          if (P.Array != A)
            continue;
          long Shift;
          if (!translation(P.Rel, Rel, Arrays[A], Shift))
            continue;
          Tile = P.Tile;
          At = P.At + Shift;
          Step = P.Step;
          Ext = P.Ext;
          Sl = P.Sl;
          Known = true;
          break;
        }
        if (!Known) {
          isl::map K = StmtTiles.reverse().apply_range(Rel).project_out_all_params();
          if (K.is_null())
            return Why = "the elements of '" + Arrays[A].Name + "' one iteration touches could not be modelled", false;
          if (K.is_empty())
            continue;
          // Measured at one tile of the statement's (an access runs in
          // all of them: computed once per statement), else at one of the
          // access's own.
          if (!StmtTile) {
            const SetBox &Box = stmtBox();
            StmtTile = representativeTile(StmtRange, Box, Dims);
          }
          Tile = *StmtTile;
          if (!placeTiles(K, Tile, Dims, Arrays[A], Triangles, At, Step, Ext, Sl)) {
            isl::set Dom = K.domain();
            Tile = representativeTile(Dom, boxOfSet(Dom, Dims), Dims);
            if (!placeTiles(K, Tile, Dims, Arrays[A], Triangles, At, Step, Ext, Sl))
              return Why = "the bytes of '" + Arrays[A].Name + "' one iteration touches could not be modelled", false;
          }
          Done.push_back({A, Rel, Tile, At, Step, Ext, Sl});
        }
        if (!Placed) {
          tilesOf(stmtBox(), Dims, Lo, Band.Count, First, Last);
          Placed = true;
        }
        auto Key = std::make_tuple(A, onlyWrites(*Stmt, MA->getLatestScopArrayInfo()), Step);
        auto It = Patterns.find(Key);
        if (It != Patterns.end()) {
          It->second.T.Writes |= MA->isWrite();
          It->second.T.Reads |= MA->isRead();
          for (unsigned D = 0; D < Dims; ++D) {
            It->second.First[D] = std::min(It->second.First[D], First[D]);
            It->second.Last[D] = std::max(It->second.Last[D], Last[D]);
          }
        }
        if (It == Patterns.end()) {
          Pattern New;
          New.T.Writes = MA->isWrite();
          New.T.Reads = MA->isRead();
          New.T.Step = Step;
          New.T.Band = Index;
          New.T.Array = A;
          New.T.Bytes = Arrays[A].Bytes;
          runsOf(Arrays[A], Ext, New.T);
          applySlope(Arrays[A], Ext, Sl, New.T, New.InnerAt, New.RunAt);
          New.At = At;
          New.Coord = coordinates(Tile, Dims);
          New.First = First;
          New.Last = Last;
          Patterns.emplace(Key, New);
          continue;
        }
        // The same pattern again (a neighbour): the runs of both, from the
        // lower first byte, at the first access's tile.
        Pattern &Old = It->second;
        std::vector<long> C = coordinates(Tile, Dims);
        long Shifted = At;
        for (unsigned D = 0; D < Dims; ++D)
          Shifted -= Step[D] * (C[D] - Old.Coord[D]);
        ModelTerm Mine;
        runsOf(Arrays[A], Ext, Mine);
        int64_t InnerAt = 0, RunAt = 0;
        applySlope(Arrays[A], Ext, Sl, Mine, InnerAt, RunAt);
        // Tiles that change alike stay so (two statements' accesses to the
        // same bytes); otherwise the union is modelled by the largest tile.
        bool Alike = Old.T.Varies && Mine.Varies && Shifted == Old.At && C == Old.Coord && InnerAt == Old.InnerAt &&
                     RunAt == Old.RunAt && Mine.InnerStep == Old.T.InnerStep && Mine.RunStep == Old.T.RunStep &&
                     Mine.Run == Old.T.Run && Mine.Inner == Old.T.Inner && Mine.Outer == Old.T.Outer;
        long Lo0 = std::min(Old.At, Shifted);
        long Hi0 = std::max<long>(Old.At + static_cast<long>(Old.T.Run), Shifted + static_cast<long>(Mine.Run));
        if (Old.T.Inner == Mine.Inner && Old.T.Outer == Mine.Outer)
          Old.T.Run = static_cast<uint64_t>(Hi0 - Lo0);
        else if (Mine.Inner * Mine.Outer > Old.T.Inner * Old.T.Outer) {
          Mine.Step = Old.T.Step;
          Mine.Writes = Old.T.Writes;
          Mine.Reads = Old.T.Reads;
          Mine.Band = Index;
          Mine.Array = A;
          Mine.Bytes = Arrays[A].Bytes;
          Old.T = Mine;
        }
        Old.T.Varies &= Alike;
        Old.At = Lo0;
      }
    }
  }
  for (auto &[Key, Pat] : Patterns) {
    ModelTerm T = Pat.T;
    T.Base = Pat.At;
    for (unsigned D = 0; D < Dims; ++D)
      T.Base -= T.Step[D] * (Pat.Coord[D] - Lo[D]);
    if (T.Varies) {
      T.InnerFirst = Pat.InnerAt;
      T.RunFirst = Pat.RunAt;
      for (unsigned D = 0; D < Dims; ++D) {
        T.InnerFirst -= T.InnerStep[D] * (Pat.Coord[D] - Lo[D]);
        T.RunFirst -= T.RunStep[D] * (Pat.Coord[D] - Lo[D]);
      }
    }
    // The tiles it applies to, relative to the band's first; none where
    // it applies to every tile.
    T.From.assign(Dims, 0);
    T.Upto.assign(Dims, 0);
    for (unsigned D = 0; D < Dims; ++D) {
      uint64_t F = static_cast<uint64_t>(Pat.First[D] - Lo[D]), U = static_cast<uint64_t>(Pat.Last[D] - Lo[D] + 1);
      if (F > 0 || U < Band.Count[D]) {
        T.From[D] = F;
        T.Upto[D] = U;
      }
    }
    Terms.push_back(T);
  }
  return true;
}

} // namespace

bool modelSchedule(const isl::schedule &Sched, const std::vector<DiskArray> &Arrays, FootprintModel &Out,
                   std::string &Why, unsigned MaxDepth, bool Triangles) {
  Out = FootprintModel();
  Triangles &= modelTriangles(); // (off by -iopoly-model-triangles=false, for comparison)
  // An unbounded optimum is an answer here ("cannot be modelled"), not a
  // reason to abort the compiler.
  struct ContinueOnError {
    isl_ctx *Ctx;
    int Saved;
    explicit ContinueOnError(isl_ctx *C) : Ctx(C), Saved(isl_options_get_on_error(C)) {
      isl_options_set_on_error(Ctx, ISL_ON_ERROR_CONTINUE);
    }
    ~ContinueOnError() {
      isl_ctx_reset_error(Ctx);
      isl_options_set_on_error(Ctx, Saved);
    }
  } Guard(Sched.ctx().get());
  std::vector<isl::union_map> Nests = nestsOf(Sched);
  if (Nests.empty())
    return Why = "these loops have no schedule", false;
  for (unsigned N = 0; N < Nests.size(); ++N) {
    unsigned Deepest = std::min<unsigned>({depthOf(Nests[N]), IOPOLY_BAND_MAX_DIMS, MaxDepth});
    unsigned Modelled = 0;
    for (unsigned D = 0; D <= Deepest; ++D) {
      ModelBand Band;
      Band.Nest = N;
      std::vector<ModelTerm> Terms;
      std::string WhyNot;
      if (!modelBand(outerLoops(Nests[N], D), D, static_cast<unsigned>(Out.Bands.size()), Arrays, Triangles, Band,
                     Terms, WhyNot)) {
        // Deeper models include these loops too.
        if (!Modelled)
          return Why = WhyNot, false;
        break;
      }
      Out.Bands.push_back(Band);
      Out.Terms.insert(Out.Terms.end(), Terms.begin(), Terms.end());
      ++Modelled;
      // Deeper iterations touch no more than this: a few runs of at most a
      // stripe fit any buffer the runtime accepts, so no deeper model is
      // ever replayed.
      uint64_t Runs = 0, Longest = 0;
      for (const ModelTerm &T : Terms) {
        Runs += T.Outer * T.Inner;
        Longest = std::max(Longest, T.Run);
      }
      if (Runs <= 4 && Longest <= 4096)
        break;
    }
  }
  return true;
}

void printFootprintModel(raw_ostream &OS, const FootprintModel &M, const std::vector<DiskArray> &Arrays) {
  for (unsigned B = 0; B < M.Bands.size(); ++B) {
    OS << "    nest " << M.Bands[B].Nest << " depth " << M.Bands[B].Count.size() << ", iterations";
    for (uint64_t C : M.Bands[B].Count)
      OS << " " << C;
    if (M.Bands[B].Bounded) {
      const ModelBand &Bd = M.Bands[B];
      OS << "; the last loop from " << Bd.LoFirst << " to " << Bd.HiFirst << " at the first tile, per iteration +";
      for (size_t D = 0; D + 1 < Bd.LoStep.size(); ++D)
        OS << (D ? " " : "") << Bd.LoStep[D];
      OS << " and +";
      for (size_t D = 0; D + 1 < Bd.HiStep.size(); ++D)
        OS << (D ? " " : "") << Bd.HiStep[D];
    }
    OS << "\n";
    for (const ModelTerm &T : M.Terms) {
      if (T.Band != B)
        continue;
      OS << "      " << Arrays[T.Array].Name << ": base " << T.Base << ", step";
      for (int64_t St : T.Step)
        OS << " " << St;
      OS << ", " << T.Outer << " x " << T.Inner << " runs of " << T.Run << " bytes (pitch " << T.OuterPitch << ", "
         << T.InnerPitch << ")" << (T.Reads ? ", read" : "") << (T.Writes ? ", written" : "");
      for (size_t D = 0; D < T.Upto.size(); ++D)
        if (T.Upto[D])
          OS << ", loop " << D << " in [" << T.From[D] << ", " << T.Upto[D] << ")";
      if (T.Varies) {
        OS << "; at the first tile " << T.InnerFirst << " runs of " << T.RunFirst << " bytes, per iteration +";
        for (size_t D = 0; D < T.InnerStep.size(); ++D)
          OS << (D ? " " : "") << T.InnerStep[D];
        OS << " runs, +";
        for (size_t D = 0; D < T.RunStep.size(); ++D)
          OS << (D ? " " : "") << T.RunStep[D];
        OS << " bytes";
      }
      OS << "\n";
    }
  }
}

} // namespace iopoly
