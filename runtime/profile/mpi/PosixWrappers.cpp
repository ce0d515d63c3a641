//===- PosixWrappers.cpp - POSIX reads and writes under a prefix -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// With IOPOLY_PROFILE_POSIX=/prefix the profiler also logs open/close and
// read/write/pread/pwrite of the program on files whose absolute path
// starts with the prefix (flag AfPosix; the partitioner leaves them out).
// Calls made by MPI itself (inside an MPI wrapper) are not logged. The
// real functions come from dlsym(RTLD_NEXT). Cost for other files: one
// table lookup by descriptor.
//
//===----------------------------------------------------------------------===//
#include "common/Paths.h"
#include "mpi/Interposer.h"

#include <cerrno>
#include <cstdarg>
#include <dlfcn.h>
#include <fcntl.h>
#include <mutex>
#include <sys/types.h>
#include <unistd.h>
#include <unordered_map>

#define IOPOLY_EXPORT extern "C" __attribute__((visibility("default")))

using namespace iopoly::prof;

namespace {

template <typename Fn> Fn real(const char *Name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, Name));
}

struct Tracked {
  uint32_t LogId;
};
std::mutex FdMu;
std::unordered_map<int, Tracked> Fds;

bool watching() {
  Runtime &Rt = runtime();
  return Rt.Logging && !Rt.Finalized && !Rt.Opt.PosixPrefix.empty() && InMpi == 0;
}

void opened(int Fd, const char *Path) {
  if (Fd < 0 || !watching() || !Path)
    return;
  Runtime &Rt = runtime();
  std::string P = canonicalFile(Path);
  if (P.compare(0, Rt.Opt.PosixPrefix.size(), Rt.Opt.PosixPrefix) != 0)
    return;
  uint32_t Id = Rt.Log.addFile(P, 0, 1, 0, 0, true);
  {
    std::lock_guard<std::mutex> G(FdMu);
    Fds[Fd] = {Id};
  }
  uint64_t T = Rt.now();
  Rt.logEvent(Id, EventKind::Open, 0, 0, 1, 0, T, T, Rt.nextCall());
}

bool lookup(int Fd, uint32_t &Id) {
  if (!watching())
    return false;
  std::lock_guard<std::mutex> G(FdMu);
  auto It = Fds.find(Fd);
  if (It == Fds.end())
    return false;
  Id = It->second.LogId;
  return true;
}

void logIo(uint32_t Id, IoOp Op, uint64_t Off, ssize_t Done, uint64_t T0) {
  Runtime &Rt = runtime();
  if (Done <= 0)
    return;
  OpenFile F;
  F.LogId = Id;
  Rt.logAccess(F, AfPosix, {{Op, Off, static_cast<uint64_t>(Done), Target::Shared, 0, false}}, T0, Rt.now(),
               Rt.nextCall());
}

using OpenFn = int (*)(const char *, int, ...);
using OpenAtFn = int (*)(int, const char *, int, ...);
using CreatFn = int (*)(const char *, mode_t);
using CloseFn = int (*)(int);
using ReadFn = ssize_t (*)(int, void *, size_t);
using WriteFn = ssize_t (*)(int, const void *, size_t);
using PreadFn = ssize_t (*)(int, void *, size_t, off_t);
using PwriteFn = ssize_t (*)(int, const void *, size_t, off_t);

mode_t modeArg(int Flags, va_list Ap) {
  return (Flags & O_CREAT) || (Flags & O_TMPFILE) == O_TMPFILE ? static_cast<mode_t>(va_arg(Ap, int)) : 0;
}

} // namespace

IOPOLY_EXPORT int open(const char *Path, int Flags, ...) {
  static OpenFn R = real<OpenFn>("open");
  va_list Ap;
  va_start(Ap, Flags);
  mode_t M = modeArg(Flags, Ap);
  va_end(Ap);
  int Fd = R(Path, Flags, M);
  opened(Fd, Path);
  return Fd;
}

