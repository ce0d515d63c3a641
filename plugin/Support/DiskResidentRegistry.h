//===- DiskResidentRegistry.h - Frontend -> IR hand-off ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The frontend resolves `#pragma iopoly disk_resident(...)` at file scope to
// global array names; the MarkDiskResident pass, running in the same clang
// process, turns them into IR metadata (the only form later passes read, so
// that every pass can also run alone under opt). Function-scope names travel
// as AnnotateAttr -> llvm.var.annotation instead.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_SUPPORT_DISKRESIDENTREGISTRY_H
#define IOPOLY_PLUGIN_SUPPORT_DISKRESIDENTREGISTRY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class MDNode;
} // namespace llvm

namespace iopoly {

/// Prefix of the annotation string the frontend attaches to disk-resident
/// parameters and locals: "iopoly.disk_resident:<name>".
inline constexpr const char *AnnotationPrefix = "iopoly.disk_resident:";

/// Metadata kind on disk-resident globals and on marker calls.
inline constexpr const char *DiskResidentMD = "iopoly.disk_resident";

/// The shape of a disk-resident global as declared (double A[8][4]:
/// element 8 bytes, dims {8, 4}); empty dims when unknown.
struct ArrayShape {
  uint64_t ElemSize = 0;
  llvm::SmallVector<uint64_t, 4> Dims;
};

/// A file-scope disk-resident global: its symbol in the IR, the array
/// name (its file name: C++ "ns::A" becomes "ns.A") and its shape.
struct DiskResidentGlobal {
  std::string Symbol;
  std::string Name;
  ArrayShape Shape;
};

/// Records a file-scope disk-resident global of the current translation
/// unit (frontend side).
void registerDiskResidentGlobal(const DiskResidentGlobal &G);
/// Takes the globals recorded so far (IR side).
std::vector<DiskResidentGlobal> takeDiskResidentGlobals();

/// `#pragma iopoly layout(V, 1, 0)`: the file layout requested for array V.
struct LayoutPragma {
  std::string Name;
  std::vector<unsigned> Perm;
  std::string Where; ///< "file:line" of the pragma, for errors
};
void registerLayoutPragma(const LayoutPragma &P);
std::vector<LayoutPragma> takeLayoutPragmas();

/// The annotation text of a global: "iopoly.disk_resident:<name>" and, when
/// the shape is known, ":<elem>:<d1>x<d2>...".
std::string annotationText(llvm::StringRef Name, const ArrayShape &Shape);
/// Parses what follows AnnotationPrefix in an annotation.
void parseAnnotation(llvm::StringRef Text, std::string &Name, ArrayShape &Shape);

/// !iopoly.disk_resident: !{!"name"} or !{!"name", i64 elem, i64 d1, ...}.
llvm::MDNode *diskResidentNode(llvm::LLVMContext &Ctx, llvm::StringRef Name, const ArrayShape &Shape);
/// The shape recorded in such a node (ElemSize 0 if none).
ArrayShape shapeOfNode(const llvm::MDNode *N);
/// The name recorded in such a node ("" if none or no node).
std::string nameOfNode(const llvm::MDNode *N);

} // namespace iopoly

#endif
