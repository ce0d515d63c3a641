//===- LowerDiskAccesses.cpp - Serve disk-resident accesses via the runtime ===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/LowerDiskAccesses.h"
#include "Support/DiskResidentRegistry.h"
#include "Support/Options.h"
#include "Support/RemarkOnce.h"
#include "Support/RuntimeABI.h"
#include "Transform/DiskGlobals.h"
#include "Transform/DiskPointers.h"
#include "Transform/StreamKey.h"
#include "Transform/StripMine.h"
#include "Transform/WindowPool.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <algorithm>
#include <map>
#include <set>

#define DEBUG_TYPE "iopoly"

using namespace llvm;

STATISTIC(NumLoads, "Disk-resident loads lowered");
STATISTIC(NumStores, "Disk-resident stores lowered");
STATISTIC(NumMemOps, "Disk-resident memset/memcpy/memmove lowered");
STATISTIC(NumChecked, "Accesses through pointers of unknown origin checked at run time");

namespace iopoly {

namespace {

Value *pointerOf(Instruction *I) {
  if (auto *L = dyn_cast<LoadInst>(I))
    return L->getPointerOperand();
  if (auto *S = dyn_cast<StoreInst>(I))
    return S->getPointerOperand();
  return nullptr;
}

/// "1 load", "2 loads".
std::string count(unsigned N, const char *One, const char *Many) {
  return std::to_string(N) + " " + (N == 1 ? One : Many);
}

/// Rewrites the accesses of one function.
class FunctionLowering {
public:
  FunctionLowering(Function &F, DiskPointers &DP, RuntimeABI &ABI, WindowPool &Pool)
      : F(F), DP(DP), ABI(ABI), Pool(Pool), DL(F.getParent()->getDataLayout()) {}

  struct Counts {
    unsigned Loads = 0, Stores = 0, MemOps = 0, Unknown = 0, Unsupported = 0;
    std::set<std::string> Arrays;
  };

  /// Lowers every access of F not already handled by strip-mining.
  Counts run(OptimizationRemarkEmitter &ORE, RemarkOnce &Once, ScalarEvolution &SE, LoopInfo &LI);

private:
  struct Site {
    Instruction *I;
    Value *Ptr;
    bool Store;
    unsigned Window = 0;
  };

  void lowerLoadStore(const Site &S, Constant *SiteInfo);
  void lowerLarge(Instruction *I, Value *Ptr, Type *Ty, bool IsStore);
  void lowerMemIntrinsic(MemIntrinsic *MI);
  void assignWindows(std::vector<Site> &Sites, ScalarEvolution &SE);

