//===- Sizes.h - The one grammar of byte sizes --------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Compiled into both the runtime (IOPOLY_STRIPE, IOPOLY_BUFFER, bw= of the
// disk model) and the plugin (-fplugin-arg-iopoly-stripe/buffer), so that
// the same text means the same number of bytes everywhere. Plain C++17, no
// dependency on LLVM or on the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_COMMON_SIZES_H
#define IOPOLY_COMMON_SIZES_H

#include <cstdint>
#include <string>

namespace iopoly {

/// Parses "4096", "64K", "64k", "64KB", "64KiB", "1M", "3G", "2T", "512B"
/// (K/M/G/T are powers of 1024; blanks around are ignored) into \p Out.
/// Zero, junk, unknown suffixes and values above 2^64-1 are errors: returns
/// false and, if \p Why is given, a reason that quotes \p Text.
bool parseByteSize(const std::string &Text, uint64_t &Out, std::string *Why = nullptr);

/// Whether \p Bytes is a valid stripe size: at least 64 and a multiple of
/// 64 (compiled code keeps an access of up to 64 bytes inside one stripe
/// only if stripes start at multiples of 64). The reason otherwise.
bool checkStripeSize(uint64_t Bytes, std::string *Why = nullptr);

} // namespace iopoly

#endif
