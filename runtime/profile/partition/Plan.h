//===- Plan.h - The partition plan (plan.json) -------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What iopoly-partition writes and libiopoly_partition.so reads: for every
// shared file, the chunks with their class, home and holders, and each
// rank's partition (its chunks in node-local file order), for every rank
// count that was profiled; plus, where the profiles show one, the
// rank/size-parametric model of the accesses, from which the layer derives
// the plan at other rank counts. The JSON layout is documented in the README
// ("plan.json").
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_PARTITION_PLAN_H
#define IOPOLY_PROFILE_PARTITION_PLAN_H

#include "common/Error.h"
#include "partition/Partitioner.h"
#include "partition/Pattern.h"

#include <map>
#include <string>
#include <vector>

namespace iopoly::prof {

constexpr int kPlanVersion = 1;

struct ProfileRef {
  std::vector<std::string> Sources;
  uint64_t RunId = 0;
  uint32_t NRanks = 0;
  std::string Program;
};

struct PlanFile {
  std::string Path;
  std::vector<FilePlan> Variants; ///< one per profiled rank count
  bool HasModel = false;
  RankModel Model;
  std::string ModelNote; ///< why there is no model (or how it was made)
  std::string Excluded;  ///< why the file is left alone ("" = planned)
};

struct Plan {
  std::vector<ProfileRef> Profiles;
  std::vector<PlanFile> Files;
  std::string Scaling = "auto";
  std::string ReportJson; ///< the report object, serialized (kept as is)

  const PlanFile *find(const std::string &Path) const;
};

struct PlanOptions {
  std::string Scaling = "auto"; ///< auto (fit across rank counts) or weak
};

/// Builds the plan of every file in \p Files.
Plan buildPlan(const std::map<std::string, FileProfile> &Files, const PlanOptions &O);

Error writePlan(const Plan &P, const std::string &Path);
Error readPlan(const std::string &Path, Plan &Out);
Error parsePlan(const std::string &Text, const std::string &Name, Plan &Out);

/// The plan of \p F at \p NRanks: the profiled variant, or one derived from
/// the model. \p How says which ("profiled at 4 ranks", "derived from the
/// model fitted at 4 and 8 ranks"); a failure says why it cannot apply.
Error resolvePlan(const PlanFile &F, uint32_t NRanks, FilePlan &Out, std::string &How);

/// A hash of rank \p Rank's partition (chunk ranges and local offsets), to
/// know whether a node-local file was laid out by the same plan.
uint64_t layoutHash(const FilePlan &P, uint32_t Rank);

} // namespace iopoly::prof

#endif
