//===- LayoutTrialVerdict.cpp - Two copies of a module compared ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Plain data, no LLVM: the plugin-unit tests compile it in.
//
//===----------------------------------------------------------------------===//
#include "Analysis/LayoutTrial.h"

#include <algorithm>
#include <cmath>

namespace iopoly {

TrialVerdict compareTrials(const LayoutTrial &Candidate, const LayoutTrial &RowMajor) {
  TrialVerdict V;
  if (Candidate.Failed || RowMajor.Failed || Candidate.Scops.size() != RowMajor.Scops.size())
    return V;
  size_t Runs = 0;
  for (const TrialScop &S : RowMajor.Scops)
    if (!S.Arrays.empty() && !S.Cost.empty())
      Runs = S.Cost.size();
  if (!Runs)
    return V;
  std::vector<double> A(Runs, 0), B(Runs, 0);
  bool Any = false;
  for (size_t K = 0; K < Candidate.Scops.size(); ++K) {
    const TrialScop &C = Candidate.Scops[K], &R = RowMajor.Scops[K];
    if (C.Arrays != R.Arrays)
      return V; // not the same SCoPs: the layouts changed what Polly models
    if (C.Arrays.empty())
      continue; // no disk-resident array: no I/O to compare
    if (C.Cost.size() != Runs || R.Cost.size() != Runs)
      return V; // a loop nest on the arrays without a model
    for (size_t X = 0; X < Runs; ++X) {
      A[X] += C.Cost[X];
      B[X] += R.Cost[X];
    }
    Any = true;
  }
  if (!Any)
    return V;
  V.Comparable = true;
  double LogSum = 0;
  V.Worst = 0;
  for (size_t X = 0; X < Runs; ++X) {
    double Ratio = B[X] > 0 ? A[X] / B[X] : A[X] > 0 ? 1e9 : 1;
    LogSum += std::log(std::max(Ratio, 1e-9));
    if (Ratio > V.Worst) {
      V.Worst = Ratio;
      V.WorstRun = static_cast<unsigned>(X);
    }
  }
  V.Mean = std::exp(LogSum / static_cast<double>(Runs));
  return V;
}

} // namespace iopoly
