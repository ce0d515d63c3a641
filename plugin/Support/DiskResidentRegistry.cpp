//===- DiskResidentRegistry.cpp - Frontend -> IR hand-off ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Support/DiskResidentRegistry.h"

#include <mutex>

namespace iopoly {

static std::mutex RegistryMu;
static std::vector<std::string> &names() {
  static std::vector<std::string> N;
  return N;
}

void registerDiskResidentGlobal(llvm::StringRef Name) {
  std::lock_guard<std::mutex> G(RegistryMu);
  names().push_back(Name.str());
}

std::vector<std::string> takeDiskResidentGlobals() {
  std::lock_guard<std::mutex> G(RegistryMu);
  std::vector<std::string> Out;
  Out.swap(names());
  return Out;
}

} // namespace iopoly
