//===- LocalitySets.h - Disk locality sets and the LSG of a SCoP -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 1, section 3, on a Polly SCoP. Every access to a disk-resident array
// gets a locality unit function of the statement instance, quasi-affine in
// isl: with granularity "disk" the disk of its stripe,
//     disk(i) = floor(byte(i) / S) mod T,
// with granularity "stripe" the chunk of stripes it falls in,
//     chunk(i) = base(A) + floor(byte(i) / (S * C_A)),
// where byte(i) is the element's offset in the array's row-major file
// layout and C_A chunks the array into a fixed number of units. An instance's
// map Lambda is the set of units its accesses touch. The tuple of units of a
// statement's accesses ranges over a small finite set (at most units^k,
// independent of the array sizes and of the SCoP's parameters); its points
// are enumerated and their preimages are the locality sets Q_Lambda, one per
// statement and map (the independent subsets), kept as isl sets. Edges of
// the LSG are Polly's dependences between them. Cycles are broken by node
// splitting (NodeSplit.h) where a split is satisfactory and by node merging
// otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_ANALYSIS_LOCALITYSETS_H
#define IOPOLY_PLUGIN_ANALYSIS_LOCALITYSETS_H

#include "Support/LSG.h"

#include "isl/isl-noexceptions.h"

#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}
namespace polly {
class Scop;
}

namespace iopoly {

enum class Granularity { Disk, Stripe };

struct LocalityOptions {
  uint64_t Stripe = 64 << 10;
  unsigned Disks = 8;
  Granularity Gran = Granularity::Stripe;
  unsigned ChunksPerArray = 16; ///< stripe granularity: units per array
  unsigned MaxSplits = 8;       ///< node splits tried before merging
  unsigned MaxPoints = 4096;    ///< unit tuples enumerated per statement
  unsigned MaxNodes = ~0u;      ///< more sets than this: no graph (the caller coarsens)
};

struct LocalityNode {
  isl::union_set Instances;
  uint64_t Lambda = 0;
  std::string Label; ///< statement name(s), for printing
};

struct LocalitySets {
  std::vector<LocalityNode> Nodes;
  LSG Graph;
  unsigned Units = 0;  ///< bits used in the maps
  unsigned Splits = 0; ///< satisfactory splits applied
  unsigned Merges = 0; ///< cycles merged into one node
  std::vector<std::string> Arrays;      ///< disk-resident arrays of the SCoP
  std::vector<std::string> UnitNames;   ///< what each bit stands for
  std::vector<uint64_t> UnitBytes;      ///< bytes of each unit's stripes, 0 if unknown (disks)
};

/// Builds the locality sets of the instances in \p Within (all of \p S when
/// null) and the LSG over \p Deps (not when there are more than
/// O.MaxNodes sets: the caller coarsens and asks again). Returns "" or why the SCoP cannot be
/// handled (no disk-resident array, parametric array shape, too many sets).
std::string buildLocalitySets(polly::Scop &S, const isl::union_map &Deps, const LocalityOptions &O,
                              const isl::union_set &Within, LocalitySets &Out);

/// Makes the LSG acyclic: for each cycle, splits the nodes the feedback
/// vertex set heuristic picks (then any other node of the cycle) when the
/// split is satisfactory, at most O.MaxSplits times in all; merges what is
/// left of a cycle into one node.
void removeCycles(LocalitySets &L, const isl::union_map &Deps, const LocalityOptions &O);

/// Human-readable dump: units, nodes (map, statements, instance sets),
/// edges.
void printLocalitySets(llvm::raw_ostream &OS, const LocalitySets &L);

} // namespace iopoly

#endif
