//===- OutputFile.cpp - Writing a file the user named, safely --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/OutputFile.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace iopoly {

namespace {

std::string dirOf(const std::string &P) {
  size_t S = P.rfind('/');
  if (S == std::string::npos)
    return ".";
  return S == 0 ? "/" : P.substr(0, S);
}

std::string baseOf(const std::string &P) {
  size_t S = P.rfind('/');
  return S == std::string::npos ? P : P.substr(S + 1);
}

/// Follows a chain of symbolic links textually: the path a rename must
/// replace. Fails on loops; a link into /proc's "pipe:[n]" style targets
/// comes back as is (the caller then writes through the original path).
Status resolveLinks(const std::string &Path, std::string &Out) {
  std::string Cur = Path;
  for (int Hops = 0; Hops < 40; ++Hops) {
    struct stat St;
    if (::lstat(Cur.c_str(), &St) != 0 || !S_ISLNK(St.st_mode)) {
      Out = Cur;
      return {};
    }
    char Buf[PATH_MAX];
    ssize_t N = ::readlink(Cur.c_str(), Buf, sizeof Buf - 1);
    if (N < 0)
      return Status::error(format("cannot read the symbolic link '%s': %s", Cur.c_str(), std::strerror(errno)));
    std::string T(Buf, static_cast<size_t>(N));
    Cur = T[0] == '/' ? T : dirOf(Cur) + "/" + T;
  }
  return Status::error("too many levels of symbolic links");
}

/// Whether \p P names one of the process's open files (/proc/self/fd/2,
/// /dev/stderr, /dev/fd/1...): the user means that open file, so it is
/// appended to in place, never replaced by a new file at its path.
bool isDescriptorPath(const std::string &P) {
  if (P == "/dev/stdout" || P == "/dev/stderr" || P.rfind("/dev/fd/", 0) == 0)
    return true;
  return P.rfind("/proc/", 0) == 0 && P.find("/fd/") != std::string::npos;
}

void syncDir(const std::string &Dir) {
  int D = ::open(Dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (D >= 0) {
    (void)::fsync(D);
    ::close(D);
  }
}

std::atomic<unsigned> TempCounter{0};

} // namespace

Status OutputFile::fail(const std::string &Why) {
  return Status::error(ErrorCode::IO, format("cannot write %s to '%s': %s", What.c_str(), Path.c_str(), Why.c_str()));
}

Status OutputFile::open(const std::string &Path, const std::string &What, std::unique_ptr<OutputFile> &Out) {
  std::unique_ptr<OutputFile> F(new OutputFile());
  F->Path = Path;
  F->What = What;
  if (Path.empty())
    return F->fail("the path is empty");
  struct stat St;
  bool Exists = ::stat(Path.c_str(), &St) == 0; // follows links
  if (!Exists && errno != ENOENT)
    return F->fail(std::strerror(errno));
  if (Exists && S_ISDIR(St.st_mode))
    return F->fail("it is a directory");
  if (Exists && (S_ISBLK(St.st_mode) || S_ISSOCK(St.st_mode)))
    return F->fail(S_ISBLK(St.st_mode) ? "it is a block device (refused)" : "it is a socket (refused)");
  if (Exists && !S_ISCHR(St.st_mode) && !S_ISFIFO(St.st_mode) && isDescriptorPath(Path)) {
    int Fd = ::open(Path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (Fd < 0)
      return F->fail(std::strerror(errno));
    F->Fd = Fd;
    Out = std::move(F);
    return {};
  }
  if (Exists && (S_ISCHR(St.st_mode) || S_ISFIFO(St.st_mode))) {
    // In place. O_NONBLOCK makes a FIFO without a reader fail (ENXIO)
    // instead of blocking the program at exit; then writes block normally.
    int Fd = ::open(Path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (Fd < 0)
      return F->fail(errno == ENXIO && S_ISFIFO(St.st_mode) ? "it is a FIFO with no reader" : std::strerror(errno));
    int Fl = ::fcntl(Fd, F_GETFL);
    if (Fl >= 0)
      (void)::fcntl(Fd, F_SETFL, Fl & ~O_NONBLOCK);
    F->Fd = Fd;
    Out = std::move(F);
    return {};
  }
  // A regular file, or nothing: replace the link's target, never the link.
  if (Status S = resolveLinks(Path, F->Target))
    return F->fail(S.message());
  struct stat TSt;
  bool SameFile = ::stat(F->Target.c_str(), &TSt) == 0 && Exists && TSt.st_dev == St.st_dev && TSt.st_ino == St.st_ino;
  if (Exists && (!SameFile || isDescriptorPath(F->Target))) {
    // A "magic" link (/proc/self/fd/N to a deleted or unnamed file): the
    // target has no name to rename over, so write through the link.
    int Fd = ::open(Path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (Fd < 0)
      return F->fail(std::strerror(errno));
    F->Fd = Fd;
    Out = std::move(F);
    return {};
  }
  F->Temp = dirOf(F->Target) + "/." + baseOf(F->Target) + ".iopoly-tmp." + std::to_string(::getpid()) + "." +
            std::to_string(TempCounter++);
  int Fd = ::open(F->Temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (Fd < 0) {
    std::string Why = std::strerror(errno);
    F->Temp.clear();
    return F->fail(Why);
  }
  if (Exists)
    (void)::fchmod(Fd, St.st_mode & 07777);
  F->Fd = Fd;
  Out = std::move(F);
  return {};
}

OutputFile::~OutputFile() {
  if (Fd >= 0)
    ::close(Fd);
  if (!Temp.empty())
    ::unlink(Temp.c_str());
}

Status OutputFile::write(const void *Data, size_t N) {
  const char *P = static_cast<const char *>(Data);
  while (N) {
    ssize_t W = ::write(Fd, P, N);
    if (W < 0 && errno == EINTR)
      continue;
    if (W <= 0)
      return fail(W < 0 ? std::strerror(errno) : "nothing was written");
    P += W;
    N -= static_cast<size_t>(W);
  }
  return {};
}

Status OutputFile::commit() {
  if (Temp.empty()) {
    int R = ::close(Fd);
    Fd = -1;
    return R == 0 ? Status() : fail(std::strerror(errno));
  }
  if (::fsync(Fd) != 0 || ::close(Fd) != 0) {
    Fd = -1;
    return fail(std::strerror(errno));
  }
  Fd = -1;
  if (::rename(Temp.c_str(), Target.c_str()) != 0)
    return fail(std::strerror(errno));
  Temp.clear();
  syncDir(dirOf(Target));
  return {};
}

Status writeWholeFile(const std::string &Path, const std::string &Data, const std::string &What) {
  std::unique_ptr<OutputFile> F;
  if (Status S = OutputFile::open(Path, What, F))
    return S;
  if (Status S = F->write(Data.data(), Data.size()))
    return S;
  return F->commit();
}

} // namespace iopoly
