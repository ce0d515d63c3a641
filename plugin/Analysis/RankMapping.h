//===- RankMapping.h - Loops to distribute and their chunks -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 2, sections 3-4, on a Polly SCoP (-fplugin-arg-iopoly-mpi=on). For
// each loop nest of the SCoP, the loop to distribute over the MPI ranks is
// the one marked `#pragma iopoly distribute`, or else the outermost loop of
// its band that carries no dependence (Polly's dependences, RAW/WAR/WAW,
// mapped through the band's schedule: every dependence that the outer
// members do not carry must have distance 0 in this one). Its iteration
// chunks come from isl: every access to a disk-resident array is composed
// with the byte offset of its element and floor(byte / chunk) plus the
// array's first chunk, giving the map M: i -> data chunk from the loop's
// iteration i (the other dimensions projected out); the preimage of each
// data chunk is a union of intervals of i, and the intervals' end points
// cut the iteration range into pieces of constant tag. The pieces with the
// same tag form an iteration chunk. No iteration is enumerated: the work is
// proportional to the number of data chunks and pieces.
//
// The plans are kept by loop header for DistributeLoops, which rewrites the
// loops (analysis and transformation are separate passes: the SCoP pass
// must not change the IR Polly is looking at).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_ANALYSIS_RANKMAPPING_H
#define IOPOLY_PLUGIN_ANALYSIS_RANKMAPPING_H

#include "mpi/Mapping.h"

#include "polly/ScopPass.h"

#include "llvm/IR/PassManager.h"

#include <map>
#include <string>
#include <vector>

namespace llvm {
class BasicBlock;
class Loop;
} // namespace llvm

namespace iopoly {

/// What DistributeLoops needs to know about one loop.
struct DistPlan {
  std::string Where;        ///< "file.c:12"
  int64_t Iterations = 0;   ///< n: iteration numbers 0..n-1
  std::vector<IterChunk> Chunks;
  uint64_t DataChunks = 0;
  uint64_t ChunkBytes = 0;
  std::string Arrays;       ///< "'A', 'B'"
  bool FromPragma = false;
  unsigned Depth = 0;       ///< band member (0: outermost)
  // The table for the compile-time topology, if any.
  std::string Signature;
  int TableRanks = 0;
  std::vector<std::vector<Piece>> Table;
  MapReport Report, BlockReport;
};

/// Plans by loop header, filled by RankMappingPass, taken by DistributeLoops.
std::map<const llvm::BasicBlock *, DistPlan> &distPlans();

/// Metadata on the llvm.loop of a loop marked `#pragma iopoly distribute`.
inline constexpr const char *DistributeMD = "iopoly.distribute";
/// Whether \p L carries that mark.
bool markedForDistribution(const llvm::Loop *L);

class RankMappingPass : public llvm::PassInfoMixin<RankMappingPass> {
public:
  llvm::PreservedAnalyses run(polly::Scop &S, polly::ScopAnalysisManager &SAM,
                              polly::ScopStandardAnalysisResults &SAR, polly::SPMUpdater &U);
};

} // namespace iopoly

#endif