  Function &F;
  DiskPointers &DP;
  RuntimeABI &ABI;
  WindowPool &Pool;
  const DataLayout &DL;
  AllocaInst *LargeTmp = nullptr; ///< one stack copy for every wide access
};

/// Copies the properties of the original access to its clone.
void copyAccessProperties(Instruction *From, Instruction *To) {
  SmallVector<std::pair<unsigned, MDNode *>, 4> MDs;
  From->getAllMetadata(MDs);
  for (auto &KV : MDs)
    To->setMetadata(KV.first, KV.second);
  To->setDebugLoc(From->getDebugLoc());
}

Instruction *cloneAccess(Instruction *I, Value *NewPtr, IRBuilder<> &B) {
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

/// Sites that walk the same stream (same address up to a small constant,
/// same direction of access) share a window; streams beyond the available
/// windows share round-robin.
void FunctionLowering::assignWindows(std::vector<Site> &Sites, ScalarEvolution &SE) {
  std::vector<std::pair<StreamKey, Site *>> Keyed;
  for (Site &S : Sites)
    Keyed.push_back({streamKeyOf(SE, S.Ptr, S.Store), &S});
  std::vector<unsigned> Streams = groupStreams(Keyed);
  // Number the reading and the writing streams apart: a window serves one
  // kind only. The free windows are shared in proportion.
  std::map<unsigned, unsigned> Rank;
  unsigned Reads = 0, Writes = 0;
  for (size_t K = 0; K < Keyed.size(); ++K)
    if (!Rank.count(Streams[K]))
      Rank[Streams[K]] = Keyed[K].second->Store ? Writes++ : Reads++;
  unsigned Free = Pool.free();
  unsigned WR = Reads + Writes <= Free ? Reads : std::max(Reads ? 1u : 0u, Free * Reads / (Reads + Writes));
  unsigned WW = Reads + Writes <= Free ? Writes : std::min(Writes, Free - WR);
  Pool.reserveSites(WR, WW);
  for (size_t K = 0; K < Keyed.size(); ++K)
    Keyed[K].second->Window = Rank[Streams[K]];
}

void FunctionLowering::lowerLoadStore(const Site &S, Constant *SiteInfo) {
  Instruction *I = S.I;
  Type *Ty = S.Store ? cast<StoreInst>(I)->getValueOperand()->getType() : I->getType();
  uint64_t Size = DL.getTypeStoreSize(Ty);
  if (Size > MaxInlineAccess || Size == 0)
    return lowerLarge(I, S.Ptr, Ty, S.Store);
  IRBuilder<> B(I);
  Value *W = Pool.site(B, S.Window, S.Store);
  if (F.hasOptNone()) {
    // -O0: one call per access and no new blocks. The fast register
    // allocator gives every value that lives across blocks a stack slot of
    // its own, so an inline test per site would make the frame grow with
    // the number of sites again.
    Value *Real = B.CreateCall(
        ABI.Translate, {W, S.Ptr, B.getInt64(Size), B.getInt32(S.Store ? ModeWrite : ModeRead), SiteInfo},
        "iopoly.real");
    Instruction *Access = cloneAccess(I, Real, B);
    if (S.Store)
      B.CreateCall(ABI.Commit, {});
    else
      I->replaceAllUsesWith(Access);
    I->eraseFromParent();
    return;
  }
  Type *I64 = B.getInt64Ty();
  Value *Lo = ABI.loadField(B, W, RuntimeABI::FieldLo, "iopoly.lo");
  Value *Limit = ABI.loadField(B, W, RuntimeABI::FieldLimit, "iopoly.limit");
  Value *Off = B.CreateSub(B.CreatePtrToInt(S.Ptr, I64), Lo, "iopoly.off");
  Value *InWindow = B.CreateICmpULT(Off, Limit, "iopoly.inwin");
  Instruction *FastTerm = nullptr, *SlowTerm = nullptr;
  MDNode *Likely = MDBuilder(F.getContext()).createLikelyBranchWeights();
  SplitBlockAndInsertIfThenElse(InWindow, I, &FastTerm, &SlowTerm, Likely);

  B.SetInsertPoint(FastTerm);
  Value *Delta = ABI.loadField(B, W, RuntimeABI::FieldDelta, "iopoly.delta");
  Value *Fast = cloneAccess(I, B.CreateGEP(B.getInt8Ty(), S.Ptr, Delta, "iopoly.addr"), B);

  B.SetInsertPoint(SlowTerm);
  Value *Real =
      B.CreateCall(ABI.Translate,
                   {W, S.Ptr, B.getInt64(Size), B.getInt32(S.Store ? ModeWrite : ModeRead), SiteInfo}, "iopoly.real");
  Value *Slow = cloneAccess(I, Real, B);
  if (S.Store)
    B.CreateCall(ABI.Commit, {});

  if (!S.Store) {
    B.SetInsertPoint(I);
    PHINode *Phi = B.CreatePHI(I->getType(), 2, I->getName());
    Phi->addIncoming(Fast, FastTerm->getParent());
    Phi->addIncoming(Slow, SlowTerm->getParent());
    I->replaceAllUsesWith(Phi);
  }
  I->eraseFromParent();
}

/// Accesses wider than the inline fast path go through one stack copy per
/// function (sized for the widest), so they do not grow the frame either.
void FunctionLowering::lowerLarge(Instruction *I, Value *Ptr, Type *Ty, bool IsStore) {
  uint64_t Bytes = DL.getTypeStoreSize(Ty);
  if (!LargeTmp || LargeTmp->getAllocationSize(DL)->getFixedValue() < Bytes) {
    IRBuilder<> Entry(&F.getEntryBlock(), F.getEntryBlock().getFirstInsertionPt());
    AllocaInst *New = Entry.CreateAlloca(ArrayType::get(Entry.getInt8Ty(), Bytes), nullptr, "iopoly.tmp");
    New->setAlignment(Align(64));
    if (LargeTmp) {
      LargeTmp->replaceAllUsesWith(New);
      LargeTmp->eraseFromParent();
    }
    LargeTmp = New;
  }
  IRBuilder<> B(I);
  if (IsStore) {
    B.CreateStore(cast<StoreInst>(I)->getValueOperand(), LargeTmp);
    B.CreateCall(ABI.Memcpy, {Ptr, LargeTmp, B.getInt64(Bytes)});
  } else {
    B.CreateCall(ABI.Memcpy, {LargeTmp, Ptr, B.getInt64(Bytes)});
    LoadInst *L = B.CreateLoad(Ty, LargeTmp, I->getName());
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

FunctionLowering::Counts FunctionLowering::run(OptimizationRemarkEmitter &ORE, RemarkOnce &Once,
                                               ScalarEvolution &SE, LoopInfo &LI) {
  Counts C;
  std::vector<Site> Sites;
  std::vector<MemIntrinsic *> MemOps;
  auto Note = [&](const DiskOrigin *O) {
    if (O == DP.unknownOrigin())
      ++C.Unknown;
    else
      C.Arrays.insert(O->Name);
  };
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      if (Value *P = pointerOf(&I)) {
        if (const DiskOrigin *O = DP.classify(P)) {
          Note(O);
          Sites.push_back({&I, P, isa<StoreInst>(I)});
          ++(isa<StoreInst>(I) ? C.Stores : C.Loads);
        }
      } else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
        const DiskOrigin *O = DP.classify(MI->getDest());
        if (!O)
          if (auto *MT = dyn_cast<MemTransferInst>(MI))
            O = DP.classify(MT->getSource());
        if (O) {
          Note(O);
          MemOps.push_back(MI);
          ++C.MemOps;
        }
      } else if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I)) {
        Value *P = isa<AtomicRMWInst>(I) ? cast<AtomicRMWInst>(I).getPointerOperand()
                                         : cast<AtomicCmpXchgInst>(I).getPointerOperand();
        const DiskOrigin *O = DP.originOf(P);
        if (O && Once.first("AtomicNotLowered", I.getDebugLoc(), &F)) {
          ++C.Unsupported;
          ORE.emit([&] {
            return OptimizationRemarkAnalysis(DEBUG_TYPE, "AtomicNotLowered", &I)
                   << "atomic operation on disk-resident '" << O->Name
                   << "' is not lowered; it is served through page faults (slower)";
          });
        }
      }
    }
  if (!Sites.empty())
    assignWindows(Sites, SE);
  // Last site first: splitting a block at a site moves what follows it,
  // which is then only the part not yet lowered (a block of thousands of
  // sites would otherwise be moved thousands of times).
  std::reverse(Sites.begin(), Sites.end());
  for (Site &S : Sites) {
    // Lowering an earlier site may have replaced this site's pointer (a
    // pointer loaded through another unknown pointer): read it again.
    S.Ptr = pointerOf(S.I);
    Loop *L = LI.getLoopFor(S.I->getParent());
    int64_t Stride = 0;
    if (L)
      if (auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(S.Ptr)))
        if (AR->getLoop() == L)
          if (auto *Step = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE)))
            Stride = Step->getAPInt().getSExtValue();
    DebugLoc Loc = L && L->getStartLoc() ? L->getStartLoc() : S.I->getDebugLoc();
    lowerLoadStore(S, ABI.site(F, Loc, Stride));
  }
  for (MemIntrinsic *MI : MemOps)
    lowerMemIntrinsic(MI);
  NumLoads += C.Loads;
  NumStores += C.Stores;
  NumMemOps += C.MemOps;
  NumChecked += C.Unknown;
  return C;
}

