//===- FileLayout.cpp - File layout selection (paper 1, section 4) ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Transform/FileLayout.h"
#include "Analysis/LayoutChoice.h"
#include "Analysis/LayoutTrial.h"
#include "Analysis/StatementInstances.h"
#include "Polly/PollyPipeline.h"
#include "Support/LayoutProfile.h"
#include "Transform/LayoutAccesses.h"
#include "Transform/LayoutInstrument.h"
#include "Support/DiskResidentRegistry.h"
#include "Support/Options.h"
#include "Support/RuntimeABI.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <map>
#include <numeric>

#define DEBUG_TYPE "iopoly"

using namespace llvm;

namespace iopoly {

SmallVector<unsigned, 4> layoutOf(const GlobalVariable &G) {
  SmallVector<unsigned, 4> P;
  if (MDNode *N = G.getMetadata(LayoutMD))
    for (const MDOperand &Op : N->operands())
      if (auto *C = mdconst::dyn_extract_or_null<ConstantInt>(Op))
        P.push_back(static_cast<unsigned>(C->getZExtValue()));
  return P;
}

namespace {

/// Per subscript, the depth of the innermost loop around \p A in which it
/// varies; the weight is the product of the loops' trip counts (replaced
/// by a domain count or a profile count when there is one).
LayoutAccess describeAccess(const ElementAccess &A, LoopInfo &LI, ScalarEvolution &SE) {
  LayoutAccess R;
  Loop *Inner = LI.getLoopFor(A.I->getParent());
  auto DepthOf = [&](Value *V) -> unsigned {
    if (SE.isSCEVable(V->getType())) {
      const SCEV *S = SE.getSCEV(V);
      for (Loop *L = Inner; L; L = L->getParentLoop())
        if (!SE.isLoopInvariant(S, L))
          return L->getLoopDepth();
      return 0;
    }
    return Inner && !isa<Constant>(V) ? Inner->getLoopDepth() : 0;
  };
  for (Value *V : A.Index)
    R.Depth.push_back(DepthOf(V));
  for (auto &[Dim, V] : A.Added)
    R.Depth[Dim] = std::max(R.Depth[Dim], DepthOf(V));
  unsigned Varies = R.Depth.empty() ? 0 : *std::max_element(R.Depth.begin(), R.Depth.end());
  for (Loop *L = Inner; L; L = L->getParentLoop()) {
    double Trips = loopTrips(*L, *A.I->getParent(), SE);
    R.Weight *= Trips;
    if (L->getLoopDepth() > Varies)
      R.Repeats *= Trips;
  }
  R.Source = WeightSource::TripProduct;
  return R;
}

std::string arrayName(const GlobalVariable &G) {
  std::string N = nameOfNode(G.getMetadata(DiskResidentMD));
  return N.empty() ? G.getName().str() : N;
}

std::string layoutText(ArrayRef<unsigned> P) {
  std::string S;
  for (unsigned I = 0; I < P.size(); ++I)
    S += (I ? "," : "") + std::to_string(P[I]);
  bool Row = true, Col = true;
  for (unsigned I = 0; I < P.size(); ++I) {
    Row &= P[I] == I;
    Col &= P[I] == P.size() - 1 - I;
  }
  return S + (Row ? " (row-major)" : Col ? " (column-major)" : "");
}

Constant *permutedInit(Constant *Init, const ArrayForm &F, const ArrayForm &NF, ArrayRef<unsigned> Perm, unsigned K,
                       SmallVectorImpl<unsigned> &Idx) {
  if (K == F.rank()) {
    Constant *C = Init;
    for (unsigned D = 0; D < F.rank(); ++D)
      C = C->getAggregateElement(Idx[D]);
    return C;
  }
  SmallVector<Constant *, 64> Elems;
  for (uint64_t N = 0; N < F.Dims[Perm[K]]; ++N) {
    Idx[Perm[K]] = static_cast<unsigned>(N);
    Elems.push_back(permutedInit(Init, F, NF, Perm, K + 1, Idx));
  }
  return ConstantArray::get(cast<ArrayType>(NF.Levels[K]), Elems);
}

/// The array type of \p F with its dimensions in the order \p Perm.
Type *permutedType(const ArrayForm &F, ArrayRef<unsigned> Perm) {
  Type *T = F.elem();
  for (unsigned K = F.rank(); K-- > 0;)
    T = ArrayType::get(T, F.Dims[Perm[K]]);
  return T;
}

/// Points every access at the array stored as \p T (\p F permuted by
/// \p Perm) from \p NewBase, or from the access's own base if null.
void rewriteAccesses(std::vector<ElementAccess> &Accesses, Type *T, const ArrayForm &F, ArrayRef<unsigned> Perm,
                     Value *NewBase) {
  SmallVector<WeakTrackingVH, 16> Dead;
  Type *I64 = Type::getInt64Ty(T->getContext());
  for (ElementAccess &A : Accesses) {
    IRBuilder<> B(A.I);
    SmallVector<Value *, 4> Sub(A.Index.begin(), A.Index.end());
    for (auto &[Dim, V] : A.Added)
      Sub[Dim] = B.CreateAdd(B.CreateSExtOrTrunc(Sub[Dim], I64), B.CreateSExtOrTrunc(V, I64), "row.sum");
    SmallVector<Value *, 5> Idx{ConstantInt::get(I64, 0)};
    for (unsigned K = 0; K < F.rank(); ++K)
      Idx.push_back(Sub[Perm[K]]);
    Value *Ptr = B.CreateInBoundsGEP(T, NewBase ? NewBase : A.Base, Idx, "permuted");
    unsigned Op = isa<LoadInst>(A.I) ? LoadInst::getPointerOperandIndex() : StoreInst::getPointerOperandIndex();
    Value *Old = A.I->getOperand(Op);
    A.I->setOperand(Op, Ptr);
    if (isa<Instruction>(Old))
      Dead.push_back(Old);
  }
  RecursivelyDeleteTriviallyDeadInstructionsPermissive(Dead);
}

/// Replaces \p G by the permuted array and every access by one through it.
void permute(Module &M, GlobalVariable &G, const ArrayForm &F, ArrayRef<unsigned> Perm,
             std::vector<ElementAccess> &Accesses) {
  LLVMContext &Ctx = M.getContext();
  const DataLayout &DL = M.getDataLayout();
  ArrayForm NF;
  Type *T = permutedType(F, Perm);
  formOf(T, NF);
  Constant *Init = nullptr;
  if (G.hasInitializer()) {
    if (G.getInitializer()->isNullValue()) {
      Init = Constant::getNullValue(T);
    } else {
      SmallVector<unsigned, 4> Idx(F.rank());
      Init = permutedInit(G.getInitializer(), F, NF, Perm, 0, Idx);
    }
  }
  auto *NG = new GlobalVariable(M, T, G.isConstant(), G.getLinkage(), Init, G.getName() + ".permuted", &G,
                                G.getThreadLocalMode(), G.getAddressSpace(), G.isExternallyInitialized());
  NG->copyAttributesFrom(&G);
  // The declared shape travels with the array: the file header records it.
  ArrayShape Shape = shapeOfNode(G.getMetadata(DiskResidentMD));
  if (!Shape.ElemSize) {
    Shape.ElemSize = DL.getTypeAllocSize(F.elem());
    Shape.Dims.assign(F.Dims.begin(), F.Dims.end());
  }
  NG->setMetadata(DiskResidentMD, diskResidentNode(Ctx, arrayName(G), Shape));
  SmallVector<Metadata *, 4> P;
  for (unsigned X : Perm)
    P.push_back(ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(Ctx), X)));
  NG->setMetadata(LayoutMD, MDNode::get(Ctx, P));

