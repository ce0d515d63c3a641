//===- ScopParams.cpp - The parameter values a cost model describes -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Analysis/ScopParams.h"

#include "isl/set.h"
#include "isl/val.h"

namespace iopoly {

isl::set feasibleParams(polly::Scop &S) {
  isl::set P = S.getContext().intersect(S.getAssumedContext()).subtract(S.getInvalidContext());
  isl::set Runs = S.getDomains().params();
  if (!Runs.is_null())
    P = P.intersect(Runs.align_params(P.get_space())).coalesce();
  return P;
}

bool smallInt(const isl::val &V, long &Out) {
  constexpr long Limit = (1L << 31) - 1;
  if (V.is_null() || !V.is_int() || !V.abs().lt(isl::val(V.ctx(), Limit)))
    return false;
  Out = V.get_num_si();
  return true;
}

isl::set representativeParams(polly::Scop &S) {
  isl::set P = feasibleParams(S);
  if (P.is_null() || P.is_empty())
    return {};
  unsigned N = static_cast<unsigned>(isl_set_dim(P.get(), isl_dim_param));
  for (unsigned D = 0; D < N; ++D) {
    // The parameters as set dimensions, to ask for their bounds.
    isl::set AsDims = isl::manage(isl_set_move_dims(P.copy(), isl_dim_set, 0, isl_dim_param, 0, N));
    isl::val Lo = isl::manage(isl_set_dim_min_val(AsDims.copy(), static_cast<int>(D)));
    isl::val Hi = isl::manage(isl_set_dim_max_val(AsDims.copy(), static_cast<int>(D)));
    // Bounded only by its C type (Polly's context of a size given at run
    // time): no value is more representative than another.
    long L, H;
    constexpr long MaxRange = 1L << 24;
    if (!smallInt(Lo, L) || !smallInt(Hi, H) || H - L > MaxRange)
      return {};
    long Mid = L + (H - L) / 2;
    P = isl::manage(isl_set_fix_si(P.release(), isl_dim_param, static_cast<int>(D), static_cast<int>(Mid)));
    if (P.is_empty()) // a hole in the range (not convex): give up rather than guess
      return {};
  }
  return P;
}

isl::schedule atParams(const isl::schedule &Sched, const isl::set &Params) {
  if (Params.is_null())
    return Sched;
  return Sched.intersect_domain(Sched.get_domain().intersect_params(Params));
}

} // namespace iopoly
