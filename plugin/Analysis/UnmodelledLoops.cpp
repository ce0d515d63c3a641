//===- UnmodelledLoops.cpp - Loops Polly has no model of, and why ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Analysis/UnmodelledLoops.h"
#include "Analysis/LocalitySets.h"
#include "Support/Options.h"
#include "Support/RemarkOnce.h"

#include "polly/ScopDetection.h"
#include "polly/ScopDetectionDiagnostic.h"
#include "polly/ScopInfo.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/RegionInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

#define DEBUG_TYPE "iopoly"

using namespace llvm;
using polly::RejectReason;
using polly::RejectReasonKind;

namespace iopoly {

namespace {

std::string at(const DebugLoc &Loc) {
  return Loc ? " at line " + std::to_string(Loc.getLine()) : std::string();
}

/// The disk-resident array \p I reads or writes ("" if none).
std::string diskArrayOf(const Instruction &I) {
  SmallVector<const Value *, 2> Ptrs;
  if (auto *L = dyn_cast<LoadInst>(&I))
    Ptrs.push_back(L->getPointerOperand());
  else if (auto *S = dyn_cast<StoreInst>(&I))
    Ptrs.push_back(S->getPointerOperand());
  else if (auto *M = dyn_cast<MemIntrinsic>(&I)) {
    Ptrs.push_back(M->getDest());
    if (auto *T = dyn_cast<MemTransferInst>(M))
      Ptrs.push_back(T->getSource());
  }
  for (const Value *P : Ptrs) {
    std::string Name;
    if (diskResidentPointer(P, &Name))
      return Name.empty() ? std::string("a disk-resident array") : "'" + Name + "'";
  }
  return "";
}

/// A memcpy, memmove or memset on a disk-resident array in \p Blocks.
template <typename BlockRange> std::string memIntrinsicHint(BlockRange Blocks) {
  for (BasicBlock *BB : Blocks)
    for (Instruction &I : *BB)
      if (auto *M = dyn_cast<MemIntrinsic>(&I)) {
        std::string A = diskArrayOf(I);
        if (A.empty())
          continue;
        const char *What = isa<MemSetInst>(M) ? "memset" : isa<MemMoveInst>(M) ? "memmove" : "memcpy";
        return std::string("a ") + What + " on " + A + at(I.getDebugLoc()) + " accesses it as bytes, which Polly " +
               "cannot relate to its elements: write it as a loop";
      }
  return "";
}

bool oneOf(StringRef Name, ArrayRef<const char *> Names) {
  return llvm::is_contained(Names, Name);
}

/// The C library's output functions: loops that print an array are not
/// loops anyone wants reordered.
bool writesOutput(StringRef Callee) {
  return oneOf(Callee, {"printf", "fprintf", "vprintf", "vfprintf", "puts", "fputs", "putc", "fputc", "putchar",
                        "fwrite", "write", "fflush"});
}

/// libm functions clang treats as pure (intrinsics) under -fno-math-errno
/// (also their float and long double forms).
bool mathErrnoFunction(StringRef Callee) {
  static const char *const Names[] = {"sqrt", "exp", "exp2", "log", "log2",  "log10", "pow",
                                      "sin",  "cos", "tan",  "fma", "cbrt", "hypot", "fmod"};
  StringRef Base = Callee.ends_with("f") || Callee.ends_with("l") ? Callee.drop_back() : Callee;
  return oneOf(Callee, Names) || oneOf(Base, Names);
}

/// The called function of the call \p R reports, found by its location.
std::string calleeOf(const RejectReason &R) {
  auto *BB = dyn_cast_or_null<BasicBlock>(const_cast<Value *>(R.getRemarkBB()));
  if (!BB)
    return "";
  for (Instruction &I : *BB)
    if (auto *C = dyn_cast<CallBase>(&I))
      if (!R.getDebugLoc() || I.getDebugLoc() == R.getDebugLoc())
        if (Function *F = C->getCalledFunction())
          return "'" + F->getName().str() + "'";
  return "";
}

/// Polly's reject reason, in the terms of the source.
std::string explain(const RejectReason &R) {
  std::string Where = at(R.getDebugLoc());
  switch (R.getKind()) {
  case RejectReasonKind::CFG:
  case RejectReasonKind::InvalidTerminator:
  case RejectReasonKind::IrreducibleRegion:
  case RejectReasonKind::UnreachableInExit:
  case RejectReasonKind::IndirectPredecessor:
    return "their control flow" + Where + " (a switch, a goto, or code that never returns) is not made of the loops "
           "and conditions Polly models";
  case RejectReasonKind::AffFunc:
  case RejectReasonKind::UndefCond:
  case RejectReasonKind::InvalidCond:
  case RejectReasonKind::UndefOperand:
  case RejectReasonKind::NonAffBranch:
    return "a condition" + Where + " depends on data computed or loaded inside them, not only on loop counters "
           "and values fixed before the loops";
  case RejectReasonKind::NoBasePtr:
  case RejectReasonKind::UndefBasePtr:
  case RejectReasonKind::VariantBasePtr:
    return "the array pointer used" + Where + " changes inside them (or is loaded there)";
  case RejectReasonKind::NonAffineAccess:
    return "a subscript" + Where + " is not an affine function of the loop counters and of values fixed before "
           "the loops (an indirect index such as A[idx[i]], a product of counters, or a division)";
  case RejectReasonKind::DifferentElementSize:
    return "an array is accessed" + Where + " with elements of different sizes (a memcpy or memset on it, or a "
           "pointer cast)";
  case RejectReasonKind::LoopBound:
    return "the bounds of the loop" + Where + " are not affine functions of the outer loop counters and of "
           "values fixed before the loops (or its trip count cannot be computed)";
  case RejectReasonKind::LoopHasNoExit:
  case RejectReasonKind::LoopHasMultipleExits:
  case RejectReasonKind::LoopOnlySomeLatches:
    return "the loop" + Where + " can leave early (a break, return or goto)";
  case RejectReasonKind::FuncCall: {
    std::string Callee = calleeOf(R);
    if (Callee.size() > 2 && mathErrnoFunction(StringRef(Callee).drop_front().drop_back()))
      return "they call " + Callee + Where + ", which may set errno (-fno-math-errno makes it a pure function "
             "Polly can model)";
    return "they call " + (Callee.empty() ? std::string("a function") : Callee) + Where +
           ", whose effect on memory Polly cannot see (inline it, or make it pure)";
  }
  case RejectReasonKind::NonSimpleMemoryAccess:
    return "a volatile or atomic access" + Where + " is not modelled";
  case RejectReasonKind::Alias:
    return "Polly cannot prove that the arrays accessed" + Where + " do not overlap, and cannot check it at run "
           "time (declare pointer parameters restrict)";
  case RejectReasonKind::IntToPtr:
    return "a pointer is made from an integer" + Where;
  case RejectReasonKind::Alloca:
    return "a local array is allocated inside them" + Where;
  case RejectReasonKind::UnknownInst:
    return "an instruction" + Where + " is not modelled (" + R.getMessage() + ")";
  default:
    return R.getMessage() + Where;
  }
}

DebugLoc firstLocation(const Region &R) {
  for (BasicBlock *BB : R.blocks())
    for (Instruction &I : *BB)
      if (I.getDebugLoc() && I.getDebugLoc().getLine())
        return I.getDebugLoc();
  return DebugLoc();
}

/// Why the disk-resident access \p I of nest \p L is in no SCoP; \p Output
/// is set when the reason is a call that prints.
std::string whyUnmodelled(Instruction &I, const Loop &L, polly::ScopDetection &SD, RegionInfo &RI, bool &Output) {
  // Polly's log of the regions around the access, innermost first; a
  // reason inside the nest before one elsewhere in a larger region.
  const RejectReason *Inside = nullptr, *Any = nullptr;
  for (Region *R = RI.getRegionFor(I.getParent()); R && !Inside; R = R->getParent()) {
    const polly::RejectLog *Log = SD.lookupRejectionLog(R);
    if (!Log)
      continue;
    for (const polly::RejectReasonPtr &RR : *Log) {
      if (RR->getKind() == RejectReasonKind::Unprofitable)
        continue;
      auto *BB = dyn_cast_or_null<BasicBlock>(const_cast<Value *>(RR->getRemarkBB()));
      if (BB && L.contains(BB)) {
        Inside = RR.get();
        break;
      }
      if (!Any)
        Any = RR.get();
    }
  }
  std::string Hint = memIntrinsicHint(L.blocks());
  if (const RejectReason *R = Inside ? Inside : Any) {
    std::string Callee = R->getKind() == RejectReasonKind::FuncCall ? calleeOf(*R) : "";
    Output = Callee.size() > 2 && writesOutput(StringRef(Callee).drop_front().drop_back());
    if (Output)
      return "they write output with " + Callee + at(R->getDebugLoc());
    return "Polly cannot model them: " + explain(*R) + (Hint.empty() ? "" : "; " + Hint);
  }
  // A region Polly detected but dropped when it built the model: one
  // access anywhere in it (often a memcpy in another loop nest) can
  // condemn every loop of the region.
  for (const Region *R : SD)
    if (R->contains(I.getParent())) {
      std::string Why = "Polly built a model of them but dropped it: the run-time checks it would need (every "
                        "subscript within its array, arrays that do not overlap) can never all hold";
      DebugLoc First = firstLocation(*R);
      DebugLoc Here = L.getStartLoc();
      if (First && (!Here || First.getLine() < Here.getLine()))
        Why += " for the code it models with them (from line " + std::to_string(First.getLine()) + ")";
      Hint = memIntrinsicHint(R->blocks());
      return Why + (Hint.empty() ? std::string() : "; " + Hint);
    }
  return "Polly found no region around them it could model" + (Hint.empty() ? std::string() : ": " + Hint);
}

} // namespace

PreservedAnalyses UnmodelledLoopsPass::run(Function &F, FunctionAnalysisManager &FAM) {
  // Remarks only: no work unless iopoly's remarks are asked for.
  if (!F.getContext().getLLVMRemarkStreamer() && !F.getContext().getDiagHandlerPtr()->isAnyRemarkEnabled(DEBUG_TYPE))
    return PreservedAnalyses::all();
  // Polly's outlined parallel loops (threads=on) are code it generated from
  // SCoPs already reported; Polly marks them so as not to process them again.
  if (F.hasFnAttribute("polly.skip.fn"))
    return PreservedAnalyses::all();
  LoopInfo &LI = FAM.getResult<LoopAnalysis>(F);
  if (LI.empty())
    return PreservedAnalyses::all();
  // The disk-resident accesses of each outermost loop.
  MapVector<Loop *, SmallVector<Instruction *, 8>> Nests;
  for (BasicBlock &BB : F)
    if (Loop *L = LI.getLoopFor(&BB))
      for (Instruction &I : BB)
        if (!diskArrayOf(I).empty())
          Nests[L->getOutermostLoop()].push_back(&I);
  if (Nests.empty())
    return PreservedAnalyses::all();
  // Cached for the SCoP passes that follow (nothing here changes the IR).
  polly::ScopDetection &SD = FAM.getResult<polly::ScopAnalysis>(F);
  polly::ScopInfo &SI = FAM.getResult<polly::ScopInfoAnalysis>(F);
  RegionInfo &RI = FAM.getResult<RegionInfoAnalysis>(F);
  OptimizationRemarkEmitter &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(F);
  static RemarkOnce Once("unmodelled");
  for (auto &Nest : Nests) {
    Loop *L = Nest.first;
    Instruction *Orphan = nullptr;
    for (Instruction *I : Nest.second) {
      bool InScop = false;
      for (auto &[R, S] : SI)
        InScop |= S && R->contains(I->getParent());
      if (!InScop) {
        Orphan = I;
        break;
      }
    }
    if (!Orphan)
      continue;
    DebugLoc Loc = L->getStartLoc();
    if (!Once.first("UnmodelledLoops", Loc, &F))
      continue;
    bool Output = false;
    std::string Why = whyUnmodelled(*Orphan, *L, SD, RI, Output);
    std::string Text =
        modeName().str() + " leaves the loops here in their order (they access " + diskArrayOf(*Orphan) + "): " + Why;
    // Printing an array is not a missed optimization.
    if (Output)
      ORE.emit(OptimizationRemarkAnalysis(DEBUG_TYPE, "UnmodelledLoops", Loc, L->getHeader()) << Text);
    else
      ORE.emit(OptimizationRemarkMissed(DEBUG_TYPE, "UnmodelledLoops", Loc, L->getHeader()) << Text);
  }
  return PreservedAnalyses::all();
}

} // namespace iopoly
