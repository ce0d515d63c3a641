//===- ClusterModel.h - A modeled cluster replaying profile logs -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 4, section 3: nodes with a local disk each and a central RAID
// behind one network link shared by all nodes. On one machine the nodes are
// directories (the node-local directory a rank used, or the rank itself when
// it used none) and the central disk is the shared file. The model replays
// the access records of a run (a profile, or the log the partition layer
// wrote while applying a plan, where every piece says where it was served):
//
//  - every device is a FIFO queue: the central disk, the central link, one
//    disk per node and one network port per node (for broadcast updates and
//    requests served by another rank's local file);
//  - a request costs latency (or the shorter sequential latency when it
//    continues the previous request of that device in the same file) plus
//    bytes / bandwidth on each device it crosses; a central request crosses
//    the link and the central disk (pipelined: done when both are done);
//  - ranks have virtual clocks; compute is free; the rank with the earliest
//    clock goes next (ties by rank), so the result is the same on every run;
//  - collective calls (and barriers on all ranks) synchronize the ranks of
//    their communicator; the central pieces of a collective read or write
//    are pooled, sorted and coalesced as two-phase collective I/O would,
//    and served in collective-buffer-sized requests.
//
// Nonblocking accesses are modeled as blocking at issue (conservative).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PROFILE_MODEL_CLUSTERMODEL_H
#define IOPOLY_PROFILE_MODEL_CLUSTERMODEL_H

#include "common/Error.h"
#include "log/LogReader.h"

#include <string>
#include <vector>

namespace iopoly::prof {

struct DeviceParams {
  double Latency = 0;    ///< seconds per request
  double SeqLatency = 0; ///< seconds when it continues the previous request
  double ReadBw = 0;     ///< bytes per second (0: infinitely fast)
  double WriteBw = 0;    ///< bytes per second for writes (0: ReadBw)
  double serviceTime(uint64_t Bytes, bool Write, bool Seq) const;
};

struct ClusterParams {
  DeviceParams Central{1e-3, 5e-5, 18e6, 12e6};   ///< RAID behind NFS (paper 4, Table 3)
  DeviceParams Link{3e-4, 3e-4, 11e6, 11e6};      ///< 100 Mb/s switched Ethernet
  DeviceParams Local{2e-3, 1e-4, 9e6, 4.5e6};     ///< node IDE disk
  DeviceParams Port{3e-4, 3e-4, 11e6, 11e6};      ///< node network port
  uint64_t CollectiveBuffer = 16u << 20;          ///< two-phase buffer per request
};

/// "latency=1ms,seq=50us,bw=18M,wbw=12M" (any subset; others unchanged).
Error parseDevice(const std::string &Text, const std::string &What, DeviceParams &Out);
std::string deviceString(const DeviceParams &D);

struct OpTotals {
  uint64_t Bytes = 0, Calls = 0;
  double Seconds = 0; ///< summed latency of those calls over ranks
};

struct RankResult {
  double Clock = 0; ///< when the rank finished (modeled seconds)
  OpTotals Read, Write;
  double OtherSeconds = 0; ///< open, close (gather), sync, set_size, ...
};

struct ModelResult {
  uint32_t NRanks = 0;
  double Makespan = 0; ///< modeled run time (I/O only; compute is free)
  std::vector<RankResult> Ranks;
  OpTotals Read, Write;          ///< program accesses
  double ReadBandwidth = 0;      ///< sum over ranks of bytes / time in reads
  double WriteBandwidth = 0;
  uint64_t BytesByTarget[4] = {0, 0, 0, 0}; ///< program + internal, by Target
  uint64_t InternalBytes = 0;   ///< staging, gather, broadcast
  double CentralBusy = 0, LinkBusy = 0, LocalBusyMax = 0;
  uint64_t CentralRequests = 0;
  std::vector<std::string> Notes;
};

Error modelRun(const Run &R, const ClusterParams &P, ModelResult &Out);

} // namespace iopoly::prof

#endif
