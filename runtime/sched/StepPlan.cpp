//===- StepPlan.cpp - Paper 1 Fig. 14 in lock step ------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "sched/StepPlan.h"

#include <algorithm>

namespace iopoly::sched {

StepPlan planSteps(const TaskGraph &Graph, Policy P, unsigned Processors, uint64_t Capacity,
                   std::vector<unsigned> Owner) {
  const size_t N = Graph.size();
  Processors = std::max(1u, Processors);
  bool Owned = !Owner.empty();
  if (!Owned && P == Policy::Naive)
    Owner = contiguousShares(N, Processors), Owned = true;

  std::vector<std::vector<uint32_t>> Succ = Graph.successors();
  std::vector<uint32_t> Pending(N);
  std::vector<uint32_t> Ready;
  for (uint32_t T = 0; T < N; ++T)
    if (!(Pending[T] = static_cast<uint32_t>(Graph.Tasks[T].Preds.size())))
      Ready.push_back(T);
  std::vector<DiskMap> Last(Processors);
  DiskMap Previous;
  StepPlan Plan;
  size_t Done = 0;
  while (Done < N) {
    std::vector<int64_t> Step(Processors, -1);
    DiskMap Usage;
    uint64_t Pinned = 0;
    bool Any = false;
    for (unsigned K = 0; K < Processors; ++K) {
      std::vector<uint32_t> Mine;
      for (uint32_t T : Ready) {
        uint64_t Need = std::max<uint64_t>(1, Graph.Tasks[T].Stripes);
        if ((!Owned || Owner[T] == K) && (!Any || !Capacity || Pinned + Need <= Capacity))
          Mine.push_back(T);
      }
      if (Mine.empty())
        continue;
      DiskMap Ref = Previous;
      if (Any)
        Ref = Usage;
      uint32_t T = P == Policy::Global ? pickGlobal(Graph, Mine, Ref) : pickOwnOrder(Graph, Mine, Last[K]);
      Ready.erase(std::find(Ready.begin(), Ready.end(), T));
      Step[K] = T;
      Usage |= Graph.Tasks[T].Disks;
      Pinned += std::max<uint64_t>(1, Graph.Tasks[T].Stripes);
      Last[K] = Graph.Tasks[T].Disks;
      Any = true;
    }
    if (!Any)
      break; // only an invalid (cyclic) graph gets here
    // Sets finish at the end of their step: their successors become ready.
    for (int64_t T : Step)
      if (T >= 0) {
        ++Done;
        for (uint32_t S : Succ[static_cast<size_t>(T)])
          if (!--Pending[S])
            Ready.push_back(S);
      }
    std::sort(Ready.begin(), Ready.end());
    Plan.Steps.push_back(Step);
    Plan.Usage.push_back(Usage);
    Previous = Usage;
  }
  return Plan;
}

} // namespace iopoly::sched
