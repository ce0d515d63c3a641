//===- Session.cpp - Recording, serving and coherence of one process -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Session.h"

#include "core/Config.h"
#include "Identity.h"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <unistd.h>

/// Defined by include/iopoly/knowac_app.h in a program compiled with
/// -DIOPOLY_KNOWAC_APP=name (null otherwise).
extern "C" __attribute__((weak)) const char iopoly_knowac_app_name[];

namespace iopoly {
namespace knowac {

thread_local int CallDepth = 0;

namespace {

/// Set once by the session's constructor: KNOWAC does something in this
/// process (options valid, mode not off).
std::atomic<bool> Active{false};

/// Steps of one run kept at most (a very long run stops recording there).
constexpr size_t MaxSteps = 2000000;

uint64_t nsSince(Clock::time_point T0) {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - T0).count());
}

double secondsBetween(Clock::time_point A, Clock::time_point B) {
  return std::chrono::duration<double>(B - A).count();
}

int64_t wallNs() {
  struct timespec Ts;
  clock_gettime(CLOCK_REALTIME, &Ts);
  return int64_t(Ts.tv_sec) * 1000000000 + Ts.tv_nsec;
}

/// The NC_ code of a predefined MPI datatype (0 for others).
int ncTypeOfMpi(MPI_Datatype T) {
  if (T == MPI_CHAR)
    return NcChar;
  if (T == MPI_SIGNED_CHAR)
    return NcByte;
  if (T == MPI_UNSIGNED_CHAR)
    return NcUByte;
  if (T == MPI_SHORT)
    return NcShort;
  if (T == MPI_UNSIGNED_SHORT)
    return NcUShort;
  if (T == MPI_INT)
    return NcInt;
  if (T == MPI_UNSIGNED)
    return NcUInt;
  if (T == MPI_LONG)
    return sizeof(long) == 8 ? NcInt64 : NcInt;
  if (T == MPI_FLOAT)
    return NcFloat;
  if (T == MPI_DOUBLE)
    return NcDouble;
  if (T == MPI_LONG_LONG_INT || T == MPI_LONG_LONG)
    return NcInt64;
  if (T == MPI_UNSIGNED_LONG_LONG)
    return NcUInt64;
  return 0;
}

void atExit() { Session::instance().shutdown(); }

} // namespace

/// What the helper thread may know of an open file.
struct FileView {
  std::string Path;
  FileId Id;
  char Mode = 'r';
  std::vector<VarLayout> Vars;
  int64_t RecSize = 0;
  std::shared_ptr<FileGuard> Guard;
};

struct Session::OpenFile {
  int Ncid = -1;
  std::string Path; ///< as the program named it
  std::string Real; ///< absolute, symbolic links resolved
  FileId Id;
  int Slot = -1;
  char Mode = 'r';
  MPI_Comm Comm = MPI_COMM_NULL; ///< duplicate, for the collective agreement
  bool Indep = false, Define = false, Usable = false, Described = false;
  int Unlim = -1;
  int64_t RecSize = 0;
  std::vector<VarLayout> Vars;
  std::shared_ptr<FileGuard> Guard = std::make_shared<FileGuard>();
  struct PendingReq {
    bool Put = false;
    size_t Step = SIZE_MAX; ///< the access in Path (gets)
  };
  std::unordered_map<int, PendingReq> Pending;
};

