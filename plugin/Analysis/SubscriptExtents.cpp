//===- SubscriptExtents.cpp - How far the elements of one key spread ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Analysis/SubscriptExtents.h"

#include "isl/ilp.h"
#include "isl/map.h"
#include "isl/set.h"

#include <algorithm>

namespace iopoly {

bool subscriptExtents(const isl::map &KeyToElem, unsigned N, std::vector<uint64_t> &Ext) {
  Ext.assign(N, 1);
  for (unsigned D = 0; D < N; ++D) {
    // One subscript at a time: the same maxima as from the deltas of all
    // subscripts together, whose relation is far costlier to build.
    isl::map MD = isl::manage(isl_map_project_out(KeyToElem.copy(), isl_dim_out, D + 1, N - D - 1));
    MD = isl::manage(isl_map_project_out(MD.release(), isl_dim_out, 0, D));
    isl::set Deltas = MD.reverse().apply_range(MD).deltas();
    if (Deltas.is_null())
      return false;
    isl::val Hi = isl::manage(isl_set_dim_max_val(Deltas.copy(), 0));
    if (Hi.is_null() || !Hi.is_int())
      return false;
    Ext[D] = static_cast<uint64_t>(std::max<long>(0, Hi.get_num_si())) + 1;
  }
  return true;
}

} // namespace iopoly
