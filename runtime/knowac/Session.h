//===- Session.h - KNOWAC state of one process ------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The wrappers of the ncmpi_ functions hand every call to the process's one
// Session (paper 5, Fig. 7, the main thread's flow): it knows the open
// files (their slots, layout and modes), records the run's accesses,
// serves gets from the prefetch cache when that is exact and coherent,
// keeps writes coherent with the cache, feeds the helper thread, and at
// exit merges the run into the knowledge base and writes the statistics.
//
// Collective gets are served from the cache only when every rank of the
// file's communicator can serve its part (one MPI_Allreduce on a duplicate
// of the communicator, in prefetch mode only): otherwise every rank reads
// from the file, as the collective I/O underneath requires.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_KNOWAC_SESSION_H
#define IOPOLY_KNOWAC_SESSION_H

#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <pnetcdf.h>

#include "Cache.h"
#include "Graph.h"
#include "KnowacStats.h"
#include "Options.h"
#include "Prefetcher.h"
#include "Store.h"

#include <memory>
#include <sys/types.h>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace iopoly {
namespace knowac {

/// The shape of a get/put call.
enum class Kind { Var, Var1, Vara, Vars, Varm };

struct Request {
  Kind K = Kind::Var;
  const MPI_Offset *Start = nullptr, *Count = nullptr, *Stride = nullptr, *Imap = nullptr;
};

/// The caller's buffer: a typed API (NcType = the NC_ code of its element
/// type) or the flexible API (BufCount, BufType).
struct Mem {
  int NcType = 0;
  bool Flexible = false;
  MPI_Offset BufCount = -1;
  MPI_Datatype BufType = MPI_DATATYPE_NULL;
};

/// Which outstanding nonblocking requests a wait covers.
enum class WaitSet { Listed, All, Gets, Puts };

class Session {
public:
  /// The process's session (created on first use, never destroyed: it is
  /// used from atexit).
  static Session &instance();

  /// True on the fast path when the call must go straight to PnetCDF
  /// (KNOWAC off, or a call made from inside PnetCDF): one load and a
  /// thread-local compare.
  static bool bypass();

  // Files.
  void opened(MPI_Comm Comm, const char *Path, int Mode, bool Created, int Ncid);
  void enddef(int Ncid);
  void redef(int Ncid);
  void indep(int Ncid, bool On);
  void sync(int Ncid);
  void renamed(int Ncid);
  void closing(int Ncid);
  void inquiry();

  // Data. Each returns what the real call (or the cache) returned.
  template <class RealFn>
  int get(int Ncid, int Varid, const Request &R, void *Buf, const Mem &M, bool Collective, RealFn Real);
  template <class RealFn> int put(int Ncid, int Varid, const Request &R, RealFn Real);
  template <class RealFn> int iget(int Ncid, int Varid, const Request &R, void *Buf, const Mem &M, int *Req, RealFn Real);
  template <class RealFn> int iput(int Ncid, int Varid, const Request &R, int *Req, RealFn Real);
  template <class RealFn> int wait(int Ncid, int Num, const int *Reqs, RealFn Real);
  /// Writes KNOWAC does not model (varn, vard, mput, fill): invalidate the
  /// variables (Varids empty: the whole file); Req: a nonblocking one.
  template <class RealFn> int otherPut(int Ncid, const std::vector<int> &Varids, int *Req, RealFn Real);
  /// Reads KNOWAC does not model: forwarded and counted.
  template <class RealFn> int otherGet(RealFn Real);

  /// At exit: stop the helper, merge the run, write the statistics.
  void shutdown();

private:
  struct OpenFile;
  struct Ctx; // one modeled access in progress

  Session();
  void startRun(OpenFile &F);
  OpenFile *find(int Ncid);
  bool snapshot(OpenFile &F);
  void publish(OpenFile &F);
  int64_t numRecs(OpenFile &F);
  bool describe(OpenFile &F, int Varid, const Request &R, Op O, Ctx &X);
  bool servable(const OpenFile &F, const Ctx &X, const Mem &M, bool CheckMode, bool Collective, Conv &Cv);
  bool agree(OpenFile *F, bool Mine);
  bool beginGet(int Ncid, int Varid, const Request &R, void *Buf, const Mem &M, bool Collective, bool Nonblocking,
                Ctx &X);
  void beginPut(int Ncid, int Varid, const Request &R, Ctx &X);
  void endPut(Ctx &X, int Rc, bool Nonblocking, int Req);
  void endAccess(Ctx &X, int Rc, bool Served, bool Nonblocking, int Req);
  void beginOtherPut(int Ncid, const std::vector<int> &Varids);
  void endOtherPut(int Ncid, int Rc, const int *Req);
  void ioBegin();
  void ioEnd();
  void waited(int Ncid, int Num, const std::vector<int> &Listed, double Seconds);
  void releaseWrite(OpenFile &F);
  void disable(const Error &E);
  void note(const std::string &Msg);

  class Resolver;

