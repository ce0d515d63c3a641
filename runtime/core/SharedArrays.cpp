//===- SharedArrays.cpp - Arrays shared by the ranks of a communicator -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// One striped file set for all the ranks of a group (Group.h), opened
// together: rank 0 creates or checks the files under the array's lock,
// then every rank opens them (MPI-IO: one MPI file per disk on the group's
// communicator). Each rank keeps its own buffer.
//
// Consistency model (README, "Arrays shared by MPI ranks"): a rank sees its
// own writes at once; it sees another rank's writes after a sync point that
// both take part in: MPI_Barrier on a communicator that holds every rank of
// the array, iopoly_sync, iopoly_close, the end of a distributed loop, and
// MPI_Finalize. At a sync point each rank writes the bytes it changed (a
// stripe keeps a twin of its bytes from when it became dirty; the bytes
// that differ are this rank's), the ranks wait for each other, and every
// copy that another rank may have changed is dropped (attached stripes are
// read again in place). Ranks that write disjoint bytes, even of one
// stripe, therefore never overwrite each other; ranks that write the same
// bytes between two sync points race, as with any shared memory.
//
//===----------------------------------------------------------------------===//
#include "core/Group.h"
#include "core/FileHeader.h"
#include "core/Runtime.h"

#include "iopoly.h"
#include "memory/Arena.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace iopoly {

namespace {
std::atomic<MpiGlue *> Glue{nullptr};

} // namespace

MpiGlue *mpiGlue() { return Glue.load(std::memory_order_acquire); }

std::vector<iopoly_array *> Runtime::openArrays() {
  std::vector<iopoly_array *> All;
  {
    std::lock_guard<std::mutex> L(RegistryMu);
    for (const iopoly_array *A : Open)
      All.push_back(const_cast<iopoly_array *>(A));
  }
  std::sort(All.begin(), All.end(), [](const iopoly_array *X, const iopoly_array *Y) { return X->Id < Y->Id; });
  return All;
}

Status Runtime::openSharedFiles(iopoly_array &A, int Flags, Group &G, ArrayOrigin Origin) {
  // Every rank must ask for the same array: say which rank differs.
  std::string Args = format("name '%s', %zu-byte elements, dims %s, layout {%s}, flags 0x%x, %zu-byte stripes on %zu "
                            "disks",
                            A.Name.c_str(), A.Geo.ElemSize, A.Geo.dimsString().c_str(), A.Geo.layoutString().c_str(),
                            Flags, C.StripeSize, C.numDisks());
  if (Status S = G.same(format("the arguments of the collective open of array '%s'", A.Name.c_str()), Args))
    return S;
  // Rank 0 creates or checks the files (with this process's own handles)
  // and keeps the lock; the others wait for its verdict.
  Status Prep;
  std::vector<unsigned long long> Zero{0};
  if (G.rank() == 0) {
    Prep = openArrayFiles(*this, A, Flags, Origin);
    if (Prep.ok() && A.Checksums)
      Prep = Status::error(ErrorCode::InvalidArgument,
                           format("array '%s' keeps per-stripe checksums (IOPOLY_CHECKSUM=on): arrays shared by MPI "
                                  "ranks cannot keep them yet; create it with IOPOLY_CHECKSUM=off",
                                  A.Name.c_str()));
    if (Prep.ok()) {
      Zero[0] = A.ZeroKnown;
      for (size_t D = 0; D < A.Files.size(); ++D)
        if (int R = A.Files[D]->close(); R < 0 && Prep.ok())
          Prep = Status::error(format("closing '%s': %s", A.Paths[D].c_str(), std::strerror(-R)));
      A.Files.clear();
    }
  }
  auto Unlock = [&] {
    if (A.LockFd >= 0) {
      ::close(A.LockFd);
      A.LockFd = -1;
    }
  };
  if (Status S = G.agree(Prep)) {
    Unlock();
    return S;
  }
  G.broadcast(Zero, 0);
  A.Writable = (Flags & (IOPOLY_CREATE | IOPOLY_RDWR)) != 0;
  A.Paths.clear();
  for (size_t D = 0; D < C.numDisks(); ++D)
    A.Paths.push_back(C.DiskDirs[D] + "/" + A.Name + ".iop");
  Status Opened;
  for (size_t D = 0; D < C.numDisks() && Opened.ok(); ++D) {
    std::unique_ptr<BackendFile> F;
    FileHints H{C.StripeSize, D, C.numDisks(), G.comm()};
    Opened = B->open(A.Paths[D], A.Writable ? OpenMode::ReadWrite : OpenMode::ReadOnly, H, F);
    if (Opened.ok())
      A.Files.push_back(std::move(F));
  }
  if (Status S = G.agree(Opened)) {
    for (auto &F : A.Files)
      F->close();
    A.Files.clear();
    Unlock();
    return Status::error(format("array '%s': %s", A.Name.c_str(), S.message().c_str()));
  }
  if (Zero[0])
    A.allZeroOnDisk();
  // The headers say what rank 0 found or made; commits and dirty marks of
  // the crash-consistency journal are per process and would race between
  // ranks, so a shared array is not journaled (README: limitations).
  A.Journaled = false;
  A.WrittenSinceSync.reset(new std::atomic<unsigned long long>[C.numDisks()]);
  for (size_t D = 0; D < C.numDisks(); ++D)
    A.WrittenSinceSync[D] = 0;
  verbose(format("array '%s' opened on %s (rank %d)", A.Name.c_str(), G.describe().c_str(), G.rank()));
  return {};
}

