//===- FrameMemory.cpp - Buffer memory and views of resident stripes -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "memory/FrameMemory.h"
#include "core/Array.h"
#include "core/Error.h"
#include "memory/FaultService.h"

#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace iopoly {

FrameMemory::FrameMemory(size_t Frames, size_t StripeSize) : Count(Frames), Stripe(StripeSize) {
  size_t Bytes;
  if (__builtin_mul_overflow(Frames, StripeSize, &Bytes)) {
    Error = Status::error(ErrorCode::TooLarge, format("the stripe buffer of %zu frames of %zu bytes overflows", Frames,
                                                      StripeSize));
    Count = 0;
    return;
  }
  long Page = ::sysconf(_SC_PAGESIZE);
  if (Page > 0 && StripeSize % static_cast<size_t>(Page) == 0) {
    int F = ::memfd_create("iopoly-buffer", MFD_CLOEXEC);
    if (F >= 0 && ::ftruncate(F, static_cast<off_t>(Bytes)) == 0) {
      void *P = ::mmap(nullptr, Bytes, PROT_READ | PROT_WRITE, MAP_SHARED, F, 0);
      if (P != MAP_FAILED) {
        Fd = F;
        Base = static_cast<char *>(P);
        return;
      }
    }
    if (F >= 0)
      ::close(F);
    verbose("views of resident stripes are off: no shared buffer memory (memfd)");
  }
  // Page-aligned (O_DIRECT) and not touched until used.
  void *P = ::mmap(nullptr, Bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (P == MAP_FAILED) {
    Error = Status::error(ErrorCode::NoMemory, format("cannot reserve the stripe buffer of %zu bytes "
                                                      "(IOPOLY_BUFFER): %s",
                                                      Bytes, std::strerror(errno)));
    Count = 0;
    return;
  }
  Base = static_cast<char *>(P);
}

FrameMemory::~FrameMemory() {
  if (Base)
    ::munmap(Base, Count * Stripe);
  if (Fd >= 0)
    ::close(Fd);
}

bool FrameMemory::hasViews(const iopoly_array &A) const { return Fd >= 0 && A.AllocBase; }

namespace {

/// mmap(2) itself. A view changes which memory an address shows, not the
/// memory: ThreadSanitizer's mmap interceptor would count it as a write to
/// the range and report every later access by a thread that did not fault
/// there itself (the kernel orders those; nothing in the program can).
void *mapFixed(void *At, size_t Len, int Prot, int Flags, int Fd, off_t Off) {
  long R = ::syscall(SYS_mmap, At, Len, Prot, Flags | MAP_FIXED, Fd, Off);
  return R < 0 && R > -4096 ? MAP_FAILED : reinterpret_cast<void *>(R);
}

} // namespace

void FrameMemory::setView(const iopoly_array &A, size_t StripeIndex, size_t Frame, ViewState Have, ViewState Want) {
  if (Have == Want || !hasViews(A))
    return;
  char *At = static_cast<char *>(A.AllocBase) + StripeIndex * Stripe;
  void *R;
  if (Want == ViewState::None)
    R = mapFixed(At, Stripe, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  else if (Have == ViewState::None)
    R = mapFixed(At, Stripe, Want == ViewState::ReadWrite ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, Fd,
                 static_cast<off_t>(Frame * Stripe));
  else
    R = ::mprotect(At, Stripe, Want == ViewState::ReadWrite ? PROT_READ | PROT_WRITE : PROT_READ) == 0 ? At
                                                                                                      : MAP_FAILED;
  if (R == MAP_FAILED)
    fatal(format("cannot map the view of block %zu of array '%s': %s", StripeIndex, A.Name.c_str(),
                 std::strerror(errno)));
  if (Want == ViewState::None)
    faultServiceViewDropped(A, At, Stripe);
}

} // namespace iopoly
