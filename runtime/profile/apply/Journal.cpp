//===- Journal.cpp - Crash safety of node-local data -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "apply/Journal.h"
#include "core/OutputFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace iopoly::prof {

namespace {

constexpr uint32_t kJMagic = 0x4a504f49; // "IOPJ"
enum : uint8_t { JHead = 1, JRun, JDirty, JValid, JClean, JDefer, JTrunc };

#pragma pack(push, 1)
struct JRec {
  uint32_t Magic;
  uint8_t Kind, Pad[3];
  uint64_t A, B, C, D;
  uint32_t Crc, Pad2;
};
#pragma pack(pop)
static_assert(sizeof(JRec) == 48, "journal record");

uint32_t crc32(const void *P, size_t N, uint32_t Crc = 0) {
  const unsigned char *B = static_cast<const unsigned char *>(P);
  Crc = ~Crc;
  for (size_t I = 0; I < N; ++I) {
    Crc ^= B[I];
    for (int K = 0; K < 8; ++K)
      Crc = (Crc >> 1) ^ (0xEDB88320u & (0u - (Crc & 1)));
  }
  return ~Crc;
}

uint32_t recCrc(const JRec &R, const std::string &Extra) {
  JRec C = R;
  C.Crc = 0;
  return crc32(Extra.data(), Extra.size(), crc32(&C, sizeof C));
}

ssize_t rawWrite(int Fd, const void *P, size_t N) { return syscall(SYS_write, Fd, P, N); }

Error writeFull(int Fd, const void *P, size_t N, const std::string &Path) {
  const char *C = static_cast<const char *>(P);
  while (N) {
    ssize_t W = rawWrite(Fd, C, N);
    if (W < 0 && errno == EINTR)
      continue;
    if (W <= 0)
      return Error(Errc::Io, strf("journal '%s': write failed: %s", Path.c_str(), std::strerror(errno)));
    C += W;
    N -= static_cast<size_t>(W);
  }
  return Error();
}

std::string padded(const std::string &S) {
  std::string P = S;
  P.resize((S.size() + 7) / 8 * 8, '\0');
  return P;
}

void addRange(RangeMap &M, uint64_t Off, uint64_t Len, uint64_t Local) {
  M[static_cast<int64_t>(Local) - static_cast<int64_t>(Off)].insert(Off, Off + Len);
}

void eraseEverywhere(RangeMap &M, uint64_t Lo, uint64_t Hi) {
  for (auto &[D, S] : M)
    S.erase(Lo, Hi);
}

uint64_t bytesOf(const RangeMap &M) {
  uint64_t N = 0;
  for (auto &[D, S] : M)
    N += S.bytes();
  return N;
}

} // namespace

FileStamp stampOf(const std::string &Path) {
  FileStamp S;
  struct stat St;
  if (stat(Path.c_str(), &St) != 0)
    return S;
  S.Known = true;
  S.Size = static_cast<uint64_t>(St.st_size);
  S.MtimeNs = static_cast<uint64_t>(St.st_mtim.tv_sec) * 1000000000ull + static_cast<uint64_t>(St.st_mtim.tv_nsec);
  S.Ino = St.st_ino;
  S.Dev = St.st_dev;
  return S;
}

const char *runEndName(RunEnd E) {
  switch (E) {
  case RunEnd::Never: return "never run";
  case RunEnd::Crashed: return "crashed (no clean close)";
  case RunEnd::Clean: return "clean";
  case RunEnd::Deferred: return "closed without gather";
  }
  return "?";
}

uint64_t JournalState::dirtyBytes() const { return bytesOf(Dirty); }
uint64_t JournalState::validBytes() const { return bytesOf(Valid); }

