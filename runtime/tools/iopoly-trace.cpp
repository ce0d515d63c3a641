//===- iopoly-trace.cpp - Reader of IOPOLY_TRACE files ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// iopoly-trace [--csv | --summary | --min BUFFER [--stripe SIZE]] FILE
//   --csv      one line per event: time_s,array,stripe,disk,event,hit,mode
//   --summary  per array and per disk: accesses, misses, prefetches,
//              write-backs (the default)
// iopoly-trace plot FILE -o IMAGE [--title TEXT] [--bins N]
//   a timeline of the run (matplotlib): stripe accesses per array, fetches
//   and hits per array and per disk over time, the buffer's occupancy. The
//   events go as CSV to iopoly_trace_plot.py (share/iopoly/ next to the
//   installed tool, or the source tree of this build).
//   --min      the floor of the traced order: Belady's MIN over its stripe
//              references (attaches) with a buffer of BUFFER (stripes, or
//              a size as IOPOLY_BUFFER takes it: 4M, 64KiB, 512B; then
//              --stripe, default IOPOLY_STRIPE or 64K, converts), as one
//              JSON object
//
//===----------------------------------------------------------------------===//
#include "core/Trace.h"
#include "tools/BeladyMin.h"
#include "Sizes.h"

#include <climits>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace iopoly;

static const char *eventName(uint8_t Kind) {
  switch (Kind & 0xf0) {
  case TraceAttach: return "attach";
  case TracePrefetch: return "prefetch";
  case TraceWriteback: return "writeback";
  case TraceEvict: return "evict";
  case TraceSync: return "sync";
  default: return "unknown";
  }
}

static std::string nameOf(const TraceContents &T, uint32_t Id) {
  return Id < T.ArrayNames.size() && !T.ArrayNames[Id].empty() ? T.ArrayNames[Id] : "#" + std::to_string(Id);
}

static void writeCsv(const TraceContents &T, std::FILE *Out) {
  std::fprintf(Out, "time_s,array,stripe,disk,event,hit,mode\n");
  for (const TraceEvent &E : T.Events)
    std::fprintf(Out, "%.9f,%s,%llu,%u,%s,%d,%s\n", E.TimeNs * 1e-9, nameOf(T, E.Array).c_str(),
                 static_cast<unsigned long long>(E.Stripe), E.Disk, eventName(E.Kind), (E.Kind & TraceHit) ? 1 : 0,
                 (E.Kind & TraceWrite) ? "write" : "read");
}

/// The plotting script: installed next to the tool, else in the sources.
static std::string plotScript() {
  char Self[PATH_MAX];
  ssize_t N = ::readlink("/proc/self/exe", Self, sizeof Self - 1);
  if (N > 0) {
    Self[N] = '\0';
    std::string Dir(Self);
    Dir = Dir.substr(0, Dir.rfind('/'));
    std::string Installed = Dir + "/../share/iopoly/iopoly_trace_plot.py";
    struct stat St;
    if (::stat(Installed.c_str(), &St) == 0)
      return Installed;
  }
#ifdef IOPOLY_TRACE_PLOT_SOURCE
  return IOPOLY_TRACE_PLOT_SOURCE;
#else
  return "";
#endif
}

