//===- LayoutTrial.h - A file layout judged by the mode's schedule -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The vote of Analysis/LayoutChoice.h scores the source order. The modes
// that reschedule (clo, dro-l, dro-wp) run another order, and a layout
// that makes the source order sequential can make their tiles read an
// array across its rows (PolyBench syrk, dro-wp at 1/32 of its data:
// 6.4x the fetches with A column-major). So the layout pass also asks the
// cost model: a copy of the module with the candidate layouts goes through
// the optimization pipeline up to the restructuring, which, instead of
// transforming a SCoP, records what the run-time choice would cost for a
// grid of plausible runs (LayoutTrial::record). The pass compares the
// copies' costs run by run (Polly/PollyPipeline.h, measureLayoutTrial,
// drives the copies).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_ANALYSIS_LAYOUTTRIAL_H
#define IOPOLY_PLUGIN_ANALYSIS_LAYOUTTRIAL_H

#include "iopoly/tiling.h"

#include <cstdint>
#include <string>
#include <vector>

namespace iopoly {

struct DiskArray;

/// One SCoP of a copy of the module.
struct TrialScop {
  std::vector<std::string> Arrays; ///< the disk-resident arrays it accesses, by name (sorted)
  /// Per plausible run (trialRuns()): the estimated I/O time of the
  /// version the mode runs; empty if the SCoP has no footprint model.
  std::vector<double> Cost;
};

/// What one copy of the module would cost, SCoP by SCoP in the order the
/// pipeline meets them.
struct LayoutTrial {
  std::vector<TrialScop> Scops;
  bool Failed = false; ///< the copy did not compile (an error was reported)

  /// The cost of the version the mode runs, for each plausible run, of a
  /// SCoP whose versions are \p T over \p Arrays.
  void record(const iopoly_tile_table &T, const std::vector<DiskArray> &Arrays);
  /// A SCoP on \p Arrays without a cost (no footprint model).
  void unmodelled(const std::vector<DiskArray> &Arrays);
};

/// The trial being measured, or null (a normal compile).
LayoutTrial *activeLayoutTrial();

/// Makes \p T the active trial while it lives; remarks are silent then
/// (RemarkOnce and the restructuring's "once" sets record nothing either).
class LayoutTrialScope {
public:
  explicit LayoutTrialScope(LayoutTrial &T);
  ~LayoutTrialScope();
  LayoutTrialScope(const LayoutTrialScope &) = delete;
  LayoutTrialScope &operator=(const LayoutTrialScope &) = delete;

private:
  LayoutTrial *Previous;
  bool PreviousSilent;
};

/// How a candidate compares with row-major over the plausible runs.
struct TrialVerdict {
  bool Comparable = false; ///< same SCoPs on the same arrays, each with a cost
  double Mean = 1;         ///< geometric mean of candidate / row-major
  double Worst = 1;        ///< largest candidate / row-major
  unsigned WorstRun = 0;   ///< the run where it is
};

/// \p Candidate against \p RowMajor, summed over the SCoPs that access
/// disk-resident arrays (Analysis/LayoutTrialVerdict.cpp: plain data, no
/// LLVM, unit-tested).
TrialVerdict compareTrials(const LayoutTrial &Candidate, const LayoutTrial &RowMajor);

/// A candidate whose estimate is above row-major's by more than this share
/// on some plausible run keeps row-major (the bound: no kernel
/// worse by more than 2%).
inline constexpr double MaxTrialLoss = 0.02;

/// The plausible runs a trial is costed on, in words ("12 plausible runs:
/// stripes of 4 KiB and 64 KiB, buffers of 1/2 to 1/64 of the data").
std::string trialRunsText();

/// The plausible run \p R in words ("4 KiB stripes, a buffer of 1/32 of
/// the data").
std::string trialRunText(unsigned R);

} // namespace iopoly

#endif
