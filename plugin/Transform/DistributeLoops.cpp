//===- DistributeLoops.cpp - Loops over MPI ranks (paper 2) ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/DistributeLoops.h"
#include "Analysis/RankMapping.h"
#include "Support/DistABI.h"
#include "Support/Options.h"

#include "llvm/ADT/Statistic.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/IR/Dominators.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Support/Format.h"

#define DEBUG_TYPE "iopoly"

using namespace llvm;

STATISTIC(NumLoopsDistributed, "Loops distributed over MPI ranks");

namespace iopoly {

namespace {

/// The string of an llvm.annotation call, if it is "iopoly.distribute".
bool isDistributeMarker(const Instruction &I) {
  auto *II = dyn_cast<IntrinsicInst>(&I);
  if (!II || II->getIntrinsicID() != Intrinsic::annotation)
    return false;
  auto *G = dyn_cast<GlobalVariable>(II->getArgOperand(1)->stripPointerCasts());
  if (!G || !G->hasInitializer())
    return false;
  auto *CDA = dyn_cast<ConstantDataArray>(G->getInitializer());
  return CDA && CDA->isCString() && CDA->getAsCString() == DistributeMD;
}

/// The loop whose header is reached first from \p BB along single
/// successors (the loop a marker precedes).
Loop *loopAfter(BasicBlock *BB, LoopInfo &LI) {
  for (unsigned Steps = 0; BB && Steps < 8; ++Steps) {
    if (LI.isLoopHeader(BB))
      return LI.getLoopFor(BB);
    BB = BB->getUniqueSuccessor();
  }
  return nullptr;
}

void addDistributeMD(Loop *L) {
  LLVMContext &C = L->getHeader()->getContext();
  SmallVector<Metadata *, 4> Ops{nullptr};
  if (MDNode *Old = L->getLoopID())
    for (unsigned K = 1; K < Old->getNumOperands(); ++K)
      Ops.push_back(Old->getOperand(K));
  Ops.push_back(MDNode::get(C, MDString::get(C, DistributeMD)));
  MDNode *ID = MDNode::getDistinct(C, Ops);
  ID->replaceOperandWith(0, ID);
  L->setLoopID(ID);
}

const char *mappingName(int K) {
  static const char *Names[] = {"block", "cyclic", "intra", "cache"};
  return Names[K & 3];
}

/// A constant array of i64 as a private global; a null pointer if empty.
Constant *i64Array(Module &M, ArrayRef<int64_t> V, const Twine &Name) {
  Type *Ptr = PointerType::get(M.getContext(), 0);
  if (V.empty())
    return ConstantPointerNull::get(cast<PointerType>(Ptr));
  Constant *Init = ConstantDataArray::get(M.getContext(), V);
  return new GlobalVariable(M, Init->getType(), true, GlobalValue::PrivateLinkage, Init, Name);
}

Constant *cString(Module &M, StringRef S, const Twine &Name) {
  Constant *Init = ConstantDataArray::getString(M.getContext(), S);
  return new GlobalVariable(M, Init->getType(), true, GlobalValue::PrivateLinkage, Init, Name);
}

/// The descriptor of \p P as a global.
GlobalVariable *descriptor(Module &M, const DistPlan &P, const DistABI &ABI, int64_t Init, int64_t Step) {
  MappingOptions O = mappingOptions();
  LLVMContext &C = M.getContext();
  Type *I64 = Type::getInt64Ty(C);
  auto K = [&](int64_t V) { return ConstantInt::get(I64, V); };
  std::vector<int64_t> Pieces, TagStart{0}, Tags;
  for (size_t Ch = 0; Ch < P.Chunks.size(); ++Ch) {
    for (const Piece &Pc : P.Chunks[Ch].Pieces) {
      Pieces.push_back(Pc.first);
      Pieces.push_back(Pc.second);
      Pieces.push_back(static_cast<int64_t>(Ch));
    }
    for (uint32_t T : P.Chunks[Ch].Tag)
      Tags.push_back(T);
    TagStart.push_back(static_cast<int64_t>(Tags.size()));
  }
  std::vector<int64_t> TableStart, Table;
  if (P.TableRanks) {
    TableStart.push_back(0);
    for (const auto &Mine : P.Table) {
      for (const Piece &Pc : Mine) {
        Table.push_back(Pc.first);
        Table.push_back(Pc.second);
      }
      TableStart.push_back(static_cast<int64_t>(Table.size() / 2));
    }
  }
  Type *Ptr = PointerType::get(C, 0);
  std::vector<Constant *> F(DistABI::NumFields);
  F[DistABI::FieldVersion] = K(IOPOLY_DIST_VERSION);
  F[DistABI::FieldMapping] = K(O.Kind);
  F[DistABI::FieldLocal] = K(O.Local);
  F[DistABI::FieldLb] = K(Init);
  F[DistABI::FieldUb] = K(Init + Step * P.Iterations);
  F[DistABI::FieldStep] = K(Step);
  F[DistABI::FieldIterations] = K(P.Iterations);
  F[DistABI::FieldNChunks] = K(static_cast<int64_t>(P.Chunks.size()));
  F[DistABI::FieldNPieces] = K(static_cast<int64_t>(Pieces.size() / 3));
  F[DistABI::FieldPieces] = i64Array(M, Pieces, "__iopoly_dist.pieces");
  F[DistABI::FieldTagStart] = i64Array(M, TagStart, "__iopoly_dist.tag_start");
  F[DistABI::FieldTags] = i64Array(M, Tags, "__iopoly_dist.tags");
  F[DistABI::FieldNData] = K(static_cast<int64_t>(P.DataChunks));
  F[DistABI::FieldBThres] = K(O.BThresPercent * 10);
  F[DistABI::FieldAlpha] = K(O.AlphaPercent * 10);
  F[DistABI::FieldBeta] = K(O.BetaPercent * 10);
  F[DistABI::FieldTopology] = P.TableRanks ? cString(M, P.Signature, "__iopoly_dist.topology")
                                           : ConstantPointerNull::get(cast<PointerType>(Ptr));
  F[DistABI::FieldTableRanks] = K(P.TableRanks);
  F[DistABI::FieldTableStart] = i64Array(M, TableStart, "__iopoly_dist.table_start");
  F[DistABI::FieldTable] = i64Array(M, Table, "__iopoly_dist.table");
  F[DistABI::FieldWhere] = cString(M, P.Where, "__iopoly_dist.where");
  F[DistABI::FieldState] = ConstantPointerNull::get(cast<PointerType>(Ptr));
  return new GlobalVariable(M, ABI.Loop, /*isConstant=*/false, GlobalValue::InternalLinkage,
                            ConstantStruct::get(ABI.Loop, F), "__iopoly_dist.loop");
}

/// Rewrites \p L; returns "" or why it could not.
std::string rewrite(Loop *L, const DistPlan &P, ScalarEvolution &SE) {
  BasicBlock *Header = L->getHeader(), *Latch = L->getLoopLatch(), *PH = L->getLoopPreheader();
  BasicBlock *Exit = L->getExitBlock();
  if (!Latch || !PH)
    return "it is not in canonical form (no single latch or preheader)";
  if (!Exit || L->getExitingBlock() != Latch)
    return "it is not in canonical form (it is left from elsewhere than its latch, or to several places)";
  // The induction variable: the header phi that SCEV sees as {init,+,c}.
  PHINode *IV = nullptr;
  for (PHINode &Phi : Header->phis())
    if (auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(&Phi)); AR && AR->getLoop() == L && AR->isAffine())
      IV = &Phi;
  if (!IV)
    return "it has no induction variable of constant step";
  for (PHINode &Phi : Header->phis())
    if (&Phi != IV)
      return "it carries a scalar value from one iteration to the next";
  for (PHINode &Phi : Exit->phis())
    for (unsigned K = 0; K < Phi.getNumIncomingValues(); ++K)
      if (auto *I = dyn_cast<Instruction>(Phi.getIncomingValue(K)); I && L->contains(I))
        return "a value computed in the loop is used after it";
  auto *Br = dyn_cast<BranchInst>(Latch->getTerminator());
  auto *Cmp = Br && Br->isConditional() ? dyn_cast<ICmpInst>(Br->getCondition()) : nullptr;
  auto *Next = dyn_cast<Instruction>(IV->getIncomingValueForBlock(Latch));
  if (!Cmp || !Next)
    return "its exit test is not a comparison of the induction variable";
  unsigned BoundIdx = Cmp->getOperand(0) == Next ? 1 : Cmp->getOperand(1) == Next ? 0 : 2;
  if (BoundIdx == 2 || !L->isLoopInvariant(Cmp->getOperand(BoundIdx)))
    return "its exit test does not compare the next induction value with an invariant bound";
  ICmpInst::Predicate Pred = Cmp->getPredicate();
  if (ICmpInst::isLE(Pred) || ICmpInst::isGE(Pred))
    return "its exit test is inclusive";
  auto *StepC = dyn_cast<SCEVConstant>(SE.getMinusSCEV(SE.getSCEV(Next), SE.getSCEV(IV)));
  if (!StepC)
    return "its step is not a constant";
  int64_t Step = StepC->getAPInt().getSExtValue();
  Value *Init = IV->getIncomingValueForBlock(PH);
  // The pieces replace the loop's bounds: they must be the same constants
  // every time the loop runs, and the trip count the plan was made for.
  unsigned Trip = SE.getSmallConstantTripCount(L);
  if (!Trip)
    return "its trip count is not a compile-time constant";
  if (!isa<ConstantInt>(Init))
    return "its first iteration is not a compile-time constant";
  int64_t InitC = cast<ConstantInt>(Init)->getSExtValue();
  if (static_cast<int64_t>(Trip) != P.Iterations)
    return "its trip count (" + std::to_string(Trip) + ") differs from Polly's (" + std::to_string(P.Iterations) + ")";

