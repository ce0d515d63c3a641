//===- ArrayFiles.cpp - Creating, validating and closing disk files --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// An array is T files, one per disk directory, named <name>.iop. Opening
// checks every file: present (all or none), header identical to the current
// settings, size exactly as the geometry says. Any mismatch is an error that
// names the file and both values; nothing is modified in that case.
//
//===----------------------------------------------------------------------===//
#include "core/Array.h"
#include "core/FileHeader.h"
#include "io/RetryIO.h"
#include "core/Runtime.h"

#include "iopoly.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace iopoly {

namespace {

/// A 4096-aligned scratch buffer for the header (O_DIRECT needs alignment).
struct AlignedBuf {
  explicit AlignedBuf(size_t N) {
    if (posix_memalign(&P, 4096, N) != 0)
      P = nullptr;
    else
      std::memset(P, 0, N);
  }
  ~AlignedBuf() { std::free(P); }
  void *P = nullptr;
};

Status writeHeader(Runtime &RT, BackendFile &F, const FileHeader &H,
                   const std::string &Path) {
  std::string Bytes = H.encode();
  AlignedBuf Buf(HeaderBytes);
  if (!Buf.P)
    return Status::error("out of memory");
  std::memcpy(Buf.P, Bytes.data(), HeaderBytes);
  return writeFully(F, Buf.P, HeaderBytes, 0, Path, RT.retryPolicy());
}

Status checkExisting(Runtime &RT, iopoly_array &A, size_t Disk,
                     BackendFile &F, const FileHeader &Want) {
  const std::string &Path = A.Paths[Disk];
  int64_t Size = F.size();
  if (Size < 0)
    return Status::error(format("cannot stat '%s': %s", Path.c_str(), std::strerror(static_cast<int>(-Size))));
  if (static_cast<uint64_t>(Size) < HeaderBytes)
    return Status::error(format("array '%s': file '%s' is %lld bytes, shorter than its %llu-byte header (truncated?)",
                                A.Name.c_str(), Path.c_str(), static_cast<long long>(Size),
                                static_cast<unsigned long long>(HeaderBytes)));
  AlignedBuf Buf(HeaderBytes);
  if (!Buf.P)
    return Status::error("out of memory");
  if (Status S = readFully(F, Buf.P, HeaderBytes, 0, Path, RT.retryPolicy()))
    return S;
  FileHeader Got;
  if (Status S = FileHeader::decode(static_cast<const char *>(Buf.P), HeaderBytes, Got))
    return Status::error(format("array '%s': file '%s': %s", A.Name.c_str(), Path.c_str(), S.message().c_str()));
  std::string Diff = Want.mismatch(Got);
  if (!Diff.empty())
    return Status::error(format("array '%s': file '%s' does not match: %s", A.Name.c_str(), Path.c_str(), Diff.c_str()));
  uint64_t Expect = A.Geo.expectedFileSize(Disk);
  if (static_cast<uint64_t>(Size) != Expect)
    return Status::error(format("array '%s': file '%s' is %lld bytes, expected %llu (%s)", A.Name.c_str(),
                                Path.c_str(), static_cast<long long>(Size), static_cast<unsigned long long>(Expect),
                                static_cast<uint64_t>(Size) < Expect ? "short file: data is missing"
                                                                     : "oversized file"));
  return {};
}

/// Takes <disk0>/<name>.lock: exclusive for writers, shared for readers, so
/// that two processes never cache the same array (their buffers would not
/// be coherent). Filesystems without flock are used without the lock.
Status lockArray(iopoly_array &A, const std::string &Dir, bool Create) {
  std::string Path = Dir + "/" + A.Name + ".lock";
  int Fd = ::open(Path.c_str(), O_RDWR | O_CLOEXEC | (Create ? O_CREAT : 0), 0666);
  if (Fd < 0 && !A.Writable)
    Fd = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC);
  if (Fd < 0) {
    verbose(format("array '%s': no lock file '%s' (%s); opened without a lock", A.Name.c_str(), Path.c_str(),
                   std::strerror(errno)));
    return {};
  }
  if (::flock(Fd, (A.Writable ? LOCK_EX : LOCK_SH) | LOCK_NB) < 0) {
    int E = errno;
    ::close(Fd);
    if (E == EWOULDBLOCK)
      return Status::error(format("array '%s' is in use by another process (lock '%s'); processes and MPI ranks that "
                                  "write an array need their own IOPOLY_DIR or their own array names",
                                  A.Name.c_str(), Path.c_str()));
    verbose(format("array '%s': cannot lock '%s' (%s); opened without a lock", A.Name.c_str(), Path.c_str(),
                   std::strerror(E)));
    return {};
  }
  A.LockFd = Fd;
  return {};
}

} // namespace

Status openArrayFiles(Runtime &RT, iopoly_array &A, int Flags) {
  Status S = openArrayFilesLocked(RT, A, Flags);
  if (S && A.LockFd >= 0) {
    ::close(A.LockFd);
    A.LockFd = -1;
  }
  return S;
}

