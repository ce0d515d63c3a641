//===- Glue.cpp - libiopoly_mpi: MPI_Init, barriers and MPI_Finalize -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// libiopoly_mpi sits between an MPI program and libmpi (iopoly-mpicc links
// it before -lmpi) and wraps four calls through the MPI profiling
// interface:
//   MPI_Init, MPI_Init_thread  the runtime never starts MPI before the
//        program does: disk-resident globals wait (Group.h, deferGlobal)
//        and are opened here, right after PMPI_Init, collectively by the
//        ranks whose disk directories are the same (after %r/%h/%p), which
//        then share them. If iopoly had to start MPI earlier (a file opened
//        with IOPOLY_BACKEND=mpiio before MPI_Init), the running MPI is
//        adopted instead of initialized twice.
//   MPI_Barrier  a sync point of every shared array whose ranks all take
//        part (runtime/core/SharedArrays.cpp), then the barrier.
//   MPI_Finalize a last sync point of every shared array, while MPI still
//        works, then PMPI_Finalize.
// Thread levels pass through unchanged; the runtime asks MPI for the level
// it got before it lets its I/O threads call MPI.
//
//===----------------------------------------------------------------------===//
#include "mpi/HierarchyClient.h"
#include "mpi/Glue.h"
#include "mpi/MpiGroup.h"

#include "core/Config.h"
#include "OmpioLocking.h"

#include "iopoly.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace iopoly {
namespace {

class Glue;
Glue &glue();

class Glue final : public MpiGlue {
public:
  bool active() const override { return Active.load(std::memory_order_acquire); }
  std::shared_ptr<Group> dataGroup() override {
    std::lock_guard<std::mutex> L(Mu);
    return Data;
  }
  StripeRouter *router() override { return Router.get(); }

  /// Inside MPI_Init, once MPI runs: the data group, then the globals.
  void afterInit() {
    if (Active.exchange(true))
      return;
    std::shared_ptr<MpiGroup> G;
    if (Status S = makeDataGroup(G))
      fail("MPI_Init", S.message());
    {
      std::lock_guard<std::mutex> L(Mu);
      Data = G;
    }
    // The storage-cache hierarchy: servers spawned now, before any array
    // of this MPI program is opened.
    const Config *C = nullptr;
    if (Status S = globalConfig(C))
      fail("MPI_Init", S.message());
    if (!C->Topology.empty() && C->CacheServers)
      if (Status S = startHierarchy(C->Topology, Router))
        fail("MPI_Init", S.message());
    if (__iopoly_mpi_event(static_cast<int>(MpiEvent::Initialized), nullptr) != 0)
      fail("MPI_Init", iopoly_last_error());
  }

  bool startMpi() override {
    int Init = 0;
    PMPI_Initialized(&Init);
    if (Init)
      return active();
    int Size = 1;
    for (const char *V : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "SLURM_NTASKS"})
      if (const char *E = std::getenv(V)) {
        Size = std::atoi(E);
        break;
      }
    if (Size <= 1)
      return false;
    int Provided = 0;
    iopoly::requestOmpioRangeLocks();
    if (PMPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &Provided) != MPI_SUCCESS)
      return false;
    OwnsMpi = true;
    std::atexit([] { glue().finalizeOwned(); });
    afterInit();
    return true;
  }

  /// At exit, when the glue started MPI: as the program's MPI_Finalize.
  void finalizeOwned() {
    int Fin = 0;
    PMPI_Finalized(&Fin);
    if (Fin || !OwnsMpi)
      return;
    beforeFinalize();
    PMPI_Finalize();
  }

  void beforeBarrier(MPI_Comm C) {
    if (active() && __iopoly_mpi_event(static_cast<int>(MpiEvent::Barrier), &C) != 0)
      std::fprintf(stderr, "iopoly: error: at MPI_Barrier: %s\n", iopoly_last_error());
  }

  void beforeFinalize() {
    if (!active())
      return;
    if (__iopoly_mpi_event(static_cast<int>(MpiEvent::Finalizing), nullptr) != 0)
      std::fprintf(stderr, "iopoly: error: at MPI_Finalize, the shared arrays could not be written back: %s\n",
                   iopoly_last_error());
    stopHierarchy(Router.get()); // everything went through it already
    Active = false;
  }

