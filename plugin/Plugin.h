//===- Plugin.h - Registration of the iopoly passes ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_PLUGIN_H
#define IOPOLY_PLUGIN_PLUGIN_H

namespace llvm {
class PassBuilder;
}

namespace iopoly {
/// Registers every iopoly pass by name and adds them to the default
/// pipelines according to -iopoly-mode. Serves both clang (through
/// CodeGenOptions::PassBuilderCallbacks) and opt (llvmGetPassPluginInfo).
void registerIOPolyPasses(llvm::PassBuilder &PB);
} // namespace iopoly

#endif
