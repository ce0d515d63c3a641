//===- Runtime.cpp - The process-wide iopoly runtime -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/Runtime.h"
#include "core/FileHeader.h"
#include "core/Json.h"
#include "core/Group.h"
#include "core/OutputFile.h"
#include "core/Progress.h"
#include "core/Rescue.h"
#include "memory/FaultService.h"
#include "sched/RunSets.h"

#include "iopoly.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/sysinfo.h>
#include <unistd.h>

namespace iopoly {

namespace {
std::atomic<Runtime *> Instance{nullptr};
std::mutex InstanceMu;

/// A stripe buffer larger than the machine's memory would swap or be
/// killed: refuse IOPOLY_BUFFER above RAM + swap, naming both.
Status checkBufferFitsMemory(const Config &C) {
  struct sysinfo Info;
  if (::sysinfo(&Info) != 0)
    return {};
  unsigned long long Unit = Info.mem_unit ? Info.mem_unit : 1;
  unsigned long long Ram = Info.totalram * Unit, Swap = Info.totalswap * Unit;
  if (C.BufferBytes <= Ram + Swap)
    return {};
  const char *Spec = std::getenv("IOPOLY_BUFFER");
  return Status::error(ErrorCode::Config,
                       format("IOPOLY_BUFFER=%s (%zu bytes) is more than this machine's memory (%llu bytes of RAM, "
                              "%llu of swap): the stripe buffer must fit in memory",
                              Spec ? Spec : "", C.BufferBytes, Ram, Swap));
}

void atExitHandler() {
  Runtime *RT = Runtime::existing();
  if (!RT)
    return;
  RT->shutdown();
  if (RT->unsavedAtExit()) {
    // The program's own exit status would claim success: data it wrote is
    // not in its files (it is in a rescue file, or lost). Documented.
    std::fflush(nullptr);
    ::_exit(IOPOLY_EXIT_UNSAVED);
  }
}
} // namespace

Runtime *Runtime::existing() { return Instance.load(std::memory_order_acquire); }

Status Runtime::get(Runtime *&Out) {
  Out = Instance.load(std::memory_order_acquire);
  if (Out)
    return {};
  std::lock_guard<std::mutex> G(InstanceMu);
  Out = Instance.load(std::memory_order_relaxed);
  if (Out)
    return {};
  // Deliberately never destroyed: arrays may be used from other atexit
  // handlers and static destructors.
  Runtime *RT = new Runtime();
  if (Status S = RT->init()) {
    delete RT;
    return S;
  }
  Instance.store(RT, std::memory_order_release);
  std::atexit(atExitHandler);
  Out = RT;
  return {};
}

Status Runtime::init() {
  const Config *Global = nullptr;
  if (Status S = globalConfig(Global))
    return S;
  C = *Global;
  C.StatsPath = expandPathTemplate(C.StatsPath);
  C.TracePath = expandPathTemplate(C.TracePath);
  Started = std::chrono::steady_clock::now();
  Retry.IoRetries = C.IoRetries;
  if (Status S = checkBufferFitsMemory(C))
    return S;
  if (Status S = createBackend(C, B))
    return S;
  Model = std::make_unique<DiskModel>(C.Model, C.numDisks());
  Counters = std::make_unique<Stats>(C.numDisks());
  Trace = std::make_unique<TraceWriter>();
  if (!C.TracePath.empty())
    if (Status S = Trace->open(C.TracePath))
      return S;
  IO = std::make_unique<StripeIO>(*Model, C.ModelWait, Retry, Counters->IoNanos, C.numDisks());
  IO->setTrace(Trace.get());
  if (MpiGlue *G = mpiGlue())
    if (StripeRouter *R = G->router())
      installRouter(R);
  Workers = std::make_unique<IOWorkers>(C.numDisks(), false);
  Workers->setInlineWhile([Be = B.get(), Io = IO.get()] {
    StripeRouter *R = Io->router();
    return !Be->allowsBackgroundIO() || (R && !R->allowsThreads());
  });
  BufferEnv Env{C.StripeSize, C.bufferFrames(), C.Prefetch, *Counters, *Model, *Trace, *Workers, *IO,
                [this](iopoly_array *A) { return openPendingAlone(A); }, C.DiskDirs.empty() ? "." : C.DiskDirs[0],
                C.WriteBehind};
  Buffer = std::make_unique<StripeBuffer>(Env);
  if (!Buffer->status().ok())
    return Buffer->status();
  startProgress(*this, C);
  verbose(format("runtime started: %zu disks, %zu-byte stripes, %zu frames, backend %s, disk model %s",
                 C.numDisks(), C.StripeSize, C.bufferFrames(), B->name(), C.Model.Name.c_str()));
  return {};
}

bool Runtime::isOpen(const iopoly_array *A) {
  std::lock_guard<std::mutex> G(RegistryMu);
  return Open.count(A) != 0;
}

Status Runtime::open(const char *Name, size_t ElemSize, int NDims, const size_t *Dims,
                     const int *Layout, int Flags, iopoly_array *&Out, ArrayOrigin Origin,
                     std::shared_ptr<Group> Grp) {
  if (Status S = checkArrayName(Name))
    return S;
  const int Known = IOPOLY_RDONLY | IOPOLY_RDWR | IOPOLY_CREATE | IOPOLY_TRUNC;
  if (Flags & ~Known)
    return Status::error(ErrorCode::InvalidArgument,
                         format("array '%s': unknown flag bits 0x%x in 0x%x (known: IOPOLY_RDONLY 0x%x, IOPOLY_RDWR "
                                "0x%x, IOPOLY_CREATE 0x%x, IOPOLY_TRUNC 0x%x)",
                                Name, static_cast<unsigned>(Flags & ~Known), static_cast<unsigned>(Flags),
                                IOPOLY_RDONLY, IOPOLY_RDWR, IOPOLY_CREATE, IOPOLY_TRUNC));
  int Kind = Flags & (IOPOLY_RDONLY | IOPOLY_RDWR | IOPOLY_CREATE);
  if (Kind != IOPOLY_RDONLY && Kind != IOPOLY_RDWR && Kind != IOPOLY_CREATE)
    return Status::error(ErrorCode::InvalidArgument,
                         format("array '%s': flags 0x%x must contain exactly one of IOPOLY_RDONLY, "
                                "IOPOLY_RDWR, IOPOLY_CREATE",
                                Name, Flags));
  if ((Flags & IOPOLY_TRUNC) && !(Flags & IOPOLY_CREATE))
    return Status::error(ErrorCode::InvalidArgument,
                         format("array '%s': IOPOLY_TRUNC needs IOPOLY_CREATE (flags 0x%x)", Name, Flags));
  Geometry G;
  if (Status S = Geometry::make(ElemSize, NDims, Dims, Layout, C.StripeSize, C.numDisks(), G))
    return Status::wrap(S, format("array '%s': %s", Name, S.message().c_str()));

  std::lock_guard<std::mutex> L(RegistryMu);
  for (const iopoly_array *O : Open)
    if (O->Name == Name)
      return Status::error(format("array '%s' is already open in this process", Name));
  auto A = std::make_unique<iopoly_array>(G);
  A->Name = Name;
  A->Id = NextId++;
  if (Grp) {
    if (Status S = openSharedFiles(*A, Flags, *Grp, Origin))
      return S;
    A->Grp = std::move(Grp);
  } else if (Status S = openArrayFiles(*this, *A, Flags, Origin)) {
    return S;
  }
  Out = registerArray(std::move(A));
  return {};
}

iopoly_array *Runtime::registerArray(std::unique_ptr<iopoly_array> A) {
  Buffer->locked([&] {
    A->Fetched = Counters->fetchedBits(A->Name, A->Geo.numStripes());
    A->PerArray = Counters->arrayCounters(A->Name);
    A->PerArray->SizeBytes = A->Geo.TotalBytes;
    Trace->defineArray(A->Id, A->Name);
    return 0;
  });
  iopoly_array *Out = A.release();
  Open.insert(Out);
  return Out;
}

Status Runtime::flush(iopoly_array *A) {
  Status First = Buffer->flush(A);
  // In open order: syncing a shared array's MPI-IO files is collective,
  // and every rank must reach its arrays in the same order. A commit only
  // when everything was written back: a failed write-back leaves the
  // headers dirty, as the files are. The registry lock keeps the arrays
  // from being closed meanwhile.
  std::vector<iopoly_array *> Arrays = openArrays();
  std::lock_guard<std::mutex> L(RegistryMu);
  for (iopoly_array *O : Arrays) {
    if (A && O != A)
      continue;
    if (O->Pending || !O->Writable)
      continue;
    // A shared array's sync is collective: every rank makes it, whatever
    // happened here (it is never journaled, so nothing is marked clean).
    if (!First.ok() && !O->shared())
      continue;
    if (Status S = commitArray(*O, Retry))
      if (First.ok())
        First = S;
  }
  return First;
}

Status Runtime::close(iopoly_array *A) {
  {
    std::lock_guard<std::mutex> L(RegistryMu);
    if (!Open.count(A))
      return Status::error("handle is not an open array (closed twice?)");
  }
  // A shared array is closed by all its ranks together: their changes
  // meet on disk first.
  if (A->shared())
    if (Status S = syncShared(A))
      return S;
  if (Status S = Buffer->drop(A))
    return S;
  if (Status S = commitArray(*A, Retry))
    return Status::wrap(S, format("array '%s' not closed: %s", A->Name.c_str(), S.message().c_str()));
  Status S = closeArrayFiles(*this, *A);
  {
    std::lock_guard<std::mutex> L(RegistryMu);
    Open.erase(A);
  }
  A->Magic = iopoly_array::DeadMagic;
  delete A;
  return S;
}

std::string Runtime::statsJSON() {
  std::vector<std::string> SharedDescs;
  for (iopoly_array *A : openArrays())
    if (A->shared()) {
      JsonWriter W;
      W.beginObject();
      W.key("array").value(A->Name);
      W.key("ranks").value(A->Grp->describe());
      W.key("rank").value(static_cast<long long>(A->Grp->rank()));
      W.endObject();
      SharedDescs.push_back(W.str());
    }
  std::string DirectIO = B->directStatus();
  std::string BackendExtra = B->statsJSON();
  double Wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - Started).count();
  return Buffer->locked([&] {
    const iopoly::Counters &K = Counters->C;
    uint64_t Distinct = Counters->distinctStripes();
    JsonWriter W;
    W.beginObject();
    W.key("iopoly_version").value(format("%d.%d.%d", IOPOLY_VERSION_MAJOR, IOPOLY_VERSION_MINOR, IOPOLY_VERSION_PATCH));
    // Under an MPI launcher: which rank and host wrote these numbers.
    for (const char *V : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
      if (const char *Rank = std::getenv(V)) {
        char Host[256] = "";
        ::gethostname(Host, sizeof Host - 1);
        W.key("rank").value(static_cast<unsigned long long>(std::strtoull(Rank, nullptr, 10)));
        W.key("host").value(std::string(Host));
        break;
      }
    W.key("stripe_fetches").value(static_cast<unsigned long long>(K.Fetches));
    W.key("distinct_stripes").value(static_cast<unsigned long long>(Distinct));
    W.key("fetches_per_block").value(Distinct ? static_cast<double>(K.Fetches) / Distinct : 0.0);
    W.key("buffer_hits").value(static_cast<unsigned long long>(K.Hits));
    W.key("evictions").value(static_cast<unsigned long long>(K.Evictions));
    W.key("writebacks").value(static_cast<unsigned long long>(K.Writebacks));
    W.key("write_behind").value(static_cast<unsigned long long>(K.WriteBehind));
    W.key("write_behind_changed_again").value(static_cast<unsigned long long>(K.WriteBehindAgain));
    W.key("read_bytes").value(static_cast<unsigned long long>(K.BytesRead));
    W.key("written_bytes").value(static_cast<unsigned long long>(K.BytesWritten));
    W.key("io_seconds").value(Counters->IoNanos.load() * 1e-9);
    W.key("modeled_io_seconds").value(Model->appClock());
    W.key("modeled_io_wait_seconds").value(Model->waitSeconds());
    double Busy = 0;
    for (size_t D = 0; D < C.numDisks(); ++D)
      Busy += Model->busySeconds(D);
    W.key("modeled_disk_busy_seconds").value(Busy);
    W.key("wall_seconds").value(Wall);
    W.key("attaches").value(static_cast<unsigned long long>(K.Attaches));
    W.key("releases").value(static_cast<unsigned long long>(K.Releases));
    W.key("hit_ratio").value(K.Attaches ? static_cast<double>(K.Hits) / K.Attaches : 0.0);
    W.key("overwrites").value(static_cast<unsigned long long>(K.Overwrites));
    W.key("zero_fills").value(static_cast<unsigned long long>(K.ZeroFills));
    W.key("peak_attached_frames").value(static_cast<unsigned long long>(K.PeakPinned));
    W.key("prefetch").beginObject();
    W.key("hints").value(static_cast<unsigned long long>(K.PrefetchHints));
    W.key("issued").value(static_cast<unsigned long long>(K.PrefetchIssued));
    W.key("redundant").value(static_cast<unsigned long long>(K.PrefetchRedundant));
    W.key("dropped").value(static_cast<unsigned long long>(K.PrefetchDropped));
    W.key("used").value(static_cast<unsigned long long>(K.PrefetchUsed));
    W.key("wasted").value(static_cast<unsigned long long>(K.PrefetchWasted));
    // Accuracy: the share of issued prefetches that a later attach used.
    W.key("accuracy").value(K.PrefetchIssued ? static_cast<double>(K.PrefetchUsed) / K.PrefetchIssued : 0.0);
    W.endObject();
    W.key("faulted_accesses").value(static_cast<unsigned long long>(K.FaultedAccesses));
    W.key("fault_service").value(faultServiceMode());
    W.key("threads").raw(sched::schedStatsJSON());
    W.key("sharing").beginObject();
    W.key("sync_points").value(static_cast<unsigned long long>(K.SyncPoints));
    W.key("sync_runs").value(static_cast<unsigned long long>(K.SyncRuns));
    W.key("sync_bytes").value(static_cast<unsigned long long>(K.SyncBytes));
    W.key("sync_dropped").value(static_cast<unsigned long long>(K.SyncDrops));
    W.key("sync_reread").value(static_cast<unsigned long long>(K.SyncRereads));
    W.key("twin_peak_bytes").value(static_cast<unsigned long long>(K.TwinPeakBytes));
    W.key("shared_spills").value(static_cast<unsigned long long>(K.SharedSpills));
    W.key("shared_spill_reads").value(static_cast<unsigned long long>(K.SpillReads));
    W.key("shared_spill_bytes").value(static_cast<unsigned long long>(K.SpillBytes));
    W.key("shared_arrays").beginArray();
    for (const std::string &Desc : SharedDescs)
      W.raw(Desc);
    W.endArray();
    W.endObject();
    W.key("read_errors").value(static_cast<unsigned long long>(K.ReadErrors));
    W.key("write_errors").value(static_cast<unsigned long long>(K.WriteErrors));
    W.key("direct_io").value(DirectIO);
    W.key("per_disk").beginArray();
    for (size_t D = 0; D < C.numDisks(); ++D) {
      const DiskCounters &P = K.PerDisk[D];
      W.beginObject();
      W.key("disk").value(static_cast<unsigned long long>(D));
      W.key("dir").value(C.DiskDirs[D]);
      W.key("fetches").value(static_cast<unsigned long long>(P.Fetches));
      W.key("writes").value(static_cast<unsigned long long>(P.Writes));
      W.key("transferred_bytes").value(static_cast<unsigned long long>(P.BytesRead + P.BytesWritten));
      W.key("read_bytes").value(static_cast<unsigned long long>(P.BytesRead));
      W.key("written_bytes").value(static_cast<unsigned long long>(P.BytesWritten));
      W.key("modeled_busy_seconds").value(Model->busySeconds(D));
      W.endObject();
    }
    W.endArray();
    W.key("per_array").beginArray();
    for (const auto &KV : Counters->perArray()) {
      const ArrayCounters &A = KV.second;
      uint64_t Distinct = Counters->distinctStripes(KV.first);
      W.beginObject();
      W.key("array").value(KV.first);
      W.key("size_bytes").value(static_cast<unsigned long long>(A.SizeBytes));
      W.key("fetches").value(static_cast<unsigned long long>(A.Fetches));
      W.key("distinct_stripes").value(static_cast<unsigned long long>(Distinct));
      W.key("fetches_per_block").value(Distinct ? static_cast<double>(A.Fetches) / Distinct : 0.0);
      W.key("buffer_hits").value(static_cast<unsigned long long>(A.Hits));
      W.key("read_bytes").value(static_cast<unsigned long long>(A.BytesRead));
      W.key("written_bytes").value(static_cast<unsigned long long>(A.BytesWritten));
      W.key("writebacks").value(static_cast<unsigned long long>(A.Writebacks));
      W.key("faulted_accesses").value(static_cast<unsigned long long>(A.FaultedAccesses));
      if (!A.FaultedFrom.empty())
        W.key("faulted_from").value(A.FaultedFrom);
      if (const void *Site = A.worstSite())
        W.key("most_fetches_from").value(describeSite(Site));
      W.endObject();
    }
    W.endArray();
    if (!BackendExtra.empty())
      W.key("backend_info").raw(BackendExtra);
    if (StripeRouter *R = StatsRouter) {
      // The storage-cache hierarchy, per level, as this rank saw it: L1 is
      // its own buffer.
      W.key("hierarchy").beginObject();
      W.key("L1").beginObject();
      W.key("accesses").value(static_cast<unsigned long long>(K.Attaches));
      W.key("hits").value(static_cast<unsigned long long>(K.Hits));
      W.key("misses").value(static_cast<unsigned long long>(K.Attaches - K.Hits));
      W.endObject();
      W.key("below").raw(R->statsJSON());
      W.endObject();
    }
    W.key("config").raw(C.toJSON());
    W.endObject();
    return W.str();
  });
}

Status Runtime::writeStats(const std::string &Path) {
  std::string J = statsJSON() + "\n";
  if (Path == "-") {
    std::fputs(J.c_str(), stderr);
    return {};
  }
  // Replaced atomically when a regular file, in place when a device or a
  // FIFO, through a link to its target (core/OutputFile.h).
  return writeWholeFile(Path, J, "statistics");
}

void Runtime::rescue(iopoly_array *A, const Status &Why) {
  UnsavedAtExit = true;
  std::vector<std::pair<size_t, std::string>> Dirty = Buffer->dirtyStripes(A);
  std::string Head = format("iopoly: error: at exit, array '%s' could not be written back: %s", A->Name.c_str(),
                            Why.message().c_str());
  if (Dirty.empty()) {
    std::fprintf(stderr, "%s\n", Head.c_str());
    return;
  }
  RescueFile R;
  R.Name = A->Name;
  R.Creation = A->Header.Creation;
  R.StripeSize = A->Geo.StripeSize;
  for (auto &D : Dirty)
    R.Blocks.push_back({D.first, std::move(D.second)});
  std::string Path;
  if (Status S = writeRescueFile(R, rescueDirs(A->Dirs, C.Dir), Path))
    std::fprintf(stderr, "%s.\niopoly: error: its %zu unwritten block(s) could not be saved anywhere either (%s): "
                 "they are lost\n",
                 Head.c_str(), R.Blocks.size(), S.message().c_str());
  else
    std::fprintf(stderr, "%s.\niopoly: error: its %zu unwritten block(s) were saved to '%s'; once the disk has room, "
                 "run 'iopoly-fsck %s --repair' to write them back\n",
                 Head.c_str(), R.Blocks.size(), Path.c_str(), A->Name.c_str());
}

void Runtime::resetStats() {
  Buffer->locked([&] {
    Counters->reset();
    Model->reset();
    return 0;
  });
}

void Runtime::counters(unsigned long long *Fetches, unsigned long long *Distinct,
                       unsigned long long *Hits, unsigned long long *Evictions,
                       unsigned long long *Writebacks, unsigned long long *BytesRead,
                       unsigned long long *BytesWritten, double *IoSeconds,
                       double *ModeledSeconds) {
  Buffer->locked([&] {
    const iopoly::Counters &K = Counters->C;
    *Fetches = K.Fetches;
    *Distinct = Counters->distinctStripes();
    *Hits = K.Hits;
    *Evictions = K.Evictions;
    *Writebacks = K.Writebacks;
    *BytesRead = K.BytesRead;
    *BytesWritten = K.BytesWritten;
    *ModeledSeconds = Model->appClock();
    return 0;
  });
  *IoSeconds = Counters->IoNanos.load() * 1e-9;
}

void Runtime::shutdown() {
  std::call_once(ShutdownOnce, [this] {
    // Write back every array that the program did not close. A failure
    // here would lose data: say so loudly, naming the array.
    std::vector<iopoly_array *> Live;
    {
      std::lock_guard<std::mutex> L(RegistryMu);
      for (const iopoly_array *A : Open)
        Live.push_back(const_cast<iopoly_array *>(A));
    }
    for (iopoly_array *A : Live)
      if (A->Writable)
        if (Status S = flush(A))
          rescue(A, S);
    Workers->stop();
    stopProgress();
    if (!C.StatsPath.empty())
      if (Status S = writeStats(C.StatsPath))
        std::fprintf(stderr, "iopoly: error: IOPOLY_STATS: %s\n", S.message().c_str());
    Buffer->locked([&] {
      Trace->close();
      return 0;
    });
  });
}

} // namespace iopoly
