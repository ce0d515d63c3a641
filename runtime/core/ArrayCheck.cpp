//===- ArrayCheck.cpp - Inspecting, repairing and removing arrays ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/ArrayCheck.h"
#include "core/Array.h"
#include "core/Checksum.h"
#include "core/Rescue.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace iopoly {

namespace {

bool exists(const std::string &P) {
  struct stat St;
  return ::lstat(P.c_str(), &St) == 0;
}

/// An open file descriptor, closed on scope exit.
struct Fd {
  int V = -1;
  explicit Fd(int X = -1) : V(X) {}
  ~Fd() {
    if (V >= 0)
      ::close(V);
  }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
};

Status readHeaderOf(const std::string &Path, FileHeader &H, int64_t &Size) {
  Fd F(::open(Path.c_str(), O_RDONLY | O_CLOEXEC));
  if (F.V < 0)
    return Status::error(ErrorCode::IO, format("cannot open '%s': %s", Path.c_str(), std::strerror(errno)));
  struct stat St;
  if (::fstat(F.V, &St) != 0)
    return Status::error(ErrorCode::IO, format("cannot stat '%s': %s", Path.c_str(), std::strerror(errno)));
  Size = St.st_size;
  std::string Buf(HeaderBytes, '\0');
  ssize_t N = ::pread(F.V, &Buf[0], HeaderBytes, 0);
  if (N != static_cast<ssize_t>(HeaderBytes))
    return Status::error(ErrorCode::Corrupt, format("'%s' is shorter than its %llu-byte header", Path.c_str(),
                                                    static_cast<unsigned long long>(HeaderBytes)));
  if (Status S = FileHeader::decode(Buf.data(), Buf.size(), H))
    return Status::wrap(S, format("'%s': %s", Path.c_str(), S.message().c_str()));
  return {};
}

Status writeHeaderTo(int FdV, const FileHeader &H, const std::string &Path) {
  std::string Bytes = H.encode();
  if (::pwrite(FdV, Bytes.data(), Bytes.size(), 0) != static_cast<ssize_t>(Bytes.size()) || ::fsync(FdV) != 0)
    return Status::error(ErrorCode::IO, format("cannot write the header of '%s': %s", Path.c_str(),
                                               std::strerror(errno)));
  return {};
}

/// The exclusive lock every writer of the array takes (ArrayFiles.cpp).
Status lockExclusive(const std::vector<std::string> &Dirs, const std::string &Name, Fd &Lock) {
  std::string Path = arrayFileNames(Dirs[0], Name).Lock;
  Lock.V = ::open(Path.c_str(), O_RDWR | O_CLOEXEC);
  if (Lock.V < 0)
    return {}; // no lock file: no program has it open now
  if (::flock(Lock.V, LOCK_EX | LOCK_NB) != 0)
    return Status::error(ErrorCode::InUse, format("array '%s' is in use by another process (lock '%s')",
                                                  Name.c_str(), Path.c_str()));
  return {};
}

std::string stateName(ArrayState S) {
  switch (S) {
  case ArrayState::Absent: return "absent";
  case ArrayState::Clean: return "clean";
  case ArrayState::Dirty: return "dirty";
  case ArrayState::Interrupted: return "interrupted creation";
  case ArrayState::Incomplete: return "incomplete";
  case ArrayState::Mixed: return "mixed files";
  case ArrayState::Mismatch: return "other settings";
  case ArrayState::Damaged: return "damaged";
  }
  return "?";
}

} // namespace

