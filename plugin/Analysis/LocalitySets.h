//===- LocalitySets.h - Set families and their LSG on a SCoP ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Paper 1, section 3, lifted from single locality sets to *set families*.
// The paper's locality set Q_Lambda holds the instances that touch the
// units (disks, stripes) of the map Lambda; with one graph node per set,
// the number of nodes grows with the data and the buffer, and so does the
// compile time. Here a node is a family: the instances of one statement
// (or of a piece of one, after a split), parametric in the unit index u,
// so that member u of the family is the paper's set of the instances
// whose pivot access falls in unit u (DataTiling.h picks the unit size at
// run time). A family's map Lambda has one bit per disk-resident array it
// touches. Edges are Polly's dependences between families. Cycles are
// broken as in the paper: a satisfactory split (NodeSplit.h) of a node of
// the feedback vertex set, else node merging (LSG.h, mergeNodes); the
// acyclic graph is then ordered by minimal Hamming distance (Fig. 10), so
// that families over the same arrays become neighbours and can share one
// loop over units.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_ANALYSIS_LOCALITYSETS_H
#define IOPOLY_PLUGIN_ANALYSIS_LOCALITYSETS_H

#include "Support/LSG.h"

#include "isl/isl-noexceptions.h"

#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
class Value;
}
namespace polly {
class Scop;
class ScopStmt;
class ScopArrayInfo;
} // namespace polly

namespace iopoly {

/// A disk-resident array of the SCoP with a known row-major byte layout.
struct DiskArray {
  const polly::ScopArrayInfo *SAI = nullptr;
  std::string Name;              ///< the user's name (pragma), for remarks
  isl::aff Byte;                 ///< A[a0, ..., an] -> byte offset in the file layout
  std::vector<uint64_t> Stride;  ///< bytes per step of each subscript
  std::vector<uint64_t> Extent;  ///< subscript range the SCoP touches (0: unknown)
  uint64_t Bytes = 0;            ///< bytes between the first and last touched element, 0 if unknown
  bool NominalSize = false;      ///< Bytes holds for sizes given at run time modelled at NominalSize
  unsigned ElemBytes = 0;
};

/// Finds the SCoP's disk-resident arrays; "" or why it cannot be tiled.
std::string findDiskArrays(polly::Scop &S, std::vector<DiskArray> &Out);

/// Whether the memory \p Ptr points to is disk-resident (a pragma's global
/// or marked pointer, through GEPs, casts, phis and selects); \p Name gets
/// the pragma's name when known.
bool diskResidentPointer(const llvm::Value *Ptr, std::string *Name);

/// Whether \p Base, a SCoP array's base pointer, is disk-resident (a
/// pragma's global or a marked pointer, through the phis, selects and stack
/// slots of an earlier SCoP's code generation).
bool isDiskResidentBase(const llvm::Value *Base);

/// The user's name of a SCoP array: the pragma's name of a disk-resident
/// array, else the IR name, else "an array".
std::string userArrayName(const polly::ScopArrayInfo *SAI);

/// A node of the family LSG: instances of one or more statements.
struct Family {
  std::vector<std::pair<polly::ScopStmt *, isl::set>> Parts; ///< statement, its instances here
  uint64_t Lambda = 0; ///< one bit per disk-resident array touched
  std::string Label;   ///< statement names, for printing

  isl::union_set instances() const;
};

struct FamilyGraph {
  std::vector<Family> Nodes;
  LSG Graph;
  std::vector<unsigned> Order; ///< minimal-Hamming order (paper 1, Fig. 10)
  unsigned Splits = 0, Merges = 0;
};

/// Builds the families of the instances in \p Within, the LSG over \p Deps,
/// removes its cycles (at most \p MaxSplits splits, then merges) and orders
/// it. \p Arrays gives the bits of the maps.
FamilyGraph buildFamilies(polly::Scop &S, const isl::union_set &Within, const isl::union_map &Deps,
                          const std::vector<DiskArray> &Arrays, unsigned MaxSplits);

/// Human-readable dump: arrays (bits), families (map, instance sets), edges,
/// Hamming order and its distance against the original order.
void printFamilies(llvm::raw_ostream &OS, const FamilyGraph &G, const std::vector<DiskArray> &Arrays);

} // namespace iopoly

#endif
