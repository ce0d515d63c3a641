//===- StatementInstances.h - How many times an access runs -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The weight of an access in the file layout vote (paper 1, section 4): how
// many instances its statement runs. Inside a SCoP it is counted exactly
// from the statement's domain in Polly's polyhedral model (isl counts the
// integer points; the SCoP's parameters, unknown at compile time, are
// fixed at a representative value), times the trip counts of any loops
// around the SCoP. A domain with too many points to enumerate at compile
// time (isl has no symbolic counting without barvinok) weighs its bounding
// box. Outside SCoPs: the product of the trip counts of the enclosing
// loops, from scalar evolution. Every weight says which of these it is.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_ANALYSIS_STATEMENTINSTANCES_H
#define IOPOLY_PLUGIN_ANALYSIS_STATEMENTINSTANCES_H

#include "Analysis/LayoutChoice.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/PassManager.h"

#include <optional>

struct isl_set;

namespace llvm {
class BasicBlock;
class Instruction;
class Loop;
class ScalarEvolution;
} // namespace llvm

namespace iopoly {

/// Value given to loop counts and SCoP parameters unknown at compile time
/// (the weights only compare accesses with each other).
inline constexpr unsigned RepresentativeCount = 100;

/// Most points of a domain's outer dimensions isl enumerates (it counts the
/// innermost dimension of each as a range): a few milliseconds.
inline constexpr double MaxEnumeratedPoints = 1 << 16;

struct InstanceCount {
  double Count = 0;
  WeightSource Source = WeightSource::TripProduct;
};

/// The integer points of \p Domain (a statement domain; not consumed),
/// parameters fixed at RepresentativeCount (or, if the domain is empty
/// there, another of a few values); nullopt if unbounded or not counted.
std::optional<InstanceCount> countDomainPoints(isl_set *Domain);

/// Times the body of loop \p L runs per entry, for code in block \p At:
/// its trip count from scalar evolution, else its maximum (unless that is
/// only its counter type's range), else RepresentativeCount.
double loopTrips(llvm::Loop &L, const llvm::BasicBlock &At, llvm::ScalarEvolution &SE);

/// For every load and store in \p Wanted that Polly models in a SCoP of
/// \p F: its statement's instances (with the loops around the SCoP).
void domainInstanceCounts(llvm::Function &F, llvm::FunctionAnalysisManager &FAM,
                          const llvm::SmallPtrSetImpl<const llvm::Instruction *> &Wanted,
                          llvm::DenseMap<const llvm::Instruction *, InstanceCount> &Out);

} // namespace iopoly

#endif
