//===- MpiioBackend.cpp - MPI-IO backend (IOPOLY_BACKEND=mpiio) ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each disk file of an array of this process alone is opened on
// MPI_COMM_SELF and accessed with MPI_File_read_at / MPI_File_write_at, so
// ranks use the runtime independently. An array shared by the ranks of a
// communicator (runtime/core/SharedArrays.cpp) has each disk file opened on
// that communicator: stripes still move with independent calls, and at a
// sync point each rank's changed bytes go out in one MPI_File_write_all
// through a file view of its runs (an hindexed type), followed by
// MPI_File_sync; attached stripes are read back with MPI_File_read_all. The
// collective-buffering hints (cb_nodes, cb_buffer_size, romio_cb_read,
// romio_cb_write) act there; romio_cb_write=disable / romio_cb_read=disable
// make those calls independent (every rank still takes part). Striping hints: striping_unit = IOPOLY_STRIPE,
// striping_factor = 1 and start_iodevice = the disk index, so that on a
// parallel file system disk file k sits on storage target k and stripe b
// lands on target b mod T, as the disk model (paper 1, section 2) assumes.
// IOPOLY_MPIIO_HINTS adds or overrides hints ("key=value,key=value"); a
// malformed list, or a non-numeric value of a numeric reserved hint, is an
// error of iopoly_open naming the variable and the value.
//
// MPI life cycle:
//  - Loading the module never starts MPI. If the program has not called
//    MPI_Init by the time the first file is opened, the module initializes
//    MPI itself (MPI_THREAD_MULTIPLE) and finalizes it at exit, after the
//    runtime's exit handler has written everything back. Programs linked
//    with libiopoly_mpi may still call MPI_Init afterwards (its wrapper
//    adopts the running MPI); others must call MPI_Init before their first
//    iopoly call that opens a file.
//  - If the program calls MPI_Finalize while arrays are open, a delete
//    callback on MPI_COMM_SELF (run first thing by MPI_Finalize) writes back
//    every array, waits for transfers in flight and closes the files while
//    MPI-IO still works. Later transfers fail with EBADF and a warning, and
//    opening new files is an error; closing the arrays still succeeds.
//  - Background I/O threads (prefetch, seeker) call MPI from threads other
//    than the application's, concurrently with the application's own MPI
//    calls, which only MPI_THREAD_MULTIPLE allows. Below it the runtime runs
//    prefetches inline on the calling thread (Backend::allowsBackgroundIO),
//    and the module serializes its own MPI calls.
//
//===----------------------------------------------------------------------===//
#include "io/Backend.h"
#include "core/Config.h"
#include "core/Json.h"
#include "OmpioLocking.h"

#include "iopoly.h"

// The C bindings only, whatever the C++ compiler (the build defines these
// too; a copy compiled by hand must not pick up libmpi's C++ symbols).
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <map>
#include <set>
#include <shared_mutex>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace iopoly {
namespace {

class MpiioFile;
Status startMpi();

using HintList = std::vector<std::pair<std::string, std::string>>;

/// Shared state of the module (one per process; never destroyed, so that
/// exit handlers and the MPI_Finalize hook can always reach it).
struct MpiState {
  /// Held shared by every MPI call on a file, exclusively by the finalize
  /// hook: closing waits for transfers in flight, and nothing starts after.
  std::shared_mutex Gate;
  /// Set by the hook once it has written everything back: transfers that
  /// start later (queued prefetches) fail at once instead of delaying
  /// MPI_Finalize; the files are then closed.
  std::atomic<bool> Closing{false};
  std::atomic<bool> Finalized{false}; ///< set by the hook, under Gate
  std::mutex CallMu;                  ///< serializes MPI calls below MULTIPLE
  bool Serialize = false;
  std::mutex RegMu; ///< guards Files, NextSeq and HintsInEffect
  /// Open files by open order: the finalize hook closes them in that
  /// order, which is the same on every rank (closing a file opened on a
  /// communicator is collective).
  std::map<uint64_t, MpiioFile *> Files;
  uint64_t NextSeq = 0;
  HintList HintsInEffect; ///< as MPI_File_get_info reports for the first file
  std::string HintsInEffectPath;
  HintList SharedHintsInEffect; ///< the same for the first file of a shared array
  std::string SharedHintsInEffectPath;
  std::atomic<uint64_t> CollectiveWrites{0}, CollectiveReads{0}, CollectiveSyncs{0}, SharedFiles{0};
  std::atomic<uint64_t> IndependentSyncWrites{0}, IndependentSyncReads{0};
  std::atomic<bool> WarnedAfterFinalize{false};