  Options O;
  bool Coordinate = false; ///< collective gets agree across ranks (prefetch mode)
  bool Learning = false;   ///< the run is recorded and merged
  bool Prefetching = false; ///< a helper thread runs and the cache serves
  std::string ErrorMsg, ErrorCode;
  Counters K;
  std::unique_ptr<Cache> C;
  std::unique_ptr<Store> S;
  Graph G;
  std::unique_ptr<Resolver> Res;
  std::unique_ptr<Prefetcher> P;

  std::mutex Mu; ///< main-thread state (PnetCDF callers are serialized anyway)
  bool Started = false;
  bool ShutDown = false;
  bool HelperStarted = false;
  std::string App, Journal;
  int Rank = 0, NProcs = 1;
  std::vector<Step> Path;
  Clock::time_point LastEnd;
  std::unordered_map<int, std::unique_ptr<OpenFile>> Files;
  std::unordered_map<std::string, int> Slots; ///< canonical path -> slot
  MergeStats Merged;
  bool MergedOk = false;
  int64_t StartWallNs = 0;
  pid_t Pid = 0;
  uint64_t Inquiries = 0;
  uint64_t AgreeNs = 0; ///< in the collective agreement (MPI_Allreduce)
};

/// One modeled access on its way through the session.
struct Session::Ctx {
  OpenFile *F = nullptr;
  int Var = -1;
  bool Modeled = false; ///< a known file and variable, a valid region
  Box B;
  Label L;
  std::string Key;
  uint64_t Bytes = 0;
  Clock::time_point T0;
  double Gap = 0;
  enum { None, Miss, PartialHit } Outcome = None; ///< of a get while prefetching
  bool JoinCollective = false; ///< served, but the collective read needs this rank
};

/// An empty collective get of \p Varid (\p NDims > 0): how a rank served
/// from the cache takes part in a collective read other ranks need.
int joinCollectiveGet(int Ncid, int Varid, int NDims);

/// Depth of ncmpi_ calls on this thread: calls PnetCDF makes to its own
/// public functions (and the session's own inquiries) go straight through.
extern thread_local int CallDepth;
struct DepthGuard {
  DepthGuard() { ++CallDepth; }
  ~DepthGuard() { --CallDepth; }
};

template <class RealFn>
int Session::get(int Ncid, int Varid, const Request &R, void *Buf, const Mem &M, bool Collective, RealFn Real) {
  Ctx X;
  bool Served = beginGet(Ncid, Varid, R, Buf, M, Collective, false, X);
  int Rc = NC_NOERR;
  if (!Served || X.JoinCollective) {
    ioBegin();
    Rc = Served ? joinCollectiveGet(Ncid, Varid, int(X.B.rank())) : Real();
    ioEnd();
  }
  endAccess(X, Rc, Served, false, NC_REQ_NULL);
  return Rc;
}

template <class RealFn> int Session::put(int Ncid, int Varid, const Request &R, RealFn Real) {
  Ctx X;
  beginPut(Ncid, Varid, R, X);
  ioBegin();
  int Rc = Real();
  ioEnd();
  endPut(X, Rc, false, NC_REQ_NULL);
  return Rc;
}

template <class RealFn>
int Session::iget(int Ncid, int Varid, const Request &R, void *Buf, const Mem &M, int *Req, RealFn Real) {
  Ctx X;
  if (beginGet(Ncid, Varid, R, Buf, M, false, true, X)) {
    // Served now: the request needs no I/O, as PnetCDF says of an empty one.
    if (Req)
      *Req = NC_REQ_NULL;
    endAccess(X, NC_NOERR, true, true, NC_REQ_NULL);
    return NC_NOERR;
  }
  int Rc = Real(); // only posts the request; the I/O happens in the wait
  endAccess(X, Rc, false, true, Req && Rc == NC_NOERR ? *Req : NC_REQ_NULL);
  return Rc;
}

template <class RealFn> int Session::iput(int Ncid, int Varid, const Request &R, int *Req, RealFn Real) {
  Ctx X;
  beginPut(Ncid, Varid, R, X);
  int Rc = Real();
  endPut(X, Rc, true, Req && Rc == NC_NOERR ? *Req : NC_REQ_NULL);
  return Rc;
}

template <class RealFn> int Session::wait(int Ncid, int Num, const int *Reqs, RealFn Real) {
  // PnetCDF overwrites the ids with NC_REQ_NULL: keep them.
  std::vector<int> Listed;
  if (Num > 0 && Reqs)
    Listed.assign(Reqs, Reqs + Num);
  Clock::time_point T0 = Clock::now();
  ioBegin();
  int Rc = Real();
  ioEnd();
  waited(Ncid, Num, Listed, std::chrono::duration<double>(Clock::now() - T0).count());
  return Rc;
}

template <class RealFn> int Session::otherPut(int Ncid, const std::vector<int> &Varids, int *Req, RealFn Real) {
  beginOtherPut(Ncid, Varids);
  ioBegin();
  int Rc = Real();
  ioEnd();
  endOtherPut(Ncid, Rc, Req);
  return Rc;
}

template <class RealFn> int Session::otherGet(RealFn Real) {
  K.Unmodeled.fetch_add(1, std::memory_order_relaxed);
  ioBegin();
  int Rc = Real();
  ioEnd();
  return Rc;
}

} // namespace knowac
} // namespace iopoly

#endif
