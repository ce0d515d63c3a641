//===- slowdisk.cpp - A disk model under the real file system (LD_PRELOAD) -===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The benchmark's inputs sit in the page cache, where reading costs almost
// nothing and prefetching could not help. Preloaded, this library makes
// every read and write of a file under KNOWAC_SLOWDISK_DIR last what the
// disk model says (IOPOLY_DISK_MODEL syntax: hdd, ssd, or
// latency=<t>,bw=<bytes/s>[,seq=<t>]; a request that continues the
// previous request of the same disk, in the same file, pays the sequential
// latency, as in the runtime's disk model): requests
// queue for the disk, shared by every thread and, with
// KNOWAC_SLOWDISK_QUEUE=<file>, by every process (the ranks of a job), and
// each call returns when its request would have finished. With
// KNOWAC_SLOWDISK_SERVERS=N the "disk" is a parallel file system of N
// servers, each with that model, files striped over them round-robin in
// KNOWAC_SLOWDISK_STRIPE bytes (default 64K, as PVFS2 in paper 5): a
// request waits for the slowest server it touches. KNOWAC's helper
// thread reads through the same queue, so its reads compete with the
// application's as on a real disk. KNOWAC_SLOWDISK_STATS=<file> (%p: pid)
// receives the counts at exit.
//
//   LD_PRELOAD=libknowac_slowdisk.so KNOWAC_SLOWDISK_DIR=/data
//   KNOWAC_SLOWDISK_MODEL=hdd ./program
//
// Interposed: open/openat (and their 64 and fortified forms), close, read,
// pread, preadv, write, pwrite, pwritev: what MPI-IO (ROMIO, OMPIO) and
// KNOWAC use on Linux.
//
//===----------------------------------------------------------------------===//
#include "core/Config.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <fcntl.h>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