Status openArrayFilesLocked(Runtime &RT, iopoly_array &A, int Flags) {
  const Config &C = RT.config();
  Backend &B = RT.backend();
  size_t T = C.numDisks();
  A.Paths.clear();
  for (size_t D = 0; D < T; ++D)
    A.Paths.push_back(C.DiskDirs[D] + "/" + A.Name + ".iop");

  size_t Present = 0;
  for (const std::string &P : A.Paths)
    Present += B.exists(P);
  bool Create = Flags & IOPOLY_CREATE;
  A.Writable = Create || (Flags & IOPOLY_RDWR);

  FileHeader Want;
  Want.Name = A.Name;
  Want.Geo = A.Geo;

  if (Present == 0 && !Create)
    return Status::error(format("array '%s' does not exist: no file '%s' (use IOPOLY_CREATE to create it)",
                                A.Name.c_str(), A.Paths[0].c_str()));
  if (Create)
    if (Status S = makeDirectories(C.DiskDirs[0]))
      return Status::error(format("array '%s': disk 0: %s", A.Name.c_str(), S.message().c_str()));
  if (Status S = lockArray(A, C.DiskDirs[0], Create))
    return S;
  // Another process may have created or removed files before we locked.
  Present = 0;
  for (const std::string &P : A.Paths)
    Present += B.exists(P);
  if (Present == 0 && !Create)
    return Status::error(format("array '%s' does not exist: no file '%s' (use IOPOLY_CREATE to create it)",
                                A.Name.c_str(), A.Paths[0].c_str()));

  if (Present == 0) {
    for (size_t D = 0; D < T; ++D)
      if (Status S = makeDirectories(C.DiskDirs[D]))
        return Status::error(format("array '%s': disk %zu: %s", A.Name.c_str(), D, S.message().c_str()));
    // Create all files; on failure remove the ones made so far (they hold
    // no data yet) so that a retry starts clean.
    for (size_t D = 0; D < T; ++D) {
      std::unique_ptr<BackendFile> F;
      FileHints H{C.StripeSize, D, T};
      Status S = B.open(A.Paths[D], OpenMode::CreateExclusive, H, F);
      if (!S) {
        Want.DiskIndex = D;
        S = writeHeader(RT, *F, Want, A.Paths[D]);
      }
      if (!S) {
        int R = F->resize(A.Geo.expectedFileSize(D));
        if (R < 0)
          S = Status::error(format("cannot size '%s' to %llu bytes: %s", A.Paths[D].c_str(),
                                   static_cast<unsigned long long>(A.Geo.expectedFileSize(D)),
                                   std::strerror(-R)));
      }
      if (S) {
        if (F)
          F->close();
        A.Files.clear();
        for (size_t E = 0; E <= D; ++E)
          B.remove(A.Paths[E]);
        return Status::error(format("creating array '%s': %s", A.Name.c_str(), S.message().c_str()));
      }
      A.Files.push_back(std::move(F));
    }
    verbose(format("created array '%s' (%s x %zu bytes) on %zu disks", A.Name.c_str(),
                   A.Geo.dimsString().c_str(), A.Geo.ElemSize, T));
    A.allZeroOnDisk();
    return {};
  }

  if (Present != T) {
    // Most often IOPOLY_DISKS changed: when a present file says so (or
    // differs otherwise), that is the error, with both values.
    for (size_t D = 0; D < T; ++D) {
      if (!B.exists(A.Paths[D]))
        continue;
      std::unique_ptr<BackendFile> F;
      FileHints H{C.StripeSize, D, T};
      if (B.open(A.Paths[D], OpenMode::ReadOnly, H, F).ok()) {
        Want.DiskIndex = D;
        Status S = checkExisting(RT, A, D, *F, Want);
        F->close();
        if (S)
          return S;
      }
      break;
    }
    for (const std::string &P : A.Paths)
      if (!B.exists(P))
        return Status::error(format("array '%s' is incomplete: '%s' is missing while %zu of its %zu disk files exist "
                                    "(were the disk directories changed?)",
                                    A.Name.c_str(), P.c_str(), Present, T));
  }

  OpenMode Mode = A.Writable ? OpenMode::ReadWrite : OpenMode::ReadOnly;
  for (size_t D = 0; D < T; ++D) {
    std::unique_ptr<BackendFile> F;
    FileHints H{C.StripeSize, D, T};
    if (Status S = B.open(A.Paths[D], Mode, H, F)) {
      A.Files.clear();
      return Status::error(format("array '%s': %s", A.Name.c_str(), S.message().c_str()));
    }
    Want.DiskIndex = D;
    if (Status S = checkExisting(RT, A, D, *F, Want)) {
      F->close();
      A.Files.clear();
      return S;
    }
    A.Files.push_back(std::move(F));
  }
  if (Create && (Flags & IOPOLY_TRUNC)) {
    for (size_t D = 0; D < T; ++D) {
      int R = A.Files[D]->resize(HeaderBytes);
      if (R == 0)
        R = A.Files[D]->resize(A.Geo.expectedFileSize(D));
      if (R < 0)
        return Status::error(format("array '%s': cannot truncate '%s': %s", A.Name.c_str(),
                                    A.Paths[D].c_str(), std::strerror(-R)));
    }
    A.allZeroOnDisk();
  }
  return {};
}

Status closeArrayFiles(Runtime &RT, iopoly_array &A) {
  Status First;
  for (size_t D = 0; D < A.Files.size(); ++D) {
    int R = A.Files[D]->close();
    if (R < 0 && First.ok())
      First = Status::error(format("closing '%s': %s", A.Paths[D].c_str(), std::strerror(-R)));
  }
  A.Files.clear();
  if (A.LockFd >= 0) {
    ::close(A.LockFd);
    A.LockFd = -1;
  }
  (void)RT;
  return First;
}

} // namespace iopoly
