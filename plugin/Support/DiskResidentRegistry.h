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

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace iopoly {

/// Prefix of the annotation string the frontend attaches to disk-resident
/// parameters and locals: "iopoly.disk_resident:<name>".
inline constexpr const char *AnnotationPrefix = "iopoly.disk_resident:";

/// Metadata kind on disk-resident globals and on marker calls.
inline constexpr const char *DiskResidentMD = "iopoly.disk_resident";

/// Records a file-scope disk-resident global of the current translation
/// unit (frontend side).
void registerDiskResidentGlobal(llvm::StringRef Name);
/// Takes the names recorded so far (IR side).
std::vector<std::string> takeDiskResidentGlobals();

} // namespace iopoly

#endif
