//===- ArrayFiles.cpp - Creating, validating and closing disk files --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// An array is T files, one per disk directory, named <name>.iop (plus
// <name>.sum with per-stripe checksums). Opening checks every file: present
// (all or none), header identical to the current settings, one creation and
// one committed state, clean, size exactly as the geometry says. Any
// mismatch is an error that names the file and both values; nothing is
// modified in that case. Creation writes <name>.iop.creating files, syncs
// them, renames them and syncs the directories, so that a crash leaves
// either no array, an array, or temporaries that say "interrupted".
//
//===----------------------------------------------------------------------===//
#include "core/Array.h"
#include "core/Checksum.h"
#include "core/FileHeader.h"
#include "core/Runtime.h"
#include "io/RetryIO.h"

#include "iopoly.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace iopoly {

void removeStaleDisks(const Config &C, const iopoly_array &A, const FileHeader &Old);

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

bool pathExists(const std::string &P) {
  struct stat St;
  return ::lstat(P.c_str(), &St) == 0;
}

void syncDirectory(const std::string &Dir) {
  int D = ::open(Dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (D >= 0) {
    (void)::fsync(D);
    ::close(D);
  }
}

Status writeHeader(Runtime &RT, BackendFile &F, const FileHeader &H, const std::string &Path) {
  std::string Bytes = H.encode();
  AlignedBuf Buf(HeaderBytes);
  if (!Buf.P)
    return Status::error(ErrorCode::NoMemory, "out of memory");
  std::memcpy(Buf.P, Bytes.data(), HeaderBytes);
  return writeFully(F, Buf.P, HeaderBytes, 0, Path, RT.retryPolicy());
}

Status readHeader(Runtime &RT, BackendFile &F, const std::string &Path, FileHeader &Out) {
  AlignedBuf Buf(HeaderBytes);
  if (!Buf.P)
    return Status::error(ErrorCode::NoMemory, "out of memory");
  if (Status S = readFully(F, Buf.P, HeaderBytes, 0, Path, RT.retryPolicy()))
    return S;
  return FileHeader::decode(static_cast<const char *>(Buf.P), HeaderBytes, Out);
}

/// Opens \p Path read-only and reads its header; sizes too.
Status probeFile(Runtime &RT, const std::string &Path, size_t Disk, size_t T, FileHeader &H, int64_t &Size) {
  std::unique_ptr<BackendFile> F;
  FileHints Hints{RT.config().StripeSize, Disk, T};
  if (Status S = RT.backend().open(Path, OpenMode::ReadOnly, Hints, F))
    return S;
  Size = F->size();
  Status S;
  if (Size < 0)
    S = Status::error(ErrorCode::IO, format("cannot stat '%s': %s", Path.c_str(), std::strerror(static_cast<int>(-Size))));
  else if (static_cast<uint64_t>(Size) < HeaderBytes)
    S = Status::error(ErrorCode::Corrupt, format("file '%s' is %lld bytes, shorter than its %llu-byte header "
                                                 "(truncated?)",
                                                 Path.c_str(), static_cast<long long>(Size),
                                                 static_cast<unsigned long long>(HeaderBytes)));
  else
    S = readHeader(RT, *F, Path, H);
  F->close();
  return S;
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
      return Status::error(ErrorCode::InUse,
                           format("array '%s' is in use by another process (lock '%s'); processes and MPI ranks "
                                  "that write an array need their own IOPOLY_DIR or their own array names",
                                  A.Name.c_str(), Path.c_str()));
    verbose(format("array '%s': cannot lock '%s' (%s); opened without a lock", A.Name.c_str(), Path.c_str(),
                   std::strerror(E)));
    return {};
  }
  A.LockFd = Fd;
  return {};
}

/// What an array's files look like before it is opened.
struct Scan {
  std::vector<bool> Final, Temp;
  size_t Finals = 0, Temps = 0;
  std::string FirstTemp;
};

