//===- DiskResidentRegistry.cpp - Frontend -> IR hand-off ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Support/DiskResidentRegistry.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Type.h"

#include <mutex>
#include <utility>

namespace iopoly {

static std::mutex RegistryMu;
static std::vector<DiskResidentGlobal> &globals() {
  static std::vector<DiskResidentGlobal> N;
  return N;
}

void registerDiskResidentGlobal(const DiskResidentGlobal &G) {
  std::lock_guard<std::mutex> L(RegistryMu);
  globals().push_back(G);
}

std::vector<DiskResidentGlobal> takeDiskResidentGlobals() {
  std::lock_guard<std::mutex> L(RegistryMu);
  std::vector<DiskResidentGlobal> Out;
  Out.swap(globals());
  return Out;
}

std::string annotationText(llvm::StringRef Name, const ArrayShape &Shape) {
  std::string T = std::string(AnnotationPrefix) + Name.str();
  if (Shape.ElemSize && !Shape.Dims.empty()) {
    T += ":" + std::to_string(Shape.ElemSize) + ":";
    for (size_t K = 0; K < Shape.Dims.size(); ++K)
      T += (K ? "x" : "") + std::to_string(Shape.Dims[K]);
  }
  return T;
}

static std::mutex LayoutMu;
static std::vector<LayoutPragma> Layouts;

void registerLayoutPragma(const LayoutPragma &P) {
  std::lock_guard<std::mutex> L(LayoutMu);
  Layouts.push_back(P);
}

std::vector<LayoutPragma> takeLayoutPragmas() {
  std::lock_guard<std::mutex> L(LayoutMu);
  return std::exchange(Layouts, {});
}

void parseAnnotation(llvm::StringRef Text, std::string &Name, ArrayShape &Shape) {
  auto [N, Rest] = Text.split(':');
  Name = N.str();
  Shape = ArrayShape();
  auto [Elem, Dims] = Rest.split(':');
  uint64_t E = 0;
  if (Elem.getAsInteger(10, E) || !E)
    return;
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Dims.split(Parts, 'x');
  for (llvm::StringRef P : Parts) {
    uint64_t D = 0;
    if (P.getAsInteger(10, D) || !D) {
      Shape.Dims.clear();
      return;
    }
    Shape.Dims.push_back(D);
  }
  Shape.ElemSize = E;
}

llvm::MDNode *diskResidentNode(llvm::LLVMContext &Ctx, llvm::StringRef Name, const ArrayShape &Shape) {
  llvm::SmallVector<llvm::Metadata *, 4> Ops{llvm::MDString::get(Ctx, Name)};
  if (Shape.ElemSize && !Shape.Dims.empty()) {
    llvm::Type *I64 = llvm::Type::getInt64Ty(Ctx);
    Ops.push_back(llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(I64, Shape.ElemSize)));
    for (uint64_t D : Shape.Dims)
      Ops.push_back(llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(I64, D)));
  }
  return llvm::MDNode::get(Ctx, Ops);
}

std::string nameOfNode(const llvm::MDNode *N) {
  if (N && N->getNumOperands())
    if (auto *S = llvm::dyn_cast<llvm::MDString>(N->getOperand(0)))
      return S->getString().str();
  return "";
}

ArrayShape shapeOfNode(const llvm::MDNode *N) {
  ArrayShape S;
  if (!N || N->getNumOperands() < 3)
    return S;
  for (unsigned K = 1; K < N->getNumOperands(); ++K) {
    auto *C = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(N->getOperand(K));
    if (!C || C->isZero())
      return ArrayShape();
    (K == 1 ? S.ElemSize : S.Dims.emplace_back()) = C->getZExtValue();
  }
  return S;
}

} // namespace iopoly
