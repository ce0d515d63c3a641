//===- Stencil.h - Whether a SCoP is a stencil ------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A stencil's statement reads one array at three or more subscripts a
// constant apart (A[i-1][j], A[i][j], A[i+1][j]). Transformations that pay
// off on the matrix products do not on those: register tiling multiplies
// the rows a point loop walks beyond the strip windows (heat-3d ran 19x
// slower with it in mode=clo, jacobi-2d 1.4x), and the schedule with rows
// innermost (BandTiling.h) only costs compile time (heat-3d: 12.2 s
// instead of 8.8, never chosen).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_ANALYSIS_STENCIL_H
#define IOPOLY_PLUGIN_ANALYSIS_STENCIL_H

namespace polly {
class Scop;
}

namespace iopoly {

/// Whether some statement of \p S reads one array at three or more
/// subscripts a constant apart.
bool hasStencilStatement(polly::Scop &S);

} // namespace iopoly

#endif
