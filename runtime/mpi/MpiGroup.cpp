//===- MpiGroup.cpp - A group of ranks on an MPI communicator --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Collectives go through the PMPI entry points: libiopoly_mpi wraps
// MPI_Barrier itself, and other tools may wrap the rest.
//
//===----------------------------------------------------------------------===//
#include "mpi/MpiGroup.h"

#include <climits>
#include <vector>

namespace iopoly {

Status MpiGroup::make(MPI_Comm Parent, const std::string &Desc, std::shared_ptr<MpiGroup> &Out) {
  std::shared_ptr<MpiGroup> G(new MpiGroup());
  if (PMPI_Comm_dup(Parent, &G->Comm) != MPI_SUCCESS)
    return Status::error("MPI_Comm_dup failed on " + Desc);
  PMPI_Comm_set_errhandler(G->Comm, MPI_ERRORS_RETURN);
  PMPI_Comm_rank(G->Comm, &G->Rank);
  PMPI_Comm_size(G->Comm, &G->Size);
  G->Desc = Desc;
  Out = std::move(G);
  return {};
}

MpiGroup::~MpiGroup() {
  int Fin = 0;
  PMPI_Finalized(&Fin);
  if (!Fin && Comm != MPI_COMM_NULL)
    PMPI_Comm_free(&Comm);
}

void MpiGroup::broadcastText(std::string &Text, int Root) {
  long long Len = static_cast<long long>(Text.size());
  PMPI_Bcast(&Len, 1, MPI_LONG_LONG, Root, Comm);
  Text.resize(static_cast<size_t>(Len));
  if (Len)
    PMPI_Bcast(&Text[0], static_cast<int>(Len), MPI_CHAR, Root, Comm);
}

Status MpiGroup::agree(const Status &Mine) {
  int Bad = Mine.ok() ? INT_MAX : Rank, First = INT_MAX;
  PMPI_Allreduce(&Bad, &First, 1, MPI_INT, MPI_MIN, Comm);
  if (First == INT_MAX)
    return {};
  std::string Msg = Mine.ok() ? "" : Mine.message();
  broadcastText(Msg, First);
  return Status::error(First == Rank ? Msg : format("rank %d of %s: %s", First, Desc.c_str(), Msg.c_str()));
}

Status MpiGroup::same(const std::string &What, const std::string &Text) {
  std::string Root = Text;
  broadcastText(Root, 0);
  int Differs = Root == Text ? INT_MAX : Rank, First = INT_MAX;
  PMPI_Allreduce(&Differs, &First, 1, MPI_INT, MPI_MIN, Comm);
  if (First == INT_MAX)
    return {};
  std::string Other = Text;
  broadcastText(Other, First);
  return Status::error(format("the ranks of %s disagree on %s: rank 0 has %s, rank %d has %s", Desc.c_str(),
                              What.c_str(), Root.c_str(), First, Other.c_str()));
}

void MpiGroup::broadcast(std::vector<unsigned long long> &Bits, int Root) {
  long long N = static_cast<long long>(Bits.size());
  PMPI_Bcast(&N, 1, MPI_LONG_LONG, Root, Comm);
  Bits.resize(static_cast<size_t>(N));
  if (N)
    PMPI_Bcast(Bits.data(), static_cast<int>(N), MPI_UNSIGNED_LONG_LONG, Root, Comm);
}

void MpiGroup::allAnd(std::vector<unsigned long long> &Bits) {
  // In pieces: counts are ints.
  const size_t Piece = size_t(1) << 24;
  for (size_t Off = 0; Off < Bits.size(); Off += Piece) {
    size_t N = std::min(Piece, Bits.size() - Off);
    PMPI_Allreduce(MPI_IN_PLACE, Bits.data() + Off, static_cast<int>(N), MPI_UNSIGNED_LONG_LONG, MPI_BAND, Comm);
  }
}

void MpiGroup::allSum(std::vector<unsigned long long> &V) {
  if (!V.empty())
    PMPI_Allreduce(MPI_IN_PLACE, V.data(), static_cast<int>(V.size()), MPI_UNSIGNED_LONG_LONG, MPI_SUM, Comm);
}

void MpiGroup::barrier() { PMPI_Barrier(Comm); }

bool MpiGroup::coveredBy(const void *Other) const {
  MPI_Comm O = *static_cast<const MPI_Comm *>(Other);
  if (O == MPI_COMM_NULL)
    return false;
  MPI_Group Mine, Theirs;
  PMPI_Comm_group(Comm, &Mine);
  PMPI_Comm_group(O, &Theirs);
  std::vector<int> Ranks(static_cast<size_t>(Size)), There(static_cast<size_t>(Size));
  for (int R = 0; R < Size; ++R)
    Ranks[static_cast<size_t>(R)] = R;
  bool Covered = PMPI_Group_translate_ranks(Mine, Size, Ranks.data(), Theirs, There.data()) == MPI_SUCCESS;
  for (int T : There)
    Covered &= T != MPI_UNDEFINED;
  PMPI_Group_free(&Mine);
  PMPI_Group_free(&Theirs);
  return Covered;
}

std::string MpiGroup::describe() const { return format("%s (%d ranks)", Desc.c_str(), Size); }

} // namespace iopoly
