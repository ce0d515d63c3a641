//===- BandTiling.cpp - Polly's schedule tiled for the buffer ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Analysis/BandTiling.h"
#include "Analysis/ScopParams.h"
#include "Analysis/Stencil.h"
#include "Polly/PollyPipeline.h"

#include "iopoly/tiling.h"

#include "polly/ScopInfo.h"
#include "polly/Support/GICHelper.h"
#include "polly/Support/ISLTools.h"

#include "llvm/Support/raw_ostream.h"

#include "isl/aff.h"
#include "isl/ctx.h"
#include "isl/map.h"
#include "isl/options.h"
#include "isl/point.h"
#include "isl/schedule.h"
#include "isl/schedule_node.h"
#include "isl/set.h"
#include "isl/union_map.h"
#include "isl/union_set.h"
#include "isl/val.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace iopoly {

namespace {

/// Polly's defaults for its isl scheduler (polly-opt-max-constant-term,
/// polly-opt-max-coefficient); the quota of operations is Polly's option
/// (schedulerQuota()).
constexpr int MaxConstantTerm = 20;
constexpr int MaxCoefficient = 20;

/// Tiles the outermost tileable band (two or more permutable members) of
/// every part of the tree under \p N with \p T iterations per tile, below
/// bands that are not tileable (lu's sequential outer loop) as Polly does.
/// Returns the node at the position of \p N.
isl::schedule_node tileParts(isl::schedule_node N, unsigned T, unsigned &Tiled) {
  if (N.isa<isl::schedule_node_sequence>() || N.isa<isl::schedule_node_set>()) {
    unsigned K = unsignedFromIslSize(N.n_children());
    for (unsigned I = 0; I < K; ++I)
      N = tileParts(N.child(static_cast<int>(I)).child(0), T, Tiled).parent().parent();
    return N;
  }
  if (N.isa<isl::schedule_node_mark>())
    return tileParts(N.child(0), T, Tiled).parent();
  if (!N.isa<isl::schedule_node_band>())
    return N;
  isl::schedule_node_band B = N.as<isl::schedule_node_band>();
  unsigned M = unsignedFromIslSize(B.n_member());
  if (M < 2 || !B.permutable().is_true())
    return N.has_children() ? tileParts(N.child(0), T, Tiled).parent() : N;
  isl_multi_val *Sizes = isl_multi_val_zero(isl_schedule_node_band_get_space(B.get()));
  for (unsigned D = 0; D < M; ++D)
    Sizes = isl_multi_val_set_val(Sizes, static_cast<int>(D), isl_val_int_from_ui(N.ctx().get(), T));
  ++Tiled;
  return B.tile(isl::manage(Sizes));
}

/// Whether \p Sched has a band of two or more permutable loops that
/// tileParts would tile.
bool hasTileableBand(const isl::schedule &Sched) {
  isl::schedule_node Root = Sched.get_root();
  if (!Root.has_children())
    return false;
  unsigned Tiled = 0;
  tileParts(Root.child(0), 2, Tiled);
  return Tiled > 0;
}

/// The loop of \p Stmt along which most of its disk-resident data is walked
/// element by element (a step of the loop moves an access to the next
/// element of a row), weighted by the arrays' bytes; -1 if none.
int rowWalkingLoop(polly::ScopStmt &Stmt, const std::vector<DiskArray> &Arrays) {
  unsigned N = Stmt.getNumIterators();
  std::vector<uint64_t> Weight(N, 0);
  for (polly::MemoryAccess *MA : Stmt) {
    if (!MA->isLatestArrayKind() || !MA->isAffine())
      continue;
    const DiskArray *A = nullptr;
    for (const DiskArray &D : Arrays)
      if (D.SAI == MA->getLatestScopArrayInfo())
        A = &D;
    if (!A)
      continue;
    isl::map Rel = MA->getLatestAccessRelation();
    if (!Rel.is_single_valued().is_true())
      continue;
    isl::pw_multi_aff PMA = isl::pw_multi_aff::from_map(Rel);
    if (PMA.is_null() || unsignedFromIslSize(PMA.n_piece()) != 1)
      continue;
    // The one piece's function (its domain may be a part of the space).
    isl_multi_aff *Piece = nullptr;
    isl_pw_multi_aff_foreach_piece(
        PMA.get(),
        [](isl_set *Set, isl_multi_aff *MAff, void *User) {
          isl_set_free(Set);
          *static_cast<isl_multi_aff **>(User) = MAff;
          return isl_stat_ok;
        },
        &Piece);
    if (!Piece)
      continue;
    isl::multi_aff M = isl::manage(Piece);
    unsigned Out = unsignedFromIslSize(M.size());
    if (!Out)
      continue;
    for (unsigned D = 0; D < N; ++D) {
      bool Row = true;
      for (unsigned K = 0; K < Out && Row; ++K) {
        isl::val C = isl::manage(
            isl_aff_get_coefficient_val(M.at(static_cast<int>(K)).get(), isl_dim_in, static_cast<int>(D)));
        Row = K + 1 < Out ? C.is_zero() : C.is_one();
      }
      if (Row)
        Weight[D] += A->Bytes ? A->Bytes : 1;
    }
  }
  int Best = -1;
  for (unsigned D = 0; D < N; ++D)
    if (Weight[D] && (Best < 0 || Weight[D] > Weight[static_cast<unsigned>(Best)]))
      Best = static_cast<int>(D);
  return Best;
}

} // namespace

