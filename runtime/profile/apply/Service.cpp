//===- Service.cpp - Serving other ranks' requests for local data ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "apply/Service.h"

#include <algorithm>
#include <cstring>
#include <ctime>

namespace iopoly::prof {

namespace {
constexpr int kRequestTag = 1;
constexpr uint32_t kFirstReplyTag = 16, kReplyTags = 30000;
} // namespace

bool Service::start(Handler Fn) {
  H = std::move(Fn);
  if (PMPI_Comm_dup(MPI_COMM_WORLD, &Comm) != MPI_SUCCESS)
    return false;
  PMPI_Comm_rank(Comm, &Me);
  Running = true;
  Helper = std::thread([this] { loop(); });
  return true;
}

void Service::stop() {
  if (!Running)
    return;
  PMPI_Barrier(Comm); // nobody sends requests any more
  MsgHeader M;
  M.Type = static_cast<uint32_t>(MsgType::Stop);
  PMPI_Send(&M, sizeof M, MPI_BYTE, Me, kRequestTag, Comm);
  Helper.join();
  PMPI_Comm_free(&Comm);
  Running = false;
}

void Service::loop() {
  long SleepNs = 20000;
  std::vector<char> Buf, Reply;
  for (;;) {
    int Flag = 0;
    MPI_Message Msg;
    MPI_Status St;
    PMPI_Improbe(MPI_ANY_SOURCE, kRequestTag, Comm, &Flag, &Msg, &St);
    if (!Flag) {
      timespec T{0, SleepNs};
      nanosleep(&T, nullptr);
      SleepNs = std::min(SleepNs * 2, 1000000L);
      continue;
    }
    SleepNs = 20000;
    int N = 0;
    PMPI_Get_count(&St, MPI_BYTE, &N);
    Buf.resize(static_cast<size_t>(std::max(N, static_cast<int>(sizeof(MsgHeader)))));
    PMPI_Mrecv(Buf.data(), N, MPI_BYTE, &Msg, &St);
    MsgHeader Hd;
    std::memcpy(&Hd, Buf.data(), sizeof Hd);
    if (Hd.Type == static_cast<uint32_t>(MsgType::Stop) && St.MPI_SOURCE == Me)
      return;
    Reply.assign(sizeof(MsgHeader), 0);
    uint32_t Status = H(Hd, Buf.data() + sizeof Hd, Reply);
    MsgHeader Back = Hd;
    Back.Status = Status;
    std::memcpy(Reply.data(), &Back, sizeof Back);
    PMPI_Send(Reply.data(), static_cast<int>(Reply.size()), MPI_BYTE, St.MPI_SOURCE, static_cast<int>(Hd.ReplyTag),
              Comm);
  }
}

uint32_t Service::call(int Peer, MsgType T, uint64_t Instance, uint32_t Chunk, uint64_t Off, uint64_t Len,
                       const char *Data, char *Out) {
  std::vector<char> Msg, Reply;
  for (uint64_t Done = 0; Done < Len || (Len == 0 && Done == 0);) {
    uint64_t N = std::min(MaxMessage, Len - Done);
    MsgHeader Hd;
    Hd.Type = static_cast<uint32_t>(T);
    Hd.ReplyTag = kFirstReplyTag + NextTag.fetch_add(1, std::memory_order_relaxed) % kReplyTags;
    Hd.Instance = Instance;
    Hd.Chunk = Chunk;
    Hd.Off = Off + Done;
    Hd.Len = N;
    bool Sends = T == MsgType::Write || T == MsgType::Push;
    Msg.resize(sizeof Hd + (Sends ? N : 0));
    std::memcpy(Msg.data(), &Hd, sizeof Hd);
    if (Sends)
      std::memcpy(Msg.data() + sizeof Hd, Data + Done, N);
    int Rc = PMPI_Send(Msg.data(), static_cast<int>(Msg.size()), MPI_BYTE, Peer, kRequestTag, Comm);
    if (Rc != MPI_SUCCESS)
      return static_cast<uint32_t>(Rc);
    Reply.resize(sizeof Hd + (T == MsgType::Read ? N : 0));
    MPI_Status St;
    Rc = PMPI_Recv(Reply.data(), static_cast<int>(Reply.size()), MPI_BYTE, Peer, static_cast<int>(Hd.ReplyTag), Comm,
                   &St);
    if (Rc != MPI_SUCCESS)
      return static_cast<uint32_t>(Rc);
    MsgHeader Back;
    std::memcpy(&Back, Reply.data(), sizeof Back);
    if (Back.Status)
      return Back.Status;
    if (T == MsgType::Read)
      std::memcpy(Out + Done, Reply.data() + sizeof Hd, N);
    Done += N;
    if (Len == 0)
      break;
  }
  return 0;
}

uint32_t Service::send(int Peer, MsgType T, uint64_t Instance, uint32_t Count, const std::vector<char> &Payload) {
  MsgHeader Hd;
  Hd.Type = static_cast<uint32_t>(T);
  Hd.ReplyTag = kFirstReplyTag + NextTag.fetch_add(1, std::memory_order_relaxed) % kReplyTags;
  Hd.Instance = Instance;
  Hd.Chunk = Count;
  Hd.Len = Payload.size();
  std::vector<char> Msg(sizeof Hd + Payload.size());
  std::memcpy(Msg.data(), &Hd, sizeof Hd);
  if (!Payload.empty())
    std::memcpy(Msg.data() + sizeof Hd, Payload.data(), Payload.size());
  int Rc = PMPI_Send(Msg.data(), static_cast<int>(Msg.size()), MPI_BYTE, Peer, kRequestTag, Comm);
  if (Rc != MPI_SUCCESS)
    return static_cast<uint32_t>(Rc);
  MsgHeader Back;
  MPI_Status St;
  Rc = PMPI_Recv(&Back, sizeof Back, MPI_BYTE, Peer, static_cast<int>(Hd.ReplyTag), Comm, &St);
  return Rc != MPI_SUCCESS ? static_cast<uint32_t>(Rc) : Back.Status;
}

uint32_t Service::sendAll(std::vector<Batch> &Q) {
  size_t N = Q.size();
  std::vector<std::vector<char>> Msgs(N);
  std::vector<MsgHeader> Back(N);
  std::vector<MPI_Request> Reqs(2 * N, MPI_REQUEST_NULL);
  for (size_t I = 0; I < N; ++I) {
    MsgHeader Hd;
    Hd.Type = static_cast<uint32_t>(Q[I].Type);
    Hd.ReplyTag = kFirstReplyTag + NextTag.fetch_add(1, std::memory_order_relaxed) % kReplyTags;
    Hd.Instance = Q[I].Instance;
    Hd.Chunk = Q[I].Count;
    Hd.Len = Q[I].Payload.size();
    Msgs[I].resize(sizeof Hd + Q[I].Payload.size());
    std::memcpy(Msgs[I].data(), &Hd, sizeof Hd);
    if (!Q[I].Payload.empty())
      std::memcpy(Msgs[I].data() + sizeof Hd, Q[I].Payload.data(), Q[I].Payload.size());
    PMPI_Irecv(&Back[I], sizeof(MsgHeader), MPI_BYTE, Q[I].Peer, static_cast<int>(Hd.ReplyTag), Comm, &Reqs[2 * I]);
    PMPI_Isend(Msgs[I].data(), static_cast<int>(Msgs[I].size()), MPI_BYTE, Q[I].Peer, kRequestTag, Comm,
               &Reqs[2 * I + 1]);
  }
  if (int Rc = PMPI_Waitall(static_cast<int>(Reqs.size()), Reqs.data(), MPI_STATUSES_IGNORE))
    return static_cast<uint32_t>(Rc);
  for (const MsgHeader &B : Back)
    if (B.Status)
      return B.Status;
  return 0;
}

} // namespace iopoly::prof
