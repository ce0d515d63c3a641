//===- DiskModel.cpp - Deterministic model of T striped disks --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "io/DiskModel.h"

#include <algorithm>

namespace iopoly {

DiskModel::DiskModel(const DiskModelParams &P, size_t NumDisks)
    : Params(P), Disks(NumDisks) {}

double DiskModel::serviceTime(size_t Bytes, bool Sequential) const {
  if (!Params.enabled())
    return 0;
  return (Sequential ? Params.SeqLatencySec : Params.LatencySec) +
         static_cast<double>(Bytes) / Params.BytesPerSec;
}

DiskModel::Request DiskModel::submit(size_t Disk, uint64_t FileId,
                                     uint64_t Offset, size_t Bytes,
                                     double Issue) {
  if (!Params.enabled())
    return {Issue, 0};
  DiskState &D = Disks[Disk];
  bool Seq = D.LastFile == FileId && D.LastEnd == Offset;
  double Service = serviceTime(Bytes, Seq);
  double Start = std::max(Issue, D.FreeAt);
  D.FreeAt = Start + Service;
  D.Busy += Service;
  D.LastFile = FileId;
  D.LastEnd = Offset + Bytes;
  return {D.FreeAt, Service};
}

void DiskModel::reset() {
  for (DiskState &D : Disks)
    D = DiskState();
  AppClock = 0;
}

} // namespace iopoly