  Function &F = *Header->getParent();
  Module &M = *F.getParent();
  LLVMContext &C = F.getContext();
  DistABI ABI(M);
  GlobalVariable *D = descriptor(M, P, ABI, InitC, Step);
  Type *I64 = Type::getInt64Ty(C);
  Type *IVTy = IV->getType();

  IRBuilder<> EB(&*F.getEntryBlock().getFirstInsertionPt());
  AllocaInst *FirstA = EB.CreateAlloca(I64, nullptr, "dist.first");
  AllocaInst *EndA = EB.CreateAlloca(I64, nullptr, "dist.end");

  BasicBlock *DHeader = BasicBlock::Create(C, "dist.header", &F, Header);
  BasicBlock *DBody = BasicBlock::Create(C, "dist.piece", &F, Header);
  BasicBlock *NewPH = BasicBlock::Create(C, "dist.preheader", &F, Header);
  BasicBlock *DLatch = BasicBlock::Create(C, "dist.next", &F, Exit);
  BasicBlock *DExit = BasicBlock::Create(C, "dist.exit", &F, Exit);

  // Preheader: how many pieces this rank runs.
  IRBuilder<> B(PH->getTerminator());
  Value *NP = B.CreateCall(ABI.Begin, {D}, "dist.np");
  for (unsigned K = 0; K < PH->getTerminator()->getNumSuccessors(); ++K)
    if (PH->getTerminator()->getSuccessor(K) == Header)
      PH->getTerminator()->setSuccessor(K, DHeader);