  std::mutex InitMu; ///< guards the one-time set-up below
  bool Initialized = false;
  bool OwnsMpi = false;
  int ThreadLevel = MPI_THREAD_SINGLE;
  HintList ExtraHints; ///< IOPOLY_MPIIO_HINTS, parsed
  std::string Fcoll;   ///< Open MPI's collective-write component, if chosen
  std::string Library; ///< MPI_Get_library_version, first line
};
MpiState &state() {
  static MpiState *S = new MpiState(); // outlives every static destructor
  return *S;
}

int errnoOf(int MpiErr) {
  int Class = MPI_ERR_OTHER;
  MPI_Error_class(MpiErr, &Class);
  switch (Class) {
  case MPI_ERR_NO_SPACE: return ENOSPC;
  case MPI_ERR_QUOTA: return EDQUOT;
  case MPI_ERR_ACCESS: return EACCES;
  case MPI_ERR_NO_SUCH_FILE: return ENOENT;
  case MPI_ERR_FILE_EXISTS: return EEXIST;
  case MPI_ERR_READ_ONLY: return EROFS;
  case MPI_ERR_BAD_FILE: return EINVAL;
  default: return EIO;
  }
}

std::string mpiMessage(int Err) {
  char Buf[MPI_MAX_ERROR_STRING];
  int Len = 0;
  if (MPI_Error_string(Err, Buf, &Len) != MPI_SUCCESS)
    return format("MPI error %d", Err);
  return std::string(Buf, static_cast<size_t>(Len));
}

/// Entry of an MPI call on a file: keeps the finalize hook out while the
/// call runs, and locks the MPI library when the thread level asks for it.
struct MpiCall {
  MpiCall() : G(state().Gate), L(state().CallMu, std::defer_lock) {
    if (state().Serialize)
      L.lock();
  }
  std::shared_lock<std::shared_mutex> G;
  std::unique_lock<std::mutex> L;
};

/// Whether the hint list sets \p Key to "disable".
bool disabled(const HintList &H, const char *Key) {
  for (const auto &KV : H)
    if (KV.first == Key)
      return KV.second == "disable";
  return false;
}

class MpiioFile final : public BackendFile {
public:
  MpiioFile(MPI_File F, std::string Path, MPI_Comm Comm, bool CbRead, bool CbWrite)
      : Fh(F), Path(std::move(Path)), Comm(Comm), CbRead(CbRead), CbWrite(CbWrite) {
    std::lock_guard<std::mutex> G(state().RegMu);
    Seq = state().NextSeq++;
    state().Files[Seq] = this;
  }
  ~MpiioFile() override { close(); }

