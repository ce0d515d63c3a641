//===- DistABI.h - IR form of include/iopoly/dist.h --------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The descriptor of a distributed loop and the three runtime calls, as IR.
// test/plugin-unit/DistLayoutTest.cpp checks the struct's layout against
// offsetof of the C header.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_PLUGIN_SUPPORT_DISTABI_H
#define IOPOLY_PLUGIN_SUPPORT_DISTABI_H

#include "iopoly/dist.h"

#include "llvm/IR/Module.h"

namespace iopoly {

struct DistABI {
  explicit DistABI(llvm::Module &M);

  /// struct iopoly_dist_loop, field by field (i64 or ptr).
  llvm::StructType *Loop;
  llvm::FunctionCallee Begin; ///< i64 (ptr d)
  llvm::FunctionCallee Piece; ///< void (ptr d, i64 p, ptr first, ptr end)
  llvm::FunctionCallee End;   ///< void (ptr d)

  enum : unsigned {
    FieldVersion,
    FieldMapping,
    FieldLocal,
    FieldLb,
    FieldUb,
    FieldStep,
    FieldIterations,
    FieldNChunks,
    FieldNPieces,
    FieldPieces,
    FieldTagStart,
    FieldTags,
    FieldNData,
    FieldBThres,
    FieldAlpha,
    FieldBeta,
    FieldTopology,
    FieldTableRanks,
    FieldTableStart,
    FieldTable,
    FieldWhere,
    FieldState,
    NumFields
  };
};

} // namespace iopoly

#endif
