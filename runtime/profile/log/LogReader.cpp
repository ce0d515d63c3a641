//===- LogReader.cpp - Reads profile logs into sections and runs -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "log/LogReader.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

namespace iopoly::prof {

const char *eventName(EventKind E) {
  switch (E) {
  case EventKind::Open: return "open";
  case EventKind::Close: return "close";
  case EventKind::SetView: return "set_view";
  case EventKind::Seek: return "seek";
  case EventKind::SetSize: return "set_size";
  case EventKind::Preallocate: return "preallocate";
  case EventKind::Sync: return "sync";
  case EventKind::Barrier: return "barrier";
  case EventKind::SetAtomicity: return "set_atomicity";
  case EventKind::Delete: return "delete";
  case EventKind::Gather: return "gather";
  }
  return "unknown";
}

const char *targetName(Target T) {
  switch (T) {
  case Target::Shared: return "shared";
  case Target::Local: return "local";
  case Target::Remote: return "remote";
  case Target::Push: return "push";
  }
  return "unknown";
}

size_t Run::missingRanks() const {
  return static_cast<size_t>(std::count(Ranks.begin(), Ranks.end(), nullptr));
}

Error parseLog(const char *Data, size_t Size, const std::string &Name, std::vector<Section> &Out,
               std::vector<std::string> &Warnings) {
  size_t Pos = 0;
  Section *Cur = nullptr;
  auto Truncated = [&](const char *What) {
    Warnings.push_back(strf("%s: %s at byte %zu is cut short (a run that did not finish?); "
                            "%zu trailing bytes ignored",
                            Name.c_str(), What, Pos, Size - Pos));
    return Error();
  };
  if (Size == 0)
    return Error(Errc::Format, strf("%s: empty file, not a profile log", Name.c_str()));
  while (Pos < Size) {
    uint8_t Kind = static_cast<uint8_t>(Data[Pos]);
    if (Kind == RecHeader) {
      if (Size - Pos < sizeof(HeaderFixed))
        return Truncated("a section header");
      HeaderFixed H;
      std::memcpy(&H, Data + Pos, sizeof H);
      if (std::memcmp(H.Magic, kLogMagic, sizeof H.Magic) != 0)
        return Error(Errc::Format, strf("%s: byte %zu: bad magic, not an iopoly profile log", Name.c_str(), Pos));
      if (H.Version != kLogVersion)
        return Error(Errc::Format, strf("%s: byte %zu: log version %u, this reader knows %u", Name.c_str(), Pos,
                                        H.Version, kLogVersion));
      if (H.Bytes != sizeof H + H.HostLen + H.ProgLen + H.LocalLen)
        return Error(Errc::Format, strf("%s: byte %zu: inconsistent header length", Name.c_str(), Pos));
      if (Size - Pos < H.Bytes)
        return Truncated("a section header");
      Out.emplace_back();
      Cur = &Out.back();
      Cur->Source = Name;
      Cur->Rank = H.Rank;
      Cur->NRanks = H.NRanks;
      Cur->Pid = H.Pid;
      Cur->Flags = H.Flags;
      Cur->RunId = H.RunId;
      Cur->T0RealtimeNs = H.T0RealtimeNs;
      const char *S = Data + Pos + sizeof H;
      Cur->Host.assign(S, H.HostLen);
      Cur->Program.assign(S + H.HostLen, H.ProgLen);
      Cur->LocalDir.assign(S + H.HostLen + H.ProgLen, H.LocalLen);
      if (H.NRanks == 0 || H.Rank >= H.NRanks)
        return Error(Errc::Format, strf("%s: byte %zu: rank %u of %u", Name.c_str(), Pos, H.Rank, H.NRanks));
      Pos += H.Bytes;
      continue;
    }
    if (!Cur)
      return Error(Errc::Format, strf("%s: does not start with a section header (not an iopoly profile log)",
                                      Name.c_str()));
    if (Kind == RecFile) {
      if (Size - Pos < sizeof(FileRecord))
        return Truncated("a file record");
      FileRecord F;
      std::memcpy(&F, Data + Pos, sizeof F);
      if (Size - Pos < sizeof F + F.PathLen)
        return Truncated("a file record");
      LoggedFile L;
      L.Path.assign(Data + Pos + sizeof F, F.PathLen);
      L.Instance = F.Instance;
      L.CommSize = F.CommSize;
      L.CommRank = F.CommRank;
      L.Amode = F.Amode;
      L.Posix = F.Flags & 1;
      Cur->Files[F.File] = std::move(L);
      Pos += sizeof F + F.PathLen;
    } else if (Kind == RecAccess) {
      if (Size - Pos < sizeof(AccessRecord))
        return Truncated("an access record");
      AccessRecord A;
      std::memcpy(&A, Data + Pos, sizeof A);
      if (A.Op > 1)
        return Error(Errc::Format, strf("%s: byte %zu: access record with operation %u", Name.c_str(), Pos, A.Op));
      Cur->Accesses.push_back(A);
      Pos += sizeof A;
    } else if (Kind == RecEvent) {
      if (Size - Pos < sizeof(EventRecord))
        return Truncated("an event record");
      EventRecord E;
      std::memcpy(&E, Data + Pos, sizeof E);
      Cur->Events.push_back(E);
      Pos += sizeof E;
    } else {
      return Error(Errc::Format, strf("%s: byte %zu: unknown record kind 0x%02x (damaged log?)", Name.c_str(),
                                      Pos, Kind));
    }
  }
  return Error();
}

Error readLog(const std::string &Path, std::vector<Section> &Out, std::vector<std::string> &Warnings) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return Error(Errc::NotFound, strf("cannot open the profile log '%s': %s", Path.c_str(), std::strerror(errno)));
  std::vector<char> Data((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  if (In.bad())
    return Error(Errc::Io, strf("cannot read the profile log '%s'", Path.c_str()));
  return parseLog(Data.data(), Data.size(), Path, Out, Warnings);
}

Error groupRuns(const std::vector<Section> &Sections, std::vector<Run> &Out) {
  for (const Section &S : Sections) {
    auto It = std::find_if(Out.begin(), Out.end(), [&](const Run &R) { return R.RunId == S.RunId; });
    if (It == Out.end()) {
      Out.emplace_back();
      It = std::prev(Out.end());
      It->RunId = S.RunId;
      It->NRanks = S.NRanks;
      It->Ranks.assign(S.NRanks, nullptr);
      It->T0 = S.T0RealtimeNs;
    }
    if (S.NRanks != It->NRanks)
      return Error(Errc::Format, strf("%s: rank %u says the run has %u ranks, another section says %u",
                                      S.Source.c_str(), S.Rank, S.NRanks, It->NRanks));
    if (It->Ranks[S.Rank])
      return Error(Errc::Format, strf("%s: rank %u of run %016llx appears twice (also in %s)", S.Source.c_str(),
                                      S.Rank, static_cast<unsigned long long>(S.RunId),
                                      It->Ranks[S.Rank]->Source.c_str()));
    It->Ranks[S.Rank] = &S;
    It->T0 = std::min(It->T0, S.T0RealtimeNs);
    if (std::find(It->Sources.begin(), It->Sources.end(), S.Source) == It->Sources.end())
      It->Sources.push_back(S.Source);
  }
  return Error();
}

} // namespace iopoly::prof
