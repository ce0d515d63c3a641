//===- SpillStore.cpp - Private spill of shared arrays' dirty stripes -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/SpillStore.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace iopoly {

namespace {

/// Whole-buffer positional transfer, retrying short transfers and EINTR.
template <typename Fn> int transfer(Fn Op, char *Buf, size_t Len, uint64_t Off) {
  while (Len) {
    ssize_t N = Op(Buf, Len, static_cast<off_t>(Off));
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0)
      return errno;
    if (N == 0)
      return EIO; // a read past what was written: the slot is missing
    Buf += N;
    Len -= static_cast<size_t>(N);
    Off += static_cast<uint64_t>(N);
  }
  return 0;
}

} // namespace

SpillStore::~SpillStore() {
  if (Fd >= 0)
    ::close(Fd);
}

Status SpillStore::openFile() {
  if (Fd >= 0)
    return {};
  // Unlinked at once: nothing is left behind, whatever ends the process.
#ifdef O_TMPFILE
  Fd = ::open(Dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
  if (Fd < 0) {
    std::string Tmpl = Dir + "/.iopoly-spill-XXXXXX";
    Fd = ::mkostemp(Tmpl.data(), O_CLOEXEC);
    if (Fd >= 0)
      ::unlink(Tmpl.c_str());
  }
  if (Fd < 0)
    return Status::error(format("cannot create the private spill file of shared arrays in '%s': %s", Dir.c_str(),
                                std::strerror(errno)));
  return {};
}

const SpillStore::Entry *SpillStore::find(const iopoly_array *A, size_t S) const {
  auto It = Held.find({A, S});
  return It == Held.end() ? nullptr : &It->second;
}

Status SpillStore::reserve(const iopoly_array *A, size_t S, bool Whole, uint64_t &Slot) {
  if (Status E = openFile())
    return E;
  if (!FreeSlots.empty()) {
    Slot = FreeSlots.back();
    FreeSlots.pop_back();
  } else {
    Slot = NextSlot++;
  }
  Entry &E = Held[{A, S}];
  E.Slot = Slot;
  E.Whole = Whole;
  E.Ready = false;
  return {};
}

void SpillStore::markWritten(const iopoly_array *A, size_t S) {
  auto It = Held.find({A, S});
  if (It != Held.end())
    It->second.Ready = true;
}

void SpillStore::forget(const iopoly_array *A, size_t S) {
  auto It = Held.find({A, S});
  if (It == Held.end())
    return;
  FreeSlots.push_back(It->second.Slot);
  Held.erase(It);
}

std::vector<size_t> SpillStore::stripesOf(const iopoly_array *A) const {
  std::vector<size_t> Out;
  for (auto It = Held.lower_bound({A, 0}); It != Held.end() && It->first.first == A; ++It)
    Out.push_back(It->first.second);
  return Out;
}

std::vector<std::pair<const iopoly_array *, size_t>> SpillStore::all() const {
  std::vector<std::pair<const iopoly_array *, size_t>> Out;
  for (const auto &KV : Held)
    Out.push_back(KV.first);
  return Out;
}

bool SpillStore::holdsAny(const iopoly_array *A) const {
  if (!A)
    return !Held.empty();
  auto It = Held.lower_bound({A, 0});
  return It != Held.end() && It->first.first == A;
}

Status SpillStore::write(uint64_t Slot, const char *Data, const char *Twin) {
  uint64_t Off = Slot * 2 * StripeSize;
  auto Pwrite = [this](char *B, size_t L, off_t O) { return ::pwrite(Fd, B, L, O); };
  int E = transfer(Pwrite, const_cast<char *>(Data), StripeSize, Off);
  if (!E && Twin)
    E = transfer(Pwrite, const_cast<char *>(Twin), StripeSize, Off + StripeSize);
  if (E)
    return Status::error(format("writing the private spill file of shared arrays (in '%s'): %s", Dir.c_str(),
                                std::strerror(E)));
  return {};
}

Status SpillStore::read(uint64_t Slot, char *Data, char *Twin) {
  uint64_t Off = Slot * 2 * StripeSize;
  auto Pread = [this](char *B, size_t L, off_t O) { return ::pread(Fd, B, L, O); };
  int E = transfer(Pread, Data, StripeSize, Off);
  if (!E && Twin)
    E = transfer(Pread, Twin, StripeSize, Off + StripeSize);
  if (E)
    return Status::error(format("reading the private spill file of shared arrays (in '%s'): %s", Dir.c_str(),
                                std::strerror(E)));
  return {};
}

} // namespace iopoly
