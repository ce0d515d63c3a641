//===- PartitionLayer.cpp - libiopoly_partition.so: apply a plan -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// IOPOLY_PARTITION_PLAN=plan.json, IOPOLY_LOCAL_DIR=/local/%h. A file of the
// plan, opened on as many ranks as the plan was made for (or a count its
// model covers), is served by the Router: each rank's chunks from its
// node-local file, duplicates from local copies staged on first read,
// broadcast chunks written by their writer and sent to their readers,
// central chunks and everything else from the shared file (through a
// private MPI_COMM_SELF handle, the program's handle keeping its own view
// and collective calls). At MPI_File_close (or MPI_Finalize) the dirty
// bytes go back into the shared file, so that it is byte for byte what the
// run without the plan writes; IOPOLY_PARTITION_GATHER=manual leaves them
// in the node-local files for `iopoly-partition gather`. Files the plan
// does not name, plans that do not fit, views that cannot be followed,
// other data representations and atomic mode: the call is passed through
// unchanged (and a planned file is first gathered and released).
//
//===----------------------------------------------------------------------===//
#include "apply/LocalStore.h"
#include "apply/Router.h"
#include "apply/Service.h"
#include "common/Sieve.h"
#include "common/Paths.h"
#include "mpi/Datatype.h"
#include "mpi/Interposer.h"
#include "partition/Plan.h"

#include <algorithm>
#include <climits>
#include <map>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

namespace iopoly::prof {

namespace {

struct Counters {
  uint64_t LocalRead = 0, LocalWrite = 0, SharedRead = 0, SharedWrite = 0;
  uint64_t RemoteRead = 0, RemoteWrite = 0, PushBytes = 0, StageBytes = 0, GatherBytes = 0;
  uint64_t ForeignCalls = 0, ForeignBytes = 0, ReadOnlyWrites = 0, OutsideBytes = 0;
};

struct PFile final : LayerFile {
  bool Planned = false;
  bool Released = false; ///< plan dropped mid-run (view, atomicity)
  bool GatherOk = true;
  bool Reported = false;
  bool Releasing = false; ///< gathering for release(): keep the program's view
  std::string How, Reason, Path;
  uint64_t Instance = 0;
  Router R;
  LocalStore Store;
  int Aux = -1; ///< POSIX descriptor of the shared file
  std::mutex CountMu;
  std::vector<int> WorldOf;
  std::atomic<uint64_t> SizeHint{0};
  std::vector<uint8_t> ReadOnlyRevoked; ///< duplicates this rank already revoked
  Counters C;
  void count(uint64_t Counters::*F, uint64_t N) {
    std::lock_guard<std::mutex> G(CountMu);
    C.*F += N;
  }
};

PFile *stateOf(OpenFile &F) { return static_cast<PFile *>(F.State.get()); }

/// Reads and writes of the shared file by the layer itself (staging,
/// gather, bytes of mixed calls) go through a POSIX descriptor of its own:
/// the program's MPI handle keeps its view, pointers and collective calls,
/// and no second MPI handle of the same file is needed (Open MPI's
/// shared-pointer component does not survive one per process). Short reads
/// (end of file) are zero-filled and reported.
int auxRead(PFile &P, uint64_t Off, char *Buf, uint64_t Len, uint64_t *Got = nullptr) {
  uint64_t Done = 0;
  while (Done < Len) {
    ssize_t N = pread(P.Aux, Buf + Done, Len - Done, static_cast<off_t>(Off + Done));
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0) {
      say("error", strf("reading '%s' at %llu: %s", P.Path.c_str(), static_cast<unsigned long long>(Off + Done),
                        std::strerror(errno)));
      return MPI_ERR_IO;
    }
    if (N == 0)
      break;
    Done += static_cast<uint64_t>(N);
  }
  if (Got)
    *Got = Done;
  if (Done < Len)
    std::memset(Buf + Done, 0, Len - Done);
  return MPI_SUCCESS;
}

int auxWrite(PFile &P, uint64_t Off, const char *Buf, uint64_t Len) {
  uint64_t Done = 0;
  while (Done < Len) {
    ssize_t N = pwrite(P.Aux, Buf + Done, Len - Done, static_cast<off_t>(Off + Done));
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0) {
      say("error", strf("writing '%s' at %llu: %s", P.Path.c_str(), static_cast<unsigned long long>(Off + Done),
                        N < 0 ? std::strerror(errno) : "no progress"));
      return N < 0 && errno == ENOSPC ? MPI_ERR_NO_SPACE : MPI_ERR_IO;
    }
    Done += static_cast<uint64_t>(N);
  }
  return MPI_SUCCESS;
}

uint64_t auxSize(PFile &P) {
  struct stat St;
  return fstat(P.Aux, &St) == 0 ? static_cast<uint64_t>(St.st_size) : 0;
}

class PartitionLayer final : public Layer {
public:
  const char *name() const override { return "the partition layer (libiopoly_partition.so)"; }

  int threadLevel(int Required) override {
    return runtime().Opt.PlanPath.empty() ? Required : MPI_THREAD_MULTIPLE;
  }

  void beforeInit() override {
#ifdef OMPI_MAJOR_VERSION
    // Open MPI's OMPIO progresses nonblocking file requests from any thread
    // that enters MPI, and the layer's helper thread makes that crash
    // (seen with 4.1: mca_common_ompio_progress). ROMIO completes them in
    // the call. The user's own choice of io component is kept.
    if (!runtime().Opt.PlanPath.empty())
      setenv("OMPI_MCA_io", "romio321", 0);
#endif
  }

