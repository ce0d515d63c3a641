//===- LowerDiskAccesses.cpp - Serve disk-resident accesses via the runtime ===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/LowerDiskAccesses.h"
#include "Support/DiskResidentRegistry.h"
#include "Support/Options.h"
#include "Support/RuntimeABI.h"
#include "Transform/DiskGlobals.h"
#include "Transform/DiskPointers.h"
#include "Transform/StripMine.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <set>

#define DEBUG_TYPE "iopoly"

using namespace llvm;

STATISTIC(NumLoads, "Disk-resident loads lowered");
STATISTIC(NumStores, "Disk-resident stores lowered");
STATISTIC(NumMemOps, "Disk-resident memset/memcpy/memmove lowered");

namespace iopoly {

namespace {

/// Rewrites the accesses of one function.
class FunctionLowering {
public:
  FunctionLowering(Function &F, const DiskPointers &DP, RuntimeABI &ABI)
      : F(F), DP(DP), ABI(ABI), DL(F.getParent()->getDataLayout()) {}

  struct Counts {
    unsigned Loads = 0, Stores = 0, MemOps = 0, Unsupported = 0;
    std::set<std::string> Arrays;
  };

  /// Lowers every access of F not already handled by strip-mining.
  Counts run(OptimizationRemarkEmitter &ORE);
  /// Windows of this function (strip-mining adds its own).
  SmallVectorImpl<AllocaInst *> &windows() { return Windows; }

private:
  AllocaInst *newWindow();
  void lowerLoadStore(Instruction *I, Value *Ptr, Type *Ty, bool IsStore);
  void lowerLarge(Instruction *I, Value *Ptr, Type *Ty, bool IsStore);
  void lowerMemIntrinsic(MemIntrinsic *MI);
  void releaseAtExits();