  rewriteAccesses(Accesses, T, F, Perm, NG);
  // Constant expressions the accesses used (Polly's code preparation, run
  // for the vote's instance counts, may fold an access's constant address
  // into one) outlive their last use: they are not uses.
  G.removeDeadConstantUsers();
  std::string Name = G.getName().str();
  if (!G.use_empty()) {
    // Every use was an access rewritten above; two copies of the array
    // would silently diverge.
    std::string Use;
    raw_string_ostream OS(Use);
    G.user_back()->print(OS);
    Ctx.emitError("iopoly: internal error: uses of '" + Name + "' remain after its file layout was changed: " +
                  StringRef(Use).trim().str());
    return;
  }
  G.eraseFromParent();
  NG->setName(Name);
}

/// After each allocation of \p A: the shape and the layout chosen (also
/// row-major), which the header of iopoly_alloc memory records, so that a
/// program that stores it otherwise is refused (__iopoly_alloc_layout).
void noteAllocatedLayout(Module &M, AllocatedArray &A, const ArrayForm &F, ArrayRef<unsigned> Perm) {
  RuntimeABI ABI(M);
  LLVMContext &Ctx = M.getContext();
  Type *I64 = Type::getInt64Ty(Ctx), *I32 = Type::getInt32Ty(Ctx);
  SmallVector<Constant *, 4> DimC, PermC;
  for (uint64_t D : F.Dims)
    DimC.push_back(ConstantInt::get(I64, D));
  for (unsigned P : Perm)
    PermC.push_back(ConstantInt::get(I32, P));
  auto Table = [&](Type *T, ArrayRef<Constant *> C, const Twine &Name) {
    auto *AT = ArrayType::get(T, C.size());
    return new GlobalVariable(M, AT, /*isConstant=*/true, GlobalValue::PrivateLinkage, ConstantArray::get(AT, C), Name);
  };
  GlobalVariable *Dims = Table(I64, DimC, "iopoly.alloc.dims");
  GlobalVariable *Layout = Table(I32, PermC, "iopoly.alloc.layout");
  uint64_t Elem = M.getDataLayout().getTypeAllocSize(F.elem());
  for (CallBase *CB : A.Allocations) {
    Instruction *At = nullptr;
    if (auto *II = dyn_cast<InvokeInst>(CB)) {
      if (BasicBlock *Next = II->getNormalDest(); Next->getSinglePredecessor())
        At = &*Next->getFirstInsertionPt();
    } else {
      At = CB->getNextNode();
    }
    if (!At)
      continue; // (an invoke whose continuation is shared: the header keeps the byte view)
    IRBuilder<> B(At);
    B.CreateCall(ABI.AllocLayout, {CB, B.getInt64(Elem), B.getInt32(F.rank()), Dims, Layout});
  }
}

} // namespace

