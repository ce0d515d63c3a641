//===- Checksum.h - CRC32C of stripes (IOPOLY_CHECKSUM=on) ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// CRC32C (Castagnoli), with the SSE4.2 instruction where the CPU has it and
// a table otherwise. An array created with IOPOLY_CHECKSUM=on keeps one
// 4-byte sum per stripe slot in <disk>/<name>.sum; a fetched stripe whose
// sum differs is an error naming the array, the block and the file.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_CHECKSUM_H
#define IOPOLY_RUNTIME_CHECKSUM_H

#include <cstddef>
#include <cstdint>

namespace iopoly {

/// CRC32C of \p N bytes (crc32c("123456789") == 0xe3069283).
uint32_t crc32c(const void *Data, size_t N, uint32_t Crc = 0);

/// The value stored for a stripe: its CRC32C xor that of an all-zero
/// stripe of the same size (\p ZeroCrc), so that a sum file of zeros - as
/// created - matches the zero-filled data of a new array.
inline uint32_t stripeSum(const void *Data, size_t N, uint32_t ZeroCrc) { return crc32c(Data, N) ^ ZeroCrc; }

/// CRC32C of \p N zero bytes.
uint32_t zeroCrc(size_t N);

} // namespace iopoly

#endif