  Function &F;
  const DiskPointers &DP;
  RuntimeABI &ABI;
  const DataLayout &DL;
  SmallVector<AllocaInst *, 16> Windows;
};

AllocaInst *FunctionLowering::newWindow() {
  AllocaInst *W = ABI.createWindow(F, /*Pinned=*/false);
  Windows.push_back(W);
  return W;
}

/// Copies the properties of the original access to its clone.
static void copyAccessProperties(Instruction *From, Instruction *To) {
  SmallVector<std::pair<unsigned, MDNode *>, 4> MDs;
  From->getAllMetadata(MDs);
  for (auto &KV : MDs)
    To->setMetadata(KV.first, KV.second);
  To->setDebugLoc(From->getDebugLoc());
}

static Instruction *cloneAccess(Instruction *I, Value *NewPtr, IRBuilder<> &B) {
  if (auto *L = dyn_cast<LoadInst>(I)) {
    LoadInst *N = B.CreateAlignedLoad(L->getType(), NewPtr, L->getAlign(), L->isVolatile());
    N->setAtomic(L->getOrdering(), L->getSyncScopeID());
    copyAccessProperties(I, N);
    return N;
  }
  auto *S = cast<StoreInst>(I);
  StoreInst *N = B.CreateAlignedStore(S->getValueOperand(), NewPtr, S->getAlign(), S->isVolatile());
  N->setAtomic(S->getOrdering(), S->getSyncScopeID());
  copyAccessProperties(I, N);
  return N;
}

void FunctionLowering::lowerLoadStore(Instruction *I, Value *Ptr, Type *Ty, bool IsStore) {
  uint64_t Size = DL.getTypeStoreSize(Ty);
  if (Size > MaxInlineAccess || Size == 0)
    return lowerLarge(I, Ptr, Ty, IsStore);
  AllocaInst *W = newWindow();
  IRBuilder<> B(I);
  Type *I64 = B.getInt64Ty();
  Value *Lo = ABI.loadField(B, W, RuntimeABI::FieldLo, "iopoly.lo");
  Value *Limit = ABI.loadField(B, W, RuntimeABI::FieldLimit, "iopoly.limit");
  Value *Off = B.CreateSub(B.CreatePtrToInt(Ptr, I64), Lo, "iopoly.off");
  Value *InWindow = B.CreateICmpULT(Off, Limit, "iopoly.inwin");
  Instruction *FastTerm = nullptr, *SlowTerm = nullptr;
  MDNode *Likely = MDBuilder(F.getContext()).createLikelyBranchWeights();
  SplitBlockAndInsertIfThenElse(InWindow, I, &FastTerm, &SlowTerm, Likely);

  B.SetInsertPoint(FastTerm);
  Value *Delta = ABI.loadField(B, W, RuntimeABI::FieldDelta, "iopoly.delta");
  Value *Fast = cloneAccess(I, B.CreateGEP(B.getInt8Ty(), Ptr, Delta, "iopoly.addr"), B);

  B.SetInsertPoint(SlowTerm);
  Value *Real = B.CreateCall(ABI.Translate, {W, Ptr, B.getInt64(Size), B.getInt32(IsStore ? ModeWrite : ModeRead)},
                             "iopoly.real");
  Value *Slow = cloneAccess(I, Real, B);
  if (IsStore)
    B.CreateCall(ABI.Commit, {W});

  if (!IsStore) {
    B.SetInsertPoint(I);
    PHINode *Phi = B.CreatePHI(I->getType(), 2, I->getName());
    Phi->addIncoming(Fast, FastTerm->getParent());
    Phi->addIncoming(Slow, SlowTerm->getParent());
    I->replaceAllUsesWith(Phi);
  }
  I->eraseFromParent();
}

/// Accesses wider than the inline fast path go through a stack copy.
void FunctionLowering::lowerLarge(Instruction *I, Value *Ptr, Type *Ty, bool IsStore) {
  IRBuilder<> Entry(&F.getEntryBlock(), F.getEntryBlock().getFirstInsertionPt());
  AllocaInst *Tmp = Entry.CreateAlloca(Ty, nullptr, "iopoly.tmp");
  IRBuilder<> B(I);
  Value *Bytes = B.getInt64(DL.getTypeStoreSize(Ty));
  if (IsStore) {
    B.CreateStore(cast<StoreInst>(I)->getValueOperand(), Tmp);
    B.CreateCall(ABI.Memcpy, {Ptr, Tmp, Bytes});
  } else {
    B.CreateCall(ABI.Memcpy, {Tmp, Ptr, Bytes});
    LoadInst *L = B.CreateLoad(Ty, Tmp, I->getName());
    I->replaceAllUsesWith(L);
  }
  I->eraseFromParent();
}

void FunctionLowering::lowerMemIntrinsic(MemIntrinsic *MI) {
  IRBuilder<> B(MI);
  Value *Len = B.CreateZExtOrTrunc(MI->getLength(), B.getInt64Ty());
  if (auto *MS = dyn_cast<MemSetInst>(MI))
    B.CreateCall(ABI.Memset, {MS->getDest(), B.CreateZExt(MS->getValue(), B.getInt32Ty()), Len});
  else if (isa<MemMoveInst>(MI))
    B.CreateCall(ABI.Memmove, {MI->getDest(), cast<MemTransferInst>(MI)->getSource(), Len});
  else
    B.CreateCall(ABI.Memcpy, {MI->getDest(), cast<MemTransferInst>(MI)->getSource(), Len});
  MI->eraseFromParent();
}

void FunctionLowering::releaseAtExits() {
  if (Windows.empty())
    return;
  // A window used inside a loop nest lets go of its stripes when the nest
  // is left, so that the stripes of finished loops do not stay pinned (and
  // shrink the buffer) for the rest of the function.
  DominatorTree DT(F);
  LoopInfo LI(DT);
  for (AllocaInst *W : Windows) {
    Loop *Outer = nullptr;
    for (User *U : W->users())
      if (auto *I = dyn_cast<Instruction>(U))
        if (Loop *L = LI.getLoopFor(I->getParent())) {
          while (L->getParentLoop())
            L = L->getParentLoop();
          Outer = L;
          break;
        }
    if (!Outer)
      continue;
    SmallVector<BasicBlock *, 4> Exits;
    Outer->getUniqueExitBlocks(Exits);
    for (BasicBlock *E : Exits)
      if (!E->isEHPad()) {
        IRBuilder<> B(E, E->getFirstInsertionPt());
        B.CreateCall(ABI.WindowRelease, {W});
      }
  }
  for (BasicBlock &BB : F)
    if (auto *R = dyn_cast<ReturnInst>(BB.getTerminator())) {
      IRBuilder<> B(R);
      for (AllocaInst *W : Windows)
        B.CreateCall(ABI.WindowRelease, {W});
    }
}

FunctionLowering::Counts FunctionLowering::run(OptimizationRemarkEmitter &ORE) {
  Counts C;
  SmallVector<Instruction *, 64> Work;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      Work.push_back(&I);
  for (Instruction *I : Work) {
    if (auto *L = dyn_cast<LoadInst>(I)) {
      if (const DiskOrigin *O = DP.originOf(L->getPointerOperand())) {
        C.Arrays.insert(O->Name);
        lowerLoadStore(L, L->getPointerOperand(), L->getType(), /*IsStore=*/false);
        ++C.Loads;
      }
    } else if (auto *S = dyn_cast<StoreInst>(I)) {
      if (const DiskOrigin *O = DP.originOf(S->getPointerOperand())) {
        C.Arrays.insert(O->Name);
        lowerLoadStore(S, S->getPointerOperand(), S->getValueOperand()->getType(), /*IsStore=*/true);
        ++C.Stores;
      }
    } else if (auto *MI = dyn_cast<MemIntrinsic>(I)) {
      const DiskOrigin *O = DP.originOf(MI->getDest());
      if (!O)
        if (auto *MT = dyn_cast<MemTransferInst>(MI))
          O = DP.originOf(MT->getSource());
      if (O) {
        C.Arrays.insert(O->Name);
        lowerMemIntrinsic(MI);
        ++C.MemOps;
      }
    } else if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I)) {
      Value *P = isa<AtomicRMWInst>(I) ? cast<AtomicRMWInst>(I)->getPointerOperand()
                                       : cast<AtomicCmpXchgInst>(I)->getPointerOperand();
      if (const DiskOrigin *O = DP.originOf(P)) {
        ++C.Unsupported;
        ORE.emit([&] {
          return OptimizationRemarkMissed(DEBUG_TYPE, "AtomicNotLowered", I)
                 << "atomic operation on disk-resident '" << O->Name
                 << "' is not supported; the program will stop if it runs";
        });
      }
    }
  }
  releaseAtExits();
  NumLoads += C.Loads;
  NumStores += C.Stores;
  NumMemOps += C.MemOps;
  return C;
}

