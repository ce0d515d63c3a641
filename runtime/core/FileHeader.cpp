//===- FileHeader.cpp - Self-describing header of a disk file --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/FileHeader.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <sys/random.h>
#include <unistd.h>
#include <sstream>

namespace iopoly {

static const char Magic1[] = "IOPOLY-ARRAY 1";
static const char Magic2[] = "IOPOLY-ARRAY 2";

static bool isId(const std::string &S) {
  return S.size() == 16 && S.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string newRandomId() {
  uint64_t V = 0;
  if (::getrandom(&V, sizeof V, 0) != static_cast<ssize_t>(sizeof V)) {
    // No entropy source: time, pid and an address still differ per run.
    V = static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count()) ^
        (static_cast<uint64_t>(::getpid()) << 40) ^ reinterpret_cast<uintptr_t>(&V);
  }
  char Buf[17];
  std::snprintf(Buf, sizeof Buf, "%016llx", static_cast<unsigned long long>(V));
  return Buf;
}

std::string FileHeader::encode() const {
  std::ostringstream OS;
  OS << Magic2 << "\n";
  OS << "name " << Name << "\n";
  OS << "elem_size " << Geo.ElemSize << "\n";
  OS << "dims";
  for (size_t D : Geo.Dims)
    OS << " " << D;
  OS << "\nlayout";
  for (int L : Geo.Layout)
    OS << " " << L;
  OS << "\nstripe " << Geo.StripeSize << "\n";
  OS << "disks " << Geo.NumDisks << "\n";
  OS << "disk " << DiskIndex << "\n";
  OS << "bytes " << Geo.TotalBytes << "\n";
  OS << "creation " << Creation << "\n";
  OS << "state " << (Dirty ? "dirty" : "clean") << "\n";
  OS << "commit " << Commit << "\n";
  OS << "checksums " << (Checksums ? "crc32c" : "none") << "\n";
  OS << "origin " << Origin << "\n";
  OS << "end\n";
  std::string S = OS.str();
  S.resize(HeaderBytes, '\0');
  return S;
}

Status FileHeader::decode(const char *Bytes, size_t Size, FileHeader &Out) {
  std::string Text(Bytes, strnlen(Bytes, Size));
  std::istringstream IS(Text);
  std::string Line;
  if (!std::getline(IS, Line) || (Line != Magic1 && Line != Magic2))
    return Status::error(ErrorCode::Corrupt, "not an iopoly array file (bad magic)");
  FileHeader H;
  H.Version = Line == Magic1 ? 1 : 2;
  std::string State, Sums;
  std::vector<size_t> Dims;
  std::vector<int> Layout;
  size_t Elem = 0, Stripe = 0, Disks = 0, Bytes_ = 0;
  bool Ended = false;
  while (std::getline(IS, Line)) {
    std::istringstream LS(Line);
    std::string Key;
    LS >> Key;
    if (Key == "name")
      LS >> H.Name;
    else if (Key == "elem_size")
      LS >> Elem;
    else if (Key == "dims") {
      size_t D;
      while (LS >> D)
        Dims.push_back(D);
    } else if (Key == "layout") {
      int L;
      while (LS >> L)
        Layout.push_back(L);
    } else if (Key == "stripe")
      LS >> Stripe;
    else if (Key == "disks")
      LS >> Disks;
    else if (Key == "disk")
      LS >> H.DiskIndex;
    else if (Key == "bytes")
      LS >> Bytes_;
    else if (H.Version >= 2 && Key == "creation")
      LS >> H.Creation;
    else if (H.Version >= 2 && Key == "state")
      LS >> State;
    else if (H.Version >= 2 && Key == "commit")
      LS >> H.Commit;
    else if (H.Version >= 2 && Key == "checksums")
      LS >> Sums;
    else if (H.Version >= 2 && Key == "origin")
      LS >> H.Origin;
    else if (Key == "end") {
      Ended = true;
      break;
    } else
      return Status::error(ErrorCode::Corrupt, format("unknown header field '%s'", Key.c_str()));
    if (LS.fail() && !LS.eof())
      return Status::error(ErrorCode::Corrupt, format("malformed header line '%s'", Line.c_str()));
  }
  if (!Ended)
    return Status::error(ErrorCode::Corrupt, "truncated header");
  if (Dims.size() != Layout.size() || Stripe == 0 || Disks == 0)
    return Status::error(ErrorCode::Corrupt, "inconsistent header");
  if (H.Version >= 2) {
    if (!isId(H.Creation) || !isId(H.Commit))
      return Status::error(ErrorCode::Corrupt, "header has no valid creation or commit id");
    if (State != "clean" && State != "dirty")
      return Status::error(ErrorCode::Corrupt, format("header state '%s' is neither clean nor dirty", State.c_str()));
    if (Sums != "crc32c" && Sums != "none")
      return Status::error(ErrorCode::Corrupt, format("header checksums '%s' is neither crc32c nor none", Sums.c_str()));
    if (H.Origin != "api" && H.Origin != "global")
      return Status::error(ErrorCode::Corrupt, format("header origin '%s' is neither api nor global", H.Origin.c_str()));
    H.Dirty = State == "dirty";
    H.Checksums = Sums == "crc32c";
  }
  if (Status S = Geometry::make(Elem, static_cast<int>(Dims.size()), Dims.data(),
                                Layout.data(), Stripe, Disks, H.Geo))
    return Status::error(ErrorCode::Corrupt, "bad header: " + S.message());
  if (H.Geo.TotalBytes != Bytes_)
    return Status::error(ErrorCode::Corrupt, "header byte count does not match its dims");
  if (H.DiskIndex >= Disks)
    return Status::error(ErrorCode::Corrupt, "header disk index out of range");
  Out = std::move(H);
  return {};
}

std::string FileHeader::mismatch(const FileHeader &O) const {
  auto Diff = [](const char *What, const std::string &File, const std::string &Now) {
    return format("%s: the file has %s, the current setting is %s", What,
                  File.c_str(), Now.c_str());
  };
  if (O.Name != Name)
    return Diff("array name", O.Name, Name);
  if (O.Geo.ElemSize != Geo.ElemSize)
    return Diff("element size", std::to_string(O.Geo.ElemSize), std::to_string(Geo.ElemSize));
  if (O.Geo.Dims != Geo.Dims)
    return Diff("dims", O.Geo.dimsString(), Geo.dimsString());
  if (O.Geo.Layout != Geo.Layout)
    // Never reinterpreted: the same bytes mean other elements under another
    // permutation. The message says how to get the wanted layout.
    return format("file layout: the file stores it in layout %s (%s), this program asks for layout %s (%s); "
                  "convert the files with 'iopoly-relayout %s --to %s', or open the array with layout %s "
                  "(iopoly_open_layout, or compile with -fplugin-arg-iopoly-layout=%s:%s)",
                  O.Geo.layoutString().c_str(), O.Geo.layoutName().c_str(), Geo.layoutString().c_str(),
                  Geo.layoutName().c_str(), Name.c_str(), Geo.layoutString().c_str(), O.Geo.layoutString().c_str(),
                  Name.c_str(), O.Geo.layoutString().c_str());
  if (O.Geo.StripeSize != Geo.StripeSize)
    return Diff("stripe size (IOPOLY_STRIPE)", std::to_string(O.Geo.StripeSize),
                std::to_string(Geo.StripeSize));
  if (O.Geo.NumDisks != Geo.NumDisks)
    return Diff("disk count (IOPOLY_DISKS)", std::to_string(O.Geo.NumDisks),
                std::to_string(Geo.NumDisks));
  if (O.DiskIndex != DiskIndex)
    return Diff("disk index (disk directories listed in another order?)",
                std::to_string(O.DiskIndex), std::to_string(DiskIndex));
  return "";
}

Status checkArrayName(const char *Name) {
  if (!Name || !*Name)
    return Status::error("array name is empty");
  size_t Len = std::strlen(Name);
  if (Len > 200)
    return Status::error(format("array name '%.40s...' is longer than 200 characters", Name));
  if (Name[0] == '.')
    return Status::error(format("array name '%s' starts with '.'", Name));
  for (const char *P = Name; *P; ++P) {
    char C = *P;
    bool Ok = (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') ||
              (C >= '0' && C <= '9') || C == '_' || C == '-' || C == '.';
    if (!Ok)
      return Status::error(format("array name '%s' contains '%c' (allowed: letters, digits, _ - .)", Name, C));
  }
  return {};
}

} // namespace iopoly