/// iopoly-trace plot FILE -o IMAGE [--title T] [--bins N]
static int plot(int argc, char **argv) {
  const char *Path = nullptr;
  std::vector<std::string> Args;
  bool HaveOut = false;
  for (int I = 2; I < argc; ++I) {
    std::string A = argv[I];
    if ((A == "-o" || A == "--output" || A == "--title" || A == "--bins") && I + 1 < argc) {
      HaveOut |= A == "-o" || A == "--output";
      Args.push_back(A);
      Args.push_back(argv[++I]);
    } else if (!Path && A[0] != '-') {
      Path = argv[I];
    } else {
      std::fprintf(stderr, "iopoly-trace plot: unexpected argument '%s'\n", argv[I]);
      return 2;
    }
  }
  if (!Path || !HaveOut) {
    std::fprintf(stderr, "usage: iopoly-trace plot TRACE -o IMAGE [--title TEXT] [--bins N]\n");
    return 2;
  }
  TraceContents T;
  if (Status S = readTrace(Path, T)) {
    std::fprintf(stderr, "iopoly-trace: %s\n", S.message().c_str());
    return 1;
  }
  std::string Script = plotScript();
  if (Script.empty()) {
    std::fprintf(stderr, "iopoly-trace plot: iopoly_trace_plot.py not found (share/iopoly/ of the installation)\n");
    return 1;
  }
  // The first Python 3 that has matplotlib (a python3 earlier in PATH, such
  // as a virtual environment's, may not have it).
  std::string Python;
  for (const char *Candidate : {"python3", "/usr/bin/python3"}) {
    pid_t P = ::fork();
    if (P == 0) {
      int Null = ::open("/dev/null", O_WRONLY);
      ::dup2(Null, 1);
      ::dup2(Null, 2);
      ::execlp(Candidate, Candidate, "-c", "import matplotlib", static_cast<char *>(nullptr));
      ::_exit(127);
    }
    int St = 0;
    if (P > 0 && ::waitpid(P, &St, 0) == P && WIFEXITED(St) && WEXITSTATUS(St) == 0) {
      Python = Candidate;
      break;
    }
  }
  if (Python.empty()) {
    std::fprintf(stderr, "iopoly-trace plot: no python3 with matplotlib found (Debian: apt-get install "
                         "python3-matplotlib)\n");
    return 1;
  }
  int Pipe[2];
  if (::pipe(Pipe) != 0) {
    std::perror("iopoly-trace plot: pipe");
    return 1;
  }
  pid_t Pid = ::fork();
  if (Pid == 0) {
    ::dup2(Pipe[0], 0);
    ::close(Pipe[0]);
    ::close(Pipe[1]);
    std::vector<char *> Argv{&Python[0], const_cast<char *>(Script.c_str())};
    for (std::string &A : Args)
      Argv.push_back(&A[0]);
    Argv.push_back(nullptr);
    ::execvp(Python.c_str(), Argv.data());
    std::perror("iopoly-trace plot: cannot run python3");
    ::_exit(127);
  }
  ::close(Pipe[0]);
  std::FILE *Out = ::fdopen(Pipe[1], "w");
  if (Pid < 0 || !Out) {
    std::perror("iopoly-trace plot");
    return 1;
  }
  writeCsv(T, Out);
  std::fclose(Out);
  int WStatus = 0;
  ::waitpid(Pid, &WStatus, 0);
  return WIFEXITED(WStatus) ? WEXITSTATUS(WStatus) : 1;
}

static const char *Usage = "usage: iopoly-trace [--csv | --summary | --min BUFFER [--stripe SIZE]] FILE\n"
                            "       iopoly-trace plot FILE -o IMAGE [--title TEXT] [--bins N]\n";

/// "123" (a count), or a byte size by the grammar of common/Sizes.h
/// ("64K", "1MiB", "65536B": \p IsBytes set).
static bool parseAmount(const char *Text, unsigned long long &Out, bool &IsBytes) {
  std::string T = Text;
  if (!T.empty() && T.find_first_not_of("0123456789") == std::string::npos) {
    errno = 0;
    Out = std::strtoull(Text, nullptr, 10);
    IsBytes = false;
    return errno == 0;
  }
  uint64_t Bytes = 0;
  if (!iopoly::parseByteSize(T, Bytes))
    return false;
  Out = Bytes;
  IsBytes = true;
  return true;
}

