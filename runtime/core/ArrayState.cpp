//===- ArrayState.cpp - Dirty and clean headers around write-backs ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The commit protocol that lets a crash be detected (README, Reliability):
//  1. before the first stripe write after a commit, every header of the
//     array is rewritten with "state dirty" and synced;
//  2. stripes are written in place (write-backs, evictions, flushes);
//  3. iopoly_flush / iopoly_close: once the buffer wrote everything back
//     and no write is under way, the data files are synced, then every
//     header gets "state clean" and a new commit id, and is synced.
// A crash between 1 and 3 leaves a dirty header: the array is refused until
// it is repaired or started over, never read as a silent mix of two states.
// A header fits one sector, so rewriting it is atomic on real disks.
//
//===----------------------------------------------------------------------===//
#include "core/Array.h"
#include "io/RetryIO.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace iopoly {

namespace {

/// The header of disk file \p D of \p A into \p Buf (HeaderBytes).
void encodeHeader(const iopoly_array &A, size_t D, void *Buf) {
  FileHeader H = A.Header;
  H.DiskIndex = D;
  std::memcpy(Buf, H.encode().data(), HeaderBytes);
}

/// Writes the header of every disk file (DiskIndex per file) and syncs it.
/// Called with A.StateMu held.
Status writeAllHeaders(iopoly_array &A, const RetryPolicy &Retry) {
  void *Buf = nullptr;
  if (posix_memalign(&Buf, 4096, HeaderBytes) != 0)
    return Status::error(ErrorCode::NoMemory, "out of memory");
  Status First;
  for (size_t D = 0; D < A.Files.size() && First.ok(); ++D) {
    encodeHeader(A, D, Buf);
    if (Status S = writeFully(*A.Files[D], Buf, HeaderBytes, 0, A.Paths[D], Retry))
      First = S;
    else if (Status S2 = syncFile(*A.Files[D], A.Paths[D], Retry))
      First = S2;
  }
  std::free(Buf);
  return First;
}

RetryPolicy DefaultRetry;

} // namespace

Status beginStripeWrite(iopoly_array &A) {
  if (!A.Journaled)
    return {};
  std::lock_guard<std::mutex> G(A.StateMu);
  if (!A.Header.Dirty) {
    A.Header.Dirty = true;
    if (Status S = writeAllHeaders(A, DefaultRetry)) {
      A.Header.Dirty = false;
      return Status::wrap(S, format("array '%s': cannot mark its files as being written: %s", A.Name.c_str(),
                                    S.message().c_str()));
    }
  }
  ++A.InFlightWrites;
  ++A.WriteSeq;
  return {};
}

void endStripeWrite(iopoly_array &A) {
  if (!A.Journaled)
    return;
  std::lock_guard<std::mutex> G(A.StateMu);
  if (--A.InFlightWrites == 0)
    A.StateCV.notify_all();
}