std::string joinNames(const std::set<std::string> &Names) {
  std::string S;
  for (const std::string &N : Names)
    S += (S.empty() ? "'" : ", '") + N + "'";
  return S;
}

/// Emits the constructor that compares the assumed striping with the
/// runtime's (once per module).
void addStripingCheck(Module &M, RuntimeABI &ABI) {
  LLVMContext &Ctx = M.getContext();
  auto *Ctor = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false), GlobalValue::InternalLinkage,
                                "iopoly.check_striping", M);
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", Ctor));
  B.CreateCall(ABI.CheckStriping, {B.getInt64(assumedStripe()), B.getInt64(assumedDisks()),
                                   B.CreateGlobalStringPtr(M.getSourceFileName(), "iopoly.module")});
  B.CreateRetVoid();
  appendToGlobalCtors(M, Ctor, 102);
}

} // namespace

PreservedAnalyses LowerDiskAccessesPass::run(Module &M, ModuleAnalysisManager &AM) {
  std::string StripeError;
  assumedStripe(&StripeError);
  if (!StripeError.empty())
    M.getContext().emitError("iopoly: " + StripeError);
  DiskPointers DP(M);
  FunctionAnalysisManager &FAM = AM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  RuntimeABI ABI(M);
  bool Changed = DP.removeMarkers();
  for (const DiskEscape &E : DP.escapes()) {
    auto &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(*E.At->getFunction());
    ORE.emit([&] {
      return OptimizationRemarkMissed(DEBUG_TYPE, "Escape", E.At)
             << "pointer to disk-resident '" << E.Origin << "' " << E.What
             << "; accesses through it are not lowered (the program stops with an error naming the array if "
                "they run)";
    });
  }
  bool Any = false;
  for (Function &F : M) {
    if (F.isDeclaration() || !DP.touches(F))
      continue;
    auto &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(F);
    FunctionLowering FL(F, DP, ABI);
    StripMineStats SM;
    if (hoistEnabled() && !F.hasOptNone()) {
      auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
      auto &LI = FAM.getResult<LoopAnalysis>(F);
      auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
      SM = stripMineLoops(F, DP, ABI, DT, LI, SE, ORE, FL.windows());
    }
    FunctionLowering::Counts C = FL.run(ORE);
    for (const std::string &N : SM.Arrays)
      C.Arrays.insert(N);
    if (!C.Loads && !C.Stores && !C.MemOps && !SM.Accesses)
      continue;
    Any = Changed = true;
    ORE.emit([&] {
      return OptimizationRemark(DEBUG_TYPE, "Lowered", &F)
             << "lowered " << ore::NV("Loads", C.Loads) << " loads, " << ore::NV("Stores", C.Stores)
             << " stores and " << ore::NV("MemOps", C.MemOps) << " memset/memcpy of disk-resident "
             << joinNames(C.Arrays) << " onto the stripe buffer, and strip-mined " << ore::NV("Loops", SM.Loops)
             << " loops (" << ore::NV("Hoisted", SM.Accesses) << " accesses translated once per strip)";
    });
    FAM.invalidate(F, PreservedAnalyses::none());
  }
  if (Any || DP.hasGlobals()) {
    addStripingCheck(M, ABI);
    Changed = true;
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace iopoly
