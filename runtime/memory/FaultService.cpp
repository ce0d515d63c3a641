//===- FaultService.cpp - Page faults of code built without the plugin -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "memory/FaultService.h"
#include "core/Array.h"
#include "core/Progress.h"
#include "core/Runtime.h"
#include "memory/Arena.h"

#include "iopoly.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/userfaultfd.h>
#include <mutex>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <thread>
#include <ucontext.h>
#include <unistd.h>

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

namespace iopoly {

namespace {

enum class Front { None, Signal, Uffd };

/// A fault sent by the SIGSEGV handler; written to the pipe in one piece
/// (well below PIPE_BUF, so writes from several threads never interleave).
struct Request {
  uintptr_t Addr;
  uintptr_t IP;
  int32_t Access; ///< 1 write, 0 read, -1 unknown
  int32_t Pad;
  int32_t *Reply; ///< futex word in the handler's frame: 1 when served
};

struct sigaction PreviousSegv;
std::atomic<Front> Mode{Front::None}; ///< None until the service runs (or when off)
bool Off = false;                     ///< IOPOLY_FAULTS=off
int ReqPipe[2] = {-1, -1};
int Uffd = -1;
std::atomic<long> ServiceTid{0};
/// Incremented by the handler before it sends a request, read by the
/// service after it receives one: what the faulting thread did before the
/// fault happens before the service looks at it (the pipe alone says so to
/// the kernel, not to ThreadSanitizer).
std::atomic<uint64_t> Handshake{0};
std::atomic<long> ServicePid{0};

long sysGettid() { return ::syscall(SYS_gettid); }

// --- Async-signal-safe helpers (used in the handler only) ------------------

void put(const char *S) { (void)!::syscall(SYS_write, 2, S, std::strlen(S)); }
void putNum(unsigned long long V) {
  char Buf[24];
  int I = 23;
  Buf[I] = '\0';
  do {
    Buf[--I] = static_cast<char>('0' + V % 10);
    V /= 10;
  } while (V && I > 0);
  put(Buf + I);
}

void putHex(uintptr_t V) {
  char Buf[2 + 2 * sizeof V + 1];
  int I = sizeof Buf - 1;
  Buf[I] = '\0';
  do {
    Buf[--I] = "0123456789abcdef"[V & 15];
    V >>= 4;
  } while (V && I > 2);
  Buf[--I] = 'x';
  Buf[--I] = '0';
  put(Buf + I);
}

/// A fault on an unmapped address outside the arena but within its size of
/// it. Compiled code treats an address outside the arena as ordinary
/// memory, so an index far out of bounds of a disk-resident array faults
/// here, not in the arena: the message gives the address and the nearest
/// array before the signal takes its course. Faults farther away (a null
/// pointer) or on mapped memory (a stack's guard page, pages a garbage
/// collector protects) are left alone.
void noteNearArena(uintptr_t Addr) {
  uintptr_t Lo = iopoly_arena_base_, Hi = Lo + iopoly_arena_size_;
  bool Below = Addr < Lo;
  if (Below ? Lo - Addr > iopoly_arena_size_ : Addr - Hi >= iopoly_arena_size_)
    return;
  size_t N = iopoly_arena_size_ >> ArenaGranuleShift;
  iopoly_array *A = nullptr;
  for (size_t K = 0; K < N && !A; ++K)
    A = iopoly_arena_table_[Below ? K : N - 1 - K].load(std::memory_order_acquire);
  put("iopoly: fatal: segmentation fault at address ");
  putHex(Addr);
  put(", outside disk-resident memory (");
  putNum(Below ? Lo - Addr : Addr - Hi);
  put(Below ? " bytes below it)" : " bytes past its end)");
  if (A) { // the lowest array for an address below, the highest above
    uintptr_t Base = reinterpret_cast<uintptr_t>(A->AllocBase);
    put("; nearest array: ");
    if (Below) {
      putNum(Base - Addr);
      put(" bytes before the start of disk-resident array '");
    } else {
      put("byte ");
      putNum(Addr - Base);
      put(" of disk-resident array '");
    }
    put(A->Name.c_str());
    put("' (");
    putNum(A->Geo.TotalBytes);
    put(Below ? " bytes): a negative index out of bounds by far?" : " bytes): an index out of bounds by far?");
  }
  put("\n");
}

[[noreturn]] void dieInHandler(uintptr_t Addr, const char *Why) {
  iopoly_array *A = arenaOwner(reinterpret_cast<void *>(Addr));
  if (A) {
    uintptr_t Off = Addr - reinterpret_cast<uintptr_t>(A->AllocBase);
    put("iopoly: fatal: direct access to disk-resident array '");
    put(A->Name.c_str());
    put("' (byte ");
    putNum(Off);
    put(" of ");
    putNum(A->Geo.TotalBytes);
    put(") from code that does not go through the iopoly runtime: ");
  } else {
    put("iopoly: fatal: access to disk-resident address space outside every array (a guard gap or freed memory): ");
  }
  put(Why);
  put("\n");
  ::signal(SIGABRT, SIG_DFL);
  ::abort();
}

void chain(int Sig, siginfo_t *Info, void *Ctx) {
  if (PreviousSegv.sa_flags & SA_SIGINFO) {
    if (PreviousSegv.sa_sigaction) {
      PreviousSegv.sa_sigaction(Sig, Info, Ctx);
      return;
    }
  } else if (PreviousSegv.sa_handler != SIG_DFL && PreviousSegv.sa_handler != SIG_IGN) {
    PreviousSegv.sa_handler(Sig);
    return;
  }
  ::signal(SIGSEGV, SIG_DFL); // re-executing the access now dumps core
}

void onSegv(int Sig, siginfo_t *Info, void *Ctx) {
  uintptr_t Addr = reinterpret_cast<uintptr_t>(Info->si_addr);
  if (!iopoly_arena_size_ || Addr - iopoly_arena_base_ >= iopoly_arena_size_ || Info->si_code <= 0) {
    if (iopoly_arena_size_ && Info->si_code == SEGV_MAPERR)
      noteNearArena(Addr);
    chain(Sig, Info, Ctx); // not ours (or sent by kill)
    return;
  }
  int SavedErrno = errno;
  if (Off)
    dieInHandler(Addr, "IOPOLY_FAULTS=off; compile that code with the iopoly plugin (iopoly-clang), copy data with "
                       "iopoly_attach/iopoly_release, or allow the runtime to serve page faults");
  if (Mode.load(std::memory_order_acquire) == Front::None)
    dieInHandler(Addr, "the page-fault service is not running");
  if (::getpid() != ServicePid.load())
    dieInHandler(Addr, "disk-resident memory is not available in a process created by fork()");
  if (sysGettid() == ServiceTid.load())
    dieInHandler(Addr, "the fault happened inside the runtime's fault service (an iopoly bug)");
  Request R{Addr, 0, -1, 0, nullptr};
#if defined(__x86_64__)
  auto *UC = static_cast<ucontext_t *>(Ctx);
  R.IP = static_cast<uintptr_t>(UC->uc_mcontext.gregs[REG_RIP]);
  R.Access = (UC->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0; // page-fault error code: bit 1 = write
#elif defined(__aarch64__)
  R.IP = static_cast<uintptr_t>(static_cast<ucontext_t *>(Ctx)->uc_mcontext.pc);
#endif
  int32_t Reply = 0;
  R.Reply = &Reply;
  Handshake.fetch_add(1, std::memory_order_release);
  long W;
  do
    W = ::syscall(SYS_write, ReqPipe[1], &R, sizeof R);
  while (W < 0 && errno == EINTR);
  if (W != static_cast<long>(sizeof R))
    dieInHandler(Addr, "cannot reach the runtime's fault service");
  while (__atomic_load_n(&Reply, __ATOMIC_ACQUIRE) == 0)
    ::syscall(SYS_futex, &Reply, FUTEX_WAIT_PRIVATE, 0, nullptr, nullptr, 0);
  errno = SavedErrno;
}

// --- The service thread -----------------------------------------------------

/// "'qsort' in libc.so.6" for a code address ("" if unknown).
std::string describeCode(uintptr_t IP) {
  if (!IP)
    return "";
  Dl_info Info;
  if (!::dladdr(reinterpret_cast<void *>(IP), &Info) || !Info.dli_fname)
    return format("code at %p", reinterpret_cast<void *>(IP));
  const char *Lib = std::strrchr(Info.dli_fname, '/');
  Lib = Lib ? Lib + 1 : Info.dli_fname;
  if (Info.dli_sname)
    return format("'%s' in %s", Info.dli_sname, Lib);
  // Functions of the program itself are not in its dynamic symbol table.
  Dl_info Main;
  void *Phdr = reinterpret_cast<void *>(::getauxval(AT_PHDR));
  bool InProgram = Phdr && ::dladdr(Phdr, &Main) && Main.dli_fbase == Info.dli_fbase;
  return format("code at offset 0x%lx in %s%s",
                static_cast<unsigned long>(IP - reinterpret_cast<uintptr_t>(Info.dli_fbase)), Lib,
                InProgram ? "; link the program with -rdynamic to see function names" : "");
}

[[noreturn]] void stop(const std::string &Msg) {
  writeStderr("iopoly: fatal: " + Msg + "\n");
  ::signal(SIGABRT, SIG_DFL);
  ::abort();
}

/// Maps [At, At + Len) as anonymous memory registered with userfaultfd. It
/// is registered while still inaccessible and only then made accessible:
/// an access in between must fault (and reach the service through the
/// signal), never find plain anonymous memory and keep a page of zeros.
bool registerRange(char *At, size_t Len) {
  // The system calls themselves, as for views (FrameMemory.cpp): no access
  // of the program's memory, whatever ThreadSanitizer's mmap would record.
  if (::syscall(SYS_mmap, At, Len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) == -1)
    return false;
  uffdio_register Reg;
  std::memset(&Reg, 0, sizeof Reg);
  Reg.range.start = reinterpret_cast<uintptr_t>(At);
  Reg.range.len = Len;
  Reg.mode = UFFDIO_REGISTER_MODE_MISSING;
  if (::ioctl(Uffd, UFFDIO_REGISTER, &Reg) != 0)
    return false; // stays PROT_NONE: served through the signal
  return ::mprotect(At, Len, PROT_READ | PROT_WRITE) == 0;
}

/// Serves the rest of \p A's faults through userfaultfd: its stripes
/// without a view become registered memory. Buffer lock held.
void armLocked(iopoly_array &A) {
  if (A.FaultArmed || Uffd < 0)
    return;
  size_t S = A.Geo.StripeSize, N = A.Geo.numStripes(), Start = N;
  char *Base = static_cast<char *>(A.AllocBase);
  for (size_t I = 0; I <= N; ++I) {
    Frame *F = I < N ? A.Table.lookup(I) : nullptr;
    bool Unmapped = I < N && !(F && F->holds(&A, I) && F->View != ViewState::None);
    if (Unmapped && Start == N)
      Start = I;
    if (!Unmapped && Start != N) {
      if (!registerRange(Base + Start * S, (I - Start) * S))
        return; // stays on the signal path (already PROT_NONE again)
      Start = N;
    }
  }
  A.FaultArmed = true;
}

/// Serves one fault at \p Addr (Access: 1 write, 0 read, -1 unknown).
void serve(uintptr_t Addr, int Access, uintptr_t IP, bool ViaUffd) {
  std::string Who = describeCode(IP);
  std::string By = Who.empty() ? std::string("code built without the iopoly plugin")
                               : "code built without the iopoly plugin (" + Who + ")";
  Runtime *RT = Runtime::existing();
  size_t Off = 0;
  std::string Why;
  iopoly_array *A = arenaResolve(Addr, 1, Off, Why);
  if (!A)
    stop(format("invalid access by %s: %s", By.c_str(), Why.c_str()));
  if (!RT)
    stop(format("access to disk-resident array '%s' (byte %zu of %zu) by %s: the runtime that owns it is not "
                "running",
                A->Name.c_str(), Off, static_cast<size_t>(A->Geo.TotalBytes), By.c_str()));
  StripeBuffer &Buf = RT->buffer();
  if (!Buf.hasViews(*A))
    stop(format("%s touched disk-resident array '%s' (byte %zu), which the runtime cannot serve through page "
                "faults: its stripes of %zu bytes are not whole pages (IOPOLY_STRIPE must be a multiple of %ld) or "
                "there is no shared buffer memory; compile that code with the iopoly plugin",
                By.c_str(), A->Name.c_str(), Off, A->Geo.StripeSize, ::sysconf(_SC_PAGESIZE)));
  size_t Stripe = Off / A->Geo.StripeSize;
  if (Access < 0) {
    // No hardware hint: a fault on a read-only view can only be a write.
    bool ReadOnly = Buf.locked([&] {
      Frame *F = A->Table.lookup(Stripe);
      return F && F->holds(A, Stripe) && F->State == FrameState::Ready && F->View == ViewState::ReadOnly;
    });
    Access = ReadOnly ? 1 : 0;
  }
  void *Data = nullptr;
  if (Status E = Buf.attach(A, Stripe, Access ? IOPOLY_READ | IOPOLY_WRITE : IOPOLY_READ, Data))
    stop(format("cannot serve the page fault of %s on disk-resident array '%s' (byte %zu): %s", By.c_str(),
                A->Name.c_str(), Off, E.message().c_str()));
  if (Status E = Buf.release(A, Stripe))
    stop(format("fault service: %s", E.message().c_str()));
  std::string Name;
  bool First = Buf.locked([&] {
    RT->stats().C.FaultedAccesses++;
    ArrayCounters *PA = A->PerArray;
    if (!PA)
      return false;
    PA->FaultedAccesses++;
    if (!PA->FaultedFrom.empty())
      return false;
    PA->FaultedFrom = Who.empty() ? "unknown code" : Who;
    Name = A->Name;
    if (!ViaUffd && Mode.load() == Front::Uffd)
      armLocked(*A);
    return true;
  });
  if (First)
    writeStderr(format("iopoly: note: disk-resident array '%s' is used by %s; the runtime serves it through page "
                       "faults (correct, slower than compiled access; counted as faulted_accesses in IOPOLY_STATS)\n",
                       Name.c_str(), By.c_str()));
}

void serveUffd() {
  uffd_msg Msgs[16];
  while (true) {
    long N = ::read(Uffd, Msgs, sizeof Msgs);
    if (N <= 0)
      return; // EAGAIN: drained
    for (long K = 0; K < N / static_cast<long>(sizeof(uffd_msg)); ++K) {
      if (Msgs[K].event != UFFD_EVENT_PAGEFAULT)
        continue;
      uintptr_t Addr = Msgs[K].arg.pagefault.address;
      serve(Addr, (Msgs[K].arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WRITE) ? 1 : 0, 0, /*ViaUffd=*/true);
      long Page = ::sysconf(_SC_PAGESIZE);
      uffdio_range Wake;
      Wake.start = Addr & ~static_cast<uintptr_t>(Page - 1);
      Wake.len = static_cast<uint64_t>(Page);
      ::ioctl(Uffd, UFFDIO_WAKE, &Wake);
    }
  }
}

void serviceLoop() {
  ServiceTid = sysGettid();
  pollfd P[2] = {{ReqPipe[0], POLLIN, 0}, {Uffd, POLLIN, 0}};
  while (true) {
    int N = ::poll(P, Uffd >= 0 ? 2 : 1, -1);
    if (N < 0)
      continue; // EINTR
    if (P[0].revents & POLLIN) {
      Request R;
      if (::syscall(SYS_read, ReqPipe[0], &R, sizeof R) == static_cast<long>(sizeof R)) {
        (void)Handshake.load(std::memory_order_acquire);
        serve(R.Addr, R.Access, R.IP, /*ViaUffd=*/false);
        __atomic_store_n(R.Reply, 1, __ATOMIC_RELEASE);
        ::syscall(SYS_futex, R.Reply, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
      }
    }
    if (Uffd >= 0 && (P[1].revents & POLLIN))
      serveUffd();
  }
}

/// In a child of fork(), the arena must not show the parent's buffer
/// frames (views are shared memory): every access faults and is refused.
void afterForkInChild() {
  if (iopoly_arena_size_)
    ::mmap(reinterpret_cast<void *>(iopoly_arena_base_), iopoly_arena_size_, PROT_NONE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
}

int openUffd(std::string &Why) {
  int Fd = static_cast<int>(::syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY));
  if (Fd < 0 && errno == EINVAL) // kernels before 5.11: no user-mode-only flag
    Fd = static_cast<int>(::syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK));
  if (Fd < 0) {
    Why = std::strerror(errno);
    return -1;
  }
  uffdio_api Api;
  std::memset(&Api, 0, sizeof Api);
  Api.api = UFFD_API;
  if (::ioctl(Fd, UFFDIO_API, &Api) != 0) {
    Why = std::string("UFFDIO_API: ") + std::strerror(errno);
    ::close(Fd);
    return -1;
  }
  return Fd;
}

} // namespace

void installFaultHandler() {
  struct sigaction SA;
  std::memset(&SA, 0, sizeof SA);
  SA.sa_sigaction = onSegv;
  SA.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&SA.sa_mask);
  ::sigaction(SIGSEGV, &SA, &PreviousSegv);
}

void startFaultService() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    const Config *C = nullptr;
    FaultMode Want = globalConfig(C).ok() ? C->Faults : FaultMode::Auto;
    if (Want == FaultMode::Off) {
      Off = true;
      return;
    }
    if (::pipe2(ReqPipe, O_CLOEXEC) != 0) {
      warning(format("cannot start the page-fault service (pipe: %s); code built without the plugin cannot use "
                     "disk-resident memory",
                     std::strerror(errno)));
      return;
    }
    Front F = Front::Signal;
    if (Want != FaultMode::Signal) {
      std::string Why;
      Uffd = openUffd(Why);
      if (Uffd >= 0)
        F = Front::Uffd;
      else if (Want == FaultMode::Userfaultfd)
        warning("IOPOLY_FAULTS=userfaultfd: the kernel refuses userfaultfd (" + Why +
                "); page faults are served through SIGSEGV instead");
      else
        verbose("userfaultfd unavailable (" + Why + "); page faults are served through SIGSEGV");
    }
    ServicePid = ::getpid();
    ::pthread_atfork(nullptr, nullptr, afterForkInChild);
    std::thread(serviceLoop).detach();
    Mode.store(F, std::memory_order_release);
  });
}

void faultServiceViewDropped(const iopoly_array &A, char *At, size_t Bytes) {
  if (A.FaultArmed && Uffd >= 0)
    (void)registerRange(At, Bytes);
}

const char *faultServiceMode() {
  if (Off)
    return "off";
  switch (Mode.load()) {
  case Front::Uffd:
    return "userfaultfd";
  case Front::Signal:
    return "signal";
  default:
    return "none";
  }
}

} // namespace iopoly
