//===- TaskGraph.cpp - Locality sets as tasks with dependences ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "sched/TaskGraph.h"

#include <algorithm>
#include <string>

namespace iopoly::sched {

std::vector<std::vector<uint32_t>> TaskGraph::successors() const {
  std::vector<std::vector<uint32_t>> Succ(Tasks.size());
  for (uint32_t T = 0; T < Tasks.size(); ++T)
    for (uint32_t P : Tasks[T].Preds)
      Succ[P].push_back(T);
  return Succ;
}

Status TaskGraph::validate() const {
  const size_t N = Tasks.size();
  for (uint32_t T = 0; T < N; ++T) {
    std::vector<uint32_t> Sorted = Tasks[T].Preds;
    std::sort(Sorted.begin(), Sorted.end());
    for (size_t I = 0; I < Sorted.size(); ++I) {
      uint32_t P = Sorted[I];
      if (P >= N)
        return Status::error(ErrorCode::InvalidArgument, "locality set " + std::to_string(T) +
                                                             " depends on set " + std::to_string(P) + " of " +
                                                             std::to_string(N));
      if (P == T)
        return Status::error(ErrorCode::InvalidArgument,
                             "locality set " + std::to_string(T) + " depends on itself");
      if (I && Sorted[I - 1] == P)
        return Status::error(ErrorCode::InvalidArgument, "locality set " + std::to_string(T) +
                                                             " lists its dependence on set " +
                                                             std::to_string(P) + " twice");
    }
  }
  // Kahn's algorithm: whatever is left unvisited lies on a cycle.
  std::vector<std::vector<uint32_t>> Succ = successors();
  std::vector<uint32_t> Pending(N), Ready;
  for (uint32_t T = 0; T < N; ++T)
    if (!(Pending[T] = static_cast<uint32_t>(Tasks[T].Preds.size())))
      Ready.push_back(T);
  size_t Seen = 0;
  while (!Ready.empty()) {
    uint32_t T = Ready.back();
    Ready.pop_back();
    ++Seen;
    for (uint32_t S : Succ[T])
      if (!--Pending[S])
        Ready.push_back(S);
  }
  if (Seen != N)
    for (uint32_t T = 0; T < N; ++T)
      if (Pending[T])
        return Status::error(ErrorCode::InvalidArgument,
                             "the dependences of the locality sets have a cycle through set " + std::to_string(T));
  return {};
}

} // namespace iopoly::sched
