//===- MpiioBackend.cpp - MPI-IO backend (IOPOLY_BACKEND=mpiio) ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each disk file is opened on MPI_COMM_SELF and accessed with
// MPI_File_read_at / MPI_File_write_at, so ranks use the runtime
// independently. Striping hints: striping_unit = IOPOLY_STRIPE,
// striping_factor = 1 and start_iodevice = the disk index, so that on a
// parallel file system disk file k sits on storage target k and stripe b
// lands on target b mod T, as the disk model (paper 1, section 2) assumes.
// IOPOLY_MPIIO_HINTS adds or overrides hints ("key=value,key=value").
//
// If the program has not called MPI_Init, the module initializes MPI itself
// (MPI_THREAD_MULTIPLE) and finalizes it at exit. If the program finalizes
// MPI, a delete callback on MPI_COMM_SELF first writes back every array and
// closes the files, as MPI requires.
//
//===----------------------------------------------------------------------===//
#include "../Backend.h"
#include "../Config.h"
#include "../Json.h"

#include "iopoly.h"

#include <mpi.h>

#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace iopoly {
namespace {

class MpiioFile;

/// Shared state of the module: serialization of MPI calls when the thread
/// level requires it, and the set of open files for the finalize hook.
struct MpiState {
  std::mutex CallMu; ///< serializes MPI calls below MPI_THREAD_MULTIPLE
  std::mutex RegMu;  ///< guards Files
  bool Serialize = false;
  bool Finalized = false;
  bool OwnsMpi = false;
  int ThreadLevel = MPI_THREAD_SINGLE;
  std::set<MpiioFile *> Files;
  std::vector<std::pair<std::string, std::string>> ExtraHints;
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
  MPI_Error_string(Err, Buf, &Len);
  return std::string(Buf, static_cast<size_t>(Len));
}

/// Locks the MPI library when the thread level asks for it.
struct MpiGuard {
  MpiGuard() : L(state().CallMu, std::defer_lock) {
    if (state().Serialize)
      L.lock();
  }
  std::unique_lock<std::mutex> L;
};

class MpiioFile final : public BackendFile {
public:
  MpiioFile(MPI_File F) : Fh(F) {
    std::lock_guard<std::mutex> G(state().RegMu);
    state().Files.insert(this);
  }
  ~MpiioFile() override { close(); }

  ssize_t readAt(void *Buf, size_t N, uint64_t Off) override {
    return transfer(Buf, N, Off, /*Write=*/false);
  }
  ssize_t writeAt(const void *Buf, size_t N, uint64_t Off) override {
    return transfer(const_cast<void *>(Buf), N, Off, /*Write=*/true);
  }
  int sync() override {
    MpiGuard G;
    if (!usable())
      return -EBADF;
    int E = MPI_File_sync(Fh);
    return E == MPI_SUCCESS ? 0 : -errnoOf(E);
  }
  int64_t size() override {
    MpiGuard G;
    if (!usable())
      return -EBADF;
    MPI_Offset S = 0;
    int E = MPI_File_get_size(Fh, &S);
    return E == MPI_SUCCESS ? static_cast<int64_t>(S) : -errnoOf(E);
  }
  int resize(uint64_t Size) override {
    MpiGuard G;
    if (!usable())
      return -EBADF;
    int E = MPI_File_set_size(Fh, static_cast<MPI_Offset>(Size));
    return E == MPI_SUCCESS ? 0 : -errnoOf(E);
  }
  int close() override {
    MpiGuard G;
    return closeNow();
  }
  /// Closes without taking the MPI lock (the caller holds it if needed).
  int closeNow() {
    if (Fh == MPI_FILE_NULL)
      return 0;
    int E = state().Finalized ? MPI_SUCCESS : MPI_File_close(&Fh);
    Fh = MPI_FILE_NULL;
    std::lock_guard<std::mutex> L(state().RegMu);
    state().Files.erase(this);
    return E == MPI_SUCCESS ? 0 : -errnoOf(E);
  }
  bool direct() const override { return false; }

private:
  bool usable() const { return Fh != MPI_FILE_NULL && !state().Finalized; }
  ssize_t transfer(void *Buf, size_t N, uint64_t Off, bool Write) {
    MpiGuard G;
    if (!usable())
      return -EBADF;
    if (N > static_cast<size_t>(1) << 30)
      N = static_cast<size_t>(1) << 30; // counts are ints: short transfer
    MPI_Status St;
    int E = Write ? MPI_File_write_at(Fh, static_cast<MPI_Offset>(Off), Buf, static_cast<int>(N), MPI_BYTE, &St)
                  : MPI_File_read_at(Fh, static_cast<MPI_Offset>(Off), Buf, static_cast<int>(N), MPI_BYTE, &St);
    if (E != MPI_SUCCESS)
      return -errnoOf(E);
    int Count = 0;
    MPI_Get_count(&St, MPI_BYTE, &Count);
    return Count;
  }
  MPI_File Fh;
};

/// MPI_COMM_SELF delete callback: MPI_Finalize runs it before tearing MPI
/// down. Write everything back while MPI-IO still works.
int onCommSelfDelete(MPI_Comm, int, void *, void *) {
  (void)iopoly_flush(nullptr);
  MpiGuard G;
  std::set<MpiioFile *> Files;
  {
    std::lock_guard<std::mutex> L(state().RegMu);
    Files = state().Files;
  }
  for (MpiioFile *F : Files)
    F->closeNow();
  state().Finalized = true;
  return MPI_SUCCESS;
}

void finalizeOwnedMpi() {
  int Done = 0;
  MPI_Finalized(&Done);
  if (!Done)
    MPI_Finalize();
}

const char *levelName(int L) {
  switch (L) {
  case MPI_THREAD_SINGLE: return "single";
  case MPI_THREAD_FUNNELED: return "funneled";
  case MPI_THREAD_SERIALIZED: return "serialized";
  default: return "multiple";
  }
}

class MpiioBackend final : public Backend {
public:
  explicit MpiioBackend(const Config &C) : C(C) {}
  const char *name() const override { return "mpiio"; }