namespace {

/// A disk-resident global or allocated array whose file layout the pass decides.
struct Target {
  GlobalVariable *G;      ///< a global, or
  AllocatedArray *Object; ///< an allocated array
  ArrayForm F;
  std::string Name;
  SmallVector<unsigned, 4> Requested;
  std::string RequestFrom;
  std::vector<ElementAccess> Accesses;
  std::vector<unsigned> SiteNo; ///< per access: its number in its function
  std::string Escape;           ///< why the layout cannot change ("" if it can)
  /// An allocated array every access of which the pass knows, kept
  /// row-major because MPI ranks share it: its shape is still recorded
  /// (noteAllocatedLayout), so the runtime joins a rank's changed bytes
  /// within its elements.
  bool RecordRowMajor = false;
  std::vector<LayoutAccess> Described;
  std::string ProfileMiss;      ///< layout=profile: why the profile was not used
  // The decision (decide(), then checkByTrials()):
  bool Decided = false;         ///< a layout was chosen or requested
  std::vector<unsigned> Chosen; ///< the layout
  std::string Why, Scores;      ///< for the remark
};

/// Whether every weight of \p T's accesses was measured by a profile.
bool profiled(const Target &T) {
  return llvm::all_of(T.Described, [](const LayoutAccess &A) { return A.Source == WeightSource::Profile; });
}

bool isRowMajor(ArrayRef<unsigned> P) {
  for (unsigned K = 0; K < P.size(); ++K)
    if (P[K] != K)
      return false;
  return true;
}

std::string weightSources(const std::vector<LayoutAccess> &Described);

/// The layout of \p T: requested, or the vote's (LayoutChoice), with the
/// remark's reason and scores.
void decide(Target &T, bool Choose, LayoutMode Mode) {
  if (!T.Escape.empty())
    return;
  if (T.Requested.empty() && (!Choose || Mode == LayoutMode::Instrument))
    return; // -O0 or an instrumented build: row-major unless asked
  LayoutChoice C = chooseLayout(T.F.rank(), T.Described, profiled(T) ? 1.0 : MinAlongOverRowMajor);
  raw_string_ostream SS(T.Scores);
  for (unsigned I = 0; I < C.Candidates.size(); ++I) {
    const LayoutScore &S = C.Candidates[I];
    SS << (I ? "; " : "") << permString(S.Perm) << ": " << format("%.0f", S.Along) << " along, "
       << format("%.0f", S.Against) << " against";
  }
  SS << "; other: " << format("%.0f", C.Other) << weightSources(T.Described);
  T.Chosen = C.Candidates[C.Chosen].Perm;
  if (!T.Requested.empty()) {
    T.Chosen.assign(T.Requested.begin(), T.Requested.end());
    T.Why = "requested by " + T.RequestFrom;
  } else if (C.NearTie) {
    T.Why = "no layout has twice as many accesses stride-1 in the file as row-major (near ties keep row-major: "
            "the counts estimate the original order, and a file layout outlives the run)";
  } else if (C.Candidates[0].Along + C.Candidates[0].Against == 0) {
    T.Why = "no access walks it in a loop";
  } else if (C.Chosen == 0 && llvm::any_of(C.Candidates, [&](const LayoutScore &S) {
               return &S != &C.Candidates[0] && S.Along == C.Candidates[0].Along;
             })) {
    T.Why = "another layout has as many accesses stride-1 in the file (ties keep row-major)";
  } else {
    T.Why = "most accesses (weighted by how many times their statements run) are stride-1 in the file";
  }
  T.Decided = true;
}

/// \p V in the copy of the module \p VMap made.
Value *inCopy(Value *V, ValueToValueMapTy &VMap) {
  if (Value *C = VMap.lookup(V))
    return C;
  if (auto *K = dyn_cast<Constant>(V))
    return MapValue(K, VMap);
  return V;
}

/// A copy of \p M with the layouts \p Perm gives the targets (row-major
/// where it gives none), ready for a trial.
std::unique_ptr<Module> copyWithLayouts(Module &M, std::vector<Target> &Targets,
                                        const std::vector<std::vector<unsigned>> &Perm) {
  ValueToValueMapTy VMap;
  std::unique_ptr<Module> Copy = CloneModule(M, VMap);
  for (size_t K = 0; K < Targets.size(); ++K) {
    Target &T = Targets[K];
    if (Perm[K].empty() || isRowMajor(Perm[K]))
      continue;
    std::vector<ElementAccess> Accesses;
    for (const ElementAccess &A : T.Accesses) {
      ElementAccess C{cast<Instruction>(inCopy(A.I, VMap)), inCopy(A.Base, VMap), {}, {}};
      for (Value *I : A.Index)
        C.Index.push_back(inCopy(I, VMap));
      for (auto &[Dim, V] : A.Added)
        C.Added.push_back({Dim, inCopy(V, VMap)});
      Accesses.push_back(C);
    }
    if (T.G)
      permute(*Copy, *cast<GlobalVariable>(inCopy(T.G, VMap)), T.F, Perm[K], Accesses);
    else
      rewriteAccesses(Accesses, permutedType(T.F, Perm[K]), T.F, Perm[K], nullptr);
  }
  return Copy;
}

/// "dro-wp's schedule", "Polly's schedule (clo)".
std::string scheduleName() {
  return mode() == Mode::CLO ? "Polly's schedule (clo)" : modeName().str() + "'s schedule";
}

/// Layouts the vote chose (not requested ones) are tried against
/// row-major on copies of \p M by the cost model of the mode's schedule.
/// They are kept if together they are not estimated worse than row-major
/// by more than MaxTrialLoss on any plausible run; otherwise, if together
/// they gain on the geometric mean, the best single one that passes;
/// otherwise every array stays row-major.
void checkByTrials(Module &M, std::vector<Target> &Targets, OptimizationLevel Level) {
  if (mpiEnabled() || (mode() != Mode::CLO && mode() != Mode::DroL && mode() != Mode::DroWP))
    return; // lower runs the source order, which the vote scores
  std::vector<size_t> Voted;
  for (size_t K = 0; K < Targets.size(); ++K)
    if (Targets[K].Decided && Targets[K].Requested.empty() && !isRowMajor(Targets[K].Chosen))
      Voted.push_back(K);
  if (Voted.empty())
    return;
  ScopTransform Transform = mode() == Mode::CLO    ? ScopTransform::PollyOptimizer
                            : mode() == Mode::DroL ? ScopTransform::DiskReuseNests
                                                   : ScopTransform::DiskReuseWhole;
  // Requested layouts are in every copy.
  std::vector<std::vector<unsigned>> Base(Targets.size());
  for (size_t K = 0; K < Targets.size(); ++K)
    if (Targets[K].Decided && !Targets[K].Requested.empty())
      Base[K] = Targets[K].Chosen;
  auto measure = [&](ArrayRef<size_t> With) {
    std::vector<std::vector<unsigned>> Perm = Base;
    for (size_t K : With)
      Perm[K] = Targets[K].Chosen;
    LayoutTrial Trial;
    std::unique_ptr<Module> Copy = copyWithLayouts(M, Targets, Perm);
    measureLayoutTrial(*Copy, Level, Transform, Trial);
    return Trial;
  };
  LayoutTrial RowMajor = measure({});
  LayoutTrial AllVoted = measure(Voted);

  auto Fits = [](const TrialVerdict &V) { return V.Comparable && V.Worst <= 1 + MaxTrialLoss; };
  auto ratio = [](double R) {
    char Buf[32];
    std::snprintf(Buf, sizeof Buf, "%.2fx", R);
    return std::string(Buf);
  };
  std::string Model = "the cost model of " + scheduleName() + " (" + trialRunsText() + ")";
  TrialVerdict All = compareTrials(AllVoted, RowMajor);
  std::string With = Voted.size() > 1 ? " with the other layouts chosen here" : "";
  if (!All.Comparable) {
    for (size_t K : Voted)
      Targets[K].Why += "; " + Model + " could not compare it with row-major (a loop nest on the arrays has no "
                                       "usable footprint model), so the vote decides";
    return;
  }
  if (Fits(All)) {
    for (size_t K : Voted)
      Targets[K].Why += "; " + Model + " estimates " + ratio(All.Mean) + " of row-major's I/O on the geometric mean" +
                        With + ", at most " + ratio(All.Worst);
    return;
  }
  // One array at a time: the best that passes alone (where the arrays
  // together gain on the whole; trials are compile time).
  size_t Best = Voted.size();
  TrialVerdict BestVerdict;
  if (Voted.size() > 1 && All.Mean < 1)
    for (size_t I = 0; I < Voted.size(); ++I) {
      TrialVerdict V = compareTrials(measure({Voted[I]}), RowMajor);
      if (Fits(V) && V.Mean < 1 && (Best == Voted.size() || V.Mean < BestVerdict.Mean)) {
        Best = I;
        BestVerdict = V;
      }
    }
  for (size_t I = 0; I < Voted.size(); ++I) {
    Target &T = Targets[Voted[I]];
    if (I == Best) {
      T.Why += "; " + Model + " estimates " + ratio(BestVerdict.Mean) +
               " of row-major's I/O on the geometric mean with this array alone stored so, at most " +
               ratio(BestVerdict.Worst);
      continue;
    }
    std::string Vote = layoutText(T.Chosen);
    T.Chosen.resize(T.F.rank());
    std::iota(T.Chosen.begin(), T.Chosen.end(), 0u);
    T.Why = "kept by " + Model + ": " +
            (profiled(T) ? "the profile's counts of the source order prefer " : "the vote of the source order prefers ") +
            Vote + ", but stored so" + With +
            " the estimate is " + ratio(All.Worst) + " row-major's I/O with " + trialRunText(All.WorstRun) + " (" +
            ratio(All.Mean) + " on the geometric mean; a layout may lose at most " +
            std::to_string(static_cast<int>(MaxTrialLoss * 100)) + "% on any plausible run)";
  }
}

/// Numbers each access of \p T among the accesses of the array in its
/// function, in instruction order: the site ids of layout profiles, the
/// same in the instrumented build and in the one that reads its counts.
void numberSites(Module &M, Target &T, DenseMap<const Function *, DenseMap<const Instruction *, unsigned>> &Order) {
  std::vector<std::pair<std::pair<const Function *, unsigned>, unsigned>> Keyed;
  for (unsigned K = 0; K < T.Accesses.size(); ++K) {
    Function *Fn = T.Accesses[K].I->getFunction();
    auto &O = Order[Fn];
    if (O.empty()) {
      unsigned N = 0;
      for (Instruction &I : instructions(*Fn))
        O[&I] = N++;
    }
    Keyed.push_back({{Fn, O.lookup(T.Accesses[K].I)}, K});
  }
  // Functions in module order, then instruction order.
  DenseMap<const Function *, unsigned> FnOrder;
  unsigned FN = 0;
  for (const Function &Fn : M)
    FnOrder[&Fn] = FN++;
  llvm::sort(Keyed, [&](const auto &A, const auto &B) {
    return std::make_pair(FnOrder.lookup(A.first.first), A.first.second) <
           std::make_pair(FnOrder.lookup(B.first.first), B.first.second);
  });
  T.SiteNo.assign(T.Accesses.size(), 0);
  DenseMap<const Function *, unsigned> Next;
  for (auto &[Key, K] : Keyed)
    T.SiteNo[K] = Next[Key.first]++;
}

/// layout=profile: the recorded counts as the weights of \p T's accesses,
/// or why they cannot be used (T.ProfileMiss).
void applyProfile(Target &T, const LayoutProfile &P, StringRef Unit) {
  std::vector<const LayoutProfileSite *> Sites = P.sitesOf(Unit, T.Name);
  if (Sites.empty()) {
    T.ProfileMiss = "the profile '" + P.Path + "' has no counts for it (unit " + Unit.str() + ")";
    return;
  }
  std::map<std::pair<std::string, unsigned>, const LayoutProfileSite *> ByKey;
  for (const LayoutProfileSite *S : Sites)
    ByKey[{S->Function, S->Site}] = S;
  std::vector<double> Counts;
  for (unsigned K = 0; K < T.Accesses.size(); ++K) {
    const ElementAccess &A = T.Accesses[K];
    auto It = ByKey.find({profileField(A.I->getFunction()->getName()), T.SiteNo[K]});
    bool Store = isa<StoreInst>(A.I);
    if (It == ByKey.end() || It->second->Store != Store) {
      T.ProfileMiss = "the profile '" + P.Path + "' does not match this compilation (site " +
                      std::to_string(T.SiteNo[K]) + " in '" + A.I->getFunction()->getName().str() + "', a " +
                      (Store ? "store" : "load") + ", " + (It == ByKey.end() ? "is not recorded" : "is recorded as a " + std::string(Store ? "load" : "store")) +
                      "; the source or the options changed since the instrumented build)";
      return;
    }
    Counts.push_back(static_cast<double>(It->second->Count));
  }
  if (Sites.size() != T.Accesses.size()) {
    T.ProfileMiss = "the profile '" + P.Path + "' records " + std::to_string(Sites.size()) + " sites of it, this compilation has " +
                    std::to_string(T.Accesses.size()) + " (the source or the options changed since the instrumented build)";
    return;
  }
  for (unsigned K = 0; K < T.Accesses.size(); ++K) {
    T.Described[K].Weight = Counts[K];
    T.Described[K].Source = WeightSource::Profile;
  }
}

/// "; weights: exact domain count (2 accesses), trip product (1 access)".
std::string weightSources(const std::vector<LayoutAccess> &Described) {
  unsigned N[NumWeightSources] = {};
  for (const LayoutAccess &A : Described)
    ++N[static_cast<unsigned>(A.Source)];
  std::string S;
  for (unsigned K = 0; K < NumWeightSources; ++K)
    if (N[K])
      S += std::string(S.empty() ? "; weights: " : ", ") + weightSourceText(static_cast<WeightSource>(K)) + " (" +
           std::to_string(N[K]) + (N[K] == 1 ? " access)" : " accesses)");
  unsigned Repeated = llvm::count_if(Described, [](const LayoutAccess &A) { return A.Repeats > 1; });
  if (Repeated)
    S += "; " + std::to_string(Repeated) + (Repeated == 1 ? " access repeats its element" : " accesses repeat their element") +
         " in inner loops, counted once per element visit";
  return S;
}

} // namespace