/// Predicted labels -> reads of the files open now (helper thread).
class Session::Resolver : public TaskSource {
public:
  explicit Resolver(const Graph &G) : G(G) {}
  void set(int Slot, std::shared_ptr<const FileView> V) {
    std::lock_guard<std::mutex> L(Mu);
    if (V)
      BySlot[Slot] = std::move(V);
    else
      BySlot.erase(Slot);
  }
  bool resolve(const Prediction &P, ReadTask &Out) override {
    if (P.Vertices.empty())
      return false;
    const Label &Lb = G.vertices()[P.Vertices.front()].L;
    std::shared_ptr<const FileView> V;
    {
      std::lock_guard<std::mutex> L(Mu);
      auto It = BySlot.find(Lb.Slot);
      if (It == BySlot.end())
        return false;
      V = It->second;
    }
    if (V->Mode != Lb.Mode)
      return false;
    for (size_t I = 0; I < V->Vars.size(); ++I) {
      const VarLayout &VL = V->Vars[I];
      if (VL.Name != Lb.Var)
        continue;
      Shape Sh;
      Sh.Len = VL.Dims;
      if (VL.Record)
        Sh.Len[0] = V->Guard->NumRecs.load();
      Box B;
      if (!materialize(Lb.Region, Sh, B))
        return false;
      Out.Key = P.Key;
      Out.File = V->Id;
      Out.Path = V->Path;
      Out.Var = int(I);
      Out.B = std::move(B);
      Out.Layout = VL;
      Out.RecSize = V->RecSize;
      Out.Guard = V->Guard;
      return true;
    }
    return false;
  }

private:
  const Graph &G;
  std::mutex Mu;
  std::map<int, std::shared_ptr<const FileView>> BySlot;
};

Session &Session::instance() {
  static Session *S = new Session();
  return *S;
}

bool Session::bypass() { return CallDepth > 0 || !Active.load(std::memory_order_relaxed); }

Session::Session() {
  StartWallNs = wallNs();
  Pid = ::getpid();
  Error E = parseOptions(processEnvGet(), processEnvNames(), O);
  if (E) {
    std::fprintf(stderr, "iopoly: knowac: error: %s; KNOWAC is off for this run\n", E.message().c_str());
    ErrorMsg = E.message();
    ErrorCode = errcName(E.code());
    return;
  }
  if (O.M == Mode::Off) {
    if (!O.StatsPath.empty())
      std::atexit(atExit);
    return;
  }
  Coordinate = O.M == Mode::Prefetch;
  Learning = true;
  Active.store(true);
  std::atexit(atExit);
}

void Session::note(const std::string &Msg) {
  if (O.Verbose)
    std::fprintf(stderr, "iopoly: knowac[%d]: %s\n", Rank, Msg.c_str());
}

void Session::disable(const Error &E) {
  // Learning and prefetching stop; the collective agreement (if any) goes
  // on, so that every rank keeps making the same MPI calls.
  std::fprintf(stderr, "iopoly: knowac: error: %s; the program continues without KNOWAC\n", E.message().c_str());
  if (ErrorMsg.empty()) {
    ErrorMsg = E.message();
    ErrorCode = errcName(E.code());
  }
  Learning = false;
  if (P)
    P->stop();
  Prefetching = false;
}

Session::OpenFile *Session::find(int Ncid) {
  auto It = Files.find(Ncid);
  return It == Files.end() ? nullptr : It->second.get();
}

int64_t Session::numRecs(OpenFile &F) {
  if (F.Unlim < 0)
    return 0;
  MPI_Offset N = 0;
  if (ncmpi_inq_dimlen(F.Ncid, F.Unlim, &N) != NC_NOERR)
    return F.Guard->NumRecs.load();
  F.Guard->NumRecs.store(N);
  return N;
}

