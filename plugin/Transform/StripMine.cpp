//===- StripMine.cpp - Translate once per stripe, not per access -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/StripMine.h"
#include "Support/RuntimeABI.h"
#include "Transform/DiskPointers.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#define DEBUG_TYPE "iopoly"

using namespace llvm;

namespace iopoly {

namespace {

/// Loops that surely run fewer iterations than this are left to the
/// per-access lowering: a strip costs a few translations at loop entry.
constexpr uint64_t MinTripCount = 4;

struct Access {
  Instruction *I;
  Value *Ptr;
  const SCEV *Start;
  int64_t Step;
  uint64_t Size;
  bool Store;
  std::string Array;
  Value *StartV = nullptr; ///< Start expanded in the preheader
};

struct Candidate {
  Loop *L;
  BasicBlock *PH, *Header, *Latch, *Exit;
  Value *Total = nullptr; ///< iterations of one loop entry (i64)
  std::vector<Access> Accesses;
};

Value *pointerOperand(Instruction *I) {
  if (auto *L = dyn_cast<LoadInst>(I))
    return L->getPointerOperand();
  return cast<StoreInst>(I)->getPointerOperand();
}

/// Checks the shape of \p L; "" when it can be strip-mined, else why not.
std::string checkLoop(Loop *L, Candidate &C, DiskPointers &DP, DominatorTree &DT, ScalarEvolution &SE) {
  C.L = L;
  C.PH = L->getLoopPreheader();
  C.Header = L->getHeader();
  C.Latch = L->getLoopLatch();
  C.Exit = L->getExitBlock();
  if (!L->isLoopSimplifyForm() || !C.PH || !C.Latch)
    return "it is not in canonical form";
  if (L->getExitingBlock() != C.Latch || !C.Exit)
    return "it has more than one exit";
  auto *Br = dyn_cast<BranchInst>(C.Latch->getTerminator());
  if (!Br || !Br->isConditional())
    return "its latch does not end in a conditional branch";
  for (BasicBlock *BB : L->blocks())
    for (Instruction &I : *BB)
      if (isa<InvokeInst>(I) || isa<CallBrInst>(I) || isa<IndirectBrInst>(I) || I.getType()->isTokenTy())
        return "it contains exception handling or indirect branches";
  const SCEV *BTC = SE.getBackedgeTakenCount(L);
  if (isa<SCEVCouldNotCompute>(BTC) || !BTC->getType()->isIntegerTy() || !SE.isLoopInvariant(BTC, L))
    return "its trip count is not computable";
  if (SE.getConstantMaxBackedgeTakenCount(L)->isZero() ||
      (isa<SCEVConstant>(SE.getConstantMaxBackedgeTakenCount(L)) &&
       cast<SCEVConstant>(SE.getConstantMaxBackedgeTakenCount(L))->getAPInt().ult(MinTripCount)))
    return "it runs fewer than 4 iterations";
  const DataLayout &DL = C.Header->getModule()->getDataLayout();
  for (BasicBlock *BB : L->blocks()) {
    // Only accesses that run in every iteration: their addresses are all
    // touched, so translating them ahead of time cannot go out of bounds.
    if (!DT.dominates(BB, C.Latch))
      continue;
    for (Instruction &I : *BB) {
      if (!isa<LoadInst>(I) && !isa<StoreInst>(I))
        continue;
      Value *Ptr = pointerOperand(&I);
      const DiskOrigin *O = DP.originOf(Ptr);
      if (!O)
        continue;
      bool Simple = isa<LoadInst>(I) ? cast<LoadInst>(I).isSimple() : cast<StoreInst>(I).isSimple();
      Type *Ty = isa<LoadInst>(I) ? I.getType() : cast<StoreInst>(I).getValueOperand()->getType();
      uint64_t Size = DL.getTypeStoreSize(Ty);
      auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(Ptr));
      if (!Simple || Size == 0 || Size > MaxInlineAccess || !AR || AR->getLoop() != L || !AR->isAffine())
        continue;
      auto *Step = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
      if (!Step || Step->getAPInt().isZero() || Step->getAPInt().abs().ugt(1u << 30))
        continue;
      if (!SE.isLoopInvariant(AR->getStart(), L))
        continue;
      C.Accesses.push_back({&I, Ptr, AR->getStart(), Step->getAPInt().getSExtValue(), Size, isa<StoreInst>(I),
                            O->Name});
    }
  }
  if (C.Accesses.empty())
    return "none of its disk-resident accesses is affine and unconditional";
  return "";
}

/// Expands the trip count and the start addresses in the preheader.
bool expandInPreheader(Candidate &C, ScalarEvolution &SE) {
  const DataLayout &DL = C.PH->getModule()->getDataLayout();
  SCEVExpander Exp(SE, DL, "iopoly.strip");
  Instruction *At = C.PH->getTerminator();
  Type *I64 = Type::getInt64Ty(C.PH->getContext());
  const SCEV *BTC = SE.getBackedgeTakenCount(C.L);
  const SCEV *Total = SE.getAddExpr(SE.getZeroExtendExpr(BTC, I64), SE.getOne(I64));
  if (!Exp.isSafeToExpandAt(Total, At))
    return false;
  for (Access &A : C.Accesses)
    if (!Exp.isSafeToExpandAt(A.Start, At))
      return false;
  C.Total = Exp.expandCodeFor(Total, I64, At);
  for (Access &A : C.Accesses)
    A.StartV = Exp.expandCodeFor(A.Start, A.Ptr->getType(), At);
  return true;
}

/// The strip driver: see the file comment of StripMine.h.
void stripMine(Candidate &C, DiskPointers &DP, RuntimeABI &ABI, SmallVectorImpl<AllocaInst *> &Windows) {
  Function &F = *C.Header->getParent();
  LLVMContext &Ctx = F.getContext();
  Type *I64 = Type::getInt64Ty(Ctx);
  MDNode *Likely = MDBuilder(Ctx).createLikelyBranchWeights();

  // The checked copy: one iteration at a time, accesses lowered one by one.
  ValueToValueMapTy VMap;
  SmallVector<BasicBlock *, 8> Clones;
  for (BasicBlock *BB : C.L->blocks()) {
    BasicBlock *NB = CloneBasicBlock(BB, VMap, ".checked", &F);
    VMap[BB] = NB;
    Clones.push_back(NB);
  }
  remapInstructionsInBlocks(Clones, VMap);
  for (auto It = VMap.begin(); It != VMap.end(); ++It)
    DP.addDerived(It->second, It->first);
  auto *CHeader = cast<BasicBlock>(VMap[C.Header]);
  auto *CLatch = cast<BasicBlock>(VMap[C.Latch]);
  auto Cloned = [&](Value *V) -> Value * {
    auto It = VMap.find(V);
    return It == VMap.end() ? V : static_cast<Value *>(It->second);
  };

  BasicBlock *Head = BasicBlock::Create(Ctx, "strip.head", &F, C.Header);
  BasicBlock *SLatch = BasicBlock::Create(Ctx, "strip.latch", &F, C.Exit);
  C.PH->getTerminator()->replaceSuccessorWith(C.Header, Head);

  // strip.head: iterations done so far and the carried header phis.
  IRBuilder<> B(Head);
  PHINode *Done = B.CreatePHI(I64, 2, "strip.done");
  Done->addIncoming(B.getInt64(0), C.PH);
  struct Carried {
    PHINode *Orig, *Carry;
  };
  SmallVector<Carried, 8> Carries;
  for (PHINode &P : C.Header->phis()) {
    PHINode *Carry = B.CreatePHI(P.getType(), 2, P.getName() + ".carry");
    Carry->addIncoming(P.getIncomingValueForBlock(C.PH), C.PH);
    Carries.push_back({&P, Carry});
    DP.addDerived(Carry, &P);
  }

  // Translate each access at iteration `done` (calling the runtime only if
  // its window does not hold that address yet) and count how many
  // iterations it stays inside the window.
  Value *N = B.CreateSub(C.Total, Done, "strip.remaining");
  SmallVector<Value *, 8> Deltas;
  BasicBlock *Cur = Head;
  for (Access &A : C.Accesses) {
    AllocaInst *W = ABI.createWindow(F, /*Pinned=*/true);
    Windows.push_back(W);
    B.SetInsertPoint(Cur);
    Value *Addr = B.CreateGEP(B.getInt8Ty(), A.StartV, B.CreateMul(Done, B.getInt64(A.Step)), "strip.addr");
    Value *AddrI = B.CreatePtrToInt(Addr, I64);
    Value *Held = B.CreateICmpULT(B.CreateSub(AddrI, ABI.loadField(B, W, RuntimeABI::FieldLo, "")),
                                  ABI.loadField(B, W, RuntimeABI::FieldLimit, ""));
    BasicBlock *Call = BasicBlock::Create(Ctx, "strip.translate", &F, C.Header);
    BasicBlock *Cont = BasicBlock::Create(Ctx, "strip.cont", &F, C.Header);
    B.CreateCondBr(Held, Cont, Call, Likely);
    B.SetInsertPoint(Call);
    B.CreateCall(ABI.Translate, {W, Addr, B.getInt64(A.Size), B.getInt32(A.Store ? ModeWrite : ModeRead)});
    B.CreateBr(Cont);
    B.SetInsertPoint(Cont);
    Value *Lo = ABI.loadField(B, W, RuntimeABI::FieldLo, "strip.lo");
    Value *Limit = ABI.loadField(B, W, RuntimeABI::FieldLimit, "strip.limit");
    Deltas.push_back(ABI.loadField(B, W, RuntimeABI::FieldDelta, "strip.delta"));
    Value *Off = B.CreateSub(AddrI, Lo);
    Value *In = B.CreateICmpULT(Off, Limit); // false after a straddling access
    // The window covers offsets [0, limit + 63); an access of Size bytes
    // fits while its offset is at most limit + 63 - Size.
    Value *Room;
    if (A.Step > 0) {
      Value *Last = B.CreateAdd(Limit, B.getInt64(MaxInlineAccess - 1 - A.Size));
      Room = B.CreateAdd(B.CreateUDiv(B.CreateSub(Last, Off), B.getInt64(A.Step)), B.getInt64(1));
    } else {
      Room = B.CreateAdd(B.CreateUDiv(Off, B.getInt64(-A.Step)), B.getInt64(1));
    }
    Room = B.CreateSelect(In, Room, B.getInt64(0), "strip.room");
    N = B.CreateSelect(B.CreateICmpULT(Room, N), Room, N, "strip.n");
    Cur = Cont;
  }
  B.SetInsertPoint(Cur);
  B.CreateCondBr(B.CreateICmpNE(N, B.getInt64(0)), C.Header, CHeader, Likely);
  for (Carried &K : Carries)
    for (PHINode *P : {K.Orig, cast<PHINode>(VMap[K.Orig])}) {
      int Idx = P->getBasicBlockIndex(C.PH);
      P->setIncomingBlock(Idx, Cur);
      P->setIncomingValue(Idx, K.Carry);
    }

  // The fast loop: N iterations, accesses rebased by their window's delta.
  B.SetInsertPoint(C.Header, C.Header->getFirstInsertionPt());
  PHINode *Count = PHINode::Create(I64, 2, "strip.count", C.Header->getFirstNonPHI());
  Count->addIncoming(N, Cur);
  B.SetInsertPoint(C.Latch->getTerminator());
  Value *CountNext = B.CreateSub(Count, B.getInt64(1), "strip.count.next");
  Count->addIncoming(CountNext, C.Latch);
  C.Latch->getTerminator()->eraseFromParent();
  B.SetInsertPoint(C.Latch);
  B.CreateCondBr(B.CreateICmpNE(CountNext, B.getInt64(0)), C.Header, SLatch);
  for (size_t K = 0; K < C.Accesses.size(); ++K) {
    Instruction *I = C.Accesses[K].I;
    IRBuilder<> RB(I);
    Value *Rebased = RB.CreateGEP(RB.getInt8Ty(), C.Accesses[K].Ptr, Deltas[K], "strip.real");
    I->setOperand(isa<LoadInst>(I) ? LoadInst::getPointerOperandIndex() : StoreInst::getPointerOperandIndex(),
                  Rebased);
  }

  // The checked copy runs one iteration and goes to strip.latch.
  CLatch->getTerminator()->eraseFromParent();
  BranchInst::Create(SLatch, CLatch);
  CHeader->removePredecessor(CLatch, /*KeepOneInputPHIs=*/true);

  // strip.latch: merge what each version computed, advance, loop or exit.
  B.SetInsertPoint(SLatch);
  PHINode *Ran = B.CreatePHI(I64, 2, "strip.ran");
  Ran->addIncoming(N, C.Latch);
  Ran->addIncoming(B.getInt64(1), CLatch);
  for (Carried &K : Carries) {
    Value *Next = K.Orig->getIncomingValueForBlock(C.Latch);
    PHINode *M = B.CreatePHI(K.Orig->getType(), 2, K.Orig->getName() + ".next");
    M->addIncoming(Next, C.Latch);
    M->addIncoming(Cloned(Next), CLatch);
    DP.addDerived(M, Next);
    K.Carry->addIncoming(M, SLatch);
  }
  for (PHINode &E : C.Exit->phis()) {
    int Idx = E.getBasicBlockIndex(C.Latch);
    if (Idx < 0)
      continue;
    Value *V = E.getIncomingValue(Idx);
    PHINode *M = B.CreatePHI(E.getType(), 2, E.getName() + ".strip");
    M->addIncoming(V, C.Latch);
    M->addIncoming(Cloned(V), CLatch);
    DP.addDerived(M, V);
    E.setIncomingBlock(Idx, SLatch);
    E.setIncomingValue(Idx, M);
  }
  Value *DoneNext = B.CreateAdd(Done, Ran, "strip.done.next");
  Done->addIncoming(DoneNext, SLatch);
  B.CreateCondBr(B.CreateICmpEQ(DoneNext, C.Total), C.Exit, Head);
}

} // namespace

