//===- iopoly-relayout.cpp - Rewrite an array's files in another layout ----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//   iopoly-relayout NAME --to P0,P1,...   rewrites array NAME so that its
//                                          file stores it in layout P
//
// The file layout is paper 1's dimension permutation (section 4): the file
// holds the array row-major over the dimension order P0, P1, ... ({1,0} is
// column-major for 2-D). A program (or a compiled module) that asks for
// another layout than the files have is refused with a message naming this
// command; the tool converts the files instead of reinterpreting them.
//
// Out of core: the new array is written through the stripe buffer
// (IOPOLY_BUFFER), a group of destination stripes at a time; for each group
// the source elements are gathered in file order, so each source stripe is
// fetched at most once per group. Memory beyond the buffer: one 16-byte
// entry per element of the group.
//
// Crash-safe: the new files are a complete array 'NAME.relayout' written
// beside the old files and committed (synced) first; their headers are then
// renamed to NAME, a marker 'NAME.relayout-commit' is written in the first
// disk directory, and only then are the files renamed over the old ones.
// A crash before the marker leaves the old array intact (the next run of
// the tool removes the leftovers); a crash after it is finished by the next
// run of the tool (the runtime names the marker when it refuses the
// half-renamed array).
//
// The disk directories come from IOPOLY_DIR and IOPOLY_DISKS (and the stripe
// size from IOPOLY_STRIPE), exactly as for the program that uses the array.
// Exit status: 0 converted (or already in that layout), 1 failed (the old
// array is intact), 2 bad usage or configuration.
//
//===----------------------------------------------------------------------===//
#include "core/Array.h"
#include "core/Config.h"
#include "core/FileHeader.h"
#include "iopoly.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>
#include <vector>

using namespace iopoly;

