//===- ScopParams.h - The parameter values a cost model describes -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A SCoP inside a loop Polly could not model (gramschmidt's k loop calls
// sqrt) takes that loop's counter as a parameter: its code runs once per
// value. The bytes it touches and the footprint models the run-time choice
// replays need numbers, so they are computed for one value of each
// parameter, from the middle of the range under which the code can run.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_ANALYSIS_SCOPPARAMS_H
#define IOPOLY_PLUGIN_ANALYSIS_SCOPPARAMS_H

#include "polly/ScopInfo.h"

#include "isl/isl-noexceptions.h"

namespace iopoly {

/// The parameter values under which the SCoP's code runs: Polly's context
/// and assumptions (subscripts within the arrays' known dimensions), less
/// the values where an assumption fails, where some statement runs.
isl::set feasibleParams(polly::Scop &S);

/// One value per parameter (the middle of its feasible range, each fixed in
/// turn), or the universe when the SCoP has no parameter; null when a
/// parameter's range is unbounded.
isl::set representativeParams(polly::Scop &S);

/// \p V as a number when it is an integer of a C int's magnitude (a loop
/// bound or subscript); false for infinities and for the bounds of a
/// parameter's C type.
bool smallInt(const isl::val &V, long &Out);

/// \p Sched restricted to the parameter values \p Params (unchanged when
/// null).
isl::schedule atParams(const isl::schedule &Sched, const isl::set &Params);

} // namespace iopoly

#endif
