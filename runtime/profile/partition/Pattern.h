//===- Pattern.h - Access sequences as functions of rank and size -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 4, section 4.3: regular programs keep their access pattern when the
// number of processes changes, so a profile taken at P ranks can plan a run
// at P'. A RankModel says, for every rank r of P, the k-th access to a file:
//
//   offset(r, k) = A0(P) + k * AStep(P) + r * B(P)
//   length(r, k) = L0(P) + r * LR(P)
//
// segment by segment (runs of k with the same operation and step); the
// first and last rank may make accesses of their own besides (then the
// pattern comes from the inner ranks, which needs 4 ranks or more). Each
// coefficient is c0 + c1 / P with rational c0, c1: constant when the shape
// of a rank's accesses does not depend on P (each rank writes 1 MiB), or
// inversely proportional to P when a fixed data set is split (each rank
// writes 1/P of it). One profile fixes the coefficients at its P only
// (constants are assumed with --scaling weak); profiles at two or more
// rank counts fit both parts exactly and are checked against every
// further one. A rank count where a coefficient is not a whole number, or
// an offset comes out negative, is refused with the reason.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_PARTITION_PATTERN_H
#define IOPOLY_PROFILE_PARTITION_PATTERN_H

#include "common/Error.h"
#include "partition/Access.h"

#include <string>
#include <vector>

namespace iopoly::prof {

/// c(P) = (N0 + N1 / P) / D, D > 0.
struct Coef {
  int64_t N0 = 0, N1 = 0, D = 1;
  static Coef constant(int64_t V) { return {V, 0, 1}; }
  /// The value at \p P; false when it is not a whole number.
  bool at(uint32_t P, int64_t &Out) const;
  bool isConstant() const { return N1 == 0; }
  std::string str() const; ///< "1048576", "4194304/P", "(3 + 8/P)/2"
  bool operator==(const Coef &O) const;
};

struct Segment {
  Coef Count;         ///< accesses k = 0 .. Count-1 of this segment (may depend on P)
  IoOp Op = IoOp::Read;
  Coef A0, AStep, B, L0, LR;
  uint64_t T0 = 0, TStep = 0; ///< timestamps (ns) for the chunk order
};

/// An access only the first or the last rank makes (a header written by
/// rank 0, a boundary row of the last rank), beside the common pattern.
struct EdgeAccess {
  bool Last = false; ///< rank P-1, else rank 0
  IoOp Op = IoOp::Read;
  Coef Off, Len;
  uint64_t T = 0;
};

struct RankModel {
  std::vector<uint32_t> Profiled; ///< rank counts the profiles had
  bool Extrapolated = false;      ///< constants assumed (--scaling weak)
  std::vector<Segment> Segments;
  std::vector<EdgeAccess> Edges;
  /// Accesses per rank at \p P (0 when not whole).
  uint64_t accessesPerRank(uint32_t P) const;
};

/// Fits the per-rank sequences of one run (sorted by rank, then Seq).
Error fitRun(const RunAccesses &R, RankModel &Out);
/// Combines models fitted at different rank counts (or checks that runs at
/// the same count agree).
Error combineModels(const std::vector<RankModel> &In, RankModel &Out);
/// Turns a model fitted at one rank count into one that holds at every
/// count (weak scaling: each rank keeps its accesses' shape).
void assumeWeakScaling(RankModel &M);
/// True when the model is known at \p P (profiled there, or fitted across
/// rank counts, or extrapolated).
bool modelCovers(const RankModel &M, uint32_t P);
/// The accesses the model predicts at \p P ranks (for the partitioner).
Error instantiate(const RankModel &M, uint32_t P, std::vector<Access> &Out, uint64_t MaxAccesses = 20000000);

} // namespace iopoly::prof

#endif
