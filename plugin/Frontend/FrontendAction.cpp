//===- FrontendAction.cpp - The clang -fplugin entry of iopoly -------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A PluginASTAction that runs before the main action: it applies the
// -fplugin-arg-iopoly-* options, adds the DiskResidentDecls consumer, and
// registers the IR passes in the code generator's pass builder (the same
// registration function that llvmGetPassPluginInfo gives opt). Registration
// happens only when clang is present in the process: opt loads this module
// too, and there the (weak) clang symbols are absent.
//
//===----------------------------------------------------------------------===//
#include "Frontend/DiskResidentDecls.h"
#include "Frontend/PragmaHandler.h"
#include "Plugin.h"
#include "Support/Options.h"

#include "clang/Basic/CodeGenOptions.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"

#include <dlfcn.h>
#include <new>

using namespace clang;

namespace iopoly {
namespace {

class IOPolyAction : public PluginASTAction {
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI, llvm::StringRef) override {
    CI.getCodeGenOpts().PassBuilderCallbacks.push_back(registerIOPolyPasses);
    // Source locations in the IR (not in the object file), as -Rpass asks
    // for: the lowering names the loop of each access site for the
    // runtime's thrash warnings, and remarks point at source lines.
    if (mode() != Mode::Off && CI.getCodeGenOpts().getDebugInfo() == llvm::codegenoptions::NoDebugInfo)
      CI.getCodeGenOpts().setDebugInfo(llvm::codegenoptions::LocTrackingOnly);
    return std::make_unique<DiskResidentDecls>(CI);
  }

  bool ParseArgs(const CompilerInstance &CI, const std::vector<std::string> &Args) override {
    DiagnosticsEngine &D = CI.getDiagnostics();
    bool Ok = true;
    for (const std::string &A : Args) {
      std::string Err = applyPluginArg(A);
      if (!Err.empty()) {
        D.Report(D.getCustomDiagID(DiagnosticsEngine::Error, "%0")) << Err;
        Ok = false;
      }
    }
    if (std::string Err = checkOptionCombination(); Ok && !Err.empty()) {
      D.Report(D.getCustomDiagID(DiagnosticsEngine::Error, "%0")) << Err;
      Ok = false;
    }
    return Ok;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }
};

using ActionAdd = FrontendPluginRegistry::Add<IOPolyAction>;
using PragmaAdd = PragmaHandlerRegistry::Add<IOPolyPragmaHandler>;
alignas(ActionAdd) unsigned char ActionStorage[sizeof(ActionAdd)];
alignas(PragmaAdd) unsigned char PragmaStorage[sizeof(PragmaAdd)];

/// Registers the action and the pragma when this module is loaded by clang.
__attribute__((constructor)) void registerWithClang() {
  if (!dlsym(RTLD_DEFAULT, "_ZN5clang17ASTFrontendAction13ExecuteActionEv"))
    return; // not inside clang (e.g. opt -load-pass-plugin)
  new (ActionStorage) ActionAdd("iopoly", "disk-resident arrays served through the iopoly runtime");
  new (PragmaStorage) PragmaAdd("iopoly", "#pragma iopoly disk_resident(...)");
}

} // namespace
} // namespace iopoly
