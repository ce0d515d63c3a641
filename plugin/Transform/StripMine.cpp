//===- StripMine.cpp - Translate once per stripe, not per access -----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/StripMine.h"
#include "Support/RemarkOnce.h"
#include "Support/RuntimeABI.h"
#include "Transform/DiskPointers.h"
#include "Transform/StreamKey.h"
#include "Transform/WindowPool.h"

#include "llvm/ADT/MapVector.h"
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
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <climits>
#include <map>
#include <set>
#include <tuple>

#define DEBUG_TYPE "iopoly"

using namespace llvm;

namespace iopoly {

namespace {

/// Loops that surely run fewer iterations than this are left to the
/// per-access lowering: a strip costs a few translations at loop entry.
constexpr uint64_t MinTripCount = 4;

/// Strip windows for streams that only read, and for streams that write
/// (WindowPool::StripShare together). A tile's point loop fully unrolled
/// (mode=clo) walks one stream per row it covers: 32 for doitgen's column
/// walk of C4, which with 20 windows ran 1.8x slower (a third of its
/// streams tested access by access).
constexpr unsigned StripReads = 44, StripWrites = 20;
static_assert(StripReads + StripWrites == WindowPool::StripShare, "the strip windows are split in two");

struct Access {
  Instruction *I;
  Value *Ptr;
  const SCEV *Start;
  int64_t Step;
  uint64_t Size;
  bool Store;
  const DiskOrigin *Origin;
  bool Conditional;   ///< may not run in every iteration
  int64_t Offset = 0; ///< constant part of Start (its stream key's offset)
};

/// Accesses of one stream (same step, starts a small constant apart): one
/// window serves them all. Their addresses at iteration i are
/// Lead + i * Step + [0, Extent).
struct Group {
  std::vector<size_t> Members; ///< indices into Candidate::Accesses
  size_t Lead = 0;             ///< the member with the lowest address
  int64_t Extent = 0;          ///< bytes from Lead's address to the end of the highest access
  int64_t Step = 0;
  bool Store = false;
  bool Probe = false; ///< has a conditional access: translated as a probe
  const SCEV *Base = nullptr; ///< the array it walks (pointer base)
  unsigned Slot = 0;       ///< its window among the strip windows of its kind
  Value *StartV = nullptr; ///< Lead's start, expanded in the preheader
};

struct Candidate {
  Loop *L;
  BasicBlock *PH, *Header, *Latch, *Exit;
  Value *Total = nullptr; ///< iterations of one loop entry (i64)
  std::vector<Access> Accesses;
  std::vector<Group> Groups;
  bool Nested = false; ///< its parent loop has a nest version
};

/// A loop whose subloops are all strip-mined, run as compiled when the
/// windows already hold every address those can reach (see versionNest).
struct Nest {
  Loop *P = nullptr;
  BasicBlock *PH = nullptr, *Exit = nullptr, *Exiting = nullptr;
  std::vector<Candidate *> Inner;
  /// Per stream of Inner (in order): the bytes [Lo, Hi) it can touch in P.
  std::vector<Value *> Lo, Hi;
};

Value *pointerOperand(Instruction *I) {
  if (auto *L = dyn_cast<LoadInst>(I))
    return L->getPointerOperand();
  return cast<StoreInst>(I)->getPointerOperand();
}

/// Checks the shape of \p L; "" when it can be strip-mined, else why not.
std::string checkLoop(Loop *L, Candidate &C, DiskPointers &DP, DominatorTree &DT, ScalarEvolution &SE,
                      unsigned MaxReads, unsigned MaxWrites) {
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
  if (!isa<ICmpInst>(Br->getCondition()))
    return "its exit test combines several conditions (a break folded into the loop's test)";
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
    // An access that may not run in every iteration (a guard in the loops
    // Polly generates) is translated as a probe: its address at the strip's
    // first iteration may lie outside every array when its guard is false
    // there; the window then stays empty and that iteration runs checked.
    bool Conditional = !DT.dominates(BB, C.Latch);
    for (Instruction &I : *BB) {
      if (!isa<LoadInst>(I) && !isa<StoreInst>(I))
        continue;
      Value *Ptr = pointerOperand(&I);
      const DiskOrigin *O = DP.classify(Ptr);
      if (!O)
        continue;
      bool Simple = isa<LoadInst>(I) ? cast<LoadInst>(I).isSimple() : cast<StoreInst>(I).isSimple();
      Type *Ty = isa<LoadInst>(I) ? I.getType() : cast<StoreInst>(I).getValueOperand()->getType();
      uint64_t Size = DL.getTypeStoreSize(Ty);
      if (!Simple || Size == 0 || Size > MaxInlineAccess)
        continue;
      const SCEV *Addr = SE.getSCEV(Ptr);
      if (SE.isLoopInvariant(Addr, L)) {
        // The same address in every iteration (a sum kept in memory):
        // a stream that never moves.
        C.Accesses.push_back({&I, Ptr, Addr, 0, Size, isa<StoreInst>(I), O, Conditional});
        continue;
      }
      auto *AR = dyn_cast<SCEVAddRecExpr>(Addr);
      if (!AR || AR->getLoop() != L || !AR->isAffine())
        continue;
      auto *Step = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
      if (!Step || Step->getAPInt().isZero() || Step->getAPInt().abs().ugt(1u << 30))
        continue;
      if (!SE.isLoopInvariant(AR->getStart(), L))
        continue;
      C.Accesses.push_back(
          {&I, Ptr, AR->getStart(), Step->getAPInt().getSExtValue(), Size, isa<StoreInst>(I), O, Conditional});
    }
  }
  if (C.Accesses.empty())
    return "none of its disk-resident accesses is affine";
  // Streams: the same step and starts a small constant apart.
  std::vector<StreamKey> Keys;
  for (Access &A : C.Accesses) {
    auto [Base, Off] = splitConstant(SE, A.Start);
    A.Offset = Off;
    Keys.push_back({Base, Off, A.Step});
  }
  std::vector<unsigned> StreamOf = groupStreamKeys(Keys);
  for (size_t K = 0; K < C.Accesses.size(); ++K) {
    if (StreamOf[K] >= C.Groups.size())
      C.Groups.resize(StreamOf[K] + 1);
    C.Groups[StreamOf[K]].Members.push_back(K);
  }
  for (Group &G : C.Groups)
    for (size_t M : G.Members) {
      G.Store |= C.Accesses[M].Store;
      G.Probe |= C.Accesses[M].Conditional;
    }
  // More streams than strip windows of their kind: the rest is tested
  // access by access.
  unsigned Reads = 0, Writes = 0;
  std::vector<Access> Kept;
  std::vector<Group> KeptGroups;
  for (Group &G : C.Groups) {
    if (G.Store ? Writes >= MaxWrites : Reads >= MaxReads)
      continue;
    ++(G.Store ? Writes : Reads);
    for (size_t &M : G.Members) {
      Kept.push_back(C.Accesses[M]);
      M = Kept.size() - 1;
    }
    KeptGroups.push_back(std::move(G));
  }
  C.Accesses = std::move(Kept);
  C.Groups = std::move(KeptGroups);
  for (Group &G : C.Groups) {
    const Access &First = C.Accesses[G.Members[0]];
    G.Step = First.Step;
    G.Lead = G.Members[0];
    int64_t End = INT64_MIN;
    for (size_t M : G.Members) {
      const Access &A = C.Accesses[M];
      if (A.Offset < C.Accesses[G.Lead].Offset)
        G.Lead = M;
      End = std::max<int64_t>(End, A.Offset + static_cast<int64_t>(A.Size));
    }
    G.Extent = End - C.Accesses[G.Lead].Offset;
    G.Base = SE.getPointerBase(C.Accesses[G.Lead].Start);
  }
  return "";
}

/// Gives every stream its window: the k-th stream of an array (pointer
/// base) and kind in a loop keeps its window from loop to loop (after
/// unrolling, rows i and i+1 of a column walk are two streams of one
/// array), so that loops that take turns (a j loop running an i loop over A
/// and one over Q) do not take each other's stripes away. When the windows
/// run out, a stream takes the window least recently given to a loop (the
/// loops nearby in the program, which are the ones likely to take turns,
/// keep theirs). Two streams of one loop never share.
void assignSlots(std::vector<Candidate> &Cands, unsigned MaxReads, unsigned MaxWrites, unsigned &Reads,
                 unsigned &Writes) {
  using Key = std::tuple<const SCEV *, bool, unsigned>;
  std::map<Key, unsigned> SlotOf;
  std::map<std::pair<bool, unsigned>, size_t> LastUse; // slot -> loop that last used it
  Reads = Writes = 0;
  for (size_t L = 0; L < Cands.size(); ++L) {
    Candidate &C = Cands[L];
    std::set<std::pair<bool, unsigned>> Taken;
    std::map<std::pair<const SCEV *, bool>, unsigned> Rank;
    std::vector<Key> Keys;
    for (Group &G : C.Groups)
      Keys.emplace_back(G.Base, G.Store, Rank[{G.Base, G.Store}]++);
    // Streams whose window is still theirs first.
    for (size_t K = 0; K < C.Groups.size(); ++K) {
      Group &G = C.Groups[K];
      auto It = SlotOf.find(Keys[K]);
      G.Slot = UINT_MAX;
      if (It != SlotOf.end() && Taken.insert({G.Store, It->second}).second)
        G.Slot = It->second;
    }
    for (size_t K = 0; K < C.Groups.size(); ++K) {
      Group &G = C.Groups[K];
      if (G.Slot == UINT_MAX) {
        unsigned &Used = G.Store ? Writes : Reads, Max = G.Store ? MaxWrites : MaxReads;
        unsigned Slot = UINT_MAX;
        if (Used < Max) {
          Slot = Used++; // a window of its own
        } else {
          size_t Oldest = SIZE_MAX;
          for (unsigned S = 0; S < Max; ++S)
            if (!Taken.count({G.Store, S}) && LastUse[{G.Store, S}] < Oldest) {
              Oldest = LastUse[{G.Store, S}];
              Slot = S;
            }
          for (auto It = SlotOf.begin(); It != SlotOf.end();)
            It = std::get<1>(It->first) == G.Store && It->second == Slot ? SlotOf.erase(It) : std::next(It);
        }
        Taken.insert({G.Store, Slot});
        G.Slot = Slot;
        SlotOf[Keys[K]] = Slot;
      }
      LastUse[{G.Store, G.Slot}] = L;
    }
  }
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
  for (Group &G : C.Groups)
    if (!Exp.isSafeToExpandAt(C.Accesses[G.Lead].Start, At))
      return false;
  C.Total = Exp.expandCodeFor(Total, I64, At);
  for (Group &G : C.Groups) {
    const Access &Lead = C.Accesses[G.Lead];
    G.StartV = Exp.expandCodeFor(Lead.Start, Lead.Ptr->getType(), At);
  }
  return true;
}

/// The strip driver: see the file comment of StripMine.h.
void stripMine(Candidate &C, DiskPointers &DP, RuntimeABI &ABI, WindowPool &Pool) {
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
  // The in-place copy: when every window maps its stripes at their own
  // addresses (views) or maps ordinary memory, all deltas are 0 and the
  // loop runs as compiled, without rebasing (one base register per array
  // instead of one per stream, which spilled in Polly's stencil tiles).
  ValueToValueMapTy VMapIn;
  SmallVector<BasicBlock *, 8> InClones;
  for (BasicBlock *BB : C.L->blocks()) {
    BasicBlock *NB = CloneBasicBlock(BB, VMapIn, ".inplace", &F);
    VMapIn[BB] = NB;
    InClones.push_back(NB);
  }
  remapInstructionsInBlocks(InClones, VMapIn);
  for (auto It = VMapIn.begin(); It != VMapIn.end(); ++It)
    DP.addDerived(It->second, It->first);
  auto *InHeader = cast<BasicBlock>(VMapIn[C.Header]);
  auto *InLatch = cast<BasicBlock>(VMapIn[C.Latch]);
  auto InPlace = [&](Value *V) -> Value * {
    auto It = VMapIn.find(V);
    return It == VMapIn.end() ? V : static_cast<Value *>(It->second);
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

  // Translate each stream at iteration `done` (calling the runtime only if
  // its window does not hold that address yet) and count how many
  // iterations all its accesses stay inside the window.
  Value *N = B.CreateSub(C.Total, Done, "strip.remaining");
  SmallVector<Value *, 8> Deltas;
  BasicBlock *Cur = Head;
  for (size_t GI = 0; GI < C.Groups.size(); ++GI) {
    Group &G = C.Groups[GI];
    const Access &Lead = C.Accesses[G.Lead];
    B.SetInsertPoint(Cur);
    Value *W = Pool.strip(B, G.Slot, G.Store);
    Value *Addr = G.Step ? B.CreateGEP(B.getInt8Ty(), G.StartV, B.CreateMul(Done, B.getInt64(G.Step)), "strip.addr")
                         : G.StartV;
    Value *AddrI = B.CreatePtrToInt(Addr, I64);
    Value *Held = B.CreateICmpULT(B.CreateSub(AddrI, ABI.loadField(B, W, RuntimeABI::FieldLo, "")),
                                  ABI.loadField(B, W, RuntimeABI::FieldLimit, ""));
    BasicBlock *Call = BasicBlock::Create(Ctx, "strip.translate", &F, C.Header);
    BasicBlock *Cont = BasicBlock::Create(Ctx, "strip.cont", &F, C.Header);
    B.CreateCondBr(Held, Cont, Call, Likely);
    B.SetInsertPoint(Call);
    Value *W2 = Pool.strip(B, G.Slot, G.Store);
    int Mode = (G.Store ? ModeWrite : ModeRead) | (G.Probe ? ModeProbe : 0);
    B.CreateCall(ABI.Translate, {W2, Addr, B.getInt64(Lead.Size), B.getInt32(Mode),
                                 ABI.site(F, C.L->getStartLoc() ? C.L->getStartLoc() : Lead.I->getDebugLoc(), G.Step)});
    B.CreateBr(Cont);
    B.SetInsertPoint(Cont);
    Value *W3 = Pool.strip(B, G.Slot, G.Store);
    Value *Lo = ABI.loadField(B, W3, RuntimeABI::FieldLo, "strip.lo");
    Value *Limit = ABI.loadField(B, W3, RuntimeABI::FieldLimit, "strip.limit");
    Deltas.push_back(ABI.loadField(B, W3, RuntimeABI::FieldDelta, "strip.delta"));
    Value *Off = B.CreateSub(AddrI, Lo);
    // The window covers offsets [0, limit + 63) (an empty one has limit
    // 0): the stream's accesses at an iteration whose lead offset is o lie
    // in [o, o + Extent), inside while o + Extent <= limit + 63.
    Value *Top = B.CreateAdd(Limit, B.getInt64(MaxInlineAccess - 1), "strip.top");
    Value *Ext = B.getInt64(G.Extent);
    Value *In = B.CreateAnd(B.CreateICmpNE(Limit, B.getInt64(0)),
                            B.CreateAnd(B.CreateICmpULE(Off, Top), B.CreateICmpUGE(B.CreateSub(Top, Off), Ext)));
    Value *Room;
    if (G.Step == 0) {
      Room = B.CreateSelect(In, N, B.getInt64(0), "strip.room"); // it stays where it is
    } else {
      // Iterations left in the window: Avail / |Step| + 1, where Avail is
      // what lies between the stream and the window's end in its direction
      // (meaningful when In). A division per stream and strip is as dear as
      // a short strip's body, so it is done only when the rest of the loop
      // (N iterations) does not fit, which with runs is rare.
      Value *Avail = G.Step > 0 ? B.CreateSub(B.CreateSub(Top, Ext), Off) : Off;
      uint64_t AbsStep = G.Step > 0 ? uint64_t(G.Step) : uint64_t(-G.Step);
      Value *Mul = B.CreateBinaryIntrinsic(Intrinsic::umul_with_overflow, B.CreateSub(N, B.getInt64(1)),
                                           B.getInt64(AbsStep));
      Value *Need = B.CreateExtractValue(Mul, 0), *Ovf = B.CreateExtractValue(Mul, 1);
      Value *Fits = B.CreateAnd(In, B.CreateAnd(B.CreateNot(Ovf), B.CreateICmpULE(Need, Avail)), "strip.fits");
      BasicBlock *Div = BasicBlock::Create(Ctx, "strip.div", &F, C.Header);
      BasicBlock *Join = BasicBlock::Create(Ctx, "strip.room", &F, C.Header);
      BasicBlock *From = B.GetInsertBlock();
      B.CreateCondBr(Fits, Join, Div, Likely);
      B.SetInsertPoint(Div);
      Value *Part = B.CreateAdd(B.CreateUDiv(Avail, B.getInt64(AbsStep)), B.getInt64(1));
      Part = B.CreateSelect(In, Part, B.getInt64(0));
      B.CreateBr(Join);
      B.SetInsertPoint(Join);
      PHINode *R = B.CreatePHI(I64, 2, "strip.room");
      R->addIncoming(N, From);
      R->addIncoming(Part, Div);
      Room = R;
      Cont = Join;
    }
    N = B.CreateSelect(B.CreateICmpULT(Room, N), Room, N, "strip.n");
    Cur = Cont;
  }
  B.SetInsertPoint(Cur);
  Value *AnyDelta = Deltas[0];
  for (size_t GI = 1; GI < Deltas.size(); ++GI)
    AnyDelta = B.CreateOr(AnyDelta, Deltas[GI]);
  Value *AllZero = B.CreateICmpEQ(AnyDelta, B.getInt64(0), "strip.inplace");
  BasicBlock *Pick = BasicBlock::Create(Ctx, "strip.pick", &F, C.Header);
  B.CreateCondBr(B.CreateICmpNE(N, B.getInt64(0)), Pick, CHeader, Likely);
  B.SetInsertPoint(Pick);
  B.CreateCondBr(AllZero, InHeader, C.Header, Likely);
  for (Carried &K : Carries)
    for (PHINode *P : {K.Orig, cast<PHINode>(VMap[K.Orig]), cast<PHINode>(VMapIn[K.Orig])}) {
      int Idx = P->getBasicBlockIndex(C.PH);
      P->setIncomingBlock(Idx, P->getParent() == CHeader ? Cur : Pick);
      P->setIncomingValue(Idx, K.Carry);
    }

  // The fast loops: N iterations, accesses rebased by their window's
  // delta (or by 0 in the in-place copy: the GEP only marks them served).
  for (bool In : {false, true}) {
    BasicBlock *H = In ? InHeader : C.Header, *L = In ? InLatch : C.Latch;
    PHINode *Count = PHINode::Create(I64, 2, "strip.count", H->getFirstNonPHI());
    Count->addIncoming(N, Pick);
    B.SetInsertPoint(L->getTerminator());
    Value *CountNext = B.CreateSub(Count, B.getInt64(1), "strip.count.next");
    Count->addIncoming(CountNext, L);
    L->getTerminator()->eraseFromParent();
    B.SetInsertPoint(L);
    B.CreateCondBr(B.CreateICmpNE(CountNext, B.getInt64(0)), H, SLatch);
    for (size_t GI = 0; GI < C.Groups.size(); ++GI)
      for (size_t K : C.Groups[GI].Members) {
        auto *I = In ? cast<Instruction>(VMapIn[C.Accesses[K].I]) : C.Accesses[K].I;
        Value *Ptr = In ? InPlace(C.Accesses[K].Ptr) : C.Accesses[K].Ptr;
        IRBuilder<> RB(I);
        Value *Rebased = RB.CreateGEP(RB.getInt8Ty(), Ptr, In ? RB.getInt64(0) : Deltas[GI], "strip.real");
        DP.markLowered(Rebased);
        I->setOperand(isa<LoadInst>(I) ? LoadInst::getPointerOperandIndex() : StoreInst::getPointerOperandIndex(),
                      Rebased);
      }
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
  Ran->addIncoming(N, InLatch);
  for (Carried &K : Carries) {
    Value *Next = K.Orig->getIncomingValueForBlock(C.Latch);
    PHINode *M = B.CreatePHI(K.Orig->getType(), 3, K.Orig->getName() + ".next");
    M->addIncoming(Next, C.Latch);
    M->addIncoming(Cloned(Next), CLatch);
    M->addIncoming(InPlace(Next), InLatch);
    DP.addDerived(M, Next);
    K.Carry->addIncoming(M, SLatch);
  }
  for (PHINode &E : C.Exit->phis()) {
    int Idx = E.getBasicBlockIndex(C.Latch);
    if (Idx < 0)
      continue;
    Value *V = E.getIncomingValue(Idx);
    PHINode *M = B.CreatePHI(E.getType(), 3, E.getName() + ".strip");
    M->addIncoming(V, C.Latch);
    M->addIncoming(Cloned(V), CLatch);
    M->addIncoming(InPlace(V), InLatch);
    DP.addDerived(M, V);
    E.setIncomingBlock(Idx, SLatch);
    E.setIncomingValue(Idx, M);
  }
  Value *DoneNext = B.CreateAdd(Done, Ran, "strip.done.next");
  Done->addIncoming(DoneNext, SLatch);
  B.CreateCondBr(B.CreateICmpEQ(DoneNext, C.Total), C.Exit, Head);
}

/// Most iterations the inner loop of a nest version may run per entry: the
/// loops Polly tiles have a small constant bound (the tile size).
constexpr uint64_t MaxInnerTrips = 1u << 16;

/// Plans the nest version of \p P, whose subloops are the candidates
/// \p Inner: P runs as compiled (no strip driver in its inner loops) when,
/// on entering P, the strip windows already hold all the bytes the inner
/// loops' streams can reach in the whole of P (a bounding box from P's trip
/// count and each inner loop's constant bound). Polly's tiles run inner
/// loops of a few dozen iterations, for which the driver cost as much as
/// the body. Nothing is translated to decide: when the windows do not hold
/// the boxes yet, P runs with its strip-mined inner loops, whose strips grow
/// the windows. False (nothing changed) when P does not qualify.
bool planNest(Loop *P, std::vector<Candidate *> Inner, LoopInfo &LI, DominatorTree &DT, ScalarEvolution &SE,
              Nest &N) {
  if (!P->isLoopSimplifyForm() || !P->getExitBlock() || !P->getExitingBlock())
    return false;
  for (BasicBlock *BB : P->blocks())
    for (Instruction &I : *BB)
      if (isa<InvokeInst>(I) || isa<CallBrInst>(I) || isa<IndirectBrInst>(I) || I.getType()->isTokenTy())
        return false;
  const SCEV *BTC = SE.getBackedgeTakenCount(P);
  if (isa<SCEVCouldNotCompute>(BTC) || !BTC->getType()->isIntegerTy() || !SE.isLoopInvariant(BTC, P))
    return false;
  // Each stream's start in P: S0 + p * SP; its inner loop's walk: at most
  // MaxBTC steps.
  struct Stream {
    const SCEV *S0;
    int64_t SP, SL;
  };
  std::vector<Stream> Streams;
  for (Candidate *C : Inner) {
    const SCEV *MaxL = SE.getConstantMaxBackedgeTakenCount(C->L);
    if (!isa<SCEVConstant>(MaxL) || cast<SCEVConstant>(MaxL)->getAPInt().uge(MaxInnerTrips))
      return false;
    int64_t MaxBTC = static_cast<int64_t>(cast<SCEVConstant>(MaxL)->getAPInt().getZExtValue());
    for (Group &G : C->Groups) {
      const SCEV *S = C->Accesses[G.Lead].Start;
      if (SE.isLoopInvariant(S, P)) {
        Streams.push_back({S, 0, MaxBTC * G.Step});
        continue;
      }
      auto *AR = dyn_cast<SCEVAddRecExpr>(S);
      if (!AR || AR->getLoop() != P || !AR->isAffine())
        return false;
      auto *SP = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
      if (!SP || SP->getAPInt().abs().ugt(1u << 30))
        return false;
      Streams.push_back({AR->getStart(), SP->getAPInt().getSExtValue(), MaxBTC * G.Step});
    }
  }
  BasicBlock *PH = P->getLoopPreheader();
  const DataLayout &DL = PH->getModule()->getDataLayout();
  SCEVExpander Exp(SE, DL, "iopoly.nest");
  Instruction *At = PH->getTerminator();
  Type *I64 = Type::getInt64Ty(PH->getContext());
  const SCEV *BTC64 = SE.getZeroExtendExpr(BTC, I64);
  if (!Exp.isSafeToExpandAt(BTC64, At))
    return false;
  for (const Stream &St : Streams)
    if (!Exp.isSafeToExpandAt(St.S0, At))
      return false;
  formLCSSA(*P, DT, &LI, &SE);
  Value *PB = Exp.expandCodeFor(BTC64, I64, At); // P's iterations - 1
  IRBuilder<> B(At);
  size_t K = 0;
  for (Candidate *C : Inner)
    for (Group &G : C->Groups) {
      const Stream &St = Streams[K++];
      Value *S0 = B.CreatePtrToInt(Exp.expandCodeFor(St.S0, C->Accesses[G.Lead].Ptr->getType(), At), I64);
      // P's span saturates on overflow (the box then holds nothing).
      Value *Mul = B.CreateBinaryIntrinsic(Intrinsic::umul_with_overflow, PB, B.getInt64(St.SP < 0 ? -St.SP : St.SP));
      Value *Span = B.CreateSelect(
          B.CreateExtractValue(Mul, 1), B.getInt64(INT64_MAX / 4),
          B.CreateBinaryIntrinsic(Intrinsic::umin, B.CreateExtractValue(Mul, 0), B.getInt64(INT64_MAX / 4)));
      Value *Lo = B.CreateAdd(S0, B.getInt64(std::min<int64_t>(St.SL, 0)));
      Value *Hi = B.CreateAdd(S0, B.getInt64(std::max<int64_t>(St.SL, 0) + G.Extent));
      if (St.SP < 0)
        Lo = B.CreateSub(Lo, Span, "nest.lo");
      else
        Hi = B.CreateAdd(Hi, Span, "nest.hi");
      N.Lo.push_back(Lo);
      N.Hi.push_back(Hi);
    }
  N.P = P;
  N.PH = PH;
  N.Exit = P->getExitBlock();
  N.Exiting = P->getExitingBlock();
  N.Inner = std::move(Inner);
  for (Candidate *C : N.Inner)
    C->Nested = true;
  return true;
}

/// Clones the nest \p N: on entering it, if every strip window of its
/// inner loops holds its box in place (delta 0), the copy runs, whose inner
/// accesses of those streams are the original ones; otherwise the original,
/// whose inner loops stripMine then drives. Call before stripMine (it
/// clones the inner loops as they were).
void versionNest(Nest &N, DiskPointers &DP, RuntimeABI &ABI, WindowPool &Pool) {
  Function &F = *N.PH->getParent();
  ValueToValueMapTy VMap;
  SmallVector<BasicBlock *, 16> Clones;
  for (BasicBlock *BB : N.P->blocks()) {
    BasicBlock *NB = CloneBasicBlock(BB, VMap, ".nest", &F);
    VMap[BB] = NB;
    Clones.push_back(NB);
  }
  remapInstructionsInBlocks(Clones, VMap);
  for (auto It = VMap.begin(); It != VMap.end(); ++It)
    DP.addDerived(It->second, It->first);
  auto Mapped = [&](Value *V) -> Value * {
    auto It = VMap.find(V);
    return It == VMap.end() ? V : static_cast<Value *>(It->second);
  };
  // The copy's inner accesses of the planned streams: served in place.
  for (Candidate *C : N.Inner)
    for (Group &G : C->Groups)
      for (size_t K : G.Members) {
        auto *I = cast<Instruction>(VMap[C->Accesses[K].I]);
        IRBuilder<> RB(I);
        Value *InPlace = RB.CreateGEP(RB.getInt8Ty(), Mapped(C->Accesses[K].Ptr), RB.getInt64(0), "nest.real");
        DP.markLowered(InPlace);
        I->setOperand(isa<LoadInst>(I) ? LoadInst::getPointerOperandIndex() : StoreInst::getPointerOperandIndex(),
                      InPlace);
      }
  // Both leave to the exit block: its LCSSA phis take the copy's values.
  auto *CExiting = cast<BasicBlock>(VMap[N.Exiting]);
  for (PHINode &E : N.Exit->phis())
    E.addIncoming(Mapped(E.getIncomingValueForBlock(N.Exiting)), CExiting);
  // The test, in the preheader: each window holds [Lo, Hi) with delta 0.
  BasicBlock *Header = N.P->getHeader();
  Instruction *T = N.PH->getTerminator();
  IRBuilder<> B(T);
  Value *All = B.getTrue();
  size_t K = 0;
  for (Candidate *C : N.Inner)
    for (Group &G : C->Groups) {
      Value *W = Pool.strip(B, G.Slot, G.Store);
      Value *Lo = ABI.loadField(B, W, RuntimeABI::FieldLo, "");
      Value *Top = B.CreateAdd(ABI.loadField(B, W, RuntimeABI::FieldLimit, ""), B.getInt64(MaxInlineAccess - 1));
      Value *Delta = ABI.loadField(B, W, RuntimeABI::FieldDelta, "");
      Value *From = B.CreateSub(N.Lo[K], Lo), *To = B.CreateSub(N.Hi[K], Lo);
      ++K;
      // Inside iff lo <= Lo and Hi <= lo + top, in a window that holds something.
      Value *Holds = B.CreateAnd(B.CreateICmpUGT(Top, B.getInt64(MaxInlineAccess - 1)),
                                 B.CreateAnd(B.CreateICmpULE(From, To), B.CreateICmpULE(To, Top)));
      All = B.CreateAnd(All, B.CreateAnd(Holds, B.CreateICmpEQ(Delta, B.getInt64(0))));
    }
  B.CreateCondBr(All, cast<BasicBlock>(VMap[Header]), Header);
  T->eraseFromParent();
}

} // namespace

StripMineStats stripMineLoops(Function &F, DiskPointers &DP, RuntimeABI &ABI, DominatorTree &DT, LoopInfo &LI,
                              ScalarEvolution &SE, OptimizationRemarkEmitter &ORE, RemarkOnce &Once,
                              WindowPool &Pool) {
  StripMineStats Stats;
  std::vector<Candidate> Candidates;
  // The vectorizer and the unroller leave loops without dedicated exits
  // (the vector body and its scalar copy leave to one block): give them
  // preheaders and dedicated exits again.
  for (Loop *L : LI.getLoopsInPreorder())
    simplifyLoop(L, &DT, &LI, &SE, nullptr, nullptr, /*PreserveLCSSA=*/false);
  for (Loop *L : LI.getLoopsInPreorder()) {
    if (!L->isInnermost())
      continue;
    bool HasDisk = false;
    for (BasicBlock *BB : L->blocks())
      for (Instruction &I : *BB)
        if ((isa<LoadInst>(I) || isa<StoreInst>(I)) && DP.classify(pointerOperand(&I)))
          HasDisk = true;
    if (!HasDisk)
      continue;
    formLCSSA(*L, DT, &LI, &SE);
    Candidate C;
    std::string Why = checkLoop(L, C, DP, DT, SE, StripReads, StripWrites);
    if (Why.empty() && !expandInPreheader(C, SE))
      Why = "its addresses cannot be computed before the loop";
    if (!Why.empty()) {
      if (Once.first("NotStripMined", L->getStartLoc(), &F))
        ORE.emit([&] {
          return OptimizationRemarkAnalysis(DEBUG_TYPE, "NotStripMined", L->getStartLoc(), L->getHeader())
                 << "loop not strip-mined: " << Why << "; its disk-resident accesses are tested one by one";
        });
      continue;
    }
    Candidates.push_back(std::move(C));
  }
  // Nest versions: loops whose one subloop is a candidate. Loops with
  // several (a vectorized loop and its remainder, the original nest Polly
  // keeps for when its checks fail) were tried: their copies made main's
  // code so much larger that Polly's gemm tiles ran 1.6x slower.
  MapVector<Loop *, std::vector<Candidate *>> ByParent; // in program order: deterministic output
  for (Candidate &C : Candidates)
    if (Loop *P = C.L->getParentLoop())
      ByParent[P].push_back(&C);
  std::vector<Nest> Nests;
  for (auto &KV : ByParent) {
    if (KV.second.size() != KV.first->getSubLoops().size() || KV.second.size() != 1)
      continue;
    Nest N;
    if (planNest(KV.first, KV.second, LI, DT, SE, N))
      Nests.push_back(std::move(N));
  }
  unsigned Reads = 0, Writes = 0;
  assignSlots(Candidates, StripReads, StripWrites, Reads, Writes);
  Pool.reserveStrip(Reads, Writes);
  for (Nest &N : Nests)
    versionNest(N, DP, ABI, Pool);
  for (Candidate &C : Candidates) {
    DebugLoc Loc = C.L->getStartLoc();
    BasicBlock *Header = C.Header;
    bool Nested = C.Nested;
    stripMine(C, DP, ABI, Pool);
    Stats.Loops++;
    Stats.Accesses += C.Accesses.size();
    std::set<std::string> Names;
    unsigned Unknown = 0;
    for (const Access &A : C.Accesses) {
      if (A.Origin == DP.unknownOrigin())
        ++Unknown;
      else
        Names.insert(A.Origin->Name);
    }
    std::string List;
    for (const std::string &N : Names) {
      List += (List.empty() ? "'" : ", '") + N + "'";
      Stats.Arrays.insert(N);
    }
    if (!Unknown)
      ; // every access named an array
    else if (List.empty())
      List = "pointers of unknown origin";
    else
      List += " and pointers of unknown origin";
    if (!Once.first("StripMined", Loc, &F))
      continue;
    unsigned NA = C.Accesses.size(), NG = C.Groups.size();
    ORE.emit([&] {
      return OptimizationRemark(DEBUG_TYPE, "StripMined", Loc, Header)
             << "strip-mined loop at stripe boundaries: " << ore::NV("Accesses", NA)
             << (NA == 1 ? " access" : " accesses") << " to " << List << " in " << ore::NV("Streams", NG)
             << (NG == 1 ? " stream " : " streams ") << (NA == 1 ? "is" : "are") << " translated once per strip instead of once per "
             << "iteration"
             << (Nested ? "; the enclosing loop runs as compiled while the windows hold every address it reaches" : "");
    });
  }
  return Stats;
}

} // namespace iopoly
