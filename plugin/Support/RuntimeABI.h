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
#include "llvm/IR/Module.h"

namespace iopoly {

/// Largest access (bytes) the inline fast path serves.
constexpr uint64_t MaxInlineAccess = IOPOLY_MAX_ACCESS;
/// Attach modes of __iopoly_translate.
constexpr int ModeRead = IOPOLY_READ, ModeWrite = IOPOLY_WRITE;

struct RuntimeABI {
  explicit RuntimeABI(llvm::Module &M);

  /// struct iopoly_window { i64 lo, limit, delta; ptr array; i64 stripe,
  ///   run; ptr next, prev; i64 bounce_addr; i32 bounce_len, mode, flags;
  ///   [gap x i8]; [64 x i8] bounce }, allocated with align 64
  llvm::StructType *Window;
  llvm::FunctionCallee Translate;     ///< ptr (ptr win, ptr p, i64 len, i32 mode)
  llvm::FunctionCallee Commit;        ///< void (ptr win)
  llvm::FunctionCallee WindowRelease; ///< void (ptr win)
  llvm::FunctionCallee GlobalInit;    ///< void (ptr name, i64 bytes, ptr init, ptr slot)
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
    FieldBounceAddr,
    FieldBounceLen,
    FieldMode,
    FieldFlags,
    FieldAlignGap, ///< padding up to the 64-byte aligned bounce buffer
    FieldBounce,
    NumFields
  };

  /// A new, empty window in \p F's entry block (limit 0 fails every fast
  /// test; nothing attached). The caller must release it at every exit.
  /// \p Pinned: code keeps its delta across accesses (strips), so the
  /// runtime must not take its stripes back when the buffer is full.
  llvm::AllocaInst *createWindow(llvm::Function &F, bool Pinned) const;
  /// Loads field \p Field (lo, limit or delta) of window \p W.
  llvm::Value *loadField(llvm::IRBuilderBase &B, llvm::Value *W, unsigned Field, const llvm::Twine &Name) const;
};

/// Name of the marker function iopoly-mark wraps disk-resident pointers in.
inline constexpr const char *MarkerName = "__iopoly_mark";

/// The marker: ptr @__iopoly_mark(ptr) memory(none) nounwind willreturn.
llvm::Function *getOrCreateMarker(llvm::Module &M);
/// The marker if the module has one, else null.
llvm::Function *findMarker(const llvm::Module &M);

} // namespace iopoly

#endif