  bool start() override {
    Runtime &Rt = runtime();
    if (Rt.Opt.PlanPath.empty())
      return Rt.Logging;
    Error E = readPlan(Rt.Opt.PlanPath, ThePlan);
    int Ok = E.ok(), AllOk = 0;
    PMPI_Allreduce(&Ok, &AllOk, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!AllOk) {
      if (E)
        say("error", "IOPOLY_PARTITION_PLAN: " + E.message() + "; no file is partitioned in this run");
      else if (Rt.WorldRank == 0)
        say("error", "IOPOLY_PARTITION_PLAN: another rank could not read the plan; no file is partitioned");
      return Rt.Logging;
    }
    int Level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&Level);
    if (Level == MPI_THREAD_MULTIPLE)
      HaveService = Svc.start([this](const MsgHeader &H, const char *D, std::vector<char> &Rep) {
        return serve(H, D, Rep);
      });
    else if (Rt.WorldRank == 0)
      say("warning", "the partition layer needs MPI_THREAD_MULTIPLE to serve other ranks; files opened by more "
                     "than one rank are not partitioned in this run");
    HavePlan = true;
    if (Rt.Opt.Verbose && Rt.WorldRank == 0)
      say("note", strf("partition: plan %s with %zu file(s), local directory %s, gather %s", Rt.Opt.PlanPath.c_str(),
                       ThePlan.Files.size(), Rt.Opt.LocalDir.c_str(), Rt.Opt.GatherAtClose ? "at close" : "manual"));
    return true;
  }

  int opened(OpenFile &F) override;
  int closing(OpenFile &F) override;
  void closed(OpenFile &F) override;
  int access(OpenFile &F, AccessReq &R) override;
  int viewChanged(OpenFile &F) override {
    PFile *P = stateOf(F);
    if (P && P->Planned && (!F.ViewKnown || !F.Native))
      return release(F, *P, F.Native ? "its view cannot be followed" : "its data representation is not native");
    return MPI_SUCCESS;
  }
  int atomicitySet(OpenFile &F, int Flag) override {
    PFile *P = stateOf(F);
    if (P && P->Planned && Flag)
      return release(F, *P, "atomic mode was asked for");
    return MPI_SUCCESS;
  }
  int sizeSet(OpenFile &F, MPI_Offset Size) override {
    PFile *P = stateOf(F);
    if (!P || !P->Planned)
      return MPI_SUCCESS;
    Error E = P->Store.truncate(static_cast<uint64_t>(Size));
    if (F.CommRank == 0)
      F.Win.setSize(static_cast<uint64_t>(Size));
    PMPI_Barrier(F.Comm);
    P->SizeHint = static_cast<uint64_t>(Size);
    if (E) {
      say("error", E.message());
      return MPI_ERR_IO;
    }
    return MPI_SUCCESS;
  }
  int synced(OpenFile &F) override {
    PFile *P = stateOf(F);
    if (!P || !P->Planned)
      return MPI_SUCCESS;
    if (Error E = P->Store.sync()) {
      say("error", E.message());
      return MPI_ERR_IO;
    }
    return MPI_SUCCESS;
  }
  int fileSize(OpenFile &F, MPI_Offset *Size) override {
    int Rc = PMPI_File_get_size(F.Fh, Size);
    PFile *P = stateOf(F);
    if (Rc == MPI_SUCCESS && P && P->Planned)
      *Size = std::max<MPI_Offset>(*Size, static_cast<MPI_Offset>(F.Win.size()));
    return Rc;
  }
  void finalizing() override {
    if (HaveService)
      Svc.stop();
    writeReport();
  }

private:
  uint32_t serve(const MsgHeader &H, const char *Data, std::vector<char> &Reply);
  int release(OpenFile &F, PFile &P, const std::string &Why);
  Error gather(OpenFile &F, PFile &P, bool Collective);
  int routed(OpenFile &F, PFile &P, AccessReq &R, std::vector<Routed> &Rs);
  int writePieces(OpenFile &F, PFile &P, AccessReq &R, const std::vector<Routed> &Rs, const char *S);
  int readPieces(OpenFile &F, PFile &P, AccessReq &R, const std::vector<Routed> &Rs, char *S, uint64_t &Done);
  int stage(PFile &P, uint32_t C, uint64_t Off, uint64_t Len, char *Out, bool Install, AccessReq &R);
  void raise(OpenFile &F, PFile &P, uint64_t End) {
    if (End > P.SizeHint.load()) {
      F.Win.raiseSize(End);
      uint64_t Cur = P.SizeHint.load();
      while (End > Cur && !P.SizeHint.compare_exchange_weak(Cur, End)) {
      }
    }
  }
  void writeReport();
  void remember(PFile &P) {
    std::lock_guard<std::mutex> G(RegMu);
    if (P.Reported)
      return;
    P.Reported = true;
    std::string Line =
        strf("{\"path\":\"%s\",\"applied\":%s,\"how\":\"%s\",\"reason\":\"%s\"", P.Path.c_str(),
             P.How.empty() ? "false" : "true", P.How.c_str(), P.Reason.c_str());
    const char *Names[] = {"local_read_bytes",  "local_write_bytes", "shared_read_bytes", "shared_write_bytes",
                           "remote_read_bytes", "remote_write_bytes", "push_bytes",       "stage_bytes",
                           "gather_bytes",      "foreign_calls",     "foreign_bytes",     "read_only_writes",
                           "outside_plan_bytes"};
    const uint64_t *V = &P.C.LocalRead;
    for (size_t I = 0; I < sizeof Names / sizeof *Names; ++I)
      Line += strf(",\"%s\":%llu", Names[I], static_cast<unsigned long long>(V[I]));
    Reports.push_back(Line + "}");
  }

  Plan ThePlan;
  bool HavePlan = false, HaveService = false;
  Service Svc;
  std::mutex RegMu;
  std::unordered_map<uint64_t, PFile *> Registry;
  std::vector<std::string> Reports;
};

