//===- PollyPipeline.h - The one place that drives Polly --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Everything that touches Polly's pass-manager API (ScopPassManager, the
// function-to-SCoP adaptor, Polly's options) is here, so that only this
// file changes when upstream Polly replaces its ScopPass machinery. Polly
// itself is inside libLLVM-19.so; clang and opt register its analyses.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_POLLY_POLLYPIPELINE_H
#define IOPOLY_PLUGIN_POLLY_POLLYPIPELINE_H

#include "llvm/IR/PassManager.h"
#include "llvm/Passes/OptimizationLevel.h"

#include <optional>

namespace llvm {
class Module;
class raw_ostream;
} // namespace llvm

namespace iopoly {

enum class ScopTransform {
  PollyOptimizer, ///< clo: Polly's isl scheduler with tiling
  DiskReuseNests, ///< dro-l
  DiskReuseWhole, ///< dro-wp
  /// clo in a layout trial: Polly's schedule priced as dro-wp prices its
  /// version of it, on the SCoPs clo itself schedules (no scalar expansion)
  CloMeasure,
};

/// Polly's options for iopoly: every SCoP is considered (our own cost model
/// decides), and reductions are not reassociated (outputs must stay
/// bit-identical to the original program).
void configurePolly();

/// The isl scheduler's quota of operations per scheduling problem
/// (-mllvm -polly-schedule-computeout, Polly's default 300000): what the
/// band versions' own scheduler calls get too.
long schedulerQuota();

/// The largest coefficient the isl scheduler may give a loop when a SCoP is
/// scheduled once more with its exact dependences (CLO.cpp, BandTiling.cpp):
/// the user's -mllvm -polly-opt-max-coefficient if given, else
/// ExactDepsMaxCoefficient.
int exactDepsMaxCoefficient();

/// With Polly's bound of 20, the exact dependences of PolyBench's ludcmp
/// (init_array's four nests, one SCoP) made the scheduler's ILP work with
/// numbers that grew until one attempt took 36 s, almost all of it in
/// big-integer gcds; with 2 it takes 5 s and finds the same schedule (as
/// every other PolyBench kernel does: their code is unchanged). Tiling and
/// the skews of stencils use coefficients of 1 or 2.
constexpr int ExactDepsMaxCoefficient = 2;

/// Whether Polly generates parallel (OpenMP or task) code for the loops it
/// proves parallel: threads=on, or -mllvm -polly-parallel given.
bool pollyOutlinesParallelLoops();

/// In the clang pipeline of a Polly mode: no full loop unrolling before
/// Polly has run, which multiplies a SCoP's statements, and no memcpy or
/// memset made of copy and fill loops, which Polly cannot model beside the
/// array's element accesses.
void keepLoopsForPolly();

/// -fplugin-arg-iopoly-mpi=on: no load PRE in GVN, which turns the loads of
/// neighbouring elements (A[i-1], A[i], A[i+1]) into values carried from
/// one iteration to the next: Polly reads those as dependences, and the
/// loop would not be distributed.
void keepLoadsForPolly();

/// Adds Polly's preparation, the SCoP transformation \p T and Polly's code
/// generation to \p FPM. clo in a clang pipeline at \p Level: then full
/// unrolling again and LLVM's function simplification on the functions
/// Polly rewrote, as Polly's own pipeline does.
void addScopPipeline(llvm::FunctionPassManager &FPM, ScopTransform T,
                     std::optional<llvm::OptimizationLevel> Level = std::nullopt);

struct LayoutTrial;

/// A layout trial (Analysis/LayoutTrial.h): runs the optimization pipeline
/// of \p Level on a copy of \p M (in a context of its own) up to the SCoP
/// transformation of \p T, which records into \p Trial what the run-time
/// choice would cost instead of transforming. Prints nothing; an error
/// marks the trial failed. \p M is not changed.
void measureLayoutTrial(llvm::Module &M, llvm::OptimizationLevel Level, ScopTransform T, LayoutTrial &Trial);

/// -fplugin-arg-iopoly-mpi=on: Polly's preparation and scalar clean-up,
/// RankMappingPass on every SCoP (analysis only: Polly generates nothing),
/// then DistributeLoopsPass rewrites the planned loops.
void addMappingPipeline(llvm::FunctionPassManager &FPM);

/// Adds print<iopoly-lsg> (analysis only, no code generation).
void addLSGPrinter(llvm::FunctionPassManager &FPM, llvm::raw_ostream &OS);

} // namespace iopoly

#endif