isl::union_map rowWalks(polly::Scop &S, const std::vector<DiskArray> &Arrays) {
  isl::union_map Out = isl::union_map::empty(S.getParamSpace().ctx());
  for (polly::ScopStmt &Stmt : S) {
    int D = rowWalkingLoop(Stmt, Arrays);
    if (D < 0)
      continue;
    // { Stmt[x] -> Stmt[x + e_D] } within the statement's instances.
    isl::set Dom = Stmt.getDomain();
    isl::space Sp = Dom.get_space();
    isl_multi_aff *Step = isl_multi_aff_identity(isl_space_map_from_set(Sp.copy()));
    isl_aff *A = isl_multi_aff_get_aff(Step, D);
    A = isl_aff_add_constant_si(A, 1);
    Step = isl_multi_aff_set_aff(Step, D, A);
    isl::map M = isl::manage(isl_map_from_multi_aff(Step)).intersect_domain(Dom).intersect_range(Dom);
    Out = Out.unite(isl::union_map(M));
  }
  return Out;
}

isl::schedule islSchedule(polly::Scop &S, const isl::union_map &Deps, const isl::union_map &Spatial,
                          bool SimplifyByDomains) {
  isl::union_set Domain = S.getDomains();
  isl::union_map Validity = SimplifyByDomains ? Deps.gist_domain(Domain).gist_range(Domain) : Deps;
  isl_ctx *Ctx = S.getIslCtx().get();
  // Polly's settings for its scheduler, restored afterwards (the context is
  // shared by every SCoP of the function).
  int OuterCoincidence = isl_options_get_schedule_outer_coincidence(Ctx);
  int MaximizeBand = isl_options_get_schedule_maximize_band_depth(Ctx);
  int ConstantTerm = isl_options_get_schedule_max_constant_term(Ctx);
  int Coefficient = isl_options_get_schedule_max_coefficient(Ctx);
  int ScaleTiles = isl_options_get_tile_scale_tile_loops(Ctx);
  int OnError = isl_options_get_on_error(Ctx);
  isl_options_set_schedule_outer_coincidence(Ctx, 0);
  isl_options_set_schedule_maximize_band_depth(Ctx, 1);
  isl_options_set_schedule_max_constant_term(Ctx, MaxConstantTerm);
  isl_options_set_schedule_max_coefficient(Ctx, SimplifyByDomains ? MaxCoefficient : exactDepsMaxCoefficient());
  isl_options_set_tile_scale_tile_loops(Ctx, 0);
  isl_options_set_on_error(Ctx, ISL_ON_ERROR_CONTINUE);
  unsigned long MaxOps = isl_ctx_get_max_operations(Ctx);
  // The quota counts from here (the context's counter runs on otherwise).
  isl_ctx_reset_operations(Ctx);
  isl_ctx_set_max_operations(Ctx, static_cast<unsigned long>(schedulerQuota()));
  isl::schedule Sched;
  if (!Domain.is_null() && !Validity.is_null()) {
    isl::schedule_constraints SC = isl::schedule_constraints::on_domain(Domain);
    if (!SC.is_null())
      SC = SC.set_validity(Validity)
               .set_proximity(Spatial.is_null() ? Validity : Validity.unite(Spatial))
               .set_coincidence(Spatial.is_null() ? Validity : isl::union_map::empty(Validity.ctx()));
    if (!SC.is_null())
      Sched = SC.compute_schedule();
  }
  bool Quota = isl_ctx_last_error(Ctx) == isl_error_quota;
  isl_ctx_reset_error(Ctx);
  isl_ctx_reset_operations(Ctx);
  isl_ctx_set_max_operations(Ctx, MaxOps);
  isl_options_set_on_error(Ctx, OnError);
  isl_options_set_schedule_outer_coincidence(Ctx, OuterCoincidence);
  isl_options_set_schedule_maximize_band_depth(Ctx, MaximizeBand);
  isl_options_set_schedule_max_constant_term(Ctx, ConstantTerm);
  isl_options_set_schedule_max_coefficient(Ctx, Coefficient);
  isl_options_set_tile_scale_tile_loops(Ctx, ScaleTiles);
  if (Quota || Sched.is_null())
    return {};
  return Sched;
}

