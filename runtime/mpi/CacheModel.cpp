//===- CacheModel.cpp - The caches of the storage hierarchy ----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "mpi/CacheModel.h"

#include <algorithm>
#include <map>

namespace iopoly {

bool LruCache::hit(const BlockKey &K) {
  auto It = Map.find(K);
  if (It == Map.end())
    return false;
  Order.splice(Order.begin(), Order, It->second);
  return true;
}

bool LruCache::insert(const BlockKey &K, BlockKey *Evicted) {
  if (hit(K))
    return false;
  bool Did = false;
  if (Map.size() >= Capacity) {
    BlockKey Victim = Order.back();
    Order.pop_back();
    Map.erase(Victim);
    if (Evicted)
      *Evicted = Victim;
    Did = true;
  }
  Order.push_front(K);
  Map[K] = Order.begin();
  return Did;
}

bool LruCache::erase(const BlockKey &K) {
  auto It = Map.find(K);
  if (It == Map.end())
    return false;
  Order.erase(It->second);
  Map.erase(It);
  return true;
}

bool CacheNode::read(const BlockKey &K, size_t Bytes, bool *DidEvict, BlockKey *Evicted) {
  C.Reads++;
  C.BytesRead += Bytes;
  if (Cache.hit(K)) {
    C.Hits++;
    if (DidEvict)
      *DidEvict = false;
    return true;
  }
  C.Misses++;
  BlockKey V;
  bool Ev = Cache.insert(K, &V);
  if (DidEvict)
    *DidEvict = Ev;
  if (Ev && Evicted)
    *Evicted = V;
  return false;
}

bool CacheNode::write(const BlockKey &K, size_t Bytes) {
  C.Writes++;
  C.BytesWritten += Bytes;
  Written[K]++;
  return Cache.hit(K);
}

std::vector<std::pair<BlockKey, uint32_t>> CacheNode::written(const std::unordered_set<uint64_t> &Files) const {
  std::vector<std::pair<BlockKey, uint32_t>> Out;
  for (const auto &KV : Written)
    if (Files.count(KV.first.File))
      Out.push_back(KV);
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::vector<BlockKey> CacheNode::endEpoch(const std::vector<BlockKey> &Keys, const std::unordered_set<uint64_t> &Files) {
  std::vector<BlockKey> Dropped;
  for (const BlockKey &K : Keys)
    if (Cache.erase(K))
      Dropped.push_back(K);
  for (auto It = Written.begin(); It != Written.end();)
    It = Files.count(It->first.File) ? Written.erase(It) : std::next(It);
  return Dropped;
}

std::vector<std::vector<BlockKey>> levelDrops(const std::vector<std::vector<std::pair<BlockKey, uint32_t>>> &Written) {
  std::map<BlockKey, uint64_t> Total;
  for (const auto &Node : Written)
    for (const auto &KV : Node)
      Total[KV.first] += KV.second;
  std::vector<std::vector<BlockKey>> Drops(Written.size());
  for (size_t N = 0; N < Written.size(); ++N) {
    std::map<BlockKey, uint64_t> Mine;
    for (const auto &KV : Written[N])
      Mine[KV.first] += KV.second;
    for (const auto &KV : Total) {
      auto It = Mine.find(KV.first);
      if (It == Mine.end() || It->second < KV.second)
        Drops[N].push_back(KV.first);
    }
  }
  return Drops;
}

} // namespace iopoly
