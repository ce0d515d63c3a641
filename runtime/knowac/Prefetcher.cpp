//===- Prefetcher.cpp - Matching, scheduling and reading ahead -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Prefetcher.h"

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace iopoly {
namespace knowac {

namespace {
constexpr int64_t PieceBytes = int64_t(1) << 20; ///< most bytes per pread
constexpr int64_t GapBytes = int64_t(64) << 10;  ///< holes read through rather than seeking
constexpr size_t MaxFds = 32;                    ///< descriptors the helper keeps open

uint64_t nsSince(Clock::time_point T0) {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - T0).count());
}

int64_t wallNs() {
  struct timespec Ts;
  clock_gettime(CLOCK_REALTIME, &Ts);
  return int64_t(Ts.tv_sec) * 1000000000 + Ts.tv_nsec;
}
} // namespace

Prefetcher::Prefetcher(const Graph &G, Cache &C, TaskSource &Src, Counters &K, const Options &O)
    : C(C), Src(Src), K(K), O(O), M(G) {}

void Prefetcher::start(const std::string &StartKey) {
  M.start(StartKey);
  {
    std::lock_guard<std::mutex> L(Mu);
    Stop = false;
  }
  T = std::thread([this] { run(); });
  // The first accesses of the run are predicted from the start vertex.
  accessed("");
}

void Prefetcher::stop() {
  {
    std::lock_guard<std::mutex> L(Mu);
    Stop = true;
  }
  Cv.notify_all();
  if (T.joinable())
    T.join();
  for (auto &KV : Fds)
    ::close(KV.second);
  Fds.clear();
}

void Prefetcher::accessed(const std::string &Key) {
  {
    std::lock_guard<std::mutex> L(Mu);
    Events.push_back(Key);
    LastAccess = Clock::now();
    ++Accesses;
  }
  Cv.notify_one();
}

void Prefetcher::mainIo(bool Busy) {
  {
    std::lock_guard<std::mutex> L(Mu);
    MainBusy = Busy;
    if (!Busy) { // idle time counts from the end of the main thread's I/O
      ++IoEnds;
      LastAccess = Clock::now();
    }
  }
  if (!Busy)
    Cv.notify_one();
}

void Prefetcher::mainWaiting(bool Waiting) {
  {
    std::lock_guard<std::mutex> L(Mu);
    MainWaits = Waiting;
  }
  Cv.notify_one();
}

void Prefetcher::drain() {
  std::unique_lock<std::mutex> L(Mu);
  Idle.wait(L, [&] {
    return Stop || (Events.empty() && (!Working || WaitingForMain) && (Tasks.empty() || MainBusy || WaitingForMain));
  });
}

bool Prefetcher::mayDrop(const Entry &E) const {
  for (const ReadTask &P : Predicted)
    if (P.File == E.File && P.Var == E.Var && E.B.contains(P.B))
      return false;
  return true;
}

void Prefetcher::plan() {
  std::vector<Prediction> Preds = M.predict(O.Lookahead);
  NextKey = Preds.empty() ? std::string() : Preds.front().Key;
  WindowSec = Preds.empty() ? -1 : Preds.front().GapSeconds;
  std::deque<ReadTask> NewTasks;
  Predicted.clear();
  double Idle = 0;
  for (const Prediction &P : Preds) {
    Idle += P.GapSeconds;
    if (P.Key.empty() || P.Key[0] != char(Op::Read))
      continue;
    ReadTask RT;
    if (!Src.resolve(P, RT))
      continue;
    Predicted.push_back(RT);
    // Too little idle time before it: prefetching would only compete with
    // the main thread's own reads (paper 5, section VI.B).
    if (Idle < O.MinIdleSec)
      continue;
    if (C.covers(RT.File, RT.Var, RT.B))
      continue;
    bool Dup = false;
    for (const ReadTask &Q : NewTasks)
      Dup |= Q.File == RT.File && Q.Var == RT.Var && Q.B.contains(RT.B);
    if (!Dup)
      NewTasks.push_back(std::move(RT));
  }
  std::lock_guard<std::mutex> L(Mu);
  Tasks = std::move(NewTasks);
}

void Prefetcher::processEvents(std::unique_lock<std::mutex> &L) {
  std::deque<std::string> Batch;
  Batch.swap(Events);
  L.unlock();
  Clock::time_point T0 = Clock::now();
  for (const std::string &Key : Batch) {
    if (Key.empty())
      continue; // the wake-up of start()
    if (!NextKey.empty()) {
      K.NextPredicted.fetch_add(1, std::memory_order_relaxed);
      if (NextKey == Key)
        K.NextCorrect.fetch_add(1, std::memory_order_relaxed);
    }
    M.advance(Key);
    NextKey.clear();
  }
  plan();
  addNs(K.MetadataNs, nsSince(T0));
  L.lock();
}