bool Session::snapshot(OpenFile &F) {
  F.Described = false;
  F.Usable = false;
  F.Vars.clear();
  int Fmt = 0, NVars = 0;
  if (ncmpi_inq_format(F.Ncid, &Fmt) != NC_NOERR || ncmpi_inq_nvars(F.Ncid, &NVars) != NC_NOERR)
    return false;
  if (ncmpi_inq_unlimdim(F.Ncid, &F.Unlim) != NC_NOERR)
    F.Unlim = -1;
  MPI_Offset Rs = 0;
  if (ncmpi_inq_recsize(F.Ncid, &Rs) != NC_NOERR)
    Rs = 0;
  F.RecSize = Rs;
  for (int V = 0; V < NVars; ++V) {
    char Name[NC_MAX_NAME + 1];
    nc_type XType;
    int NDims = 0;
    if (ncmpi_inq_varname(F.Ncid, V, Name) != NC_NOERR || ncmpi_inq_vartype(F.Ncid, V, &XType) != NC_NOERR ||
        ncmpi_inq_varndims(F.Ncid, V, &NDims) != NC_NOERR)
      return false;
    std::vector<int> DimIds(size_t(NDims > 0 ? NDims : 0));
    if (NDims > 0 && ncmpi_inq_vardimid(F.Ncid, V, DimIds.data()) != NC_NOERR)
      return false;
    VarLayout VL;
    VL.Name = Name;
    VL.XType = XType;
    VL.ElemSize = ncTypeSize(XType);
    VL.Record = NDims > 0 && DimIds[0] == F.Unlim;
    for (int D : DimIds) {
      MPI_Offset Len = 0;
      if (ncmpi_inq_dimlen(F.Ncid, D, &Len) != NC_NOERR)
        return false;
      VL.Dims.push_back(Len);
    }
    MPI_Offset Off = 0;
    if (ncmpi_inq_varoffset(F.Ncid, V, &Off) == NC_NOERR)
      VL.Begin = Off;
    else
      VL.ElemSize = 0; // no offset: never read ahead
    F.Vars.push_back(std::move(VL));
  }
  numRecs(F);
  F.Described = true;
  // Classic, CDF-2 and CDF-5 files only: those have the layout NcLayout knows.
  F.Usable = Fmt == NC_FORMAT_CLASSIC || Fmt == NC_FORMAT_CDF2 || Fmt == NC_FORMAT_CDF5;
  publish(F);
  return true;
}

void Session::publish(OpenFile &F) {
  if (!Res || !F.Described)
    return;
  auto V = std::make_shared<FileView>();
  V->Path = F.Real;
  V->Id = F.Id;
  V->Mode = F.Mode;
  V->Vars = F.Vars;
  if (!F.Usable)
    for (VarLayout &VL : V->Vars)
      VL.ElemSize = 0; // never read ahead
  V->RecSize = F.RecSize;
  V->Guard = F.Guard;
  Res->set(F.Slot, V);
}

void Session::startRun(OpenFile &F) {
  Started = true;
  Clock::time_point T0 = Clock::now();
  int Inited = 0;
  MPI_Initialized(&Inited);
  if (Inited) {
    MPI_Comm_rank(MPI_COMM_WORLD, &Rank);
    MPI_Comm_size(MPI_COMM_WORLD, &NProcs);
  }
  std::vector<VarSignature> Sig;
  for (const VarLayout &VL : F.Vars) {
    VarSignature VS;
    VS.Name = VL.Name;
    VS.XType = VL.XType;
    Sig.push_back(VS);
  }
  // Dimension names make formats differ that share variable names.
  for (size_t V = 0; V < Sig.size(); ++V) {
    int NDims = 0;
    if (ncmpi_inq_varndims(F.Ncid, int(V), &NDims) != NC_NOERR || NDims <= 0)
      continue;
    std::vector<int> Ids(static_cast<size_t>(NDims));
    if (ncmpi_inq_vardimid(F.Ncid, int(V), Ids.data()) != NC_NOERR)
      continue;
    for (int D : Ids) {
      char Name[NC_MAX_NAME + 1];
      if (ncmpi_inq_dimname(F.Ncid, D, Name) == NC_NOERR)
        Sig[V].DimNames.push_back(Name);
    }
  }
  const char *Compiled = iopoly_knowac_app_name; // null unless the program defines it
  App = resolveApp(O.App, Compiled, executableName(), Sig);
  Path.clear();
  Step S0;
  S0.L = Label::start(Rank, NProcs);
  Path.push_back(S0);
  S = std::make_unique<Store>();
  if (Error E = S->open(O.Db)) {
    S.reset();
    disable(E);
    addNs(K.MetadataNs, nsSince(T0));
    return;
  }
  Journal = S->journalMode();
  note("application '" + App + "', branch '" + O.Current + "', knowledge in " + O.Db);
  if (O.M == Mode::Prefetch) {
    bool Found = false;
    if (Error E = S->load(App, O.Current, G, Found)) {
      disable(E);
      addNs(K.MetadataNs, nsSince(T0));
      return;
    }
    const std::string StartKey = S0.L.key();
    bool HasStart = !G.withKey(StartKey).empty();
    note(Found ? "graph of " + std::to_string(G.size()) + " vertices loaded" + (HasStart ? "" : " (none for this rank)")
               : std::string("no graph yet: this run only learns"));
    if (HasStart) {
      C = std::make_unique<Cache>(O.CacheBytes);
      C->setWaitHook([this](bool W) {
        if (P)
          P->mainWaiting(W);
      });
      Res = std::make_unique<Resolver>(G);
      P = std::make_unique<Prefetcher>(G, *C, *Res, K, O);
      Prefetching = true;
    }
  }
  addNs(K.MetadataNs, nsSince(T0));
}