int PartitionLayer::opened(OpenFile &F) {
  Runtime &Rt = runtime();
  auto Own = std::make_unique<PFile>();
  PFile &P = *Own;
  P.Path = F.Path;
  P.Instance = F.Instance;
  F.State = std::move(Own);
  if (!HavePlan)
    return MPI_SUCCESS;
  const PlanFile *Entry = ThePlan.find(F.Path);
  if (!Entry)
    return MPI_SUCCESS; // the same answer on every rank: no collective needed
  // 0 apply, 1 leave the file alone, 2 refuse to open (data at risk).
  int Verdict = 0;
  std::string Why;
  FilePlan FP;
  if (Error E = resolvePlan(*Entry, static_cast<uint32_t>(F.CommSize), FP, P.How)) {
    Verdict = 1;
    Why = E.message();
  } else if (F.CommSize > 1 && !HaveService) {
    Verdict = 1;
    Why = "MPI_THREAD_MULTIPLE is not available";
  } else if (F.Amode & MPI_MODE_SEQUENTIAL) {
    Verdict = 1;
    Why = "it was opened with MPI_MODE_SEQUENTIAL";
  }
  FileStamp Stamp;
  if (F.CommRank == 0)
    Stamp = stampOf(F.Path);
  uint64_t S[5] = {Stamp.Known, Stamp.Size, Stamp.MtimeNs, Stamp.Ino, Stamp.Dev};
  PMPI_Bcast(S, 5, MPI_UINT64_T, 0, F.Comm);
  Stamp = {S[0] != 0, S[1], S[2], S[3], S[4]};
  if (Verdict == 0) {
    P.R = Router(std::move(FP), static_cast<uint32_t>(F.CommRank));
    P.ReadOnlyRevoked.assign(P.R.chunks(), 0);
    int Mode = (F.Amode & MPI_MODE_RDONLY) ? O_RDONLY : O_RDWR;
    P.Aux = ::open(F.Path.c_str(), Mode | O_CLOEXEC);
    if (P.Aux < 0 && Mode == O_RDWR)
      P.Aux = ::open(F.Path.c_str(), O_WRONLY | O_CLOEXEC);
    if (P.Aux < 0) {
      Verdict = 1;
      Why = strf("the layer cannot open it as a POSIX file (%s)", std::strerror(errno));
    }
  }
  std::string Dir;
  if (Verdict == 0) {
    Error E = expandPattern(Rt.Opt.LocalDir, "IOPOLY_LOCAL_DIR", Rt.WorldRank, Dir);
    uint64_t Layout = layoutHash(P.R.plan(), static_cast<uint32_t>(F.CommRank));
    if (!E)
      E = P.Store.open(Dir, F.Path, static_cast<uint32_t>(F.CommRank), static_cast<uint32_t>(F.CommSize), Layout, &P.R);
    if (E && E.code() == Errc::Format) {
      Verdict = 2;
      Why = E.message();
    } else if (E) {
      Verdict = 1;
      Why = E.message();
    } else {
      const JournalState &J = P.Store.previous();
      bool SameLayout = J.Layout == Layout && J.SharedPath == F.Path;
      if (J.End == RunEnd::Crashed && J.dirtyBytes()) {
        Verdict = 2;
        Why = strf("the journal %s holds %s from a run that did not finish; run `iopoly-partition recover %s` "
                   "first (the shared file lacks them)",
                   P.Store.journalPath().c_str(), humanBytes(J.dirtyBytes()).c_str(), Dir.c_str());
      } else if (J.End == RunEnd::Deferred && J.dirtyBytes() && !(J.Stamp == Stamp)) {
        Verdict = 2;
        Why = strf("%s left %s in %s (IOPOLY_PARTITION_GATHER=manual) and the shared file changed since; run "
                   "`iopoly-partition gather` or `recover` first",
                   "a previous run", humanBytes(J.dirtyBytes()).c_str(), P.Store.dataPath().c_str());
      } else if (J.End == RunEnd::Deferred && J.dirtyBytes()) {
        if (SameLayout)
          E = P.Store.resume(Rt.RunId, true); // the node-local data is the newest
        else {
          uint64_t Bytes = 0;
          E = replayDirty(J, P.Store.dataPath(), Bytes); // the plan changed: put it back first
          if (!E)
            E = P.Store.reset(Rt.RunId);
        }
      } else if ((J.End == RunEnd::Clean || J.End == RunEnd::Deferred) && SameLayout && J.Stamp == Stamp) {
        E = P.Store.resume(Rt.RunId, false); // copies of an unchanged file stay valid
      } else {
        E = P.Store.reset(Rt.RunId);
      }
      if (E && Verdict == 0) {
        Verdict = 1;
        Why = E.message();
      }
    }
  }
  if (Verdict == 0) {
    std::lock_guard<std::mutex> G(RegMu);
    Registry[F.Instance] = &P; // before anybody can send requests for it
  }
  int All = 0;
  PMPI_Allreduce(&Verdict, &All, 1, MPI_INT, MPI_MAX, F.Comm);
  if (All != 0) {
    {
      std::lock_guard<std::mutex> G(RegMu);
      Registry.erase(F.Instance);
    }
    if (P.Aux >= 0)
      ::close(P.Aux);
    P.Aux = -1;
    P.Store.close();
    P.Reason = Why.empty() ? "another rank could not apply the plan" : Why;
    P.How.clear();
    if (All == 2) {
      if (Verdict == 2 || F.CommRank == 0)
        say("error", strf("MPI_File_open('%s'): %s", F.Path.c_str(), P.Reason.c_str()));
      return MPI_ERR_IO;
    }
    if (Rt.Opt.Verbose || (F.CommRank == 0 && Verdict == 1))
      say("note", strf("partition: '%s' is not partitioned in this run: %s", F.Path.c_str(), P.Reason.c_str()));
    return MPI_SUCCESS;
  }
  P.Planned = true;
  P.WorldOf.resize(static_cast<size_t>(F.CommSize));
  MPI_Group CG, WG;
  PMPI_Comm_group(F.Comm, &CG);
  PMPI_Comm_group(MPI_COMM_WORLD, &WG);
  std::vector<int> Ranks(static_cast<size_t>(F.CommSize));
  for (int I = 0; I < F.CommSize; ++I)
    Ranks[static_cast<size_t>(I)] = I;
  PMPI_Group_translate_ranks(CG, F.CommSize, Ranks.data(), WG, P.WorldOf.data());
  PMPI_Group_free(&CG);
  PMPI_Group_free(&WG);
  P.SizeHint = std::max<uint64_t>(auxSize(P), F.Win.size());
  if (Rt.Opt.Verbose && F.CommRank == 0)
    say("note", strf("partition: '%s' %s; node-local files in %s", F.Path.c_str(), P.How.c_str(),
                     Rt.Opt.LocalDir.c_str()));
  return MPI_SUCCESS;
}