void Prefetcher::run() {
  std::unique_lock<std::mutex> L(Mu);
  while (true) {
    Working = false;
    Idle.notify_all();
    Cv.wait(L, [&] { return Stop || !Events.empty() || (!Tasks.empty() && !MainBusy); });
    if (Stop)
      break;
    Working = true;
    if (!Events.empty()) {
      processEvents(L);
      continue; // new accesses may have come in meanwhile
    }
    ReadTask Task = std::move(Tasks.front());
    Tasks.pop_front();
    L.unlock();
    execute(Task);
    L.lock();
  }
  Working = false;
  Idle.notify_all();
}

bool Prefetcher::predicted(const ReadTask &T) const {
  for (const ReadTask &P : Predicted)
    if (P.File == T.File && P.Var == T.Var && T.B.contains(P.B))
      return true;
  return false;
}

Prefetcher::Go Prefetcher::waitForWindow(std::unique_lock<std::mutex> &L, const ReadTask &T) {
  while (true) {
    if (Stop)
      return Go::Stop;
    if (MainBusy) { // the main thread's own I/O goes first
      Cv.wait(L, [&] { return Stop || !MainBusy; });
      continue;
    }
    if (!Events.empty()) { // it moved on: predict again, then decide
      processEvents(L);
      if (!MainWaits && !predicted(T))
        return Go::Obsolete; // accessed meanwhile, or off the new path
      continue;
    }
    const double Elapsed = std::chrono::duration<double>(Clock::now() - LastAccess).count();
    // Read in idle time the graph predicts (a gap of at least
    // IOPOLY_KNOWAC_MIN_IDLE before the main thread's next access: it
    // computes), or when the main thread has been idle that much longer
    // than predicted. Between accesses that follow each other closely the
    // helper keeps off the disk: its reads would only delay the program's.
    const double Late = WindowSec + O.MinIdleSec;
    if (MainWaits || WindowSec < 0 || WindowSec >= O.MinIdleSec || Elapsed >= Late)
      return Go::Read;
    const uint64_t A0 = Accesses, I0 = IoEnds;
    const Clock::time_point Due = LastAccess + std::chrono::duration_cast<Clock::duration>(
                                                   std::chrono::duration<double>(Late));
    WaitingForMain = true;
    Idle.notify_all();
    Cv.wait_until(L, Due, [&] { return Stop || MainWaits || Accesses != A0 || IoEnds != I0; });
    WaitingForMain = false;
    if (MainWaits)
      return Stop ? Go::Stop : Go::Read;
  }
}

