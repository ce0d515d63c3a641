//===- iopoly-partition.cpp - Profile-guided file partitioning -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// iopoly-partition PROFILE... -o plan.json [--scaling auto|weak] [--quiet]
//     builds the plan (paper 4's graph and Table 1) and prints its report
// iopoly-partition report PLAN           the report of an existing plan
// iopoly-partition check PLAN --ranks N  whether (and how) it applies at N ranks
// iopoly-partition gather PLAN [--local-dir PATTERN] [--dry-run]
//     copies data left in node-local files (IOPOLY_PARTITION_GATHER=manual,
//     or a crashed run) back into the shared files of the plan
// iopoly-partition recover [--local-dir PATTERN] [--dry-run] [DIR...]
//     the same for every journal found, plan or not (after a crash)
// iopoly-partition status [--local-dir PATTERN] [DIR...]
//     what each journal says
//
//===----------------------------------------------------------------------===//
#include "apply/Journal.h"
#include "common/Paths.h"
#include "log/LogReader.h"
#include "partition/Plan.h"
#include "partition/Report.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <glob.h>
#include <set>

using namespace iopoly::prof;

namespace {

const char *Usage =
    "usage: iopoly-partition PROFILE... -o PLAN [--scaling auto|weak] [--quiet]\n"
    "       iopoly-partition report PLAN\n"
    "       iopoly-partition check PLAN --ranks N\n"
    "       iopoly-partition gather PLAN [--local-dir PATTERN] [--dry-run]\n"
    "       iopoly-partition recover [--local-dir PATTERN] [--dry-run] [DIR...]\n"
    "       iopoly-partition status [--local-dir PATTERN] [DIR...]\n"
    "  PROFILE: logs written under IOPOLY_PROFILE (merged or per rank; several runs may be given:\n"
    "           runs at one rank count are merged, runs at several counts fit a rank/size model)\n"
    "  PATTERN: the IOPOLY_LOCAL_DIR of the runs (default: $IOPOLY_LOCAL_DIR); %h is this host,\n"
    "           %r and %p match every rank and pid\n";

int fail(const std::string &Msg, int Rc = 1) {
  std::fprintf(stderr, "iopoly-partition: error: %s\n", Msg.c_str());
  return Rc;
}

/// The local directories that \p Pattern names on this host.
std::vector<std::string> localDirs(const std::string &Pattern) {
  std::string G;
  for (size_t I = 0; I < Pattern.size(); ++I) {
    if (Pattern[I] == '%' && I + 1 < Pattern.size()) {
      char C = Pattern[++I];
      G += C == 'h' ? hostName() : C == '%' ? "%" : "*";
    } else {
      G += Pattern[I];
    }
  }
  std::vector<std::string> Out;
  glob_t Gl;
  if (glob(G.c_str(), GLOB_ONLYDIR | GLOB_NOSORT, nullptr, &Gl) == 0) {
    for (size_t I = 0; I < Gl.gl_pathc; ++I)
      Out.push_back(Gl.gl_pathv[I]);
    globfree(&Gl);
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

int cmdMake(const std::vector<std::string> &Logs, const std::string &OutPath, const PlanOptions &O, bool Quiet) {
  std::vector<Section> Secs;
  std::vector<std::string> Warn;
  for (const std::string &L : Logs)
    if (Error E = readLog(L, Secs, Warn))
      return fail(E.message());
  for (const std::string &W : Warn)
    std::fprintf(stderr, "iopoly-partition: warning: %s\n", W.c_str());
  std::vector<Run> Runs;
  if (Error E = groupRuns(Secs, Runs))
    return fail(E.message());
  for (const Run &R : Runs)
    if (R.missingRanks())
      std::fprintf(stderr, "iopoly-partition: warning: run %016llx lacks %zu of its %u ranks; give every rank's log\n",
                   static_cast<unsigned long long>(R.RunId), R.missingRanks(), R.NRanks);
  std::map<std::string, FileProfile> Files;
  std::vector<std::string> Notes;
  collectAccesses(Runs, Files, Notes);
  for (const std::string &N : Notes)
    std::fprintf(stderr, "iopoly-partition: note: %s\n", N.c_str());
  if (Files.empty())
    return fail("the profiles hold no MPI-IO file accesses");
  Plan P = buildPlan(Files, O);
  for (const Run &R : Runs) {
    ProfileRef Ref;
    Ref.Sources = R.Sources;
    Ref.RunId = R.RunId;
    Ref.NRanks = R.NRanks;
    for (const Section *S : R.Ranks)
      if (S) {
        Ref.Program = S->Program;
        break;
      }
    P.Profiles.push_back(Ref);
  }
  if (Error E = writePlan(P, OutPath))
    return fail(E.message());
  if (!Quiet) {
    std::printf("plan %s from %zu run(s):\n\n", OutPath.c_str(), Runs.size());
    std::fputs(reportText(P).c_str(), stdout);
  }
  return 0;
}

int cmdCheck(const Plan &P, uint32_t N) {
  int Applied = 0;
  for (const PlanFile &F : P.Files) {
    FilePlan V;
    std::string How;
    Error E = resolvePlan(F, N, V, How);
    if (E) {
      std::printf("%s: not applied at %u ranks: %s\n", F.Path.c_str(), N, E.message().c_str());
      continue;
    }
    ++Applied;
    VariantStats S = variantStats(V);
    std::printf("%s: applies at %u ranks (%s): %llu local, %llu duplicate, %llu broadcast, %llu central chunks\n",
                F.Path.c_str(), N, How.c_str(), static_cast<unsigned long long>(S.ByClass[0].Chunks),
                static_cast<unsigned long long>(S.ByClass[1].Chunks),
                static_cast<unsigned long long>(S.ByClass[2].Chunks),
                static_cast<unsigned long long>(S.ByClass[3].Chunks));
  }
  return Applied ? 0 : 3;
}

/// Replays (or, with DryRun, lists) the journals in \p Dirs; only those of
/// \p Only when it is not empty.
int replayJournals(const std::vector<std::string> &Dirs, const std::set<std::string> &Only, bool DryRun,
                   bool StatusOnly) {
  int Rc = 0, Seen = 0;
  for (const std::string &D : Dirs)
    for (const std::string &J : findJournals(D)) {
      JournalState S;
      if (Error E = readJournal(J, S)) {
        std::fprintf(stderr, "iopoly-partition: warning: %s\n", E.message().c_str());
        Rc = 1;
        continue;
      }
      if (!Only.empty() && !Only.count(S.SharedPath))
        continue;
      ++Seen;
      uint64_t Dirty = S.dirtyBytes();
      std::printf("%s: %s, rank %u of %u: %s; %s newer than the shared file, %s valid copy\n", J.c_str(),
                  S.SharedPath.c_str(), S.Rank, S.NRanks, runEndName(S.End), humanBytes(Dirty).c_str(),
                  humanBytes(S.validBytes()).c_str());
      if (StatusOnly || !Dirty)
        continue;
      if (DryRun) {
        std::printf("  would copy %s into %s\n", humanBytes(Dirty).c_str(), S.SharedPath.c_str());
        continue;
      }
      uint64_t Bytes = 0;
      if (Error E = replayDirty(S, storeOfJournal(J), Bytes)) {
        std::fprintf(stderr, "iopoly-partition: error: %s: %s (journal kept; nothing is lost)\n", J.c_str(),
                     E.message().c_str());
        Rc = 1;
        continue;
      }
      // Everything is in the shared file now: the journal says so.
      RangeMap Valid = S.Valid;
      for (auto &[Delta, Set] : S.Dirty)
        for (const Range &R : Set.ranges())
          Valid[Delta].insert(R.Lo, R.Hi);
      Journal W;
      Error E = W.open(J, S.SharedPath, S.Rank, S.NRanks, S.Layout);
      if (!E)
        E = W.compact(Valid, {}, false, stampOf(S.SharedPath));
      if (E) {
        std::fprintf(stderr, "iopoly-partition: error: %s\n", E.message().c_str());
        Rc = 1;
        continue;
      }
      std::printf("  copied %s into %s\n", humanBytes(Bytes).c_str(), S.SharedPath.c_str());
    }
  if (!Seen)
    std::printf("no journals found in %zu director%s\n", Dirs.size(), Dirs.size() == 1 ? "y" : "ies");
  return Rc;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
    std::fputs(Usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  std::string Cmd = argv[1];
  bool Sub = Cmd == "report" || Cmd == "check" || Cmd == "gather" || Cmd == "recover" || Cmd == "status";
  std::vector<std::string> Args;
  std::string Out, LocalPattern = std::getenv("IOPOLY_LOCAL_DIR") ? std::getenv("IOPOLY_LOCAL_DIR") : "";
  PlanOptions O;
  bool Quiet = false, DryRun = false;
  long Ranks = 0;
  for (int I = Sub ? 2 : 1; I < argc; ++I) {
    std::string A = argv[I];
    auto Value = [&]() -> std::string {
      if (I + 1 >= argc) {
        std::fprintf(stderr, "iopoly-partition: %s needs a value\n", A.c_str());
        std::exit(2);
      }
      return argv[++I];
    };
    if (A == "-o")
      Out = Value();
    else if (A == "--scaling") {
      O.Scaling = Value();
      if (O.Scaling != "auto" && O.Scaling != "weak")
        return fail("--scaling takes auto or weak, not '" + O.Scaling + "'", 2);
    } else if (A == "--quiet")
      Quiet = true;
    else if (A == "--dry-run")
      DryRun = true;
    else if (A == "--local-dir")
      LocalPattern = Value();
    else if (A == "--ranks") {
      std::string V = Value();
      char *End = nullptr;
      Ranks = std::strtol(V.c_str(), &End, 10);
      if (*End || Ranks <= 0 || Ranks > (1 << 24))
        return fail("--ranks takes a positive number, not '" + V + "'", 2);
    } else if (!A.empty() && A[0] == '-')
      return fail("unknown option '" + A + "'\n" + Usage, 2);
    else
      Args.push_back(A);
  }
  if (!Sub) {
    if (Out.empty())
      return fail("no output: give -o plan.json", 2);
    if (Args.empty())
      return fail("no profile given", 2);
    return cmdMake(Args, Out, O, Quiet);
  }
  if (Cmd == "recover" || Cmd == "status") {
    std::vector<std::string> Dirs = Args;
    if (Dirs.empty()) {
      if (LocalPattern.empty())
        return fail("give the local directories, --local-dir PATTERN or IOPOLY_LOCAL_DIR", 2);
      Dirs = localDirs(LocalPattern);
    }
    return replayJournals(Dirs, {}, DryRun, Cmd == "status");
  }
  if (Args.size() != 1)
    return fail(Cmd + " takes one plan", 2);
  Plan P;
  if (Error E = readPlan(Args[0], P))
    return fail(E.message());
  if (Cmd == "report") {
    std::fputs(reportText(P).c_str(), stdout);
    return 0;
  }
  if (Cmd == "check") {
    if (!Ranks)
      return fail("check needs --ranks N", 2);
    return cmdCheck(P, static_cast<uint32_t>(Ranks));
  }
  // gather
  if (LocalPattern.empty())
    return fail("give --local-dir PATTERN (or IOPOLY_LOCAL_DIR): where the runs kept their node-local files", 2);
  std::set<std::string> Only;
  for (const PlanFile &F : P.Files)
    Only.insert(F.Path);
  return replayJournals(localDirs(LocalPattern), Only, DryRun, false);
}