uint32_t PartitionLayer::serve(const MsgHeader &H, const char *Payload, std::vector<char> &Reply) {
  const char *Data = Payload;
  PFile *P = nullptr;
  {
    std::lock_guard<std::mutex> G(RegMu);
    auto It = Registry.find(H.Instance);
    if (It != Registry.end())
      P = It->second;
  }
  if (!P)
    return 2;
  if (static_cast<MsgType>(H.Type) == MsgType::PushBatch) {
    if (H.Len < static_cast<uint64_t>(H.Chunk) * sizeof(PushPart))
      return 3;
    const char *Data = Payload + H.Chunk * sizeof(PushPart);
    for (uint32_t I = 0; I < H.Chunk; ++I) {
      PushPart Pt;
      std::memcpy(&Pt, Payload + I * sizeof(PushPart), sizeof Pt);
      if (Pt.Chunk >= P->R.chunks() || !P->R.holds(Pt.Chunk) || Pt.Off < P->R.chunk(Pt.Chunk).C.Offset ||
          Pt.Off + Pt.Len > P->R.chunk(Pt.Chunk).C.end())
        return 3;
      if (Error E = P->Store.applyPush(Pt.Chunk, Pt.Off, Data, Pt.Len)) {
        say("error", E.message());
        return 4;
      }
      Data += Pt.Len;
    }
    return 0;
  }
  if (H.Chunk >= P->R.chunks())
    return 2;
  const PlannedChunk &PC = P->R.chunk(H.Chunk);
  if (H.Off < PC.C.Offset || H.Off + H.Len > PC.C.end() || !P->R.holds(H.Chunk))
    return 3;
  Error E;
  switch (static_cast<MsgType>(H.Type)) {
  case MsgType::Read: {
    Reply.resize(sizeof(MsgHeader) + H.Len);
    char *Out = Reply.data() + sizeof(MsgHeader);
    std::vector<Range> Have, Missing;
    P->Store.split(H.Off, H.Off + H.Len, Have, Missing);
    for (const Range &X : Have)
      if (!E)
        E = P->Store.read(H.Chunk, X.Lo, Out + (X.Lo - H.Off), X.size());
    for (const Range &X : Missing) {
      uint64_t Ep = P->Store.epoch(H.Chunk);
      if (auxRead(*P, X.Lo, Out + (X.Lo - H.Off), X.size()) != MPI_SUCCESS)
        return 4;
      if (!E && PC.Home == static_cast<int32_t>(P->R.me()))
        E = P->Store.install(H.Chunk, X.Lo, Out + (X.Lo - H.Off), X.size(), Ep);
      P->count(&Counters::StageBytes, X.size());
    }
    break;
  }
  case MsgType::Write:
    E = P->Store.writeOwn(H.Chunk, H.Off, Data, H.Len);
    break;
  case MsgType::Push:
    E = P->Store.applyPush(H.Chunk, H.Off, Data, H.Len);
    break;
  case MsgType::Revoke:
    P->Store.revoke(H.Chunk);
    P->R.revoke(H.Chunk);
    break;
  default:
    return 5;
  }
  if (E) {
    say("error", E.message());
    return 4;
  }
  return 0;
}

int PartitionLayer::access(OpenFile &F, AccessReq &R) {
  PFile *P = stateOf(F);
  if (!P || !P->Planned || runtime().Finalized || !F.ViewKnown || !F.Native || F.Atomic || R.Bytes == 0 ||
      R.Offset < 0 || (R.Op == IoOp::Write && (F.Amode & MPI_MODE_RDONLY)))
    return passThrough(F, R); // (MPI itself refuses writes to a read-only file)
  std::vector<Routed> Rs;
  for (const Piece &Pc : R.Pieces)
    P->R.route(R.Op, Pc, Rs);
  bool AllShared = std::all_of(Rs.begin(), Rs.end(), [](const Routed &X) { return X.How == Route::Shared; });
  if (AllShared) {
    uint64_t Outside = 0;
    for (const Routed &X : Rs)
      if (X.Chunk < 0)
        Outside += X.Len;
    P->count(R.Op == IoOp::Write ? &Counters::SharedWrite : &Counters::SharedRead, R.Bytes);
    P->count(&Counters::OutsideBytes, Outside);
    return passThrough(F, R);
  }
  return routed(F, *P, R, Rs);
}

int PartitionLayer::routed(OpenFile &F, PFile &P, AccessReq &R, std::vector<Routed> &Rs) {
  int Rc = MPI_SUCCESS;
  bool W = R.Op == IoOp::Write;
  // Collective calls: every rank still takes part, this one with no data.
  if (R.Collective) {
    MPI_Status St;
    AccessReq Z = R;
    Z.Count = 0;
    Z.Status = &St;
    Form How = R.How == Form::Indiv ? Form::Indiv : Form::At;
    void *B = Z.Buf;
    MPI_Datatype T = Z.Type;
    MPI_Offset O = Z.Offset;
    if (How == Form::Indiv)
      Rc = R.SplitBegin ? (W ? PMPI_File_write_all_begin(F.Fh, B, 0, T) : PMPI_File_read_all_begin(F.Fh, B, 0, T))
           : R.Nonblocking ? (W ? PMPI_File_iwrite_all(F.Fh, B, 0, T, R.Request) : PMPI_File_iread_all(F.Fh, B, 0, T, R.Request))
                           : (W ? PMPI_File_write_all(F.Fh, B, 0, T, &St) : PMPI_File_read_all(F.Fh, B, 0, T, &St));
    else
      Rc = R.SplitBegin ? (W ? PMPI_File_write_at_all_begin(F.Fh, O, B, 0, T) : PMPI_File_read_at_all_begin(F.Fh, O, B, 0, T))
           : R.Nonblocking ? (W ? PMPI_File_iwrite_at_all(F.Fh, O, B, 0, T, R.Request)
                                : PMPI_File_iread_at_all(F.Fh, O, B, 0, T, R.Request))
                           : (W ? PMPI_File_write_at_all(F.Fh, O, B, 0, T, &St) : PMPI_File_read_at_all(F.Fh, O, B, 0, T, &St));
    if (Rc != MPI_SUCCESS)
      return Rc;
  }
  MPI_Aint Lb = 0;
  bool Contig = contiguousInMemory(R.Type, R.Count, Lb);
  if (!Contig && R.Bytes > static_cast<uint64_t>(INT_MAX)) {
    say("error", strf("'%s': an access of %s through a noncontiguous memory type is beyond what the layer packs",
                      F.Path.c_str(), humanBytes(R.Bytes).c_str()));
    return MPI_ERR_COUNT;
  }
  std::vector<char> Tmp;
  char *S = Contig ? static_cast<char *>(R.Buf) + Lb : nullptr;
  if (!Contig) {
    Tmp.resize(R.Bytes);
    S = Tmp.data();
    if (W) {
      int Pos = 0;
      PMPI_Pack(R.Buf, R.Count, R.Type, S, static_cast<int>(R.Bytes), &Pos, MPI_COMM_SELF);
    }
  }
  uint64_t Done = R.Bytes;
  R.Log.clear();
  Rc = W ? writePieces(F, P, R, Rs, S) : readPieces(F, P, R, Rs, S, Done);
  if (!W && !Contig && Done) {
    uint64_t Ts = typeSize(R.Type);
    int Elems = static_cast<int>(Ts ? Done / Ts : 0), Pos = 0;
    PMPI_Unpack(S, static_cast<int>(R.Bytes), &Pos, R.Buf, Elems, R.Type, MPI_COMM_SELF);
  }
  if (R.How == Form::Indiv)
    PMPI_File_seek(F.Fh, R.Offset + static_cast<MPI_Offset>(Done / F.View.etypeSize()), MPI_SEEK_SET);
  R.FixStatus = true;
  R.DoneBytes = Done;
  if (R.Nonblocking) {
    if (R.Collective) {
      R.Pending = Rc == MPI_SUCCESS; // the request of the no-data collective call
    } else {
      // Done already: a request that is complete at once.
      auto *Bytes = new uint64_t(Done);
      MPI_Grequest_query_function *Q = [](void *X, MPI_Status *St) {
        PMPI_Status_set_elements_x(St, MPI_BYTE, static_cast<MPI_Count>(*static_cast<uint64_t *>(X)));
        PMPI_Status_set_cancelled(St, 0);
        St->MPI_SOURCE = MPI_UNDEFINED;
        St->MPI_TAG = MPI_UNDEFINED;
        return MPI_SUCCESS;
      };
      MPI_Grequest_free_function *Fr = [](void *X) {
        delete static_cast<uint64_t *>(X);
        return MPI_SUCCESS;
      };
      MPI_Grequest_cancel_function *Ca = [](void *, int) { return MPI_SUCCESS; };
      PMPI_Grequest_start(Q, Fr, Ca, Bytes, R.Request);
      PMPI_Grequest_complete(*R.Request);
      R.Pending = false;
      R.FixStatus = false;
    }
  }
  return Rc;
}