  ssize_t readAt(void *Buf, size_t N, uint64_t Off) override {
    return transfer(Buf, N, Off, /*Write=*/false);
  }
  ssize_t writeAt(const void *Buf, size_t N, uint64_t Off) override {
    return transfer(const_cast<void *>(Buf), N, Off, /*Write=*/true);
  }
  int sync() override {
    MpiCall G;
    if (ClosedByFinalize)
      return 0; // the hook synced and closed it; nothing was written since
    if (Fh == MPI_FILE_NULL)
      return -EBADF;
    int E = MPI_File_sync(Fh);
    return E == MPI_SUCCESS ? 0 : -errnoOf(E);
  }
  int64_t size() override {
    MpiCall G;
    if (!usable())
      return -EBADF;
    MPI_Offset S = 0;
    int E = MPI_File_get_size(Fh, &S);
    return E == MPI_SUCCESS ? static_cast<int64_t>(S) : -errnoOf(E);
  }
  int resize(uint64_t Size) override {
    MpiCall G;
    if (!usable())
      return -EBADF;
    int E = MPI_File_set_size(Fh, static_cast<MPI_Offset>(Size));
    return E == MPI_SUCCESS ? 0 : -errnoOf(E);
  }
  int close() override {
    MpiCall G;
    return closeNow();
  }
  /// Closes; the caller holds the gate (shared or exclusive) and CallMu if
  /// the thread level needs it.
  int closeNow() {
    {
      std::lock_guard<std::mutex> L(state().RegMu);
      state().Files.erase(Seq);
    }
    if (Fh == MPI_FILE_NULL)
      return 0;
    int E = MPI_File_close(&Fh);
    Fh = MPI_FILE_NULL;
    for (MPI_Datatype &T : Views)
      MPI_Type_free(&T);
    Views.clear();
    return E == MPI_SUCCESS ? 0 : -errnoOf(E);
  }
  /// The finalize hook's close: marks the file so that a later sync (the
  /// runtime's exit flush) does not report a spurious error.
  int closeForFinalize() {
    ClosedByFinalize = true;
    return closeNow();
  }
  bool direct() const override { return false; }
  const std::string &path() const { return Path; }