  B.SetInsertPoint(DHeader);
  PHINode *PIdx = B.CreatePHI(I64, 2, "dist.p");
  PIdx->addIncoming(ConstantInt::get(I64, 0), PH);
  B.CreateCondBr(B.CreateICmpSLT(PIdx, NP), DBody, DExit);

  B.SetInsertPoint(DBody);
  B.CreateCall(ABI.Piece, {D, PIdx, FirstA, EndA});
  Value *First = B.CreateLoad(I64, FirstA, "dist.first.v");
  Value *End = B.CreateLoad(I64, EndA, "dist.end.v");
  auto ToIV = [&](Value *K) {
    Value *Off = B.CreateMul(B.CreateSExtOrTrunc(K, IVTy), ConstantInt::get(IVTy, Step, true));
    return B.CreateAdd(Init, Off);
  };
  Value *Lo = ToIV(First);
  Value *Hi = ToIV(End);
  B.CreateBr(NewPH);
  B.SetInsertPoint(NewPH);
  B.CreateBr(Header);
  IV->setIncomingBlock(IV->getBasicBlockIndex(PH), NewPH);
  IV->setIncomingValue(IV->getBasicBlockIndex(NewPH), Lo);
  // The exit test gets the piece's end. The optimizer may have used the
  // same comparison for a value too ((i + 1) % n as i + 1 == n ? 0 : i + 1):
  // that one keeps the loop's own bound.
  if (!Cmp->hasOneUse()) {
    auto *Own = cast<ICmpInst>(Cmp->clone());
    Own->insertBefore(Br);
    Br->setCondition(Own);
    Cmp = Own;
  }
  Cmp->setOperand(BoundIdx, Hi);