Error readJournal(const std::string &Path, JournalState &Out) {
  int Fd = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return Error(errno == ENOENT ? Errc::NotFound : Errc::Io,
                 strf("cannot open the journal '%s': %s", Path.c_str(), std::strerror(errno)));
  std::string Data;
  char Buf[1 << 16];
  for (;;) {
    ssize_t N = ::read(Fd, Buf, sizeof Buf);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0) {
      int E = errno;
      ::close(Fd);
      return Error(Errc::Io, strf("cannot read the journal '%s': %s", Path.c_str(), std::strerror(E)));
    }
    if (N == 0)
      break;
    Data.append(Buf, static_cast<size_t>(N));
  }
  ::close(Fd);
  JournalState S;
  size_t Pos = 0;
  bool Head = false;
  while (Pos + sizeof(JRec) <= Data.size()) {
    JRec R;
    std::memcpy(&R, Data.data() + Pos, sizeof R);
    if (R.Magic != kJMagic)
      break; // torn or garbage tail
    std::string Extra;
    size_t Len = sizeof R;
    if (R.Kind == JHead) {
      size_t PL = (R.D + 7) / 8 * 8;
      if (R.D > 65536 || Pos + sizeof R + PL > Data.size())
        break;
      Extra = Data.substr(Pos + sizeof R, PL);
      Len += PL;
    }
    if (recCrc(R, Extra) != R.Crc)
      break;
    Pos += Len;
    switch (R.Kind) {
    case JHead:
      Head = true;
      S.Rank = static_cast<uint32_t>(R.A);
      S.NRanks = static_cast<uint32_t>(R.B);
      S.Layout = R.C;
      S.SharedPath = Extra.substr(0, R.D);
      break;
    case JRun:
      S.End = RunEnd::Crashed; // until a CLEAN or DEFER follows
      break;
    case JDirty:
      addRange(S.Dirty, R.A, R.B, R.C);
      break;
    case JValid:
      addRange(S.Valid, R.A, R.B, R.C);
      break;
    case JClean:
    case JDefer:
      S.End = R.Kind == JClean ? RunEnd::Clean : RunEnd::Deferred;
      S.Stamp.Known = R.A || R.B || R.C || R.D;
      S.Stamp.Size = R.A;
      S.Stamp.MtimeNs = R.B;
      S.Stamp.Ino = R.C;
      S.Stamp.Dev = R.D;
      if (R.Kind == JClean) { // everything dirty is now in the shared file
        for (auto &[D, Set] : S.Dirty)
          for (const Range &X : Set.ranges())
            S.Valid[D].insert(X.Lo, X.Hi);
        S.Dirty.clear();
      }
      break;
    case JTrunc:
      eraseEverywhere(S.Dirty, R.A, UINT64_MAX);
      eraseEverywhere(S.Valid, R.A, UINT64_MAX);
      break;
    default:
      break;
    }
  }
  if (!Head)
    return Error(Errc::Format, strf("'%s' is not an iopoly journal (no header)", Path.c_str()));
  Out = std::move(S);
  return Error();
}

