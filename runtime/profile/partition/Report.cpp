//===- Report.cpp - What a partition plan does, in numbers -----------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "partition/Report.h"

#include <nlohmann/json.hpp>

namespace iopoly::prof {

VariantStats variantStats(const FilePlan &V) {
  VariantStats S;
  S.NRanks = V.NRanks;
  S.Ranks.resize(V.NRanks);
  for (const PlannedChunk &C : V.Chunks) {
    ClassStats &CS = S.ByClass[static_cast<int>(C.Class)];
    CS.Chunks += 1;
    CS.Bytes += C.C.Length;
    uint64_t FirstWrite = UINT64_MAX;
    for (const Accessor &A : C.C.By)
      if (A.Writes)
        FirstWrite = std::min(FirstWrite, A.First);
    for (const Accessor &A : C.C.By) {
      CS.Accesses += A.Accesses;
      CS.AccessBytes += A.Bytes;
      S.AccessBytes += A.Bytes;
      if (A.Rank >= V.NRanks)
        continue;
      RankStats &R = S.Ranks[A.Rank];
      if (C.Class == ChunkClass::Central) {
        R.CentralBytes += A.Bytes;
        S.CentralBytes += A.Bytes;
        continue;
      }
      R.LocalBytes += A.Bytes;
      S.LocalBytes += A.Bytes;
      // A holder that reads before anybody wrote reads the old contents:
      // staged once from the shared file (broadcast readers get it from
      // the writer, who stages it).
      if (A.Reads && A.First < FirstWrite && (C.Class != ChunkClass::Broadcast || A.Writes))
        S.StageBytes += C.C.Length;
      if (C.Class == ChunkClass::Broadcast && A.Writes)
        S.PushBytes += A.Bytes * (C.Holders.size() - 1);
    }
    if (C.Class != ChunkClass::Central && FirstWrite != UINT64_MAX)
      S.GatherBytes += C.C.Length;
    if (C.Class == ChunkClass::Broadcast && FirstWrite != UINT64_MAX) {
      // Readers that read before the write stage through the writer.
      for (const Accessor &A : C.C.By)
        if (!A.Writes && A.First < FirstWrite) {
          S.StageBytes += C.C.Length;
          break;
        }
    }
  }
  for (uint32_t R = 0; R < V.NRanks && R < V.Partitions.size(); ++R)
    for (const PartitionEntry &E : V.Partitions[R]) {
      S.Ranks[R].PartitionChunks += 1;
      S.Ranks[R].PartitionBytes += V.Chunks[E.Chunk].C.Length;
    }
  return S;
}

std::string reportJson(const Plan &P) {
  using nlohmann::json;
  json Files = json::array();
  for (const PlanFile &F : P.Files) {
    json J = {{"path", F.Path}, {"model_note", F.ModelNote}};
    if (!F.Excluded.empty())
      J["excluded"] = F.Excluded;
    json Vs = json::array();
    for (const FilePlan &V : F.Variants) {
      VariantStats S = variantStats(V);
      json Classes = json::object();
      for (int C = 0; C < 4; ++C)
        Classes[className(static_cast<ChunkClass>(C))] = {{"chunks", S.ByClass[C].Chunks},
                                                          {"bytes", S.ByClass[C].Bytes},
                                                          {"accesses", S.ByClass[C].Accesses},
                                                          {"access_bytes", S.ByClass[C].AccessBytes}};
      json Ranks = json::array();
      for (const RankStats &R : S.Ranks)
        Ranks.push_back({{"partition_chunks", R.PartitionChunks},
                         {"partition_bytes", R.PartitionBytes},
                         {"local_bytes", R.LocalBytes},
                         {"central_bytes", R.CentralBytes}});
      Vs.push_back({{"nranks", S.NRanks},
                    {"classes", Classes},
                    {"ranks", Ranks},
                    {"traffic",
                     {{"access_bytes", S.AccessBytes},
                      {"local_bytes", S.LocalBytes},
                      {"central_chunk_bytes", S.CentralBytes},
                      {"stage_bytes", S.StageBytes},
                      {"push_bytes", S.PushBytes},
                      {"gather_bytes", S.GatherBytes},
                      {"expected_central_bytes", S.expectedCentral()},
                      {"central_bytes_without_plan", S.AccessBytes}}}});
    }
    J["variants"] = Vs;
    Files.push_back(J);
  }
  return json({{"files", Files}}).dump();
}

std::string reportText(const Plan &P) {
  std::string Out;
  for (const PlanFile &F : P.Files) {
    Out += strf("%s\n", F.Path.c_str());
    if (!F.Excluded.empty()) {
      Out += strf("  left out: %s\n\n", F.Excluded.c_str());
      continue;
    }
    Out += strf("  other rank counts: %s\n", F.ModelNote.c_str());
    if (F.HasModel)
      for (const Segment &G : F.Model.Segments)
        Out += strf("    (%s) x %-5s offset %s + k*(%s) + r*(%s), length %s + r*(%s)\n", G.Count.str().c_str(),
                    G.Op == IoOp::Write ? "write" : "read", G.A0.str().c_str(), G.AStep.str().c_str(),
                    G.B.str().c_str(), G.L0.str().c_str(), G.LR.str().c_str());
    if (F.HasModel)
      for (const EdgeAccess &E : F.Model.Edges)
        Out += strf("    %s rank only: %-5s offset %s, length %s\n", E.Last ? "last" : "first",
                    E.Op == IoOp::Write ? "write" : "read", E.Off.str().c_str(), E.Len.str().c_str());
    for (const FilePlan &V : F.Variants) {
      VariantStats S = variantStats(V);
      Out += strf("  at %u ranks:\n", V.NRanks);
      Out += strf("    %-10s %8s %12s %9s %14s\n", "class", "chunks", "bytes", "accesses", "access bytes");
      for (int C = 0; C < 4; ++C) {
        const ClassStats &CS = S.ByClass[C];
        Out += strf("    %-10s %8llu %12s %9llu %14s\n", className(static_cast<ChunkClass>(C)),
                    static_cast<unsigned long long>(CS.Chunks), humanBytes(CS.Bytes).c_str(),
                    static_cast<unsigned long long>(CS.Accesses), humanBytes(CS.AccessBytes).c_str());
      }
      Out += strf("    %-6s %8s %12s %12s %12s\n", "rank", "chunks", "local file", "local I/O", "central I/O");
      for (uint32_t R = 0; R < S.Ranks.size(); ++R)
        Out += strf("    %-6u %8llu %12s %12s %12s\n", R, static_cast<unsigned long long>(S.Ranks[R].PartitionChunks),
                    humanBytes(S.Ranks[R].PartitionBytes).c_str(), humanBytes(S.Ranks[R].LocalBytes).c_str(),
                    humanBytes(S.Ranks[R].CentralBytes).c_str());
      double Pct = S.AccessBytes ? 100.0 * S.LocalBytes / S.AccessBytes : 0;
      Out += strf("    traffic: %s of %s accessed served node-locally (%.1f%%); central: %s (central chunks %s + "
                  "staging %s + gather at close %s) instead of %s; broadcast updates %s\n",
                  humanBytes(S.LocalBytes).c_str(), humanBytes(S.AccessBytes).c_str(), Pct,
                  humanBytes(S.expectedCentral()).c_str(), humanBytes(S.CentralBytes).c_str(),
                  humanBytes(S.StageBytes).c_str(), humanBytes(S.GatherBytes).c_str(),
                  humanBytes(S.AccessBytes).c_str(), humanBytes(S.PushBytes).c_str());
    }
    Out += "\n";
  }
  return Out;
}

} // namespace iopoly::prof