  // Latch exit: the next piece; the last piece: the sync point.
  for (unsigned K = 0; K < Br->getNumSuccessors(); ++K)
    if (Br->getSuccessor(K) == Exit)
      Br->setSuccessor(K, DLatch);
  B.SetInsertPoint(DLatch);
  Value *PNext = B.CreateAdd(PIdx, ConstantInt::get(I64, 1), "dist.p.next");
  PIdx->addIncoming(PNext, DLatch);
  B.CreateBr(DHeader);
  B.SetInsertPoint(DExit);
  B.CreateCall(ABI.End, {D});
  B.CreateBr(Exit);
  for (PHINode &Phi : Exit->phis())
    for (unsigned K = 0; K < Phi.getNumIncomingValues(); ++K)
      if (Phi.getIncomingBlock(K) == Latch)
        Phi.setIncomingBlock(K, DExit);
  return "";
}

} // namespace

PreservedAnalyses DistributeMarksPass::run(Function &F, FunctionAnalysisManager &FAM) {
  SmallVector<Instruction *, 4> Markers;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (isDistributeMarker(I))
        Markers.push_back(&I);
  if (Markers.empty())
    return PreservedAnalyses::all();
  LoopInfo &LI = FAM.getResult<LoopAnalysis>(F);
  OptimizationRemarkEmitter ORE(&F);
  for (Instruction *I : Markers) {
    Loop *L = loopAfter(I->getParent(), LI);
    if (!L)
      ORE.emit([&] {
        return OptimizationRemarkMissed(DEBUG_TYPE, "DistributeIgnored", I->getDebugLoc(), I->getParent())
               << "'#pragma iopoly distribute' is not followed by a loop; ignored";
      });
    else if (!mpiEnabled())
      ORE.emit([&] {
        return OptimizationRemarkMissed(DEBUG_TYPE, "DistributeIgnored", I->getDebugLoc(), I->getParent())
               << "'#pragma iopoly distribute' ignored: loops are distributed only with -fplugin-arg-iopoly-mpi=on";
      });
    else
      addDistributeMD(L);
    Value *Res = I;
    I->replaceAllUsesWith(UndefValue::get(Res->getType()));
    I->eraseFromParent();
  }
  PreservedAnalyses PA;
  PA.preserveSet<CFGAnalyses>();
  return PA;
}

