//===- Prefetcher.h - The prefetch helper thread ----------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 5, section V.C-D, Figs. 7-8. The main thread only reports each
// access (a queue push and a wake-up) and whether it is inside a real I/O
// call. The helper thread does the rest: it moves the matcher, predicts the
// next accesses, and turns the predicted reads into tasks when the graph
// promises enough idle time before them (the summed gaps along the
// predicted path, at least IOPOLY_KNOWAC_MIN_IDLE) and the cache has room.
// It reads only while the main thread is outside I/O, in pieces of at most
// 1 MiB, and only in idle time: when the graph predicts at least
// IOPOLY_KNOWAC_MIN_IDLE before the main thread's next access (it
// computes), or the main thread has been idle that much longer than
// predicted. Between accesses that follow each other closely it keeps off
// the disk, where its reads would only delay the program's. It reads with pread
// on its own descriptor (PnetCDF is not thread-safe).
// A read is kept only if nothing wrote the file meanwhile: the file's
// write generation (FileGuard) and its stat() signature are the same
// before and after, and the file was not modified within the last second
// (a later change could then keep the same time stamp).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_KNOWAC_PREFETCHER_H
#define IOPOLY_KNOWAC_PREFETCHER_H

#include "Cache.h"
#include "KnowacStats.h"
#include "Matcher.h"
#include "NcLayout.h"
#include "Options.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

namespace iopoly {
namespace knowac {

/// Written by the main thread around its writes to a file; read by the
/// helper to discard reads that raced with a write.
struct FileGuard {
  std::atomic<uint64_t> Gen{0};     ///< bumped when a write starts and when it ends
  std::atomic<int> Writes{0};       ///< writes started and not ended (nonblocking puts until their wait)
  std::atomic<int64_t> NumRecs{0};  ///< records in the file, as far as this process knows
};

/// A predicted read, resolved against the files open now.
struct ReadTask {
  std::string Key;  ///< the predicted label
  FileId File;
  std::string Path;
  int Var = -1;
  Box B;
  VarLayout Layout;
  int64_t RecSize = 0;
  std::shared_ptr<FileGuard> Guard;
  size_t bytes() const { return size_t(B.elements()) * Layout.ElemSize; }
};

/// What the helper needs from the process: a predicted access as a read
/// of an open file, if it can be one.
class TaskSource {
public:
  virtual ~TaskSource() = default;
  virtual bool resolve(const Prediction &P, ReadTask &Out) = 0;
};

class Prefetcher {
public:
  Prefetcher(const Graph &G, Cache &C, TaskSource &Src, Counters &K, const Options &O);
  ~Prefetcher() { stop(); }
  Prefetcher(const Prefetcher &) = delete;
  Prefetcher &operator=(const Prefetcher &) = delete;

  /// Starts the thread at the start vertex \p StartKey.
  void start(const std::string &StartKey);
  /// Stops and joins the thread (reads in progress end at the next piece).
  void stop();

  /// Main thread: the run accessed \p Key (one lock and a wake-up).
  void accessed(const std::string &Key);
  /// Main thread: entering (true) or leaving (false) a real I/O call.
  void mainIo(bool Busy);
  /// Main thread: waiting (true) or no longer (false) for a region the
  /// helper is reading; the helper then reads on whatever the window says.
  void mainWaiting(bool Waiting);
  /// Blocks until the helper has handled every access reported so far and
  /// has no task it could run now (tests).
  void drain();
  /// How recent a file time stamp must be for a read to be distrusted
  /// (default 1 s; tests that only write through FileGuard set 0).
  void setRacyWindow(int64_t Ns) { RacyNs = Ns; }

private:
  void run();
  void processEvents(std::unique_lock<std::mutex> &L);
  enum class Go { Read, Stop, Obsolete };
  Go waitForWindow(std::unique_lock<std::mutex> &L, const ReadTask &T);
  bool predicted(const ReadTask &T) const;
  void plan();
  void execute(ReadTask &T);
  Go readRuns(const ReadTask &T, int Fd, const std::vector<ByteRun> &Runs, unsigned char *Dst, int64_t &Read);
  int fdFor(const ReadTask &T);
  bool mayDrop(const Entry &E) const;

  Cache &C;
  TaskSource &Src;
  Counters &K;
  Options O;
  Matcher M;

  std::mutex Mu;
  std::condition_variable Cv, Idle;
  std::deque<std::string> Events; ///< accesses not yet matched
  std::deque<ReadTask> Tasks;     ///< reads to do, in predicted order
  bool MainBusy = false;
  bool MainWaits = false;
  bool Stop = false;
  bool Working = false;
  bool WaitingForMain = false;    ///< the helper waits for the main thread's next access
  Clock::time_point LastAccess;   ///< when the main thread last ended an access or an I/O call
  uint64_t Accesses = 0, IoEnds = 0;
  std::thread T;

  int64_t RacyNs = 1000000000;

  // Helper-thread only.
  std::string NextKey; ///< the first prediction after the last access
  double WindowSec = -1;    ///< idle time predicted before the next access (< 0: unknown)
  std::vector<ReadTask> Predicted; ///< reads predicted now (what the cache keeps)
  std::map<std::pair<uint64_t, uint64_t>, int> Fds;
  std::set<std::string> DryDone; ///< dry run: regions "read" already
};

} // namespace knowac
} // namespace iopoly

#endif
