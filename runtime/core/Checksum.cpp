//===- Checksum.cpp - CRC32C of stripes (IOPOLY_CHECKSUM=on) ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "core/Checksum.h"

#include <cstring>
#include <vector>

namespace iopoly {

namespace {

struct Table {
  uint32_t T[8][256];
  Table() {
    for (uint32_t I = 0; I < 256; ++I) {
      uint32_t C = I;
      for (int K = 0; K < 8; ++K)
        C = C & 1 ? (C >> 1) ^ 0x82f63b78u : C >> 1;
      T[0][I] = C;
    }
    for (uint32_t I = 0; I < 256; ++I)
      for (int S = 1; S < 8; ++S)
        T[S][I] = (T[S - 1][I] >> 8) ^ T[0][T[S - 1][I] & 0xff];
  }
};

/// Slicing by 8: about 1.5 GB/s without special instructions.
uint32_t crcSoftware(const unsigned char *P, size_t N, uint32_t C) {
  static const Table Tb;
  while (N >= 8) {
    uint64_t W;
    std::memcpy(&W, P, 8);
    W ^= C;
    C = Tb.T[7][W & 0xff] ^ Tb.T[6][(W >> 8) & 0xff] ^ Tb.T[5][(W >> 16) & 0xff] ^ Tb.T[4][(W >> 24) & 0xff] ^
        Tb.T[3][(W >> 32) & 0xff] ^ Tb.T[2][(W >> 40) & 0xff] ^ Tb.T[1][(W >> 48) & 0xff] ^ Tb.T[0][W >> 56];
    P += 8;
    N -= 8;
  }
  while (N--)
    C = (C >> 8) ^ Tb.T[0][(C ^ *P++) & 0xff];
  return C;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t crcHardware(const unsigned char *P, size_t N, uint32_t C) {
  uint64_t C64 = C;
  while (N >= 8) {
    uint64_t W;
    std::memcpy(&W, P, 8);
    C64 = __builtin_ia32_crc32di(C64, W);
    P += 8;
    N -= 8;
  }
  C = static_cast<uint32_t>(C64);
  while (N--)
    C = __builtin_ia32_crc32qi(C, *P++);
  return C;
}
bool hasHardware() {
  static const bool Has = __builtin_cpu_supports("sse4.2");
  return Has;
}
#endif

} // namespace

uint32_t crc32c(const void *Data, size_t N, uint32_t Crc) {
  const unsigned char *P = static_cast<const unsigned char *>(Data);
  uint32_t C = ~Crc;
#if defined(__x86_64__)
  if (hasHardware())
    return ~crcHardware(P, N, C);
#endif
  return ~crcSoftware(P, N, C);
}

uint32_t zeroCrc(size_t N) {
  static const std::vector<unsigned char> Zeros(64 << 10, 0);
  uint32_t C = 0;
  while (N) {
    size_t K = N < Zeros.size() ? N : Zeros.size();
    C = crc32c(Zeros.data(), K, C);
    N -= K;
  }
  return C;
}

} // namespace iopoly
