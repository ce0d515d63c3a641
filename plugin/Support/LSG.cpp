//===- LSG.cpp - The locality set graph and its algorithms -----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Support/LSG.h"

#include <algorithm>
#include <functional>
#include <limits>

namespace iopoly {

unsigned LSG::addNode(uint64_t Lambda) {
  Map.push_back(Lambda);
  Succ.emplace_back();
  return size() - 1;
}

void LSG::addEdge(unsigned From, unsigned To) {
  if (From == To)
    return;
  auto &S = Succ[From];
  auto It = std::lower_bound(S.begin(), S.end(), To);
  if (It == S.end() || *It != To)
    S.insert(It, To);
}

std::vector<std::vector<unsigned>> LSG::predecessors() const {
  std::vector<std::vector<unsigned>> P(size());
  for (unsigned U = 0; U < size(); ++U)
    for (unsigned V : Succ[U])
      P[V].push_back(U);
  return P;
}

bool LSG::hasCycle() const { return topologicalOrder(*this).size() != size(); }

unsigned hammingDistance(uint64_t A, uint64_t B) { return static_cast<unsigned>(__builtin_popcountll(A ^ B)); }

unsigned totalHamming(const LSG &G, const std::vector<unsigned> &Order) {
  unsigned T = 0;
  for (size_t K = 1; K < Order.size(); ++K)
    T += hammingDistance(G.Map[Order[K - 1]], G.Map[Order[K]]);
  return T;
}

std::vector<std::vector<unsigned>> cyclicComponents(const LSG &G) {
  // Tarjan's algorithm, iterative to survive large graphs.
  unsigned N = G.size(), Counter = 0;
  std::vector<int> Index(N, -1), Low(N, 0);
  std::vector<bool> OnStack(N, false);
  std::vector<unsigned> Stack;
  std::vector<std::vector<unsigned>> Out;
  for (unsigned Root = 0; Root < N; ++Root) {
    if (Index[Root] >= 0)
      continue;
    std::vector<std::pair<unsigned, size_t>> Work{{Root, 0}};
    Index[Root] = Low[Root] = static_cast<int>(Counter++);
    Stack.push_back(Root);
    OnStack[Root] = true;
    while (!Work.empty()) {
      auto &[U, Next] = Work.back();
      if (Next < G.Succ[U].size()) {
        unsigned V = G.Succ[U][Next++];
        if (Index[V] < 0) {
          Index[V] = Low[V] = static_cast<int>(Counter++);
          Stack.push_back(V);
          OnStack[V] = true;
          Work.push_back({V, 0});
        } else if (OnStack[V]) {
          Low[U] = std::min(Low[U], Index[V]);
        }
        continue;
      }
      if (Low[U] == Index[U]) {
        std::vector<unsigned> C;
        unsigned W;
        do {
          W = Stack.back();
          Stack.pop_back();
          OnStack[W] = false;
          C.push_back(W);
        } while (W != U);
        if (C.size() > 1) {
          std::sort(C.begin(), C.end());
          Out.push_back(std::move(C));
        }
      }
      unsigned Done = U;
      Work.pop_back();
      if (!Work.empty())
        Low[Work.back().first] = std::min(Low[Work.back().first], Low[Done]);
    }
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

std::vector<unsigned> feedbackVertexSet(const LSG &G) {
  unsigned N = G.size();
  std::vector<bool> Alive(N, true);
  std::vector<unsigned> Removed;
  auto Pred = G.predecessors();
  while (true) {
    // Peel nodes that cannot lie on a cycle of the remaining graph.
    bool Changed = true;
    while (Changed) {
      Changed = false;
      for (unsigned U = 0; U < N; ++U) {
        if (!Alive[U])
          continue;
        bool In = std::any_of(Pred[U].begin(), Pred[U].end(), [&](unsigned P) { return Alive[P]; });
        bool Out = std::any_of(G.Succ[U].begin(), G.Succ[U].end(), [&](unsigned S) { return Alive[S]; });
        if (!In || !Out) {
          Alive[U] = false;
          Changed = true;
        }
      }
    }
    unsigned Best = N;
    uint64_t BestScore = 0;
    for (unsigned U = 0; U < N; ++U) {
      if (!Alive[U])
        continue;
      uint64_t In = std::count_if(Pred[U].begin(), Pred[U].end(), [&](unsigned P) { return Alive[P]; });
      uint64_t Out = std::count_if(G.Succ[U].begin(), G.Succ[U].end(), [&](unsigned S) { return Alive[S]; });
      if (In * Out > BestScore) {
        BestScore = In * Out;
        Best = U;
      }
    }
    if (Best == N)
      break;
    Alive[Best] = false;
    Removed.push_back(Best);
  }
  std::sort(Removed.begin(), Removed.end());
  // Drop members whose removal is unnecessary (keeps the set small).
  for (size_t K = Removed.size(); K-- > 0;) {
    LSG Rest = G;
    std::vector<unsigned> Others = Removed;
    Others.erase(Others.begin() + static_cast<long>(K));
    for (unsigned R : Others) {
      Rest.Succ[R].clear();
      for (auto &S : Rest.Succ)
        S.erase(std::remove(S.begin(), S.end(), R), S.end());
    }
    if (!Rest.hasCycle())
      Removed = Others;
  }
  return Removed;
}

std::vector<unsigned> topologicalOrder(const LSG &G) {
  auto Pred = G.predecessors();
  std::vector<unsigned> Missing(G.size());
  for (unsigned U = 0; U < G.size(); ++U)
    Missing[U] = static_cast<unsigned>(Pred[U].size());
  std::vector<bool> Done(G.size(), false);
  std::vector<unsigned> Order;
  while (Order.size() < G.size()) {
    unsigned Pick = G.size();
    for (unsigned U = 0; U < G.size() && Pick == G.size(); ++U)
      if (!Done[U] && !Missing[U])
        Pick = U;
    if (Pick == G.size())
      return Order; // a cycle
    Done[Pick] = true;
    Order.push_back(Pick);
    for (unsigned S : G.Succ[Pick])
      --Missing[S];
  }
  return Order;
}

std::vector<unsigned> scheduleByHamming(const LSG &G) {
  auto Pred = G.predecessors();
  std::vector<unsigned> Missing(G.size());
  for (unsigned U = 0; U < G.size(); ++U)
    Missing[U] = static_cast<unsigned>(Pred[U].size());
  std::vector<bool> Done(G.size(), false);
  std::vector<unsigned> Order;
  bool HaveLast = false;
  uint64_t Last = 0;
  while (Order.size() < G.size()) {
    unsigned Pick = G.size(), Best = std::numeric_limits<unsigned>::max();
    for (unsigned U = 0; U < G.size(); ++U) {
      if (Done[U] || Missing[U])
        continue;
      unsigned D = HaveLast ? hammingDistance(Last, G.Map[U]) : 0;
      if (D < Best) {
        Best = D;
        Pick = U;
      }
    }
    if (Pick == G.size())
      return {}; // a cycle: not schedulable
    Done[Pick] = true;
    Order.push_back(Pick);
    Last = G.Map[Pick];
    HaveLast = true;
    for (unsigned S : G.Succ[Pick])
      --Missing[S];
  }
  return Order;
}

LSG mergeNodes(const LSG &G, const std::vector<unsigned> &Group, std::vector<unsigned> &Remap) {
  std::vector<bool> InGroup(G.size(), false);
  for (unsigned U : Group)
    InGroup[U] = true;
  LSG Out;
  Remap.assign(G.size(), 0);
  unsigned Merged = G.size();
  for (unsigned U = 0; U < G.size(); ++U) {
    if (InGroup[U]) {
      if (Merged == G.size())
        Merged = Out.addNode(0);
      Out.Map[Merged] |= G.Map[U];
      Remap[U] = Merged;
    } else {
      Remap[U] = Out.addNode(G.Map[U]);
    }
  }
  for (unsigned U = 0; U < G.size(); ++U)
    for (unsigned V : G.Succ[U])
      Out.addEdge(Remap[U], Remap[V]);
  return Out;
}

std::string mapString(uint64_t Lambda, unsigned Bits) {
  std::string S;
  for (unsigned B = 0; B < Bits; ++B)
    S += (Lambda >> B & 1) ? '1' : '0';
  return S;
}

} // namespace iopoly