namespace {

/// Versions of \p Sched tiled at each of \p Tiles, appended to \p P; false
/// (and \p P.Why) when a tile or a model fails.
bool addTiledVersions(polly::Scop &S, const isl::schedule &Sched, const std::vector<DiskArray> &Arrays,
                      const std::vector<unsigned> &Tiles, bool RowWalks, BandPlan &P) {
  for (unsigned T : Tiles) {
    unsigned Tiled = 0;
    isl::schedule_node Root = Sched.get_root();
    if (!Root.has_children())
      return P.Why = "these loops have no schedule to tile", false;
    isl::schedule_node N = tileParts(Root.child(0), T, Tiled);
    if (!Tiled)
      return P.Why = "Polly's schedule of these loops has no band of two or more loops that may be tiled", false;
    BandVersion V;
    V.Tile = T;
    V.RowWalks = RowWalks;
    V.Schedule = N.get_schedule();
    if (!modelSchedule(atParams(V.Schedule, representativeParams(S)), Arrays, V.Model, P.Why, IOPOLY_BAND_MAX_DIMS,
                       /*Triangles=*/!hasStencilStatement(S)))
      return false;
    P.TiledBands = std::max(P.TiledBands, Tiled);
    P.Versions.push_back(std::move(V));
  }
  return true;
}

} // namespace

BandPlan planBandTiling(polly::Scop &S, const isl::union_map &Deps, const std::vector<DiskArray> &Arrays,
                        const std::vector<unsigned> &Tiles) {
  BandPlan P;
  if (Tiles.empty())
    return P.Why = "band tiling is off (-fplugin-arg-iopoly-band-tiles=off)", P;
  isl::schedule Sched = islSchedule(S, Deps);
  // As mode=clo (Transform/CLO.cpp): where the dependences simplified by
  // the domains leave no band to tile, the exact ones may.
  if (Sched.is_null() || !hasTileableBand(Sched)) {
    isl::schedule Exact = islSchedule(S, Deps, {}, /*SimplifyByDomains=*/false);
    if (!Exact.is_null() && hasTileableBand(Exact))
      Sched = Exact;
  }
  if (Sched.is_null())
    return P.Why = "Polly's scheduler gave up on these loops (its operation limit)", P;
  // Tile loops count tiles (0, 1, 2, ...), not their first iterations.
  isl_ctx *Ctx = S.getIslCtx().get();
  int ScaleTiles = isl_options_get_tile_scale_tile_loops(Ctx);
  int ShiftPoints = isl_options_get_tile_shift_point_loops(Ctx);
  isl_options_set_tile_scale_tile_loops(Ctx, 0);
  isl_options_set_tile_shift_point_loops(Ctx, 1);
  struct Restore {
    isl_ctx *Ctx;
    int Scale, Shift;
    ~Restore() {
      isl_options_set_tile_scale_tile_loops(Ctx, Scale);
      isl_options_set_tile_shift_point_loops(Ctx, Shift);
    }
  } R{Ctx, ScaleTiles, ShiftPoints};
  if (!addTiledVersions(S, Sched, Arrays, Tiles, /*RowWalks=*/false, P)) {
    P.Versions.clear();
    return P;
  }
  // Out of core, the loop that walks a row belongs innermost (the stripes
  // of a row come one after the other), and parallel loops outermost,
  // Polly's aim, do not matter: where the scheduler, asked for that, finds
  // another schedule, it is a candidate too (PolyBench symm: 5.3x less
  // modeled I/O at 1/32 of the data; for syrk Polly's own stays far
  // better), at the middle tile sizes only (compile time), not for
  // stencils (Stencil.h).
  if (hasStencilStatement(S))
    return P;
  // From the simplified dependences only: with the exact ones and these
  // proximity pairs, isl's scheduler ran for minutes on ludcmp (its
  // operation quota does not count the big-number arithmetic).
  isl::schedule Rows = islSchedule(S, Deps, rowWalks(S, Arrays));
  if (Rows.is_null() || isl_schedule_plain_is_equal(Rows.get(), Sched.get()) == isl_bool_true)
    return P;
  std::vector<unsigned> Middle = Tiles;
  if (Middle.size() >= 3)
    Middle = std::vector<unsigned>(Tiles.begin() + 1, Tiles.end() - 1);
  BandPlan Extra;
  if (addTiledVersions(S, Rows, Arrays, Middle, /*RowWalks=*/true, Extra)) {
    P.Versions.insert(P.Versions.end(), Extra.Versions.begin(), Extra.Versions.end());
    P.TiledBands = std::max(P.TiledBands, Extra.TiledBands);
  }
  return P;
}

void printBandPlan(raw_ostream &OS, const BandPlan &P, const std::vector<DiskArray> &Arrays) {
  if (P.Versions.empty()) {
    OS << "band versions: none (" << P.Why << ")\n";
    return;
  }
  OS << "band versions (Polly's schedule, " << P.TiledBands << " band(s) tiled):\n";
  for (const BandVersion &V : P.Versions) {
    OS << "  tile " << V.Tile << (V.RowWalks ? " (rows innermost)" : "") << ":\n";
    printFootprintModel(OS, V.Model, Arrays);
  }
}

} // namespace iopoly