  bool collective() const override { return Comm != MPI_COMM_SELF; }
  int writeAll(const IoRun *Runs, size_t N, const char *Buf) override {
    return moveAll(Runs, N, const_cast<char *>(Buf), /*Write=*/true);
  }
  int readAll(const IoRun *Runs, size_t N, char *Buf) override { return moveAll(Runs, N, Buf, /*Write=*/false); }
  int syncAll() override {
    MpiCall G;
    if (!usable())
      return -EBADF;
    state().CollectiveSyncs++;
    int E = MPI_File_sync(Fh);
    return E == MPI_SUCCESS ? 0 : -errnoOf(E);
  }

private:
  /// The sync-point transfer: every rank of the communicator calls it. The
  /// runs become a file view (hindexed over bytes) and the packed buffer
  /// moves in one collective call; a rank's share larger than 1 GiB goes in
  /// several rounds, as many on every rank (MPI counts are ints).
  int moveAll(const IoRun *Runs, size_t N, char *Buf, bool Write) {
    MpiCall G;
    if (!usable()) {
      if (Write)
        warnWriteAfterFinalize();
      return -EBADF;
    }
    bool Coll = Write ? CbWrite : CbRead;
    if (!Coll) {
      // romio_cb_*=disable: independent calls, no view.
      (Write ? state().IndependentSyncWrites : state().IndependentSyncReads)++;
      for (size_t K = 0; K < N; ++K) {
        MPI_Status St;
        int E = Write ? MPI_File_write_at(Fh, static_cast<MPI_Offset>(Runs[K].Offset), Buf, static_cast<int>(Runs[K].Len),
                                          MPI_BYTE, &St)
                      : MPI_File_read_at(Fh, static_cast<MPI_Offset>(Runs[K].Offset), Buf, static_cast<int>(Runs[K].Len),
                                         MPI_BYTE, &St);
        if (E != MPI_SUCCESS)
          return -errnoOf(E);
        Buf += Runs[K].Len;
      }
      return 0;
    }
    const size_t Round = size_t(1) << 30;
    // Split the runs into rounds of at most Round bytes (a run larger than
    // a round, i.e. a stripe over 1 GiB, is a round of its own).
    std::vector<size_t> Starts{0};
    size_t Acc = 0;
    for (size_t K = 0; K < N; ++K) {
      if (Acc && Acc + Runs[K].Len > Round) {
        Starts.push_back(K);
        Acc = 0;
      }
      Acc += Runs[K].Len;
    }
    Starts.push_back(N);
    long long Mine = static_cast<long long>(Starts.size() - 1), Rounds = 0;
    if (N == 0)
      Mine = 0;
    MPI_Allreduce(&Mine, &Rounds, 1, MPI_LONG_LONG, MPI_MAX, Comm);
    int Result = 0;
    for (long long R = 0; R < std::max(Rounds, 1LL); ++R) {
      size_t Lo = R < Mine ? Starts[R] : N, Hi = R < Mine ? Starts[R + 1] : N;
      std::vector<int> Lens;
      std::vector<MPI_Aint> Disps;
      size_t Bytes = 0;
      for (size_t K = Lo; K < Hi; ++K) {
        Lens.push_back(static_cast<int>(Runs[K].Len));
        Disps.push_back(static_cast<MPI_Aint>(Runs[K].Offset));
        Bytes += Runs[K].Len;
      }
      // A rank with nothing to move takes part with the plain byte view
      // (an empty filetype upsets ROMIO).
      MPI_Datatype View = MPI_BYTE;
      if (!Lens.empty()) {
        MPI_Type_create_hindexed(static_cast<int>(Lens.size()), Lens.data(), Disps.data(), MPI_BYTE, &View);
        MPI_Type_commit(&View);
      }
      int E = MPI_File_set_view(Fh, 0, MPI_BYTE, View, "native", MPI_INFO_NULL);
      MPI_Status St;
      if (E == MPI_SUCCESS)
        E = Write ? MPI_File_write_all(Fh, Buf, static_cast<int>(Bytes), MPI_BYTE, &St)
                  : MPI_File_read_all(Fh, Buf, static_cast<int>(Bytes), MPI_BYTE, &St);
      int Reset = MPI_File_set_view(Fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
      // Freed when the file is closed: MPI-IO libraries keep the flattened
      // filetype past the view (ROMIO 3.2.1 frees it twice, and Open MPI's
      // OMPIO lost bytes, when the type was freed right after the view).
      if (View != MPI_BYTE)
        Views.push_back(View);
      if (E != MPI_SUCCESS && !Result)
        Result = -errnoOf(E);
      if (Reset != MPI_SUCCESS && !Result)
        Result = -errnoOf(Reset);
      Buf += Bytes;
      (Write ? state().CollectiveWrites : state().CollectiveReads)++;
    }
    return Result;
  }

  bool usable() const { return Fh != MPI_FILE_NULL && !state().Closing.load(); }
  /// A write after MPI_Finalize loses data: say why once. (Reads fail
  /// quietly: the caller gets the error, and queued prefetches that fail
  /// are harmless.)
  void warnWriteAfterFinalize() {
    if (!state().Closing.load() || state().WarnedAfterFinalize.exchange(true))
      return;
    warning(format("MPI-IO backend: cannot write '%s': the program called MPI_Finalize, which closed every "
                   "array file (call MPI_Finalize after the last iopoly call that writes)",
                   Path.c_str()));
  }
  ssize_t transfer(void *Buf, size_t N, uint64_t Off, bool Write) {
    MpiCall G;
    if (!usable()) {
      if (Write)
        warnWriteAfterFinalize();
      return -EBADF;
    }
    if (N > static_cast<size_t>(1) << 30)
      N = static_cast<size_t>(1) << 30; // counts are ints: short transfer
    MPI_Status St;
    int E = Write ? MPI_File_write_at(Fh, static_cast<MPI_Offset>(Off), Buf, static_cast<int>(N), MPI_BYTE, &St)
                  : MPI_File_read_at(Fh, static_cast<MPI_Offset>(Off), Buf, static_cast<int>(N), MPI_BYTE, &St);
    if (E != MPI_SUCCESS)
      return -errnoOf(E);
    int Count = 0;
    if (MPI_Get_count(&St, MPI_BYTE, &Count) != MPI_SUCCESS || Count == MPI_UNDEFINED || Count < 0)
      return -EIO;
    return Count;
  }
  MPI_File Fh;
  std::string Path;
  MPI_Comm Comm; ///< MPI_COMM_SELF, or the shared array's communicator
  std::vector<MPI_Datatype> Views; ///< filetypes of past sync points
  bool CbRead, CbWrite;
  uint64_t Seq = 0;
  bool ClosedByFinalize = false;
};

/// MPI_COMM_SELF delete callback: MPI_Finalize runs it before tearing MPI
/// down. Write everything back while MPI-IO still works, then close.
int onCommSelfDelete(MPI_Comm, int, void *, void *) {
  MpiState &S = state();
  bool AnyOpen;
  {
    std::lock_guard<std::mutex> L(S.RegMu);
    AnyOpen = !S.Files.empty();
  }
  // Open files mean open arrays, hence a live runtime: flush it. (Without
  // files there is nothing to write, and calling into the runtime could
  // try to create it in the middle of MPI_Finalize.)
  if (AnyOpen && iopoly_flush(nullptr) != 0)
    std::fprintf(stderr, "iopoly: error: at MPI_Finalize, writing back the open arrays failed: %s\n",
                 iopoly_last_error());
  S.Closing = true;
  std::unique_lock<std::shared_mutex> G(S.Gate); // waits for transfers in flight
  std::unique_lock<std::mutex> C(S.CallMu, std::defer_lock);
  if (S.Serialize)
    C.lock();
  std::map<uint64_t, MpiioFile *> Files;
  {
    std::lock_guard<std::mutex> L(S.RegMu);
    Files = S.Files;
  }
  for (const auto &KV : Files)
    if (MpiioFile *F = KV.second; int E = F->closeForFinalize())
      std::fprintf(stderr, "iopoly: error: at MPI_Finalize, closing '%s' failed: %s\n", F->path().c_str(),
                   std::strerror(-E));
  S.Finalized = true;
  return MPI_SUCCESS;
}

void finalizeOwnedMpi() {
  int Done = 0;
  MPI_Finalized(&Done);
  if (!Done)
    PMPI_Finalize();
}

const char *levelName(int L) {
  switch (L) {
  case MPI_THREAD_SINGLE: return "single";
  case MPI_THREAD_FUNNELED: return "funneled";
  case MPI_THREAD_SERIALIZED: return "serialized";
  default: return "multiple";
  }
}

/// The hints every file is opened with, IOPOLY_MPIIO_HINTS applied last.
/// \p DiskIndex < 0 gives the description used in the statistics.
HintList effectiveHints(size_t StripeSize, long DiskIndex) {
  HintList H = {{"striping_unit", std::to_string(StripeSize)},
                {"striping_factor", "1"},
                {"start_iodevice", DiskIndex < 0 ? "disk index" : std::to_string(DiskIndex)}};
  for (const auto &KV : state().ExtraHints) {
    bool Replaced = false;
    for (auto &Old : H)
      if (Old.first == KV.first) {
        Old.second = KV.second;
        Replaced = true;
      }
    if (!Replaced)
      H.push_back(KV);
  }
  return H;
}

/// Reads back the hints MPI keeps for \p Fh.
HintList hintsOf(MPI_File Fh) {
  HintList Out;
  MPI_Info Info = MPI_INFO_NULL;
  if (MPI_File_get_info(Fh, &Info) != MPI_SUCCESS || Info == MPI_INFO_NULL)
    return Out;
  int N = 0;
  MPI_Info_get_nkeys(Info, &N);
  for (int I = 0; I < N; ++I) {
    char Key[MPI_MAX_INFO_KEY + 1] = {0};
    std::vector<char> Val(MPI_MAX_INFO_VAL + 1, '\0');
    int Flag = 0;
    if (MPI_Info_get_nthkey(Info, I, Key) != MPI_SUCCESS)
      continue;
    if (MPI_Info_get(Info, Key, MPI_MAX_INFO_VAL, Val.data(), &Flag) == MPI_SUCCESS && Flag)
      Out.emplace_back(Key, Val.data());
  }
  MPI_Info_free(&Info);
  return Out;
}

class MpiioBackend final : public Backend {
public:
  explicit MpiioBackend(const Config &C) : C(C) {}
  const char *name() const override { return "mpiio"; }

