//===- Mapping.cpp - Iteration-to-rank mapping (paper 2, sections 4-5) -----===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "mpi/Mapping.h"
#include "mpi/MappingParts.h"
#include "mpi/Topology.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace iopoly {

int64_t IterChunk::size() const {
  int64_t N = 0;
  for (const Piece &P : Pieces)
    N += P.second - P.first;
  return N;
}

MapTree MapTree::fromTopology(const Topology &T) {
  MapTree M;
  M.Nodes.emplace_back(); // root
  std::vector<int> StorageIds;
  bool Dummy = T.StorageNodes.size() > 1;
  for (size_t S = 0; S < T.StorageNodes.size(); ++S) {
    int Id = 0;
    if (Dummy) {
      Id = static_cast<int>(M.Nodes.size());
      M.Nodes.emplace_back();
      M.Nodes[0].Children.push_back(Id);
    }
    for (int I : T.StorageNodes[S].IoNodes) {
      int IoId = static_cast<int>(M.Nodes.size());
      M.Nodes.emplace_back();
      M.Nodes[static_cast<size_t>(Id)].Children.push_back(IoId);
      for (int C : T.IoNodes[static_cast<size_t>(I)].Clients) {
        int CId = static_cast<int>(M.Nodes.size());
        M.Nodes.emplace_back();
        M.Nodes[static_cast<size_t>(CId)].Ranks = T.Clients[static_cast<size_t>(C)].Ranks;
        M.Nodes[static_cast<size_t>(IoId)].Children.push_back(CId);
      }
    }
  }
  return M;
}

MapTree MapTree::flat(int Ranks) {
  MapTree M;
  M.Nodes.resize(2);
  M.Nodes[0].Children.push_back(1);
  for (int R = 0; R < Ranks; ++R) {
    M.Nodes[1].Children.push_back(static_cast<int>(M.Nodes.size()));
    M.Nodes.emplace_back();
    M.Nodes.back().Ranks = {R};
  }
  return M;
}

std::vector<int> MapTree::clients() const {
  std::vector<int> Out, Stack{0};
  while (!Stack.empty()) {
    int N = Stack.back();
    Stack.pop_back();
    const Node &Nd = Nodes[static_cast<size_t>(N)];
    if (Nd.Children.empty())
      Out.push_back(N);
    for (auto It = Nd.Children.rbegin(); It != Nd.Children.rend(); ++It)
      Stack.push_back(*It);
  }
  return Out;
}

std::vector<size_t> MapTree::heights() const {
  std::vector<size_t> H(Nodes.size(), 0);
  for (size_t N = Nodes.size(); N-- > 0;) // children are numbered after their parents
    for (int C : Nodes[N].Children)
      H[N] = std::max(H[N], H[static_cast<size_t>(C)] + 1);
  return H;
}

int MapTree::numRanks() const {
  int N = 0;
  for (int C : clients())
    N += static_cast<int>(Nodes[static_cast<size_t>(C)].Ranks.size());
  return N;
}

std::string MapTree::signature() const {
  std::string S;
  std::vector<std::pair<int, bool>> Stack{{0, false}};
  while (!Stack.empty()) {
    auto [N, Closing] = Stack.back();
    Stack.pop_back();
    const Node &Nd = Nodes[static_cast<size_t>(N)];
    if (Closing) {
      S += ")";
      continue;
    }
    if (Nd.Children.empty()) {
      S += "[";
      for (size_t K = 0; K < Nd.Ranks.size(); ++K)
        S += (K ? "," : "") + std::to_string(Nd.Ranks[K]);
      S += "]";
      continue;
    }
    S += "(";
    Stack.push_back({N, true});
    for (auto It = Nd.Children.rbegin(); It != Nd.Children.rend(); ++It)
      Stack.push_back({*It, false});
  }
  return S;
}

using mapping::common;
using mapping::Item;
using mapping::Parts;
using mapping::sizeOf;
using mapping::splitOff;

