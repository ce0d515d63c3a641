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
// A kernel compiled apart from its caller takes its sizes as parameters
// (`void kernel(int n, double A[][1000])`): nothing but their C type bounds
// them, and bytes or footprints "over every run" would be terabytes. Such
// a size is modelled at a nominal value, the same in every model: as large
// as the largest size the program does bound (Polly assumes the inner
// sizes within the declared row lengths: 1000 here), else NominalSize. The
// versions are compared, and pruned, on that one run; their ranking holds
// where the costs scale alike with the real size, and the choice among
// the versions kept is still the runtime's, from the real buffer.
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

/// The value a size bounded only by its C type is modelled at when the
/// program bounds no other size.
inline constexpr long NominalSize = 1L << 14;

/// The feasible parameters with those bounded only by their C type (above,
/// or both ways) fixed at the nominal value; the universe when there are none
/// (the models of other SCoPs stay as they were); null when the SCoP's code
/// never runs.
isl::set nominalParams(polly::Scop &S);

/// One value per parameter (the middle of its feasible range, each fixed in
/// turn; the nominal value when only its C type bounds it, its upper bound
/// when only that is known), or the universe when the SCoP has no
/// parameter; null when the SCoP's code never runs.
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