  Status open(const std::string &Path, OpenMode M, const FileHints &H,
              std::unique_ptr<BackendFile> &Out) override {
    if (Status E = startMpi())
      return Status::error(format("cannot open '%s' with the MPI-IO backend: %s", Path.c_str(), E.message().c_str()));
    MpiCall G;
    if (state().Closing.load())
      return Status::error(format("cannot open '%s' with the MPI-IO backend: the program has called MPI_Finalize",
                                  Path.c_str()));
    int Amode = M == OpenMode::ReadOnly ? MPI_MODE_RDONLY
                : M == OpenMode::ReadWrite ? MPI_MODE_RDWR
                                           : MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL;
    MPI_Info Info;
    MPI_Info_create(&Info);
    for (const auto &KV : effectiveHints(H.StripeSize, static_cast<long>(H.DiskIndex)))
      MPI_Info_set(Info, KV.first.c_str(), KV.second.c_str());
    MPI_File Fh = MPI_FILE_NULL;
    MPI_Comm Comm = H.Comm ? *static_cast<const MPI_Comm *>(H.Comm) : MPI_COMM_SELF;
    int E = MPI_File_open(Comm, Path.c_str(), Amode, Info, &Fh);
    MPI_Info_free(&Info);
    if (E != MPI_SUCCESS)
      return Status::error(format("cannot open '%s' with MPI_File_open: %s", Path.c_str(), mpiMessage(E).c_str()));
    // Report I/O errors as return codes, not aborts.
    MPI_File_set_errhandler(Fh, MPI_ERRORS_RETURN);
    HintList Used = effectiveHints(H.StripeSize, static_cast<long>(H.DiskIndex));
    {
      std::lock_guard<std::mutex> L(state().RegMu);
      bool Shared = Comm != MPI_COMM_SELF;
      std::string &P = Shared ? state().SharedHintsInEffectPath : state().HintsInEffectPath;
      // Not a file being created: it is renamed once complete (ArrayFiles.cpp).
      if (P.empty() && M != OpenMode::CreateExclusive) {
        (Shared ? state().SharedHintsInEffect : state().HintsInEffect) = hintsOf(Fh);
        P = Path;
      }
      if (Shared)
        state().SharedFiles++;
    }
    Out = std::make_unique<MpiioFile>(Fh, Path, Comm, !disabled(Used, "romio_cb_read"),
                                      !disabled(Used, "romio_cb_write"));
    return {};
  }

