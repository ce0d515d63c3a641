//===- LocalStore.cpp - A rank's node-local file of one shared file --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "apply/LocalStore.h"
#include "common/Paths.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace iopoly::prof {

Error LocalStore::open(const std::string &Dir, const std::string &Sh, uint32_t Rk, uint32_t N, uint64_t L,
                       const Router *Rt) {
  if (Error E = makeDirs(Dir))
    return E;
  Shared = Sh;
  Rank = Rk;
  NRanks = N;
  Layout = L;
  R = Rt;
  std::string Stem = Dir + "/" + storeStem(Sh) + strf(".r%u", Rk);
  DataPath = Stem + ".part";
  JournalPath = Stem + ".journal";
  Epochs.assign(R->chunks(), 0);
  Error E = readJournal(JournalPath, Prev);
  if (E && E.code() != Errc::NotFound)
    return E;
  if (E)
    Prev = JournalState();
  Fd = ::open(DataPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (Fd < 0)
    return Error(Errc::Io, strf("cannot open the node-local file '%s': %s", DataPath.c_str(), std::strerror(errno)));
  return Error();
}

Error LocalStore::reset(uint64_t RunId) {
  std::lock_guard<std::mutex> G(Mu);
  if (ftruncate(Fd, 0) != 0)
    return Error(Errc::Io, strf("cannot truncate '%s': %s", DataPath.c_str(), std::strerror(errno)));
  Valid.clear();
  Dirty.clear();
  J.close();
  unlink(JournalPath.c_str());
  if (Error E = J.open(JournalPath, Shared, Rank, NRanks, Layout))
    return E;
  return J.beginRun(RunId);
}

Error LocalStore::resume(uint64_t RunId, bool WithDirty) {
  std::lock_guard<std::mutex> G(Mu);
  for (auto &[D, S] : Prev.Valid)
    for (const Range &X : S.ranges())
      Valid.insert(X.Lo, X.Hi);
  if (WithDirty)
    for (auto &[D, S] : Prev.Dirty)
      for (const Range &X : S.ranges()) {
        Dirty.insert(X.Lo, X.Hi);
        Valid.insert(X.Lo, X.Hi);
      }
  if (Error E = J.open(JournalPath, Shared, Rank, NRanks, Layout))
    return E;
  return J.beginRun(RunId);
}

uint64_t LocalStore::epoch(uint32_t C) {
  std::lock_guard<std::mutex> G(Mu);
  return Epochs[C];
}

void LocalStore::split(uint64_t Lo, uint64_t Hi, std::vector<Range> &In, std::vector<Range> &Out) {
  std::lock_guard<std::mutex> G(Mu);
  In = Valid.inside(Lo, Hi);
  Out = Valid.outside(Lo, Hi);
}

Error LocalStore::preadAll(uint64_t Off, char *Buf, uint64_t Len) {
  while (Len) {
    ssize_t N = pread(Fd, Buf, Len, static_cast<off_t>(Off));
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return Error(Errc::Io, strf("reading the node-local file '%s': %s", DataPath.c_str(), std::strerror(errno)));
    if (N == 0) { // never written: a hole
      std::memset(Buf, 0, Len);
      return Error();
    }
    Buf += N;
    Off += static_cast<uint64_t>(N);
    Len -= static_cast<uint64_t>(N);
  }
  return Error();
}

Error LocalStore::pwriteAll(uint64_t Off, const char *Buf, uint64_t Len) {
  while (Len) {
    ssize_t N = pwrite(Fd, Buf, Len, static_cast<off_t>(Off));
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return Error(Errc::Io, strf("writing the node-local file '%s': %s", DataPath.c_str(),
                                  N < 0 ? std::strerror(errno) : "no progress"));
    Buf += N;
    Off += static_cast<uint64_t>(N);
    Len -= static_cast<uint64_t>(N);
  }
  return Error();
}

Error LocalStore::read(uint32_t C, uint64_t Off, char *Buf, uint64_t Len) {
  return preadAll(R->localOffset(C, Off), Buf, Len);
}

Error LocalStore::writeOwn(uint32_t C, uint64_t Off, const char *Buf, uint64_t Len) {
  std::lock_guard<std::mutex> G(Mu);
  if (Error E = pwriteAll(R->localOffset(C, Off), Buf, Len))
    return E;
  std::vector<Range> New = Dirty.outside(Off, Off + Len);
  Dirty.insert(Off, Off + Len);
  Valid.insert(Off, Off + Len);
  ++Epochs[C];
  for (const Range &X : New)
    if (Error E = J.dirty(X.Lo, X.size(), R->localOffset(C, X.Lo)))
      return E;
  return Error();
}

Error LocalStore::writeOwnRun(const std::vector<OwnPiece> &Run, const char *Buf) {
  if (Run.empty())
    return Error();
  std::lock_guard<std::mutex> G(Mu);
  uint64_t Total = 0;
  for (const OwnPiece &P : Run)
    Total += P.Len;
  if (Error E = pwriteAll(R->localOffset(Run[0].Chunk, Run[0].Off), Buf, Total))
    return E;
  for (const OwnPiece &P : Run) {
    std::vector<Range> New = Dirty.outside(P.Off, P.Off + P.Len);
    Dirty.insert(P.Off, P.Off + P.Len);
    Valid.insert(P.Off, P.Off + P.Len);
    ++Epochs[P.Chunk];
    for (const Range &X : New)
      if (Error E = J.dirty(X.Lo, X.size(), R->localOffset(P.Chunk, X.Lo)))
        return E;
  }
  return Error();
}

Error LocalStore::install(uint32_t C, uint64_t Off, const char *Buf, uint64_t Len, uint64_t Epoch) {
  std::lock_guard<std::mutex> G(Mu);
  if (Epochs[C] != Epoch)
    return Error(); // an update arrived meanwhile: it is newer
  for (const Range &X : Valid.outside(Off, Off + Len)) {
    if (Error E = pwriteAll(R->localOffset(C, X.Lo), Buf + (X.Lo - Off), X.size()))
      return E;
    Valid.insert(X.Lo, X.Hi);
  }
  return Error();
}

Error LocalStore::applyPush(uint32_t C, uint64_t Off, const char *Buf, uint64_t Len) {
  std::lock_guard<std::mutex> G(Mu);
  if (Error E = pwriteAll(R->localOffset(C, Off), Buf, Len))
    return E;
  Valid.insert(Off, Off + Len);
  ++Epochs[C];
  return Error();
}

void LocalStore::revoke(uint32_t C) {
  std::lock_guard<std::mutex> G(Mu);
  const PlannedChunk &PC = R->chunk(C);
  Valid.erase(PC.C.Offset, PC.C.end());
  ++Epochs[C];
}

Error LocalStore::truncate(uint64_t Size) {
  std::lock_guard<std::mutex> G(Mu);
  Dirty.erase(Size, UINT64_MAX);
  Valid.erase(Size, UINT64_MAX);
  for (uint64_t &E : Epochs)
    ++E;
  return J.truncate(Size);
}

std::vector<Range> LocalStore::dirty() {
  std::lock_guard<std::mutex> G(Mu);
  return Dirty.ranges();
}

uint64_t LocalStore::dirtyBytes() {
  std::lock_guard<std::mutex> G(Mu);
  return Dirty.bytes();
}

void LocalStore::markClean() {
  std::lock_guard<std::mutex> G(Mu);
  Dirty.clear();
}

Error LocalStore::sync() {
  if (Fd >= 0 && fdatasync(Fd) != 0)
    return Error(Errc::Io, strf("fdatasync of '%s' failed: %s", DataPath.c_str(), std::strerror(errno)));
  return J.sync();
}

RangeMap LocalStore::mapOf(const IntervalSet &S) {
  // Split at chunk boundaries: each chunk has its own local offset.
  RangeMap M;
  for (const Range &X : S.ranges()) {
    uint64_t Pos = X.Lo;
    while (Pos < X.Hi) {
      int32_t C = R->chunkAt(Pos);
      if (C < 0 || !R->holds(static_cast<uint32_t>(C))) {
        ++Pos; // cannot happen: only held chunks are written here
        continue;
      }
      uint64_t Hi = std::min(X.Hi, R->chunk(static_cast<uint32_t>(C)).C.end());
      int64_t Delta = static_cast<int64_t>(R->localOffset(static_cast<uint32_t>(C), Pos)) - static_cast<int64_t>(Pos);
      M[Delta].insert(Pos, Hi);
      Pos = Hi;
    }
  }
  return M;
}

Error LocalStore::finish(bool Deferred, const FileStamp &Stamp) {
  std::lock_guard<std::mutex> G(Mu);
  if (Fd >= 0 && fdatasync(Fd) != 0)
    return Error(Errc::Io, strf("fdatasync of '%s' failed: %s", DataPath.c_str(), std::strerror(errno)));
  return J.compact(mapOf(Valid), mapOf(Dirty), Deferred, Stamp);
}

void LocalStore::close() {
  J.close();
  if (Fd >= 0)
    ::close(Fd);
  Fd = -1;
}

} // namespace iopoly::prof
