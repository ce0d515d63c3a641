//===- NcLayout.cpp - Byte runs and exact copies out of the cache ---------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// netCDF classic, CDF-2 and CDF-5 files store every type big-endian. A
// fixed-size variable is one row-major block at its begin offset; record r
// of a record variable is at begin + r * recsize, row-major over the other
// dimensions.
//
//===----------------------------------------------------------------------===//
#include "NcLayout.h"

#include <cstring>

namespace iopoly {
namespace knowac {

namespace {
/// Advances the odometer over dimensions 0..N-2 (the last is walked by the
/// caller's inner loop); false when it wraps around.
bool nextOuter(std::vector<int64_t> &Idx, const std::vector<int64_t> &Count) {
  for (size_t D = Idx.size() - 1; D-- > 0;) {
    if (++Idx[D] < Count[D])
      return true;
    Idx[D] = 0;
  }
  return false;
}
} // namespace

unsigned ncTypeSize(int T) {
  switch (T) {
  case NcByte:
  case NcChar:
  case NcUByte:
    return 1;
  case NcShort:
  case NcUShort:
    return 2;
  case NcInt:
  case NcUInt:
  case NcFloat:
    return 4;
  case NcDouble:
  case NcInt64:
  case NcUInt64:
    return 8;
  default:
    return 0;
  }
}

std::vector<ByteRun> byteRuns(const VarLayout &V, int64_t RecSize, const Box &B) {
  std::vector<ByteRun> Runs;
  const size_t N = B.rank();
  const int64_t Es = V.ElemSize;
  if (B.elements() == 0)
    return Runs;
  if (N == 0) {
    Runs.push_back({V.Begin, Es, 0});
    return Runs;
  }
  // Byte stride of each dimension in the file (records are RecSize apart,
  // also when the record dimension is the only one).
  std::vector<int64_t> Step(N);
  Step[N - 1] = Es;
  for (size_t D = N - 1; D > 0; --D)
    Step[D - 1] = Step[D] * V.Dims[D];
  if (V.Record)
    Step[0] = RecSize;
  // Innermost piece: count[N-1] elements when they are adjacent, else 1.
  bool InnerContig = B.Stride[N - 1] == 1 && Step[N - 1] == Es;
  int64_t Piece = InnerContig ? B.Count[N - 1] * Es : Es;
  int64_t PiecesInner = InnerContig ? 1 : B.Count[N - 1];
  std::vector<int64_t> Idx(N, 0); // odometer over the outer dimensions 0..N-2
  int64_t Buf = 0;
  while (true) {
    int64_t Off = V.Begin;
    for (size_t D = 0; D + 1 < N; ++D)
      Off += (B.Start[D] + Idx[D] * B.Stride[D]) * Step[D];
    for (int64_t P = 0; P < PiecesInner; ++P) {
      int64_t O = Off + (B.Start[N - 1] + P * B.Stride[N - 1]) * Step[N - 1];
      if (!Runs.empty() && Runs.back().FileOffset + Runs.back().Bytes == O)
        Runs.back().Bytes += Piece;
      else
        Runs.push_back({O, Piece, Buf});
      Buf += Piece;
    }
    if (!nextOuter(Idx, B.Count))
      return Runs;
  }
}

Conv convFor(int XType, int MemNcType) {
  if (XType == MemNcType && ncTypeSize(XType))
    return Conv::Same;
  if (XType == NcFloat && MemNcType == NcDouble)
    return Conv::FloatToDouble;
  return Conv::None;
}

unsigned memElemSize(Conv C, int XType) {
  return C == Conv::FloatToDouble ? 8 : ncTypeSize(XType);
}

namespace {

inline void copyElem(const unsigned char *S, unsigned Es, Conv C, unsigned char *D) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  const bool Swap = false;
#else
  const bool Swap = true;
#endif
  if (C == Conv::FloatToDouble) {
    uint32_t U;
    std::memcpy(&U, S, 4);
    if (Swap)
      U = __builtin_bswap32(U);
    float F;
    std::memcpy(&F, &U, 4);
    double X = double(F); // the same conversion PnetCDF applies
    std::memcpy(D, &X, 8);
    return;
  }
  switch (Es) {
  case 1:
    *D = *S;
    return;
  case 2: {
    uint16_t U;
    std::memcpy(&U, S, 2);
    if (Swap)
      U = __builtin_bswap16(U);
    std::memcpy(D, &U, 2);
    return;
  }
  case 4: {
    uint32_t U;
    std::memcpy(&U, S, 4);
    if (Swap)
      U = __builtin_bswap32(U);
    std::memcpy(D, &U, 4);
    return;
  }
  default: {
    uint64_t U;
    std::memcpy(&U, S, 8);
    if (Swap)
      U = __builtin_bswap64(U);
    std::memcpy(D, &U, 8);
    return;
  }
  }
}

template <class U, U (*Swap)(U)> void swapRunOf(const unsigned char *S, int64_t N, unsigned char *D) {
  for (int64_t I = 0; I < N; ++I) {
    U X;
    std::memcpy(&X, S + I * int64_t(sizeof(U)), sizeof(U));
    X = Swap(X);
    std::memcpy(D + I * int64_t(sizeof(U)), &X, sizeof(U));
  }
}
uint16_t swap16(uint16_t X) { return __builtin_bswap16(X); }
uint32_t swap32(uint32_t X) { return __builtin_bswap32(X); }
uint64_t swap64(uint64_t X) { return __builtin_bswap64(X); }

/// \p N adjacent elements of \p Es bytes, big-endian to native.
void swapRun(const unsigned char *S, unsigned Es, int64_t N, unsigned char *D) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  std::memcpy(D, S, size_t(N) * Es);
#else
  switch (Es) {
  case 2:
    swapRunOf<uint16_t, swap16>(S, N, D);
    return;
  case 4:
    swapRunOf<uint32_t, swap32>(S, N, D);
    return;
  case 8:
    swapRunOf<uint64_t, swap64>(S, N, D);
    return;
  default:
    std::memcpy(D, S, size_t(N) * Es);
  }
#endif
}

} // namespace