Status inspectArray(const Config &C, const std::string &Name, ArrayInspection &Out) {
  if (Status S = checkArrayName(Name.c_str()))
    return S;
  ArrayInspection I;
  const std::vector<std::string> &Dirs = C.DiskDirs;
  size_t T = Dirs.size();
  I.Rescues = findRescueFiles(rescueDirs(Dirs, C.Dir), Name);
  auto Set = [&](ArrayState S, const std::string &Detail) {
    I.State = S;
    I.Summary = format("array '%s': %s: %s", Name.c_str(), stateName(S).c_str(), Detail.c_str());
    Out = I;
    return Status();
  };
  std::vector<std::string> Temps, Finals;
  size_t Present = 0;
  for (const std::string &Dir : Dirs) {
    ArrayFileNames N = arrayFileNames(Dir, Name);
    if (exists(N.DataTemp))
      Temps.push_back(N.DataTemp);
    if (exists(N.SumsTemp))
      Temps.push_back(N.SumsTemp);
    Finals.push_back(exists(N.Data) ? N.Data : "");
    Present += !Finals.back().empty();
  }
  if (!Temps.empty())
    return Set(ArrayState::Interrupted,
               format("its creation did not finish ('%s' remains, %zu of %zu disk files were renamed); nothing of it "
                      "was committed. 'iopoly-fsck %s --repair' (or --remove) deletes it; IOPOLY_CREATE creates it "
                      "again",
                      Temps.front().c_str(), Present, T, Name.c_str()));
  if (Present == 0) {
    I.State = ArrayState::Absent;
    I.Summary = format("array '%s' does not exist: no file '%s'%s", Name.c_str(), arrayFileNames(Dirs[0], Name).Data.c_str(),
                       I.Rescues.empty() ? "" : format(" (but rescue file '%s' exists)", I.Rescues[0].c_str()).c_str());
    Out = I;
    return {};
  }
  std::vector<FileHeader> Hs(T);
  std::string First, Dirty, CommitDiff;
  for (size_t D = 0; D < T; ++D) {
    if (Finals[D].empty())
      continue;
    int64_t Size = 0;
    if (Status S = readHeaderOf(Finals[D], Hs[D], Size))
      return Set(ArrayState::Damaged, S.message());
    const FileHeader &H = Hs[D];
    if (First.empty()) {
      First = Finals[D];
      I.Header = H;
    }
    if (H.Geo.NumDisks != T)
      return Set(ArrayState::Mismatch, format("'%s' was made for %zu disks; IOPOLY_DISKS gives %zu",
                                              Finals[D].c_str(), H.Geo.NumDisks, T));
    if (H.DiskIndex != D)
      return Set(ArrayState::Mismatch, format("'%s' is disk %zu of its array but is listed as disk %zu (disk "
                                              "directories listed in another order?)",
                                              Finals[D].c_str(), H.DiskIndex, D));
    if (H.Geo.StripeSize != C.StripeSize)
      return Set(ArrayState::Mismatch, format("'%s' was made with %zu-byte stripes; IOPOLY_STRIPE gives %zu",
                                              Finals[D].c_str(), H.Geo.StripeSize, C.StripeSize));
    if (static_cast<uint64_t>(Size) != H.Geo.expectedFileSize(D))
      return Set(ArrayState::Damaged, format("'%s' is %lld bytes, its header needs %llu", Finals[D].c_str(),
                                             static_cast<long long>(Size),
                                             static_cast<unsigned long long>(H.Geo.expectedFileSize(D))));
    if (H.Creation != I.Header.Creation)
      return Set(ArrayState::Mixed, format("its files belong to different creations ('%s': %s, '%s': %s): disk "
                                           "directories of two runs mixed? Not repairable by choosing one; fix "
                                           "IOPOLY_DISKS, or --remove",
                                           First.c_str(), I.Header.Creation.c_str(), Finals[D].c_str(),
                                           H.Creation.c_str()));
    if (H.Commit != I.Header.Commit && CommitDiff.empty())
      CommitDiff = format("its files hold different committed states ('%s': %s, '%s': %s); fix IOPOLY_DISKS, or "
                          "--remove",
                          First.c_str(), I.Header.Commit.c_str(), Finals[D].c_str(), H.Commit.c_str());
    if (H.Dirty && Dirty.empty())
      Dirty = Finals[D];
    if (H.Checksums) {
      ArrayFileNames N = arrayFileNames(Dirs[D], Name);
      struct stat St;
      if (::stat(N.Sums.c_str(), &St) != 0 || static_cast<uint64_t>(St.st_size) != H.Geo.slotsOnDisk(D) * 4)
        return Set(ArrayState::Damaged, format("'%s' is missing or has the wrong size", N.Sums.c_str()));
    }
  }
  // Different commits with a dirty header: a commit interrupted while it
  // rewrote the headers (they are written one disk after the other).
  if (!CommitDiff.empty() && Dirty.empty())
    return Set(ArrayState::Mixed, CommitDiff);
  for (size_t D = 0; D < T; ++D)
    if (Finals[D].empty())
      return Set(ArrayState::Incomplete, format("'%s' is missing (%zu of %zu disk files exist); were the disk "
                                                "directories changed?",
                                                arrayFileNames(Dirs[D], Name).Data.c_str(), Present, T));
  std::string Desc = format("%zu blocks of %zu bytes on %zu disks (%s x %zu bytes), creation %s, commit %s, "
                            "checksums %s",
                            I.Header.Geo.numStripes(), I.Header.Geo.StripeSize, T,
                            I.Header.Geo.dimsString().c_str(), I.Header.Geo.ElemSize,
                            I.Header.Creation.empty() ? "(version 1)" : I.Header.Creation.c_str(),
                            I.Header.Commit.empty() ? "(version 1)" : I.Header.Commit.c_str(),
                            I.Header.Checksums ? "crc32c" : "none");
  for (const std::string &R : I.Rescues)
    Desc += format("; rescue file '%s' holds blocks not yet written back (--repair writes them)", R.c_str());
  if (!Dirty.empty())
    return Set(ArrayState::Dirty, format("'%s' is marked dirty: its process stopped during a write-back, so its "
                                         "files may mix data from before and after its last iopoly_flush. "
                                         "'iopoly-fsck %s --repair' keeps the data as it is on disk, --remove deletes "
                                         "it; %s",
                                         Dirty.c_str(), Name.c_str(), Desc.c_str()));
  return Set(ArrayState::Clean, Desc);
}