namespace {

constexpr int MaxFd = 1 << 16;
constexpr int MaxServers = 64;

struct Server {
  std::atomic<int> Lock;
  uint64_t FreeAtNs; ///< when the server is free (CLOCK_MONOTONIC)
  uint64_t LastIno;  ///< the file and the offset where its last request ended
  int64_t LastEnd;
};
struct Shared {
  Server S[MaxServers];
};

struct State {
  bool On = false;
  std::string Dir; // real path, with a trailing '/'
  double Latency = 0, Seq = 0, Bw = 0;
  int Servers = 1;
  uint64_t Stripe = 64 << 10;
  Shared Local{};
  Shared *Disk = &Local;
  std::atomic<char> Slow[MaxFd] = {};
  std::atomic<uint64_t> Ino[MaxFd] = {};
  std::atomic<int64_t> End[MaxFd] = {}; // where the last request on the fd ended (for read/write)
  std::atomic<uint64_t> Requests{0}, Bytes{0}, BusyNs{0}, WaitNs{0};
  std::string StatsPath;
};

State &st() {
  static State *S = new State();
  return *S;
}

uint64_t nowNs() {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return uint64_t(T.tv_sec) * 1000000000u + uint64_t(T.tv_nsec);
}

template <class Fn> Fn real(const char *Name) {
  void *P = dlsym(RTLD_NEXT, Name);
  if (!P) {
    fprintf(stderr, "slowdisk: %s not found\n", Name);
    abort();
  }
  return reinterpret_cast<Fn>(P);
}
#define REAL(fn) ([] { static auto P = real<decltype(&::fn)>(#fn); return P; }())

void writeStats() {
  State &S = st();
  if (S.StatsPath.empty())
    return;
  std::string P = iopoly::expandPathTemplate(S.StatsPath);
  FILE *F = fopen(P.c_str(), "w");
  if (!F)
    return;
  fprintf(F, "{\"requests\": %llu, \"bytes\": %llu, \"busy_seconds\": %.6f, \"waited_seconds\": %.6f}\n",
          (unsigned long long)S.Requests.load(), (unsigned long long)S.Bytes.load(), S.BusyNs.load() * 1e-9,
          S.WaitNs.load() * 1e-9);
  fclose(F);
}

__attribute__((constructor)) void init() {
  State &S = st();
  const char *Dir = getenv("KNOWAC_SLOWDISK_DIR");
  if (!Dir || !*Dir)
    return;
  char R[PATH_MAX];
  if (!realpath(Dir, R)) {
    fprintf(stderr, "slowdisk: KNOWAC_SLOWDISK_DIR=%s: %s\n", Dir, strerror(errno));
    exit(2);
  }
  S.Dir = std::string(R) + "/";
  iopoly::DiskModelParams M;
  const char *Model = getenv("KNOWAC_SLOWDISK_MODEL");
  if (iopoly::Status E = iopoly::parseDiskModel(Model ? Model : "hdd", M)) {
    fprintf(stderr, "slowdisk: KNOWAC_SLOWDISK_MODEL: %s\n", E.message().c_str());
    exit(2);
  }
  S.Latency = M.LatencySec;
  S.Seq = M.SeqLatencySec;
  S.Bw = M.BytesPerSec;
  if (const char *N = getenv("KNOWAC_SLOWDISK_SERVERS")) {
    S.Servers = atoi(N);
    if (S.Servers < 1 || S.Servers > MaxServers) {
      fprintf(stderr, "slowdisk: KNOWAC_SLOWDISK_SERVERS=%s: expected 1 to %d\n", N, MaxServers);
      exit(2);
    }
  }
  if (const char *T = getenv("KNOWAC_SLOWDISK_STRIPE")) {
    size_t B = 0;
    if (iopoly::Status E = iopoly::parseSize(T, B)) {
      fprintf(stderr, "slowdisk: KNOWAC_SLOWDISK_STRIPE: %s\n", E.message().c_str());
      exit(2);
    }
    S.Stripe = B;
  }
  if (const char *Q = getenv("KNOWAC_SLOWDISK_QUEUE")) {
    int Fd = REAL(open)(Q, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (Fd < 0 || ftruncate(Fd, sizeof(Shared)) != 0) {
      fprintf(stderr, "slowdisk: KNOWAC_SLOWDISK_QUEUE=%s: %s\n", Q, strerror(errno));
      exit(2);
    }
    void *P = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED, Fd, 0);
    REAL(close)(Fd);
    if (P == MAP_FAILED) {
      fprintf(stderr, "slowdisk: mmap %s: %s\n", Q, strerror(errno));
      exit(2);
    }
    S.Disk = static_cast<Shared *>(P);
  }
  if (const char *P = getenv("KNOWAC_SLOWDISK_STATS"))
    S.StatsPath = P;
  S.On = S.Bw > 0;
  atexit(writeStats);
}

/// Marks \p Fd slow if it names a file under the directory.
int track(int Fd) {
  State &S = st();
  if (!S.On || Fd < 0 || Fd >= MaxFd)
    return Fd;
  char L[64], P[PATH_MAX];
  snprintf(L, sizeof L, "/proc/self/fd/%d", Fd);
  ssize_t N = readlink(L, P, sizeof P - 1);
  bool Slow = false;
  if (N > 0) {
    P[N] = 0;
    Slow = strncmp(P, S.Dir.c_str(), S.Dir.size()) == 0;
  }
  struct stat St;
  S.Ino[Fd].store(Slow && fstat(Fd, &St) == 0 ? uint64_t(St.st_ino) : 0);
  S.Slow[Fd].store(Slow);
  S.End[Fd].store(0);
  return Fd;
}

/// Queues a request of \p Bytes at \p Off of file \p Ino on server \p K,
/// issued at \p StartNs; returns when it is done.
uint64_t queue(State &S, int K, uint64_t Ino, int64_t Off, uint64_t Bytes, uint64_t StartNs) {
  Server &V = S.Disk->S[K];
  while (V.Lock.exchange(1, std::memory_order_acquire)) {
  }
  const bool Sequential = V.LastIno == Ino && V.LastEnd == Off;
  const uint64_t Need = uint64_t(((Sequential ? S.Seq : S.Latency) + double(Bytes) / S.Bw) * 1e9);
  const uint64_t Done = (V.FreeAtNs > StartNs ? V.FreeAtNs : StartNs) + Need;
  V.FreeAtNs = Done;
  V.LastIno = Ino;
  V.LastEnd = Off + int64_t(Bytes);
  V.Lock.store(0, std::memory_order_release);
  S.BusyNs.fetch_add(Need);
  return Done;
}

/// Waits until a request of \p Bytes at \p Off (-1: the descriptor's
/// position) on \p Fd, queued on the disk now, would be done.
void model(int Fd, int64_t Off, size_t Bytes, uint64_t StartNs) {
  State &S = st();
  if (!S.On || Fd < 0 || Fd >= MaxFd || !S.Slow[Fd].load(std::memory_order_relaxed))
    return;
  if (Off < 0)
    Off = S.End[Fd].load();
  S.End[Fd].store(Off + int64_t(Bytes));
  const uint64_t Ino = S.Ino[Fd].load();
  // Each server's part of the request: stripes go round-robin, and a
  // server keeps its stripes of a file one after the other (as PVFS
  // does), so that part is contiguous there, starting at Local.
  const uint64_t Str = S.Stripe, Ns = uint64_t(S.Servers);
  uint64_t Per[MaxServers] = {}, Local[MaxServers] = {};
  for (uint64_t B = uint64_t(Off), E = uint64_t(Off) + Bytes; B < E;) {
    const uint64_t Stripe = B / Str, N = std::min((Stripe + 1) * Str, E) - B;
    const int K = int(Stripe % Ns);
    if (!Per[K])
      Local[K] = (Stripe / Ns) * Str + B % Str;
    Per[K] += N;
    B += N;
  }
  uint64_t Done = 0;
  for (int K = 0; K < S.Servers; ++K)
    if (Per[K])
      Done = std::max(Done, queue(S, K, Ino, int64_t(Local[K]), Per[K], StartNs));
  S.Requests.fetch_add(1);
  S.Bytes.fetch_add(Bytes);
  uint64_t Now = nowNs();
  if (Done > Now) {
    S.WaitNs.fetch_add(Done - StartNs);
    struct timespec T = {time_t(Done / 1000000000u), long(Done % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &T, nullptr) == EINTR) {
    }
  }
}

mode_t modeArg(int Flags, va_list Ap) {
  return (Flags & O_CREAT) || (Flags & O_TMPFILE) == O_TMPFILE ? mode_t(va_arg(Ap, int)) : 0;
}

} // namespace

