//===- Runtime.cpp - The process-wide iopoly runtime -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/Runtime.h"
#include "core/FileHeader.h"
#include "core/Json.h"

#include "iopoly.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace iopoly {

namespace {
std::atomic<Runtime *> Instance{nullptr};
std::mutex InstanceMu;

void atExitHandler() {
  if (Runtime *RT = Runtime::existing())
    RT->shutdown();
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
  if (Status S = createBackend(C, B))
    return S;
  Model = std::make_unique<DiskModel>(C.Model, C.numDisks());
  Counters = std::make_unique<Stats>(C.numDisks());
  Trace = std::make_unique<TraceWriter>();
  if (!C.TracePath.empty())
    if (Status S = Trace->open(C.TracePath))
      return S;
  Workers = std::make_unique<IOWorkers>(C.numDisks(), !B->allowsBackgroundIO());
  IO = std::make_unique<StripeIO>(*Model, C.ModelWait, Retry, Counters->IoNanos, C.numDisks());
  BufferEnv Env{C.StripeSize, C.bufferFrames(), C.Prefetch, *Counters, *Model, *Trace, *Workers, *IO};
  Buffer = std::make_unique<StripeBuffer>(Env);
  verbose(format("runtime started: %zu disks, %zu-byte stripes, %zu frames, backend %s, disk model %s",
                 C.numDisks(), C.StripeSize, C.bufferFrames(), B->name(), C.Model.Name.c_str()));
  return {};
}

bool Runtime::isOpen(const iopoly_array *A) {
  std::lock_guard<std::mutex> G(RegistryMu);
  return Open.count(A) != 0;
}

Status Runtime::open(const char *Name, size_t ElemSize, int NDims, const size_t *Dims,
                     const int *Layout, int Flags, iopoly_array *&Out) {
  if (Status S = checkArrayName(Name))
    return S;
  int Kind = Flags & (IOPOLY_RDONLY | IOPOLY_RDWR | IOPOLY_CREATE);
  if (Kind != IOPOLY_RDONLY && Kind != IOPOLY_RDWR && Kind != IOPOLY_CREATE)
    return Status::error(format("array '%s': flags 0x%x must contain exactly one of IOPOLY_RDONLY, "
                                "IOPOLY_RDWR, IOPOLY_CREATE",
                                Name, Flags));
  if ((Flags & ~(IOPOLY_RDONLY | IOPOLY_RDWR | IOPOLY_CREATE | IOPOLY_TRUNC)) ||
      ((Flags & IOPOLY_TRUNC) && !(Flags & IOPOLY_CREATE)))
    return Status::error(format("array '%s': invalid flags 0x%x (IOPOLY_TRUNC needs IOPOLY_CREATE)", Name, Flags));
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
  if (Status S = openArrayFiles(*this, *A, Flags))
    return S;
  Buffer->locked([&] {
    A->Fetched = Counters->fetchedBits(A->Name, G.numStripes());
    Trace->defineArray(A->Id, A->Name);
    return 0;
  });
  Out = A.release();
  Open.insert(Out);
  return {};
}

Status Runtime::flush(iopoly_array *A) {
  Status First = Buffer->flush(A);
  std::lock_guard<std::mutex> L(RegistryMu);
  for (const iopoly_array *O : Open) {
    if (A && O != A)
      continue;
    if (!O->Writable)
      continue;
    for (size_t D = 0; D < O->Files.size(); ++D)
      if (Status S = syncFile(*O->Files[D], O->Paths[D], Retry))
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
  if (Status S = Buffer->drop(A))
    return S;
  if (A->Writable)
    for (size_t D = 0; D < A->Files.size(); ++D)
      if (Status S = syncFile(*A->Files[D], A->Paths[D], Retry))
        return Status::error(format("array '%s' not closed: %s", A->Name.c_str(), S.message().c_str()));
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
  std::string DirectIO = B->directStatus();
  std::string BackendExtra = B->statsJSON();
  double Wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - Started).count();
  return Buffer->locked([&] {
    const iopoly::Counters &K = Counters->C;
    uint64_t Distinct = Counters->distinctStripes();
    JsonWriter W;
    W.beginObject();
    W.key("iopoly_version").value(format("%d.%d.%d", IOPOLY_VERSION_MAJOR, IOPOLY_VERSION_MINOR, IOPOLY_VERSION_PATCH));
    W.key("stripe_fetches").value(static_cast<unsigned long long>(K.Fetches));
    W.key("distinct_stripes").value(static_cast<unsigned long long>(Distinct));
    W.key("fetches_per_block").value(Distinct ? static_cast<double>(K.Fetches) / Distinct : 0.0);
    W.key("buffer_hits").value(static_cast<unsigned long long>(K.Hits));
    W.key("evictions").value(static_cast<unsigned long long>(K.Evictions));
    W.key("writebacks").value(static_cast<unsigned long long>(K.Writebacks));
    W.key("bytes_read").value(static_cast<unsigned long long>(K.BytesRead));
    W.key("bytes_written").value(static_cast<unsigned long long>(K.BytesWritten));
    W.key("io_seconds").value(Counters->IoNanos.load() * 1e-9);
    W.key("modeled_io_seconds").value(Model->appClock());
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
      W.key("bytes").value(static_cast<unsigned long long>(P.BytesRead + P.BytesWritten));
      W.key("bytes_read").value(static_cast<unsigned long long>(P.BytesRead));
      W.key("bytes_written").value(static_cast<unsigned long long>(P.BytesWritten));
      W.key("modeled_busy_seconds").value(Model->busySeconds(D));
      W.endObject();
    }
    W.endArray();
    if (!BackendExtra.empty())
      W.key("backend_info").raw(BackendExtra);
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
  // Write to a temporary name and rename, so a reader never sees half.
  std::string Tmp = Path + ".tmp";
  std::FILE *F = std::fopen(Tmp.c_str(), "w");
  if (!F)
    return Status::error(format("cannot write statistics to '%s': %s", Path.c_str(), std::strerror(errno)));
  bool Ok = std::fwrite(J.data(), 1, J.size(), F) == J.size();
  Ok = (std::fclose(F) == 0) && Ok;
  if (!Ok || std::rename(Tmp.c_str(), Path.c_str()) != 0) {
    int E = errno;
    std::remove(Tmp.c_str());
    return Status::error(format("cannot write statistics to '%s': %s", Path.c_str(), std::strerror(E)));
  }
  return {};
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
      if (Status S = flush(A))
        std::fprintf(stderr, "iopoly: error: at exit, array '%s' could not be written back: %s\n",
                     A->Name.c_str(), S.message().c_str());
    Workers->stop();
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
