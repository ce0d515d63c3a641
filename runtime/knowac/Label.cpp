//===- Label.cpp - Keys of data objects ------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// netCDF names cannot contain '/', so it separates the fields; the region
// key (which may contain '/') comes last.
//
//===----------------------------------------------------------------------===//
#include "Label.h"

namespace iopoly {
namespace knowac {

std::string Label::key() const {
  std::string K(1, char(O));
  if (O == Op::Start)
    return K + "/" + Region;
  return K + "/" + std::to_string(Slot) + Mode + "/" + Var + "/" + Region;
}

Label Label::start(int Rank, int NProcs) {
  Label L;
  L.O = Op::Start;
  L.Slot = -1;
  L.Mode = ' ';
  L.Region = std::to_string(Rank) + "/" + std::to_string(NProcs);
  return L;
}

} // namespace knowac
} // namespace iopoly
