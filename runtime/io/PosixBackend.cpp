//===- PosixBackend.cpp - pread/pwrite backend with O_DIRECT ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Files are opened with O_DIRECT when IOPOLY_DIRECT allows it, the stripe
// size is a multiple of 4096 and the filesystem accepts it; otherwise they
// fall back to buffered I/O and the reason goes to the stats, so that a
// measurement never silently includes the page cache.
//
//===----------------------------------------------------------------------===//
#include "io/Backend.h"
#include "core/Config.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

namespace iopoly {

namespace {

class PosixFile final : public BackendFile {
public:
  PosixFile(int Fd, bool Direct) : Fd(Fd), Direct(Direct) {}
  ~PosixFile() override {
    if (Fd >= 0)
      ::close(Fd);
  }
  ssize_t readAt(void *Buf, size_t N, uint64_t Off) override {
    ssize_t R = ::pread(Fd, Buf, N, static_cast<off_t>(Off));
    return R < 0 ? -errno : R;
  }
  ssize_t writeAt(const void *Buf, size_t N, uint64_t Off) override {
    ssize_t R = ::pwrite(Fd, Buf, N, static_cast<off_t>(Off));
    return R < 0 ? -errno : R;
  }
  int sync() override { return ::fdatasync(Fd) < 0 ? -errno : 0; }
  int64_t size() override {
    struct stat St;
    return ::fstat(Fd, &St) < 0 ? -errno : static_cast<int64_t>(St.st_size);
  }
  int resize(uint64_t Size) override {
    return ::ftruncate(Fd, static_cast<off_t>(Size)) < 0 ? -errno : 0;
  }
  int close() override {
    int R = ::close(Fd);
    Fd = -1;
    return R < 0 ? -errno : 0;
  }
  bool direct() const override { return Direct; }

private:
  int Fd;
  bool Direct;
};

class PosixBackend final : public Backend {
public:
  explicit PosixBackend(const Config &C) : Mode(C.Direct), Stripe(C.StripeSize) {
    if (Mode == DirectIO::Off)
      DirectNote = "off: IOPOLY_DIRECT=off";
    else if (Stripe % 4096 != 0)
      DirectNote = format("off: stripe size %zu is not a multiple of 4096", Stripe);
  }
  const char *name() const override { return "posix"; }

  Status open(const std::string &Path, OpenMode M, const FileHints &H,
              std::unique_ptr<BackendFile> &Out) override {
    int Flags = O_CLOEXEC;
    switch (M) {
    case OpenMode::ReadOnly: Flags |= O_RDONLY; break;
    case OpenMode::ReadWrite: Flags |= O_RDWR; break;
    case OpenMode::CreateExclusive: Flags |= O_RDWR | O_CREAT | O_EXCL; break;
    }
    // Ranks sharing an array write the bytes they changed, at any offset:
    // buffered I/O for those files (the page cache also makes one rank's
    // writes visible to the others' reads on the same host).
    bool TryDirect = Mode != DirectIO::Off && Stripe % 4096 == 0 && !H.Comm;
    if (H.Comm && Mode == DirectIO::On)
      return Status::error(format("cannot open '%s' with O_DIRECT (IOPOLY_DIRECT=on): the array is shared by MPI ranks, "
                                  "whose writes of partial stripes need buffered I/O",
                                  Path.c_str()));
    if (TryDirect) {
      int Fd = ::open(Path.c_str(), Flags | O_DIRECT, 0666);
      if (Fd >= 0) {
        noteDirect(true, "");
        Out = std::make_unique<PosixFile>(Fd, true);
        return {};
      }
      if (errno != EINVAL)
        return Status::error(format("cannot open '%s': %s", Path.c_str(), std::strerror(errno)));
      if (Mode == DirectIO::On)
        return Status::error(format("cannot open '%s' with O_DIRECT (IOPOLY_DIRECT=on): the filesystem refuses it",
                                    Path.c_str()));
      noteDirect(false, format("off: the filesystem of '%s' refuses O_DIRECT", Path.c_str()));
    } else if (Mode == DirectIO::On) {
      return Status::error(format("IOPOLY_DIRECT=on needs a stripe size multiple of 4096 (IOPOLY_STRIPE=%zu)", Stripe));
    }
    int Fd = ::open(Path.c_str(), Flags, 0666);
    if (Fd < 0)
      return Status::error(format("cannot open '%s': %s", Path.c_str(), std::strerror(errno)));
    Out = std::make_unique<PosixFile>(Fd, false);
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

  std::string directStatus() const override {
    std::lock_guard<std::mutex> L(Mu);
    if (!DirectNote.empty())
      return DirectNote;
    return SawDirect ? "on" : "unused";
  }

private:
  void noteDirect(bool On, const std::string &Why) {
    std::lock_guard<std::mutex> L(Mu);
    if (On)
      SawDirect = true;
    else if (DirectNote.empty())
      DirectNote = Why;
  }
  DirectIO Mode;
  size_t Stripe;
  mutable std::mutex Mu;
  bool SawDirect = false;
  std::string DirectNote;
};

} // namespace

std::unique_ptr<Backend> createPosixBackend(const Config &C) {
  return std::make_unique<PosixBackend>(C);
}

Status makeDirectories(const std::string &Path) {
  std::string Cur;
  size_t Pos = 0;
  while (Pos != std::string::npos) {
    Pos = Path.find('/', Pos + 1);
    Cur = Path.substr(0, Pos);
    if (Cur.empty())
      continue;
    if (::mkdir(Cur.c_str(), 0777) < 0 && errno != EEXIST)
      return Status::error(format("cannot create directory '%s': %s", Cur.c_str(), std::strerror(errno)));
  }
  struct stat St;
  if (::stat(Path.c_str(), &St) < 0 || !S_ISDIR(St.st_mode))
    return Status::error(format("'%s' is not a directory", Path.c_str()));
  if (::access(Path.c_str(), W_OK | X_OK) < 0)
    return Status::error(format("directory '%s' is not writable: %s", Path.c_str(), std::strerror(errno)));
  return {};
}

} // namespace iopoly
