//===- Identity.cpp - Application names and signatures ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Identity.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <unistd.h>

namespace iopoly {
namespace knowac {

std::string cleanAppName(const std::string &Raw) {
  size_t B = Raw.find_first_not_of(" \t");
  size_t E = Raw.find_last_not_of(" \t");
  if (B == std::string::npos)
    return "";
  std::string S = Raw.substr(B, E - B + 1);
  if (S.size() >= 2 && S.front() == '"' && S.back() == '"')
    S = S.substr(1, S.size() - 2);
  return S;
}

std::string signatureHash(const std::vector<VarSignature> &Vars) {
  std::vector<std::string> Parts;
  for (const VarSignature &V : Vars) {
    std::string P = V.Name + ":" + std::to_string(V.XType) + "(";
    for (const std::string &D : V.DimNames)
      P += D + ",";
    Parts.push_back(P + ")");
  }
  std::sort(Parts.begin(), Parts.end());
  uint32_t H = 2166136261u;
  for (const std::string &P : Parts)
    for (unsigned char C : P + ";") {
      H ^= C;
      H *= 16777619u;
    }
  char Buf[9];
  std::snprintf(Buf, sizeof Buf, "%08x", H);
  return Buf;
}

std::string executableName() {
  char Buf[PATH_MAX];
  ssize_t N = ::readlink("/proc/self/exe", Buf, sizeof Buf - 1);
  if (N <= 0)
    return "program";
  Buf[N] = 0;
  std::string P(Buf);
  size_t Slash = P.find_last_of('/');
  return Slash == std::string::npos ? P : P.substr(Slash + 1);
}

std::string resolveApp(const std::string &EnvName, const char *CompiledName, const std::string &Exe,
                       const std::vector<VarSignature> &FirstFile) {
  if (!EnvName.empty())
    return EnvName;
  if (CompiledName) {
    std::string C = cleanAppName(CompiledName);
    if (!C.empty())
      return C;
  }
  return Exe + "-" + signatureHash(FirstFile);
}

} // namespace knowac
} // namespace iopoly