void Session::opened(MPI_Comm Comm, const char *PathArg, int Mode, bool Created, int Ncid) {
  std::lock_guard<std::mutex> L(Mu);
  if (ShutDown)
    return;
  auto F = std::make_unique<OpenFile>();
  // A collective call (mostly waiting for the other ranks): not counted as
  // KNOWAC's own time.
  if (Coordinate)
    MPI_Comm_dup(Comm, &F->Comm);
  Clock::time_point T0 = Clock::now();
  F->Ncid = Ncid;
  F->Path = PathArg ? PathArg : "";
  F->Mode = Created ? 'c' : (Mode & NC_WRITE) ? 'w' : 'r';
  F->Define = Created;
  FileSig Sig;
  if (statFile(F->Path, Sig))
    F->Id = Sig.Id;
  char Real[PATH_MAX];
  std::string Canon = ::realpath(F->Path.c_str(), Real) ? std::string(Real) : F->Path;
  F->Real = Canon; // a later chdir() of the program must not change what the helper opens
  auto It = Slots.find(Canon);
  F->Slot = It != Slots.end() ? It->second : int(Slots.size());
  if (It == Slots.end())
    Slots[Canon] = F->Slot;
  OpenFile &Ref = *F;
  Files[Ncid] = std::move(F);
  if (!Created)
    snapshot(Ref);
  if (!Started)
    startRun(Ref);
  if (!Created)
    publish(Ref);
  if (P && !HelperStarted) {
    HelperStarted = true;
    P->start(Path[0].L.key());
  }
  if (Path.size() == 1)
    LastEnd = Clock::now(); // idle time before the first access counts from here
  addNs(K.MetadataNs, nsSince(T0));
}

void Session::enddef(int Ncid) {
  std::lock_guard<std::mutex> L(Mu);
  OpenFile *F = find(Ncid);
  if (!F)
    return;
  // Leaving define mode may have moved every variable.
  F->Guard->Gen.fetch_add(1);
  if (C)
    C->invalidate(F->Id, -1, nullptr);
  F->Define = false;
  FileSig Sig;
  if (statFile(F->Real, Sig))
    F->Id = Sig.Id;
  snapshot(*F);
}

void Session::redef(int Ncid) {
  std::lock_guard<std::mutex> L(Mu);
  OpenFile *F = find(Ncid);
  if (!F)
    return;
  F->Define = true;
  F->Guard->Gen.fetch_add(1);
  if (C)
    C->invalidate(F->Id, -1, nullptr);
}

void Session::indep(int Ncid, bool On) {
  std::lock_guard<std::mutex> L(Mu);
  if (OpenFile *F = find(Ncid))
    F->Indep = On;
}

void Session::sync(int Ncid) {
  // A consistency point of MPI-IO: what other ranks wrote before it must
  // be seen after it.
  std::lock_guard<std::mutex> L(Mu);
  OpenFile *F = find(Ncid);
  if (!F)
    return;
  F->Guard->Gen.fetch_add(1);
  if (C)
    C->invalidate(F->Id, -1, nullptr);
  numRecs(*F);
}

void Session::renamed(int Ncid) {
  std::lock_guard<std::mutex> L(Mu);
  if (OpenFile *F = find(Ncid))
    if (!F->Define)
      snapshot(*F);
}

void Session::inquiry() {
  std::lock_guard<std::mutex> L(Mu);
  ++Inquiries;
}