int PartitionLayer::writePieces(OpenFile &F, PFile &P, AccessReq &R, const std::vector<Routed> &Rs, const char *S) {
  bool Foreign = false;
  // Broadcast updates of this call, one message per reader.
  std::map<uint32_t, std::vector<std::pair<PushPart, const char *>>> Pushes;
  std::vector<LocalStore::OwnPiece> Run;
  const char *RunData = nullptr;
  uint64_t RunBytes = 0, RunLocalEnd = 0;
  auto FlushRun = [&]() {
    Error E = P.Store.writeOwnRun(Run, RunData);
    Run.clear();
    if (E) {
      say("error", E.message());
      return MPI_ERR_IO;
    }
    return MPI_SUCCESS;
  };
  auto PushTo = [&](uint32_t Holder, uint32_t C, uint64_t Off, uint64_t Len, const char *D) {
    Pushes[Holder].push_back({PushPart{C, 0, Off, Len}, D});
  };
  for (const Routed &X : Rs) {
    const char *D = S + X.StreamPos;
    uint32_t C = X.Chunk < 0 ? 0 : static_cast<uint32_t>(X.Chunk);
    int Rc = MPI_SUCCESS;
    Served Log{IoOp::Write, X.FileOff, X.Len, Target::Shared, 0, false};
    switch (X.How) {
    case Route::Shared:
      Rc = auxWrite(P, X.FileOff, D, X.Len);
      P.count(&Counters::SharedWrite, X.Len);
      if (X.Chunk < 0)
        P.count(&Counters::OutsideBytes, X.Len);
      break;
    case Route::Own: {
      // Pieces that follow each other in the local file and in the data
      // are written together (Sieve.h).
      uint64_t Local = P.R.localOffset(C, X.FileOff);
      if (!Run.empty() && (Local != RunLocalEnd || D != RunData + RunBytes))
        if (int Rc2 = FlushRun())
          return Rc2;
      if (Run.empty()) {
        RunData = D;
        RunBytes = 0;
      }
      Run.push_back({C, X.FileOff, X.Len});
      RunBytes += X.Len;
      RunLocalEnd = Local + X.Len;
      Log.Where = Target::Local;
      Log.LocalOff = P.R.localOffset(C, X.FileOff);
      P.count(&Counters::LocalWrite, X.Len);
      raise(F, P, X.FileOff + X.Len);
      const PlannedChunk &PC = P.R.chunk(C);
      if (PC.Class == ChunkClass::Broadcast)
        for (uint32_t H : PC.Holders)
          if (H != P.R.me())
            PushTo(H, C, X.FileOff, X.Len, D);
      break;
    }
    case Route::Home:
    case Route::BcastWrite: {
      const PlannedChunk &PC = P.R.chunk(C);
      uint32_t Home = static_cast<uint32_t>(PC.Home);
      Log.Peer = static_cast<uint32_t>(P.WorldOf[Home]);
      if (Svc.call(static_cast<int>(Log.Peer), MsgType::Write, P.Instance, C, X.FileOff, X.Len, D, nullptr))
        return MPI_ERR_IO;
      Log.Where = Target::Remote;
      Log.LocalOff = P.R.localOffsetOf(Home, C, X.FileOff);
      P.count(&Counters::RemoteWrite, X.Len);
      raise(F, P, X.FileOff + X.Len);
      if (X.How == Route::BcastWrite)
        for (uint32_t H : PC.Holders) {
          if (H == Home)
            continue;
          if (H == P.R.me()) {
            if (Error E = P.Store.applyPush(C, X.FileOff, D, X.Len)) {
              say("error", E.message());
              return MPI_ERR_IO;
            }
            continue;
          }
          PushTo(H, C, X.FileOff, X.Len, D);
        }
      Foreign = true;
      P.count(&Counters::ForeignBytes, X.Len);
      break;
    }
    case Route::DupWrite: {
      // A read-only chunk is written: every copy goes, then the shared file.
      if (!P.ReadOnlyRevoked[C]) {
        const PlannedChunk &PC = P.R.chunk(C);
        for (uint32_t H : PC.Holders)
          if (H != P.R.me() && Svc.call(P.WorldOf[H], MsgType::Revoke, P.Instance, C, 0, 0, nullptr, nullptr))
            return MPI_ERR_IO;
        if (P.R.holds(C))
          P.Store.revoke(C);
        P.R.revoke(C);
        P.ReadOnlyRevoked[C] = 1;
        P.count(&Counters::ReadOnlyWrites, 1);
      }
      Rc = auxWrite(P, X.FileOff, D, X.Len);
      P.count(&Counters::SharedWrite, X.Len);
      Foreign = true;
      break;
    }
    case Route::Copy:
      break; // writes never route here
    }
    if (Rc != MPI_SUCCESS)
      return Rc;
    R.Log.push_back(Log);
  }
  if (int Rc = FlushRun())
    return Rc;
  // The updates: one message per reader (or more for large ones), sent to
  // every reader at once, all acknowledged before the call returns.
  std::vector<Service::Batch> Out;
  bool First = true;
  for (auto &[H, Parts] : Pushes) {
    int Peer = P.WorldOf[H];
    for (size_t I = 0; I < Parts.size();) {
      size_t J = I;
      uint64_t Bytes = 0;
      while (J < Parts.size() && (J == I || Bytes + Parts[J].first.Len <= Service::MaxMessage / 2)) {
        Bytes += Parts[J].first.Len;
        ++J;
      }
      Service::Batch B{Peer, MsgType::PushBatch, P.Instance, static_cast<uint32_t>(J - I), {}};
      B.Payload.resize((J - I) * sizeof(PushPart) + Bytes);
      char *Table = B.Payload.data(), *Data = B.Payload.data() + (J - I) * sizeof(PushPart);
      for (size_t K = I; K < J; ++K) {
        std::memcpy(Table + (K - I) * sizeof(PushPart), &Parts[K].first, sizeof(PushPart));
        std::memcpy(Data, Parts[K].second, Parts[K].first.Len);
        Data += Parts[K].first.Len;
      }
      Out.push_back(std::move(B));
      const PushPart &F0 = Parts[I].first;
      Served L{IoOp::Write, F0.Off, Bytes, Target::Push, static_cast<uint32_t>(Peer), true};
      L.LocalOff = P.R.localOffsetOf(H, F0.Chunk, F0.Off);
      L.Concurrent = !First;
      First = false;
      R.Log.push_back(L);
      P.count(&Counters::PushBytes, Bytes);
      I = J;
    }
  }
  if (!Out.empty() && Svc.sendAll(Out))
    return MPI_ERR_IO;
  if (Foreign)
    P.count(&Counters::ForeignCalls, 1);
  return MPI_SUCCESS;
}