namespace {

/// What the clustering did, for MapReport.
struct Counters {
  size_t Clusters = 0, Splits = 0, Moves = 0, Refinements = 0, BlockNodes = 0, AlignedNodes = 0, ClusterNodes = 0;
  void add(const Counters &C) {
    Clusters += C.Clusters, Splits += C.Splits, Moves += C.Moves, Refinements += C.Refinements;
    BlockNodes += C.BlockNodes, AlignedNodes += C.AlignedNodes, ClusterNodes += C.ClusterNodes;
  }
};

/// Items placed on the clients of a subtree, and the footprint that gives
/// each level of it, by height above the clients (0: the clients' caches,
/// 1: the I/O nodes', 2: the storage nodes').
struct Placement {
  std::vector<std::pair<int, std::vector<Item>>> Leaves;
  std::vector<uint64_t> F;
  uint64_t Overstated = 0; ///< tags of the leaves' parts of split chunks
  Counters Did;
  void absorb(Placement &&P) {
    for (auto &L : P.Leaves)
      Leaves.push_back(std::move(L));
    if (F.size() < P.F.size())
      F.resize(P.F.size(), 0);
    for (size_t H = 0; H < P.F.size(); ++H)
      F[H] += P.F[H];
    Overstated += P.Overstated;
    Did.add(P.Did);
  }
};

/// Whether \p A brings fewer data chunks into some level than \p B by more
/// than \p Slack, and no more into any level nearer the disks (a miss there
/// costs a disk access, one at the clients a network hop).
bool fewerMisses(const std::vector<uint64_t> &A, const std::vector<uint64_t> &B, uint64_t Slack) {
  for (size_t H = std::max(A.size(), B.size()); H-- > 0;) {
    uint64_t X = H < A.size() ? A[H] : 0, Y = H < B.size() ? B[H] : 0;
    if (X > Y)
      return false;
    if (X + Slack < Y)
      return true;
  }
  return false;
}

class Clusterer {
public:
  Clusterer(const std::vector<IterChunk> &Ch, const MapTree &T, const MapOptions &O, MapReport &R)
      : Ch(Ch), T(T), O(O), R(R), PerNode(T.Nodes.size()), Height(T.heights()) {
    for (const IterChunk &C : Ch)
      ChunkSize.push_back(C.size());
  }

  /// Places \p Items on the clients of the whole tree.
  void run(std::vector<Item> Items) {
    // Balance is measured against the same ideal at every level: the
    // iterations per rank of the whole loop (a client's share grows with
    // its ranks), so the tolerance does not compound down the tree.
    Ideal = static_cast<double>(sizeOf(Items)) / std::max(1, T.numRanks());
    Placement P = solve(std::move(Items), 0);
    for (auto &[Node, Its] : P.Leaves)
      PerNode[static_cast<size_t>(Node)] = std::move(Its);
    R.Clusters += P.Did.Clusters, R.Splits += P.Did.Splits, R.Moves += P.Did.Moves;
    R.Refinements += P.Did.Refinements, R.BlockNodes += P.Did.BlockNodes, R.AlignedNodes += P.Did.AlignedNodes;
    R.ClusterNodes += P.Did.ClusterNodes;
  }

  /// Fig. 15, on each node whose children are clients.
  void schedule() {
    for (const MapTree::Node &N : T.Nodes) {
      if (N.Children.empty() || !T.Nodes[static_cast<size_t>(N.Children[0])].Children.empty())
        continue;
      if (O.Local)
        localSchedule(N.Children);
      else
        for (int C : N.Children)
          std::sort(PerNode[static_cast<size_t>(C)].begin(), PerNode[static_cast<size_t>(C)].end(),
                    [](const Item &A, const Item &B) { return A.first() < B.first(); });
    }
  }

  std::vector<Item> &of(int Node) { return PerNode[static_cast<size_t>(Node)]; }

private:
  const std::vector<uint32_t> &tag(const Item &I) const { return Ch[I.Chunk].Tag; }
  double ranksUnder(int Node) const {
    const MapTree::Node &N = T.Nodes[static_cast<size_t>(Node)];
    if (N.Children.empty())
      return static_cast<double>(N.Ranks.size());
    double R = 0;
    for (int C : N.Children)
      R += ranksUnder(C);
    return R;
  }
  /// Dot product of an item's tag with a cluster's tag sum.
  int64_t dot(const Item &I, const std::vector<Item> &C) const {
    int64_t N = 0;
    for (const Item &J : C)
      N += common(tag(I), tag(J));
    return N;
  }