StripMineStats stripMineLoops(Function &F, DiskPointers &DP, RuntimeABI &ABI, DominatorTree &DT, LoopInfo &LI,
                              ScalarEvolution &SE, OptimizationRemarkEmitter &ORE,
                              SmallVectorImpl<AllocaInst *> &Windows) {
  StripMineStats Stats;
  std::vector<Candidate> Candidates;
  for (Loop *L : LI.getLoopsInPreorder()) {
    if (!L->isInnermost())
      continue;
    bool HasDisk = false;
    for (BasicBlock *BB : L->blocks())
      for (Instruction &I : *BB)
        if ((isa<LoadInst>(I) || isa<StoreInst>(I)) && DP.originOf(pointerOperand(&I)))
          HasDisk = true;
    if (!HasDisk)
      continue;
    formLCSSA(*L, DT, &LI, &SE);
    Candidate C;
    std::string Why = checkLoop(L, C, DP, DT, SE);
    if (Why.empty() && !expandInPreheader(C, SE))
      Why = "its addresses cannot be computed before the loop";
    if (!Why.empty()) {
      ORE.emit([&] {
        return OptimizationRemarkAnalysis(DEBUG_TYPE, "NotStripMined", L->getStartLoc(), L->getHeader())
               << "loop not strip-mined: " << Why << "; its disk-resident accesses are tested one by one";
      });
      continue;
    }
    Candidates.push_back(std::move(C));
  }
  for (Candidate &C : Candidates) {
    DebugLoc Loc = C.L->getStartLoc();
    BasicBlock *Header = C.Header;
    stripMine(C, DP, ABI, Windows);
    Stats.Loops++;
    Stats.Accesses += C.Accesses.size();
    std::set<std::string> Names;
    for (const Access &A : C.Accesses)
      Names.insert(A.Array);
    std::string List;
    for (const std::string &N : Names) {
      List += (List.empty() ? "'" : ", '") + N + "'";
      Stats.Arrays.insert(N);
    }
    ORE.emit([&] {
      return OptimizationRemark(DEBUG_TYPE, "StripMined", Loc, Header)
             << "strip-mined loop at stripe boundaries: " << ore::NV("Accesses", unsigned(C.Accesses.size()))
             << " accesses to " << List << " are translated once per strip instead of once per iteration";
    });
  }
  return Stats;
}

} // namespace iopoly