Error Journal::open(const std::string &P, const std::string &Sh, uint32_t R, uint32_t N, uint64_t L) {
  std::lock_guard<std::mutex> G(Mu);
  Path = P;
  Shared = Sh;
  Rank = R;
  NRanks = N;
  Layout = L;
  Fd = static_cast<int>(syscall(SYS_openat, AT_FDCWD, P.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
  if (Fd < 0)
    return Error(Errc::Io, strf("cannot open the journal '%s': %s", P.c_str(), std::strerror(errno)));
  struct stat St;
  if (fstat(Fd, &St) == 0 && St.st_size == 0) {
    JRec H{};
    H.Magic = kJMagic;
    H.Kind = JHead;
    H.A = R;
    H.B = N;
    H.C = L;
    H.D = Sh.size();
    std::string Extra = padded(Sh);
    H.Crc = recCrc(H, Extra);
    std::string All(reinterpret_cast<char *>(&H), sizeof H);
    All += Extra;
    return writeFull(Fd, All.data(), All.size(), Path);
  }
  return Error();
}

Error Journal::append(uint8_t Kind, uint64_t A, uint64_t B, uint64_t C, uint64_t D) {
  JRec R{};
  R.Magic = kJMagic;
  R.Kind = Kind;
  R.A = A;
  R.B = B;
  R.C = C;
  R.D = D;
  R.Crc = recCrc(R, "");
  std::lock_guard<std::mutex> G(Mu);
  if (Fd < 0)
    return Error(Errc::Io, strf("journal '%s' is not open", Path.c_str()));
  return writeFull(Fd, &R, sizeof R, Path);
}

Error Journal::beginRun(uint64_t RunId) { return append(JRun, RunId, 0, 0, 0); }
Error Journal::dirty(uint64_t Off, uint64_t Len, uint64_t Local) { return append(JDirty, Off, Len, Local, 0); }
Error Journal::truncate(uint64_t Size) { return append(JTrunc, Size, 0, 0, 0); }

Error Journal::sync() {
  std::lock_guard<std::mutex> G(Mu);
  if (Fd >= 0 && fdatasync(Fd) != 0)
    return Error(Errc::Io, strf("journal '%s': fdatasync failed: %s", Path.c_str(), std::strerror(errno)));
  return Error();
}

Error Journal::compact(const RangeMap &Valid, const RangeMap &Dirty, bool Deferred, const FileStamp &St) {
  std::string All;
  auto Put = [&](uint8_t Kind, uint64_t A, uint64_t B, uint64_t C, uint64_t D, const std::string &Extra) {
    JRec R{};
    R.Magic = kJMagic;
    R.Kind = Kind;
    R.A = A;
    R.B = B;
    R.C = C;
    R.D = D;
    R.Crc = recCrc(R, Extra);
    All.append(reinterpret_cast<char *>(&R), sizeof R);
    All += Extra;
  };
  Put(JHead, Rank, NRanks, Layout, Shared.size(), padded(Shared));
  for (auto &[D, S] : Valid)
    for (const Range &X : S.ranges())
      Put(JValid, X.Lo, X.size(), static_cast<uint64_t>(static_cast<int64_t>(X.Lo) + D), 0, "");
  if (Deferred)
    for (auto &[D, S] : Dirty)
      for (const Range &X : S.ranges())
        Put(JDirty, X.Lo, X.size(), static_cast<uint64_t>(static_cast<int64_t>(X.Lo) + D), 0, "");
  Put(Deferred ? JDefer : JClean, St.Size, St.MtimeNs, St.Ino, St.Dev, "");
  // A temporary beside the journal's target, fsynced, renamed over it, the
  // directory fsynced: a crash leaves the old journal or the new one. A
  // symbolic link stays one (appends went through it too).
  if (iopoly::Status S = iopoly::writeWholeFile(Path, All, "the journal"))
    return Error(Errc::Io, S.message());
  // Keep appending to the new file.
  std::lock_guard<std::mutex> G(Mu);
  if (Fd >= 0)
    ::close(Fd);
  Fd = static_cast<int>(syscall(SYS_openat, AT_FDCWD, Path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC, 0644));
  if (Fd < 0)
    return Error(Errc::Io, strf("cannot reopen the journal '%s': %s", Path.c_str(), std::strerror(errno)));
  return Error();
}

void Journal::close() {
  std::lock_guard<std::mutex> G(Mu);
  if (Fd >= 0)
    ::close(Fd);
  Fd = -1;
}

Error replayDirty(const JournalState &J, const std::string &Store, uint64_t &Bytes) {
  Bytes = 0;
  if (J.Dirty.empty())
    return Error();
  int In = ::open(Store.c_str(), O_RDONLY | O_CLOEXEC);
  if (In < 0)
    return Error(Errc::Io, strf("cannot open the local file '%s': %s", Store.c_str(), std::strerror(errno)));
  int Out = ::open(J.SharedPath.c_str(), O_WRONLY | O_CLOEXEC);
  if (Out < 0) {
    int E = errno;
    ::close(In);
    return Error(Errc::Io, strf("cannot open the shared file '%s' for writing: %s", J.SharedPath.c_str(),
                                std::strerror(E)));
  }
  std::vector<char> Buf(4 << 20);
  Error Err;
  for (auto &[D, S] : J.Dirty) {
    for (const Range &X : S.ranges()) {
      for (uint64_t Off = X.Lo; Off < X.Hi && !Err;) {
        size_t N = static_cast<size_t>(std::min<uint64_t>(Buf.size(), X.Hi - Off));
        ssize_t R = pread(In, Buf.data(), N, static_cast<off_t>(static_cast<int64_t>(Off) + D));
        if (R < 0 && errno == EINTR)
          continue;
        if (R < 0) {
          Err = Error(Errc::Io, strf("reading '%s': %s", Store.c_str(), std::strerror(errno)));
          break;
        }
        if (static_cast<size_t>(R) < N) // never written locally beyond: zeros (a hole)
          std::memset(Buf.data() + R, 0, N - static_cast<size_t>(R));
        size_t Done = 0;
        while (Done < N) {
          ssize_t W = pwrite(Out, Buf.data() + Done, N - Done, static_cast<off_t>(Off + Done));
          if (W < 0 && errno == EINTR)
            continue;
          if (W <= 0) {
            Err = Error(Errc::Io, strf("writing '%s' at %llu: %s", J.SharedPath.c_str(),
                                       static_cast<unsigned long long>(Off + Done), std::strerror(errno)));
            break;
          }
          Done += static_cast<size_t>(W);
        }
        Off += N;
        Bytes += N;
      }
    }
  }
  if (!Err && fsync(Out) != 0)
    Err = Error(Errc::Io, strf("fsync of '%s' failed: %s", J.SharedPath.c_str(), std::strerror(errno)));
  ::close(In);
  ::close(Out);
  return Err;
}

std::vector<std::string> findJournals(const std::string &Dir) {
  std::vector<std::string> Out;
  DIR *D = opendir(Dir.c_str());
  if (!D)
    return Out;
  while (struct dirent *E = readdir(D)) {
    std::string N = E->d_name;
    if (N.size() > 8 && N.compare(N.size() - 8, 8, ".journal") == 0)
      Out.push_back(Dir + "/" + N);
  }
  closedir(D);
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::string storeOfJournal(const std::string &J) { return J.substr(0, J.size() - 8) + ".part"; }

} // namespace iopoly::prof