  /// Under \p Node, three cuts of \p Items among its children, each placed
  /// further down: block's own, and two that refineParts improved: block's
  /// moved to the nearest ends of iteration chunks, and the clustering of
  /// Fig. 5. Block's is kept unless another brings fewer data chunks into
  /// some level, none more into a level nearer the disks, by more than
  /// block's count may be overstated: a part of a split iteration chunk is
  /// counted with its whole chunk's tag, which it may not all touch.
  Placement solve(std::vector<Item> Items, int Node) {
    const MapTree::Node &N = T.Nodes[static_cast<size_t>(Node)];
    Placement Out;
    size_t H = Height[static_cast<size_t>(Node)];
    Out.F.assign(H + 1, 0);
    Out.F[H] = mapping::footprint(Ch, Items);
    if (N.Children.empty()) {
      for (const Item &I : Items)
        if (I.Size < ChunkSize[I.Chunk])
          Out.Overstated += tag(I).size();
      Out.Leaves.push_back({Node, std::move(Items)});
      return Out;
    }
    if (N.Children.size() == 1) {
      Out.absorb(solve(std::move(Items), N.Children[0]));
      return Out;
    }
    std::vector<double> Weights;
    mapping::PartLimits L;
    for (int C : N.Children) {
      Weights.push_back(ranksUnder(C));
      L.Lower.push_back(Weights.back() * Ideal * (1 - O.BThres));
      L.Upper.push_back(Weights.back() * Ideal * (1 + O.BThres));
    }
    enum Way { Block, Aligned, Clustered };
    auto Place = [&](Way W) {
      Placement P;
      Parts Ps = W == Clustered ? partition(Items, Weights, P.Did)
                                : mapping::contiguousParts(Items, Weights, W == Aligned ? &L : nullptr);
      if (W != Block)
        P.Did.Refinements += mapping::refineParts(Ch, Ps, L);
      for (size_t K = 0; K < Ps.size(); ++K)
        P.absorb(solve(std::move(Ps[K]), N.Children[K]));
      return P;
    };
    Placement Best = Place(Block), Other = Place(Aligned), Cl = Place(Clustered);
    Way Kept = Block;
    if (fewerMisses(Cl.F, Other.F, 0))
      std::swap(Other, Cl), Kept = Clustered;
    else
      Kept = Aligned;
    if (fewerMisses(Other.F, Best.F, Best.Overstated))
      Best = std::move(Other);
    else
      Kept = Block;
    ++(Kept == Block ? Best.Did.BlockNodes : Kept == Aligned ? Best.Did.AlignedNodes : Best.Did.ClusterNodes);
    Out.absorb(std::move(Best));
    return Out;
  }

  /// Stage 1 (clustering) and stage 2 (load balancing) of one tree level:
  /// one cluster per child, child K receiving Weights[K] ranks' share.
  Parts partition(std::vector<Item> Items, const std::vector<double> &Weights, Counters &Did) {
    size_t K = Weights.size();
    std::vector<std::vector<Item>> Cl;
    for (Item &I : Items)
      Cl.push_back({std::move(I)});
    // Pairwise dot products of the clusters' tag sums; merging adds rows.
    size_t N = Cl.size();
    std::vector<std::vector<int64_t>> Sim(N, std::vector<int64_t>(N, 0));
    for (size_t A = 0; A < N; ++A)
      for (size_t B = A + 1; B < N; ++B)
        Sim[A][B] = Sim[B][A] = common(tag(Cl[A][0]), tag(Cl[B][0]));
    std::vector<bool> Alive(N, true);
    std::vector<int64_t> Size(N);
    for (size_t A = 0; A < N; ++A)
      Size[A] = sizeOf(Cl[A]);
    size_t Live = N;
    while (Live > K) {
      // Ties (clusters that share nothing, above all) go to the pair of
      // fewest iterations: otherwise the first cluster swallows every
      // unrelated one and balancing must tear it apart again.
      size_t BA = 0, BB = 0;
      int64_t Best = -1, BestSize = INT64_MAX;
      for (size_t A = 0; A < N; ++A)
        for (size_t B = A + 1; Alive[A] && B < N; ++B)
          if (Alive[B] && (Sim[A][B] > Best || (Sim[A][B] == Best && Size[A] + Size[B] < BestSize))) {
            Best = Sim[A][B];
            BestSize = Size[A] + Size[B];
            BA = A, BB = B;
          }
      for (Item &I : Cl[BB])
        Cl[BA].push_back(std::move(I));
      Cl[BB].clear();
      Alive[BB] = false;
      Size[BA] += Size[BB];
      for (size_t X = 0; X < N; ++X)
        Sim[BA][X] = Sim[X][BA] = Sim[BA][X] + Sim[BB][X];
      --Live;
    }
    std::vector<std::vector<Item>> Out;
    for (size_t A = 0; A < N; ++A)
      if (Alive[A] && !Cl[A].empty())
        Out.push_back(std::move(Cl[A]));
    // Fewer clusters than children: break the largest in two.
    while (Out.size() < K) {
      size_t L = 0;
      for (size_t A = 1; A < Out.size(); ++A)
        if (sizeOf(Out[A]) > sizeOf(Out[L]))
          L = A;
      std::vector<Item> &Big = Out[L];
      std::vector<Item> Half;
      if (sizeOf(Big) <= 1) {
        Out.push_back({}); // nothing left to share: an idle child
        continue;
      }
      if (Big.size() >= 2) {
        std::sort(Big.begin(), Big.end(), [](const Item &A, const Item &B) { return A.first() < B.first(); });
        int64_t Target = sizeOf(Big) / 2, Moved = 0;
        while (Big.size() > 1 && Moved + Big.back().Size <= Target) {
          Moved += Big.back().Size;
          Half.insert(Half.begin(), std::move(Big.back()));
          Big.pop_back();
        }
        if (Half.empty())
          Half.push_back(splitOff(Big.back(), Big.back().Size / 2)), ++Did.Splits;
      } else {
        Half.push_back(splitOff(Big[0], Big[0].Size / 2));
        ++Did.Splits;
      }
      Out.push_back(std::move(Half));
    }
    // Children in the order of the clusters' first iterations, then the
    // balance against each child's share.
    std::sort(Out.begin(), Out.end(), [](const std::vector<Item> &A, const std::vector<Item> &B) {
      int64_t FA = INT64_MAX, FB = INT64_MAX;
      for (const Item &I : A)
        FA = std::min(FA, I.first());
      for (const Item &I : B)
        FB = std::min(FB, I.first());
      return FA < FB;
    });
    balance(Out, Weights, Did);
    Did.Clusters += Out.size();
    return Out;
  }

