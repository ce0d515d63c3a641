//===- RemarkOnce.cpp - One remark per source location and pass ------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Support/RemarkOnce.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"

using namespace llvm;

namespace iopoly {

namespace {
bool Silent = false;
} // namespace

bool setRemarksSilent(bool S) {
  bool Previous = Silent;
  Silent = S;
  return Previous;
}
bool remarksSilent() { return Silent; }

bool RemarkOnce::first(StringRef Name, const DebugLoc &Loc, const Function *F) {
  if (Silent)
    return false;
  std::string Where;
  unsigned Line = 0, Col = 0;
  if (DILocation *L = Loc.get()) {
    Where = (L->getDirectory() + "/" + L->getFilename()).str();
    Line = L->getLine();
    Col = L->getColumn();
  } else if (F) {
    Where = "function " + F->getName().str();
  }
  return Seen.insert({Name.str(), Where, Line, Col}).second;
}

} // namespace iopoly
