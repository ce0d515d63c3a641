//===- RunSets.cpp - __iopoly_run_sets and its statistics -----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "sched/RunSets.h"
#include "sched/ModelClocks.h"
#include "core/Config.h"
#include "core/Json.h"
#include "core/Runtime.h"
#include "sched/Executor.h"

#include "iopoly/abi.h"

#include <algorithm>
#include <mutex>
#include <thread>

namespace iopoly::sched {

namespace {

struct Totals : RunTotals {
  std::mutex Mu;
  unsigned Threads = 0;
  std::string Policy;
};

Totals &totals() {
  static Totals *T = new Totals; // never destroyed: the stats are written at exit
  return *T;
}

} // namespace

unsigned threadsToUse(const Config &C) {
  if (C.Threads)
    return C.Threads;
  unsigned N = std::thread::hardware_concurrency();
  return N ? N : 1;
}

void addRunTotals(unsigned Threads, const char *Policy, const RunTotals &R) {
  Totals &T = totals();
  std::lock_guard<std::mutex> L(T.Mu);
  T.Threads = Threads;
  T.Policy = Policy;
  T.Regions += R.Regions;
  T.Sets += R.Sets;
  T.Handouts += R.Handouts;
  T.DisksInUseSum += R.DisksInUseSum;
  T.DisksInUseMax = std::max(T.DisksInUseMax, R.DisksInUseMax);
  T.MaxRunning = std::max(T.MaxRunning, R.MaxRunning);
  T.MaxPinned = std::max(T.MaxPinned, R.MaxPinned);
  T.CapacityWaits += R.CapacityWaits;
}

Status graphOfTable(const iopoly_set_table &T, TaskGraph &Out) {
  if (T.abi != IOPOLY_SET_ABI)
    return Status::error(ErrorCode::Mismatch, format("set table of ABI %u, the runtime implements %u (rebuild the "
                                                     "program with this version of the plugin)",
                                                     T.abi, IOPOLY_SET_ABI));
  if (T.num_sets && (!T.pred_start || (T.disk_words && !T.disks)))
    return Status::error(ErrorCode::InvalidArgument, "set table without disk maps or dependences");
  Out.Tasks.assign(T.num_sets, SetTask());
  for (uint32_t K = 0; K < T.num_sets; ++K) {
    SetTask &S = Out.Tasks[K];
    S.Disks = DiskMap(std::vector<uint64_t>(T.disks + size_t(K) * T.disk_words,
                                            T.disks + size_t(K + 1) * T.disk_words));
    S.Stripes = T.stripes ? T.stripes[K] : 0;
    if (T.pred_start[K + 1] < T.pred_start[K] || (T.pred_start[K + 1] > T.pred_start[K] && !T.preds))
      return Status::error(ErrorCode::InvalidArgument, format("set %u: dependence list out of order", K));
    for (uint32_t E = T.pred_start[K]; E < T.pred_start[K + 1]; ++E) {
      if (T.preds[E] >= K)
        return Status::error(ErrorCode::InvalidArgument,
                             format("set %u depends on set %u, which does not come before it", K, T.preds[E]));
      S.Preds.push_back(T.preds[E]);
    }
  }
  return Out.validate();
}

std::string schedStatsJSON() {
  Totals &T = totals();
  std::lock_guard<std::mutex> L(T.Mu);
  JsonWriter W;
  W.beginObject();
  W.key("threads").value(static_cast<unsigned long long>(T.Threads));
  W.key("sched").value(T.Policy);
  W.key("regions").value(static_cast<unsigned long long>(T.Regions));
  W.key("sets").value(static_cast<unsigned long long>(T.Sets));
  W.key("handouts").value(static_cast<unsigned long long>(T.Handouts));
  W.key("disks_in_use_mean").value(T.Handouts ? double(T.DisksInUseSum) / double(T.Handouts) : 0.0);
  W.key("disks_in_use_max").value(static_cast<unsigned long long>(T.DisksInUseMax));
  W.key("max_running").value(static_cast<unsigned long long>(T.MaxRunning));
  W.key("max_pinned_stripes").value(static_cast<unsigned long long>(T.MaxPinned));
  W.key("capacity_waits").value(static_cast<unsigned long long>(T.CapacityWaits));
  W.endObject();
  return W.str();
}

} // namespace iopoly::sched

using namespace iopoly;
using namespace iopoly::sched;

extern "C" void __iopoly_run_sets(const iopoly_set_table *Table, void (*Body)(void *, uint32_t), void *Ctx) {
  if (!Table || !Body)
    fatal("__iopoly_run_sets: no set table or no body");
  std::string Where = Table->where ? Table->where : "?";
  Runtime *RT = nullptr;
  if (Status S = Runtime::get(RT))
    fatal(S.message());
  const Config &C = RT->config();
  TaskGraph Graph;
  if (Status S = graphOfTable(*Table, Graph))
    fatal(format("locality sets of the loops at %s: %s", Where.c_str(), S.message().c_str()));
  ExecOptions O;
  O.Threads = threadsToUse(C);
  if (Status S = parsePolicy(C.Sched, O.Kind))
    fatal("IOPOLY_SCHED=" + C.Sched + ": " + S.message());
  O.Capacity = C.bufferFrames();
  ModelClocks Clocks(RT->model());
  if (RT->model().enabled()) // (without a model every clock is 0: no order to keep)
    O.Clocks = &Clocks;
  ExecReport R = runTaskGraph(Graph, O, [&](uint32_t Set, unsigned) { Body(Ctx, Set); });
  RunTotals T;
  T.Regions = 1;
  T.Sets = T.Handouts = R.Starts;
  T.DisksInUseSum = R.DisksInUseSum;
  T.DisksInUseMax = R.DisksInUseMax;
  T.MaxRunning = R.MaxRunning;
  T.MaxPinned = R.MaxPinned;
  T.CapacityWaits = R.CapacityWaits;
  addRunTotals(O.Threads, policyName(O.Kind), T);
}
