//===- Interposer.cpp - What the MPI-IO wrappers share ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "mpi/Interposer.h"
#include "OmpioLocking.h"
#include "common/Paths.h"
#include "mpi/Clock.h"
#include "mpi/Datatype.h"
#include "mpi/Entry.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <map>
#include <sys/syscall.h>
#include <unistd.h>
#include <unordered_map>

namespace iopoly::prof {

thread_local int InMpi = 0;

namespace {

struct InMpiScope {
  InMpiScope() { ++InMpi; }
  ~InMpiScope() { --InMpi; }
};

std::mutex TableMu;
std::unordered_map<MPI_File, std::unique_ptr<OpenFile>> Table;
uint32_t OpenCounter = 0;

/// A nonblocking access whose completion is still to be seen.
struct PendingIO {
  uint32_t LogId;
  uint16_t Flags;
  uint64_t Start;
  uint32_t Call;
  std::vector<Served> Pieces;
  bool FixStatus;
  uint64_t DoneBytes;
};
std::mutex PendMu;
std::unordered_map<MPI_Request, PendingIO> Pending;
std::atomic<size_t> PendingCount{0};

uint16_t flagsOf(const AccessReq &R, const OpenFile *F) {
  uint16_t Fl = 0;
  if (R.Collective)
    Fl |= AfCollective;
  if (R.Nonblocking)
    Fl |= AfNonblocking;
  if (R.How == Form::Shared || R.How == Form::Ordered)
    Fl |= AfSharedPtr;
  if (R.How == Form::Ordered)
    Fl |= AfOrdered;
  if (R.How == Form::Indiv)
    Fl |= AfIndivPtr;
  if (R.SplitBegin)
    Fl |= AfSplit;
  if (F && !F->ViewKnown)
    Fl |= AfViewUnknown;
  return Fl;
}

std::string programName() {
  int Fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return "";
  char Buf[1024];
  ssize_t N = syscall(SYS_read, Fd, Buf, sizeof Buf - 1);
  ::close(Fd);
  if (N <= 0)
    return "";
  Buf[N] = 0;
  return Buf;
}

void setStatusBytes(MPI_Status *St, uint64_t Bytes) {
  if (St && St != MPI_STATUS_IGNORE)
    PMPI_Status_set_elements_x(St, MPI_BYTE, static_cast<MPI_Count>(Bytes));
}

/// Bytes a completed access moved, from its status.
bool statusBytes(MPI_Status *St, uint64_t &Out) {
  int N = 0;
  if (!St || St == MPI_STATUS_IGNORE || PMPI_Get_count(St, MPI_BYTE, &N) != MPI_SUCCESS || N == MPI_UNDEFINED ||
      N < 0)
    return false;
  Out = static_cast<uint64_t>(N);
  return true;
}

/// Keeps only the first \p Bytes stream bytes of \p Log (a short read).
void trimLog(std::vector<Served> &Log, uint64_t Bytes) {
  uint64_t Seen = 0;
  size_t Keep = 0;
  for (; Keep < Log.size() && Seen < Bytes; ++Keep) {
    if (Log[Keep].Internal)
      continue;
    if (Seen + Log[Keep].Len > Bytes)
      Log[Keep].Len = Bytes - Seen;
    Seen += Log[Keep].Len;
  }
  Log.resize(Keep);
}

void completePending(MPI_Request Old, MPI_Status *St) {
  PendingIO P;
  {
    std::lock_guard<std::mutex> G(PendMu);
    auto It = Pending.find(Old);
    if (It == Pending.end())
      return;
    P = std::move(It->second);
    Pending.erase(It);
    PendingCount.fetch_sub(1, std::memory_order_relaxed);
  }
  if (P.FixStatus)
    setStatusBytes(St, P.DoneBytes);
  Runtime &Rt = runtime();
  uint64_t Done = 0;
  if (!P.FixStatus && P.Pieces.size() && P.Pieces[0].Op == IoOp::Read && statusBytes(St, Done))
    trimLog(P.Pieces, Done);
  if (Rt.Logging) {
    OpenFile Dummy;
    Dummy.LogId = P.LogId;
    Rt.logAccess(Dummy, P.Flags, P.Pieces, P.Start, Rt.now(), P.Call);
  }
}

/// Ordered (collective shared-pointer) offset of this rank.
MPI_Offset orderedOffset(OpenFile &F, int64_t Etypes) {
  int64_t Prefix = 0, Total = 0, Base = 0;
  PMPI_Exscan(&Etypes, &Prefix, 1, MPI_INT64_T, MPI_SUM, F.Comm);
  if (F.CommRank == 0)
    Prefix = 0;
  PMPI_Allreduce(&Etypes, &Total, 1, MPI_INT64_T, MPI_SUM, F.Comm);
  if (F.CommRank == 0)
    Base = F.Win.fetchAddPointer(Total);
  PMPI_Bcast(&Base, 1, MPI_INT64_T, 0, F.Comm);
  return Base + Prefix;
}

/// The PMPI call for an access as the program made it; Shared and Ordered
/// forms use their own MPI calls (files the layers do not know).
int rawCall(MPI_File Fh, const AccessReq &R, Form How) {
  void *B = R.Buf;
  int C = R.Count;
  MPI_Datatype T = R.Type;
  MPI_Status *S = R.Status;
  MPI_Offset O = R.Offset;
  bool W = R.Op == IoOp::Write;
  switch (How) {
  case Form::At:
    if (R.SplitBegin)
      return W ? PMPI_File_write_at_all_begin(Fh, O, B, C, T) : PMPI_File_read_at_all_begin(Fh, O, B, C, T);
    if (R.Nonblocking)
      return R.Collective ? (W ? PMPI_File_iwrite_at_all(Fh, O, B, C, T, R.Request)
                               : PMPI_File_iread_at_all(Fh, O, B, C, T, R.Request))
                          : (W ? PMPI_File_iwrite_at(Fh, O, B, C, T, R.Request)
                               : PMPI_File_iread_at(Fh, O, B, C, T, R.Request));
    return R.Collective ? (W ? PMPI_File_write_at_all(Fh, O, B, C, T, S) : PMPI_File_read_at_all(Fh, O, B, C, T, S))
                        : (W ? PMPI_File_write_at(Fh, O, B, C, T, S) : PMPI_File_read_at(Fh, O, B, C, T, S));
  case Form::Indiv:
    if (R.SplitBegin)
      return W ? PMPI_File_write_all_begin(Fh, B, C, T) : PMPI_File_read_all_begin(Fh, B, C, T);
    if (R.Nonblocking)
      return R.Collective ? (W ? PMPI_File_iwrite_all(Fh, B, C, T, R.Request) : PMPI_File_iread_all(Fh, B, C, T, R.Request))
                          : (W ? PMPI_File_iwrite(Fh, B, C, T, R.Request) : PMPI_File_iread(Fh, B, C, T, R.Request));
    return R.Collective ? (W ? PMPI_File_write_all(Fh, B, C, T, S) : PMPI_File_read_all(Fh, B, C, T, S))
                        : (W ? PMPI_File_write(Fh, B, C, T, S) : PMPI_File_read(Fh, B, C, T, S));
  case Form::Shared:
    if (R.Nonblocking)
      return W ? PMPI_File_iwrite_shared(Fh, B, C, T, R.Request) : PMPI_File_iread_shared(Fh, B, C, T, R.Request);
    return W ? PMPI_File_write_shared(Fh, B, C, T, S) : PMPI_File_read_shared(Fh, B, C, T, S);
  case Form::Ordered:
    if (R.SplitBegin)
      return W ? PMPI_File_write_ordered_begin(Fh, B, C, T) : PMPI_File_read_ordered_begin(Fh, B, C, T);
    return W ? PMPI_File_write_ordered(Fh, B, C, T, S) : PMPI_File_read_ordered(Fh, B, C, T, S);
  }
  return MPI_ERR_INTERN;
}

/// Every layer step at MPI_Finalize happens in the delete callback of an
/// attribute on MPI_COMM_SELF, which MPI_Finalize deletes first thing,
/// while MPI is whole. MPI runs those callbacks in reverse order of
/// setting, and ROMIO tears itself down in one it sets at its first
/// MPI_File_open: so ours is set again after every open (the first of our
/// callbacks to run does the work). Files that another library closes in
/// its own callback (iopoly's mpiio backend) are gathered here first and
/// passed through afterwards.
int onCommSelfFree(MPI_Comm, int, void *, void *);
void armFinalizeHook() {
  int Key = MPI_KEYVAL_INVALID;
  if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, onCommSelfFree, &Key, nullptr) == MPI_SUCCESS)
    PMPI_Comm_set_attr(MPI_COMM_SELF, Key, nullptr);
}

