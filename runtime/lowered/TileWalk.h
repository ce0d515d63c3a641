//===- TileWalk.h - Schedule-informed prefetch of restructured code -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Restructured loops (plugin/Analysis/DataTiling.h) walk every array unit
// by unit (runs of U bytes), each unit once, forwards. Once
// __iopoly_pick_version has chosen a tiled version with unit U, the slow
// path of lowered accesses reports the stripes it attaches; when a walk
// enters unit u of an array right after unit u-1, the stripes of unit u+1
// (the next set) are hinted to the I/O threads while unit u computes.
// Inside units, each of a few streams per array that goes forward a stripe
// at a time (the rows a tile reads again, such as syr2k's rows of A and B)
// hints the next sixteenth of the buffer ahead of it; a task shares that
// window with the tasks running beside it. Versions in Polly's tiles walk
// no units: where their model can spare the room (TileVersions.cpp), only
// their streams read ahead (TileWalkStreamsOnly).
// Threads that run tiles as tasks also hint, at a tile's first touch of an
// array, the rest of the unit it touched and the next unit
// (tileWalkTaskBegin). Prefetch
// accuracy (hints used / issued) is in the stats.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_LOWERED_TILEWALK_H
#define IOPOLY_RUNTIME_LOWERED_TILEWALK_H

#include "iopoly.h"

#include <cstddef>
#include <cstdint>

namespace iopoly {

/// Unit size (bytes) of the tiled version this thread runs, 0 if none: one
/// load and one compare on the slow path when off.
extern thread_local uint64_t TileWalkUnit;

/// TileWalkUnit of a version that walks no units (Polly's tiles, where
/// their model can spare the room): only its streams read ahead.
constexpr uint64_t TileWalkStreamsOnly = ~uint64_t(0);

/// Sets (or with 0 ends) the unit of this thread's walk.
void tileWalkBegin(uint64_t UnitBytes);

/// This thread starts a task of a parallel region (threads=on,
/// runtime/sched/ParallelLoop.cpp): a tile whose units it has not walked
/// into. The first stripe it touches of each array then hints the rest of
/// that array's unit, so that the tile's requests wait in the queues of all
/// its disks at once instead of one demand fetch after another (the
/// forward-walk rule alone never fires when a thread's tiles are not
/// consecutive), and, with \p LookAhead (the buffer holds another task
/// beside the running ones), the next unit, which the next task needs when
/// they are (one thread, or a policy that hands them out in order).
/// \p Running tasks run now, this one included: the task's streams read
/// ahead only when it runs alone or the buffer has room for another task,
/// each by its share of the window.
void tileWalkTaskBegin(bool LookAhead, unsigned Running);

/// Stripe \p Stripe of \p A was just attached by lowered code.
void tileWalkSeen(iopoly_array *A, size_t Stripe);

} // namespace iopoly

#endif