#define EXPORT __attribute__((visibility("default")))

extern "C" {

EXPORT int open(const char *Path, int Flags, ...) {
  va_list Ap;
  va_start(Ap, Flags);
  mode_t M = modeArg(Flags, Ap);
  va_end(Ap);
  return track(REAL(open)(Path, Flags, M));
}
EXPORT int open64(const char *Path, int Flags, ...) {
  va_list Ap;
  va_start(Ap, Flags);
  mode_t M = modeArg(Flags, Ap);
  va_end(Ap);
  return track(REAL(open64)(Path, Flags, M));
}
EXPORT int openat(int Dir, const char *Path, int Flags, ...) {
  va_list Ap;
  va_start(Ap, Flags);
  mode_t M = modeArg(Flags, Ap);
  va_end(Ap);
  return track(REAL(openat)(Dir, Path, Flags, M));
}
EXPORT int openat64(int Dir, const char *Path, int Flags, ...) {
  va_list Ap;
  va_start(Ap, Flags);
  mode_t M = modeArg(Flags, Ap);
  va_end(Ap);
  return track(REAL(openat64)(Dir, Path, Flags, M));
}
EXPORT int __open_2(const char *Path, int Flags) { return track(REAL(open)(Path, Flags, 0)); }
EXPORT int __open64_2(const char *Path, int Flags) { return track(REAL(open64)(Path, Flags, 0)); }

EXPORT int close(int Fd) {
  if (Fd >= 0 && Fd < MaxFd)
    st().Slow[Fd].store(false);
  return REAL(close)(Fd);
}

EXPORT ssize_t pread(int Fd, void *B, size_t N, off_t Off) {
  uint64_t T = nowNs();
  ssize_t R = REAL(pread)(Fd, B, N, Off);
  if (R > 0)
    model(Fd, Off, size_t(R), T);
  return R;
}
EXPORT ssize_t pread64(int Fd, void *B, size_t N, off64_t Off) {
  uint64_t T = nowNs();
  ssize_t R = REAL(pread64)(Fd, B, N, Off);
  if (R > 0)
    model(Fd, Off, size_t(R), T);
  return R;
}
EXPORT ssize_t preadv(int Fd, const struct iovec *V, int C, off_t Off) {
  uint64_t T = nowNs();
  ssize_t R = REAL(preadv)(Fd, V, C, Off);
  if (R > 0)
    model(Fd, Off, size_t(R), T);
  return R;
}
EXPORT ssize_t read(int Fd, void *B, size_t N) {
  uint64_t T = nowNs();
  ssize_t R = REAL(read)(Fd, B, N);
  if (R > 0)
    model(Fd, -1, size_t(R), T);
  return R;
}
EXPORT ssize_t pwrite(int Fd, const void *B, size_t N, off_t Off) {
  uint64_t T = nowNs();
  ssize_t R = REAL(pwrite)(Fd, B, N, Off);
  if (R > 0)
    model(Fd, Off, size_t(R), T);
  return R;
}
EXPORT ssize_t pwrite64(int Fd, const void *B, size_t N, off64_t Off) {
  uint64_t T = nowNs();
  ssize_t R = REAL(pwrite64)(Fd, B, N, Off);
  if (R > 0)
    model(Fd, Off, size_t(R), T);
  return R;
}
EXPORT ssize_t pwritev(int Fd, const struct iovec *V, int C, off_t Off) {
  uint64_t T = nowNs();
  ssize_t R = REAL(pwritev)(Fd, V, C, Off);
  if (R > 0)
    model(Fd, Off, size_t(R), T);
  return R;
}
EXPORT ssize_t write(int Fd, const void *B, size_t N) {
  uint64_t T = nowNs();
  ssize_t R = REAL(write)(Fd, B, N);
  if (R > 0)
    model(Fd, -1, size_t(R), T);
  return R;
}

} // extern "C"