Status Runtime::syncShared(iopoly_array *A) {
  Group &G = *A->Grp;
  const size_t T = A->Files.size();
  std::vector<std::vector<IoRun>> Runs;
  std::vector<std::string> Bytes;
  Status Mine = Buffer->takeDirtyRuns(A, Runs, Bytes);
  Runs.resize(T);
  Bytes.resize(T);
  // Under a storage-cache hierarchy every transfer goes through the
  // servers, one stripe piece at a time.
  StripeRouter *Routed = IO->router();
  // What every rank changed on each disk since the last sync point: disks
  // nobody wrote keep their copies and need no collective transfer.
  std::vector<unsigned long long> Changed(T + 1, 0);
  for (size_t D = 0; D < T; ++D) {
    Changed[D] = A->WrittenSinceSync ? A->WrittenSinceSync[D].exchange(0) : 1;
    for (const IoRun &R : Runs[D])
      Changed[D] += R.Len;
  }
  Changed[T] = Mine.ok() ? 0 : 1;
  G.allSum(Changed);
  if (!Changed[T]) {
    bool Any = false;
    for (size_t D = 0; D < T; ++D)
      Any |= Changed[D] != 0;
    if (!Any) {
      // Nothing changed anywhere: copies stay; stripes attached for
      // writing become writable again.
      Buffer->rereadDone(A);
      Buffer->countSync(A);
      return {};
    }
  }
  // Every rank makes the same calls on every disk file, with or without
  // bytes of its own: they are collective on MPI-IO.
  // (Read-only on every rank alike: the open flags were agreed on.)
  for (size_t D = 0; D < T && A->Writable; ++D) {
    BackendFile &F = *A->Files[D];
    if (!Changed[D])
      continue; // nobody wrote this disk file: no collective call on it
    if (Routed) {
      const char *P = Bytes[D].data();
      for (const IoRun &R : Runs[D]) {
        uint64_t Rel = R.Offset - HeaderBytes;
        size_t Stripe = static_cast<size_t>(Rel / C.StripeSize) * T + D;
        if (Mine.ok())
          Mine = IO->move(*A, Stripe, static_cast<uint32_t>(Rel % C.StripeSize), const_cast<char *>(P), R.Len, true);
        P += R.Len;
      }
      continue;
    }
    for (const IoRun &R : Runs[D]) { // into the trace, as transfers of stripe pieces
      uint64_t Rel = R.Offset - HeaderBytes;
      IO->record(*A, static_cast<size_t>(Rel / C.StripeSize) * T + D, static_cast<uint32_t>(Rel % C.StripeSize), R.Len,
                 true);
    }
    if (F.collective()) {
      if (int R = F.writeAll(Runs[D].data(), Runs[D].size(), Bytes[D].data()); R < 0 && Mine.ok())
        Mine = Status::error(format("collective write of %zu runs to '%s' failed: %s", Runs[D].size(),
                                    A->Paths[D].c_str(), std::strerror(-R)));
      continue;
    }
    const char *P = Bytes[D].data();
    for (const IoRun &R : Runs[D]) {
      if (Mine.ok())
        Mine = writeFully(F, P, R.Len, R.Offset, A->Paths[D], Retry);
      P += R.Len;
    }
  }
  // The sync point's own writes are no change for the next one.
  for (size_t D = 0; D < T && A->WrittenSinceSync; ++D)
    A->WrittenSinceSync[D] = 0;
  for (size_t D = 0; D < T && A->Writable && !Routed; ++D)
    if (Changed[D] && A->Files[D]->collective())
      if (int R = A->Files[D]->syncAll(); R < 0 && Mine.ok())
        Mine = Status::error(format("MPI_File_sync of '%s' failed: %s", A->Paths[D].c_str(), std::strerror(-R)));
  // The agreement is also the barrier that orders every rank's writes
  // before every rank's reads.
  Status All = G.agree(Mine);
  if (A->ZeroKnown) {
    // Written by anyone: no longer known to be zero.
    std::vector<unsigned long long> Words(A->Geo.numStripes() / 64 + 1);
    for (size_t W = 0; W < Words.size(); ++W)
      Words[W] = A->ZeroOnDisk.word(W);
    G.allAnd(Words);
    for (size_t W = 0; W < Words.size(); ++W)
      A->ZeroOnDisk.andWord(W, Words[W]);
  }
  // The servers' copies that changed behind them go too.
  if (Routed && All.ok())
    All = Routed->epoch(*A, G);
  std::vector<std::pair<size_t, char *>> Pinned;
  // A group of one rank (a 1-rank run, or IOPOLY_DIR=.../r%r: each rank
  // its own files) changed nothing behind its own copies: they stay.
  std::vector<bool> DiskChanged(T);
  for (size_t D = 0; D < T; ++D)
    DiskChanged[D] = Changed[D] != 0 && G.size() > 1;
  Buffer->dropAfterSync(A, DiskChanged, Pinned);
  // Attached stripes are read again in place, collectively per disk file.
  Status Reread;
  for (size_t D = 0; D < T; ++D) {
    BackendFile &F = *A->Files[D];
    std::vector<IoRun> Want;
    std::vector<char *> Into;
    for (const auto &P : Pinned)
      if (A->Geo.diskOf(P.first) == D) {
        Want.push_back({A->Geo.fileOffset(P.first), C.StripeSize});
        Into.push_back(P.second);
        if (Routed && Reread.ok())
          Reread = IO->move(*A, P.first, 0, P.second, C.StripeSize, /*Write=*/false);
        else if (!Routed)
          IO->record(*A, P.first, 0, C.StripeSize, /*Write=*/false);
      }
    if (Routed)
      continue;
    if (F.collective()) {
      std::string Buf(Want.size() * C.StripeSize, '\0');
      if (int R = F.readAll(Want.data(), Want.size(), &Buf[0]); R < 0) {
        if (Reread.ok())
          Reread = Status::error(format("collective read of %zu stripes of '%s' failed: %s", Want.size(),
                                        A->Paths[D].c_str(), std::strerror(-R)));
      } else {
        for (size_t K = 0; K < Into.size(); ++K)
          std::memcpy(Into[K], Buf.data() + K * C.StripeSize, C.StripeSize);
      }
      continue;
    }
    for (size_t K = 0; K < Want.size(); ++K)
      if (Reread.ok())
        Reread = readFully(F, Into[K], C.StripeSize, Want[K].Offset, A->Paths[D], Retry);
  }
  Buffer->rereadDone(A);
  if (All)
    return Status::error(format("sync point of shared array '%s' (%s): %s", A->Name.c_str(), G.describe().c_str(),
                                All.message().c_str()));
  return Reread;
}