  Status open(const std::string &Path, OpenMode M, const FileHints &H,
              std::unique_ptr<BackendFile> &Out) override {
    MpiGuard G;
    if (state().Finalized)
      return Status::error(format("cannot open '%s': MPI has been finalized", Path.c_str()));
    int Amode = M == OpenMode::ReadOnly ? MPI_MODE_RDONLY
                : M == OpenMode::ReadWrite ? MPI_MODE_RDWR
                                           : MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL;
    MPI_Info Info;
    MPI_Info_create(&Info);
    MPI_Info_set(Info, "striping_unit", std::to_string(H.StripeSize).c_str());
    MPI_Info_set(Info, "striping_factor", "1");
    MPI_Info_set(Info, "start_iodevice", std::to_string(H.DiskIndex).c_str());
    for (const auto &KV : state().ExtraHints)
      MPI_Info_set(Info, KV.first.c_str(), KV.second.c_str());
    MPI_File Fh = MPI_FILE_NULL;
    int E = MPI_File_open(MPI_COMM_SELF, Path.c_str(), Amode, Info, &Fh);
    MPI_Info_free(&Info);
    if (E != MPI_SUCCESS)
      return Status::error(format("cannot open '%s' with MPI_File_open: %s", Path.c_str(), mpiMessage(E).c_str()));
    // Report I/O errors as return codes, not aborts.
    MPI_File_set_errhandler(Fh, MPI_ERRORS_RETURN);
    Out = std::make_unique<MpiioFile>(Fh);
    return {};
  }

  bool exists(const std::string &Path) override {
    struct stat St;
    return ::stat(Path.c_str(), &St) == 0;
  }

  Status remove(const std::string &Path) override {
    if (::unlink(Path.c_str()) < 0 && errno != ENOENT)
      return Status::error(format("cannot remove '%s'", Path.c_str()));
    return {};
  }

  std::string directStatus() const override { return "off: the MPI-IO library manages caching"; }

  std::string statsJSON() const override {
    JsonWriter W;
    W.beginObject();
    W.key("mpi_thread_level").value(levelName(state().ThreadLevel));
    W.key("mpi_initialized_by_iopoly").value(state().OwnsMpi);
    W.key("background_io").value(!state().Serialize || state().ThreadLevel >= MPI_THREAD_SERIALIZED);
    W.key("hints").beginObject();
    W.key("striping_unit").value(static_cast<unsigned long long>(C.StripeSize));
    W.key("striping_factor").value(1ULL);
    W.key("start_iodevice").value("disk index");
    for (const auto &KV : state().ExtraHints)
      W.key(KV.first).value(KV.second);
    W.endObject();
    W.endObject();
    return W.str();
  }

  bool allowsBackgroundIO() const override { return state().ThreadLevel >= MPI_THREAD_SERIALIZED; }

private:
  Config C;
};

Status parseHints(const char *Text, std::vector<std::pair<std::string, std::string>> &Out) {
  std::string S = Text;
  size_t Start = 0;
  while (Start <= S.size()) {
    size_t Comma = S.find(',', Start);
    std::string Part = S.substr(Start, Comma == std::string::npos ? std::string::npos : Comma - Start);
    if (!Part.empty()) {
      size_t Eq = Part.find('=');
      if (Eq == std::string::npos || Eq == 0)
        return Status::error(format("IOPOLY_MPIIO_HINTS=%s: '%s' is not key=value", Text, Part.c_str()));
      Out.emplace_back(Part.substr(0, Eq), Part.substr(Eq + 1));
    }
    if (Comma == std::string::npos)
      break;
    Start = Comma + 1;
  }
  return {};
}

} // namespace
} // namespace iopoly

using namespace iopoly;

extern "C" IOPOLY_API Backend *iopoly_mpiio_backend(const Config *C, std::string *Err) {
  MpiState &S = state();
  if (const char *H = std::getenv("IOPOLY_MPIIO_HINTS"))
    if (Status E = parseHints(H, S.ExtraHints)) {
      *Err = E.message();
      return nullptr;
    }
  int Init = 0, Fin = 0;
  MPI_Initialized(&Init);
  MPI_Finalized(&Fin);
  if (Fin) {
    *Err = "MPI has already been finalized";
    return nullptr;
  }
  if (!Init) {
    int Provided = MPI_THREAD_SINGLE;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &Provided) != MPI_SUCCESS) {
      *Err = "MPI_Init_thread failed";
      return nullptr;
    }
    S.OwnsMpi = true;
    S.ThreadLevel = Provided;
    std::atexit(finalizeOwnedMpi);
  } else {
    MPI_Query_thread(&S.ThreadLevel);
  }
  S.Serialize = S.ThreadLevel < MPI_THREAD_MULTIPLE;
  int Key = MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, onCommSelfDelete, &Key, nullptr);
  MPI_Comm_set_attr(MPI_COMM_SELF, Key, nullptr);
  return new MpiioBackend(*C);
}