IOPOLY_EXPORT int open64(const char *Path, int Flags, ...) {
  static OpenFn R = real<OpenFn>("open64");
  va_list Ap;
  va_start(Ap, Flags);
  mode_t M = modeArg(Flags, Ap);
  va_end(Ap);
  int Fd = R(Path, Flags, M);
  opened(Fd, Path);
  return Fd;
}

IOPOLY_EXPORT int openat(int Dir, const char *Path, int Flags, ...) {
  static OpenAtFn R = real<OpenAtFn>("openat");
  va_list Ap;
  va_start(Ap, Flags);
  mode_t M = modeArg(Flags, Ap);
  va_end(Ap);
  int Fd = R(Dir, Path, Flags, M);
  if (Dir == AT_FDCWD || Path[0] == '/')
    opened(Fd, Path);
  return Fd;
}

IOPOLY_EXPORT int creat(const char *Path, mode_t Mode) {
  static CreatFn R = real<CreatFn>("creat");
  int Fd = R(Path, Mode);
  opened(Fd, Path);
  return Fd;
}

IOPOLY_EXPORT int close(int Fd) {
  static CloseFn R = real<CloseFn>("close");
  uint32_t Id;
  if (lookup(Fd, Id)) {
    Runtime &Rt = runtime();
    uint64_t T = Rt.now();
    Rt.logEvent(Id, EventKind::Close, 0, 0, 0, 0, T, T, Rt.nextCall());
    std::lock_guard<std::mutex> G(FdMu);
    Fds.erase(Fd);
  }
  return R(Fd);
}

IOPOLY_EXPORT ssize_t read(int Fd, void *Buf, size_t N) {
  static ReadFn R = real<ReadFn>("read");
  uint32_t Id;
  if (!lookup(Fd, Id))
    return R(Fd, Buf, N);
  off_t Off = lseek(Fd, 0, SEEK_CUR);
  uint64_t T0 = runtime().now();
  ssize_t Got = R(Fd, Buf, N);
  int E = errno;
  if (Off >= 0)
    logIo(Id, IoOp::Read, static_cast<uint64_t>(Off), Got, T0);
  errno = E;
  return Got;
}

IOPOLY_EXPORT ssize_t write(int Fd, const void *Buf, size_t N) {
  static WriteFn R = real<WriteFn>("write");
  uint32_t Id;
  if (!lookup(Fd, Id))
    return R(Fd, Buf, N);
  off_t Off = lseek(Fd, 0, SEEK_CUR);
  uint64_t T0 = runtime().now();
  ssize_t Got = R(Fd, Buf, N);
  int E = errno;
  if (Off >= 0)
    logIo(Id, IoOp::Write, static_cast<uint64_t>(Off), Got, T0);
  errno = E;
  return Got;
}

#define IOPOLY_POSITIONED(NAME, FN, BUF, OP)                                                                    \
  IOPOLY_EXPORT ssize_t NAME(int Fd, BUF Buf, size_t N, off_t Off) {                                           \
    static FN R = real<FN>(#NAME);                                                                              \
    uint32_t Id;                                                                                                \
    if (!lookup(Fd, Id))                                                                                        \
      return R(Fd, Buf, N, Off);                                                                                \
    uint64_t T0 = runtime().now();                                                                              \
    ssize_t Got = R(Fd, Buf, N, Off);                                                                           \
    int E = errno;                                                                                              \
    logIo(Id, OP, static_cast<uint64_t>(Off), Got, T0);                                                         \
    errno = E;                                                                                                  \
    return Got;                                                                                                 \
  }

IOPOLY_POSITIONED(pread, PreadFn, void *, IoOp::Read)
IOPOLY_POSITIONED(pread64, PreadFn, void *, IoOp::Read)
IOPOLY_POSITIONED(pwrite, PwriteFn, const void *, IoOp::Write)
IOPOLY_POSITIONED(pwrite64, PwriteFn, const void *, IoOp::Write)