  bool exists(const std::string &Path) override {
    struct stat St;
    return ::stat(Path.c_str(), &St) == 0;
  }

  Status remove(const std::string &Path) override {
    if (::unlink(Path.c_str()) < 0 && errno != ENOENT)
      return Status::error(format("cannot remove '%s': %s", Path.c_str(), std::strerror(errno)));
    return {};
  }

  std::string directStatus() const override { return "off: the MPI-IO library manages caching"; }

  std::string statsJSON() const override {
    MpiState &S = state();
    JsonWriter W;
    W.beginObject();
    W.key("mpi_library").value(S.Library);
    W.key("mpi_thread_level").value(levelName(S.ThreadLevel));
    W.key("mpi_initialized_by_iopoly").value(S.OwnsMpi);
    W.key("mpi_finalized_by_program").value(S.Finalized.load() && !S.OwnsMpi);
    W.key("background_io").value(allowsBackgroundIO());
    if (!S.Fcoll.empty())
      W.key("ompio_fcoll").value(S.Fcoll);
    W.key("hints").beginObject();
    for (const auto &KV : effectiveHints(C.StripeSize, -1))
      W.key(KV.first).value(KV.second);
    W.endObject();
    std::lock_guard<std::mutex> L(S.RegMu);
    W.key("hints_in_effect_file").value(S.HintsInEffectPath);
    W.key("hints_in_effect").beginObject();
    for (const auto &KV : S.HintsInEffect)
      W.key(KV.first).value(KV.second);
    W.endObject();
    // Files of shared arrays: the hints the collective calls run with.
    W.key("shared_files").value(static_cast<unsigned long long>(S.SharedFiles.load()));
    W.key("shared_hints_in_effect_file").value(S.SharedHintsInEffectPath);
    W.key("shared_hints_in_effect").beginObject();
    for (const auto &KV : S.SharedHintsInEffect)
      W.key(KV.first).value(KV.second);
    W.endObject();
    W.key("collective_writes").value(static_cast<unsigned long long>(S.CollectiveWrites.load()));
    W.key("collective_reads").value(static_cast<unsigned long long>(S.CollectiveReads.load()));
    W.key("collective_syncs").value(static_cast<unsigned long long>(S.CollectiveSyncs.load()));
    W.key("independent_sync_writes").value(static_cast<unsigned long long>(S.IndependentSyncWrites.load()));
    W.key("independent_sync_reads").value(static_cast<unsigned long long>(S.IndependentSyncReads.load()));
    W.endObject();
    return W.str();
  }

