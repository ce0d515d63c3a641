//===- Identity.h - Which application a run belongs to ----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 5, section V.B: an application is named at compile time
// (-DIOPOLY_KNOWAC_APP=name, which include/iopoly/knowac_app.h turns into
// the symbol iopoly_knowac_app_name) or at run time (IOPOLY_KNOWAC_APP,
// which wins). Without a name the identity is the executable's name and a
// hash of the signature of the first file it opens (variable names, types
// and dimension names, not sizes): the same program on inputs of the same
// format shares its knowledge, another format starts its own.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_KNOWAC_IDENTITY_H
#define IOPOLY_KNOWAC_IDENTITY_H

#include <string>
#include <vector>

namespace iopoly {
namespace knowac {

/// One variable as the signature sees it.
struct VarSignature {
  std::string Name;
  int XType = 0;
  std::vector<std::string> DimNames;
};

/// "myapp" from "myapp", "\"myapp\"" (a quoted macro) or " myapp ".
std::string cleanAppName(const std::string &Raw);
/// 8 hex digits of FNV-1a over the sorted signature.
std::string signatureHash(const std::vector<VarSignature> &Vars);
/// The executable's base name ("a.out"), "program" if unknown.
std::string executableName();
/// The identity: \p EnvName if set, else \p CompiledName, else
/// executable-hash.
std::string resolveApp(const std::string &EnvName, const char *CompiledName, const std::string &Exe,
                       const std::vector<VarSignature> &FirstFile);

} // namespace knowac
} // namespace iopoly

#endif