int main(int argc, char **argv) {
  if (argc > 1 && !std::strcmp(argv[1], "plot"))
    return plot(argc, argv);
  bool Csv = false;
  const char *Path = nullptr, *MinArg = nullptr, *StripeArg = std::getenv("IOPOLY_STRIPE");
  for (int I = 1; I < argc; ++I) {
    if (!std::strcmp(argv[I], "--csv"))
      Csv = true;
    else if (!std::strcmp(argv[I], "--summary"))
      Csv = false;
    else if (!std::strcmp(argv[I], "--min") || !std::strcmp(argv[I], "--stripe")) {
      if (I + 1 >= argc) {
        std::fprintf(stderr, "iopoly-trace: %s needs a value\n%s", argv[I], Usage);
        return 2;
      }
      (argv[I][2] == 'm' ? MinArg : StripeArg) = argv[I + 1];
      ++I;
    } else if (!std::strcmp(argv[I], "-h") || !std::strcmp(argv[I], "--help")) {
      std::printf("%s", Usage);
      return 0;
    } else if (!Path)
      Path = argv[I];
    else {
      std::fprintf(stderr, "iopoly-trace: unexpected argument '%s'\n", argv[I]);
      return 2;
    }
  }
  if (!Path) {
    std::fprintf(stderr, "%s", Usage);
    return 2;
  }
  unsigned long long Frames = 0;
  if (MinArg) {
    unsigned long long Amount, Stripe = 64 << 10;
    bool Bytes, StripeBytes;
    if (!parseAmount(MinArg, Amount, Bytes)) {
      std::fprintf(stderr, "iopoly-trace: invalid buffer '%s' for --min (a number of stripes, or bytes such as 4M)\n",
                   MinArg);
      return 2;
    }
    if (StripeArg && (!parseAmount(StripeArg, Stripe, StripeBytes) || Stripe == 0)) {
      std::fprintf(stderr, "iopoly-trace: invalid stripe size '%s' (bytes such as 64K)\n", StripeArg);
      return 2;
    }
    Frames = Bytes ? Amount / Stripe : Amount;
  }
  if (MinArg) {
    // The references are the attaches, in program order (hits and misses),
    // streamed: a large run's trace does not fit in memory.
    struct Refs : TraceVisitor {
      MinCounter Min;
      Status event(const TraceEvent &E) override {
        if ((E.Kind & 0xf0) != TraceAttach)
          return {};
        return Min.add(static_cast<uint64_t>(E.Array) << 48 | (E.Stripe & ((1ULL << 48) - 1)));
      }
    } V;
    MinResult M;
    Status S = scanTrace(Path, V);
    if (!S)
      S = V.Min.count(Frames, M);
    if (S) {
      std::fprintf(stderr, "iopoly-trace: %s\n", S.message().c_str());
      return 1;
    }
    std::printf("{\"frames\": %llu, \"references\": %llu, \"distinct_stripes\": %llu, \"min_misses\": %llu, "
                "\"min_fetches\": %llu}\n",
                Frames, static_cast<unsigned long long>(M.References), static_cast<unsigned long long>(M.Distinct),
                static_cast<unsigned long long>(M.Misses), static_cast<unsigned long long>(M.Refetches()));
    return 0;
  }
  TraceContents T;
  if (Status S = readTrace(Path, T)) {
    std::fprintf(stderr, "iopoly-trace: %s\n", S.message().c_str());
    return 1;
  }
  auto NameOf = [&](uint32_t Id) { return nameOf(T, Id); };
  if (Csv) {
    writeCsv(T, stdout);
    return 0;
  }
  struct Row {
    unsigned long long Attaches = 0, Misses = 0, Prefetches = 0, Writebacks = 0, Evictions = 0;
  };
  std::map<std::string, Row> ByArray;
  std::map<unsigned, Row> ByDisk;
  for (const TraceEvent &E : T.Events) {
    for (Row *R : {&ByArray[NameOf(E.Array)], &ByDisk[E.Disk]}) {
      switch (E.Kind & 0xf0) {
      case TraceAttach:
        R->Attaches++;
        R->Misses += !(E.Kind & TraceHit);
        break;
      case TracePrefetch: R->Prefetches++; break;
      case TraceWriteback: R->Writebacks++; break;
      case TraceEvict: R->Evictions++; break;
      }
    }
  }
  std::printf("%zu events\n%-20s %12s %10s %10s %10s %10s\n", T.Events.size(), "array", "attaches", "misses",
              "prefetches", "writebacks", "evictions");
  for (const auto &KV : ByArray)
    std::printf("%-20s %12llu %10llu %10llu %10llu %10llu\n", KV.first.c_str(), KV.second.Attaches,
                KV.second.Misses, KV.second.Prefetches, KV.second.Writebacks, KV.second.Evictions);
  std::printf("%-20s %12s %10s %10s %10s %10s\n", "disk", "attaches", "misses", "prefetches", "writebacks",
              "evictions");
  for (const auto &KV : ByDisk)
    std::printf("%-20u %12llu %10llu %10llu %10llu %10llu\n", KV.first, KV.second.Attaches, KV.second.Misses,
                KV.second.Prefetches, KV.second.Writebacks, KV.second.Evictions);
  return 0;
}