Status Runtime::syncCovered(const void *Comm) {
  Status First;
  for (iopoly_array *A : openArrays())
    if (A->shared() && !A->Pending && (!Comm || A->Grp->coveredBy(Comm)))
      if (Status S = syncShared(A))
        if (First.ok())
          First = S;
  return First;
}

Status Runtime::createPending(const char *Name, size_t ElemSize, int NDims, const size_t *Dims, const int *Layout,
                              const void *Init,
                              iopoly_array *&Out) {
  if (Status S = checkArrayName(Name))
    return S;
  Geometry G;
  if (Status S = Geometry::make(ElemSize, NDims, Dims, Layout, C.StripeSize, C.numDisks(), G))
    return Status::error(format("array '%s': %s", Name, S.message().c_str()));
  std::lock_guard<std::mutex> L(RegistryMu);
  for (const iopoly_array *O : Open)
    if (O->Name == Name)
      return Status::error(format("array '%s' is already open in this process", Name));
  auto A = std::make_unique<iopoly_array>(G);
  A->Name = Name;
  A->Id = NextId++;
  A->PendingInit = Init;
  A->Pending = true;
  void *Base = nullptr;
  if (Status S = arenaReserve(A.get(), G.TotalBytes, Base))
    return Status::error(format("array '%s': %s", Name, S.message().c_str()));
  A->AllocBase = Base;
  Out = registerArray(std::move(A));
  return {};
}