  /// Greedy eviction from the cluster most above its limit to the one
  /// most below its share, until every cluster is within BThres of its
  /// share (Weights[K] ranks' worth of iterations each).
  void balance(Parts &Cl, const std::vector<double> &Weights, Counters &Did) {
    int64_t Total = 0;
    double W = 0;
    for (size_t K = 0; K < Cl.size(); ++K)
      Total += sizeOf(Cl[K]), W += Weights[K];
    // Limits against the whole loop's share per rank (so that they do not
    // compound down the tree); targets against this part's own share.
    double PerRank = static_cast<double>(Total) / W;
    auto Target = [&](size_t K) { return Weights[K] * PerRank; };
    auto ULimOf = [&](size_t K) { return Weights[K] * Ideal * (1 + O.BThres); };
    auto LLimOf = [&](size_t K) { return Weights[K] * Ideal * (1 - O.BThres); };
    for (size_t Guard = 0; Guard < 64 * (Cl.size() + 16); ++Guard) {
      size_t P = 0, Q = 0;
      for (size_t A = 1; A < Cl.size(); ++A) {
        if (sizeOf(Cl[A]) - ULimOf(A) > sizeOf(Cl[P]) - ULimOf(P))
          P = A;
        if (sizeOf(Cl[A]) / Target(A) < sizeOf(Cl[Q]) / Target(Q))
          Q = A;
      }
      double SP = static_cast<double>(sizeOf(Cl[P])), SQ = static_cast<double>(sizeOf(Cl[Q]));
      double ULim = ULimOf(Q), LLim = LLimOf(P);
      if (SP <= ULimOf(P) || P == Q)
        return;
      // The item most similar to the receiver among those that may move.
      size_t Pick = Cl[P].size(), Any = Cl[P].size();
      int64_t Best = -1, BestAny = -1;
      for (size_t I = 0; I < Cl[P].size(); ++I) {
        int64_t D = dot(Cl[P][I], Cl[Q]);
        double Sz = static_cast<double>(Cl[P][I].Size);
        if (SP - Sz >= LLim && SQ + Sz <= ULim && D > Best)
          Best = D, Pick = I;
        if (D > BestAny)
          BestAny = D, Any = I;
      }
      ++Did.Moves;
      if (Pick < Cl[P].size()) {
        Cl[Q].push_back(std::move(Cl[P][Pick]));
        Cl[P].erase(Cl[P].begin() + static_cast<long>(Pick));
        continue;
      }
      // None fits whole: split the most similar one to fit.
      int64_t M = static_cast<int64_t>(std::min(SP - Target(P), Target(Q) - SQ));
      if (M < 1)
        M = 1;
      Item &From = Cl[P][Any];
      if (M >= From.Size) {
        Cl[Q].push_back(std::move(From));
        Cl[P].erase(Cl[P].begin() + static_cast<long>(Any));
      } else {
        Cl[Q].push_back(splitOff(From, M));
        ++Did.Splits;
      }
    }
  }

