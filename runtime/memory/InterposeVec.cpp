//===- InterposeVec.cpp - readv/writev on disk-resident memory -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The vector forms of Interpose.cpp's wrappers: readv, writev, preadv and
// pwritev. Given an address the kernel cannot read (a disk-resident stripe
// that is not mapped), the system call would fail with EFAULT and nothing
// would name the array. When no buffer touches disk-resident memory the
// call goes straight to libc; otherwise the buffers are transferred one
// after the other, disk-resident ones through a bounce buffer and the
// stripe buffer (__iopoly_memcpy), ordinary ones directly - the same bytes
// in the same order (not one atomic system call: a FIFO or socket may see
// several writes).
//
//===----------------------------------------------------------------------===//
#include "iopoly/abi.h"

#include "core/Error.h"
#include "memory/Arena.h"

#include <algorithm>
#include <dlfcn.h>
#include <sys/uio.h>
#include <unistd.h>

namespace {

constexpr size_t Chunk = 64 << 10;

bool touchesArena(const void *P, size_t N) {
  uintptr_t B = iopoly_arena_base_, E = B + iopoly_arena_size_, A = reinterpret_cast<uintptr_t>(P);
  return iopoly_arena_size_ && N && A < E && A + N > B;
}

bool anyInArena(const struct iovec *Iov, int N) {
  for (int K = 0; K < N; ++K)
    if (touchesArena(Iov[K].iov_base, Iov[K].iov_len))
      return true;
  return false;
}

template <typename Fn> Fn real(const char *Name) {
  void *P = dlsym(RTLD_NEXT, Name);
  if (!P)
    iopoly::fatal(iopoly::format("cannot find libc's %s", Name));
  return reinterpret_cast<Fn>(P);
}

using PreadFn = ssize_t (*)(int, void *, size_t, off_t);
using PwriteFn = ssize_t (*)(int, const void *, size_t, off_t);
using ReadFn = ssize_t (*)(int, void *, size_t);
using WriteFn = ssize_t (*)(int, const void *, size_t);
using ReadvFn = ssize_t (*)(int, const struct iovec *, int);
using PreadvFn = ssize_t (*)(int, const struct iovec *, int, off_t);

/// Transfers the buffers in order. Op(buf, len, done) moves up to len bytes
/// at position done of the whole request and returns the count or -1.
template <typename Op> ssize_t transferEach(const struct iovec *Iov, int N, bool ToMemory, Op Move) {
  static thread_local char Bounce[Chunk];
  size_t Done = 0;
  for (int K = 0; K < N; ++K) {
    char *Base = static_cast<char *>(Iov[K].iov_base);
    size_t Len = Iov[K].iov_len, At = 0;
    bool Disk = touchesArena(Base, Len);
    while (At < Len) {
      size_t M = Disk ? std::min(Chunk, Len - At) : Len - At;
      char *Buf = Disk ? Bounce : Base + At;
      if (Disk && !ToMemory)
        __iopoly_memcpy(Bounce, Base + At, M); // stops, naming the array, if out of bounds
      ssize_t R = Move(Buf, M, Done);
      if (R < 0)
        return Done ? static_cast<ssize_t>(Done) : R;
      if (Disk && ToMemory)
        __iopoly_memcpy(Base + At, Bounce, static_cast<size_t>(R));
      At += static_cast<size_t>(R);
      Done += static_cast<size_t>(R);
      if (static_cast<size_t>(R) < M)
        return static_cast<ssize_t>(Done); // end of file, or a short transfer
    }
  }
  return static_cast<ssize_t>(Done);
}

} // namespace

extern "C" {

IOPOLY_API ssize_t readv(int Fd, const struct iovec *Iov, int N) {
  static ReadvFn Real = real<ReadvFn>("readv");
  if (N <= 0 || !Iov || !anyInArena(Iov, N))
    return Real(Fd, Iov, N);
  static ReadFn Read = real<ReadFn>("read");
  return transferEach(Iov, N, true, [&](char *B, size_t M, size_t) { return Read(Fd, B, M); });
}

IOPOLY_API ssize_t writev(int Fd, const struct iovec *Iov, int N) {
  static ReadvFn Real = reinterpret_cast<ReadvFn>(real<void *>("writev"));
  if (N <= 0 || !Iov || !anyInArena(Iov, N))
    return Real(Fd, Iov, N);
  static WriteFn Write = real<WriteFn>("write");
  return transferEach(Iov, N, false, [&](char *B, size_t M, size_t) { return Write(Fd, B, M); });
}

IOPOLY_API ssize_t preadv(int Fd, const struct iovec *Iov, int N, off_t Off) {
  static PreadvFn Real = real<PreadvFn>("preadv");
  if (N <= 0 || !Iov || !anyInArena(Iov, N))
    return Real(Fd, Iov, N, Off);
  static PreadFn Pread = real<PreadFn>("pread");
  return transferEach(Iov, N, true,
                      [&](char *B, size_t M, size_t Done) { return Pread(Fd, B, M, Off + static_cast<off_t>(Done)); });
}

IOPOLY_API ssize_t pwritev(int Fd, const struct iovec *Iov, int N, off_t Off) {
  static PreadvFn Real = reinterpret_cast<PreadvFn>(real<void *>("pwritev"));
  if (N <= 0 || !Iov || !anyInArena(Iov, N))
    return Real(Fd, Iov, N, Off);
  static PwriteFn Pwrite = real<PwriteFn>("pwrite");
  return transferEach(Iov, N, false, [&](char *B, size_t M, size_t Done) {
    return Pwrite(Fd, B, M, Off + static_cast<off_t>(Done));
  });
}

} // extern "C"