  /// Asked before every background job: MPI may start after the runtime.
  bool allowsBackgroundIO() const override {
    return state().Initialized && state().ThreadLevel == MPI_THREAD_MULTIPLE;
  }

private:
  Config C;
};

std::string trim(const std::string &S) {
  size_t B = S.find_first_not_of(" \t");
  size_t E = S.find_last_not_of(" \t");
  return B == std::string::npos ? "" : S.substr(B, E - B + 1);
}

bool isUnsigned(const std::string &V) {
  return !V.empty() && V.size() <= 18 && V.find_first_not_of("0123456789") == std::string::npos;
}

/// Parses IOPOLY_MPIIO_HINTS: comma-separated key=value pairs. Values of the
/// numeric hints reserved by the MPI standard must be integers: MPI would
/// ignore anything else silently.
Status parseHints(const char *Text, HintList &Out) {
  HintList H;
  std::string S = Text;
  auto Bad = [&](const std::string &Why) {
    return Status::error(format("IOPOLY_MPIIO_HINTS=%s: %s (expected key=value[,key=value...], e.g. "
                                "cb_buffer_size=16777216,romio_ds_write=disable)",
                                Text, Why.c_str()));
  };
  size_t Start = 0;
  while (true) {
    size_t Comma = S.find(',', Start);
    std::string Part = trim(S.substr(Start, Comma == std::string::npos ? std::string::npos : Comma - Start));
    if (!Part.empty()) {
      size_t Eq = Part.find('=');
      if (Eq == std::string::npos)
        return Bad(format("'%s' is not key=value", Part.c_str()));
      std::string Key = trim(Part.substr(0, Eq)), Val = trim(Part.substr(Eq + 1));
      if (Key.empty())
        return Bad(format("'%s' has an empty key", Part.c_str()));
      if (Val.empty())
        return Bad(format("hint '%s' has an empty value", Key.c_str()));
      if (Key.find_first_of(" \t=") != std::string::npos)
        return Bad(format("'%s' is not a valid hint name", Key.c_str()));
      if (Key.size() >= MPI_MAX_INFO_KEY)
        return Bad(format("hint name '%s' is longer than MPI_MAX_INFO_KEY-1 = %d characters", Key.c_str(),
                          MPI_MAX_INFO_KEY - 1));
      if (Val.size() >= MPI_MAX_INFO_VAL)
        return Bad(format("the value of hint '%s' is longer than MPI_MAX_INFO_VAL-1 = %d characters", Key.c_str(),
                          MPI_MAX_INFO_VAL - 1));
      static const char *const Positive[] = {"striping_unit", "striping_factor", "cb_buffer_size", "cb_nodes",
                                             "ind_rd_buffer_size", "ind_wr_buffer_size", "cb_block_size",
                                             "num_io_nodes", "nb_proc"};
      for (const char *P : Positive)
        if (Key == P && (!isUnsigned(Val) || std::strtoull(Val.c_str(), nullptr, 10) == 0))
          return Bad(format("hint '%s' needs a positive integer, not '%s'", Key.c_str(), Val.c_str()));
      if (Key == "start_iodevice" && !isUnsigned(Val))
        return Bad(format("hint 'start_iodevice' needs a non-negative integer, not '%s'", Val.c_str()));
      if (Key == "collective_buffering" && Val != "true" && Val != "false")
        return Bad(format("hint 'collective_buffering' needs true or false, not '%s'", Val.c_str()));
      bool Replaced = false;
      for (auto &Old : H)
        if (Old.first == Key) {
          Old.second = Val; // the last value of a repeated key wins
          Replaced = true;
        }
      if (!Replaced)
        H.emplace_back(Key, Val);
    }
    if (Comma == std::string::npos)
      break;
    Start = Comma + 1;
  }
  Out = std::move(H);
  return {};
}

/// Loading the module: the hints and the library's name only. MPI is not
/// touched (the program may call MPI_Init later).
Status setUp() {
  MpiState &S = state();
  std::lock_guard<std::mutex> L(S.InitMu);
  HintList Hints;
  if (const char *H = std::getenv("IOPOLY_MPIIO_HINTS"))
    if (Status E = parseHints(H, Hints))
      return E;
  S.ExtraHints = std::move(Hints);
  char Lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int Len = 0;
  if (MPI_Get_library_version(Lib, &Len) == MPI_SUCCESS) {
    std::string V(Lib, static_cast<size_t>(Len > 0 ? Len : 0));
    S.Library = trim(V.substr(0, V.find_first_of("\r\n")));
    if (!S.Library.empty() && S.Library.back() == ',')
      S.Library.pop_back();
  }
  return {};
}

/// Open MPI 4.1's OMPIO collective-write component "vulcan" (its default)
/// was seen to lose bytes of the interleaved, many-run file views of sync
/// points with small cb_buffer_size/cb_nodes (test/mpi, shared_np4_mpiio).
/// Unless the user chose one (OMPI_MCA_fcoll), select dynamic_gen2 through
/// MPI_T before the first file is opened (the framework opens then; every
/// rank does the same here). Returns what was done, for the statistics.
std::string avoidVulcan() {
  if (std::getenv("OMPI_MCA_fcoll"))
    return std::string("OMPI_MCA_fcoll=") + std::getenv("OMPI_MCA_fcoll");
  int Provided = 0, Index = -1, Count = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &Provided) != MPI_SUCCESS)
    return "";
  std::string Out;
  MPI_T_cvar_handle H;
  if (MPI_T_cvar_get_index("fcoll", &Index) == MPI_SUCCESS &&
      MPI_T_cvar_handle_alloc(Index, nullptr, &H, &Count) == MPI_SUCCESS) {
    char Value[] = "dynamic_gen2";
    if (MPI_T_cvar_write(H, Value) == MPI_SUCCESS)
      Out = "dynamic_gen2 (set by iopoly: OMPIO's vulcan loses bytes of interleaved collective writes)";
    MPI_T_cvar_handle_free(&H);
  }
  MPI_T_finalize();
  return Out;
}

