//===- Region.cpp - Boxes and shape-relative region keys ------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Region.h"

#include <cstdlib>
#include <numeric>

namespace iopoly {
namespace knowac {

uint64_t Box::elements() const {
  uint64_t N = 1;
  for (int64_t C : Count)
    N *= uint64_t(C < 0 ? 0 : C);
  return N;
}

bool Box::contains(const Box &O) const {
  if (O.rank() != rank())
    return false;
  for (size_t D = 0; D < rank(); ++D) {
    if (O.Count[D] <= 0)
      return false; // empty requests are never served from a cache
    int64_t First = O.Start[D], Last = O.Start[D] + (O.Count[D] - 1) * O.Stride[D];
    if (First < Start[D] || Last > Start[D] + (Count[D] - 1) * Stride[D])
      return false;
    if ((First - Start[D]) % Stride[D] != 0)
      return false;
    if (O.Count[D] > 1 && O.Stride[D] % Stride[D] != 0)
      return false;
  }
  return true;
}

bool Box::overlaps(const Box &O) const {
  if (O.rank() != rank())
    return true; // cannot tell: say yes
  for (size_t D = 0; D < rank(); ++D) {
    if (Count[D] <= 0 || O.Count[D] <= 0)
      return false;
    int64_t A0 = Start[D], A1 = Start[D] + (Count[D] - 1) * Stride[D];
    int64_t B0 = O.Start[D], B1 = O.Start[D] + (O.Count[D] - 1) * O.Stride[D];
    if (A1 < B0 || B1 < A0)
      return false;
  }
  return true;
}

std::string Box::str() const {
  std::string S = "[";
  for (size_t D = 0; D < rank(); ++D) {
    S += (D ? ", " : "") + std::to_string(Start[D]) + ":" + std::to_string(Count[D]);
    if (Stride[D] != 1)
      S += ":" + std::to_string(Stride[D]);
  }
  return S + "]";
}

namespace {

std::string fraction(int64_t Num, int64_t Den) {
  if (Num == 0)
    return "0";
  int64_t G = std::gcd(Num, Den);
  return std::to_string(Num / G) + "/" + std::to_string(Den / G);
}

/// "a/b" or "0" -> the index it denotes in a dimension of \p Len.
bool parseFraction(const std::string &T, int64_t Len, int64_t &Out) {
  if (T == "0") {
    Out = 0;
    return true;
  }
  size_t Slash = T.find('/');
  if (Slash == std::string::npos)
    return false;
  char *E1 = nullptr, *E2 = nullptr;
  long long Num = std::strtoll(T.c_str(), &E1, 10);
  long long Den = std::strtoll(T.c_str() + Slash + 1, &E2, 10);
  if (E1 != T.c_str() + Slash || *E2 || Den <= 0 || Num < 0)
    return false;
  __int128 P = (__int128)Len * Num;
  if (P % Den != 0)
    return false;
  Out = int64_t(P / Den);
  return true;
}

} // namespace

std::string regionKey(const Box &B, const Shape &S) {
  std::string K;
  for (size_t D = 0; D < B.rank(); ++D) {
    if (D)
      K += ",";
    int64_t Len = D < S.Len.size() ? S.Len[D] : 0;
    if (B.Start[D] == 0 && B.Count[D] == Len && B.Stride[D] == 1 && Len > 0) {
      K += "*";
      continue;
    }
    if (B.Count[D] == 1) {
      K += "=" + std::to_string(B.Start[D]);
      continue;
    }
    if (Len <= 0) { // no shape to be relative to: absolute
      K += "@" + std::to_string(B.Start[D]) + "+" + std::to_string(B.Count[D]);
    } else {
      K += fraction(B.Start[D], Len) + "+" + fraction(B.Count[D], Len);
    }
    if (B.Stride[D] != 1)
      K += ":" + std::to_string(B.Stride[D]);
  }
  return K;
}

bool materialize(const std::string &Key, const Shape &S, Box &Out) {
  Box B;
  if (Key.empty() || S.Len.empty()) { // a scalar variable: the empty box
    if (!Key.empty() || !S.Len.empty())
      return false;
    Out = B;
    return true;
  }
  size_t Pos = 0;
  size_t D = 0;
  while (true) {
    size_t Comma = Key.find(',', Pos);
    std::string T = Key.substr(Pos, Comma == std::string::npos ? std::string::npos : Comma - Pos);
    if (D >= S.Len.size())
      return false;
    int64_t Len = S.Len[D];
    int64_t Start = 0, Count = 0, Stride = 1;
    if (T == "*") {
      Count = Len;
    } else if (!T.empty() && T[0] == '=') {
      char *E = nullptr;
      Start = std::strtoll(T.c_str() + 1, &E, 10);
      if (*E || T.size() < 2)
        return false;
      Count = 1;
    } else {
      size_t Colon = T.find(':');
      if (Colon != std::string::npos) {
        char *E = nullptr;
        Stride = std::strtoll(T.c_str() + Colon + 1, &E, 10);
        if (*E || Stride < 1)
          return false;
        T.resize(Colon);
      }
      size_t Plus = T.find('+');
      if (Plus == std::string::npos)
        return false;
      std::string A = T.substr(0, Plus), C = T.substr(Plus + 1);
      if (!A.empty() && A[0] == '@') {
        char *E1 = nullptr, *E2 = nullptr;
        Start = std::strtoll(A.c_str() + 1, &E1, 10);
        Count = std::strtoll(C.c_str(), &E2, 10);
        if (*E1 || *E2)
          return false;
      } else if (!parseFraction(A, Len, Start) || !parseFraction(C, Len, Count)) {
        return false;
      }
    }
    if (Start < 0 || Count < 1 || Start + (Count - 1) * Stride >= Len)
      return false;
    B.Start.push_back(Start);
    B.Count.push_back(Count);
    B.Stride.push_back(Stride);
    ++D;
    if (Comma == std::string::npos)
      break;
    Pos = Comma + 1;
  }
  if (D != S.Len.size())
    return false;
  Out = std::move(B);
  return true;
}

} // namespace knowac
} // namespace iopoly