void finalizeLayers() {
  Runtime &Rt = runtime();
  if (!Rt.Active || Rt.Finalized)
    return;
  InMpiScope Guard;
  // Files still open: the layer's close steps, in an order every rank
  // agrees on (instances), never closing the program's handles.
  std::vector<OpenFile *> Open;
  {
    std::lock_guard<std::mutex> G(TableMu);
    for (auto &[Fh, F] : Table)
      Open.push_back(F.get());
  }
  std::sort(Open.begin(), Open.end(), [](OpenFile *A, OpenFile *B) { return A->Instance < B->Instance; });
  for (OpenFile *F : Open) {
    uint32_t Call = Rt.nextCall();
    uint64_t T0 = Rt.now();
    Rt.L->closing(*F);
    Rt.L->closed(*F);
    Rt.logEvent(F->LogId, EventKind::Close, AfCollective, 1, 0, 0, T0, Rt.now(), Call);
    F->Win.free();
  }
  Rt.L->finalizing();
  Rt.Finalized = true;
  Rt.Slots.free();
  if (Rt.WorldDup != MPI_COMM_NULL)
    PMPI_Comm_free(&Rt.WorldDup);
  if (!Rt.Logging)
    return;
  // Nonblocking accesses never seen to complete.
  {
    std::lock_guard<std::mutex> G(PendMu);
    for (auto &[Req, P] : Pending) {
      OpenFile Dummy;
      Dummy.LogId = P.LogId;
      Rt.logAccess(Dummy, P.Flags | AfIncomplete, P.Pieces, P.Start, P.Start, P.Call);
    }
    Pending.clear();
    PendingCount = 0;
  }
  Error E = Rt.Log.close();
  Rt.Logging = false;
  int Ok = E.ok(), AllOk = 0;
  if (!Ok)
    say("warning", "profile: " + E.message());
  PMPI_Allreduce(&Ok, &AllOk, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!Rt.Opt.Merge || !AllOk) {
    if (Rt.WorldRank == 0)
      say("note", strf("profile: per-rank logs %s.<rank>.iopp", Rt.Opt.Profile.c_str()));
    return;
  }
  // Merge: every rank's section at its offset of <prefix>.iopp (rank 0's
  // expansion of the prefix), written collectively.
  std::string Prefix;
  expandPattern(Rt.Opt.Profile, "IOPOLY_PROFILE", Rt.WorldRank, Prefix).ok();
  int Len = static_cast<int>(Prefix.size());
  PMPI_Bcast(&Len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  Prefix.resize(static_cast<size_t>(Len));
  PMPI_Bcast(Prefix.data(), Len, MPI_CHAR, 0, MPI_COMM_WORLD);
  std::string Merged = Prefix + ".iopp";
  int64_t Mine = static_cast<int64_t>(Rt.Log.written()), Off = 0;
  PMPI_Exscan(&Mine, &Off, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (Rt.WorldRank == 0)
    Off = 0;
  MPI_File Out;
  int Rc = PMPI_File_open(MPI_COMM_WORLD, Merged.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &Out);
  if (Rc != MPI_SUCCESS) {
    if (Rt.WorldRank == 0)
      say("warning", strf("profile: cannot create '%s'; per-rank logs kept", Merged.c_str()));
    return;
  }
  PMPI_File_set_size(Out, 0);
  int In = static_cast<int>(syscall(SYS_openat, AT_FDCWD, Rt.Log.path().c_str(), O_RDONLY | O_CLOEXEC));
  const int64_t Piece = 8 << 20;
  int64_t Rounds = (Mine + Piece - 1) / Piece, MaxRounds = 0;
  PMPI_Allreduce(&Rounds, &MaxRounds, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  std::vector<char> Buf(static_cast<size_t>(std::min<int64_t>(Piece, std::max<int64_t>(Mine, 1))));
  Ok = In >= 0;
  for (int64_t K = 0; K < MaxRounds; ++K) {
    int64_t Pos = K * Piece, N = std::max<int64_t>(0, std::min(Piece, Mine - Pos));
    if (N > 0 && In >= 0) {
      ssize_t Got = syscall(SYS_pread64, In, Buf.data(), static_cast<size_t>(N), static_cast<off_t>(Pos));
      if (Got != N)
        Ok = 0;
    }
    MPI_Status St;
    if (PMPI_File_write_at_all(Out, Off + Pos, Buf.data(), static_cast<int>(N), MPI_BYTE, &St) != MPI_SUCCESS)
      Ok = 0;
  }
  if (In >= 0)
    ::close(In);
  PMPI_File_close(&Out);
  PMPI_Allreduce(&Ok, &AllOk, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (AllOk)
    unlink(Rt.Log.path().c_str());
  if (Rt.WorldRank == 0)
    say(AllOk ? "note" : "warning", AllOk ? strf("profile: wrote %s (%d ranks)", Merged.c_str(), Rt.WorldSize)
                                          : strf("profile: merging into '%s' failed; per-rank logs kept",
                                                 Merged.c_str()));
}

int onCommSelfFree(MPI_Comm, int, void *, void *) {
  finalizeLayers();
  return MPI_SUCCESS;
}

void flushAtExit() {
  Runtime &Rt = runtime();
  if (Rt.Logging)
    (void)Rt.Log.close(); // a program that never called MPI_Finalize: keep its rank log
}

} // namespace

Runtime &runtime() {
  static Runtime *R = new Runtime(); // never destroyed: wrappers may run during exit
  return *R;
}

uint64_t Runtime::now() const { return monoNs() - T0; }

void Runtime::logAccess(const OpenFile &F, uint16_t Flags, const std::vector<Served> &Pieces, uint64_t Start,
                        uint64_t End, uint32_t Call) {
  if (!Logging)
    return;
  for (const Served &S : Pieces) {
    AccessRecord A{};
    A.Kind = RecAccess;
    A.Op = static_cast<uint8_t>(S.Op);
    // The layer's own traffic is collective only when it says so.
    uint16_t Fl = S.Internal ? static_cast<uint16_t>((Flags & ~AfCollective) | AfInternal) : Flags;
    A.Flags = static_cast<uint16_t>(Fl | (S.Collective ? AfCollective : 0) | (S.Concurrent ? AfConcurrent : 0));
    A.File = F.LogId;
    A.Offset = S.FileOff;
    A.Length = S.Len;
    A.Start = Start;
    A.End = End;
    A.Call = Call;
    A.Target = static_cast<uint16_t>(S.Where);
    A.Peer = S.Peer;
    A.LocalOff = S.LocalOff;
    Log.access(A);
  }
}

void Runtime::logEvent(uint32_t File, EventKind E, uint16_t Flags, uint64_t A0, uint64_t A1, uint64_t A2,
                       uint64_t Start, uint64_t End, uint32_t Call) {
  if (!Logging)
    return;
  EventRecord R{};
  R.Kind = RecEvent;
  R.Event = static_cast<uint8_t>(E);
  R.Flags = Flags;
  R.File = File;
  R.Arg0 = A0;
  R.Arg1 = A1;
  R.Arg2 = A2;
  R.Start = Start;
  R.End = End;
  R.Call = Call;
  Log.event(R);
}

OpenFile *findFile(MPI_File Fh) {
  std::lock_guard<std::mutex> G(TableMu);
  auto It = Table.find(Fh);
  return It == Table.end() ? nullptr : It->second.get();
}

int passThrough(OpenFile &F, AccessReq &R) {
  MPI_Status Local;
  MPI_Status *User = R.Status;
  bool Blocking = !R.Nonblocking && !R.SplitBegin;
  if (Blocking && (!User || User == MPI_STATUS_IGNORE))
    R.Status = &Local; // to know how much a read got
  Form How = R.How == Form::Shared || R.How == Form::Ordered ? Form::At : R.How;
  int Rc = rawCall(F.Fh, R, How);
  R.Log.clear();
  if (F.ViewKnown)
    for (const Piece &P : R.Pieces)
      R.Log.push_back({R.Op, P.FileOff, P.Len, Target::Shared, 0, false});
  else
    R.Log.push_back({R.Op, static_cast<uint64_t>(R.Offset) * F.View.etypeSize(), R.Bytes, Target::Shared, 0, false});
  uint64_t Done = 0;
  if (Blocking && Rc == MPI_SUCCESS && R.Op == IoOp::Read && statusBytes(R.Status, Done) && Done < R.Bytes)
    trimLog(R.Log, Done);
  R.Status = User;
  R.Pending = R.Nonblocking && Rc == MPI_SUCCESS;
  return Rc;
}

int Layer::access(OpenFile &F, AccessReq &R) { return passThrough(F, R); }

namespace {

/// The MPI_Init_thread and MPI_Finalize of the next library in the search
/// order: libiopoly_mpi's when the program links it too (iopoly-mpicc
/// always does), so that both wrappers run; the MPI library's own
/// otherwise, which is what PMPI_ would call.
template <typename Fn> Fn nextMpi(const char *Name, Fn Fallback) {
  void *P = dlsym(RTLD_NEXT, Name);
  return P ? reinterpret_cast<Fn>(P) : Fallback;
}

} // namespace

namespace entry {

int init(int *Argc, char ***Argv, int Required, int *Provided) {
  Runtime &Rt = runtime();
  Rt.L = createLayer();
  Error E = readOptions(Rt.Opt);
  int Level = E ? Required : Rt.L->threadLevel(Required);
  if (!E)
    Rt.L->beforeInit();
  iopoly::requestOmpioRangeLocks();
  int Got = MPI_THREAD_SINGLE;
  int Rc = nextMpi<int (*)(int *, char ***, int, int *)>("MPI_Init_thread", PMPI_Init_thread)(Argc, Argv, Level, &Got);
  if (Provided)
    *Provided = Got;
  if (Rc != MPI_SUCCESS)
    return Rc;
  InMpiScope Guard;
  PMPI_Comm_rank(MPI_COMM_WORLD, &Rt.WorldRank);
  PMPI_Comm_size(MPI_COMM_WORLD, &Rt.WorldSize);
  if (E) {
    if (Rt.WorldRank == 0)
      say("error", E.message() + strf("; %s is off for this run", Rt.L->name()));
    return Rc;
  }
  Rt.Host = hostName();
  Rt.Program = programName();
  uint64_t Id = realNs() ^ (static_cast<uint64_t>(getpid()) << 40);
  PMPI_Bcast(&Id, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  Rt.RunId = Id;
  Rt.T0 = monoNs();
  uint64_t T0Real = realNs();
  Rt.Active = true;
  if (!Rt.Opt.Profile.empty()) {
    std::string Prefix;
    Error PE = expandPattern(Rt.Opt.Profile, "IOPOLY_PROFILE", Rt.WorldRank, Prefix);
    SectionInfo SI;
    SI.Rank = static_cast<uint32_t>(Rt.WorldRank);
    SI.NRanks = static_cast<uint32_t>(Rt.WorldSize);
    SI.Pid = static_cast<uint32_t>(getpid());
    SI.RunId = Rt.RunId;
    SI.T0RealtimeNs = T0Real;
    SI.Host = Rt.Host;
    SI.Program = Rt.Program;
    SI.Flags = Rt.Opt.PlanPath.empty() ? 0 : 1;
    if (!Rt.Opt.LocalDir.empty() && !Rt.Opt.PlanPath.empty())
      expandPattern(Rt.Opt.LocalDir, "IOPOLY_LOCAL_DIR", Rt.WorldRank, SI.LocalDir).ok();
    if (!PE)
      PE = Rt.Log.open(strf("%s.%d.iopp", Prefix.c_str(), Rt.WorldRank), SI);
    if (PE)
      say("error", "profile: " + PE.message() + "; no profile for this rank");
    else {
      Rt.Logging = true;
      std::atexit(flushAtExit);
    }
  }
  if (!Rt.L->start())
    Rt.Active = Rt.Logging; // the layer is off; the profile (if any) goes on
  if (Rt.Active) {
    PMPI_Comm_dup(MPI_COMM_WORLD, &Rt.WorldDup);
    Rt.Slots.create();
  }
  armFinalizeHook();
  return Rc;
}

int finalize() {
  // The work happens in onCommSelfFree, first thing inside PMPI_Finalize.
  return nextMpi<int (*)()>("MPI_Finalize", PMPI_Finalize)();
}

int open(MPI_Comm Comm, const char *Name, int Amode, MPI_Info Info, MPI_File *Fh) {
  Runtime &Rt = runtime();
  InMpiScope Guard;
  uint32_t Call = Rt.nextCall();
  uint64_t T0 = Rt.now();
  int Rc = PMPI_File_open(Comm, Name, Amode, Info, Fh);
  if (Rc != MPI_SUCCESS || !Rt.Active || Rt.Finalized)
    return Rc;
  armFinalizeHook();
  auto F = std::make_unique<OpenFile>();
  F->Fh = *Fh;
  F->Path = canonicalFile(Name);
  F->Amode = Amode;
  // Files opened on every rank share the runtime's communicator and a slot
  // of its window (no collective set-up here); others get their own.
  int Cmp = MPI_UNEQUAL;
  PMPI_Comm_compare(Comm, MPI_COMM_WORLD, &Cmp);
  bool World = (Cmp == MPI_IDENT || Cmp == MPI_CONGRUENT) && Rt.WorldDup != MPI_COMM_NULL;
  int Slot = World ? Rt.Slots.take() : -1;
  if (World) {
    F->Comm = Rt.WorldDup;
    F->CommShared = true;
  } else {
    PMPI_Comm_dup(Comm, &F->Comm);
  }
  PMPI_Comm_rank(F->Comm, &F->CommRank);
  PMPI_Comm_size(F->Comm, &F->CommSize);
  MPI_Offset Size = 0;
  PMPI_File_get_size(F->Fh, &Size);
  if (Slot >= 0)
    F->Win.attach(Rt.Slots, Slot, F->CommRank == 0); // rank 0 resets it before the broadcast below
  else
    F->Win.create(F->Comm);
  uint64_t Inst = 0;
  if (F->CommRank == 0) {
    Inst = (static_cast<uint64_t>(Rt.WorldRank) << 32) | OpenCounter++;
    if (Amode & MPI_MODE_APPEND)
      F->Win.setPointer(Size);
  }
  PMPI_Bcast(&Inst, 1, MPI_UINT64_T, 0, F->Comm); // also: nobody uses the window before rank 0 set it
  F->Instance = Inst;
  F->LogId = Rt.Log.addFile(F->Path, F->Instance, static_cast<uint32_t>(F->CommSize),
                            static_cast<uint32_t>(F->CommRank), static_cast<uint32_t>(Amode), false);
  OpenFile *P = F.get();
  {
    std::lock_guard<std::mutex> G(TableMu);
    Table[*Fh] = std::move(F);
  }
  int LRc = Rt.L->opened(*P);
  if (LRc != MPI_SUCCESS) {
    std::unique_ptr<OpenFile> Gone;
    {
      std::lock_guard<std::mutex> G(TableMu);
      Gone = std::move(Table[*Fh]);
      Table.erase(*Fh);
    }
    Gone->Win.free();
    if (!Gone->CommShared)
      PMPI_Comm_free(&Gone->Comm);
    PMPI_File_close(Fh);
    return LRc;
  }
  Rt.logEvent(P->LogId, EventKind::Open, AfCollective, static_cast<uint64_t>(Amode),
              static_cast<uint64_t>(P->CommSize), static_cast<uint64_t>(Size), T0, Rt.now(), Call);
  return Rc;
}

int close(MPI_File *Fh) {
  Runtime &Rt = runtime();
  OpenFile *F = Rt.Active ? findFile(*Fh) : nullptr;
  if (!F)
    return PMPI_File_close(Fh);
  InMpiScope Guard;
  uint32_t Call = Rt.nextCall();
  uint64_t T0 = Rt.now();
  MPI_Offset Size = 0;
  int Rc = MPI_SUCCESS;
  if (!Rt.Finalized) {
    PMPI_File_get_size(F->Fh, &Size);
    Rc = Rt.L->closing(*F);
  }
  MPI_File Handle = *Fh;
  int CRc = PMPI_File_close(Fh);
  if (!Rt.Finalized) {
    Rt.L->closed(*F);
    F->Win.free();
    if (!F->CommShared)
      PMPI_Comm_free(&F->Comm);
  }
  Rt.logEvent(F->LogId, EventKind::Close, AfCollective, static_cast<uint64_t>(Size), 0, 0, T0, Rt.now(), Call);
  {
    std::lock_guard<std::mutex> G(TableMu);
    Table.erase(Handle);
  }
  return Rc != MPI_SUCCESS ? Rc : CRc;
}

int access(MPI_File Fh, IoOp Op, Form How, bool Collective, bool Nonblocking, bool SplitBegin, MPI_Offset Off,
           const void *Buf, int Count, MPI_Datatype T, MPI_Status *St, MPI_Request *Req) {
  Runtime &Rt = runtime();
  AccessReq R;
  R.Op = Op;
  R.How = How;
  R.Collective = Collective;
  R.Nonblocking = Nonblocking;
  R.SplitBegin = SplitBegin;
  R.Offset = Off;
  R.Buf = const_cast<void *>(Buf);
  R.Count = Count;
  R.Type = T;
  R.Status = St;
  R.Request = Req;
  OpenFile *F = Rt.Active && !Rt.Finalized ? findFile(Fh) : nullptr;
  if (!F) {
    if (SplitBegin && How == Form::At)
      return rawCall(Fh, R, Form::At);
    return rawCall(Fh, R, How);
  }
  InMpiScope Guard;
  uint32_t Call = Rt.nextCall();
  uint64_t T0 = Rt.now();
  R.Bytes = static_cast<uint64_t>(Count > 0 ? Count : 0) * typeSize(T);
  uint64_t Etype = F->View.etypeSize();
  int64_t Etypes = static_cast<int64_t>(R.Bytes / Etype);
  switch (How) {
  case Form::At:
    break;
  case Form::Indiv:
    PMPI_File_get_position(Fh, &R.Offset);
    break;
  case Form::Shared:
    R.Offset = F->Win.fetchAddPointer(Etypes);
    break;
  case Form::Ordered:
    R.Offset = orderedOffset(*F, Etypes);
    break;
  }
  if (F->ViewKnown && R.Offset >= 0)
    F->View.map(static_cast<uint64_t>(R.Offset) * Etype, R.Bytes, R.Pieces);
  int Rc = Rt.L->access(*F, R);
  uint16_t Flags = flagsOf(R, F) | (Rc != MPI_SUCCESS ? AfFailed : 0);
  if (SplitBegin) {
    OpenFile::SplitOp &S = F->Split;
    S.Active = Rc == MPI_SUCCESS;
    S.Op = Op;
    S.AtForm = How != Form::Indiv;
    S.Flags = Flags;
    S.Start = T0;
    S.Call = Call;
    S.Pieces = std::move(R.Log);
    S.FixStatus = R.FixStatus;
    S.DoneBytes = R.DoneBytes;
    return Rc;
  }
  if (R.Pending && Req) {
    PendingIO P{F->LogId, Flags, T0, Call, std::move(R.Log), R.FixStatus, R.DoneBytes};
    std::lock_guard<std::mutex> G(PendMu);
    Pending[*Req] = std::move(P);
    PendingCount.fetch_add(1, std::memory_order_relaxed);
    return Rc;
  }
  if (R.FixStatus && !Nonblocking)
    setStatusBytes(St, R.DoneBytes);
  Rt.logAccess(*F, Flags, R.Log, T0, Rt.now(), Call);
  return Rc;
}

int splitEnd(MPI_File Fh, IoOp Op, Form How, MPI_Status *St) {
  Runtime &Rt = runtime();
  OpenFile *F = Rt.Active && !Rt.Finalized ? findFile(Fh) : nullptr;
  bool W = Op == IoOp::Write;
  auto Raw = [&](bool AtForm) {
    if (How == Form::Ordered && !F)
      return W ? PMPI_File_write_ordered_end(Fh, nullptr, St) : PMPI_File_read_ordered_end(Fh, nullptr, St);
    return AtForm ? (W ? PMPI_File_write_at_all_end(Fh, nullptr, St) : PMPI_File_read_at_all_end(Fh, nullptr, St))
                  : (W ? PMPI_File_write_all_end(Fh, nullptr, St) : PMPI_File_read_all_end(Fh, nullptr, St));
  };
  if (!F || !F->Split.Active)
    return Raw(How != Form::Indiv);
  InMpiScope Guard;
  OpenFile::SplitOp S = std::move(F->Split);
  F->Split = OpenFile::SplitOp();
  int Rc = Raw(S.AtForm);
  if (S.FixStatus)
    setStatusBytes(St, S.DoneBytes);
  Rt.logAccess(*F, S.Flags, S.Pieces, S.Start, Rt.now(), S.Call);
  return Rc;
}

int setView(MPI_File Fh, MPI_Offset Disp, MPI_Datatype Etype, MPI_Datatype Filetype, const char *Rep,
            MPI_Info Info) {
  Runtime &Rt = runtime();
  OpenFile *F = Rt.Active && !Rt.Finalized ? findFile(Fh) : nullptr;
  int Rc = PMPI_File_set_view(Fh, Disp, Etype, Filetype, Rep, Info);
  if (!F || Rc != MPI_SUCCESS)
    return Rc;
  InMpiScope Guard;
  uint32_t Call = Rt.nextCall();
  uint64_t T0 = Rt.now();
  std::vector<TypeRun> Runs;
  Error E = flattenType(Filetype, Runs);
  MPI_Count Lb = 0, Ext = 0;
  PMPI_Type_get_extent_x(Filetype, &Lb, &Ext);
  uint64_t Es = typeSize(Etype);
  F->Native = Rep && std::strcmp(Rep, "native") == 0;
  F->ViewKnown = !E && Es > 0 && Ext > 0;
  if (F->ViewKnown)
    F->View = ViewMap(static_cast<uint64_t>(Disp), Es, std::move(Runs), static_cast<uint64_t>(Ext));
  else {
    F->View = ViewMap(static_cast<uint64_t>(Disp), Es ? Es : 1, {{0, 1}}, 1);
    if (F->CommRank == 0)
      say("warning", strf("file '%s': the view cannot be followed (%s); its accesses are logged without file "
                          "offsets",
                          F->Path.c_str(), E ? E.message().c_str() : "empty etype or filetype"));
  }
  // A new view resets both file pointers (MPI 13.3).
  if (F->CommRank == 0)
    F->Win.setPointer(0);
  PMPI_Barrier(F->Comm);
  int LRc = Rt.L->viewChanged(*F);
  uint64_t Fs = typeSize(Filetype);
  Rt.logEvent(F->LogId, EventKind::SetView, AfCollective, static_cast<uint64_t>(Disp), Es,
              (Fs << 32) | std::min<uint64_t>(F->View.runs().size(), 0xffffffffu), T0, Rt.now(), Call);
  return LRc != MPI_SUCCESS ? LRc : Rc;
}

int seek(MPI_File Fh, MPI_Offset Off, int Whence) {
  Runtime &Rt = runtime();
  OpenFile *F = Rt.Active && !Rt.Finalized ? findFile(Fh) : nullptr;
  int Rc = PMPI_File_seek(Fh, Off, Whence);
  if (F && Rt.Logging) {
    uint64_t T = Rt.now();
    Rt.logEvent(F->LogId, EventKind::Seek, 0, static_cast<uint64_t>(Off), static_cast<uint64_t>(Whence), 0, T, T,
                Rt.nextCall());
  }
  return Rc;
}

int seekShared(MPI_File Fh, MPI_Offset Off, int Whence) {
  Runtime &Rt = runtime();
  OpenFile *F = Rt.Active && !Rt.Finalized ? findFile(Fh) : nullptr;
  if (!F)
    return PMPI_File_seek_shared(Fh, Off, Whence);
  InMpiScope Guard;
  uint32_t Call = Rt.nextCall();
  uint64_t T0 = Rt.now();
  int Rc = MPI_SUCCESS;
  if (F->CommRank == 0) {
    int64_t Cur = F->Win.pointer(), New = Off;
    if (Whence == MPI_SEEK_CUR)
      New = Cur + Off;
    else if (Whence == MPI_SEEK_END) {
      MPI_Offset Size = 0;
      Rt.L->fileSize(*F, &Size);
      New = static_cast<int64_t>(F->View.streamBytesBefore(static_cast<uint64_t>(Size)) / F->View.etypeSize()) + Off;
    } else if (Whence != MPI_SEEK_SET)
      Rc = MPI_ERR_ARG;
    if (New < 0)
      Rc = MPI_ERR_ARG;
    if (Rc == MPI_SUCCESS)
      F->Win.setPointer(New);
  }
  PMPI_Bcast(&Rc, 1, MPI_INT, 0, F->Comm);
  Rt.logEvent(F->LogId, EventKind::Seek, AfCollective, static_cast<uint64_t>(Off), static_cast<uint64_t>(Whence), 1,
              T0, Rt.now(), Call);
  return Rc;
}

int positionShared(MPI_File Fh, MPI_Offset *Off) {
  Runtime &Rt = runtime();
  OpenFile *F = Rt.Active && !Rt.Finalized ? findFile(Fh) : nullptr;
  if (!F)
    return PMPI_File_get_position_shared(Fh, Off);
  InMpiScope Guard;
  *Off = F->Win.pointer();
  return MPI_SUCCESS;
}

int setSize(MPI_File Fh, MPI_Offset Size) {
  Runtime &Rt = runtime();
  OpenFile *F = Rt.Active && !Rt.Finalized ? findFile(Fh) : nullptr;
  if (!F)
    return PMPI_File_set_size(Fh, Size);
  InMpiScope Guard;
  uint32_t Call = Rt.nextCall();
  uint64_t T0 = Rt.now();
  int Rc = PMPI_File_set_size(Fh, Size);
  if (Rc == MPI_SUCCESS)
    Rc = Rt.L->sizeSet(*F, Size);
  Rt.logEvent(F->LogId, EventKind::SetSize, AfCollective, static_cast<uint64_t>(Size), 0, 0, T0, Rt.now(), Call);
  return Rc;
}

int preallocate(MPI_File Fh, MPI_Offset Size) {
  Runtime &Rt = runtime();
  OpenFile *F = Rt.Active && !Rt.Finalized ? findFile(Fh) : nullptr;
  if (!F)
    return PMPI_File_preallocate(Fh, Size);
  InMpiScope Guard;
  uint32_t Call = Rt.nextCall();
  uint64_t T0 = Rt.now();
  int Rc = PMPI_File_preallocate(Fh, Size);
  Rt.logEvent(F->LogId, EventKind::Preallocate, AfCollective, static_cast<uint64_t>(Size), 0, 0, T0, Rt.now(), Call);
  return Rc;
}

int sync(MPI_File Fh) {
  Runtime &Rt = runtime();
  OpenFile *F = Rt.Active && !Rt.Finalized ? findFile(Fh) : nullptr;
  if (!F)
    return PMPI_File_sync(Fh);
  InMpiScope Guard;
  uint32_t Call = Rt.nextCall();
  uint64_t T0 = Rt.now();
  int Rc = PMPI_File_sync(Fh);
  int LRc = Rt.L->synced(*F);
  Rt.logEvent(F->LogId, EventKind::Sync, AfCollective, 0, 0, 0, T0, Rt.now(), Call);
  return Rc != MPI_SUCCESS ? Rc : LRc;
}

int setAtomicity(MPI_File Fh, int Flag) {
  Runtime &Rt = runtime();
  OpenFile *F = Rt.Active && !Rt.Finalized ? findFile(Fh) : nullptr;
  int Rc = PMPI_File_set_atomicity(Fh, Flag);
  if (!F || Rc != MPI_SUCCESS)
    return Rc;
  InMpiScope Guard;
  uint32_t Call = Rt.nextCall();
  uint64_t T0 = Rt.now();
  F->Atomic = Flag != 0;
  Rc = Rt.L->atomicitySet(*F, Flag);
  Rt.logEvent(F->LogId, EventKind::SetAtomicity, AfCollective, static_cast<uint64_t>(Flag), 0, 0, T0, Rt.now(), Call);
  return Rc;
}

int getSize(MPI_File Fh, MPI_Offset *Size) {
  Runtime &Rt = runtime();
  OpenFile *F = Rt.Active && !Rt.Finalized ? findFile(Fh) : nullptr;
  if (!F)
    return PMPI_File_get_size(Fh, Size);
  InMpiScope Guard;
  return Rt.L->fileSize(*F, Size);
}

int remove(const char *Name, MPI_Info Info) {
  Runtime &Rt = runtime();
  InMpiScope Guard;
  uint64_t T0 = Rt.now();
  int Rc = PMPI_File_delete(Name, Info);
  if (Rt.Active && Rt.Logging && !Rt.Finalized) {
    uint32_t Id = Rt.Log.addFile(canonicalFile(Name), 0, 1, 0, 0, false);
    Rt.logEvent(Id, EventKind::Delete, 0, static_cast<uint64_t>(Rc), 0, 0, T0, Rt.now(), Rt.nextCall());
  }
  return Rc;
}

int barrier(MPI_Comm Comm) {
  Runtime &Rt = runtime();
  if (!Rt.Logging || Rt.Finalized)
    return PMPI_Barrier(Comm);
  InMpiScope Guard;
  uint32_t Call = Rt.nextCall();
  uint64_t T0 = Rt.now();
  int Rc = PMPI_Barrier(Comm);
  int Size = 0;
  PMPI_Comm_size(Comm, &Size);
  Rt.logEvent(kNoFile, EventKind::Barrier, AfCollective, static_cast<uint64_t>(Size), 0, 0, T0, Rt.now(), Call);
  return Rc;
}

// Requests: one relaxed load when no file request is pending.

int wait(MPI_Request *R, MPI_Status *St) {
  if (!PendingCount.load(std::memory_order_relaxed))
    return PMPI_Wait(R, St);
  MPI_Request Old = *R;
  MPI_Status Local;
  MPI_Status *S = St == MPI_STATUS_IGNORE ? &Local : St;
  int Rc = PMPI_Wait(R, S);
  completePending(Old, S);
  return Rc;
}

int waitall(int N, MPI_Request *R, MPI_Status *St) {
  if (!PendingCount.load(std::memory_order_relaxed))
    return PMPI_Waitall(N, R, St);
  std::vector<MPI_Request> Old(R, R + N);
  std::vector<MPI_Status> Local(static_cast<size_t>(N));
  MPI_Status *S = St == MPI_STATUSES_IGNORE ? Local.data() : St;
  int Rc = PMPI_Waitall(N, R, S);
  for (int I = 0; I < N; ++I)
    completePending(Old[static_cast<size_t>(I)], &S[I]);
  return Rc;
}

int waitany(int N, MPI_Request *R, int *Index, MPI_Status *St) {
  if (!PendingCount.load(std::memory_order_relaxed))
    return PMPI_Waitany(N, R, Index, St);
  std::vector<MPI_Request> Old(R, R + N);
  MPI_Status Local;
  MPI_Status *S = St == MPI_STATUS_IGNORE ? &Local : St;
  int Rc = PMPI_Waitany(N, R, Index, S);
  if (*Index != MPI_UNDEFINED && *Index >= 0)
    completePending(Old[static_cast<size_t>(*Index)], S);
  return Rc;
}

int waitsome(int N, MPI_Request *R, int *Out, int *Indices, MPI_Status *St) {
  if (!PendingCount.load(std::memory_order_relaxed))
    return PMPI_Waitsome(N, R, Out, Indices, St);
  std::vector<MPI_Request> Old(R, R + N);
  std::vector<MPI_Status> Local(static_cast<size_t>(N));
  MPI_Status *S = St == MPI_STATUSES_IGNORE ? Local.data() : St;
  int Rc = PMPI_Waitsome(N, R, Out, Indices, S);
  for (int J = 0; *Out != MPI_UNDEFINED && J < *Out; ++J)
    completePending(Old[static_cast<size_t>(Indices[J])], &S[J]);
  return Rc;
}

int test(MPI_Request *R, int *Flag, MPI_Status *St) {
  if (!PendingCount.load(std::memory_order_relaxed))
    return PMPI_Test(R, Flag, St);
  MPI_Request Old = *R;
  MPI_Status Local;
  MPI_Status *S = St == MPI_STATUS_IGNORE ? &Local : St;
  int Rc = PMPI_Test(R, Flag, S);
  if (*Flag)
    completePending(Old, S);
  return Rc;
}

int testall(int N, MPI_Request *R, int *Flag, MPI_Status *St) {
  if (!PendingCount.load(std::memory_order_relaxed))
    return PMPI_Testall(N, R, Flag, St);
  std::vector<MPI_Request> Old(R, R + N);
  std::vector<MPI_Status> Local(static_cast<size_t>(N));
  MPI_Status *S = St == MPI_STATUSES_IGNORE ? Local.data() : St;
  int Rc = PMPI_Testall(N, R, Flag, S);
  if (*Flag)
    for (int I = 0; I < N; ++I)
      completePending(Old[static_cast<size_t>(I)], &S[I]);
  return Rc;
}

int testany(int N, MPI_Request *R, int *Index, int *Flag, MPI_Status *St) {
  if (!PendingCount.load(std::memory_order_relaxed))
    return PMPI_Testany(N, R, Index, Flag, St);
  std::vector<MPI_Request> Old(R, R + N);
  MPI_Status Local;
  MPI_Status *S = St == MPI_STATUS_IGNORE ? &Local : St;
  int Rc = PMPI_Testany(N, R, Index, Flag, S);
  if (*Flag && *Index != MPI_UNDEFINED && *Index >= 0)
    completePending(Old[static_cast<size_t>(*Index)], S);
  return Rc;
}

int testsome(int N, MPI_Request *R, int *Out, int *Indices, MPI_Status *St) {
  if (!PendingCount.load(std::memory_order_relaxed))
    return PMPI_Testsome(N, R, Out, Indices, St);
  std::vector<MPI_Request> Old(R, R + N);
  std::vector<MPI_Status> Local(static_cast<size_t>(N));
  MPI_Status *S = St == MPI_STATUSES_IGNORE ? Local.data() : St;
  int Rc = PMPI_Testsome(N, R, Out, Indices, S);
  for (int J = 0; *Out != MPI_UNDEFINED && J < *Out; ++J)
    completePending(Old[static_cast<size_t>(Indices[J])], &S[J]);
  return Rc;
}

int requestFree(MPI_Request *R) {
  if (PendingCount.load(std::memory_order_relaxed)) {
    std::lock_guard<std::mutex> G(PendMu);
    auto It = Pending.find(*R);
    if (It != Pending.end()) {
      Runtime &Rt = runtime();
      OpenFile Dummy;
      Dummy.LogId = It->second.LogId;
      Rt.logAccess(Dummy, It->second.Flags | AfIncomplete, It->second.Pieces, It->second.Start, Rt.now(),
                   It->second.Call);
      Pending.erase(It);
      PendingCount.fetch_sub(1, std::memory_order_relaxed);
    }
  }
  return PMPI_Request_free(R);
}

} // namespace entry
} // namespace iopoly::prof