PreservedAnalyses DistributeLoopsPass::run(Function &F, FunctionAnalysisManager &FAM) {
  auto &Plans = distPlans();
  std::vector<std::pair<const BasicBlock *, DistPlan>> Mine;
  for (auto It = Plans.begin(); It != Plans.end();)
    if (It->first->getParent() == &F) {
      Mine.push_back(*It);
      It = Plans.erase(It);
    } else {
      ++It;
    }
  if (Mine.empty())
    return PreservedAnalyses::all();
  OptimizationRemarkEmitter ORE(&F);
  bool Changed = false;
  for (auto &HP : Mine) {
    const BasicBlock *H = HP.first;
    const DistPlan &P = HP.second;
    // Fresh loops and SCEV for every rewrite: the previous one changed the CFG.
    if (Changed)
      FAM.invalidate(F, PreservedAnalyses::none());
    LoopInfo &LI = FAM.getResult<LoopAnalysis>(F);
    ScalarEvolution &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
    DominatorTree &DT = FAM.getResult<DominatorTreeAnalysis>(F);
    AssumptionCache &AC = FAM.getResult<AssumptionAnalysis>(F);
    Loop *L = LI.getLoopFor(H);
    if (!L || L->getHeader() != H)
      continue;
    // A preheader and dedicated exits (passes after LoopSimplify, and
    // earlier rewrites, may have merged them away).
    if (simplifyLoop(L, &DT, &LI, &SE, &AC, nullptr, /*PreserveLCSSA=*/false))
      Changed = true;
    DebugLoc Loc = L->getStartLoc();
    BasicBlock *At = L->getHeader();
    std::string Why = rewrite(L, P, SE);
    if (!Why.empty()) {
      ORE.emit([&] {
        return OptimizationRemarkMissed(DEBUG_TYPE, "NotDistributed", Loc, At)
               << "loop not distributed over the MPI ranks: " << Why;
      });
      continue;
    }
    Changed = true;
    ++NumLoopsDistributed;
    MappingOptions O = mappingOptions();
    std::string Map = mappingName(O.Kind);
    if (O.Kind == 3)
      Map += O.Local ? " with local scheduling" : " without local scheduling";
    std::string How = P.FromPragma ? "marked '#pragma iopoly distribute'"
                                   : P.Depth ? "the outermost loop of its nest without a carried dependence, at depth " +
                                                   std::to_string(P.Depth)
                                             : "the outermost loop of its nest, which carries no dependence";
    std::string Expect;
    if (P.TableRanks) {
      char Buf[256];
      std::snprintf(Buf, sizeof Buf,
                    "; table compiled for %d ranks: imbalance %.1f%%, data chunks each cache level brings in "
                    "%llu/%llu/%llu (block: %llu/%llu/%llu)",
                    P.TableRanks, 100 * P.Report.Imbalance, static_cast<unsigned long long>(P.Report.FootprintL1),
                    static_cast<unsigned long long>(P.Report.FootprintL2),
                    static_cast<unsigned long long>(P.Report.FootprintL3),
                    static_cast<unsigned long long>(P.BlockReport.FootprintL1),
                    static_cast<unsigned long long>(P.BlockReport.FootprintL2),
                    static_cast<unsigned long long>(P.BlockReport.FootprintL3));
      Expect = Buf;
      if (O.Kind == 3)
        Expect += "; of " +
                  std::to_string(P.Report.BlockNodes + P.Report.AlignedNodes + P.Report.ClusterNodes) +
                  " tree nodes, " + std::to_string(P.Report.ClusterNodes) + " cut by the clustering, " +
                  std::to_string(P.Report.AlignedNodes) + " by block's cut refined, " +
                  std::to_string(P.Report.BlockNodes) + " as block";
    } else {
      Expect = "; the table is computed at startup for the ranks of the run (IOPOLY_TOPOLOGY, else a flat hierarchy)";
    }
    ORE.emit([&] {
      return OptimizationRemark(DEBUG_TYPE, "Distributed", Loc, At)
             << "distributed this loop over the MPI ranks (" << How << "), mapping " << Map << ": " << std::to_string(P.Iterations)
             << " iterations in " << std::to_string(P.Chunks.size()) << " iteration chunks over "
             << std::to_string(P.DataChunks) << " data chunks of " << P.Arrays << Expect;
    });
  }
  if (!Changed)
    return PreservedAnalyses::all();
  return PreservedAnalyses::none();
}

} // namespace iopoly