/// Before the first file is opened: MPI itself (initialized here if the
/// program has not done it), its thread level, the finalize hook.
Status startMpi() {
  MpiState &S = state();
  std::lock_guard<std::mutex> L(S.InitMu);
  int Init = 0, Fin = 0;
  MPI_Initialized(&Init);
  MPI_Finalized(&Fin);
  if (S.Initialized) {
    if (Fin || S.Finalized.load())
      return Status::error("the program has called MPI_Finalize");
    return {};
  }
  if (Fin)
    return Status::error("MPI has already been finalized (the program called MPI_Finalize before its first use of "
                         "iopoly)");
  if (!Init) {
    int Provided = MPI_THREAD_SINGLE;
    // PMPI: a wrapper of MPI_Init_thread (libiopoly_mpi's) is for the program's call.
    iopoly::requestOmpioRangeLocks();
    if (PMPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &Provided) != MPI_SUCCESS)
      return Status::error("MPI_Init_thread failed");
    S.OwnsMpi = true;
    S.ThreadLevel = Provided;
    std::atexit(finalizeOwnedMpi);
  } else {
    MPI_Query_thread(&S.ThreadLevel);
  }
  S.Serialize = S.ThreadLevel < MPI_THREAD_MULTIPLE;
  S.Fcoll = avoidVulcan();
  int Key = MPI_KEYVAL_INVALID;
  int E = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, onCommSelfDelete, &Key, nullptr);
  if (E == MPI_SUCCESS)
    E = MPI_Comm_set_attr(MPI_COMM_SELF, Key, nullptr);
  if (E != MPI_SUCCESS)
    return Status::error("cannot register the MPI_Finalize hook on MPI_COMM_SELF: " + mpiMessage(E));
  S.Initialized = true;
  return {};
}

} // namespace
} // namespace iopoly

using namespace iopoly;

extern "C" IOPOLY_API Backend *iopoly_mpiio_backend(const Config *C, std::string *Err) {
  if (Status E = setUp()) {
    *Err = E.message();
    return nullptr;
  }
  return new MpiioBackend(*C);
}
