//===- LayoutProfile.cpp - Writing the counts of a layout profile ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 1, section 4's profile-based layout choice, runtime side: modules
// built with -fplugin-arg-iopoly-layout=instrument register their access
// sites and counters (__iopoly_layout_profile, include/iopoly/abi.h); at
// exit the counts go to IOPOLY_LAYOUT_PROFILE in the text format that
// -fplugin-arg-iopoly-layout=profile reads (plugin/Support/LayoutProfile.h).
// The file is written beside its final name and renamed when complete, so
// that a crash never leaves half a profile.
//
//===----------------------------------------------------------------------===//
#include "core/Config.h"
#include "iopoly/abi.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unistd.h>
#include <vector>

namespace iopoly {
namespace {

std::mutex TablesMu;
std::vector<const iopoly_layout_sites *> Tables;

/// Writes every registered table's counts to \p Path; "" or why not.
std::string writeCounts(const std::string &Path) {
  std::string Tmp = Path + ".tmp." + std::to_string(::getpid());
  FILE *F = std::fopen(Tmp.c_str(), "w");
  if (!F)
    return "cannot create '" + Tmp + "': " + std::strerror(errno);
  std::fprintf(F, "%s\n# unit array function site kind count where\n", IOPOLY_LAYOUT_PROFILE_HEADER);
  for (const iopoly_layout_sites *T : Tables)
    for (uint32_t K = 0; K < T->num_sites; ++K) {
      const iopoly_layout_site &S = T->sites[K];
      unsigned long long N = __atomic_load_n(&T->counts[K], __ATOMIC_RELAXED);
      std::fprintf(F, "%s %s %s %u %s %llu %s\n", T->unit, S.array, S.function, S.site, S.store ? "store" : "load", N,
                   S.where);
    }
  bool Ok = std::fflush(F) == 0 && ::fsync(::fileno(F)) == 0;
  int Err = errno;
  Ok = (std::fclose(F) == 0) && Ok;
  if (!Ok) {
    std::remove(Tmp.c_str());
    return "cannot write '" + Tmp + "': " + std::strerror(Err ? Err : errno);
  }
  if (std::rename(Tmp.c_str(), Path.c_str()) != 0) {
    Err = errno;
    std::remove(Tmp.c_str());
    return "cannot rename '" + Tmp + "' to '" + Path + "': " + std::strerror(Err);
  }
  return "";
}

void writeAtExit() {
  std::lock_guard<std::mutex> L(TablesMu);
  const Config *C = nullptr;
  if (Status S = globalConfig(C)) {
    std::fprintf(stderr, "iopoly: error: the layout profile is not written: %s\n", S.message().c_str());
    return;
  }
  if (C->LayoutProfilePath.empty()) {
    std::fprintf(stderr, "iopoly: warning: this program counts its accesses for file layouts "
                         "(-fplugin-arg-iopoly-layout=instrument) but IOPOLY_LAYOUT_PROFILE is not set: the counts "
                         "are not written\n");
    return;
  }
  std::string Path = expandPathTemplate(C->LayoutProfilePath);
  std::string E = writeCounts(Path);
  if (!E.empty())
    std::fprintf(stderr, "iopoly: error: IOPOLY_LAYOUT_PROFILE: %s\n", E.c_str());
}

} // namespace
} // namespace iopoly

extern "C" void __iopoly_layout_profile(const struct iopoly_layout_sites *Table) {
  using namespace iopoly;
  if (!Table || Table->abi != IOPOLY_LAYOUT_SITES_ABI) {
    std::fprintf(stderr, "iopoly: error: a module's layout profile table has ABI %u, this runtime reads %u: "
                         "rebuild it with this iopoly (its counts are not written)\n",
                 Table ? Table->abi : 0u, IOPOLY_LAYOUT_SITES_ABI);
    return;
  }
  std::lock_guard<std::mutex> L(TablesMu);
  if (Tables.empty())
    std::atexit(writeAtExit);
  Tables.push_back(Table);
}