int Prefetcher::fdFor(const ReadTask &T) {
  auto Key = std::make_pair(T.File.Dev, T.File.Ino);
  auto It = Fds.find(Key);
  if (It != Fds.end())
    return It->second;
  if (Fds.size() >= MaxFds) { // a program that opens file after file: keep a few
    ::close(Fds.begin()->second);
    Fds.erase(Fds.begin());
  }
  int Fd = ::open(T.Path.c_str(), O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return -1;
  struct stat St;
  if (::fstat(Fd, &St) != 0 || uint64_t(St.st_dev) != T.File.Dev || uint64_t(St.st_ino) != T.File.Ino) {
    ::close(Fd); // the path names another file now
    return -1;
  }
  Fds[Key] = Fd;
  return Fd;
}

Prefetcher::Go Prefetcher::readRuns(const ReadTask &T, int Fd, const std::vector<ByteRun> &Runs, unsigned char *Dst,
                                    int64_t &Read) {
  std::vector<unsigned char> Tmp;
  size_t I = 0;
  while (I < Runs.size()) {
    // One span: this run and the following ones within GapBytes, up to a piece.
    int64_t Begin = Runs[I].FileOffset, End = Begin + Runs[I].Bytes;
    size_t J = I + 1;
    while (J < Runs.size() && Runs[J].FileOffset >= End && Runs[J].FileOffset - End <= GapBytes &&
           Runs[J].FileOffset + Runs[J].Bytes - Begin <= PieceBytes)
    {
      End = Runs[J].FileOffset + Runs[J].Bytes;
      ++J;
    }
    // Before each piece: the main thread's own I/O goes first, and the
    // piece must fit in the idle time left.
    {
      std::unique_lock<std::mutex> L(Mu);
      Go G = waitForWindow(L, T);
      if (G != Go::Read)
        return G;
    }
    if (J == I + 1 && Runs[I].Bytes > PieceBytes) {
      // One long run: read it straight into place, a piece at a time.
      const ByteRun &R = Runs[I];
      for (int64_t Done = 0; Done < R.Bytes;) {
        if (Done) {
          std::unique_lock<std::mutex> L(Mu);
          Go G = waitForWindow(L, T);
          if (G != Go::Read)
            return G;
        }
        int64_t N = std::min(PieceBytes, R.Bytes - Done);
        ssize_t Got = ::pread(Fd, Dst + R.BufOffset + Done, size_t(N), off_t(R.FileOffset + Done));
        K.PrefetchReads.fetch_add(1, std::memory_order_relaxed);
        if (Got <= 0) {
          if (Got < 0 && errno == EINTR)
            continue;
          return Go::Stop; // error or end of file: PnetCDF would not return these bytes either
        }
        Done += Got;
        Read += Got;
      }
      ++I;
      continue;
    }
    Tmp.resize(size_t(End - Begin));
    for (int64_t Done = 0; Done < End - Begin;) {
      ssize_t Got = ::pread(Fd, Tmp.data() + Done, size_t(End - Begin - Done), off_t(Begin + Done));
      K.PrefetchReads.fetch_add(1, std::memory_order_relaxed);
      if (Got <= 0) {
        if (Got < 0 && errno == EINTR)
          continue;
        return Go::Stop;
      }
      Done += Got;
      Read += Got;
    }
    for (size_t R = I; R < J; ++R)
      std::copy_n(Tmp.data() + (Runs[R].FileOffset - Begin), size_t(Runs[R].Bytes), Dst + Runs[R].BufOffset);
    I = J;
  }
  return Go::Read;
}

void Prefetcher::execute(ReadTask &T) {
  const size_t Bytes = T.bytes();
  if (Bytes == 0 || T.Guard->Writes.load() > 0)
    return;
  if (O.DryRun) { // Fig. 13: everything but the read
    if (DryDone.insert(std::to_string(T.File.Ino) + "/" + std::to_string(T.Var) + T.B.str()).second)
      K.Predictions.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  {
    // Registered only once it may start: until then a get of the region is
    // the program's own read, not a wait for the helper.
    std::unique_lock<std::mutex> L(Mu);
    if (waitForWindow(L, T) != Go::Read)
      return;
  }
  if (T.Guard->Writes.load() > 0 || C.covers(T.File, T.Var, T.B))
    return;
  const uint64_t Gen0 = T.Guard->Gen.load();
  std::shared_ptr<Entry> E = C.startFill(T.File, T.Var, T.B, T.Layout.ElemSize, Bytes,
                                         [this](const Entry &X) { return mayDrop(X); });
  if (!E) {
    K.CacheFull.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard<std::mutex> L(Mu);
    Tasks.clear(); // nothing further fits either; plan again after the next access
    return;
  }
  K.Predictions.fetch_add(1, std::memory_order_relaxed);
  Clock::time_point T0 = Clock::now();
  FileSig Before, After;
  bool Ok = statFile(T.Path, Before) && Before.Id == T.File;
  const int64_t ReadStart = wallNs();
  int Fd = Ok ? fdFor(T) : -1;
  Ok = Ok && Fd >= 0;
  int64_t Read = 0;
  if (Ok) {
    Go G = readRuns(T, Fd, byteRuns(T.Layout, T.RecSize, T.B), E->Data.data(), Read);
    Ok = G == Go::Read;
    if (G == Go::Obsolete) { // no longer predicted: what was read is wasted, the rest is not read
      addNs(K.HelperIoNs, nsSince(T0));
      C.abandon(E, uint64_t(Read));
      return;
    }
  }
  addNs(K.HelperIoNs, nsSince(T0));
  if (Ok) {
    bool Same = statFile(T.Path, After) && After == Before && T.Guard->Gen.load() == Gen0 &&
                T.Guard->Writes.load() == 0;
    if (!Same) {
      K.ChangedDrops.fetch_add(1, std::memory_order_relaxed);
      Ok = false;
    } else if (Before.MtimeNs > ReadStart - RacyNs || Before.CtimeNs > ReadStart - RacyNs) {
      K.RacyDrops.fetch_add(1, std::memory_order_relaxed);
      Ok = false;
    }
  }
  if (C.finishFill(E, Ok, Before))
    K.PrefetchedBytes.fetch_add(Bytes, std::memory_order_relaxed);
}

} // namespace knowac
} // namespace iopoly