PreservedAnalyses FileLayoutPass::run(Module &M, ModuleAnalysisManager &MAM) {
  LayoutMode Mode = layoutMode();
  if (Mode == LayoutMode::Off)
    return PreservedAnalyses::all();
  std::vector<Target> Targets;
  for (GlobalVariable &G : M.globals())
    if (G.getMetadata(DiskResidentMD) && !G.isDeclaration() && !G.getMetadata(LayoutMD))
      Targets.push_back({&G, nullptr});
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  std::vector<AllocatedArray> Objects = findAllocatedArrays(M, FAM);
  for (AllocatedArray &A : Objects)
    Targets.push_back({nullptr, &A});
  if (Targets.empty())
    return PreservedAnalyses::all();
  LLVMContext &Ctx = M.getContext();

  // 1. Each array's form, request and accesses (nothing changes yet).
  std::vector<Target> Kept;
  for (Target &T : Targets) {
    GlobalVariable *G = T.G;
    if (T.Object) {
      T.F = T.Object->F;
      T.Name = T.Object->Name;
      // A request: the option's, by any of the names its pragmas give it.
      for (StringRef N : split(T.Name, '/'))
        if (T.Requested.empty() && requestedLayout(N.str(), T.Requested))
          T.RequestFrom = "-fplugin-arg-iopoly-layout";
    } else if (!formOf(G->getValueType(), T.F)) {
      continue; // one dimension (or an array of structs): nothing to permute
    } else {
      T.Name = arrayName(*G);
      // A request: the pragma's (metadata), else the option's.
      if (MDNode *N = G->getMetadata(LayoutRequestMD)) {
        for (const MDOperand &Op : N->operands())
          if (auto *C = mdconst::dyn_extract_or_null<ConstantInt>(Op))
            T.Requested.push_back(static_cast<unsigned>(C->getZExtValue()));
        T.RequestFrom = "#pragma iopoly layout";
      } else if (requestedLayout(T.Name, T.Requested)) {
        T.RequestFrom = "-fplugin-arg-iopoly-layout";
      }
    }
    if (!T.Requested.empty()) {
      SmallVector<unsigned, 4> Sorted(T.Requested);
      llvm::sort(Sorted);
      bool IsPerm = Sorted.size() == T.F.rank() || !T.F.rank(); // (no form: refused below)
      for (unsigned K = 0; IsPerm && K < Sorted.size(); ++K)
        IsPerm = Sorted[K] == K;
      if (!IsPerm) {
        Ctx.emitError("iopoly: " + T.RequestFrom + " asks for layout " +
                      permString({T.Requested.begin(), T.Requested.end()}) + " of '" + T.Name + "', which has " +
                      std::to_string(T.F.rank()) + " dimensions: expected a permutation of 0.." +
                      std::to_string(T.F.rank() - 1));
        continue;
      }
    }
    if (G) {
      convertUsersOfConstantsToInstructions({G});
      T.Escape = collectAccesses(*G, T.F, T.Accesses);
    } else {
      T.Escape = T.Object->Escape;
      T.Accesses = std::move(T.Object->Accesses);
    }
    if (mpiEnabled()) {
      T.RecordRowMajor = T.Object && T.Escape.empty() && T.F.rank();
      T.Escape = "arrays shared by MPI ranks keep row-major (the layout choice does not cover distributed programs)";
    }
    Kept.push_back(std::move(T));
  }
  Targets = std::move(Kept);

  // 2. The votes: each access's pattern and weight, read while the IR is
  // still the one Polly's domains and the profile's sites describe.
  DenseMap<const Function *, DenseMap<const Instruction *, unsigned>> Order;
  for (Target &T : Targets)
    if (T.Escape.empty())
      numberSites(M, T, Order);
  DenseMap<const Instruction *, InstanceCount> Counted;
  SmallVector<Function *, 8> Analyzed;
  bool Score = Choose && Mode != LayoutMode::Instrument;
  if (Score && layoutDomainCounts()) {
    configurePolly();
    MapVector<Function *, SmallPtrSet<const Instruction *, 16>> Wanted;
    for (Target &T : Targets)
      if (T.Escape.empty())
        for (const ElementAccess &A : T.Accesses)
          Wanted[A.I->getFunction()].insert(A.I);
    for (auto &[Fn, Set] : Wanted) {
      domainInstanceCounts(*Fn, FAM, Set, Counted);
      Analyzed.push_back(Fn);
    }
  }
  const LayoutProfile *Profile = nullptr;
  if (Score && Mode == LayoutMode::Profile) {
    std::string E = loadLayoutProfile(layoutProfilePath(), Profile);
    if (!E.empty())
      Ctx.emitError("iopoly: -fplugin-arg-iopoly-layout=profile: " + E);
  }
  for (Target &T : Targets) {
    if (!T.Escape.empty() || (!Choose && T.Requested.empty()))
      continue;
    for (const ElementAccess &A : T.Accesses) {
      Function &Fn = *A.I->getFunction();
      LayoutAccess D =
          describeAccess(A, FAM.getResult<LoopAnalysis>(Fn), FAM.getResult<ScalarEvolutionAnalysis>(Fn));
      auto It = Counted.find(A.I);
      if (It != Counted.end()) {
        D.Weight = It->second.Count;
        D.Source = It->second.Source;
      }
      T.Described.push_back(D);
    }
    if (Profile)
      applyProfile(T, *Profile, profileField(M.getSourceFileName()));
  }
  // Polly's model of the functions refers to the accesses about to change.
  for (Function *Fn : Analyzed)
    FAM.invalidate(*Fn, PreservedAnalyses::none());

  // 3. The choice of each array (nothing changes yet).
  for (Target &T : Targets)
    decide(T, Choose, Mode);

  // 4. Layouts the vote chose, checked by the cost model of the mode's
  // schedule on copies of the module (Analysis/LayoutTrial.h).
  if (Level && Choose && layoutTrials())
    checkByTrials(M, Targets, *Level);

  // 5. The remarks, the permuted arrays.
  bool Changed = false;
  std::vector<LayoutSiteRef> Instrumented;
  for (Target &T : Targets) {
    GlobalVariable *G = T.G;
    const std::string &Name = T.Name;
    Instruction *Anchor = T.Accesses.empty() ? nullptr : T.Accesses.front().I;
    if (!Anchor && T.Object)
      Anchor = T.Object->Anchor;
    if (!Anchor)
      for (User *U : G->users())
        if ((Anchor = dyn_cast<Instruction>(U)))
          break;
    auto Remark = [&](auto Make) {
      if (!Anchor)
        return;
      OptimizationRemarkEmitter ORE(Anchor->getFunction());
      ORE.emit(Make);
    };
    if (!T.Escape.empty()) {
      if (!T.Requested.empty()) {
        // At -O0 pointers live in stack slots: allocated arrays are not followed.
        std::string Why = T.Object && !Choose ? "at -O0 the pass does not follow allocated arrays (their pointers "
                                                "live in memory there); compile with -O1 or higher"
                                              : T.Escape;
        Ctx.emitError("iopoly: cannot store '" + Name + "' in layout " + layoutText(T.Requested) + " as " +
                      T.RequestFrom + " asks: " + Why);
        continue;
      }
      if (T.RecordRowMajor) {
        SmallVector<unsigned, 4> RowMajor(T.F.rank());
        std::iota(RowMajor.begin(), RowMajor.end(), 0u);
        noteAllocatedLayout(M, *T.Object, T.F, RowMajor);
        Changed = true;
      }
      Remark([&] {
        auto R = OptimizationRemarkMissed(DEBUG_TYPE, "LayoutKept", Anchor);
        R << "file layout of '" << Name << "': kept row-major because " << T.Escape;
        if (T.RecordRowMajor) {
          std::string Dims;
          for (uint64_t D : T.F.Dims)
            Dims += (Dims.empty() ? "" : "x") + std::to_string(D);
          R << "; its shape (" << Dims << " elements of "
            << std::to_string(M.getDataLayout().getTypeAllocSize(T.F.elem()).getFixedValue())
            << " bytes) is recorded in its file header, so the runtime joins a rank's changed bytes within its "
               "elements";
        }
        return R;
      });
      continue;
    }
    if (Mode == LayoutMode::Instrument)
      for (unsigned K = 0; K < T.Accesses.size(); ++K)
        Instrumented.push_back({T.Accesses[K].I, Name, T.SiteNo[K]});
    if (!T.ProfileMiss.empty())
      Remark([&] {
        return OptimizationRemarkMissed(DEBUG_TYPE, "LayoutProfileMiss", Anchor)
               << "file layout of '" << Name << "': scored without the profile because " << T.ProfileMiss;
      });
    if (!T.Decided)
      continue; // -O0 or an instrumented build: row-major unless asked
    Remark([&] {
      return OptimizationRemark(DEBUG_TYPE, "Layout", Anchor)
             << "file layout of '" << Name << "': " << layoutText(T.Chosen) << ", " << T.Why
             << " (statement instances along / against each layout: " << T.Scores << ")";
    });
    if (T.Object) {
      noteAllocatedLayout(M, *T.Object, T.F, T.Chosen);
      Changed = true;
    }
    if (isRowMajor(T.Chosen))
      continue;
    if (G)
      permute(M, *G, T.F, T.Chosen, T.Accesses);
    else
      // Each access from its own base (the allocation, a parameter, a marker).
      rewriteAccesses(T.Accesses, permutedType(T.F, T.Chosen), T.F, T.Chosen, nullptr);
    Changed = true;
  }
  if (!Instrumented.empty()) {
    instrumentLayoutSites(M, Instrumented);
    Changed = true;
  }
  return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

} // namespace iopoly