  /// Fig. 15 for the clients \p Cs of one I/O node.
  void localSchedule(const std::vector<int> &Cs) {
    size_t N = Cs.size();
    std::vector<std::vector<Item>> Left(N), Done(N);
    std::vector<int64_t> S(N, 0);
    for (size_t I = 0; I < N; ++I) {
      Left[I] = std::move(PerNode[static_cast<size_t>(Cs[I])]);
      std::sort(Left[I].begin(), Left[I].end(), [](const Item &A, const Item &B) { return A.first() < B.first(); });
    }
    auto Take = [&](size_t I, const Item *X, const Item *Y) {
      // alpha x (La . Lx) + beta x (La . Ly); first pick of the first
      // client: fewest data chunks. Ties: lowest iteration.
      size_t Best = 0;
      double BestV = -1;
      for (size_t A = 0; A < Left[I].size(); ++A) {
        const Item &It = Left[I][A];
        double V;
        if (!X && !Y)
          V = -static_cast<double>(tag(It).size());
        else
          V = (X ? O.Alpha * static_cast<double>(common(tag(It), tag(*X))) : 0) +
              (Y ? O.Beta * static_cast<double>(common(tag(It), tag(*Y))) : 0);
        if (BestV == -1 || V > BestV) {
          BestV = V;
          Best = A;
        }
      }
      S[I] += Left[I][Best].Size;
      Done[I].push_back(std::move(Left[I][Best]));
      Left[I].erase(Left[I].begin() + static_cast<long>(Best));
    };
    auto AnyLeft = [&] {
      for (const auto &L : Left)
        if (!L.empty())
          return true;
      return false;
    };
    while (AnyLeft()) {
      for (size_t I = 0; I < N; ++I) {
        if (Left[I].empty())
          continue;
        const Item *Prev = I > 0 && !Done[I - 1].empty() ? &Done[I - 1].back() : nullptr;
        const Item *Own = Done[I].empty() ? nullptr : &Done[I].back();
        if (I == 0 && !Own) {
          Take(I, nullptr, nullptr);
          continue;
        }
        // The horizontal neighbour of the first client is the last client
        // of the previous round (the balance is circular).
        if (I == 0)
          Prev = !Done[N - 1].empty() ? &Done[N - 1].back() : nullptr;
        int64_t Target = I == 0 ? S[N - 1] : S[I - 1];
        Take(I, Prev, Own); // at least one chunk per round
        while (!Left[I].empty() && S[I] < Target)
          Take(I, I == 0 ? (!Done[N - 1].empty() ? &Done[N - 1].back() : nullptr) : (Done[I - 1].empty() ? nullptr : &Done[I - 1].back()),
               &Done[I].back());
      }
    }
    for (size_t I = 0; I < N; ++I)
      PerNode[static_cast<size_t>(Cs[I])] = std::move(Done[I]);
  }