Status Runtime::writeInitializer(iopoly_array &A, const void *Init) {
  if (!Init)
    return {};
  const unsigned char *I = static_cast<const unsigned char *>(Init);
  const size_t S = C.StripeSize, Total = A.Geo.TotalBytes;
  bool Writer = !A.Grp || A.Grp->rank() == 0;
  Status First;
  // Whole slots from an aligned copy: the files may be open with O_DIRECT.
  void *Slot = nullptr;
  if (Writer && posix_memalign(&Slot, 4096, S) != 0)
    First = Status::error("out of memory");
  for (size_t Stripe = 0; Stripe * S < Total; ++Stripe) {
    size_t Off = Stripe * S, N = std::min(S, Total - Off);
    // Files start zeroed: only stripes with a non-zero initializer.
    if (std::all_of(I + Off, I + Off + N, [](unsigned char X) { return X == 0; }))
      continue;
    A.writtenToDisk(Stripe); // every rank knows it, no message needed
    if (!Writer || First)
      continue;
    std::memset(Slot, 0, S);
    std::memcpy(Slot, I + Off, N);
    size_t D = A.Geo.diskOf(Stripe);
    First = writeFully(*A.Files[D], Slot, S, A.Geo.fileOffset(Stripe), A.Paths[D], Retry);
  }
  std::free(Slot);
  return A.Grp ? A.Grp->agree(First) : First;
}

Status Runtime::openPendingShared(const std::shared_ptr<Group> &G) {
  std::lock_guard<std::mutex> L(PendingMu);
  Status First;
  for (iopoly_array *A : openArrays()) {
    if (!A->Pending)
      continue;
    Status S = openSharedFiles(*A, IOPOLY_CREATE | IOPOLY_TRUNC, *G, ArrayOrigin::Global);
    if (S.ok()) {
      A->Grp = G;
      S = writeInitializer(*A, A->PendingInit);
    }
    if (S && First.ok())
      First = Status::error(format("disk-resident global '%s': %s", A->Name.c_str(), S.message().c_str()));
    if (S.ok())
      A->Pending.store(false, std::memory_order_release);
  }
  return First;
}

Status Runtime::openPendingAlone(iopoly_array *A) {
  // Started by mpirun on several ranks: every rank gets here at the same
  // point of the same code, so MPI starts now and opens the globals
  // collectively (shared) instead of each rank taking them alone.
  if (MpiGlue *Gl = mpiGlue(); Gl && !Gl->active())
    Gl->startMpi();
  std::lock_guard<std::mutex> L(PendingMu);
  if (!A->Pending.load(std::memory_order_acquire))
    return {};
  MpiGlue *Gl = mpiGlue();
  if (Gl && Gl->active())
    return Status::error(format("disk-resident global '%s' could not be opened at MPI_Init (see the error printed "
                                "there)",
                                A->Name.c_str()));
  verbose(format("disk-resident global '%s' used before MPI_Init: it belongs to this process alone", A->Name.c_str()));
  Status S;
  {
    std::lock_guard<std::mutex> R(RegistryMu);
    S = openArrayFiles(*this, *A, IOPOLY_CREATE | IOPOLY_TRUNC, ArrayOrigin::Global);
  }
  if (S.ok())
    S = writeInitializer(*A, A->PendingInit);
  if (S)
    return Status::error(format("cannot create disk-resident global '%s': %s", A->Name.c_str(), S.message().c_str()));
  A->Pending.store(false, std::memory_order_release);
  return {};
}

bool deferGlobal(const char *Name, size_t ElemSize, int NDims, const size_t *Dims, const int *Layout, const void *Init,
                 void **Slot) {
  MpiGlue *G = mpiGlue();
  if (!G || G->active())
    return false;
  Runtime *RT = nullptr;
  if (Status S = Runtime::get(RT))
    fatal(S.message());
  iopoly_array *A = nullptr;
  if (Status S = RT->createPending(Name, ElemSize, NDims, Dims, Layout, Init, A))
    fatal(format("cannot create disk-resident global '%s': %s", Name, S.message().c_str()));
  *Slot = A->AllocBase;
  return true;
}

} // namespace iopoly

using namespace iopoly;

