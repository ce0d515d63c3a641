//===- SequentialMark.cpp - Loops Polly must not outline as parallel -------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Polly/SequentialMark.h"

#include "polly/CodeGen/IslAst.h"

#include "isl/ast.h"
#include "isl/id.h"

#include <cstring>

namespace iopoly {

namespace {
/// Polly's IslNodeBuilder::createMark generates the child of a mark it does
/// not know as is (only "SIMD" and "Loop with Metadata" mean something).
constexpr const char *SequentialMarkName = "iopoly sequential";

bool isSequentialMark(isl_ast_node *Node) {
  if (isl_ast_node_get_type(Node) != isl_ast_node_mark)
    return false;
  isl_id *Id = isl_ast_node_mark_get_id(Node);
  bool Is = Id && isl_id_get_name(Id) && std::strcmp(isl_id_get_name(Id), SequentialMarkName) == 0;
  isl_id_free(Id);
  return Is;
}

isl_bool clearParallel(isl_ast_node *Node, void *User) {
  if (isl_ast_node_get_type(Node) != isl_ast_node_for)
    return isl_bool_true;
  auto *Payload = polly::IslAstInfo::getNodePayload(isl::manage_copy(Node));
  if (Payload && Payload->IsOutermostParallel) {
    Payload->IsOutermostParallel = false;
    ++*static_cast<unsigned *>(User);
  }
  return isl_bool_true;
}

isl_bool findMarks(isl_ast_node *Node, void *User) {
  if (!isSequentialMark(Node))
    return isl_bool_true;
  isl_ast_node *Child = isl_ast_node_mark_get_node(Node);
  isl_stat R = isl_ast_node_foreach_descendant_top_down(Child, clearParallel, User);
  isl_ast_node_free(Child);
  return R == isl_stat_ok ? isl_bool_false : isl_bool_error; // its loops are done
}
} // namespace

isl::schedule markSequential(isl::schedule Schedule) {
  isl::schedule_node Top = Schedule.get_root();
  if (!Top.has_children().is_true())
    return Schedule;
  isl::id Mark = isl::id::alloc(Schedule.ctx(), SequentialMarkName, nullptr);
  return Top.child(0).insert_mark(Mark).get_schedule();
}

unsigned keepMarkedLoopsSequential(polly::IslAstInfo &AI) {
  isl::ast_node Root = AI.getAst();
  unsigned Cleared = 0;
  if (!Root.is_null())
    isl_ast_node_foreach_descendant_top_down(Root.get(), findMarks, &Cleared);
  return Cleared;
}

} // namespace iopoly
