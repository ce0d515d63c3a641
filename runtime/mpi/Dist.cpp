//===- Dist.cpp - Distributed loops at run time (include/iopoly/dist.h) ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The first time a distributed loop starts, its table is decided once per
// process: the table compiled for the topology of
// -fplugin-arg-iopoly-topology when the run has the same tree and ranks,
// else the same algorithm (Mapping.h) run now on the loop's iteration
// chunks for IOPOLY_TOPOLOGY, or for a flat hierarchy of the run's ranks
// (every rank computes the same table). Outside MPI, or on one rank, the
// loop runs whole and in order. The end of a distributed loop is a sync
// point of every shared array: its results are everybody's.
//
//===----------------------------------------------------------------------===//
#include "mpi/Glue.h"
#include "mpi/Mapping.h"
#include "mpi/Mpi.h"
#include "mpi/Topology.h"

#include "core/Config.h"
#include "core/Error.h"
#include "core/Group.h"
#include "iopoly.h"

#include "iopoly/dist.h"

#include <cstdio>
#include <mutex>

using namespace iopoly;

namespace {

struct DistState {
  std::vector<Piece> Mine;
};

std::mutex Mu;

bool mpiRunning() {
  int Init = 0, Fin = 0;
  PMPI_Initialized(&Init);
  PMPI_Finalized(&Fin);
  return Init && !Fin;
}

MapKind kindOf(int64_t M) {
  switch (M) {
  case IOPOLY_MAP_BLOCK: return MapKind::Block;
  case IOPOLY_MAP_CYCLIC: return MapKind::Cyclic;
  case IOPOLY_MAP_INTRA: return MapKind::Intra;
  default: return MapKind::Cache;
  }
}

const char *kindName(int64_t M) {
  switch (M) {
  case IOPOLY_MAP_BLOCK: return "block";
  case IOPOLY_MAP_CYCLIC: return "cyclic";
  case IOPOLY_MAP_INTRA: return "intra";
  default: return "cache";
  }
}

/// The topology of the run (IOPOLY_TOPOLOGY), read once; null without.
const Topology *runTopology() {
  static Topology T;
  static const Topology *Out = [] () -> const Topology * {
    const Config *C = nullptr;
    if (Status S = globalConfig(C))
      fatal(S.message());
    if (C->Topology.empty())
      return nullptr;
    if (std::string E = loadTopology(C->Topology, T); !E.empty())
      fatal("IOPOLY_TOPOLOGY=" + C->Topology + ": " + E);
    return &T;
  }();
  return Out;
}

DistState *decide(iopoly_dist_loop *D) {
  auto *S = new DistState();
  if (D->version != IOPOLY_DIST_VERSION)
    fatal(format("distributed loop %s was compiled for version %lld of iopoly/dist.h, this runtime has %d",
                 D->where ? D->where : "?", static_cast<long long>(D->version), IOPOLY_DIST_VERSION));
  int Rank = 0, Size = 1;
  if (!mpiRunning())
    startMpiForProgram(); // a program of several ranks that does not call MPI_Init
  if (mpiRunning()) {
    PMPI_Comm_rank(MPI_COMM_WORLD, &Rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &Size);
  }
  if (Size == 1) {
    if (D->iterations > 0)
      S->Mine.push_back({0, D->iterations});
    return S;
  }
  MapTree Tree;
  const char *From;
  if (const Topology *T = runTopology()) {
    if (T->numRanks() != Size)
      fatal(format("IOPOLY_TOPOLOGY=%s runs %d ranks, but MPI_COMM_WORLD has %d (distributed loop %s)",
                   T->Source.c_str(), T->numRanks(), Size, D->where ? D->where : "?"));
    Tree = MapTree::fromTopology(*T);
    From = "IOPOLY_TOPOLOGY";
  } else {
    Tree = MapTree::flat(Size);
    From = "a flat hierarchy";
  }
  std::string Sig = Tree.signature();
  if (D->table_ranks == Size && D->topology && Sig == D->topology) {
    for (int64_t K = D->table_start[Rank]; K < D->table_start[Rank + 1]; ++K)
      S->Mine.push_back({D->table[2 * K], D->table[2 * K + 1]});
    if (Rank == 0)
      verbose(format("distributed loop %s: %s mapping, table compiled for this topology", D->where, kindName(D->mapping)));
    return S;
  }
  // The iteration chunks, as the plugin computed them.
  std::vector<IterChunk> Chunks(static_cast<size_t>(D->nchunks));
  for (int64_t C = 0; C < D->nchunks; ++C)
    for (int64_t K = D->tag_start[C]; K < D->tag_start[C + 1]; ++K)
      Chunks[static_cast<size_t>(C)].Tag.push_back(static_cast<uint32_t>(D->tags[K]));
  for (int64_t P = 0; P < D->npieces; ++P)
    Chunks[static_cast<size_t>(D->pieces[3 * P + 2])].Pieces.push_back({D->pieces[3 * P], D->pieces[3 * P + 1]});
  MapOptions O;
  O.Kind = kindOf(D->mapping);
  O.Local = D->local != 0;
  O.BThres = static_cast<double>(D->bthres_permille) / 1000;
  O.Alpha = static_cast<double>(D->alpha_permille) / 1000;
  O.Beta = static_cast<double>(D->beta_permille) / 1000;
  MapReport R;
  auto Per = mapIterations(Chunks, D->iterations, Tree, O, &R);
  S->Mine = Per[static_cast<size_t>(Rank)];
  if (Rank == 0)
    verbose(format("distributed loop %s: %s mapping over %d ranks computed at startup for %s (%lld iteration chunks, "
                   "imbalance %.1f%%, data chunks per level %llu/%llu/%llu, tree nodes cut by the clustering %zu, by block's cut refined %zu, as block %zu)",
                   D->where, kindName(D->mapping), Size, From, static_cast<long long>(D->nchunks), 100 * R.Imbalance,
                   static_cast<unsigned long long>(R.FootprintL1), static_cast<unsigned long long>(R.FootprintL2),
                   static_cast<unsigned long long>(R.FootprintL3), R.ClusterNodes, R.AlignedNodes, R.BlockNodes));
  return S;
}

} // namespace

extern "C" {

int64_t __iopoly_dist_begin(iopoly_dist_loop *D) {
  {
    std::lock_guard<std::mutex> L(Mu);
    if (!D->state)
      D->state = decide(D);
  }
  // A sync point first: what every rank wrote redundantly before the loop
  // is everybody's, and the loop's own writes (disjoint between ranks) may
  // then go to the shared files as soon as they are evicted.
  if (mpiRunning() && __iopoly_mpi_event(static_cast<int>(MpiEvent::DistBegin), nullptr) != 0)
    fatal(format("at the start of distributed loop %s: %s", D->where ? D->where : "?", iopoly_last_error()));
  return static_cast<int64_t>(static_cast<DistState *>(D->state)->Mine.size());
}

void __iopoly_dist_piece(iopoly_dist_loop *D, int64_t P, int64_t *First, int64_t *End) {
  const Piece &Pc = static_cast<DistState *>(D->state)->Mine[static_cast<size_t>(P)];
  *First = Pc.first;
  *End = Pc.second;
}

void __iopoly_dist_end(iopoly_dist_loop *D) {
  // MPI_Barrier through libiopoly_mpi's wrapper: the sync point first.
  if (mpiRunning()) {
    if (__iopoly_mpi_event(static_cast<int>(MpiEvent::DistEnd), nullptr) != 0)
      fatal(format("at the end of distributed loop %s: %s", D->where ? D->where : "?", iopoly_last_error()));
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

} // extern "C"