namespace {

const char *Usage = "usage: iopoly-relayout NAME --to P0,P1,...\n"
                    "  rewrites the files of array NAME so that they store it row-major over the\n"
                    "  dimension order P0,P1,... (1,0 is column-major for a 2-D array)\n"
                    "  (the disk directories come from IOPOLY_DIR / IOPOLY_DISKS, as for programs)\n";

int fail(const std::string &Msg, int Code = 1) {
  std::fprintf(stderr, "iopoly-relayout: %s\n", Msg.c_str());
  return Code;
}

bool exists(const std::string &P) { return ::access(P.c_str(), F_OK) == 0; }

void syncDir(const std::string &Dir) {
  int Fd = ::open(Dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (Fd >= 0) {
    (void)::fsync(Fd);
    ::close(Fd);
  }
}

/// Reads the header at the start of \p Path.
Status readHeader(const std::string &Path, FileHeader &H) {
  int Fd = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return Status::error(ErrorCode::IO, format("cannot open '%s': %s", Path.c_str(), std::strerror(errno)));
  std::vector<char> Buf(HeaderBytes);
  ssize_t N = ::pread(Fd, Buf.data(), Buf.size(), 0);
  ::close(Fd);
  if (N != static_cast<ssize_t>(Buf.size()))
    return Status::error(ErrorCode::Corrupt, format("'%s': short header", Path.c_str()));
  if (Status S = FileHeader::decode(Buf.data(), Buf.size(), H))
    return Status::wrap(S, format("'%s': %s", Path.c_str(), S.message().c_str()));
  return {};
}

/// Gives the header of \p Path the array name \p Name (the new files were
/// written as 'NAME.relayout') and the old files' origin (a disk-resident
/// global's files stay replaceable by its next run), and syncs the file.
Status renameInHeader(const std::string &Path, const std::string &Name, const std::string &Origin) {
  FileHeader H;
  if (Status S = readHeader(Path, H))
    return S;
  H.Name = Name;
  H.Origin = Origin;
  std::string Bytes = H.encode();
  int Fd = ::open(Path.c_str(), O_WRONLY | O_CLOEXEC);
  bool Ok = Fd >= 0 && ::pwrite(Fd, Bytes.data(), Bytes.size(), 0) == static_cast<ssize_t>(Bytes.size()) &&
            ::fsync(Fd) == 0;
  int Err = errno;
  if (Fd >= 0)
    ::close(Fd);
  return Ok ? Status() : Status::error(ErrorCode::IO, format("cannot rewrite the header of '%s': %s", Path.c_str(),
                                                             std::strerror(Err)));
}

/// The second phase: renames the new files over the old ones, then removes
/// the marker. Idempotent, so that a run after a crash can repeat it.
Status rollForward(const std::vector<std::string> &Dirs, const std::string &Name, const std::string &Marker) {
  std::string Tmp = Name + ".relayout";
  for (const std::string &Dir : Dirs) {
    ArrayFileNames Old = arrayFileNames(Dir, Name), New = arrayFileNames(Dir, Tmp);
    if (exists(New.Sums)) {
      if (::rename(New.Sums.c_str(), Old.Sums.c_str()) != 0)
        return Status::error(ErrorCode::IO, format("cannot rename '%s': %s", New.Sums.c_str(), std::strerror(errno)));
    } else if (exists(New.Data)) {
      // The new array keeps no checksums: old sums would not match.
      (void)::unlink(Old.Sums.c_str());
    }
    if (exists(New.Data) && ::rename(New.Data.c_str(), Old.Data.c_str()) != 0)
      return Status::error(ErrorCode::IO, format("cannot rename '%s': %s", New.Data.c_str(), std::strerror(errno)));
    (void)::unlink(New.Lock.c_str());
    syncDir(Dir);
  }
  if (::unlink(Marker.c_str()) != 0 && errno != ENOENT)
    return Status::error(ErrorCode::IO, format("cannot remove '%s': %s", Marker.c_str(), std::strerror(errno)));
  syncDir(Dirs.front());
  return {};
}

Status parseLayout(const std::string &Text, size_t NDims, std::vector<int> &Out) {
  Out.clear();
  size_t Pos = 0;
  while (Pos <= Text.size()) {
    size_t End = Text.find(',', Pos);
    std::string Part = Text.substr(Pos, End == std::string::npos ? std::string::npos : End - Pos);
    char *Stop = nullptr;
    long V = std::strtol(Part.c_str(), &Stop, 10);
    if (Part.empty() || *Stop || V < 0 || V >= static_cast<long>(NDims))
      return Status::error(ErrorCode::InvalidArgument,
                           format("--to '%s': '%s' is not a dimension of a %zu-dimensional array", Text.c_str(),
                                  Part.c_str(), NDims));
    Out.push_back(static_cast<int>(V));
    if (End == std::string::npos)
      break;
    Pos = End + 1;
  }
  std::vector<int> Sorted = Out;
  std::sort(Sorted.begin(), Sorted.end());
  for (size_t I = 0; I < Sorted.size(); ++I)
    if (Sorted[I] != static_cast<int>(I) || Sorted.size() != NDims)
      return Status::error(ErrorCode::InvalidArgument,
                           format("--to '%s' is not a permutation of 0..%zu", Text.c_str(), NDims - 1));
  return {};
}

/// Copies \p Len bytes between array byte offsets through attach/release
/// (elements that straddle stripes).
bool copyBytes(iopoly_array *Src, size_t SrcOff, iopoly_array *Dst, size_t DstOff, size_t Len) {
  size_t S = iopoly_block_size();
  std::vector<unsigned char> Tmp(Len);
  for (size_t Done = 0; Done < Len;) {
    size_t B = (SrcOff + Done) / S, In = (SrcOff + Done) % S, N = std::min(Len - Done, S - In);
    auto *P = static_cast<unsigned char *>(iopoly_attach(Src, B, IOPOLY_READ));
    if (!P)
      return false;
    std::memcpy(Tmp.data() + Done, P + In, N);
    iopoly_release(Src, B);
    Done += N;
  }
  for (size_t Done = 0; Done < Len;) {
    size_t B = (DstOff + Done) / S, In = (DstOff + Done) % S, N = std::min(Len - Done, S - In);
    auto *P = static_cast<unsigned char *>(iopoly_attach(Dst, B, IOPOLY_WRITE));
    if (!P)
      return false;
    std::memcpy(P + In, Tmp.data() + Done, N);
    iopoly_release(Dst, B);
    Done += N;
  }
  return true;
}

struct Piece {
  size_t SrcOff;
  unsigned char *Dst;
};

/// Fills \p Dst (layout NewLayout) from \p Src, a group of destination
/// stripes at a time. Prints progress on long runs.
bool copyArray(iopoly_array *Src, iopoly_array *Dst, const FileHeader &H, const std::vector<int> &NewLayout,
               std::string &Err) {
  const Geometry &G = H.Geo;
  size_t S = iopoly_block_size(), NB = iopoly_num_blocks(Dst), E = G.ElemSize;
  // Half the buffer holds the destination group, the rest serves the source.
  size_t Group = std::max<size_t>(1, iopoly_buffer_blocks() / 2);
  size_t NDims = G.Dims.size();
  std::vector<size_t> Index(NDims);
  std::vector<std::pair<size_t, size_t>> Straddlers; // (src offset, dst offset)
  std::vector<Piece> Pieces;
  size_t NextReport = NB / 10;
  for (size_t First = 0; First < NB; First += Group) {
    size_t Last = std::min(NB, First + Group);
    std::vector<unsigned char *> Frames;
    for (size_t B = First; B < Last; ++B) {
      auto *P = static_cast<unsigned char *>(iopoly_attach(Dst, B, IOPOLY_WRITE | IOPOLY_OVERWRITE));
      if (!P) {
        Err = format("writing stripe %zu of the new files: %s", B, iopoly_last_error());
        return false;
      }
      Frames.push_back(P);
    }
    Pieces.clear();
    // Elements that start in this group (the first may have started before).
    size_t Begin = First * S, End = std::min(G.TotalBytes, Last * S);
    for (size_t Elem = (Begin + E - 1) / E; Elem * E < End; ++Elem) {
      size_t DstOff = Elem * E;
      size_t Linear = Elem;
      for (size_t K = NDims; K-- > 0;) {
        size_t D = static_cast<size_t>(NewLayout[K]);
        Index[D] = Linear % G.Dims[D];
        Linear /= G.Dims[D];
      }
      size_t SrcOff = iopoly_offset(Src, Index.data());
      if (DstOff / S != (DstOff + E - 1) / S || DstOff + E > End || SrcOff / S != (SrcOff + E - 1) / S)
        Straddlers.push_back({SrcOff, DstOff});
      else
        Pieces.push_back({SrcOff, Frames[DstOff / S - First] + DstOff % S});
    }
    std::sort(Pieces.begin(), Pieces.end(), [](const Piece &A, const Piece &B) { return A.SrcOff < B.SrcOff; });
    size_t Held = SIZE_MAX;
    const unsigned char *SrcFrame = nullptr;
    for (const Piece &P : Pieces) {
      size_t B = P.SrcOff / S;
      if (B != Held) {
        if (Held != SIZE_MAX)
          iopoly_release(Src, Held);
        SrcFrame = static_cast<const unsigned char *>(iopoly_attach(Src, B, IOPOLY_READ));
        if (!SrcFrame) {
          Err = format("reading stripe %zu of the old files: %s", B, iopoly_last_error());
          return false;
        }
        Held = B;
      }
      std::memcpy(P.Dst, SrcFrame + P.SrcOff % S, E);
    }
    if (Held != SIZE_MAX)
      iopoly_release(Src, Held);
    for (size_t B = First; B < Last; ++B)
      iopoly_release(Dst, B);
    if (NB >= 1000 && Last >= NextReport && Last < NB) {
      std::fprintf(stderr, "iopoly-relayout: %zu of %zu stripes written\n", Last, NB);
      NextReport = Last + NB / 10;
    }
  }
  for (const auto &[SrcOff, DstOff] : Straddlers)
    if (!copyBytes(Src, SrcOff, Dst, DstOff, E)) {
      Err = format("copying the element at byte %zu: %s", SrcOff, iopoly_last_error());
      return false;
    }
  return true;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc == 2 && (!std::strcmp(Argv[1], "-h") || !std::strcmp(Argv[1], "--help"))) {
    std::fputs(Usage, stdout);
    return 0;
  }
  if (Argc != 4 || std::strcmp(Argv[2], "--to") != 0) {
    std::fputs(Usage, stderr);
    return 2;
  }
  std::string Name = Argv[1], To = Argv[3];
  if (Status S = checkArrayName(Name.c_str()))
    return fail(S.message(), 2);
  // Re-reading the source per group is the algorithm, not thrashing to
  // warn about (the user's own IOPOLY_THRASH wins).
  ::setenv("IOPOLY_THRASH", "0", /*overwrite=*/0);
  Config C;
  if (Status S = parseConfig(processEnv(), C))
    return fail(S.message(), 2);
  const std::vector<std::string> &Dirs = C.DiskDirs;
  std::string Tmp = Name + ".relayout";
  std::string Marker = relayoutMarker(Dirs.front(), Name);

  if (exists(Marker)) {
    // A conversion was decided but not finished: finish it.
    if (Status S = rollForward(Dirs, Name, Marker))
      return fail(format("array '%s': finishing the interrupted conversion: %s", Name.c_str(), S.message().c_str()));
    std::printf("array '%s': finished an interrupted conversion\n", Name.c_str());
  } else if (Status S = removeArrayFiles(Dirs, Tmp)) {
    return fail(format("array '%s': removing the leftovers of an interrupted conversion: %s", Name.c_str(),
                       S.message().c_str()));
  }

  std::string First = arrayFileNames(Dirs.front(), Name).Data;
  if (!exists(First))
    return fail(format("array '%s' does not exist (no file '%s')", Name.c_str(), First.c_str()));
  FileHeader H;
  if (Status S = readHeader(First, H))
    return fail(format("array '%s': %s", Name.c_str(), S.message().c_str()));
  std::vector<int> NewLayout;
  if (Status S = parseLayout(To, H.Geo.Dims.size(), NewLayout))
    return fail(S.message(), 2);
  Geometry Want = H.Geo;
  Want.Layout = NewLayout;
  if (NewLayout == H.Geo.Layout) {
    std::printf("array '%s' is already stored in layout %s (%s)\n", Name.c_str(), Want.layoutString().c_str(),
                Want.layoutName().c_str());
    return 0;
  }

  int NDims = static_cast<int>(H.Geo.Dims.size());
  iopoly_array *Src =
      iopoly_open_layout(Name.c_str(), H.Geo.ElemSize, NDims, H.Geo.Dims.data(), H.Geo.Layout.data(), IOPOLY_RDONLY);
  if (!Src)
    return fail(iopoly_last_error());
  iopoly_array *Dst = iopoly_open_layout(Tmp.c_str(), H.Geo.ElemSize, NDims, H.Geo.Dims.data(), NewLayout.data(),
                                         IOPOLY_CREATE | IOPOLY_TRUNC);
  if (!Dst) {
    std::string Err = iopoly_last_error();
    iopoly_close(Src);
    return fail(format("array '%s': cannot create the new files: %s", Name.c_str(), Err.c_str()));
  }
  iopoly_counters Before;
  iopoly_get_counters(&Before);
  std::string Err;
  bool Ok = copyArray(Src, Dst, H, NewLayout, Err);
  // Commit the new array (written back and synced, marked clean).
  if (Ok && iopoly_close(Dst) != 0) {
    Err = format("committing the new files: %s", iopoly_last_error());
    Ok = false;
  }
  iopoly_counters After;
  iopoly_get_counters(&After);
  iopoly_close(Src);
  Status S;
  if (Ok)
    for (const std::string &Dir : Dirs)
      if ((S = renameInHeader(arrayFileNames(Dir, Tmp).Data, Name, H.Origin)))
        break;
  if (!Ok || S) {
    (void)removeArrayFiles(Dirs, Tmp);
    return fail(format("array '%s': %s; the array is unchanged", Name.c_str(), Ok ? S.message().c_str() : Err.c_str()));
  }
  // The point of no return: from here a crash is finished by the next run.
  int Fd = ::open(Marker.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  std::string Note = "iopoly-relayout " + Name + " --to " + Want.layoutString() + "\n";
  bool Marked = Fd >= 0 && ::write(Fd, Note.data(), Note.size()) == static_cast<ssize_t>(Note.size()) &&
                ::fsync(Fd) == 0;
  if (Fd >= 0)
    ::close(Fd);
  if (!Marked) {
    (void)::unlink(Marker.c_str());
    (void)removeArrayFiles(Dirs, Tmp);
    return fail(format("array '%s': cannot write '%s': %s; the array is unchanged", Name.c_str(), Marker.c_str(),
                       std::strerror(errno)));
  }
  syncDir(Dirs.front());
  if (Status R = rollForward(Dirs, Name, Marker))
    return fail(format("array '%s': %s; run the same command again to finish", Name.c_str(), R.message().c_str()));
  std::printf("array '%s' (%s x %zu bytes): layout %s (%s) -> %s (%s), %zu stripes written, %llu stripe fetches\n",
              Name.c_str(), H.Geo.dimsString().c_str(), H.Geo.ElemSize, H.Geo.layoutString().c_str(),
              H.Geo.layoutName().c_str(), Want.layoutString().c_str(), Want.layoutName().c_str(),
              H.Geo.numStripes(), After.stripe_fetches - Before.stripe_fetches);
  return 0;
}