void Session::closing(int Ncid) {
  std::lock_guard<std::mutex> L(Mu);
  OpenFile *F = find(Ncid);
  if (!F)
    return;
  F->Guard->Gen.fetch_add(1);
  F->Guard->Writes.store(0);
  if (C)
    C->invalidate(F->Id, -1, nullptr);
  if (Res)
    Res->set(F->Slot, nullptr);
  if (F->Comm != MPI_COMM_NULL) {
    int Fin = 0;
    MPI_Finalized(&Fin);
    if (!Fin)
      MPI_Comm_free(&F->Comm);
  }
  Files.erase(Ncid);
}

bool Session::describe(OpenFile &F, int Varid, const Request &R, Op Operation, Ctx &X) {
  X.F = &F;
  X.Var = Varid;
  if (!F.Described || F.Define || Varid < 0 || size_t(Varid) >= F.Vars.size())
    return false;
  const VarLayout &VL = F.Vars[size_t(Varid)];
  const size_t N = VL.Dims.size();
  Shape Sh;
  Sh.Len = VL.Dims;
  if (VL.Record)
    Sh.Len[0] = numRecs(F);
  Box &B = X.B;
  B.Start.assign(N, 0);
  B.Count.assign(N, 1);
  B.Stride.assign(N, 1);
  switch (R.K) {
  case Kind::Var:
    B.Count = Sh.Len;
    break;
  case Kind::Var1:
    if (N && !R.Start)
      return false;
    for (size_t D = 0; D < N; ++D)
      B.Start[D] = R.Start[D];
    break;
  case Kind::Vara:
  case Kind::Vars:
  case Kind::Varm:
    if (N && (!R.Start || !R.Count))
      return false;
    for (size_t D = 0; D < N; ++D) {
      B.Start[D] = R.Start[D];
      B.Count[D] = R.Count[D];
      if (R.K != Kind::Vara && R.Stride)
        B.Stride[D] = R.Stride[D];
    }
    break;
  }
  for (size_t D = 0; D < N; ++D)
    if (B.Start[D] < 0 || B.Count[D] < 0 || B.Stride[D] < 1)
      return false; // PnetCDF reports these; nothing to learn
  X.L.O = Operation;
  X.L.Slot = F.Slot;
  X.L.Mode = F.Mode;
  X.L.Var = VL.Name;
  X.L.Region = regionKey(B, Sh);
  X.Key = X.L.key();
  X.Bytes = B.elements() * (VL.ElemSize ? VL.ElemSize : ncTypeSize(VL.XType));
  X.Modeled = true;
  return true;
}

bool Session::servable(const OpenFile &F, const Ctx &X, const Mem &M, bool CheckMode, bool Collective, Conv &Cv) {
  Cv = Conv::None;
  if (!X.Modeled || !F.Usable || F.Define || X.B.elements() == 0)
    return false;
  if (CheckMode && Collective == F.Indep)
    return false; // PnetCDF answers NC_EINDEP / NC_ENOTINDEP
  const VarLayout &VL = F.Vars[size_t(X.Var)];
  if (!VL.ElemSize)
    return false;
  int MemType = M.NcType;
  if (M.Flexible) {
    if (M.BufType == MPI_DATATYPE_NULL) {
      MemType = VL.XType; // the buffer has the variable's own type
    } else {
      MemType = ncTypeOfMpi(M.BufType);
      if (!MemType || (M.BufCount != -1 && uint64_t(M.BufCount) != X.B.elements()))
        return false; // derived types, count mismatches: PnetCDF decides
    }
  }
  Cv = convFor(VL.XType, MemType);
  return Cv != Conv::None;
}

bool Session::agree(OpenFile *F, bool Mine) {
  if (!F || F->Comm == MPI_COMM_NULL)
    return Mine;
  Clock::time_point T0 = Clock::now();
  int In = Mine ? 1 : 0, All = 0;
  int Rc = MPI_Allreduce(&In, &All, 1, MPI_INT, MPI_MIN, F->Comm);
  // Mostly waiting for the slowest rank, which the collective read would
  // wait for anyway: kept apart from KNOWAC's own bookkeeping.
  AgreeNs += nsSince(T0);
  return Rc == MPI_SUCCESS && All == 1;
}