extern "C" {

void __iopoly_mpi_register(MpiGlue *G) { Glue.store(G, std::memory_order_release); }

int __iopoly_mpi_event(int Event, const void *Comm) {
  clearLastError();
  Runtime *RT = Runtime::existing();
  Status S;
  switch (static_cast<MpiEvent>(Event)) {
  case MpiEvent::Initialized:
    if (RT && mpiGlue()) {
      if (StripeRouter *R = mpiGlue()->router())
        RT->installRouter(R);
      if (std::shared_ptr<Group> G = mpiGlue()->dataGroup())
        S = RT->openPendingShared(G);
    }
    break;
  case MpiEvent::Barrier:
    if (RT)
      S = RT->syncCovered(Comm);
    break;
  case MpiEvent::Finalizing:
    if (RT) {
      S = RT->syncCovered(nullptr);
      if (RT->routed()) {
        // Everything through the hierarchy while it is there; the files
        // are then complete (writes go through), the servers can go.
        if (Status F = RT->flush(nullptr); F && S.ok())
          S = F;
        RT->installRouter(nullptr);
      }
    }
    break;
  case MpiEvent::DistBegin:
    if (RT) {
      S = RT->syncCovered(nullptr);
      RT->setSharedWriteThrough(true);
    }
    break;
  case MpiEvent::DistEnd:
    if (RT)
      RT->setSharedWriteThrough(false);
    break;
  default:
    S = Status::error(format("unknown MPI event %d", Event));
  }
  if (S) {
    setLastError(S.message());
    return -1;
  }
  return 0;
}

iopoly_array *__iopoly_open_shared(const char *Name, size_t ElemSize, int NDims, const size_t *Dims,
                                   const int *Layout, int Flags, const std::shared_ptr<Group> *G) {
  clearLastError();
  Runtime *RT = nullptr;
  if (Status S = Runtime::get(RT)) {
    setLastError("iopoly_open_comm: " + S.message());
    return nullptr;
  }
  iopoly_array *A = nullptr;
  if (Status S = RT->open(Name, ElemSize, NDims, Dims, Layout, Flags, A, ArrayOrigin::Api, *G)) {
    setLastError("iopoly_open_comm: " + S.message());
    return nullptr;
  }
  return A;
}

void *__iopoly_alloc_shared(const char *Name, size_t Bytes, int Flags, const std::shared_ptr<Group> *G) {
  clearLastError();
  if (Flags != IOPOLY_CREATE && Flags != (IOPOLY_CREATE | IOPOLY_TRUNC)) {
    setLastError(format("iopoly_alloc_comm: flags 0x%x must be IOPOLY_CREATE, optionally | IOPOLY_TRUNC", Flags));
    return nullptr;
  }
  if (Bytes == 0) {
    setLastError(format("iopoly_alloc_comm: array '%s': size is 0", Name ? Name : "(null)"));
    return nullptr;
  }
  Runtime *RT = nullptr;
  if (Status S = Runtime::get(RT)) {
    setLastError("iopoly_alloc_comm: " + S.message());
    return nullptr;
  }
  iopoly_array *A = nullptr;
  size_t Dims[1] = {Bytes};
  if (Status S = RT->open(Name, 1, 1, Dims, nullptr, Flags, A, ArrayOrigin::Api, *G)) {
    setLastError("iopoly_alloc_comm: " + S.message());
    return nullptr;
  }
  void *Base = nullptr;
  if (Status S = arenaReserve(A, Bytes, Base)) {
    (void)RT->close(A);
    setLastError(format("iopoly_alloc_comm: array '%s': %s", Name, S.message().c_str()));
    return nullptr;
  }
  A->AllocBase = Base;
  return Base;
}

void __iopoly_set_error(const char *Msg) { setLastError(Msg ? Msg : ""); }

const char *__iopoly_disk_key(void) {
  static std::string Key;
  const Config *C = nullptr;
  if (globalConfig(C))
    return "";
  if (Key.empty()) {
    char Cwd[4096] = "";
    if (!::getcwd(Cwd, sizeof Cwd))
      Cwd[0] = '\0';
    for (const std::string &D : C->DiskDirs)
      Key += (D.empty() || D[0] == '/' ? D : std::string(Cwd) + "/" + D) + "\n";
  }
  return Key.c_str();
}

int iopoly_sync(iopoly_array *a) {
  clearLastError();
  Runtime *RT = Runtime::existing();
  if (!RT)
    return 0;
  if (a && !RT->isOpen(a)) {
    setLastError(format("iopoly_sync: handle %p is not an open array", static_cast<void *>(a)));
    return -1;
  }
  Status S;
  if (!a)
    S = RT->syncCovered(nullptr);
  else if (a->shared())
    S = RT->syncShared(a);
  else
    S = RT->flush(a);
  if (S) {
    setLastError("iopoly_sync: " + S.message());
    return -1;
  }
  return 0;
}

} // extern "C"
