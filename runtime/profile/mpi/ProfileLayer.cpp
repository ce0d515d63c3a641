//===- ProfileLayer.cpp - libiopoly_profile.so: log, change nothing --------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The profiler passes every access through as the program made it (shared
// and ordered ones at their exact offsets) and logs it. Without
// IOPOLY_PROFILE it stays off and costs one table lookup per call.
//
//===----------------------------------------------------------------------===//
#include "mpi/Interposer.h"

namespace iopoly::prof {

namespace {
class ProfileLayer final : public Layer {
public:
  const char *name() const override { return "the profiler (libiopoly_profile.so)"; }
  bool start() override { return runtime().Logging; }
};
} // namespace

Layer *createLayer() {
  static ProfileLayer L;
  return &L;
}

} // namespace iopoly::prof
