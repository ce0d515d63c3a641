//===- Sizes.cpp - The one grammar of byte sizes ---------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Sizes.h"

namespace iopoly {

namespace {
bool fail(std::string *Why, std::string Msg) {
  if (Why)
    *Why = std::move(Msg);
  return false;
}
char upper(char C) { return C >= 'a' && C <= 'z' ? static_cast<char>(C - 'a' + 'A') : C; }
} // namespace

bool parseByteSize(const std::string &Text, uint64_t &Out, std::string *Why) {
  size_t B = Text.find_first_not_of(" \t");
  size_t E = Text.find_last_not_of(" \t");
  std::string T = B == std::string::npos ? "" : Text.substr(B, E - B + 1);
  const std::string Quoted = "'" + Text + "'";
  size_t I = 0;
  uint64_t N = 0;
  bool Overflow = false;
  while (I < T.size() && T[I] >= '0' && T[I] <= '9') {
    unsigned D = static_cast<unsigned>(T[I] - '0');
    if (N > (UINT64_MAX - D) / 10)
      Overflow = true;
    else
      N = N * 10 + D;
    ++I;
  }
  if (I == 0)
    return fail(Why, Quoted + " is not a size (examples: 65536, 64K, 1M, 2G)");
  std::string Suffix = T.substr(I);
  unsigned Shift = 0;
  if (!Suffix.empty()) {
    char U = upper(Suffix[0]);
    std::string Rest = Suffix.substr(1);
    if (U == 'B' && Rest.empty())
      Shift = 0;
    else if ((U == 'K' || U == 'M' || U == 'G' || U == 'T') &&
             (Rest.empty() || Rest == "B" || Rest == "b" || Rest == "iB" || Rest == "ib"))
      Shift = U == 'K' ? 10 : U == 'M' ? 20 : U == 'G' ? 30 : 40;
    else
      return fail(Why, Quoted + " has an unknown size suffix '" + Suffix + "' (use K, M, G or T)");
  }
  if (Overflow || (Shift && N > (UINT64_MAX >> Shift)))
    return fail(Why, "size " + Quoted + " is too large");
  if (N == 0)
    return fail(Why, "size " + Quoted + " must be positive");
  Out = N << Shift;
  return true;
}

bool checkStripeSize(uint64_t Bytes, std::string *Why) {
  if (Bytes < 64)
    return fail(Why, "stripe size " + std::to_string(Bytes) + " is below the minimum of 64 bytes");
  if (Bytes % 64)
    return fail(Why, "stripe size " + std::to_string(Bytes) + " is not a multiple of 64 bytes");
  return true;
}

} // namespace iopoly