bool Session::beginGet(int Ncid, int Varid, const Request &R, void *Buf, const Mem &M, bool Collective,
                       bool Nonblocking, Ctx &X) {
  std::lock_guard<std::mutex> L(Mu);
  X.T0 = Clock::now();
  const uint64_t Agree0 = AgreeNs;
  OpenFile *F = find(Ncid);
  bool Hit = false, Counted = false;
  std::shared_ptr<Entry> E;
  double Waited = 0;
  Conv Cv = Conv::None;
  if (F && !ShutDown) {
    X.Gap = Path.size() ? secondsBetween(LastEnd, X.T0) : 0;
    describe(*F, Varid, R, Op::Read, X);
    Counted = X.Modeled && Prefetching; // each such get is a hit, a partial hit or a miss
    if (Counted && servable(*F, X, M, !Nonblocking, Collective, Cv)) {
      Cache::Found Fd = C->find(F->Id, Varid, X.B, E, &Waited);
      if (Fd == Cache::Found::Hit) {
        FileSig Now;
        if (statFile(F->Real, Now) && Now == E->Sig) {
          Hit = true;
        } else { // changed by another process since it was read
          C->drop(E);
          K.StaleDrops.fetch_add(1, std::memory_order_relaxed);
        }
      } else if (Fd == Cache::Found::Partial) {
        X.Outcome = Ctx::PartialHit;
      }
    }
  }
  if (Collective && Coordinate && F && !Nonblocking) {
    bool All = agree(F, Hit);
    if (Hit && !All) {
      // Another rank reads from the file: this one serves itself from the
      // cache and joins the collective read with an empty request (PnetCDF
      // allows those); a scalar has no empty request, so it reads too.
      if (X.Modeled && !F->Vars[size_t(Varid)].Dims.empty()) {
        X.JoinCollective = true;
        K.CollectiveJoins.fetch_add(1, std::memory_order_relaxed);
      } else {
        K.CollectiveFallbacks.fetch_add(1, std::memory_order_relaxed);
        C->drop(E);
        Hit = false;
      }
    }
  }
  if (!Hit) {
    if (Counted && X.Outcome == Ctx::None)
      X.Outcome = Ctx::Miss; // counted when the read succeeds (endAccess)
    addNs(K.MetadataNs, nsSince(X.T0) - (AgreeNs - Agree0));
    return false;
  }
  const VarLayout &VL = F->Vars[size_t(Varid)];
  const int64_t *Imap = nullptr;
  std::vector<int64_t> ImapCopy;
  if (R.K == Kind::Varm && R.Imap) {
    ImapCopy.assign(R.Imap, R.Imap + VL.Dims.size());
    Imap = ImapCopy.data();
  }
  copyOut(E->Data.data(), E->B, E->ElemSize, X.B, Imap, Cv, Buf);
  if (C->served(E))
    K.UsefulPredictions.fetch_add(1, std::memory_order_relaxed);
  K.Hits.fetch_add(1, std::memory_order_relaxed);
  K.HitBytes.fetch_add(X.Bytes, std::memory_order_relaxed);
  if (Waited > 0) {
    K.LateHits.fetch_add(1, std::memory_order_relaxed);
    addNs(K.WaitNs, uint64_t(Waited * 1e9));
  } else {
    double Lead = secondsBetween(E->ReadyAt, X.T0);
    if (Lead > 0)
      addNs(K.LeadNs, uint64_t(Lead * 1e9));
  }
  return true;
}

