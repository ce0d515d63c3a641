//===- iopoly-profile.cpp - Reader of IOPOLY_PROFILE logs ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// iopoly-profile show    LOG...   every record, readable
// iopoly-profile csv     LOG...   one line per record
// iopoly-profile summary LOG...   per run, file and rank: calls, bytes, sizes, time
// iopoly-profile dxt     LOG...   Darshan DXT text (darshan-dxt-parser columns)
// iopoly-profile model [--central S] [--link S] [--local S] [--port S]
//                      [--cb SIZE] [--json FILE] LOG...
//                                 replay on the modeled cluster (ClusterModel.h)
//
//===----------------------------------------------------------------------===//
#include "log/LogReader.h"
#include "model/ClusterModel.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <set>
#include <tuple>
#include <unistd.h>

using namespace iopoly::prof;

namespace {

const char *Usage =
    "usage: iopoly-profile show|csv|summary|dxt LOG...\n"
    "       iopoly-profile model [--central SPEC] [--link SPEC] [--local SPEC] [--port SPEC]\n"
    "                            [--cb SIZE] [--json FILE] LOG...\n"
    "  LOG: a merged log (IOPOLY_PROFILE=prefix -> prefix.iopp) or per-rank logs (prefix.<rank>.iopp)\n"
    "  SPEC: latency=<t>,seq=<t>,bw=<bytes/s>,wbw=<bytes/s> (e.g. latency=1ms,bw=18M)\n";

std::string flagsText(uint16_t F) {
  static const std::pair<uint16_t, const char *> Names[] = {
      {AfCollective, "coll"}, {AfNonblocking, "nb"},       {AfSharedPtr, "shared"}, {AfOrdered, "ordered"},
      {AfIndivPtr, "indiv"},  {AfPosix, "posix"},          {AfInternal, "internal"}, {AfViewUnknown, "noview"},
      {AfSplit, "split"},     {AfIncomplete, "incomplete"}, {AfFailed, "failed"},      {AfConcurrent, "concurrent"}};
  std::string S;
  for (auto &[Bit, Name] : Names)
    if (F & Bit)
      S += (S.empty() ? "" : "|") + std::string(Name);
  return S.empty() ? "-" : S;
}

int loadAll(const std::vector<std::string> &Paths, std::vector<Section> &Secs, std::vector<Run> &Runs) {
  std::vector<std::string> Warn;
  for (const std::string &P : Paths)
    if (Error E = readLog(P, Secs, Warn)) {
      std::fprintf(stderr, "iopoly-profile: error: %s\n", E.message().c_str());
      return 1;
    }
  for (const std::string &W : Warn)
    std::fprintf(stderr, "iopoly-profile: warning: %s\n", W.c_str());
  if (Error E = groupRuns(Secs, Runs)) {
    std::fprintf(stderr, "iopoly-profile: error: %s\n", E.message().c_str());
    return 1;
  }
  return 0;
}

double secs(uint64_t Ns) { return static_cast<double>(Ns) * 1e-9; }

int cmdShow(const std::vector<Section> &Secs) {
  for (const Section &S : Secs) {
    std::printf("section: run %016" PRIx64 " rank %u of %u, host %s, pid %u, program %s%s%s\n", S.RunId, S.Rank,
                S.NRanks, S.Host.c_str(), S.Pid, S.Program.c_str(), S.LocalDir.empty() ? "" : ", local dir ",
                S.LocalDir.c_str());
    for (auto &[Id, F] : S.Files)
      std::printf("  file %u: %s (%s, communicator rank %u of %u, instance %016" PRIx64 ")\n", Id, F.Path.c_str(),
                  F.Posix ? "POSIX" : "MPI-IO", F.CommRank, F.CommSize, F.Instance);
    // Records in call order.
    struct Row {
      uint32_t Call;
      uint64_t Start;
      std::string Text;
      size_t Index;
    };
    std::vector<Row> Rows;
    for (const AccessRecord &A : S.Accesses)
      Rows.push_back({A.Call, A.Start,
                      strf("%10.6f %10.6f call %-6u %-5s file %u offset %" PRIu64 " length %" PRIu64 " [%s]%s%s",
                           secs(A.Start), secs(A.End), A.Call, A.Op ? "write" : "read", A.File, A.Offset, A.Length,
                           flagsText(A.Flags).c_str(), A.Target ? " -> " : "",
                           A.Target ? (std::string(targetName(static_cast<Target>(A.Target))) +
                                       (A.Target >= 2 ? strf(" %u", A.Peer) : "") +
                                       (A.LocalOff != kNoLocal ? strf(" @%" PRIu64, A.LocalOff) : ""))
                                          .c_str()
                                    : ""), 0});
    for (const EventRecord &E : S.Events)
      Rows.push_back({E.Call, E.Start,
                      strf("%10.6f %10.6f call %-6u %-5s %s%s args %" PRIu64 " %" PRIu64 " %" PRIu64 " [%s]",
                           secs(E.Start), secs(E.End), E.Call, eventName(static_cast<EventKind>(E.Event)),
                           E.File == kNoFile ? "" : "file ", E.File == kNoFile ? "" : std::to_string(E.File).c_str(),
                           E.Arg0, E.Arg1, E.Arg2, flagsText(E.Flags).c_str()), 0});
    for (size_t I = 0; I < Rows.size(); ++I)
      Rows[I].Index = I;
    std::sort(Rows.begin(), Rows.end(), [](const Row &A, const Row &B) {
      return std::tie(A.Call, A.Start, A.Index) < std::tie(B.Call, B.Start, B.Index);
    });
    for (const Row &R : Rows)
      std::printf("  %s\n", R.Text.c_str());
  }
  return 0;
}

int cmdCsv(const std::vector<Section> &Secs) {
  std::printf("run,rank,host,record,what,path,offset,length,start_s,end_s,flags,target,peer,call\n");
  for (const Section &S : Secs) {
    auto PathOf = [&](uint32_t Id) {
      const LoggedFile *F = S.file(Id);
      return F ? F->Path : std::string();
    };
    for (const AccessRecord &A : S.Accesses)
      std::printf("%016" PRIx64 ",%u,%s,access,%s,\"%s\",%" PRIu64 ",%" PRIu64 ",%.9f,%.9f,%s,%s,%u,%u\n", S.RunId,
                  S.Rank, S.Host.c_str(), A.Op ? "write" : "read", PathOf(A.File).c_str(), A.Offset, A.Length,
                  secs(A.Start), secs(A.End), flagsText(A.Flags).c_str(), targetName(static_cast<Target>(A.Target)),
                  A.Peer, A.Call);
    for (const EventRecord &E : S.Events)
      std::printf("%016" PRIx64 ",%u,%s,event,%s,\"%s\",%" PRIu64 ",%" PRIu64 ",%.9f,%.9f,%s,,,%u\n", S.RunId, S.Rank,
                  S.Host.c_str(), eventName(static_cast<EventKind>(E.Event)),
                  E.File == kNoFile ? "" : PathOf(E.File).c_str(), E.Arg0, E.Arg1, secs(E.Start), secs(E.End),
                  flagsText(E.Flags).c_str(), E.Call);
  }
  return 0;
}

struct Tally {
  uint64_t Calls = 0, Pieces = 0, Bytes = 0;
  double Seconds = 0;
  std::vector<uint64_t> Sizes;
  std::set<std::pair<uint32_t, uint32_t>> CallIds; ///< (rank, call)
};

int cmdSummary(const std::vector<Run> &Runs) {
  for (const Run &R : Runs) {
    const Section *Any = nullptr;
    for (const Section *S : R.Ranks)
      if (S && !Any)
        Any = S;
    std::printf("run %016" PRIx64 ": %u ranks%s, program %s\n", R.RunId, R.NRanks,
                R.missingRanks() ? strf(" (%zu missing)", R.missingRanks()).c_str() : "",
                Any ? Any->Program.c_str() : "?");
    // file -> op -> tally; rank -> op -> tally
    std::map<std::string, Tally[2]> ByFile;
    std::map<uint32_t, Tally[2]> ByRank;
    uint64_t Internal = 0, Posix = 0;
    double Span = 0;
    for (const Section *S : R.Ranks) {
      if (!S)
        continue;
      for (const AccessRecord &A : S->Accesses) {
        Span = std::max(Span, secs(S->absNs(A.End) - R.T0));
        if (A.Flags & AfInternal) {
          Internal += A.Length;
          continue;
        }
        if (A.Flags & AfPosix)
          Posix += A.Length;
        const LoggedFile *F = S->file(A.File);
        for (Tally *T : {&ByFile[F ? F->Path : "?"][A.Op], &ByRank[S->Rank][A.Op]}) {
          T->Pieces += 1;
          T->Bytes += A.Length;
          if (T->CallIds.insert({S->Rank, A.Call}).second) {
            T->Calls += 1;
            T->Seconds += A.End > A.Start ? secs(A.End - A.Start) : 0;
          }
          T->Sizes.push_back(A.Length);
        }
      }
    }
    auto Line = [](const char *Name, Tally &T) {
      if (!T.Pieces)
        return;
      std::sort(T.Sizes.begin(), T.Sizes.end());
      std::printf("    %-5s %8" PRIu64 " calls %8" PRIu64 " pieces %12s  piece size min %s median %s max %s  "
                  "%.3f s in calls\n",
                  Name, T.Calls, T.Pieces, humanBytes(T.Bytes).c_str(), humanBytes(T.Sizes.front()).c_str(),
                  humanBytes(T.Sizes[T.Sizes.size() / 2]).c_str(), humanBytes(T.Sizes.back()).c_str(), T.Seconds);
    };
    for (auto &[Path, T] : ByFile) {
      std::printf("  %s\n", Path.c_str());
      Line("read", T[0]);
      Line("write", T[1]);
    }
    std::printf("  per rank:\n");
    for (auto &[Rank, T] : ByRank)
      std::printf("    rank %-4u read %12s in %6" PRIu64 " calls, write %12s in %6" PRIu64 " calls\n", Rank,
                  humanBytes(T[0].Bytes).c_str(), T[0].Calls, humanBytes(T[1].Bytes).c_str(), T[1].Calls);
    if (Internal)
      std::printf("  partition layer traffic (staging, gather, broadcast): %s\n", humanBytes(Internal).c_str());
    if (Posix)
      std::printf("  of which POSIX: %s\n", humanBytes(Posix).c_str());
    std::printf("  last access ends %.3f s after the run started\n\n", Span);
  }
  return 0;
}

/// Mount point and file-system type of \p Path from /proc/mounts.
std::pair<std::string, std::string> mountOf(const std::string &Path) {
  std::ifstream M("/proc/mounts");
  std::string Dev, Dir, Type, Rest, BestDir = "/", BestType = "unknown";
  while (M >> Dev >> Dir >> Type && std::getline(M, Rest)) {
    bool Prefix = Path.compare(0, Dir.size(), Dir) == 0 &&
                  (Dir == "/" || Path.size() == Dir.size() || Path[Dir.size()] == '/');
    if (Prefix && Dir.size() >= BestDir.size()) {
      BestDir = Dir;
      BestType = Type;
    }
  }
  return {BestDir, BestType};
}

uint64_t pathId(const std::string &P) {
  uint64_t H = 1469598103934665603ull;
  for (unsigned char C : P) {
    H ^= C;
    H *= 1099511628211ull;
  }
  return H;
}

int cmdDxt(const std::vector<Run> &Runs) {
  for (const Run &R : Runs) {
    const Section *Any = nullptr;
    double End = 0;
    for (const Section *S : R.Ranks)
      if (S) {
        if (!Any)
          Any = S;
        for (const AccessRecord &A : S->Accesses)
          End = std::max(End, secs(S->absNs(A.End) - R.T0));
      }
    time_t T0 = static_cast<time_t>(R.T0 / 1000000000ull);
    char Asc[64] = "";
    ctime_r(&T0, Asc);
    Asc[std::strcspn(Asc, "\n")] = 0;
    std::printf("# darshan log version: n/a (converted by iopoly-profile dxt from an iopoly profile)\n");
    std::printf("# exe: %s\n", Any ? Any->Program.c_str() : "");
    std::printf("# uid: %u\n", static_cast<unsigned>(getuid()));
    std::printf("# jobid: %" PRIu64 "\n", R.RunId);
    std::printf("# start_time: %lld\n# start_time_asci: %s\n", static_cast<long long>(T0), Asc);
    std::printf("# end_time: %lld\n", static_cast<long long>(T0 + static_cast<time_t>(End)));
    std::printf("# nprocs: %u\n# run time: %.4f\n", R.NRanks, End);
    for (int Module = 0; Module < 2; ++Module) { // 0 POSIX, 1 MPI-IO
      const char *Mod = Module ? "X_MPIIO" : "X_POSIX";
      std::printf("\n# ***************************************************\n# DXT_%s module data\n"
                  "# ***************************************************\n",
                  Module ? "MPIIO" : "POSIX");
      // By file, then by rank (darshan-dxt-parser's order).
      std::map<std::string, std::map<uint32_t, std::vector<const AccessRecord *>>> ByFile;
      std::map<uint32_t, const Section *> SecOf;
      for (const Section *S : R.Ranks) {
        if (!S)
          continue;
        SecOf[S->Rank] = S;
        for (const AccessRecord &A : S->Accesses) {
          if (A.Flags & AfInternal)
            continue;
          bool Posix = A.Flags & AfPosix;
          if (Posix != (Module == 0))
            continue;
          const LoggedFile *F = S->file(A.File);
          ByFile[F ? F->Path : "?"][S->Rank].push_back(&A);
        }
      }
      for (auto &[Path, Ranks] : ByFile) {
        auto [Mnt, Fs] = mountOf(Path);
        for (auto &[Rank, List] : Ranks) {
          const Section *S = SecOf[Rank];
          std::sort(List.begin(), List.end(), [](const AccessRecord *A, const AccessRecord *B) {
            return A->Start != B->Start ? A->Start < B->Start : A < B; // records are in log order in memory
          });
          size_t W = std::count_if(List.begin(), List.end(), [](const AccessRecord *A) { return A->Op == 1; });
          std::printf("\n# DXT, file_id: %" PRIu64 ", file_name: %s\n", pathId(Path), Path.c_str());
          std::printf("# DXT, rank: %u, hostname: %s\n", Rank, S->Host.c_str());
          std::printf("# DXT, write_count: %zu, read_count: %zu\n", W, List.size() - W);
          std::printf("# DXT, mnt_pt: %s, fs_type: %s\n", Mnt.c_str(), Fs.c_str());
          std::printf("# Module    Rank  Wt/Rd  Segment          Offset       Length    Start(s)      End(s)\n");
          for (int Op = 1; Op >= 0; --Op) {
            int Seg = 0;
            for (const AccessRecord *A : List)
              if (A->Op == Op)
                std::printf("%8s%8u%7s%9d%16" PRIu64 "%16" PRIu64 "%12.4f%12.4f\n", Mod, Rank, Op ? "write" : "read",
                            Seg++, A->Offset, A->Length, secs(S->absNs(A->Start) - R.T0),
                            secs(S->absNs(A->End) - R.T0));
          }
        }
      }
    }
  }
  return 0;
}

int cmdModel(const ClusterParams &P, const std::vector<Run> &Runs, const std::string &JsonPath) {
  nlohmann::json All = nlohmann::json::array();
  for (const Run &R : Runs) {
    ModelResult M;
    if (Error E = modelRun(R, P, M)) {
      std::fprintf(stderr, "iopoly-profile: error: %s\n", E.message().c_str());
      return 1;
    }
    for (const std::string &N : M.Notes)
      std::fprintf(stderr, "iopoly-profile: note: %s\n", N.c_str());
    std::printf("run %016" PRIx64 ": %u ranks on the modeled cluster\n", R.RunId, R.NRanks);
    std::printf("  central %s\n  link    %s\n  local   %s\n  port    %s\n", deviceString(P.Central).c_str(),
                deviceString(P.Link).c_str(), deviceString(P.Local).c_str(), deviceString(P.Port).c_str());
    std::printf("  modeled run time (I/O only)  %.4f s\n", M.Makespan);
    std::printf("  reads  %12s in %8" PRIu64 " calls, %.4f s summed, aggregate bandwidth %s/s\n",
                humanBytes(M.Read.Bytes).c_str(), M.Read.Calls, M.Read.Seconds, humanBytes(M.ReadBandwidth).c_str());
    std::printf("  writes %12s in %8" PRIu64 " calls, %.4f s summed, aggregate bandwidth %s/s\n",
                humanBytes(M.Write.Bytes).c_str(), M.Write.Calls, M.Write.Seconds,
                humanBytes(M.WriteBandwidth).c_str());
    std::printf("  bytes served: shared %s, local %s, remote %s, broadcast %s (layer's own traffic %s)\n",
                humanBytes(M.BytesByTarget[0]).c_str(), humanBytes(M.BytesByTarget[1]).c_str(),
                humanBytes(M.BytesByTarget[2]).c_str(), humanBytes(M.BytesByTarget[3]).c_str(),
                humanBytes(M.InternalBytes).c_str());
    std::printf("  busy: central disk %.4f s, link %.4f s, busiest local disk %.4f s; %" PRIu64
                " central requests\n",
                M.CentralBusy, M.LinkBusy, M.LocalBusyMax, M.CentralRequests);
    nlohmann::json Ranks = nlohmann::json::array();
    double Other = 0;
    for (const RankResult &RR : M.Ranks) {
      Other = std::max(Other, RR.OtherSeconds);
      Ranks.push_back({{"clock", RR.Clock},
                       {"read_bytes", RR.Read.Bytes},
                       {"read_seconds", RR.Read.Seconds},
                       {"write_bytes", RR.Write.Bytes},
                       {"write_seconds", RR.Write.Seconds},
                       {"other_seconds", RR.OtherSeconds}});
    }
    All.push_back({{"run_id", strf("%016" PRIx64, R.RunId)},
                   {"nranks", R.NRanks},
                   {"makespan_s", M.Makespan},
                   {"read_bytes", M.Read.Bytes},
                   {"read_calls", M.Read.Calls},
                   {"read_seconds", M.Read.Seconds},
                   {"read_bandwidth", M.ReadBandwidth},
                   {"write_bytes", M.Write.Bytes},
                   {"write_calls", M.Write.Calls},
                   {"write_seconds", M.Write.Seconds},
                   {"write_bandwidth", M.WriteBandwidth},
                   {"bytes_shared", M.BytesByTarget[0]},
                   {"bytes_local", M.BytesByTarget[1]},
                   {"bytes_remote", M.BytesByTarget[2]},
                   {"bytes_push", M.BytesByTarget[3]},
                   {"internal_bytes", M.InternalBytes},
                   {"central_busy_s", M.CentralBusy},
                   {"link_busy_s", M.LinkBusy},
                   {"local_busy_max_s", M.LocalBusyMax},
                   {"central_requests", M.CentralRequests},
                   {"other_seconds_max", Other},
                   {"ranks", Ranks},
                   {"notes", M.Notes},
                   {"params",
                    {{"central", deviceString(P.Central)},
                     {"link", deviceString(P.Link)},
                     {"local", deviceString(P.Local)},
                     {"port", deviceString(P.Port)},
                     {"collective_buffer", P.CollectiveBuffer}}}});
  }
  if (!JsonPath.empty()) {
    std::ofstream O(JsonPath);
    O << All.dump(1) << "\n";
    if (!O) {
      std::fprintf(stderr, "iopoly-profile: error: cannot write '%s'\n", JsonPath.c_str());
      return 1;
    }
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
    std::fputs(Usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  std::string Cmd = argv[1];
  ClusterParams P;
  std::string Json;
  std::vector<std::string> Logs;
  for (int I = 2; I < argc; ++I) {
    std::string A = argv[I];
    auto Value = [&](const char *Opt) -> const char * {
      if (I + 1 >= argc) {
        std::fprintf(stderr, "iopoly-profile: %s needs a value\n", Opt);
        std::exit(2);
      }
      return argv[++I];
    };
    Error E;
    if (Cmd == "model" && A == "--central")
      E = parseDevice(Value("--central"), "--central", P.Central);
    else if (Cmd == "model" && A == "--link")
      E = parseDevice(Value("--link"), "--link", P.Link);
    else if (Cmd == "model" && A == "--local")
      E = parseDevice(Value("--local"), "--local", P.Local);
    else if (Cmd == "model" && A == "--port")
      E = parseDevice(Value("--port"), "--port", P.Port);
    else if (Cmd == "model" && A == "--cb")
      E = parseBytes(Value("--cb"), P.CollectiveBuffer);
    else if (Cmd == "model" && A == "--json")
      Json = Value("--json");
    else if (!A.empty() && A[0] == '-') {
      std::fprintf(stderr, "iopoly-profile: unknown option '%s'\n%s", A.c_str(), Usage);
      return 2;
    } else
      Logs.push_back(A);
    if (E) {
      std::fprintf(stderr, "iopoly-profile: error: %s\n", E.message().c_str());
      return 2;
    }
  }
  if (Cmd != "show" && Cmd != "csv" && Cmd != "summary" && Cmd != "dxt" && Cmd != "model") {
    std::fprintf(stderr, "iopoly-profile: unknown command '%s'\n%s", Cmd.c_str(), Usage);
    return 2;
  }
  if (Logs.empty()) {
    std::fprintf(stderr, "iopoly-profile: no log given\n%s", Usage);
    return 2;
  }
  std::vector<Section> Secs;
  std::vector<Run> Runs;
  if (int Rc = loadAll(Logs, Secs, Runs))
    return Rc;
  if (Cmd == "show")
    return cmdShow(Secs);
  if (Cmd == "csv")
    return cmdCsv(Secs);
  if (Cmd == "summary")
    return cmdSummary(Runs);
  if (Cmd == "dxt")
    return cmdDxt(Runs);
  return cmdModel(P, Runs, Json);
}
