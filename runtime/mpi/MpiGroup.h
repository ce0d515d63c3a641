//===- MpiGroup.h - A group of ranks on an MPI communicator -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The core's Group (runtime/core/Group.h) on a private duplicate of a
// communicator, so that the runtime's messages never meet the program's.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_RUNTIME_MPI_MPIGROUP_H
#define IOPOLY_RUNTIME_MPI_MPIGROUP_H

#include "core/Group.h"
#include "mpi/Mpi.h"

#include <memory>
#include <string>

namespace iopoly {

class MpiGroup final : public Group {
public:
  /// Duplicates \p Parent (collective over it); \p Desc names it in
  /// messages ("MPI_COMM_WORLD", "ranks with the same disks").
  static Status make(MPI_Comm Parent, const std::string &Desc, std::shared_ptr<MpiGroup> &Out);
  ~MpiGroup() override;

  int rank() const override { return Rank; }
  int size() const override { return Size; }
  Status agree(const Status &Mine) override;
  Status same(const std::string &What, const std::string &Text) override;
  void broadcast(std::vector<unsigned long long> &Bits, int Root) override;
  void allAnd(std::vector<unsigned long long> &Bits) override;
  void allSum(std::vector<unsigned long long> &V) override;
  void barrier() override;
  const void *comm() const override { return &Comm; }
  bool coveredBy(const void *Other) const override;
  std::string describe() const override;
  MPI_Comm mpiComm() const { return Comm; }

private:
  MpiGroup() = default;
  /// Rank \p Root's \p Text reaches every rank.
  void broadcastText(std::string &Text, int Root);
  MPI_Comm Comm = MPI_COMM_NULL;
  int Rank = 0, Size = 1;
  std::string Desc;
};

} // namespace iopoly

#endif
