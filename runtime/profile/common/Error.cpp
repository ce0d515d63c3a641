//===- Error.cpp - Formatting and number parsing helpers -------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Error.h"
#include "Sizes.h"

#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace iopoly::prof {

std::string strf(const char *Fmt, ...) {
  va_list Ap;
  va_start(Ap, Fmt);
  va_list Ap2;
  va_copy(Ap2, Ap);
  int N = std::vsnprintf(nullptr, 0, Fmt, Ap);
  va_end(Ap);
  std::string S(N > 0 ? static_cast<size_t>(N) : 0, '\0');
  if (N > 0)
    std::vsnprintf(S.data(), S.size() + 1, Fmt, Ap2);
  va_end(Ap2);
  return S;
}

std::string humanBytes(double B) {
  const char *Units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int U = 0;
  while (std::fabs(B) >= 1024 && U < 4) {
    B /= 1024;
    ++U;
  }
  return U == 0 ? strf("%.0f B", B) : strf("%.1f %s", B, Units[U]);
}

Error parseBytes(const std::string &Text, uint64_t &Out, bool AllowZero) {
  // The grammar is the runtime's (common/Sizes.h), which refuses zero.
  size_t B = Text.find_first_not_of(" \t"), E = Text.find_last_not_of(" \t");
  if (AllowZero && B != std::string::npos && Text.substr(B, E - B + 1).find_first_not_of('0') == std::string::npos) {
    Out = 0;
    return Error();
  }
  std::string Why;
  if (!iopoly::parseByteSize(Text, Out, &Why))
    return Error(Errc::BadInput, Why);
  return Error();
}

Error parseSeconds(const std::string &Text, double &Out) {
  const char *S = Text.c_str();
  char *End = nullptr;
  errno = 0;
  double V = std::strtod(S, &End);
  if (End == S || errno || !std::isfinite(V) || V < 0)
    return Error(Errc::BadInput, strf("'%s' is not a duration (e.g. 8ms, 80us, 1.5s)", Text.c_str()));
  std::string Unit(End);
  double Mul;
  if (Unit == "s" || Unit.empty())
    Mul = 1;
  else if (Unit == "ms")
    Mul = 1e-3;
  else if (Unit == "us")
    Mul = 1e-6;
  else if (Unit == "ns")
    Mul = 1e-9;
  else
    return Error(Errc::BadInput, strf("'%s' has an unknown time unit (s, ms, us, ns)", Text.c_str()));
  Out = V * Mul;
  return Error();
}

} // namespace iopoly::prof
