//===- Options.h - Command-line options of the iopoly plugin ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// All options are llvm::cl options named iopoly-<name> (so `opt -iopoly-mode=`
// and `clang -mllvm -iopoly-mode=` work), and -fplugin-arg-iopoly-<name>=<v>
// maps onto the same options (applyPluginArg). The table in Options.cpp is
// the documented list.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_SUPPORT_OPTIONS_H
#define IOPOLY_PLUGIN_SUPPORT_OPTIONS_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace iopoly {

enum class Mode { Off, Lower, CLO, DroL, DroWP };

/// -iopoly-mode: what the plugin does to disk-resident arrays.
Mode mode();
/// The -iopoly-mode value as the user spells it (`dro-wp`), for remarks.
llvm::StringRef modeName();
/// Striping the compiler assumes (bytes, disks); errors are reported once
/// through \p Error and defaults used.
uint64_t assumedStripe(std::string *Error = nullptr);
unsigned assumedDisks();
/// -iopoly-buffer: the stripe buffer the compiler may assume, 0 if unknown.
uint64_t assumedBuffer(std::string *Error = nullptr);
/// -iopoly-hoist: strip-mine loops at stripe boundaries.
bool hoistEnabled();
/// Whether the mode runs Polly before lowering (clo, dro-l, dro-wp).
bool modeUsesPolly();
/// -iopoly-granularity=stripe (true) or disk: locality units of DRO.
bool stripeGranularity();
/// -iopoly-chunks: a fixed unit of 1/chunks of the largest array instead of
/// the versions chosen at run time (0: automatic).
unsigned chunksPerArray();
/// -iopoly-max-splits: node splits before merging.
unsigned maxSplits();
/// -iopoly-max-sets: groups of tiled loops (loop nests generated) per region.
unsigned maxSets();
/// -iopoly-reassociate: Polly may reorder scalar reductions (results may
/// differ in the last bits, like -ffast-math).
bool reassociateReductions();
/// -iopoly-tile-prefetch: tiled code hints the next tile's stripes.
bool tilePrefetch();
/// -iopoly-expand-scalars: dro-l/dro-wp expand loop-carried scalars
/// (Transform/ScalarExpansion.h).
bool expandScalars();

/// -iopoly-versions: dro-l/dro-wp compile every version (all) or only those
/// the run-time choice takes for some plausible run (plausible, default).
bool allVersions();
/// -iopoly-serpentine: streamed arrays walked back and forth over the tiles.
bool serpentineStreams();
/// -iopoly-band-tiles: tile sizes of the versions that run Polly's schedule
/// tiled for the buffer (empty: none).
std::vector<unsigned> bandTiles();
/// -iopoly-debug-reverse-order (hidden): the LSG order reversed, for tests
/// of the dependence check.
bool debugReverseOrder();
/// -iopoly-print-tiling (hidden): dro-l/dro-wp print their plans to stderr.
bool printTiling();
/// Footprint models describe triangular loops (-iopoly-model-triangles).
bool modelTriangles();

/// -iopoly-mpi: distribute loops over MPI ranks (iopoly-mpicc programs).
bool mpiEnabled();
/// -fplugin-arg-iopoly-threads=on: parallel loops of restructured code run
/// as tasks of the runtime's scheduler (runtime/sched/ParallelLoop.h).
bool threadsEnabled();
/// Distributed loops (paper 2): the mapping and its parameters.
struct MappingOptions {
  int Kind = 3;                ///< IOPOLY_MAP_* of include/iopoly/dist.h
  bool Local = true;           ///< cache: local scheduling (sec. 5.4)
  uint64_t ChunkBytes = 0;     ///< data chunk; 0: the stripe
  unsigned BThresPercent = 10; ///< tolerated imbalance
  unsigned AlphaPercent = 50, BetaPercent = 50;
  unsigned MaxChunks = 256;    ///< iteration chunks clustered at most
  std::string Topology;        ///< compile-time topology file, "" if none
};
MappingOptions mappingOptions();
/// -iopoly-map-print (hidden): the iteration chunks and tables on stderr.
bool mappingPrint();

/// -iopoly-layout: how the file layouts of disk-resident globals are chosen
/// (paper 1, section 4): static (scored at compile time), off (row-major),
/// explicit per array ("V:1,0+W:2,0,1"; the others static), profile
/// (scored with the counts of an instrumented run, -iopoly-layout-profile)
/// or instrument (row-major; the program counts each access site's
/// executions and writes them to IOPOLY_LAYOUT_PROFILE at exit).
enum class LayoutMode { Off, Static, Explicit, Profile, Instrument };
LayoutMode layoutMode();
/// -iopoly-layout-profile: the file layout=profile reads ("" if none).
std::string layoutProfilePath();
/// -iopoly-layout-domain-counts (hidden, default true): weights inside
/// SCoPs are the points of Polly's statement domains.
bool layoutDomainCounts();
/// -iopoly-layout-trial (default true): in clo, dro-l and dro-wp a layout
/// the vote chose is kept only if the cost model of the mode's schedule
/// does not estimate it worse than row-major (Analysis/LayoutTrial.h).
bool layoutTrials();
/// The layout the option requests for array \p Name, if any.
bool requestedLayout(llvm::StringRef Name, llvm::SmallVectorImpl<unsigned> &Perm);

/// After every option is applied: "" or why they do not go together.
std::string checkOptionCombination();

/// Applies one "-fplugin-arg-iopoly-<name>=<value>" (given as
/// "name=value"); returns an error message or "".
std::string applyPluginArg(llvm::StringRef Arg);

} // namespace iopoly

#endif