int PartitionLayer::stage(PFile &P, uint32_t C, uint64_t Off, uint64_t Len, char *Out, bool Install, AccessReq &R) {
  uint64_t Ep = P.Store.epoch(C);
  int Rc = auxRead(P, Off, Out, Len);
  if (Rc != MPI_SUCCESS)
    return Rc;
  R.Log.push_back({IoOp::Read, Off, Len, Target::Shared, 0, true});
  P.count(&Counters::StageBytes, Len);
  if (Install) {
    if (Error E = P.Store.install(C, Off, Out, Len, Ep)) {
      say("error", E.message());
      return MPI_ERR_IO;
    }
    Served L{IoOp::Write, Off, Len, Target::Local, 0, true};
    L.LocalOff = P.R.localOffset(C, Off);
    R.Log.push_back(L);
  }
  return MPI_SUCCESS;
}

int PartitionLayer::readPieces(OpenFile &F, PFile &P, AccessReq &R, const std::vector<Routed> &Rs, char *S,
                               uint64_t &Done) {
  uint64_t MaxEnd = 0;
  for (const Routed &X : Rs)
    MaxEnd = std::max(MaxEnd, X.FileOff + X.Len);
  if (MaxEnd > P.SizeHint.load()) {
    uint64_t Now = std::max(auxSize(P), F.Win.size());
    uint64_t Cur = P.SizeHint.load();
    while (Now > Cur && !P.SizeHint.compare_exchange_weak(Cur, Now)) {
    }
  }
  uint64_t Eof = P.SizeHint.load();
  Done = R.Bytes;
  bool Foreign = false;
  // The bytes this rank's node-local file holds, in sweeps (Sieve.h); the
  // rest of each node-local piece (Missing) is fetched below.
  std::vector<std::vector<Range>> Missing(Rs.size());
  {
    std::vector<SievePiece> Parts;
    std::vector<char *> Dest;
    for (size_t Ix = 0; Ix < Rs.size(); ++Ix) {
      const Routed &X = Rs[Ix];
      if (X.FileOff >= Eof)
        break;
      if (X.How != Route::Own && X.How != Route::Copy)
        continue;
      uint64_t Len = std::min(X.Len, Eof - X.FileOff);
      uint32_t C = static_cast<uint32_t>(X.Chunk);
      std::vector<Range> Have;
      P.Store.split(X.FileOff, X.FileOff + Len, Have, Missing[Ix]);
      for (const Range &V : Have) {
        Parts.push_back({P.R.localOffset(C, V.Lo), V.size(), Dest.size()});
        Dest.push_back(S + X.StreamPos + (V.Lo - X.FileOff));
      }
    }
    std::vector<char> Sweep;
    for (auto [First, Last] : sieve(Parts)) {
      uint64_t Lo = Parts[First].Local, Hi = Lo;
      for (size_t K = First; K < Last; ++K)
        Hi = std::max(Hi, Parts[K].Local + Parts[K].Len);
      char *Into = Last - First == 1 ? Dest[Parts[First].Index] : (Sweep.resize(Hi - Lo), Sweep.data());
      if (Error E = P.Store.readLocal(Lo, Into, Hi - Lo)) {
        say("error", E.message());
        return MPI_ERR_IO;
      }
      if (Last - First > 1)
        for (size_t K = First; K < Last; ++K)
          std::memcpy(Dest[Parts[K].Index], Sweep.data() + (Parts[K].Local - Lo), Parts[K].Len);
    }
  }
  for (size_t Ix = 0; Ix < Rs.size(); ++Ix) {
    const Routed &X = Rs[Ix];
    if (X.FileOff >= Eof) {
      Done = X.StreamPos;
      break;
    }
    uint64_t Len = std::min(X.Len, Eof - X.FileOff);
    char *D = S + X.StreamPos;
    uint32_t C = X.Chunk < 0 ? 0 : static_cast<uint32_t>(X.Chunk);
    int Rc = MPI_SUCCESS;
    Target Where = Target::Shared;
    uint32_t Peer = 0;
    uint64_t LocalOff = kNoLocal;
    switch (X.How) {
    case Route::Shared:
    case Route::DupWrite:
    case Route::BcastWrite:
      Rc = auxRead(P, X.FileOff, D, Len);
      P.count(&Counters::SharedRead, Len);
      if (X.Chunk < 0)
        P.count(&Counters::OutsideBytes, Len);
      break;
    case Route::Own:
    case Route::Copy: {
      Where = Target::Local;
      LocalOff = P.R.localOffset(C, X.FileOff);
      const PlannedChunk &PC = P.R.chunk(C); // (valid bytes were read in the sweeps above)
      for (const Range &V : Missing[Ix]) {
        char *Out = D + (V.Lo - X.FileOff);
        if (PC.Class == ChunkClass::Broadcast && PC.Home != static_cast<int32_t>(P.R.me())) {
          // A broadcast reader without the bytes yet: the writer has them.
          uint64_t Ep = P.Store.epoch(C);
          int Home = P.WorldOf[static_cast<size_t>(PC.Home)];
          if (Svc.call(Home, MsgType::Read, P.Instance, C, V.Lo, V.size(), nullptr, Out))
            return MPI_ERR_IO;
          Served L{IoOp::Read, V.Lo, V.size(), Target::Remote, static_cast<uint32_t>(Home), true};
          L.LocalOff = P.R.localOffsetOf(static_cast<uint32_t>(PC.Home), C, V.Lo);
          R.Log.push_back(L);
          P.count(&Counters::RemoteRead, V.size());
          if (Error E = P.Store.install(C, V.Lo, Out, V.size(), Ep)) {
            say("error", E.message());
            return MPI_ERR_IO;
          }
        } else if ((Rc = stage(P, C, V.Lo, V.size(), Out, true, R)) != MPI_SUCCESS) {
          return Rc;
        }
      }
      P.count(&Counters::LocalRead, Len);
      break;
    }
    case Route::Home: {
      const PlannedChunk &PC = P.R.chunk(C);
      int Home = P.WorldOf[static_cast<size_t>(PC.Home)];
      if (Svc.call(Home, MsgType::Read, P.Instance, C, X.FileOff, Len, nullptr, D))
        return MPI_ERR_IO;
      Where = Target::Remote;
      Peer = static_cast<uint32_t>(Home);
      LocalOff = P.R.localOffsetOf(static_cast<uint32_t>(PC.Home), C, X.FileOff);
      P.count(&Counters::RemoteRead, Len);
      if (PC.Class == ChunkClass::Local || !std::binary_search(PC.Holders.begin(), PC.Holders.end(), P.R.me())) {
        Foreign = true;
        P.count(&Counters::ForeignBytes, Len);
      }
      break;
    }
    }
    if (Rc != MPI_SUCCESS)
      return Rc;
    Served L{IoOp::Read, X.FileOff, Len, Where, Peer, false};
    L.LocalOff = LocalOff;
    R.Log.push_back(L);
    if (Len < X.Len) {
      Done = X.StreamPos + Len;
      break;
    }
  }
  if (Foreign)
    P.count(&Counters::ForeignCalls, 1);
  return MPI_SUCCESS;
}