void Session::endAccess(Ctx &X, int Rc, bool Served, bool Nonblocking, int Req) {
  std::lock_guard<std::mutex> L(Mu);
  Clock::time_point T1 = Clock::now();
  if (Rc == NC_NOERR && X.Outcome == Ctx::Miss)
    K.Misses.fetch_add(1, std::memory_order_relaxed);
  else if (Rc == NC_NOERR && X.Outcome == Ctx::PartialHit)
    K.PartialHits.fetch_add(1, std::memory_order_relaxed);
  if (!X.Modeled || Rc != NC_NOERR || !Learning || ShutDown) {
    if (!X.Modeled)
      K.Unmodeled.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (Path.size() < MaxSteps) {
    Step S;
    S.L = X.L;
    S.File = X.F->Path;
    S.Bytes = X.Bytes;
    S.IoSeconds = secondsBetween(X.T0, T1);
    S.IoMeasured = !Served && !Nonblocking; // a nonblocking get's I/O is timed at its wait
    S.GapSeconds = X.Gap;
    Path.push_back(std::move(S));
    if (Nonblocking && !Served && Req != NC_REQ_NULL)
      X.F->Pending[Req] = {false, Path.size() - 1};
  }
  K.Accesses.fetch_add(1, std::memory_order_relaxed);
  if (P)
    P->accessed(X.Key);
  LastEnd = T1;
  addNs(K.MetadataNs, nsSince(T1));
}

void Session::beginPut(int Ncid, int Varid, const Request &R, Ctx &X) {
  std::lock_guard<std::mutex> L(Mu);
  X.T0 = Clock::now();
  OpenFile *F = find(Ncid);
  if (!F || ShutDown)
    return;
  X.Gap = Path.size() ? secondsBetween(LastEnd, X.T0) : 0;
  describe(*F, Varid, R, Op::Write, X);
  // Before the write: no cached copy of the region survives it, and no read
  // ahead that overlaps the write in time is kept.
  F->Guard->Writes.fetch_add(1);
  F->Guard->Gen.fetch_add(1);
  if (C) {
    size_t N = C->invalidate(F->Id, Varid, X.Modeled ? &X.B : nullptr);
    K.Invalidations.fetch_add(N, std::memory_order_relaxed);
  }
  addNs(K.MetadataNs, nsSince(X.T0));
}

void Session::releaseWrite(OpenFile &F) {
  F.Guard->Gen.fetch_add(1);
  if (F.Guard->Writes.load() > 0)
    F.Guard->Writes.fetch_sub(1);
}

void Session::endPut(Ctx &X, int Rc, bool Nonblocking, int Req) {
  {
    std::lock_guard<std::mutex> L(Mu);
    if (X.F && find(X.F->Ncid) == X.F) {
      if (Nonblocking && Rc == NC_NOERR && Req != NC_REQ_NULL)
        X.F->Pending[Req] = {true, SIZE_MAX}; // written at its wait
      else
        releaseWrite(*X.F);
      if (Rc == NC_NOERR && X.F->Unlim >= 0)
        numRecs(*X.F);
    }
  }
  endAccess(X, Rc, false, Nonblocking, NC_REQ_NULL);
}

void Session::beginOtherPut(int Ncid, const std::vector<int> &Varids) {
  std::lock_guard<std::mutex> L(Mu);
  OpenFile *F = find(Ncid);
  K.Unmodeled.fetch_add(1, std::memory_order_relaxed);
  if (!F)
    return;
  F->Guard->Writes.fetch_add(1);
  F->Guard->Gen.fetch_add(1);
  if (!C)
    return;
  size_t N = 0;
  if (Varids.empty())
    N += C->invalidate(F->Id, -1, nullptr);
  for (int V : Varids)
    N += C->invalidate(F->Id, V, nullptr);
  K.Invalidations.fetch_add(N, std::memory_order_relaxed);
}

void Session::endOtherPut(int Ncid, int Rc, const int *Req) {
  std::lock_guard<std::mutex> L(Mu);
  OpenFile *F = find(Ncid);
  if (!F)
    return;
  if (Req && Rc == NC_NOERR && *Req != NC_REQ_NULL)
    F->Pending[*Req] = {true, SIZE_MAX};
  else
    releaseWrite(*F);
  if (Rc == NC_NOERR && F->Unlim >= 0)
    numRecs(*F);
}

void Session::waited(int Ncid, int Num, const std::vector<int> &Listed, double Seconds) {
  std::lock_guard<std::mutex> L(Mu);
  OpenFile *F = find(Ncid);
  if (!F)
    return;
  std::vector<int> Done;
  if (Num == NC_REQ_ALL || Num == NC_GET_REQ_ALL || Num == NC_PUT_REQ_ALL) {
    for (const auto &KV : F->Pending)
      if (Num == NC_REQ_ALL || (Num == NC_PUT_REQ_ALL) == KV.second.Put)
        Done.push_back(KV.first);
  } else {
    for (int R : Listed)
      if (R != NC_REQ_NULL && F->Pending.count(R))
        Done.push_back(R);
  }
  size_t Gets = 0;
  for (int R : Done)
    Gets += !F->Pending[R].Put;
  for (int R : Done) {
    OpenFile::PendingReq PR = F->Pending[R];
    F->Pending.erase(R);
    if (PR.Put) {
      releaseWrite(*F);
    } else if (PR.Step < Path.size()) {
      // The wait's time, shared by the gets it completed.
      Path[PR.Step].IoSeconds = Seconds / double(Gets ? Gets : 1);
      Path[PR.Step].IoMeasured = true;
    }
  }
  if (F->Unlim >= 0)
    numRecs(*F);
}

void Session::ioBegin() {
  if (P)
    P->mainIo(true);
}

void Session::ioEnd() {
  if (P)
    P->mainIo(false);
}

void Session::shutdown() {
  Clock::time_point T0;
  {
    std::lock_guard<std::mutex> L(Mu);
    if (ShutDown || ::getpid() != Pid)
      return; // a forked child exiting: the run is its parent's
    ShutDown = true;
    T0 = Clock::now();
  }
  if (P)
    P->stop();
  StatsContext SC;
  if (Learning && S && Path.size() > 1) {
    RunInfo Run;
    char Host[256] = "";
    ::gethostname(Host, sizeof Host - 1);
    Run.Host = Host;
    Run.Pid = ::getpid();
    Run.Rank = Rank;
    Run.NProcs = NProcs;
    Run.Mode = modeName(O.M);
    Run.Accesses = K.Accesses.load();
    Run.Hits = K.Hits.load();
    Run.Predictions = K.Predictions.load();
    Run.Seconds = double(wallNs() - StartWallNs) * 1e-9;
    if (Error E = S->merge(App, O.Current, Path, Run, &Merged)) {
      std::fprintf(stderr, "iopoly: knowac: warning: this run was not added to the knowledge base: %s\n",
                   E.message().c_str());
      if (ErrorMsg.empty()) {
        ErrorMsg = E.message();
        ErrorCode = errcName(E.code());
      }
    } else {
      MergedOk = true;
      note("run merged: " + std::to_string(Path.size() - 1) + " accesses, " + std::to_string(Merged.NewVertices) +
           " new vertices");
    }
  }
  if (S)
    S->close();
  if (C)
    C->clear();
  addNs(K.MetadataNs, nsSince(T0));
  if (O.StatsPath.empty() || !Started)
    return; // a process that never opened a netCDF file (mpirun, a shell) writes nothing
  SC.Mode = modeName(O.M);
  SC.DryRun = O.DryRun;
  SC.App = App;
  SC.Branch = O.Current;
  SC.Db = O.Db;
  SC.Journal = Journal;
  SC.Error = ErrorMsg;
  SC.ErrorCode = ErrorCode;
  SC.Rank = Rank;
  SC.NProcs = NProcs;
  SC.CacheCapacity = C ? C->capacity() : O.CacheBytes;
  SC.WastedBytes = C ? C->wastedBytes() : 0;
  SC.CacheEvictions = C ? C->evictions() : 0;
  SC.GraphVertices = G.size();
  SC.GraphEdges = G.edges().size();
  SC.NewVertices = Merged.NewVertices;
  SC.Merged = MergedOk;
  SC.AgreeSeconds = double(AgreeNs) * 1e-9;
  SC.Inquiries = Inquiries;
  std::string Err = writeStats(expandPathTemplate(O.StatsPath), statsJson(K, SC), StartWallNs);
  if (!Err.empty())
    std::fprintf(stderr, "iopoly: knowac: error: IOPOLY_STATS: %s\n", Err.c_str());
}

} // namespace knowac
} // namespace iopoly
