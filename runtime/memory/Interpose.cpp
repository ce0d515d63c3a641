//===- Interpose.cpp - I/O calls on disk-resident memory -------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Code built without the plugin cannot touch disk-resident memory; the
// SIGSEGV handler reports it. System calls are different: given an address
// the kernel cannot read, write(2) fails with EFAULT and fwrite returns a
// short count, with no message. Programs linked with libiopoly therefore get
// these wrappers of read, write, pread, pwrite, fread and fwrite: ordinary
// buffers go straight to libc; a buffer that touches disk-resident memory is
// copied through a bounce buffer by the runtime, so the call works.
//
//===----------------------------------------------------------------------===//
#include "iopoly/abi.h"

#include "memory/Arena.h"
#include "core/Error.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <dlfcn.h>
#include <unistd.h>

namespace {

constexpr size_t Chunk = 64 << 10;

bool touchesArena(const void *P, size_t N) {
  uintptr_t B = iopoly_arena_base_, E = B + iopoly_arena_size_, A = reinterpret_cast<uintptr_t>(P);
  return iopoly_arena_size_ && N && A < E && A + N > B;
}

template <typename Fn> Fn real(const char *Name) {
  void *P = dlsym(RTLD_NEXT, Name);
  if (!P)
    iopoly::fatal(iopoly::format("cannot find libc's %s", Name));
  return reinterpret_cast<Fn>(P);
}

// Resolved once, when the library is loaded, so that no wrapper ever calls
// dlsym later (from a signal handler, say).
using WriteFn = ssize_t (*)(int, const void *, size_t);
using ReadFn = ssize_t (*)(int, void *, size_t);
using PwriteFn = ssize_t (*)(int, const void *, size_t, off_t);
using PreadFn = ssize_t (*)(int, void *, size_t, off_t);
using FwriteFn = size_t (*)(const void *, size_t, size_t, FILE *);
using FreadFn = size_t (*)(void *, size_t, size_t, FILE *);
WriteFn RealWrite;
ReadFn RealRead;
PwriteFn RealPwrite;
PreadFn RealPread;
FwriteFn RealFwrite;
FreadFn RealFread;

__attribute__((constructor)) void resolveLibc() {
  RealWrite = real<WriteFn>("write");
  RealRead = real<ReadFn>("read");
  RealPwrite = real<PwriteFn>("pwrite");
  RealPread = real<PreadFn>("pread");
  RealFwrite = real<FwriteFn>("fwrite");
  RealFread = real<FreadFn>("fread");
}

/// Runs Out(bounce, m) for successive chunks after copying them out of
/// \p Src; returns bytes done or the first error.
template <typename Op> ssize_t copyOut(const void *Src, size_t N, Op Out) {
  static thread_local char Bounce[Chunk];
  size_t Done = 0;
  while (Done < N) {
    size_t M = std::min(Chunk, N - Done);
    __iopoly_memcpy(Bounce, static_cast<const char *>(Src) + Done, M);
    ssize_t R = Out(Bounce, M, Done);
    if (R < 0)
      return Done ? static_cast<ssize_t>(Done) : R;
    Done += static_cast<size_t>(R);
    if (static_cast<size_t>(R) < M)
      break;
  }
  return static_cast<ssize_t>(Done);
}

/// Fills \p Dst chunk by chunk from In(bounce, m, done).
template <typename Op> ssize_t copyIn(void *Dst, size_t N, Op In) {
  static thread_local char Bounce[Chunk];
  size_t Done = 0;
  while (Done < N) {
    size_t M = std::min(Chunk, N - Done);
    ssize_t R = In(Bounce, M, Done);
    if (R < 0)
      return Done ? static_cast<ssize_t>(Done) : R;
    __iopoly_memcpy(static_cast<char *>(Dst) + Done, Bounce, static_cast<size_t>(R));
    Done += static_cast<size_t>(R);
    if (static_cast<size_t>(R) < M)
      break;
  }
  return static_cast<ssize_t>(Done);
}

} // namespace

extern "C" {

IOPOLY_API ssize_t write(int Fd, const void *Buf, size_t N) {
  WriteFn Real = RealWrite ? RealWrite : real<WriteFn>("write");
  if (!touchesArena(Buf, N))
    return Real(Fd, Buf, N);
  return copyOut(Buf, N, [&](const char *B, size_t M, size_t) { return Real(Fd, B, M); });
}

IOPOLY_API ssize_t read(int Fd, void *Buf, size_t N) {
  ReadFn Real = RealRead ? RealRead : real<ReadFn>("read");
  if (!touchesArena(Buf, N))
    return Real(Fd, Buf, N);
  return copyIn(Buf, N, [&](char *B, size_t M, size_t) { return Real(Fd, B, M); });
}

IOPOLY_API ssize_t pwrite(int Fd, const void *Buf, size_t N, off_t Off) {
  PwriteFn Real = RealPwrite ? RealPwrite : real<PwriteFn>("pwrite");
  if (!touchesArena(Buf, N))
    return Real(Fd, Buf, N, Off);
  return copyOut(Buf, N, [&](const char *B, size_t M, size_t Done) {
    return Real(Fd, B, M, Off + static_cast<off_t>(Done));
  });
}

IOPOLY_API ssize_t pread(int Fd, void *Buf, size_t N, off_t Off) {
  PreadFn Real = RealPread ? RealPread : real<PreadFn>("pread");
  if (!touchesArena(Buf, N))
    return Real(Fd, Buf, N, Off);
  return copyIn(Buf, N, [&](char *B, size_t M, size_t Done) { return Real(Fd, B, M, Off + static_cast<off_t>(Done)); });
}

IOPOLY_API size_t fwrite(const void *Ptr, size_t Size, size_t Count, FILE *F) {
  FwriteFn Real = RealFwrite ? RealFwrite : real<FwriteFn>("fwrite");
  if (!Size || !touchesArena(Ptr, Size * Count))
    return Real(Ptr, Size, Count, F);
  ssize_t Bytes = copyOut(Ptr, Size * Count, [&](const char *B, size_t M, size_t) {
    return static_cast<ssize_t>(Real(B, 1, M, F));
  });
  return Bytes < 0 ? 0 : static_cast<size_t>(Bytes) / Size;
}

IOPOLY_API size_t fread(void *Ptr, size_t Size, size_t Count, FILE *F) {
  FreadFn Real = RealFread ? RealFread : real<FreadFn>("fread");
  if (!Size || !touchesArena(Ptr, Size * Count))
    return Real(Ptr, Size, Count, F);
  ssize_t Bytes = copyIn(Ptr, Size * Count, [&](char *B, size_t M, size_t) {
    return static_cast<ssize_t>(Real(B, 1, M, F));
  });
  return Bytes < 0 ? 0 : static_cast<size_t>(Bytes) / Size;
}

} // extern "C"
