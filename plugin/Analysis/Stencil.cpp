//===- Stencil.cpp - Whether a SCoP is a stencil -------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Analysis/Stencil.h"

#include "polly/ScopInfo.h"

#include <map>
#include <vector>

namespace iopoly {

bool hasStencilStatement(polly::Scop &S) {
  for (polly::ScopStmt &Stmt : S) {
    std::map<const polly::ScopArrayInfo *, std::vector<isl::map>> Reads;
    for (polly::MemoryAccess *MA : Stmt)
      if (MA->isRead() && MA->isArrayKind() && MA->isAffine())
        Reads[MA->getScopArrayInfo()].push_back(MA->getAccessRelation());
    for (auto &[SAI, Rels] : Reads)
      for (const isl::map &Ref : Rels) {
        // Distinct subscripts a constant away from this one (itself
        // included, at offset 0). Every read is tried as the reference:
        // some are delinearized oddly (heat-3d's A[i+1][j][k]).
        std::vector<isl::set> Offsets;
        for (const isl::map &R : Rels) {
          // Accesses of one array may see it with other dimensions (a
          // byte-wise access beside element ones): no constant offset.
          isl::map Pair = Ref.reverse().apply_range(R);
          if (Pair.is_null() || !Pair.get_space().domain().is_equal(Pair.get_space().range()))
            continue;
          isl::set D = Pair.deltas();
          if (D.is_null() || !D.is_singleton())
            continue;
          bool Seen = false;
          for (const isl::set &O : Offsets)
            Seen |= O.is_equal(D);
          if (!Seen)
            Offsets.push_back(D);
        }
        if (Offsets.size() >= 3)
          return true;
      }
  }
  return false;
}

} // namespace iopoly