  const std::vector<IterChunk> &Ch;
  const MapTree &T;
  const MapOptions &O;
  MapReport &R;
  std::vector<std::vector<Item>> PerNode;
  std::vector<size_t> Height;     ///< of each node above the clients
  std::vector<int64_t> ChunkSize; ///< iterations of each chunk
  double Ideal = 0;           ///< iterations per rank of the whole loop
};

std::vector<Item> itemsOf(const std::vector<IterChunk> &Chunks) {
  std::vector<Item> Items;
  for (size_t C = 0; C < Chunks.size(); ++C)
    if (Chunks[C].size() > 0)
      Items.push_back({C, Chunks[C].Pieces, Chunks[C].size()});
  return Items;
}

/// Splits \p Sched (in order) into \p N consecutive parts of equal size.
std::vector<std::vector<Piece>> splitAmong(const std::vector<Piece> &Sched, size_t N) {
  std::vector<std::vector<Piece>> Out(N);
  int64_t Total = 0;
  for (const Piece &P : Sched)
    Total += P.second - P.first;
  size_t R = 0;
  int64_t Given = 0;
  for (Piece P : Sched) {
    while (P.first < P.second) {
      int64_t Quota = (Total * static_cast<int64_t>(R + 1)) / static_cast<int64_t>(N) - Given;
      if (Quota <= 0 && R + 1 < N) {
        ++R;
        continue;
      }
      int64_t Take = R + 1 == N ? P.second - P.first : std::min(Quota, P.second - P.first);
      Out[R].push_back({P.first, P.first + Take});
      P.first += Take;
      Given += Take;
    }
  }
  return Out;
}

void report(const std::vector<std::vector<Piece>> &PerRank, const std::vector<IterChunk> &Chunks, const MapTree &T,
            MapReport &R) {
  int64_t Total = 0, Max = 0;
  for (const auto &Ps : PerRank) {
    int64_t N = 0;
    for (const Piece &P : Ps)
      N += P.second - P.first;
    Total += N;
    Max = std::max(Max, N);
  }
  R.Imbalance = Total ? static_cast<double>(Max) * static_cast<double>(PerRank.size()) / static_cast<double>(Total) - 1
                      : 0;
  // The data chunks under each node of the tree; footprints per level.
  std::vector<std::set<uint32_t>> Under(T.Nodes.size());
  for (int C : T.clients()) {
    std::vector<Piece> Ps;
    for (int Rk : T.Nodes[static_cast<size_t>(C)].Ranks)
      if (static_cast<size_t>(Rk) < PerRank.size())
        Ps.insert(Ps.end(), PerRank[static_cast<size_t>(Rk)].begin(), PerRank[static_cast<size_t>(Rk)].end());
    for (const IterChunk &Ch : Chunks)
      for (const Piece &Q : Ch.Pieces) {
        bool Hit = false;
        for (const Piece &P : Ps)
          Hit |= P.first < Q.second && Q.first < P.second;
        if (Hit) {
          Under[static_cast<size_t>(C)].insert(Ch.Tag.begin(), Ch.Tag.end());
          break;
        }
      }
  }
  // Children are numbered after their parents: a reverse walk sees
  // children first.
  std::vector<size_t> Height = T.heights();
  for (size_t N = T.Nodes.size(); N-- > 0;)
    for (int Ch : T.Nodes[N].Children)
      Under[N].insert(Under[static_cast<size_t>(Ch)].begin(), Under[static_cast<size_t>(Ch)].end());
  for (size_t N = 0; N < T.Nodes.size(); ++N) {
    uint64_t F = Under[N].size();
    if (Height[N] == 0)
      R.FootprintL1 += F;
    else if (Height[N] == 1)
      R.FootprintL2 += F;
    else if (Height[N] == 2)
      R.FootprintL3 += F;
  }
}

} // namespace

std::vector<std::vector<size_t>> clusterChunks(const std::vector<IterChunk> &Chunks, const MapTree &T,
                                               const MapOptions &O, MapReport *Report) {
  MapReport Dummy;
  Clusterer C(Chunks, T, O, Report ? *Report : Dummy);
  C.run(itemsOf(Chunks));
  C.schedule();
  std::vector<std::vector<size_t>> Out;
  for (int Client : T.clients()) {
    Out.emplace_back();
    for (const Item &I : C.of(Client))
      Out.back().push_back(I.Chunk);
  }
  return Out;
}

