//===- RuntimeABI.h - IR declarations of the runtime entry points -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The IR form of include/iopoly/abi.h, the one definition of the window of a
// lowered access site and the functions lowered code calls. The constants
// come from that header; test/plugin-unit/AbiLayoutTest.cpp checks the IR
// struct's layout against its offsetof.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_SUPPORT_RUNTIMEABI_H
#define IOPOLY_PLUGIN_SUPPORT_RUNTIMEABI_H

#include "iopoly/abi.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/DebugLoc.h"
#include "llvm/IR/Module.h"

#include <map>
#include <string>
#include <tuple>
#include <type_traits>

namespace iopoly {

/// Largest access (bytes) the inline fast path serves.
constexpr uint64_t MaxInlineAccess = IOPOLY_MAX_ACCESS;
/// Attach modes of __iopoly_translate.
constexpr int ModeRead = IOPOLY_READ, ModeWrite = IOPOLY_WRITE, ModeProbe = IOPOLY_TRANSLATE_PROBE;

/// Most windows one function reserves (include/iopoly/abi.h).
constexpr unsigned MaxWindows = IOPOLY_MAX_WINDOWS;

/// Polly's OpenMP code generation calls the GOMP work-sharing protocol; with
/// threads=on the plugin points these calls at the runtime's entry points of
/// include/iopoly/abi.h, which take the same C arguments (checked below for
/// the runtime side, and in the IR by parallelRedirectMatches for Polly's).
struct ParallelRedirect {
  const char *Gomp;    ///< what Polly's code calls
  const char *Runtime; ///< the abi.h function that replaces it
};
inline constexpr ParallelRedirect ParallelRedirects[] = {
    {"GOMP_parallel_loop_runtime_start", "__iopoly_par_start"},
    {"GOMP_loop_runtime_next", "__iopoly_par_next"},
    {"GOMP_loop_end_nowait", "__iopoly_par_end_nowait"},
    {"GOMP_parallel_end", "__iopoly_par_end"}};
static_assert(std::is_same_v<decltype(&__iopoly_par_start), void (*)(void (*)(void *), void *, unsigned, long, long, long)>,
              "__iopoly_par_start must take GOMP_parallel_loop_runtime_start's arguments");
static_assert(std::is_same_v<decltype(&__iopoly_par_next), bool (*)(long *, long *)>,
              "__iopoly_par_next must take GOMP_loop_runtime_next's arguments");
static_assert(std::is_same_v<decltype(&__iopoly_par_end_nowait), void (*)()> &&
                  std::is_same_v<decltype(&__iopoly_par_end), void (*)()>,
              "__iopoly_par_end* take no arguments, as GOMP_loop_end_nowait and GOMP_parallel_end");

/// The IR type of \p R's runtime function, in \p C.
llvm::FunctionType *parallelRedirectType(llvm::LLVMContext &C, const ParallelRedirect &R);

struct RuntimeABI {
  explicit RuntimeABI(llvm::Module &M);

  /// struct iopoly_window { i64 lo, limit, delta; ptr array; i64 stripe,
  ///   run; ptr next, prev; i32 flags, reserved }
  llvm::StructType *Window;
  /// struct iopoly_site { ptr file, function; i32 line, column; i64 stride }
  llvm::StructType *Site;
  llvm::FunctionCallee Translate;     ///< ptr (ptr win, ptr p, i64 len, i32 mode, ptr site)
  llvm::FunctionCallee Commit;        ///< void ()
  llvm::FunctionCallee WindowRelease; ///< void (ptr win)
  llvm::FunctionCallee GlobalInit;    ///< void (ptr name, i64 elem, i32 ndims, ptr dims, ptr layout, ptr init, ptr slot)
  llvm::FunctionCallee AllocLayout;   ///< void (ptr p, i64 elem, i32 ndims, ptr dims, ptr layout)
  llvm::FunctionCallee CheckStriping; ///< void (i64 stripe, i64 disks, ptr module)
  llvm::FunctionCallee Memset;        ///< void (ptr, i32, i64)
  llvm::FunctionCallee Memcpy;        ///< void (ptr, ptr, i64)
  llvm::FunctionCallee Memmove;       ///< void (ptr, ptr, i64)

  /// Field indices of Window, in the member order of struct iopoly_window.
  enum : unsigned {
    FieldLo,
    FieldLimit,
    FieldDelta,
    FieldArray,
    FieldStripe,
    FieldRun,
    FieldNext,
    FieldPrev,
    FieldFlags,
    FieldReserved,
    NumFields
  };
  /// Field indices of Site.
  enum : unsigned { SiteFile, SiteFunction, SiteLine, SiteColumn, SiteStride, NumSiteFields };

  /// A table of \p Count empty windows in \p F's entry block (limit 0 fails
  /// every fast test; nothing attached); the caller releases them at every
  /// exit. \p Pinned: code keeps their delta across accesses (strips), so
  /// the runtime must not take their stripes back when the buffer is full.
  llvm::AllocaInst *createWindows(llvm::Function &F, unsigned Count, bool Pinned, const llvm::Twine &Name) const;
  /// The address of window \p Index of table \p Table.
  llvm::Value *window(llvm::IRBuilderBase &B, llvm::AllocaInst *Table, unsigned Index) const;
  /// Loads field \p Field (lo, limit or delta) of window \p W.
  llvm::Value *loadField(llvm::IRBuilderBase &B, llvm::Value *W, unsigned Field, const llvm::Twine &Name) const;
  /// At \p B's insertion point: releases window \p W if it holds stripes
  /// (one load and a branch when it does not).
  void releaseIfHeld(llvm::IRBuilderBase &B, llvm::Value *W) const;
  /// A constant struct iopoly_site for \p Loc (the loop or access) in
  /// \p F, \p Stride bytes per iteration (0: unknown); one per distinct
  /// value in the module.
  llvm::Constant *site(llvm::Function &F, const llvm::DebugLoc &Loc, int64_t Stride);

private:
  llvm::Module &M;
  std::map<std::tuple<std::string, unsigned, unsigned, std::string, int64_t>, llvm::Constant *> Sites;
  std::map<std::string, llvm::Constant *> Strings;
};

/// Name of the marker function iopoly-mark wraps disk-resident pointers in.
inline constexpr const char *MarkerName = "__iopoly_mark";

/// The marker: ptr @__iopoly_mark(ptr) memory(none) nounwind willreturn.
llvm::Function *getOrCreateMarker(llvm::Module &M);
/// The marker if the module has one, else null.
llvm::Function *findMarker(const llvm::Module &M);

} // namespace iopoly

#endif