Scan scanFiles(const iopoly_array &A) {
  Scan S;
  for (const std::string &Dir : A.Dirs) {
    ArrayFileNames N = arrayFileNames(Dir, A.Name);
    S.Final.push_back(pathExists(N.Data));
    S.Temp.push_back(pathExists(N.DataTemp) || pathExists(N.SumsTemp));
    S.Finals += S.Final.back();
    S.Temps += S.Temp.back();
    if (S.Temp.back() && S.FirstTemp.empty())
      S.FirstTemp = pathExists(N.DataTemp) ? N.DataTemp : N.SumsTemp;
  }
  return S;
}

/// Creates the files of \p A (absent now) under temporary names, syncs and
/// renames them. \p H carries the ids, checksums and origin.
Status createFiles(Runtime &RT, iopoly_array &A, FileHeader H) {
  Backend &B = RT.backend();
  size_t T = A.Dirs.size();
  for (size_t D = 0; D < T; ++D)
    if (Status S = makeDirectories(A.Dirs[D]))
      return Status::wrap(S, format("array '%s': disk %zu: %s", A.Name.c_str(), D, S.message().c_str()));
  auto Undo = [&](const Status &S) {
    (void)removeArrayFiles(A.Dirs, A.Name);
    return Status::wrap(S, format("creating array '%s': %s", A.Name.c_str(), S.message().c_str()));
  };
  for (size_t D = 0; D < T; ++D) {
    ArrayFileNames N = arrayFileNames(A.Dirs[D], A.Name);
    std::unique_ptr<BackendFile> F;
    FileHints Hints{RT.config().StripeSize, D, T};
    Status S = B.open(N.DataTemp, OpenMode::CreateExclusive, Hints, F);
    if (!S) {
      H.DiskIndex = D;
      S = writeHeader(RT, *F, H, N.DataTemp);
    }
    if (!S) {
      int R = F->resize(A.Geo.expectedFileSize(D));
      if (R < 0)
        S = Status::error(ErrorCode::IO, format("cannot size '%s' to %llu bytes: %s", N.DataTemp.c_str(),
                                                static_cast<unsigned long long>(A.Geo.expectedFileSize(D)),
                                                std::strerror(-R)));
    }
    if (!S)
      S = syncFile(*F, N.DataTemp, RT.retryPolicy());
    if (F)
      F->close();
    if (!S && H.Checksums) {
      // Zeros match the zero-filled data (core/Checksum.h).
      int Fd = ::open(N.SumsTemp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (Fd < 0 || ::ftruncate(Fd, static_cast<off_t>(A.Geo.slotsOnDisk(D) * 4)) != 0 || ::fsync(Fd) != 0)
        S = Status::error(ErrorCode::IO, format("cannot create '%s': %s", N.SumsTemp.c_str(), std::strerror(errno)));
      if (Fd >= 0)
        ::close(Fd);
    }
    if (S)
      return Undo(S);
  }
  for (const std::string &Dir : A.Dirs)
    syncDirectory(Dir);
  // The renames: sums first, so that a data file never lacks its sums.
  for (const std::string &Dir : A.Dirs) {
    ArrayFileNames N = arrayFileNames(Dir, A.Name);
    if ((H.Checksums && ::rename(N.SumsTemp.c_str(), N.Sums.c_str()) != 0) ||
        ::rename(N.DataTemp.c_str(), N.Data.c_str()) != 0)
      return Undo(Status::error(ErrorCode::IO, format("cannot rename '%s': %s", N.DataTemp.c_str(),
                                                      std::strerror(errno))));
  }
  for (const std::string &Dir : A.Dirs)
    syncDirectory(Dir);
  verbose(format("created array '%s' (%s x %zu bytes) on %zu disks, creation %s", A.Name.c_str(),
                 A.Geo.dimsString().c_str(), A.Geo.ElemSize, T, H.Creation.c_str()));
  return {};
}

/// The per-disk headers of an existing array: geometry against the current
/// settings (\p Want), then one creation, one commit, clean.
struct Existing {
  std::vector<FileHeader> Headers;
  bool Dirty = false;
  std::string DirtyPath;
  std::vector<std::string> CommitPaths; ///< two files with different commits
};

Status readExisting(Runtime &RT, iopoly_array &A, const Scan &Sc, const FileHeader &Want, bool IgnoreGeometry,
                    bool AllocView, Existing &Out) {
  size_t T = A.Dirs.size();
  // Some files may be new and some old: never mix them.
  if (pathExists(relayoutMarker(A.Dirs.front(), A.Name)))
    return Status::error(ErrorCode::Mismatch,
                         format("array '%s': a conversion by iopoly-relayout was interrupted while it renamed "
                                "the files ('%s' exists): run 'iopoly-relayout %s --to ...' again with the same "
                                "layout to finish it",
                                A.Name.c_str(), relayoutMarker(A.Dirs.front(), A.Name).c_str(), A.Name.c_str()));
  std::string FirstPath;
  for (size_t D = 0; D < T; ++D) {
    if (!Sc.Final[D])
      continue;
    const std::string &Path = A.Paths[D];
    FileHeader H;
    int64_t Size = 0;
    if (Status S = probeFile(RT, Path, D, T, H, Size))
      return Status::wrap(S, format("array '%s': file '%s': %s", A.Name.c_str(), Path.c_str(), S.message().c_str()));
    FileHeader W = Want;
    W.DiskIndex = D;
    // iopoly_alloc's byte view of files whose header records the shape and
    // layout compiled code stores in them (__iopoly_alloc_layout checks it).
    if (AllocView && W.Geo.TotalBytes == H.Geo.TotalBytes) {
      W.Geo.ElemSize = H.Geo.ElemSize;
      W.Geo.Dims = H.Geo.Dims;
      W.Geo.Layout = H.Geo.Layout;
    }
    if (!IgnoreGeometry) {
      std::string Diff = W.mismatch(H);
      if (!Diff.empty())
        return Status::error(ErrorCode::Mismatch, format("array '%s': file '%s' does not match: %s", A.Name.c_str(),
                                                         Path.c_str(), Diff.c_str()));
      uint64_t Expect = A.Geo.expectedFileSize(D);
      if (static_cast<uint64_t>(Size) != Expect)
        return Status::error(ErrorCode::Corrupt,
                             format("array '%s': file '%s' is %lld bytes, expected %llu (%s)", A.Name.c_str(),
                                    Path.c_str(), static_cast<long long>(Size), static_cast<unsigned long long>(Expect),
                                    static_cast<uint64_t>(Size) < Expect ? "short file: data is missing"
                                                                         : "oversized file"));
    }
    if (!Out.Headers.empty()) {
      const FileHeader &F = Out.Headers.front();
      if (H.Creation != F.Creation)
        return Status::error(ErrorCode::Mismatch,
                             format("array '%s': its files belong to different creations: '%s' has creation %s, "
                                    "'%s' has creation %s (were the disk directories of two runs mixed?)",
                                    A.Name.c_str(), FirstPath.c_str(), F.Creation.empty() ? "(none)" : F.Creation.c_str(),
                                    Path.c_str(), H.Creation.empty() ? "(none)" : H.Creation.c_str()));
      // Commits are compared once all headers are read: a commit that was
      // interrupted while its headers were rewritten leaves dirty ones.
      if (H.Commit != F.Commit && Out.CommitPaths.empty())
        Out.CommitPaths = {FirstPath, F.Commit, Path, H.Commit};
    } else {
      FirstPath = Path;
    }
    if (H.Dirty && !Out.Dirty) {
      Out.Dirty = true;
      Out.DirtyPath = Path;
    }
    Out.Headers.push_back(H);
  }
  if (!Out.Dirty && !Out.CommitPaths.empty())
    return Status::error(ErrorCode::Mismatch,
                         format("array '%s': its files hold different committed states: '%s' has commit %s, '%s' has "
                                "commit %s (copies of one array that were written separately, mixed by the disk "
                                "list?)",
                                A.Name.c_str(), Out.CommitPaths[0].c_str(), Out.CommitPaths[1].c_str(),
                                Out.CommitPaths[2].c_str(), Out.CommitPaths[3].c_str()));
  return {};
}

Status uncleanError(const iopoly_array &A, const std::string &Path) {
  return Status::error(
      ErrorCode::Unclean,
      format("array '%s' was being written when its process stopped ('%s' is marked dirty): its files may mix data "
             "from before and after its last iopoly_flush. Run 'iopoly-fsck %s --repair' to keep the data as it is "
             "on disk (and write back blocks an exit saved to a rescue file), 'iopoly-fsck %s --remove' to delete "
             "it, or open it with IOPOLY_CREATE|IOPOLY_TRUNC to start from zeros",
             A.Name.c_str(), Path.c_str(), A.Name.c_str(), A.Name.c_str()));
}

/// Opens the (existing, checked) files of \p A for use.
Status openForUse(Runtime &RT, iopoly_array &A, const FileHeader &H) {
  Backend &B = RT.backend();
  size_t T = A.Dirs.size();
  OpenMode Mode = A.Writable ? OpenMode::ReadWrite : OpenMode::ReadOnly;
  for (size_t D = 0; D < T; ++D) {
    std::unique_ptr<BackendFile> F;
    FileHints Hints{RT.config().StripeSize, D, T};
    if (Status S = B.open(A.Paths[D], Mode, Hints, F)) {
      A.Files.clear();
      return Status::wrap(S, format("array '%s': %s", A.Name.c_str(), S.message().c_str()));
    }
    A.Files.push_back(std::move(F));
  }
  A.Header = H;
  A.StoredElem = H.Geo.ElemSize;
  if (A.Header.Version < 2) {
    // An old array: its first write-back upgrades every header.
    A.Header.Version = 2;
    A.Header.Creation = newRandomId();
    A.Header.Commit = newRandomId();
  }
  A.Journaled = true;
  A.Checksums = H.Checksums;
  if (A.Checksums) {
    A.ZeroCrc = zeroCrc(A.Geo.StripeSize);
    for (size_t D = 0; D < T; ++D) {
      ArrayFileNames N = arrayFileNames(A.Dirs[D], A.Name);
      int Fd = ::open(N.Sums.c_str(), (A.Writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
      struct stat St;
      if (Fd < 0 || ::fstat(Fd, &St) != 0 || static_cast<uint64_t>(St.st_size) != A.Geo.slotsOnDisk(D) * 4) {
        Status S = Status::error(ErrorCode::Corrupt,
                                 format("array '%s' keeps checksums, but '%s' is %s", A.Name.c_str(), N.Sums.c_str(),
                                        Fd < 0 ? std::strerror(errno) : "not the size its data file needs"));
        if (Fd >= 0)
          ::close(Fd);
        return S;
      }
      A.SumFds.push_back(Fd);
      A.SumPaths.push_back(N.Sums);
    }
  }
  return {};
}

Status openArrayFilesLocked(Runtime &RT, iopoly_array &A, int Flags, ArrayOrigin Origin) {
  const Config &C = RT.config();
  size_t T = C.numDisks();
  A.Dirs = C.DiskDirs;
  A.Paths.clear();
  for (const std::string &Dir : A.Dirs)
    A.Paths.push_back(arrayFileNames(Dir, A.Name).Data);
  bool Create = Flags & IOPOLY_CREATE, Trunc = Flags & IOPOLY_TRUNC;
  A.Writable = Create || (Flags & IOPOLY_RDWR);

  FileHeader Want;
  Want.Name = A.Name;
  Want.Geo = A.Geo;
  auto Missing = [&] {
    return Status::error(ErrorCode::NotFound,
                         format("array '%s' does not exist: no file '%s' (use IOPOLY_CREATE to create it)",
                                A.Name.c_str(), A.Paths[0].c_str()));
  };

  Scan Sc = scanFiles(A);
  if (Sc.Finals == 0 && Sc.Temps == 0 && !Create)
    return Missing();
  if (Create)
    if (Status S = makeDirectories(A.Dirs[0]))
      return Status::wrap(S, format("array '%s': disk 0: %s", A.Name.c_str(), S.message().c_str()));
  if (Status S = lockArray(A, A.Dirs[0], Create))
    return S;
  Sc = scanFiles(A); // another process may have changed them before we locked

  FileHeader New = Want;
  New.Creation = newRandomId();
  New.Commit = New.Creation;
  New.Checksums = C.Checksum;
  New.Origin = Origin == ArrayOrigin::Global ? "global" : "api";
  auto CreateNew = [&]() -> Status {
    if (Status S = createFiles(RT, A, New))
      return S;
    if (Status S = openForUse(RT, A, New))
      return S;
    A.allZeroOnDisk();
    return {};
  };

  if (Sc.Temps) {
    // Creation renames every temporary; one left means it was interrupted,
    // and nothing of that array was ever committed.
    if (!Create)
      return Status::error(ErrorCode::Unclean,
                           format("array '%s': its creation was interrupted ('%s' remains, %zu of %zu disk files were "
                                  "renamed): open it with IOPOLY_CREATE to create it again, or remove it with "
                                  "'iopoly-fsck %s --remove'",
                                  A.Name.c_str(), Sc.FirstTemp.c_str(), Sc.Finals, T, A.Name.c_str()));
    warning(format("array '%s': an interrupted creation was found ('%s'); it is created again", A.Name.c_str(),
                   Sc.FirstTemp.c_str()));
    if (Status S = removeArrayFiles(A.Dirs, A.Name))
      return Status::wrap(S, format("array '%s': %s", A.Name.c_str(), S.message().c_str()));
    return CreateNew();
  }
  if (Sc.Finals == 0)
    return Create ? CreateNew() : Missing();

  // Existing files. A global that starts from its initializer every run is
  // created again when an earlier run left it with other settings.
  bool MayRecreateGlobal = Origin == ArrayOrigin::Global && Trunc;
  Existing Ex;
  bool AllocView = Origin == ArrayOrigin::Alloc;
  Status S = readExisting(RT, A, Sc, Want, /*IgnoreGeometry=*/false, AllocView, Ex);
  if (S && MayRecreateGlobal && (S.is(ErrorCode::Mismatch) || S.is(ErrorCode::Corrupt))) {
    Existing Any;
    if (readExisting(RT, A, Sc, Want, /*IgnoreGeometry=*/true, AllocView, Any).ok()) {
      if (Any.Headers.front().Origin != "global")
        return Status::error(ErrorCode::Mismatch,
                             format("%s. The files were not made by a disk-resident global (they were created "
                                    "with iopoly_open or iopoly_alloc and may hold data kept on purpose): the "
                                    "program does not replace them; remove them with 'iopoly-fsck %s --remove' (or "
                                    "move them away) to let it create its global",
                                    S.message().c_str(), A.Name.c_str()));
      warning(format("disk-resident global '%s': the files of an earlier run have other settings (%s); they are "
                     "replaced (a global starts from its initializer every run)",
                     A.Name.c_str(), S.message().c_str()));
      removeStaleDisks(C, A, Any.Headers.front());
      if (Status R = removeArrayFiles(A.Dirs, A.Name))
        return R;
      return CreateNew();
    }
  }
  if (S)
    return S;
  if (Sc.Finals != T) {
    for (size_t D = 0; D < T; ++D)
      if (!Sc.Final[D]) {
        if (Trunc && Create) {
          // Starting from zeros: the array's own remaining files go.
          warning(format("array '%s' is incomplete ('%s' is missing); IOPOLY_TRUNC creates it again",
                         A.Name.c_str(), A.Paths[D].c_str()));
          if (Status R = removeArrayFiles(A.Dirs, A.Name))
            return R;
          return CreateNew();
        }
        return Status::error(ErrorCode::Mismatch,
                             format("array '%s' is incomplete: '%s' is missing while %zu of its %zu disk files exist "
                                    "(were the disk directories changed?)",
                                    A.Name.c_str(), A.Paths[D].c_str(), Sc.Finals, T));
      }
  }
  if (Trunc && Create) {
    // IOPOLY_TRUNC: a new creation (new id), crash-safe like any other.
    if (Status R = removeArrayFiles(A.Dirs, A.Name))
      return Status::wrap(R, format("array '%s': %s", A.Name.c_str(), R.message().c_str()));
    return CreateNew();
  }
  if (Ex.Dirty)
    return uncleanError(A, Ex.DirtyPath);
  FileHeader H = Ex.Headers.front();
  H.DiskIndex = 0;
  return openForUse(RT, A, H);
}

} // namespace

ArrayFileNames arrayFileNames(const std::string &Dir, const std::string &Name) {
  ArrayFileNames N;
  N.Data = Dir + "/" + Name + ".iop";
  N.DataTemp = N.Data + ".creating";
  N.Sums = Dir + "/" + Name + ".sum";
  N.SumsTemp = N.Sums + ".creating";
  N.Lock = Dir + "/" + Name + ".lock";
  return N;
}

Status removeArrayFiles(const std::vector<std::string> &Dirs, const std::string &Name) {
  // Two phases, so that a crash in the middle leaves what an interrupted
  // creation leaves (temporaries) and never a subset of final files that
  // would read as an incomplete array: first every file is renamed to its
  // temporary name, then the temporaries go.
  Status First;
  auto Note = [&](const std::string &What, const std::string &P) {
    if (errno != ENOENT && First.ok())
      First = Status::error(ErrorCode::IO, format("cannot %s '%s': %s", What.c_str(), P.c_str(), std::strerror(errno)));
  };
  std::vector<bool> Touched(Dirs.size(), false);
  for (size_t K = 0; K < Dirs.size(); ++K) {
    ArrayFileNames N = arrayFileNames(Dirs[K], Name);
    for (auto Pair : {std::make_pair(&N.Data, &N.DataTemp), std::make_pair(&N.Sums, &N.SumsTemp)}) {
      if (::rename(Pair.first->c_str(), Pair.second->c_str()) == 0)
        Touched[K] = true;
      else
        Note("rename", *Pair.first);
    }
  }
  for (size_t K = 0; K < Dirs.size(); ++K)
    if (Touched[K])
      syncDirectory(Dirs[K]);
  for (size_t K = 0; K < Dirs.size(); ++K) {
    ArrayFileNames N = arrayFileNames(Dirs[K], Name);
    for (const std::string *P : {&N.DataTemp, &N.SumsTemp}) {
      if (::unlink(P->c_str()) == 0)
        Touched[K] = true;
      else
        Note("remove", *P);
    }
    if (Touched[K])
      syncDirectory(Dirs[K]);
  }
  return First;
}

/// When IOPOLY_DISKS is a count and an earlier creation used more disks,
/// its files in the disk directories beyond the current count go too.
void removeStaleDisks(const Config &C, const iopoly_array &A, const FileHeader &Old) {
  const std::string Spec = C.DisksSpec;
  if (Spec.empty() || Spec.find_first_not_of("0123456789 \t") != std::string::npos)
    return;
  std::vector<std::string> Extra;
  for (size_t D = A.Dirs.size(); D < Old.Geo.NumDisks && D < 4096; ++D)
    Extra.push_back(C.Dir + "/disk" + std::to_string(D));
  (void)removeArrayFiles(Extra, A.Name);
}

Status openArrayFiles(Runtime &RT, iopoly_array &A, int Flags, ArrayOrigin Origin) {
  Status S = openArrayFilesLocked(RT, A, Flags, Origin);
  if (S) {
    for (auto &F : A.Files)
      F->close();
    A.Files.clear();
    for (int Fd : A.SumFds)
      ::close(Fd);
    A.SumFds.clear();
    if (A.LockFd >= 0) {
      ::close(A.LockFd);
      A.LockFd = -1;
    }
  }
  return S;
}

Status closeArrayFiles(Runtime &RT, iopoly_array &A) {
  Status First;
  for (size_t D = 0; D < A.Files.size(); ++D) {
    int R = A.Files[D]->close();
    if (R < 0 && First.ok())
      First = Status::error(ErrorCode::IO, format("closing '%s': %s", A.Paths[D].c_str(), std::strerror(-R)));
  }
  A.Files.clear();
  for (size_t D = 0; D < A.SumFds.size(); ++D)
    if (::close(A.SumFds[D]) != 0 && First.ok())
      First = Status::error(ErrorCode::IO, format("closing '%s': %s", A.SumPaths[D].c_str(), std::strerror(errno)));
  A.SumFds.clear();
  if (A.LockFd >= 0) {
    ::close(A.LockFd);
    A.LockFd = -1;
  }
  (void)RT;
  return First;
}

} // namespace iopoly
