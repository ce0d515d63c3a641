//===- NodeSplit.h - The satisfactory split of an LSG node ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 1, section 3 and Fig. 9. A node Q on a cycle is split into Qa (its
// instances that depend on the cycle's predecessors of Q) and Qb (the rest).
// The split is satisfactory when
//   1. no dependence goes from a predecessor to Qb,
//   2. no dependence goes from Qa to a successor (so Qb carries Q's
//      outgoing cycle edges), and
//   3. no dependence links Qa and Qb in either direction,
// which breaks every cycle through Q: predecessors -> Qa, Qb -> successors.
// Written once over an abstract set type so that the isl implementation
// (instance sets, dependence relation) and the unit tests (explicit sets of
// iteration numbers, as in Fig. 9) run the same algorithm.
//
//   struct Ops {
//     using Set = ...;
//     Set intersect(const Set &, const Set &) const;
//     Set subtract(const Set &, const Set &) const;
//     bool empty(const Set &) const;
//     Set dependents(const Set &X) const; // instances depending on X
//   };
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_SUPPORT_NODESPLIT_H
#define IOPOLY_PLUGIN_SUPPORT_NODESPLIT_H

#include <string>

namespace iopoly {

template <typename Set> struct SplitResult {
  bool Satisfactory = false;
  Set A, B;        ///< Qa (after the predecessors), Qb (before the successors)
  std::string Why; ///< which condition failed
};

template <typename Ops>
SplitResult<typename Ops::Set> splitNode(const Ops &O, const typename Ops::Set &Q, const typename Ops::Set &Pred,
                                         const typename Ops::Set &Succ) {
  SplitResult<typename Ops::Set> R;
  R.A = O.intersect(Q, O.dependents(Pred));
  R.B = O.subtract(Q, R.A);
  if (O.empty(R.A) || O.empty(R.B)) {
    R.Why = "every instance of the node depends on its predecessors, or none does";
    return R;
  }
  if (!O.empty(O.intersect(O.dependents(Pred), R.B))) {
    R.Why = "condition 1: a predecessor reaches Qb";
    return R;
  }
  if (!O.empty(O.intersect(O.dependents(R.A), Succ))) {
    R.Why = "condition 2: Qa reaches a successor";
    return R;
  }
  if (!O.empty(O.intersect(O.dependents(R.A), R.B)) || !O.empty(O.intersect(O.dependents(R.B), R.A))) {
    R.Why = "condition 3: Qa and Qb depend on each other";
    return R;
  }
  R.Satisfactory = true;
  return R;
}

} // namespace iopoly

#endif