Error PartitionLayer::gather(OpenFile &F, PFile &P, bool Collective) {
  Runtime &Rt = runtime();
  uint32_t Call = Rt.nextCall();
  uint64_t T0 = Rt.now(), Bytes = 0;
  // The dirty bytes, cut at chunk boundaries (each chunk has its place in
  // the local file) and into pieces of at most 8 MiB.
  struct Pc {
    uint64_t Off, Len;
    uint32_t Chunk;
  };
  std::vector<Pc> Pieces;
  for (const Range &X : P.Store.dirty())
    for (uint64_t Pos = X.Lo; Pos < X.Hi;) {
      int32_t C = P.R.chunkAt(Pos);
      if (C < 0)
        return Error(Errc::Io, strf("dirty byte %llu of '%s' is outside the plan", static_cast<unsigned long long>(Pos),
                                    F.Path.c_str()));
      uint64_t Hi = std::min<uint64_t>({X.Hi, P.R.chunk(static_cast<uint32_t>(C)).C.end(), Pos + (8u << 20)});
      Pieces.push_back({Pos, Hi - Pos, static_cast<uint32_t>(C)});
      Pos = Hi;
    }
  std::vector<Served> Log;
  auto Note = [&](const Pc &X) {
    Served L{IoOp::Read, X.Off, X.Len, Target::Local, 0, true};
    L.LocalOff = P.R.localOffset(X.Chunk, X.Off);
    Log.push_back(L);
    Served W{IoOp::Write, X.Off, X.Len, Target::Shared, 0, true};
    W.Collective = Collective;
    Log.push_back(W);
    Bytes += X.Len;
  };
  Error Err;
  std::vector<char> Buf;
  if (!Collective) {
    for (const Pc &X : Pieces) {
      Buf.resize(X.Len);
      if ((Err = P.Store.read(X.Chunk, X.Off, Buf.data(), X.Len)))
        break;
      if (auxWrite(P, X.Off, Buf.data(), X.Len) != MPI_SUCCESS) {
        Err = Error(Errc::Io, strf("writing '%s' at %llu failed", F.Path.c_str(), static_cast<unsigned long long>(X.Off)));
        break;
      }
      Note(X);
    }
    if (!Err && Bytes && fsync(P.Aux) != 0)
      Err = Error(Errc::Io, strf("fsync of '%s' failed after the gather: %s", F.Path.c_str(), std::strerror(errno)));
  } else {
    // Through the program's handle, collectively: a view of this rank's
    // dirty ranges and MPI_File_write_at_all, so MPI-IO aggregates every
    // rank's pieces into large contiguous writes (two-phase I/O), in rounds
    // of at most 32 MiB per rank.
    std::vector<std::pair<size_t, size_t>> Rounds;
    for (size_t I = 0; I < Pieces.size();) {
      size_t J = I;
      uint64_t N = 0;
      while (J < Pieces.size() && (J == I || N + Pieces[J].Len <= (32u << 20)))
        N += Pieces[J++].Len;
      Rounds.push_back({I, J});
      I = J;
    }
    int64_t Mine = static_cast<int64_t>(Rounds.size()), Max = 0;
    PMPI_Allreduce(&Mine, &Max, 1, MPI_INT64_T, MPI_MAX, F.Comm);
    for (int64_t K = 0; K < Max; ++K) {
      size_t First = K < Mine ? Rounds[static_cast<size_t>(K)].first : 0;
      size_t Last = K < Mine ? Rounds[static_cast<size_t>(K)].second : 0;
      std::vector<int> Lens;
      std::vector<MPI_Aint> Displs;
      uint64_t N = 0;
      for (size_t I = First; I < Last; ++I)
        N += Pieces[I].Len;
      Buf.resize(N);
      N = 0;
      for (size_t I = First; I < Last && !Err; ++I) {
        Err = P.Store.read(Pieces[I].Chunk, Pieces[I].Off, Buf.data() + N, Pieces[I].Len);
        Lens.push_back(static_cast<int>(Pieces[I].Len));
        Displs.push_back(static_cast<MPI_Aint>(Pieces[I].Off));
        N += Pieces[I].Len;
      }
      if (Err) { // still take part, with nothing
        Lens.clear();
        N = 0;
      }
      MPI_Datatype T = MPI_BYTE;
      if (!Lens.empty()) {
        PMPI_Type_create_hindexed(static_cast<int>(Lens.size()), Lens.data(), Displs.data(), MPI_BYTE, &T);
        PMPI_Type_commit(&T);
      }
      MPI_Status St;
      int Rc = PMPI_File_set_view(F.Fh, 0, MPI_BYTE, T, "native", MPI_INFO_NULL);
      if (Rc == MPI_SUCCESS)
        Rc = PMPI_File_write_at_all(F.Fh, 0, Buf.data(), static_cast<int>(N), MPI_BYTE, &St);
      if (T != MPI_BYTE)
        PMPI_Type_free(&T);
      if (Rc != MPI_SUCCESS && !Err)
        Err = Error(Errc::Io, strf("the collective write of '%s' back from the node-local files failed", F.Path.c_str()));
      if (!Err)
        for (size_t I = First; I < Last; ++I)
          Note(Pieces[I]);
    }
    if (Max > 0 && PMPI_File_sync(F.Fh) != MPI_SUCCESS && !Err)
      Err = Error(Errc::Io, strf("MPI_File_sync of '%s' failed after the gather", F.Path.c_str()));
  }
  P.count(&Counters::GatherBytes, Bytes);
  Rt.logAccess(F, 0, Log, T0, Rt.now(), Call);
  Rt.logEvent(F.LogId, EventKind::Gather, Collective ? AfCollective : 0, Bytes, 0, 0, T0, Rt.now(), Call);
  return Err;
}

