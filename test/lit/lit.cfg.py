# lit configuration of the iopoly plugin tests.
#
# Substitutions:
#   %iopoly_plugin   path of IOPoly.so
#   %clang_iopoly    clang-19 -fplugin=IOPoly.so -I<include> (compile only)
#   %opt_iopoly      opt-19 -load-pass-plugin=IOPoly.so
#   %iopoly_clang    the iopoly-clang wrapper (compiles and links the runtime)
#   %iopoly_run      env for running lowered programs in a fresh temp dir
import os
import lit.formats

config.name = "iopoly"
# Tests that need what a sanitizer build changes say UNSUPPORTED: sanitize.
if getattr(config, "sanitize", False):
    config.available_features.add("sanitize")
config.test_format = lit.formats.ShTest(not lit_config.isWindows)
config.suffixes = [".c", ".cpp", ".ll", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.iopoly_obj_root, "test", "lit")

# LLVM's tools (FileCheck, not, count, split-file, opt, clang) first.
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.iopoly_bindir, config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ["HOME", "TMPDIR"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

clang = os.path.join(config.llvm_tools_dir, "clang")
opt = os.path.join(config.llvm_tools_dir, "opt")
config.substitutions.append(("%iopoly_plugin", config.iopoly_plugin))
config.substitutions.append(("%clang_iopoly", "%s -fplugin=%s -I%s" % (clang, config.iopoly_plugin, config.iopoly_include)))
config.substitutions.append(("%opt_iopoly", "%s -load-pass-plugin=%s" % (opt, config.iopoly_plugin)))
config.substitutions.append(("%iopoly_clang", os.path.join(config.iopoly_bindir, "iopoly-clang")))
config.substitutions.append(("%iopoly_include", config.iopoly_include))
config.substitutions.append(("%iopoly_relayout", os.path.join(config.iopoly_bindir, "iopoly-relayout")))
# A private data directory per test; small stripes so that tests cross them.
config.substitutions.append(("%iopoly_run",
    "env IOPOLY_DIR=%t.data IOPOLY_DISKS=4 IOPOLY_STRIPE=4K IOPOLY_BUFFER=256K IOPOLY_DISK_MODEL=none"))
if config.has_mpi:
    config.available_features.add("mpi")
elif os.environ.get("CI") == "true":
    # In CI every skip is a failure: tests that REQUIRE mpi would be skipped.
    lit_config.fatal("CI=true: MPI was not found, so the lit tests that need it would be skipped")
