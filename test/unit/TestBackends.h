//===- TestBackends.h - In-memory and fault-injecting files for tests -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// MemFile keeps a file in a vector and counts operations. FaultPlan makes
// the k-th operation (counted across every file sharing the plan) fail,
// either once (transient: EINTR, a short transfer or one EIO) or from then
// on (persistent: EIO or ENOSPC on every later write).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_TEST_TESTBACKENDS_H
#define IOPOLY_TEST_TESTBACKENDS_H

#include "core/Array.h"
#include "io/Backend.h"

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace iopoly {
namespace test {

enum class Fault { None, Eintr, Short, EioOnce, EioForever, EnospcForever };

struct FaultPlan {
  std::mutex Mu;
  unsigned long long Ops = 0;     ///< operations seen so far
  unsigned long long FailAt = ~0ULL; ///< 1-based index of the failing op
  Fault Kind = Fault::None;
  bool Tripped = false;
  bool WritesOnly = false;        ///< count and fail writes only
  unsigned FailReads = 0, FailWrites = 0; ///< fail the next N reads / writes (EIO)

  /// Returns 0 to proceed, a negative errno to fail, or 1 for "short".
  int check(bool IsWrite) {
    std::lock_guard<std::mutex> G(Mu);
    unsigned &Next = IsWrite ? FailWrites : FailReads;
    if (Next) {
      --Next;
      return -EIO;
    }
    if (WritesOnly && !IsWrite)
      return 0;
    ++Ops;
    bool Persistent = Kind == Fault::EioForever || Kind == Fault::EnospcForever;
    if (Tripped && Persistent && IsWrite)
      return Kind == Fault::EioForever ? -EIO : -ENOSPC;
    if (Ops != FailAt)
      return 0;
    Tripped = true;
    switch (Kind) {
    case Fault::Eintr: return -EINTR;
    case Fault::Short: return 1;
    case Fault::EioOnce:
    case Fault::EioForever: return -EIO;
    case Fault::EnospcForever: return IsWrite ? -ENOSPC : 0;
    default: return 0;
    }
  }
};

class MemFile : public BackendFile {
public:
  explicit MemFile(std::shared_ptr<FaultPlan> Plan = nullptr) : Plan(std::move(Plan)) {}
  std::vector<char> Data;
  std::map<uint64_t, unsigned> ReadsAt, WritesAt; ///< per offset
  std::mutex Mu;

  ssize_t readAt(void *Buf, size_t N, uint64_t Off) override {
    int F = Plan ? Plan->check(false) : 0;
    if (F < 0)
      return F;
    std::lock_guard<std::mutex> G(Mu);
    if (Off >= Data.size())
      return 0;
    size_t M = std::min<size_t>(N, Data.size() - Off);
    if (F == 1 && M > 1)
      M /= 2;
    std::memcpy(Buf, Data.data() + Off, M);
    ReadsAt[Off]++;
    return static_cast<ssize_t>(M);
  }
  ssize_t writeAt(const void *Buf, size_t N, uint64_t Off) override {
    int F = Plan ? Plan->check(true) : 0;
    if (F < 0)
      return F;
    std::lock_guard<std::mutex> G(Mu);
    size_t M = (F == 1 && N > 1) ? N / 2 : N;
    if (Data.size() < Off + M)
      Data.resize(Off + M, 0);
    std::memcpy(Data.data() + Off, Buf, M);
    WritesAt[Off]++;
    return static_cast<ssize_t>(M);
  }
  int sync() override { return 0; }
  int64_t size() override {
    std::lock_guard<std::mutex> G(Mu);
    return static_cast<int64_t>(Data.size());
  }
  int resize(uint64_t S) override {
    std::lock_guard<std::mutex> G(Mu);
    Data.resize(S, 0);
    return 0;
  }
  int close() override { return 0; }
  bool direct() const override { return false; }

private:
  std::shared_ptr<FaultPlan> Plan;
};

/// An iopoly_array over MemFiles (sized as the geometry says).
inline std::unique_ptr<iopoly_array> makeMemArray(const std::string &Name, unsigned Id, size_t Bytes,
                                                  size_t Stripe, size_t Disks,
                                                  std::shared_ptr<FaultPlan> Plan = nullptr) {
  Geometry G;
  size_t Dims[1] = {Bytes};
  Status S = Geometry::make(1, 1, Dims, nullptr, Stripe, Disks, G);
  if (S)
    return nullptr;
  auto A = std::make_unique<iopoly_array>(G);
  A->Name = Name;
  A->Id = Id;
  A->Writable = true;
  for (size_t D = 0; D < Disks; ++D) {
    auto F = std::make_unique<MemFile>(Plan);
    F->Data.resize(G.expectedFileSize(D), 0);
    A->Files.push_back(std::move(F));
    A->Paths.push_back("mem:" + Name + "/disk" + std::to_string(D));
  }
  return A;
}

inline MemFile &memFile(iopoly_array &A, size_t Disk) { return static_cast<MemFile &>(*A.Files[Disk]); }

} // namespace test
} // namespace iopoly

#endif