int PartitionLayer::closing(OpenFile &F) {
  PFile *P = stateOf(F);
  if (!P || !P->Planned || P->Released)
    return MPI_SUCCESS;
  Runtime &Rt = runtime();
  PMPI_Barrier(F.Comm); // from here on nobody asks this rank for the file's data
  int Ok = 1;
  if (Rt.Opt.GatherAtClose || P->Releasing) {
    if (Error E = gather(F, *P, !P->Releasing)) {
      say("error", E.message() + strf("; the data stays in %s (run `iopoly-partition recover`)",
                                      P->Store.dataPath().c_str()));
      Ok = 0;
    }
  }
  int AllOk = 0;
  PMPI_Allreduce(&Ok, &AllOk, 1, MPI_INT, MPI_MIN, F.Comm);
  P->GatherOk = Ok;
  // Tell the user when the run did not follow the plan.
  uint64_t Mine[4] = {P->C.ForeignCalls, P->C.ForeignBytes, P->C.ReadOnlyWrites, P->C.OutsideBytes}, Sum[4];
  PMPI_Reduce(Mine, Sum, 4, MPI_UINT64_T, MPI_SUM, 0, F.Comm);
  if (F.CommRank == 0 && (Sum[0] || Sum[2]))
    say("warning",
        strf("the partition plan does not match this run for '%s': %llu call(s) reached %s planned for other ranks "
             "(served through them), %llu read-only chunk(s) were written (their copies dropped); the data is "
             "correct, the speed is not what the plan promised: profile this run again",
             F.Path.c_str(), static_cast<unsigned long long>(Sum[0]), humanBytes(static_cast<double>(Sum[1])).c_str(),
             static_cast<unsigned long long>(Sum[2])));
  if (P->Aux >= 0)
    ::close(P->Aux);
  P->Aux = -1;
  return AllOk ? MPI_SUCCESS : MPI_ERR_IO;
}

void PartitionLayer::closed(OpenFile &F) {
  PFile *P = stateOf(F);
  if (!P)
    return;
  Runtime &Rt = runtime();
  if (P->Planned && !P->Released) {
    // Stamp the shared file once every rank has closed it.
    PMPI_Barrier(F.Comm);
    FileStamp St;
    if (F.CommRank == 0)
      St = stampOf(F.Path);
    uint64_t S[5] = {St.Known, St.Size, St.MtimeNs, St.Ino, St.Dev};
    PMPI_Bcast(S, 5, MPI_UINT64_T, 0, F.Comm);
    St = {S[0] != 0, S[1], S[2], S[3], S[4]};
    if (P->GatherOk) {
      bool Deferred = !Rt.Opt.GatherAtClose && !P->Releasing && P->Store.dirtyBytes();
      if (!Deferred)
        P->Store.markClean();
      if (Error E = P->Store.finish(Deferred, St))
        say("error", E.message());
      else if (Deferred && F.CommRank == 0)
        say("note", strf("'%s' is not up to date: its newest data is in the node-local files (%s); run "
                         "`iopoly-partition gather` before other programs read it",
                         F.Path.c_str(), Rt.Opt.LocalDir.c_str()));
    }
  }
  {
    std::lock_guard<std::mutex> G(RegMu);
    Registry.erase(F.Instance);
  }
  P->Store.close();
  if (HavePlan && ThePlan.find(F.Path))
    remember(*P);
}

int PartitionLayer::release(OpenFile &F, PFile &P, const std::string &Why) {
  // Collective: put the data back, then serve the file as if unplanned.
  P.Releasing = true;
  int Rc = closing(F);
  closed(F);
  P.Released = true;
  P.Planned = false;
  P.Reason = "released mid-run: " + Why;
  if (F.CommRank == 0)
    say("note", strf("partition: '%s' %s; its data was put back into the shared file", F.Path.c_str(),
                     P.Reason.c_str()));
  return Rc;
}

void PartitionLayer::writeReport() {
  Runtime &Rt = runtime();
  if (Rt.Opt.ReportPath.empty())
    return;
  std::string Path;
  if (Error E = expandPattern(Rt.Opt.ReportPath, "IOPOLY_PARTITION_REPORT", Rt.WorldRank, Path)) {
    say("error", E.message());
    return;
  }
  std::string J = strf("{\"rank\":%d,\"host\":\"%s\",\"plan\":\"%s\",\"files\":[", Rt.WorldRank, Rt.Host.c_str(),
                       Rt.Opt.PlanPath.c_str());
  for (size_t I = 0; I < Reports.size(); ++I)
    J += (I ? "," : "") + Reports[I];
  J += "]}\n";
  int Fd = ::open(Path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd < 0 || ::write(Fd, J.data(), J.size()) != static_cast<ssize_t>(J.size()))
    say("error", strf("IOPOLY_PARTITION_REPORT: cannot write '%s'", Path.c_str()));
  if (Fd >= 0)
    ::close(Fd);
}

} // namespace

Layer *createLayer() {
  static PartitionLayer L;
  return &L;
}

} // namespace iopoly::prof