void copyOut(const unsigned char *Packed, const Box &Have, unsigned ElemSize, const Box &Want, const int64_t *Imap,
             Conv C, void *Dst) {
  const size_t N = Want.rank();
  const unsigned Ms = C == Conv::FloatToDouble ? 8 : ElemSize;
  unsigned char *Out = static_cast<unsigned char *>(Dst);
  if (N == 0) {
    copyElem(Packed, ElemSize, C, Out);
    return;
  }
  if (C == Conv::Same && !Imap && Want == Have) { // exactly what was read ahead: one run
    swapRun(Packed, ElemSize, int64_t(Have.elements()), Out);
    return;
  }
  // Element strides of the packed source and of the destination.
  std::vector<int64_t> Src(N), DstStep(N);
  Src[N - 1] = 1;
  for (size_t D = N - 1; D > 0; --D)
    Src[D - 1] = Src[D] * Have.Count[D];
  if (Imap) {
    for (size_t D = 0; D < N; ++D)
      DstStep[D] = Imap[D];
  } else {
    DstStep[N - 1] = 1;
    for (size_t D = N - 1; D > 0; --D)
      DstStep[D - 1] = DstStep[D] * Want.Count[D];
  }
  const int64_t InnerSrc = Want.Stride[N - 1] / Have.Stride[N - 1];
  std::vector<int64_t> Idx(N, 0);
  while (true) {
    int64_t S = 0, D = 0;
    for (size_t K = 0; K + 1 < N; ++K) {
      S += ((Want.Start[K] + Idx[K] * Want.Stride[K] - Have.Start[K]) / Have.Stride[K]) * Src[K];
      D += Idx[K] * DstStep[K];
    }
    S += (Want.Start[N - 1] - Have.Start[N - 1]) / Have.Stride[N - 1];
    const unsigned char *Sp = Packed + S * int64_t(ElemSize);
    unsigned char *Dp = Out + D * int64_t(Ms);
    const int64_t Cnt = Want.Count[N - 1], Ds = DstStep[N - 1] * int64_t(Ms), Ss = InnerSrc * int64_t(ElemSize);
    if (C == Conv::Same && Ss == int64_t(ElemSize) && Ds == int64_t(ElemSize))
      swapRun(Sp, ElemSize, Cnt, Dp); // the common case: a contiguous run, vectorized
    else
      for (int64_t I = 0; I < Cnt; ++I, Sp += Ss, Dp += Ds)
        copyElem(Sp, ElemSize, C, Dp);
    if (!nextOuter(Idx, Want.Count))
      return;
  }
}

} // namespace knowac
} // namespace iopoly
