//===- Access.cpp - Program accesses of one file, from profiles ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "partition/Access.h"

#include <algorithm>
#include <set>

namespace iopoly::prof {

void collectAccesses(const std::vector<Run> &Runs, std::map<std::string, FileProfile> &Out,
                     std::vector<std::string> &Notes) {
  for (const Run &R : Runs) {
    // Per path in this run: the open communicator sizes and the world
    // ranks that opened it, to refuse files opened by separate groups.
    std::map<std::string, std::set<uint32_t>> Sizes, Openers;
    std::map<std::string, RunAccesses> ThisRun;
    std::map<std::string, std::map<uint32_t, uint32_t>> SeqOf; // path -> rank -> next seq
    uint64_t Posix = 0, Unknown = 0;
    for (const Section *S : R.Ranks) {
      if (!S)
        continue;
      for (auto &[Id, F] : S->Files) {
        if (F.Posix)
          continue;
        Sizes[F.Path].insert(F.CommSize);
        Openers[F.Path].insert(S->Rank);
      }
      for (const EventRecord &E : S->Events) {
        if (E.Event != static_cast<uint8_t>(EventKind::Open))
          continue;
        const LoggedFile *F = S->file(E.File);
        if (F && !F->Posix && F->CommRank == 0)
          ThisRun[F->Path].SizeAtOpen.push_back(E.Arg2);
      }
      for (const AccessRecord &A : S->Accesses) {
        const LoggedFile *F = S->file(A.File);
        if (!F)
          continue;
        if (A.Flags & AfPosix || F->Posix) {
          ++Posix;
          continue;
        }
        if (A.Flags & AfInternal)
          continue;
        if (A.Flags & (AfViewUnknown | AfFailed)) {
          ++Unknown;
          continue;
        }
        if (!A.Length)
          continue;
        RunAccesses &RA = ThisRun[F->Path];
        RA.RunId = R.RunId;
        RA.NRanks = std::max(RA.NRanks, F->CommSize);
        Access X;
        X.Rank = F->CommRank;
        X.Op = static_cast<IoOp>(A.Op);
        X.Offset = A.Offset;
        X.Length = A.Length;
        uint64_t Abs = S->absNs(A.Start);
        X.Time = Abs > R.T0 ? Abs - R.T0 : 0;
        X.Call = A.Call;
        X.Seq = SeqOf[F->Path][X.Rank]++; // log order; renumbered below
        RA.List.push_back(X);
      }
    }
    if (Posix)
      Notes.push_back(strf("run %016llx: %llu POSIX access records left out (the layer plans MPI-IO only)",
                           static_cast<unsigned long long>(R.RunId), static_cast<unsigned long long>(Posix)));
    if (Unknown)
      Notes.push_back(strf("run %016llx: %llu access records without file offsets (view not flattened, or the "
                           "call failed) left out",
                           static_cast<unsigned long long>(R.RunId), static_cast<unsigned long long>(Unknown)));
    for (auto &[Path, RA] : ThisRun) {
      FileProfile &FP = Out[Path];
      FP.Path = Path;
      const auto &Sz = Sizes[Path];
      if (Sz.size() > 1 && FP.Excluded.empty())
        FP.Excluded = "opened on communicators of different sizes in one run";
      else if (!Sz.empty() && Openers[Path].size() > *Sz.rbegin() && FP.Excluded.empty())
        FP.Excluded = strf("opened by %zu processes through separate communicators of %u", Openers[Path].size(),
                           *Sz.rbegin());
      if (RA.List.empty())
        continue;
      // Program order: nonblocking accesses are logged when they complete,
      // so order by call number, keeping the pieces of one call in order.
      std::sort(RA.List.begin(), RA.List.end(), [](const Access &A, const Access &B) { // Seq is unique per rank
        if (A.Rank != B.Rank)
          return A.Rank < B.Rank;
        return A.Call != B.Call ? A.Call < B.Call : A.Seq < B.Seq;
      });
      for (size_t I = 0; I < RA.List.size(); ++I)
        RA.List[I].Seq = I == 0 || RA.List[I - 1].Rank != RA.List[I].Rank ? 0 : RA.List[I - 1].Seq + 1;
      FP.Runs.push_back(std::move(RA));
    }
  }
}

} // namespace iopoly::prof