namespace {

/// Whether the headers of \p A may start recording \p G: Same when they
/// say so already (with \p ElementsOnly, when they record elements of G's
/// size in any shape); an error naming both when they hold something else.
/// Called with A.StateMu held, on a process that holds the headers.
Status checkShape(const iopoly_array &A, const Geometry &G, bool ElementsOnly, bool &Same) {
  const Geometry &H = A.Header.Geo;
  Same = H.ElemSize == G.ElemSize && (ElementsOnly || (H.Dims == G.Dims && H.Layout == G.Layout));
  if (Same)
    return {};
  auto Described = [](const Geometry &X) {
    return format("%s elements of %zu bytes in layout %s (%s)", X.dimsString().c_str(), X.ElemSize,
                  X.layoutString().c_str(), X.layoutName().c_str());
  };
  // iopoly_alloc's bytes, or iopoly_alloc_elems' elements in one dimension.
  bool ByteView = H.Dims.size() == 1 && (H.ElemSize == 1 || H.ElemSize == G.ElemSize);
  if (!ByteView)
    return Status::error(ErrorCode::Mismatch,
                         format("array '%s': its files store %s, this program stores %s; convert the files with "
                                "'iopoly-relayout %s --to %s', or compile with -fplugin-arg-iopoly-layout=off",
                                A.Name.c_str(), Described(H).c_str(), Described(G).c_str(), A.Name.c_str(),
                                G.layoutString().c_str()));
  // One dimension has one layout, and bytes in the order of the C array
  // are its elements in row-major order: neither reinterprets anything.
  // Data in any other layout would be read permuted.
  if (!A.ZeroKnown && G.Dims.size() > 1 && !G.isRowMajor())
    return Status::error(ErrorCode::Mismatch,
                         format("array '%s': its files hold data written without a file layout (as bytes, in the "
                                "order of the C array), this program stores %s; create the array afresh "
                                "(IOPOLY_TRUNC) or compile with -fplugin-arg-iopoly-layout=off",
                                A.Name.c_str(), Described(G).c_str()));
  return {};
}

/// The headers of \p A rewritten through handles of this process's own:
/// the handles the ranks of a shared array hold together may need
/// collective calls (MPI-IO's sync), which one rank cannot make alone.
Status writeHeadersByPath(iopoly_array &A) {
  void *Buf = nullptr;
  if (posix_memalign(&Buf, 4096, HeaderBytes) != 0)
    return Status::error(ErrorCode::NoMemory, "out of memory");
  Status First;
  for (size_t D = 0; D < A.Paths.size() && First.ok(); ++D) {
    encodeHeader(A, D, Buf);
    int Fd = ::open(A.Paths[D].c_str(), O_WRONLY | O_CLOEXEC);
    if (Fd < 0 || ::pwrite(Fd, Buf, HeaderBytes, 0) != static_cast<ssize_t>(HeaderBytes) || ::fdatasync(Fd) != 0)
      First = Status::error(ErrorCode::IO, format("writing the header of '%s': %s", A.Paths[D].c_str(),
                                                  std::strerror(errno)));
    if (Fd >= 0)
      ::close(Fd);
  }
  std::free(Buf);
  return First;
}

} // namespace

Status recordShape(iopoly_array &A, const Geometry &G, bool ElementsOnly) {
  // Shared by MPI ranks (every rank calls this, as the same compiled code
  // runs on each): rank 0 holds the headers it read at the collective
  // open; it decides and writes, and every rank learns its verdict.
  bool Holder = !A.Grp || A.Grp->rank() == 0;
  Status Mine;
  if (Holder) {
    std::lock_guard<std::mutex> L(A.StateMu);
    bool Same = false;
    Mine = checkShape(A, G, ElementsOnly, Same);
    if (Mine.ok() && !Same) {
      Geometry &H = A.Header.Geo, Old = H;
      H.ElemSize = G.ElemSize;
      H.Dims = G.Dims;
      H.Layout = G.Layout;
      Mine = A.Grp ? writeHeadersByPath(A) : writeAllHeaders(A, DefaultRetry);
      if (Mine) {
        H = Old;
        Mine = Status::wrap(Mine, format("array '%s': cannot record its file layout: %s", A.Name.c_str(),
                                         Mine.message().c_str()));
      }
    }
  }
  if (A.Grp)
    Mine = A.Grp->agree(Mine);
  if (Mine.ok())
    A.StoredElem = G.ElemSize;
  return Mine;
}

Status commitArray(iopoly_array &A, const RetryPolicy &Retry) {
  if (!A.Writable)
    return {};
  uint64_t Seq;
  {
    std::unique_lock<std::mutex> L(A.StateMu);
    A.StateCV.wait(L, [&] { return A.InFlightWrites == 0; });
    Seq = A.WriteSeq;
  }
  // Everything written so far reaches the disks before the header says so.
  for (size_t D = 0; D < A.Files.size(); ++D)
    if (Status S = syncFile(*A.Files[D], A.Paths[D], Retry))
      return S;
  for (size_t D = 0; D < A.SumFds.size(); ++D)
    if (::fdatasync(A.SumFds[D]) != 0)
      return Status::error(ErrorCode::IO, format("sync of '%s' failed: %s", A.SumPaths[D].c_str(), std::strerror(errno)));
  if (!A.Journaled)
    return {};
  std::lock_guard<std::mutex> G(A.StateMu);
  if (!A.Header.Dirty || A.InFlightWrites != 0 || A.WriteSeq != Seq)
    return {}; // clean already, or written again meanwhile: stays dirty
  A.Header.Dirty = false;
  A.Header.Commit = newRandomId();
  if (Status S = writeAllHeaders(A, Retry)) {
    A.Header.Dirty = true;
    return Status::wrap(S, format("array '%s': the data is on disk but its files could not be marked clean: %s",
                                  A.Name.c_str(), S.message().c_str()));
  }
  return {};
}

} // namespace iopoly