Status repairArray(const Config &C, const std::string &Name, std::string &Report) {
  if (Status S = checkArrayName(Name.c_str()))
    return S;
  Fd Lock;
  if (Status S = lockExclusive(C.DiskDirs, Name, Lock))
    return S;
  ArrayInspection I;
  if (Status S = inspectArray(C, Name, I))
    return S;
  switch (I.State) {
  case ArrayState::Absent:
    return Status::error(ErrorCode::NotFound, I.Summary + "; nothing to repair");
  case ArrayState::Interrupted:
    if (Status S = removeArrayFiles(C.DiskDirs, Name))
      return S;
    Report = format("array '%s': its creation was interrupted: nothing of it was committed; its files were removed "
                    "(IOPOLY_CREATE creates it again)",
                    Name.c_str());
    return {};
  case ArrayState::Clean:
    if (I.Rescues.empty()) {
      Report = I.Summary + "; nothing to repair";
      return {};
    }
    break;
  case ArrayState::Dirty:
    break;
  default:
    return Status::error(ErrorCode::Mismatch, I.Summary + "; not repaired");
  }

  const std::vector<std::string> &Dirs = C.DiskDirs;
  size_t T = Dirs.size();
  FileHeader H = I.Header;
  const Geometry &G = H.Geo;
  std::vector<std::unique_ptr<Fd>> Files, Sums;
  for (size_t D = 0; D < T; ++D) {
    ArrayFileNames N = arrayFileNames(Dirs[D], Name);
    Files.push_back(std::make_unique<Fd>(::open(N.Data.c_str(), O_RDWR | O_CLOEXEC)));
    if (Files.back()->V < 0)
      return Status::error(ErrorCode::IO, format("cannot open '%s': %s", N.Data.c_str(), std::strerror(errno)));
    if (H.Checksums) {
      Sums.push_back(std::make_unique<Fd>(::open(N.Sums.c_str(), O_RDWR | O_CLOEXEC)));
      if (Sums.back()->V < 0)
        return Status::error(ErrorCode::IO, format("cannot open '%s': %s", N.Sums.c_str(), std::strerror(errno)));
    }
  }
  Report = format("array '%s': repaired: the data is kept as it is on disk", Name.c_str());
  // Rescued blocks first, oldest file first: they are newer than the disk.
  std::vector<std::string> Applied;
  for (const std::string &P : I.Rescues) {
    RescueFile R;
    if (Status S = readRescueFile(P, R)) {
      Report += format("; rescue file skipped: %s", S.message().c_str());
      continue;
    }
    if (R.Name != Name || (!H.Creation.empty() && R.Creation != H.Creation) || R.StripeSize != G.StripeSize) {
      Report += format("; rescue file '%s' belongs to another creation of '%s' and was left alone", P.c_str(),
                       Name.c_str());
      continue;
    }
    for (const RescueBlock &B : R.Blocks) {
      if (B.Block >= G.numStripes() || B.Bytes.size() != G.stripeBytes(B.Block))
        return Status::error(ErrorCode::Corrupt, format("rescue file '%s': block %llu does not fit array '%s'",
                                                        P.c_str(), static_cast<unsigned long long>(B.Block),
                                                        Name.c_str()));
      int FdV = Files[G.diskOf(B.Block)]->V;
      if (::pwrite(FdV, B.Bytes.data(), B.Bytes.size(), static_cast<off_t>(G.fileOffset(B.Block))) !=
          static_cast<ssize_t>(B.Bytes.size()))
        return Status::error(ErrorCode::IO, format("cannot write block %llu of array '%s' back: %s",
                                                   static_cast<unsigned long long>(B.Block), Name.c_str(),
                                                   std::strerror(errno)));
    }
    Report += format("; wrote back %zu block(s) from the rescue file '%s'", R.Blocks.size(), P.c_str());
    Applied.push_back(P);
  }
  // Sums rebuilt from the data: after a crash a sum may predate its block.
  if (H.Checksums) {
    uint32_t Zero = zeroCrc(G.StripeSize);
    std::string Buf(G.StripeSize, '\0');
    size_t Differ = 0;
    for (size_t B = 0; B < G.numStripes(); ++B) {
      size_t D = G.diskOf(B);
      if (::pread(Files[D]->V, &Buf[0], G.StripeSize, static_cast<off_t>(G.fileOffset(B))) !=
          static_cast<ssize_t>(G.StripeSize))
        return Status::error(ErrorCode::IO, format("cannot read block %zu of array '%s': %s", B, Name.c_str(),
                                                   std::strerror(errno)));
      uint32_t Sum = stripeSum(Buf.data(), Buf.size(), Zero), Old = 0;
      off_t At = static_cast<off_t>(G.slotOf(B) * 4);
      if (::pread(Sums[D]->V, &Old, 4, At) != 4 || Old != Sum) {
        ++Differ;
        if (::pwrite(Sums[D]->V, &Sum, 4, At) != 4)
          return Status::error(ErrorCode::IO, format("cannot write a checksum of array '%s': %s", Name.c_str(),
                                                     std::strerror(errno)));
      }
    }
    Report += format("; checksums rebuilt (%zu block(s) did not match their old sum: written after it, or torn)",
                     Differ);
  }
  for (size_t D = 0; D < T; ++D)
    if (::fsync(Files[D]->V) != 0 || (H.Checksums && ::fsync(Sums[D]->V) != 0))
      return Status::error(ErrorCode::IO, format("cannot sync the files of array '%s': %s", Name.c_str(),
                                                 std::strerror(errno)));
  // Clean headers with a new commit (a version-1 array becomes version 2).
  if (H.Version < 2 || H.Creation.empty()) {
    H.Version = 2;
    H.Creation = newRandomId();
  }
  H.Dirty = false;
  H.Commit = newRandomId();
  for (size_t D = 0; D < T; ++D) {
    H.DiskIndex = D;
    if (Status S = writeHeaderTo(Files[D]->V, H, arrayFileNames(Dirs[D], Name).Data))
      return S;
  }
  for (const std::string &P : Applied)
    ::unlink(P.c_str());
  return {};
}

Status removeArray(const Config &C, const std::string &Name, std::string &Report) {
  if (Status S = checkArrayName(Name.c_str()))
    return S;
  Fd Lock;
  if (Status S = lockExclusive(C.DiskDirs, Name, Lock))
    return S;
  size_t N = 0;
  for (const std::string &Dir : C.DiskDirs) {
    ArrayFileNames F = arrayFileNames(Dir, Name);
    for (const std::string *P : {&F.Data, &F.DataTemp, &F.Sums, &F.SumsTemp})
      N += exists(*P);
  }
  if (Status S = removeArrayFiles(C.DiskDirs, Name))
    return S;
  std::vector<std::string> Rescues = findRescueFiles(rescueDirs(C.DiskDirs, C.Dir), Name);
  for (const std::string &P : Rescues)
    if (::unlink(P.c_str()) == 0)
      ++N;
  Report = N ? format("array '%s': removed (%zu files)", Name.c_str(), N)
             : format("array '%s' does not exist; nothing removed", Name.c_str());
  return {};
}

} // namespace iopoly
