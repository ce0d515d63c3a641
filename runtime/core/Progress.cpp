//===- Progress.cpp - Progress reports and thrash warnings -----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/Progress.h"
#include "core/Array.h"
#include "core/Config.h"
#include "core/Runtime.h"

#include "iopoly/abi.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

namespace iopoly {

const void *&currentSite() {
  static thread_local const void *Site = nullptr;
  return Site;
}

void writeStderr(const std::string &Line) {
  const char *P = Line.data();
  size_t N = Line.size();
  while (N) {
    long R = ::syscall(SYS_write, 2, P, N);
    if (R <= 0)
      return;
    P += R;
    N -= static_cast<size_t>(R);
  }
}

std::string humanBytes(double Bytes) {
  static const char *Units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
  unsigned U = 0;
  while (Bytes >= 1024 && U + 1 < sizeof Units / sizeof *Units) {
    Bytes /= 1024;
    ++U;
  }
  return U == 0 ? format("%.0f bytes", Bytes) : format("%.1f %s", Bytes, Units[U]);
}

std::string describeSite(const void *S) {
  auto *Site = static_cast<const iopoly_site *>(S);
  if (!Site)
    return "";
  std::string Where = Site->file ? Site->file : "?";
  if (Site->line)
    Where += format(":%u", Site->line);
  if (Site->line && Site->column)
    Where += format(":%u", Site->column);
  if (Site->function)
    Where += format(" in '%s'", Site->function);
  return Where;
}

namespace {

double thrashFactor() {
  static const double K = [] {
    const Config *C = nullptr;
    return globalConfig(C).ok() ? C->ThrashFactor : 4.0;
  }();
  return K;
}

/// What would help an array read too often, from the walk of its worst site.
std::string advice(const iopoly_array &A, const iopoly_site *Site, size_t BufferBytes) {
  std::string Raise = format("or give it a buffer of at least %s (IOPOLY_BUFFER, now %s)",
                             humanBytes(static_cast<double>(A.Geo.TotalBytes)).c_str(),
                             humanBytes(static_cast<double>(BufferBytes)).c_str());
  size_t Stride = Site && Site->stride ? static_cast<size_t>(Site->stride < 0 ? -Site->stride : Site->stride) : 0;
  size_t Row = A.Geo.Dims.size() > 1 ? A.Geo.Dims.back() * A.Geo.ElemSize : 0;
  if (Stride && Row && Stride >= Row)
    return format("it walks '%s' across its rows (%zu bytes per iteration; a row is %zu bytes), against its "
                  "row-major layout: interchange the loops, compile with -fplugin-arg-iopoly-mode=clo (tiling) or "
                  "dro-wp, store it in the transposed layout (iopoly_open_layout), %s",
                  A.Name.c_str(), Stride, Row, Raise.c_str());
  if (Stride && Stride >= A.Geo.StripeSize)
    return format("it jumps %zu bytes per iteration, a stripe or more, so each stripe it reads serves one access: "
                  "change the loop order or the data layout, compile with -fplugin-arg-iopoly-mode=clo or dro-wp, %s",
                  Stride, Raise.c_str());
  return format("the loops come back to '%s' after the buffer has let it go: compile with "
                "-fplugin-arg-iopoly-mode=dro-wp (disk-reuse restructuring) or clo (tiling), fuse the loops that "
                "sweep it, %s",
                A.Name.c_str(), Raise.c_str());
}

} // namespace

void noteFetch(const iopoly_array &A, size_t BufferBytes) {
  ArrayCounters *PA = A.PerArray;
  if (!PA)
    return;
  PA->countSite(currentSite());
  double K = thrashFactor();
  if (PA->ThrashWarned || K <= 0 || static_cast<double>(PA->BytesRead) <= K * static_cast<double>(A.Geo.TotalBytes))
    return;
  PA->ThrashWarned = true;
  auto *Worst = static_cast<const iopoly_site *>(PA->worstSite());
  std::string From = Worst ? format("; most of its fetches come from the loop at %s", describeSite(Worst).c_str())
                           : std::string("; the fetches come from code that passed no source location (the C API "
                                         "or code built without the plugin)");
  writeStderr(format("iopoly: warning: array '%s' (%s) has been read from disk %.1f times over (%s in %llu stripe "
                     "fetches; IOPOLY_THRASH=%g)%s; %s\n",
                     A.Name.c_str(), humanBytes(static_cast<double>(A.Geo.TotalBytes)).c_str(),
                     static_cast<double>(PA->BytesRead) / static_cast<double>(A.Geo.TotalBytes),
                     humanBytes(static_cast<double>(PA->BytesRead)).c_str(),
                     static_cast<unsigned long long>(PA->Fetches), K, From.c_str(),
                     advice(A, Worst, BufferBytes).c_str()));
}

namespace {

struct Reporter {
  std::mutex Mu;
  std::condition_variable CV;
  bool Stop = false;
  std::thread Thread;
};

Reporter *TheReporter = nullptr;

void report(Runtime &RT, double Every, Reporter &R) {
  using Clock = std::chrono::steady_clock;
  auto Start = Clock::now();
  std::map<std::string, uint64_t> Last;
  std::unique_lock<std::mutex> L(R.Mu);
  while (!R.CV.wait_for(L, std::chrono::duration<double>(Every), [&] { return R.Stop; })) {
    double Now = std::chrono::duration<double>(Clock::now() - Start).count();
    std::string Line;
    uint64_t Hits = 0, Attaches = 0;
    RT.buffer().locked([&] {
      for (const auto &KV : RT.stats().perArray()) {
        uint64_t Read = KV.second.BytesRead, &Before = Last[KV.first];
        if (Read == Before)
          continue;
        Line += format("%s'%s' %s read (%s/s)", Line.empty() ? "" : ", ", KV.first.c_str(),
                       humanBytes(static_cast<double>(Read)).c_str(),
                       humanBytes(static_cast<double>(Read - Before) / Every).c_str());
        Before = Read;
      }
      Hits = RT.stats().C.Hits;
      Attaches = RT.stats().C.Attaches;
      return 0;
    });
    if (Line.empty())
      continue; // nothing read since the last report: stay quiet
    writeStderr(format("iopoly: progress %.0f s: %s; buffer hits %.1f%%\n", Now, Line.c_str(),
                       Attaches ? 100.0 * static_cast<double>(Hits) / static_cast<double>(Attaches) : 0.0));
  }
}

} // namespace

void startProgress(Runtime &RT, const Config &C) {
  bool On = C.Progress > 0 || (C.Progress < 0 && ::isatty(2));
  if (!On || TheReporter)
    return;
  TheReporter = new Reporter();
  double Every = C.ProgressEvery;
  Reporter *R = TheReporter;
  R->Thread = std::thread([&RT, Every, R] { report(RT, Every, *R); });
}

void stopProgress() {
  Reporter *R = TheReporter;
  if (!R)
    return;
  {
    std::lock_guard<std::mutex> G(R->Mu);
    R->Stop = true;
  }
  R->CV.notify_all();
  if (R->Thread.joinable())
    R->Thread.join();
}

} // namespace iopoly
