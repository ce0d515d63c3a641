//===- LayoutProfile.cpp - Writing the counts of a layout profile ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 1, section 4's profile-based layout choice, runtime side: modules
// built with -fplugin-arg-iopoly-layout=instrument register their access
// sites and counters (__iopoly_layout_profile, include/iopoly/abi.h); at
// exit the counts go to IOPOLY_LAYOUT_PROFILE in the text format that
// -fplugin-arg-iopoly-layout=profile reads (plugin/Support/LayoutProfile.h).
// The file is written through OutputFile (core/OutputFile.h), so that a
// crash never leaves half a profile and a symbolic link stays one.
//
//===----------------------------------------------------------------------===//
#include "core/Config.h"
#include "core/OutputFile.h"
#include "iopoly/abi.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace iopoly {
namespace {

std::mutex TablesMu;
std::vector<const iopoly_layout_sites *> Tables;

/// Writes every registered table's counts to \p Path (OutputFile rules).
Status writeCounts(const std::string &Path) {
  std::string Text = std::string(IOPOLY_LAYOUT_PROFILE_HEADER) + "\n# unit array function site kind count where\n";
  for (const iopoly_layout_sites *T : Tables)
    for (uint32_t K = 0; K < T->num_sites; ++K) {
      const iopoly_layout_site &S = T->sites[K];
      unsigned long long N = __atomic_load_n(&T->counts[K], __ATOMIC_RELAXED);
      Text += format("%s %s %s %u %s %llu %s\n", T->unit, S.array, S.function, S.site, S.store ? "store" : "load", N,
                     S.where);
    }
  return writeWholeFile(Path, Text, "the layout profile");
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
  if (Status S = writeCounts(Path))
    std::fprintf(stderr, "iopoly: error: IOPOLY_LAYOUT_PROFILE: %s\n", S.message().c_str());
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
