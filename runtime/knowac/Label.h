//===- Label.h - What a vertex of the accumulation graph stands for -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A data object of paper 5, section IV.B: a region of a variable of a file,
// with the operation. Files are named by their role in the run, not by
// path, so that knowledge carries over to other inputs: the slot is the
// order in which the run first opened the file, the mode how it was opened
// ('r' read-only, 'w' writable, 'c' created). Every run starts at a start
// vertex of its own MPI rank and process count.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_KNOWAC_LABEL_H
#define IOPOLY_KNOWAC_LABEL_H

#include <string>

namespace iopoly {
namespace knowac {

enum class Op : char { Start = 'S', Read = 'R', Write = 'W' };

struct Label {
  Op O = Op::Read;
  int Slot = -1;      ///< file slot (-1 for a start vertex)
  char Mode = 'r';    ///< 'r', 'w', 'c'; ' ' for a start vertex
  std::string Var;    ///< variable name ("" for a start vertex)
  std::string Region; ///< region key (Region.h); "rank/nprocs" for a start vertex

  /// The identity of the label: equal keys, equal labels.
  std::string key() const;
  /// The start vertex of rank \p Rank of \p NProcs.
  static Label start(int Rank, int NProcs);
  bool operator==(const Label &O) const { return key() == O.key(); }
};

} // namespace knowac
} // namespace iopoly

#endif
