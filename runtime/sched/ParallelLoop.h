//===- ParallelLoop.h - Parallel loops of restructured code as tasks -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// With -fplugin-arg-iopoly-threads=on, Polly generates the loops its
// dependences prove parallel in the restructured schedule as outlined
// functions driven by four entry points (the GOMP work-sharing protocol:
// start, next chunk, end of a thread's share, end), which the plugin
// points at the __iopoly_par_* functions here (include/iopoly/abi.h). Each
// iteration is one task: in a data-tiled loop, one tile (a locality-set
// instance). Its disk map is the disks of the unit it covers (iteration v
// of a region tiled by units of U bytes: stripes v*U/S .. ((v+1)*U-1)/S,
// round-robin over the disks), its footprint the stripes one tile of the
// chosen version keeps (iopoly/tiling.h); the tasks are handed out by the
// IOPOLY_SCHED policy with the buffer's capacity rule, on IOPOLY_THREADS
// threads. Iterations of one parallel loop have no dependence between them
// (Polly proved it); the loops themselves run one after the other.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_SCHED_PARALLELLOOP_H
#define IOPOLY_SCHED_PARALLELLOOP_H

#include <cstdint>

namespace iopoly::sched {

/// __iopoly_pick_version calls this: the next parallel loops on this
/// thread belong to a region tiled by units of \p UnitBytes (0: the
/// original order, no known map) whose tiles keep \p NeedStripes stripes.
void noteTiledRegion(uint64_t UnitBytes, uint64_t NeedStripes);

} // namespace iopoly::sched

#endif
