//===- Alloc.h - Disk-resident memory for the C API and for globals -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// iopoly_alloc and the constructor of disk-resident globals share one
// implementation; a global passes ArrayOrigin::Global, so that files an
// earlier run left with other settings are created again when (and only
// when) they were made by a global too (core/ArrayFiles.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_ALLOC_H
#define IOPOLY_RUNTIME_ALLOC_H

#include "core/Array.h"

namespace iopoly {

/// Opens or creates the 1-D byte array \p Name of \p Bytes bytes with
/// \p Flags (IOPOLY_CREATE, optionally | IOPOLY_TRUNC) and reserves its
/// arena range; the base address in \p Out.
Status allocArray(const char *Name, size_t Bytes, int Flags, ArrayOrigin Origin, void *&Out);
/// The same for an array of \p NDims dimensions \p Dims of \p ElemSize-byte
/// elements (a global keeps its declared shape in its file header).
Status allocArray(const char *Name, size_t ElemSize, int NDims, const size_t *Dims, const int *Layout, int Flags,
                  ArrayOrigin Origin,
                  void *&Out);

} // namespace iopoly

#endif