std::string joinNames(const std::set<std::string> &Names) {
  std::string S;
  for (const std::string &N : Names)
    S += (S.empty() ? "'" : ", '") + N + "'";
  return S;
}

/// Whether \p F has any access the lowering must serve.
bool needsLowering(Function &F, DiskPointers &DP) {
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      if (Value *P = pointerOf(&I)) {
        if (DP.classify(P))
          return true;
      } else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
        if (DP.classify(MI->getDest()))
          return true;
        if (auto *MT = dyn_cast<MemTransferInst>(MI))
          if (DP.classify(MT->getSource()))
            return true;
      }
    }
  return false;
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
  RemarkOnce Once("iopoly-lower");
  bool Changed = DP.removeMarkers();
  for (const DiskEscape &E : DP.escapes()) {
    if (!Once.first("Escape " + E.Origin + " " + E.What, E.At->getDebugLoc(), E.At->getFunction()))
      continue;
    auto &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(*E.At->getFunction());
    ORE.emit([&] {
      return OptimizationRemarkAnalysis(DEBUG_TYPE, "Escape", E.At)
             << "pointer to disk-resident '" << E.Origin << "' " << E.What
             << "; compiled code reaches it through the run-time check of unknown pointers, other code through "
                "page faults";
    });
  }
  bool Any = false;
  for (Function &F : M) {
    if (F.isDeclaration() || !needsLowering(F, DP))
      continue;
    auto &ORE = FAM.getResult<OptimizationRemarkEmitterAnalysis>(F);
    WindowPool Pool(F, ABI);
    StripMineStats SM;
    if (hoistEnabled() && !F.hasOptNone()) {
      auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
      auto &LI = FAM.getResult<LoopAnalysis>(F);
      auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
      SM = stripMineLoops(F, DP, ABI, DT, LI, SE, ORE, Once, Pool);
      if (SM.Loops)
        FAM.invalidate(F, PreservedAnalyses::none());
    }
    auto &LI = FAM.getResult<LoopAnalysis>(F);
    auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
    FunctionLowering FL(F, DP, ABI, Pool);
    FunctionLowering::Counts C = FL.run(ORE, Once, SE, LI);
    Pool.releaseAtExits();
    for (const std::string &N : SM.Arrays)
      C.Arrays.insert(N);
    if (!C.Loads && !C.Stores && !C.MemOps && !SM.Accesses)
      continue;
    Any = Changed = true;
    ORE.emit([&] {
      OptimizationRemark R(DEBUG_TYPE, "Lowered", &F);
      R << "lowered " << count(C.Loads, "load", "loads") << ", " << count(C.Stores, "store", "stores") << " and "
        << count(C.MemOps, "memset/memcpy", "memset/memcpys") << " onto the stripe buffer";
      if (!C.Arrays.empty())
        R << " (disk-resident " << joinNames(C.Arrays) << ")";
      if (C.Unknown)
        R << "; " << count(C.Unknown, "access goes", "accesses go")
          << " through pointers of unknown origin, checked at run time";
      R << "; strip-mined " << count(SM.Loops, "loop", "loops") << " ("
        << count(SM.Accesses, "access", "accesses") << " translated once per strip); "
        << count(Pool.stripCount() + Pool.siteCount(), "window", "windows") << " in the frame";
      return R;
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