std::vector<std::vector<Piece>> mapIterations(const std::vector<IterChunk> &Chunks, int64_t Iterations,
                                              const MapTree &T, const MapOptions &O, MapReport *Report) {
  MapReport Local;
  MapReport &R = Report ? *Report : Local;
  int P = T.numRanks();
  std::vector<std::vector<Piece>> PerRank(static_cast<size_t>(std::max(P, 1)));
  if (P <= 1) {
    if (Iterations > 0)
      PerRank[0].push_back({0, Iterations});
    report(PerRank, Chunks, T, R);
    return PerRank;
  }
  // Ranks in tree order (client by client): block and cyclic follow it.
  std::vector<int> Order;
  for (int C : T.clients())
    for (int Rk : T.Nodes[static_cast<size_t>(C)].Ranks)
      Order.push_back(Rk);
  switch (O.Kind) {
  case MapKind::Block:
  case MapKind::Intra:
    for (size_t K = 0; K < Order.size(); ++K) {
      int64_t A = Iterations * static_cast<int64_t>(K) / P, B = Iterations * static_cast<int64_t>(K + 1) / P;
      if (A < B)
        PerRank[static_cast<size_t>(Order[K])].push_back({A, B});
    }
    if (O.Kind == MapKind::Intra)
      for (auto &Mine : PerRank) {
        if (Mine.empty())
          continue;
        // The rank's part of every chunk, chained by shared data chunks.
        Piece Blk = Mine[0];
        std::vector<std::pair<size_t, Piece>> Parts;
        for (size_t C = 0; C < Chunks.size(); ++C)
          for (const Piece &Q : Chunks[C].Pieces) {
            Piece X{std::max(Q.first, Blk.first), std::min(Q.second, Blk.second)};
            if (X.first < X.second)
              Parts.push_back({C, X});
          }
        std::sort(Parts.begin(), Parts.end(), [](const auto &A, const auto &B) { return A.second < B.second; });
        std::vector<Piece> Ordered;
        std::vector<bool> Used(Parts.size(), false);
        size_t Last = Parts.size();
        for (size_t Step = 0; Step < Parts.size(); ++Step) {
          size_t Best = Parts.size();
          double BestV = 0;
          for (size_t I = 0; I < Parts.size(); ++I) {
            if (Used[I])
              continue;
            double V = Last == Parts.size() ? -static_cast<double>(Chunks[Parts[I].first].Tag.size())
                                            : static_cast<double>(common(Chunks[Parts[I].first].Tag,
                                                                         Chunks[Parts[Last].first].Tag));
            if (Best == Parts.size() || V > BestV)
              Best = I, BestV = V;
          }
          Used[Best] = true;
          Ordered.push_back(Parts[Best].second);
          Last = Best;
        }
        if (!Ordered.empty())
          Mine = Ordered;
      }
    break;
  case MapKind::Cyclic:
    for (int64_t K = 0; K < Iterations; ++K)
      PerRank[static_cast<size_t>(Order[static_cast<size_t>(K % P)])].push_back({K, K + 1});
    break;
  case MapKind::Cache: {
    Clusterer C(Chunks, T, O, R);
    C.run(itemsOf(Chunks));
    C.schedule();
    for (int Client : T.clients()) {
      std::vector<Piece> Sched;
      for (const Item &I : C.of(Client))
        Sched.insert(Sched.end(), I.Pieces.begin(), I.Pieces.end());
      const std::vector<int> &Rs = T.Nodes[static_cast<size_t>(Client)].Ranks;
      std::vector<std::vector<Piece>> Parts = splitAmong(Sched, Rs.size());
      for (size_t K = 0; K < Rs.size(); ++K)
        PerRank[static_cast<size_t>(Rs[K])] = std::move(Parts[K]);
    }
    break;
  }
  }
  // Adjacent pieces in execution order merge (fewer calls at run time).
  for (auto &Mine : PerRank) {
    std::vector<Piece> M;
    for (const Piece &Pc : Mine)
      if (!M.empty() && M.back().second == Pc.first)
        M.back().second = Pc.second;
      else
        M.push_back(Pc);
    Mine = std::move(M);
  }
  report(PerRank, Chunks, T, R);
  return PerRank;
}

std::vector<IterChunk> coarsen(std::vector<IterChunk> Chunks, size_t Max) {
  if (Max == 0)
    Max = 1;
  while (Chunks.size() > Max) {
    std::sort(Chunks.begin(), Chunks.end(), [](const IterChunk &A, const IterChunk &B) {
      return A.Pieces.front().first < B.Pieces.front().first;
    });
    std::vector<IterChunk> Next;
    for (size_t I = 0; I < Chunks.size(); I += 2) {
      if (I + 1 == Chunks.size()) {
        Next.push_back(std::move(Chunks[I]));
        break;
      }
      IterChunk M;
      std::set_union(Chunks[I].Tag.begin(), Chunks[I].Tag.end(), Chunks[I + 1].Tag.begin(), Chunks[I + 1].Tag.end(),
                     std::back_inserter(M.Tag));
      M.Pieces = Chunks[I].Pieces;
      M.Pieces.insert(M.Pieces.end(), Chunks[I + 1].Pieces.begin(), Chunks[I + 1].Pieces.end());
      std::sort(M.Pieces.begin(), M.Pieces.end());
      Next.push_back(std::move(M));
    }
    Chunks = std::move(Next);
  }
  return Chunks;
}

} // namespace iopoly
