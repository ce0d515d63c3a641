//===- ScopParams.cpp - The parameter values a cost model describes -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Analysis/ScopParams.h"

#include "isl/set.h"
#include "isl/val.h"

#include "llvm/IR/GlobalVariable.h"

#include <algorithm>

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

namespace {

/// Ranges wider than this are bounds of a C type, not of the program.
constexpr long MaxRange = 1L << 24;

/// The bounds of parameter \p D of \p P; true when both are the program's
/// (not a C type's) and not too far apart.
bool paramBounds(const isl::set &P, unsigned D, long &Lo, long &Hi, bool &LoKnown, bool &HiKnown) {
  unsigned N = static_cast<unsigned>(isl_set_dim(P.get(), isl_dim_param));
  isl::set AsDims = isl::manage(isl_set_move_dims(P.copy(), isl_dim_set, 0, isl_dim_param, 0, N));
  isl::val L = isl::manage(isl_set_dim_min_val(AsDims.copy(), static_cast<int>(D)));
  isl::val H = isl::manage(isl_set_dim_max_val(AsDims.copy(), static_cast<int>(D)));
  LoKnown = smallInt(L, Lo);
  HiKnown = smallInt(H, Hi);
  return LoKnown && HiKnown && H.sub(L).lt(isl::val(P.ctx(), MaxRange));
}

isl::set fixParam(isl::set P, unsigned D, long V) {
  return isl::manage(isl_set_fix_si(P.release(), isl_dim_param, static_cast<int>(D), static_cast<int>(V)));
}

/// The value of a size bounded only by its C type: as large as the largest
/// size the program bounds (a declared row length), or NominalSize.
long nominalValue(const isl::set &P) {
  long V = 0;
  unsigned N = static_cast<unsigned>(isl_set_dim(P.get(), isl_dim_param));
  for (unsigned D = 0; D < N; ++D) {
    long Lo = 0, Hi = 0;
    bool LoKnown = false, HiKnown = false;
    paramBounds(P, D, Lo, Hi, LoKnown, HiKnown);
    if (HiKnown)
      V = std::max(V, Hi);
  }
  return V > 0 ? V : NominalSize;
}

/// Whether some array of \p S has a size only the run knows (a pointer,
/// not a global variable): only then is a size given at run time modelled
/// at a nominal value. A global's size is known; a loop bound read from a
/// global variable, taken nominal, made one random program's arrays 400
/// times their size and its compile 25 s.
bool sizesOnlyAtRunTime(polly::Scop &S) {
  for (const polly::ScopArrayInfo *SAI : S.arrays()) {
    // Arrays Polly or iopoly created (expanded scalars) have no base.
    const llvm::Value *Base = SAI->isArrayKind() ? SAI->getBasePtr() : nullptr;
    if (Base && !llvm::isa<llvm::GlobalVariable>(Base->stripPointerCasts()))
      return true;
  }
  return false;
}

} // namespace

isl::set nominalParams(polly::Scop &S) {
  isl::set P = feasibleParams(S);
  if (P.is_null() || P.is_empty())
    return {};
  if (!sizesOnlyAtRunTime(S))
    return isl::set::universe(P.get_space());
  // With such a size, the others are taken within their feasible range:
  // the model is of the runs where the code can run (Polly's assumptions
  // bound the sizes of an array's inner dimensions by their declaration).
  isl::set Out = P;
  bool Any = false;
  const long Nominal = nominalValue(P);
  unsigned N = static_cast<unsigned>(isl_set_dim(P.get(), isl_dim_param));
  for (unsigned D = 0; D < N; ++D) {
    long Lo = 0, Hi = 0;
    bool LoKnown = false, HiKnown = false;
    // Bounded by the program (or above only: within its declaration).
    if (paramBounds(P, D, Lo, Hi, LoKnown, HiKnown) || (!LoKnown && HiKnown))
      continue;
    Out = fixParam(Out, D, LoKnown ? std::max(Lo, Nominal) : Nominal);
    Any = true;
  }
  return Any ? Out : isl::set::universe(P.get_space());
}

isl::set representativeParams(polly::Scop &S) {
  isl::set P = feasibleParams(S);
  if (P.is_null() || P.is_empty())
    return {};
  const long Nominal = nominalValue(P);
  const bool UseNominal = sizesOnlyAtRunTime(S);
  unsigned N = static_cast<unsigned>(isl_set_dim(P.get(), isl_dim_param));
  for (unsigned D = 0; D < N; ++D) {
    long Lo = 0, Hi = 0;
    bool LoKnown = false, HiKnown = false;
    long V = 0;
    if (paramBounds(P, D, Lo, Hi, LoKnown, HiKnown))
      V = Lo + (Hi - Lo) / 2;
    else if (!UseNominal) // arrays of known sizes: no value is more representative
      return {};
    else if (LoKnown) // bounded above only by its C type (a size given at run
      V = std::max(Lo, Nominal); // time): the nominal size, as in every model
    else if (HiKnown) // below: a size at most the array's declared extent
      V = Hi;
    else // by its type both ways (code that runs for any value)
      V = Nominal;
    P = fixParam(P, D, V);
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
