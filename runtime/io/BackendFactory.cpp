//===- BackendFactory.cpp - Choosing the backend (IOPOLY_BACKEND) ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The MPI-IO backend lives in its own module, libiopoly_mpiio.so, loaded
// only when IOPOLY_BACKEND=mpiio: programs that never use MPI do not link
// or start it.
//
//===----------------------------------------------------------------------===//
#include "io/Backend.h"
#include "core/Config.h"

#include <dlfcn.h>

namespace iopoly {

/// Signature of the factory the MPI-IO module exports.
using MpiioFactory = Backend *(*)(const Config *, std::string *);

static std::string defaultModulePath() {
  Dl_info Info;
  if (dladdr(reinterpret_cast<void *>(&defaultModulePath), &Info) && Info.dli_fname) {
    std::string Self = Info.dli_fname;
    size_t Slash = Self.rfind('/');
    if (Slash != std::string::npos)
      return Self.substr(0, Slash) + "/libiopoly_mpiio.so";
  }
  return "libiopoly_mpiio.so";
}

Status createBackend(const Config &C, std::unique_ptr<Backend> &Out) {
  if (C.Backend == "posix") {
    Out = createPosixBackend(C);
    return {};
  }
  std::string Path = C.MpiioModule.empty() ? defaultModulePath() : C.MpiioModule;
  void *H = dlopen(Path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!H)
    return Status::error(format("IOPOLY_BACKEND=mpiio: cannot load the MPI-IO module '%s': %s "
                                "(was iopoly built with MPI? set IOPOLY_MPIIO_MODULE to its path)",
                                Path.c_str(), dlerror()));
  auto Make = reinterpret_cast<MpiioFactory>(dlsym(H, "iopoly_mpiio_backend"));
  if (!Make)
    return Status::error(format("IOPOLY_BACKEND=mpiio: '%s' does not export iopoly_mpiio_backend",
                                Path.c_str()));
  std::string Err;
  Backend *Made = Make(&C, &Err);
  if (!Made)
    return Status::error("IOPOLY_BACKEND=mpiio: " + Err);
  Out.reset(Made);
  return {};
}

} // namespace iopoly
