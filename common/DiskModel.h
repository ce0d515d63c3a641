//===- DiskModel.h - The hdd disk model's parameters ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// IOPOLY_DISK_MODEL=hdd: 10,000 RPM disks as in paper 2, Table 1, about
// 4.5 ms seek plus 3 ms rotational delay for a random request, 120 MiB/s
// media rate. One definition for the runtime's model (core/Config) and the
// compiler's pruning of versions it would never choose (DiskReuse).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_COMMON_DISKMODEL_H
#define IOPOLY_COMMON_DISKMODEL_H

namespace iopoly {

constexpr double HddLatencySec = 7.5e-3;    ///< a random request
constexpr double HddSeqLatencySec = 0.2e-3; ///< a request continuing the last one on its disk
constexpr double HddBytesPerSec = 120.0 * (1 << 20);

} // namespace iopoly

#endif
