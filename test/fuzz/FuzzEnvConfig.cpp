//===- FuzzEnvConfig.cpp - libFuzzer target: the IOPOLY_* parser ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The input is an environment, one NAME=VALUE per line. parseConfig must
// return an error naming a variable, or a configuration that keeps the
// documented invariants (stripe a multiple of 64, buffer at least one
// stripe, 1..4096 distinct disk directories). The size, duration and disk
// model parsers are run on every value too. The corpus is
// test/fuzz/corpus/env.
//
//===----------------------------------------------------------------------===//
#include "core/Config.h"

#include "Sizes.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

using namespace iopoly;

namespace {
[[noreturn]] void broken(const char *What, const std::string &Detail) {
  std::fprintf(stderr, "%s: %s\n", What, Detail.c_str());
  std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  std::map<std::string, std::string> Vars;
  size_t Start = 0;
  while (Start <= Text.size()) {
    size_t Nl = Text.find('\n', Start);
    std::string Line = Text.substr(Start, Nl == std::string::npos ? std::string::npos : Nl - Start);
    size_t Eq = Line.find('=');
    if (Eq != std::string::npos)
      Vars[Line.substr(0, Eq)] = Line.substr(Eq + 1);
    if (Nl == std::string::npos)
      break;
    Start = Nl + 1;
  }
  for (const auto &KV : Vars) {
    uint64_t N = 0;
    std::string Why;
    if (parseByteSize(KV.second, N, &Why)) {
      uint64_t M = 0;
      if (N == 0 || !parseByteSize(std::to_string(N), M) || M != N)
        broken("size round trip", KV.second);
    } else if (Why.empty()) {
      broken("size error without a reason", KV.second);
    }
    double D = 0;
    (void)parseDuration(KV.second, D);
    DiskModelParams P;
    (void)parseDiskModel(KV.second, P);
  }
  Config C;
  Status S = parseConfig(
      [&](const char *Name, std::string &Value) {
        auto It = Vars.find(Name);
        if (It == Vars.end())
          return false;
        Value = It->second;
        return true;
      },
      C);
  if (S) {
    if (S.message().find("IOPOLY_") == std::string::npos)
      broken("error without the variable's name", S.message());
    return 0;
  }
  if (C.StripeSize < 64 || C.StripeSize % 64 || C.BufferBytes < C.StripeSize)
    broken("stripe/buffer invariant", std::to_string(C.StripeSize) + " " + std::to_string(C.BufferBytes));
  if (C.numDisks() < 1 || C.numDisks() > 4096)
    broken("disk count", std::to_string(C.numDisks()));
  (void)C.toJSON();
  return 0;
}
