//===- Graph.cpp - Merging runs into the accumulation graph ---------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Graph.h"

#include <deque>
#include <queue>

namespace iopoly {
namespace knowac {

uint32_t Graph::addVertex(Vertex Vx) {
  Vx.Key = Vx.L.key();
  uint32_t Id = uint32_t(V.size());
  ByKey[Vx.Key].push_back(Id);
  V.push_back(std::move(Vx));
  Out.emplace_back();
  In.emplace_back();
  return Id;
}

uint32_t Graph::addEdge(uint32_t Src, uint32_t Dst, uint64_t Visits, double GapSeconds) {
  Edge Ed;
  Ed.Src = Src;
  Ed.Dst = Dst;
  Ed.Visits = Visits;
  Ed.GapSeconds = GapSeconds;
  uint32_t Id = uint32_t(E.size());
  E.push_back(Ed);
  Out[Src].push_back(Id);
  In[Dst].push_back(Id);
  return Id;
}

int Graph::edgeBetween(uint32_t Src, uint32_t Dst) const {
  for (uint32_t Id : Out[Src])
    if (E[Id].Dst == Dst)
      return int(Id);
  return -1;
}

const std::vector<uint32_t> &Graph::withKey(const std::string &Key) const {
  static const std::vector<uint32_t> None;
  auto It = ByKey.find(Key);
  return It == ByKey.end() ? None : It->second;
}

int Graph::successorWithKey(uint32_t Vx, const std::string &Key) const {
  for (uint32_t Id : Out[Vx])
    if (V[E[Id].Dst].Key == Key)
      return int(E[Id].Dst);
  return -1;
}

int Graph::joinTarget(uint32_t Anchor, const std::string &Key, size_t Known, size_t Limit) const {
  // Breadth first from the anchor through vertices that existed before this
  // merge: the nearest downstream vertex with the label. The anchor itself
  // is excluded (joining it would close a cycle).
  std::vector<char> Seen(V.size(), 0);
  std::deque<uint32_t> Q;
  Seen[Anchor] = 1;
  Q.push_back(Anchor);
  size_t Visited = 0;
  while (!Q.empty() && Visited < Limit) {
    uint32_t X = Q.front();
    Q.pop_front();
    ++Visited;
    for (uint32_t Id : Out[X]) {
      uint32_t Y = E[Id].Dst;
      if (Y >= Known || Seen[Y])
        continue;
      if (V[Y].Key == Key)
        return int(Y);
      Seen[Y] = 1;
      Q.push_back(Y);
    }
  }
  return -1;
}

MergeStats Graph::merge(const std::vector<Step> &Path, size_t JoinLimit) {
  MergeStats MS;
  if (Path.empty())
    return MS;
  const size_t Known = V.size();
  auto Touch = [&](uint32_t Vx, const Step &S) {
    Vertex &X = V[Vx];
    X.Visits += 1;
    X.Bytes = S.Bytes;
    if (!S.File.empty())
      X.File = S.File;
    if (S.IoMeasured) {
      X.IoSeconds += S.IoSeconds;
      X.IoSamples += 1;
    }
    X.Dirty = true;
  };

  const std::string StartKey = Path[0].L.key();
  int Cur = -1;
  for (uint32_t Id : withKey(StartKey))
    if (In[Id].empty()) {
      Cur = int(Id);
      break;
    }
  if (Cur < 0) {
    Vertex S;
    S.L = Path[0].L;
    Cur = int(addVertex(S));
    ++MS.NewVertices;
  }
  Touch(uint32_t(Cur), Path[0]);
  uint32_t Anchor = uint32_t(Cur);

  for (size_t I = 1; I < Path.size(); ++I) {
    const Step &S = Path[I];
    std::string Key = S.L.key();
    int W = successorWithKey(uint32_t(Cur), Key);
    int EdgeId = -1;
    if (W >= 0) {
      ++MS.Followed;
      EdgeId = edgeBetween(uint32_t(Cur), uint32_t(W));
    } else {
      W = joinTarget(Anchor, Key, Known, JoinLimit);
      if (W >= 0) {
        ++MS.Joined;
      } else {
        Vertex Nv;
        Nv.L = S.L;
        W = int(addVertex(Nv));
        ++MS.NewVertices;
      }
      EdgeId = int(addEdge(uint32_t(Cur), uint32_t(W)));
      ++MS.NewEdges;
    }
    Edge &Ed = E[size_t(EdgeId)];
    Ed.Visits += 1;
    Ed.GapSeconds += S.GapSeconds;
    Ed.Dirty = true;
    Touch(uint32_t(W), S);
    if (size_t(W) < Known)
      Anchor = uint32_t(W);
    Cur = W;
  }
  return MS;
}

std::vector<uint32_t> Graph::topologicalOrder() const {
  std::vector<size_t> Deg(V.size());
  for (size_t I = 0; I < V.size(); ++I)
    Deg[I] = In[I].size();
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<uint32_t>> Ready;
  for (uint32_t I = 0; I < V.size(); ++I)
    if (!Deg[I])
      Ready.push(I);
  std::vector<uint32_t> Order;
  while (!Ready.empty()) {
    uint32_t X = Ready.top();
    Ready.pop();
    Order.push_back(X);
    for (uint32_t Id : Out[X])
      if (--Deg[E[Id].Dst] == 0)
        Ready.push(E[Id].Dst);
  }
  // A cycle (only in a hand-edited database) leaves vertices out: append them.
  if (Order.size() < V.size()) {
    std::vector<char> In(V.size(), 0);
    for (uint32_t X : Order)
      In[X] = 1;
    for (uint32_t I = 0; I < V.size(); ++I)
      if (!In[I])
        Order.push_back(I);
  }
  return Order;
}

} // namespace knowac
} // namespace iopoly
