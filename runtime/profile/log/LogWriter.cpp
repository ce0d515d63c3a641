//===- LogWriter.cpp - Writes one section of a profile log -----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "log/LogWriter.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace iopoly::prof {

namespace {
constexpr size_t kBufBytes = 1 << 20;

/// write(2) without going through an interposed write().
ssize_t rawWrite(int Fd, const void *P, size_t N) {
  return syscall(SYS_write, Fd, P, N);
}

Error writeAll(int Fd, const char *P, size_t N, const std::string &Path) {
  while (N) {
    ssize_t W = rawWrite(Fd, P, N);
    if (W < 0 && errno == EINTR)
      continue;
    if (W <= 0)
      return Error(Errc::Io, strf("profile log '%s': write failed: %s", Path.c_str(),
                                  W < 0 ? std::strerror(errno) : "no progress"));
    P += W;
    N -= static_cast<size_t>(W);
  }
  return Error();
}
} // namespace

std::vector<char> encodeHeader(const SectionInfo &I) {
  HeaderFixed H{};
  std::memcpy(H.Magic, kLogMagic, sizeof H.Magic);
  H.Version = kLogVersion;
  H.Rank = I.Rank;
  H.NRanks = I.NRanks;
  H.Pid = I.Pid;
  H.Flags = I.Flags;
  H.RunId = I.RunId;
  H.T0RealtimeNs = I.T0RealtimeNs;
  auto Cap = [](const std::string &S) { return static_cast<uint16_t>(S.size() > 4096 ? 4096 : S.size()); };
  H.HostLen = Cap(I.Host);
  H.ProgLen = Cap(I.Program);
  H.LocalLen = Cap(I.LocalDir);
  H.Bytes = static_cast<uint32_t>(sizeof H + H.HostLen + H.ProgLen + H.LocalLen);
  std::vector<char> Out(reinterpret_cast<char *>(&H), reinterpret_cast<char *>(&H) + sizeof H);
  Out.insert(Out.end(), I.Host.data(), I.Host.data() + H.HostLen);
  Out.insert(Out.end(), I.Program.data(), I.Program.data() + H.ProgLen);
  Out.insert(Out.end(), I.LocalDir.data(), I.LocalDir.data() + H.LocalLen);
  return Out;
}

Error LogWriter::open(const std::string &P, const SectionInfo &Info) {
  std::lock_guard<std::mutex> L(Mu);
  Path = P;
  Fd = static_cast<int>(syscall(SYS_openat, AT_FDCWD, P.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (Fd < 0)
    return Error(Errc::Io, strf("cannot create the profile log '%s': %s", P.c_str(), std::strerror(errno)));
  Buf.reserve(kBufBytes);
  std::vector<char> H = encodeHeader(Info);
  Buf.insert(Buf.end(), H.begin(), H.end());
  return Error();
}

uint32_t LogWriter::addFile(const std::string &FilePath, uint64_t Instance, uint32_t CommSize,
                            uint32_t CommRank, uint32_t Amode, bool Posix) {
  FileRecord R{};
  R.Kind = RecFile;
  R.Flags = Posix ? 1 : 0;
  R.PathLen = static_cast<uint16_t>(FilePath.size() > 65535 ? 65535 : FilePath.size());
  R.Instance = Instance;
  R.CommSize = CommSize;
  R.CommRank = CommRank;
  R.Amode = Amode;
  std::lock_guard<std::mutex> L(Mu);
  R.File = NextFile++;
  if (Fd >= 0) {
    const char *P = reinterpret_cast<const char *>(&R);
    Buf.insert(Buf.end(), P, P + sizeof R);
    Buf.insert(Buf.end(), FilePath.data(), FilePath.data() + R.PathLen);
    if (Buf.size() >= kBufBytes)
      flushLocked();
  }
  return R.File;
}

void LogWriter::append(const void *P, size_t N) {
  std::lock_guard<std::mutex> L(Mu);
  if (Fd < 0)
    return;
  const char *C = static_cast<const char *>(P);
  Buf.insert(Buf.end(), C, C + N);
  if (Buf.size() >= kBufBytes)
    flushLocked();
}

void LogWriter::flushLocked() {
  if (Fd < 0 || Buf.empty())
    return;
  Error E = writeAll(Fd, Buf.data(), Buf.size(), Path);
  if (E) {
    if (First.ok())
      First = E;
    syscall(SYS_close, Fd);
    Fd = -1; // stop logging; the program's I/O goes on
  } else {
    Written += Buf.size();
  }
  Buf.clear();
}

Error LogWriter::flush() {
  std::lock_guard<std::mutex> L(Mu);
  flushLocked();
  return First;
}

Error LogWriter::close() {
  std::lock_guard<std::mutex> L(Mu);
  flushLocked();
  if (Fd >= 0) {
    if (syscall(SYS_close, Fd) != 0 && First.ok())
      First = Error(Errc::Io, strf("profile log '%s': close failed: %s", Path.c_str(), std::strerror(errno)));
    Fd = -1;
  }
  return First;
}

} // namespace iopoly::prof
