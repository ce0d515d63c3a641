//===- RemarkOnce.h - One remark per source location and pass --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Inlining, loop versioning and Polly's code generation copy a source loop
// many times; a remark about it is useful once. A RemarkOnce lives for one
// run of a pass over a module and answers whether a remark of a given name
// at a given source location (file, line, column of the innermost scope, so
// copies inlined elsewhere count as the same place) is the first.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_SUPPORT_REMARKONCE_H
#define IOPOLY_PLUGIN_SUPPORT_REMARKONCE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/DebugLoc.h"

#include <set>
#include <string>
#include <tuple>

namespace llvm {
class Function;
}

namespace iopoly {

class RemarkOnce {
public:
  explicit RemarkOnce(std::string Pass) : Pass(std::move(Pass)) {}
  /// True the first time remark \p Name is asked for at \p Loc (without a
  /// location: in \p F).
  bool first(llvm::StringRef Name, const llvm::DebugLoc &Loc, const llvm::Function *F);

private:
  std::string Pass;
  std::set<std::tuple<std::string, std::string, unsigned, unsigned>> Seen;
};

/// While set, every RemarkOnce (and the restructuring's own "once" sets)
/// answers false and records nothing: a layout trial's copy of the program
/// (Analysis/LayoutTrial.h) must neither print remarks nor use up the
/// program's own. Returns the previous setting.
bool setRemarksSilent(bool Silent);
bool remarksSilent();

} // namespace iopoly

#endif
