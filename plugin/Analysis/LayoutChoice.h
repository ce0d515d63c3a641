//===- LayoutChoice.h - Scoring the file layouts of one array ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 1, section 4 (Fig. 12): an m-dimensional disk-resident array has m!
// candidate file layouts (dimension permutations) plus "other"; every access
// votes, weighted by how many times its statement runs, and the best layout
// is chosen. Plain data, no LLVM: FileLayoutPass fills the accesses (their
// weights from Polly's domains, the trip counts of their loops, or the
// counts of an instrumented run); the tests build them by hand.
//
// An access is described by, for each array dimension, the depth of the
// innermost enclosing loop in which its subscript varies (0: invariant).
// Its fast dimension is the one varied by the deepest such loop; the access
// is stride-1 in the file ("along") under a layout whose last dimension is
// that one, and walks against the layout otherwise. Its preferred layout
// orders the dimensions by that depth (invariant ones first), the paper's
// counter. Two subscripts varied by the same deepest loop (a diagonal) or a
// preference that is not a strict order is "other".
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_ANALYSIS_LAYOUTCHOICE_H
#define IOPOLY_PLUGIN_ANALYSIS_LAYOUTCHOICE_H

#include <string>
#include <vector>

namespace iopoly {

/// Where an access's weight (how many times its statement runs) comes from.
enum class WeightSource {
  TripProduct,  ///< product of its loops' trip counts (outside SCoPs)
  DomainCount,  ///< points of its statement's domain in Polly's SCoP, counted exactly
  DomainParams, ///< the same with the SCoP's parameters at representative values
  DomainBox,    ///< the domain's bounding box (too many points to count)
  Profile,      ///< executions counted by an instrumented run
};
inline constexpr unsigned NumWeightSources = 5;

/// "exact domain count", ... (remarks).
const char *weightSourceText(WeightSource S);

/// One access site of the array.
struct LayoutAccess {
  double Weight = 1;            ///< instances of its statement
  std::vector<unsigned> Depth;  ///< per dimension: innermost varying loop depth
  WeightSource Source = WeightSource::TripProduct;
  /// How many instances in a row touch one element: the trip counts of the
  /// innermost loops in which no subscript varies (B[i][j] inside a k
  /// loop). The vote counts Weight / Repeats: the repeats find the element
  /// in the buffer, whatever the layout.
  double Repeats = 1;
};

/// The score of one candidate layout.
struct LayoutScore {
  std::vector<unsigned> Perm; ///< file dimension k is array dimension Perm[k]
  double Along = 0;           ///< weight of accesses stride-1 in the file
  double Against = 0;         ///< weight of accesses whose fast dim is elsewhere
  double Preferred = 0;       ///< weight of accesses preferring exactly Perm
};

struct LayoutChoice {
  std::vector<LayoutScore> Candidates; ///< the m! permutations, row-major first
  double Other = 0;                    ///< weight of accesses preferring none
  unsigned Chosen = 0;                 ///< index into Candidates
  bool NearTie = false;                ///< another layout led, by less than MinAlongOverRowMajor
};

/// Another layout replaces row-major only with at least this many times
/// row-major's weight along it (PolyBench's lu walks its matrix about as
/// much along columns as along rows: 1.4x by the estimates, and stored
/// column-major it ran 3x slower).
inline constexpr double MinAlongOverRowMajor = 2.0;

/// Scores the m! layouts of an \p NDims-dimensional array and picks the one
/// with the most weight along it (then the most preferring it exactly);
/// ties and near ties keep row-major, which is also the choice when
/// nothing votes.
/// \p MinRatio: another layout needs that many times row-major's weight
/// along it (MinAlongOverRowMajor for estimated weights, 1 for counts an
/// instrumented run measured).
LayoutChoice chooseLayout(unsigned NDims, const std::vector<LayoutAccess> &Accesses,
                          double MinRatio = MinAlongOverRowMajor);

/// "1,0" for {1, 0}.
std::string permString(const std::vector<unsigned> &Perm);

} // namespace iopoly

#endif