private:
  [[noreturn]] static void fail(const char *Where, const std::string &Msg) {
    std::fprintf(stderr, "iopoly: fatal: in %s: %s\n", Where, Msg.c_str());
    std::fflush(stderr);
    PMPI_Abort(MPI_COMM_WORLD, 1);
    std::abort();
  }

  /// The ranks of MPI_COMM_WORLD with the same disk directories: each
  /// rank's directories are gathered, and a rank's color is the lowest
  /// rank with the same text (exact, no hashing).
  static Status makeDataGroup(std::shared_ptr<MpiGroup> &Out) {
    std::string Key = __iopoly_disk_key();
    int Rank = 0, Size = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &Rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &Size);
    int Len = static_cast<int>(Key.size());
    std::vector<int> Lens(static_cast<size_t>(Size)), Offs(static_cast<size_t>(Size));
    PMPI_Allgather(&Len, 1, MPI_INT, Lens.data(), 1, MPI_INT, MPI_COMM_WORLD);
    long long Total = 0;
    for (int R = 0; R < Size; ++R) {
      Offs[static_cast<size_t>(R)] = static_cast<int>(Total);
      Total += Lens[static_cast<size_t>(R)];
    }
    if (Total > (1LL << 30))
      return Status::error("the disk directories of all ranks together exceed 1 GiB of text");
    std::string All(static_cast<size_t>(Total), '\0');
    PMPI_Allgatherv(Key.data(), Len, MPI_CHAR, &All[0], Lens.data(), Offs.data(), MPI_CHAR, MPI_COMM_WORLD);
    int Color = Rank;
    for (int R = 0; R < Size; ++R)
      if (All.compare(static_cast<size_t>(Offs[static_cast<size_t>(R)]), static_cast<size_t>(Lens[static_cast<size_t>(R)]),
                      Key) == 0) {
        Color = R;
        break;
      }
    MPI_Comm Split;
    if (PMPI_Comm_split(MPI_COMM_WORLD, Color, Rank, &Split) != MPI_SUCCESS)
      return Status::error("MPI_Comm_split of MPI_COMM_WORLD by disk directories failed");
    int N = 0;
    PMPI_Comm_size(Split, &N);
    std::string Desc = N == Size ? "MPI_COMM_WORLD" : format("the ranks of MPI_COMM_WORLD with rank %d's disks", Color);
    Status S = MpiGroup::make(Split, Desc, Out);
    PMPI_Comm_free(&Split);
    return S;
  }

  std::atomic<bool> Active{false};
  bool OwnsMpi = false;
  std::mutex Mu;
  std::shared_ptr<MpiGroup> Data;
  std::unique_ptr<StripeRouter> Router; ///< kept to the end: stats read it
};


Glue &glue() {
  static Glue *G = new Glue(); // outlives static destructors and atexit
  return *G;
}

} // namespace

bool startMpiForProgram() { return glue().startMpi(); }

namespace {
__attribute__((constructor)) void registerGlue() { __iopoly_mpi_register(&glue()); }

} // namespace
} // namespace iopoly

using iopoly::glue;

extern "C" {

IOPOLY_API int MPI_Init(int *Argc, char ***Argv) {
  int Init = 0;
  PMPI_Initialized(&Init);
  if (!Init)
    iopoly::requestOmpioRangeLocks();
  int R = Init ? MPI_SUCCESS : PMPI_Init(Argc, Argv);
  if (R == MPI_SUCCESS)
    glue().afterInit();
  return R;
}

IOPOLY_API int MPI_Init_thread(int *Argc, char ***Argv, int Required, int *Provided) {
  int Init = 0;
  PMPI_Initialized(&Init);
  int R = MPI_SUCCESS;
  if (Init)
    PMPI_Query_thread(Provided);
  else {
    iopoly::requestOmpioRangeLocks();
    R = PMPI_Init_thread(Argc, Argv, Required, Provided);
  }
  if (R == MPI_SUCCESS)
    glue().afterInit();
  return R;
}

IOPOLY_API int MPI_Barrier(MPI_Comm Comm) {
  glue().beforeBarrier(Comm);
  return PMPI_Barrier(Comm);
}

IOPOLY_API int MPI_Finalize(void) {
  glue().beforeFinalize();
  return PMPI_Finalize();
}

} // extern "C"
