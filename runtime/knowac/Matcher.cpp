//===- Matcher.cpp - Suffix matching and most-visited prediction ----------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "Matcher.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace iopoly {
namespace knowac {

namespace {
/// Pairs beyond which extending a match stops (a pathological graph with
/// thousands of equal labels); the ambiguous set is then used as it is.
constexpr size_t MaxPairs = 1 << 14;

std::vector<uint32_t> distinctEnds(const std::vector<std::pair<uint32_t, uint32_t>> &Pairs) {
  std::vector<uint32_t> Ends;
  for (const auto &P : Pairs)
    Ends.push_back(P.first);
  std::sort(Ends.begin(), Ends.end());
  Ends.erase(std::unique(Ends.begin(), Ends.end()), Ends.end());
  return Ends;
}
} // namespace

void Matcher::start(const std::string &StartKey) {
  History.clear();
  History.push_back(StartKey);
  Pos.clear();
  for (uint32_t Id : G.withKey(StartKey))
    if (G.inEdges(Id).empty())
      Pos.push_back(Id);
}

void Matcher::advance(const std::string &Key) {
  History.push_back(Key);
  if (History.size() > MaxHistory)
    History.pop_front();
  std::vector<uint32_t> Next;
  for (uint32_t P : Pos)
    for (uint32_t Id : G.outEdges(P)) {
      uint32_t W = G.edges()[Id].Dst;
      if (G.vertices()[W].Key == Key)
        Next.push_back(W);
    }
  if (!Next.empty()) {
    std::sort(Next.begin(), Next.end());
    Next.erase(std::unique(Next.begin(), Next.end()), Next.end());
    Pos = std::move(Next);
    ++Followed;
    return;
  }
  Pos = matchHistory();
  ++Rematched;
}

std::vector<uint32_t> Matcher::matchHistory() const {
  if (History.empty())
    return {};
  // Pairs (end vertex, earliest vertex matched so far): the history suffix
  // of length M ends at 'end' along a path that starts at 'earliest'.
  size_t K = History.size() - 1;
  std::vector<std::pair<uint32_t, uint32_t>> Pairs;
  for (uint32_t Id : G.withKey(History[K]))
    Pairs.emplace_back(Id, Id);
  if (Pairs.empty())
    return {}; // the newest access was never seen: nothing to match
  for (size_t M = 1; M <= K; ++M) {
    if (distinctEnds(Pairs).size() <= 1)
      break; // unique: done
    const std::string &Older = History[K - M];
    std::set<std::pair<uint32_t, uint32_t>> Ext;
    for (const auto &P : Pairs)
      for (uint32_t Id : G.inEdges(P.second)) {
        uint32_t U = G.edges()[Id].Src;
        if (G.vertices()[U].Key == Older)
          Ext.emplace(P.first, U);
      }
    if (Ext.empty())
      break; // the older access fits nowhere: shorten, keep the places found
    if (Ext.size() > MaxPairs)
      break;
    Pairs.assign(Ext.begin(), Ext.end());
  }
  return distinctEnds(Pairs);
}

std::vector<Prediction> Matcher::predict(unsigned Steps) const {
  std::vector<Prediction> Out;
  std::vector<uint32_t> Cur = Pos;
  const auto &Vs = G.vertices();
  const auto &Es = G.edges();
  for (unsigned S = 0; S < Steps && !Cur.empty(); ++S) {
    // Successors grouped by label: visits summed over the current places.
    struct Choice {
      uint64_t Visits = 0;
      uint32_t FirstVertex = UINT32_MAX;
      double Gap = 0;
      std::vector<uint32_t> Vertices;
    };
    std::map<std::string, Choice> ByKey;
    for (uint32_t P : Cur)
      for (uint32_t Id : G.outEdges(P)) {
        const Edge &Ed = Es[Id];
        Choice &C = ByKey[Vs[Ed.Dst].Key];
        C.Visits += Ed.Visits;
        C.Gap += Ed.GapSeconds;
        C.FirstVertex = std::min(C.FirstVertex, Ed.Dst);
        C.Vertices.push_back(Ed.Dst);
      }
    if (ByKey.empty())
      break;
    const std::pair<const std::string, Choice> *Best = nullptr;
    for (const auto &KV : ByKey)
      if (!Best || KV.second.Visits > Best->second.Visits ||
          (KV.second.Visits == Best->second.Visits && KV.second.FirstVertex < Best->second.FirstVertex))
        Best = &KV;
    Prediction P;
    P.Key = Best->first;
    P.Vertices = Best->second.Vertices;
    std::sort(P.Vertices.begin(), P.Vertices.end());
    P.Vertices.erase(std::unique(P.Vertices.begin(), P.Vertices.end()), P.Vertices.end());
    P.GapSeconds = Best->second.Visits ? Best->second.Gap / double(Best->second.Visits) : 0;
    double Io = 0;
    uint64_t N = 0;
    for (uint32_t W : P.Vertices) {
      Io += Vs[W].IoSeconds;
      N += Vs[W].IoSamples;
      P.Bytes = std::max(P.Bytes, Vs[W].Bytes);
    }
    P.IoSeconds = N ? Io / double(N) : 0;
    Cur = P.Vertices;
    Out.push_back(std::move(P));
  }
  return Out;
}

} // namespace knowac
} // namespace iopoly
