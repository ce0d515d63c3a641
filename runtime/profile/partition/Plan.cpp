//===- Plan.cpp - The partition plan (plan.json) ---------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "partition/Plan.h"
#include "core/OutputFile.h"
#include "partition/Report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

namespace iopoly::prof {

using nlohmann::json;

const PlanFile *Plan::find(const std::string &Path) const {
  for (const PlanFile &F : Files)
    if (F.Path == Path)
      return &F;
  return nullptr;
}

Plan buildPlan(const std::map<std::string, FileProfile> &Files, const PlanOptions &O) {
  Plan P;
  P.Scaling = O.Scaling;
  for (const auto &[Path, FP] : Files) {
    PlanFile F;
    F.Path = Path;
    F.Excluded = FP.Excluded;
    if (!F.Excluded.empty() || FP.Runs.empty()) {
      if (F.Excluded.empty())
        F.Excluded = "no MPI-IO accesses";
      P.Files.push_back(std::move(F));
      continue;
    }
    // One variant per rank count, merging the runs at that count.
    std::set<uint32_t> Counts;
    for (const RunAccesses &R : FP.Runs)
      Counts.insert(R.NRanks);
    for (uint32_t N : Counts) {
      std::vector<const std::vector<Access> *> Lists;
      for (const RunAccesses &R : FP.Runs)
        if (R.NRanks == N)
          Lists.push_back(&R.List);
      F.Variants.push_back(partitionFile(Path, N, buildChunks(Lists)));
    }
    // The rank/size model.
    std::vector<RankModel> Models;
    Error E;
    for (const RunAccesses &R : FP.Runs) {
      RankModel M;
      E = fitRun(R, M);
      if (E) {
        E = Error(E.code(), strf("not a function of rank and size at %u ranks: %s", R.NRanks, E.message().c_str()));
        break;
      }
      Models.push_back(std::move(M));
    }
    if (!E)
      E = combineModels(Models, F.Model);
    if (E) {
      F.ModelNote = E.message();
    } else {
      F.HasModel = true;
      if (F.Model.Profiled.size() >= 2) {
        std::string Counts;
        for (uint32_t N : F.Model.Profiled)
          Counts += (Counts.empty() ? "" : ", ") + std::to_string(N);
        F.ModelNote = "fitted across " + Counts + " ranks";
      } else if (O.Scaling == "weak") {
        assumeWeakScaling(F.Model);
        F.ModelNote = strf("profiled at %u ranks; each rank's accesses assumed to keep their shape at other counts "
                           "(--scaling weak)",
                           F.Model.Profiled[0]);
      } else {
        F.ModelNote = strf("regular, but profiled at %u ranks only: profile a second rank count (or pass --scaling "
                           "weak) to plan other counts",
                           F.Model.Profiled[0]);
      }
    }
    P.Files.push_back(std::move(F));
  }
  return P;
}

namespace {

json coefJson(const Coef &C) { return json::array({C.N0, C.N1, C.D}); }

Error coefFrom(const json &J, Coef &C, const std::string &Where) {
  if (!J.is_array() || J.size() != 3 || !J[0].is_number_integer() || !J[1].is_number_integer() ||
      !J[2].is_number_integer() || J[2].get<int64_t>() <= 0)
    return Error(Errc::BadInput, Where + ": a coefficient must be [n0, n1, d] with d > 0");
  C = {J[0].get<int64_t>(), J[1].get<int64_t>(), J[2].get<int64_t>()};
  return Error();
}

json chunkJson(const PlannedChunk &C) {
  json By = json::array();
  for (const Accessor &A : C.C.By)
    By.push_back(json::array({A.Rank, std::string(A.Reads ? "r" : "") + (A.Writes ? "w" : ""), A.Accesses, A.Bytes,
                              A.First}));
  return {{"offset", C.C.Offset}, {"length", C.C.Length}, {"class", className(C.Class)}, {"home", C.Home},
          {"holders", C.Holders}, {"first_ns", C.C.First}, {"by", By}};
}

json variantJson(const FilePlan &V) {
  json Chunks = json::array();
  for (const PlannedChunk &C : V.Chunks)
    Chunks.push_back(chunkJson(C));
  json Parts = json::array();
  for (const auto &Part : V.Partitions) {
    json L = json::array();
    for (const PartitionEntry &E : Part)
      L.push_back(json::array({E.Chunk, E.LocalOffset}));
    Parts.push_back(L);
  }
  return {{"nranks", V.NRanks}, {"chunks", Chunks}, {"partitions", Parts}};
}

json modelJson(const RankModel &M) {
  json Segs = json::array();
  for (const Segment &S : M.Segments)
    Segs.push_back({{"count", coefJson(S.Count)},
                    {"op", S.Op == IoOp::Write ? "write" : "read"},
                    {"a0", coefJson(S.A0)},
                    {"a_step", coefJson(S.AStep)},
                    {"b", coefJson(S.B)},
                    {"l0", coefJson(S.L0)},
                    {"l_rank", coefJson(S.LR)},
                    {"t0_ns", S.T0},
                    {"t_step_ns", S.TStep},
                    {"offset", S.A0.str() + " + k*(" + S.AStep.str() + ") + r*(" + S.B.str() + ")"},
                    {"length", S.L0.str() + " + r*(" + S.LR.str() + ")"}});
  json Edges = json::array();
  for (const EdgeAccess &E : M.Edges)
    Edges.push_back({{"rank", E.Last ? "last" : "first"},
                     {"op", E.Op == IoOp::Write ? "write" : "read"},
                     {"offset", coefJson(E.Off)},
                     {"length", coefJson(E.Len)},
                     {"t_ns", E.T}});
  return {{"profiled_ranks", M.Profiled}, {"extrapolated", M.Extrapolated}, {"segments", Segs}, {"edges", Edges}};
}

// Strict accessors: a plan is user input; every field is checked with its
// place named.
template <typename T> Error get(const json &O, const char *Key, T &Out, const std::string &Where) {
  auto It = O.find(Key);
  if (It == O.end())
    return Error(Errc::BadInput, Where + ": missing \"" + Key + "\"");
  try {
    Out = It->template get<T>();
  } catch (const json::exception &) {
    return Error(Errc::BadInput, Where + ": \"" + Key + "\" has the wrong type");
  }
  return Error();
}

Error variantFrom(const json &J, FilePlan &V, const std::string &Where) {
  if (Error E = get(J, "nranks", V.NRanks, Where))
    return E;
  if (V.NRanks == 0 || V.NRanks > (1u << 24))
    return Error(Errc::BadInput, Where + ": nranks out of range");
  json Chunks, Parts;
  if (Error E = get(J, "chunks", Chunks, Where))
    return E;
  if (Error E = get(J, "partitions", Parts, Where))
    return E;
  if (!Chunks.is_array() || !Parts.is_array() || Parts.size() != V.NRanks)
    return Error(Errc::BadInput, Where + ": chunks must be a list and partitions one list per rank");
  uint64_t PrevEnd = 0;
  for (size_t I = 0; I < Chunks.size(); ++I) {
    std::string W = Where + ".chunks[" + std::to_string(I) + "]";
    const json &C = Chunks[I];
    PlannedChunk PC;
    std::string Cls;
    if (Error E = get(C, "offset", PC.C.Offset, W))
      return E;
    if (Error E = get(C, "length", PC.C.Length, W))
      return E;
    if (Error E = get(C, "class", Cls, W))
      return E;
    if (Error E = get(C, "home", PC.Home, W))
      return E;
    if (Error E = get(C, "holders", PC.Holders, W))
      return E;
    if (!parseClass(Cls, PC.Class))
      return Error(Errc::BadInput, W + ": unknown class '" + Cls + "'");
    if (!PC.C.Length || PC.C.Offset < PrevEnd || PC.C.Offset + PC.C.Length < PC.C.Offset)
      return Error(Errc::BadInput, W + ": chunks must be nonempty, in file order and disjoint");
    PrevEnd = PC.C.Offset + PC.C.Length;
    bool NeedsHome = PC.Class == ChunkClass::Local || PC.Class == ChunkClass::Broadcast;
    if (NeedsHome != (PC.Home >= 0) || PC.Home >= static_cast<int32_t>(V.NRanks))
      return Error(Errc::BadInput, W + ": home does not fit the class");
    for (uint32_t H : PC.Holders)
      if (H >= V.NRanks)
        return Error(Errc::BadInput, W + ": holder out of range");
    if (C.contains("first_ns"))
      get(C, "first_ns", PC.C.First, W).ok();
    if (C.contains("by") && C["by"].is_array())
      for (const json &B : C["by"]) {
        if (!B.is_array() || B.size() != 5)
          return Error(Errc::BadInput, W + ": \"by\" entries are [rank, \"rw\", accesses, bytes, first_ns]");
        Accessor A;
        try {
          A.Rank = B[0].get<uint32_t>();
          std::string RW = B[1].get<std::string>();
          A.Reads = RW.find('r') != std::string::npos;
          A.Writes = RW.find('w') != std::string::npos;
          A.Accesses = B[2].get<uint64_t>();
          A.Bytes = B[3].get<uint64_t>();
          A.First = B[4].get<uint64_t>();
        } catch (const json::exception &) {
          return Error(Errc::BadInput, W + ": bad \"by\" entry");
        }
        PC.C.By.push_back(A);
      }
    V.Chunks.push_back(std::move(PC));
  }
  V.Partitions.resize(V.NRanks);
  for (uint32_t R = 0; R < V.NRanks; ++R) {
    std::string W = Where + ".partitions[" + std::to_string(R) + "]";
    if (!Parts[R].is_array())
      return Error(Errc::BadInput, W + ": not a list");
    uint64_t End = 0;
    for (const json &E : Parts[R]) {
      PartitionEntry PE;
      try {
        PE.Chunk = E.at(0).get<uint32_t>();
        PE.LocalOffset = E.at(1).get<uint64_t>();
      } catch (const json::exception &) {
        return Error(Errc::BadInput, W + ": entries are [chunk, local_offset]");
      }
      if (PE.Chunk >= V.Chunks.size())
        return Error(Errc::BadInput, W + ": chunk index out of range");
      const PlannedChunk &PC = V.Chunks[PE.Chunk];
      if (!std::binary_search(PC.Holders.begin(), PC.Holders.end(), R))
        return Error(Errc::BadInput, W + strf(": chunk %u is not held by rank %u", PE.Chunk, R));
      if (PE.LocalOffset < End)
        return Error(Errc::BadInput, W + ": local ranges overlap");
      End = PE.LocalOffset + PC.C.Length;
      V.Partitions[R].push_back(PE);
    }
  }
  return Error();
}

Error modelFrom(const json &J, RankModel &M, const std::string &Where) {
  if (Error E = get(J, "profiled_ranks", M.Profiled, Where))
    return E;
  if (Error E = get(J, "extrapolated", M.Extrapolated, Where))
    return E;
  json Segs;
  if (Error E = get(J, "segments", Segs, Where))
    return E;
  if (!Segs.is_array() || M.Profiled.empty())
    return Error(Errc::BadInput, Where + ": segments must be a list and profiled_ranks nonempty");
  for (size_t I = 0; I < Segs.size(); ++I) {
    std::string W = Where + ".segments[" + std::to_string(I) + "]";
    Segment S;
    std::string Op;
    if (!Segs[I].contains("count"))
      return Error(Errc::BadInput, W + ": missing \"count\"");
    if (Error E = coefFrom(Segs[I]["count"], S.Count, W + ".count"))
      return E;
    if (Error E = get(Segs[I], "op", Op, W))
      return E;
    if (Op != "read" && Op != "write")
      return Error(Errc::BadInput, W + ": op is read or write");
    S.Op = Op == "write" ? IoOp::Write : IoOp::Read;
    const char *Keys[] = {"a0", "a_step", "b", "l0", "l_rank"};
    Coef *Cs[] = {&S.A0, &S.AStep, &S.B, &S.L0, &S.LR};
    for (int K = 0; K < 5; ++K) {
      if (!Segs[I].contains(Keys[K]))
        return Error(Errc::BadInput, W + ": missing \"" + Keys[K] + "\"");
      if (Error E = coefFrom(Segs[I][Keys[K]], *Cs[K], W + "." + Keys[K]))
        return E;
    }
    get(Segs[I], "t0_ns", S.T0, W).ok();
    get(Segs[I], "t_step_ns", S.TStep, W).ok();
    M.Segments.push_back(S);
  }
  if (J.contains("edges") && J["edges"].is_array())
    for (size_t I = 0; I < J["edges"].size(); ++I) {
      const json &X = J["edges"][I];
      std::string W = Where + ".edges[" + std::to_string(I) + "]", Rank, Op;
      EdgeAccess E;
      if (Error Er = get(X, "rank", Rank, W))
        return Er;
      if (Error Er = get(X, "op", Op, W))
        return Er;
      if ((Rank != "first" && Rank != "last") || (Op != "read" && Op != "write"))
        return Error(Errc::BadInput, W + ": rank is first or last, op is read or write");
      E.Last = Rank == "last";
      E.Op = Op == "write" ? IoOp::Write : IoOp::Read;
      if (!X.contains("offset") || !X.contains("length"))
        return Error(Errc::BadInput, W + ": needs offset and length");
      if (Error Er = coefFrom(X["offset"], E.Off, W + ".offset"))
        return Er;
      if (Error Er = coefFrom(X["length"], E.Len, W + ".length"))
        return Er;
      get(X, "t_ns", E.T, W).ok();
      M.Edges.push_back(E);
    }
  return Error();
}

} // namespace

Error writePlan(const Plan &P, const std::string &Path) {
  json Profiles = json::array();
  for (const ProfileRef &R : P.Profiles)
    Profiles.push_back({{"sources", R.Sources},
                        {"run_id", strf("%016llx", static_cast<unsigned long long>(R.RunId))},
                        {"nranks", R.NRanks},
                        {"program", R.Program}});
  json Files = json::array();
  for (const PlanFile &F : P.Files) {
    json J = {{"path", F.Path}};
    if (!F.Excluded.empty())
      J["excluded"] = F.Excluded;
    json Vs = json::array();
    for (const FilePlan &V : F.Variants)
      Vs.push_back(variantJson(V));
    J["variants"] = Vs;
    J["model"] = F.HasModel ? modelJson(F.Model) : json(nullptr);
    J["model_note"] = F.ModelNote;
    Files.push_back(J);
  }
  json Root = {{"format", "iopoly-partition-plan"}, {"version", kPlanVersion}, {"scaling", P.Scaling},
               {"profiles", Profiles}, {"files", Files}};
  Root["report"] = json::parse(reportJson(P));
  // Replaced atomically, a symbolic link followed (core/OutputFile.h).
  if (iopoly::Status S = iopoly::writeWholeFile(Path, Root.dump(1) + "\n", "the plan"))
    return Error(Errc::Io, S.message());
  return Error();
}

Error parsePlan(const std::string &Text, const std::string &Name, Plan &Out) {
  json Root;
  try {
    Root = json::parse(Text);
  } catch (const json::parse_error &E) {
    return Error(Errc::BadInput, strf("plan '%s' is not valid JSON: %s", Name.c_str(), E.what()));
  }
  std::string Fmt;
  int Version = 0;
  if (!Root.is_object() || get(Root, "format", Fmt, Name) || Fmt != "iopoly-partition-plan")
    return Error(Errc::BadInput, strf("'%s' is not an iopoly partition plan (\"format\" is not "
                                      "\"iopoly-partition-plan\")",
                                      Name.c_str()));
  if (Error E = get(Root, "version", Version, Name))
    return E;
  if (Version != kPlanVersion)
    return Error(Errc::BadInput, strf("plan '%s' has version %d; this build reads version %d", Name.c_str(), Version,
                                      kPlanVersion));
  Plan P;
  if (Root.contains("scaling"))
    get(Root, "scaling", P.Scaling, Name).ok();
  json Files;
  if (Error E = get(Root, "files", Files, Name))
    return E;
  if (!Files.is_array())
    return Error(Errc::BadInput, Name + ": \"files\" must be a list");
  for (size_t I = 0; I < Files.size(); ++I) {
    std::string W = Name + ": files[" + std::to_string(I) + "]";
    PlanFile F;
    if (Error E = get(Files[I], "path", F.Path, W))
      return E;
    W += " (" + F.Path + ")";
    if (Files[I].contains("excluded"))
      get(Files[I], "excluded", F.Excluded, W).ok();
    json Vs;
    if (Error E = get(Files[I], "variants", Vs, W))
      return E;
    for (size_t K = 0; Vs.is_array() && K < Vs.size(); ++K) {
      FilePlan V;
      V.Path = F.Path;
      if (Error E = variantFrom(Vs[K], V, W + ".variants[" + std::to_string(K) + "]"))
        return E;
      F.Variants.push_back(std::move(V));
    }
    if (Files[I].contains("model") && !Files[I]["model"].is_null()) {
      if (Error E = modelFrom(Files[I]["model"], F.Model, W + ".model"))
        return E;
      F.HasModel = true;
    }
    if (Files[I].contains("model_note"))
      get(Files[I], "model_note", F.ModelNote, W).ok();
    P.Files.push_back(std::move(F));
  }
  if (Root.contains("profiles") && Root["profiles"].is_array())
    for (const json &J : Root["profiles"]) {
      ProfileRef R;
      if (J.contains("nranks"))
        get(J, "nranks", R.NRanks, Name).ok();
      if (J.contains("program"))
        get(J, "program", R.Program, Name).ok();
      if (J.contains("sources"))
        get(J, "sources", R.Sources, Name).ok();
      P.Profiles.push_back(std::move(R));
    }
  if (Root.contains("report"))
    P.ReportJson = Root["report"].dump();
  Out = std::move(P);
  return Error();
}

Error readPlan(const std::string &Path, Plan &Out) {
  std::ifstream In(Path);
  if (!In)
    return Error(Errc::NotFound, strf("cannot open the plan '%s': %s", Path.c_str(), std::strerror(errno)));
  std::stringstream S;
  S << In.rdbuf();
  return parsePlan(S.str(), Path, Out);
}

Error resolvePlan(const PlanFile &F, uint32_t NRanks, FilePlan &Out, std::string &How) {
  if (!F.Excluded.empty())
    return Error(Errc::Mismatch, "left out of the plan: " + F.Excluded);
  for (const FilePlan &V : F.Variants)
    if (V.NRanks == NRanks) {
      Out = V;
      How = strf("profiled at %u ranks", NRanks);
      return Error();
    }
  std::string Have;
  for (const FilePlan &V : F.Variants)
    Have += (Have.empty() ? "" : ", ") + std::to_string(V.NRanks);
  if (!F.HasModel)
    return Error(Errc::Mismatch, strf("the plan was made at %s ranks and its accesses are not a function of rank and "
                                      "size (%s); this run has %u",
                                      Have.c_str(), F.ModelNote.c_str(), NRanks));
  if (!modelCovers(F.Model, NRanks))
    return Error(Errc::Mismatch, strf("the plan was made at %s ranks, this run has %u: %s", Have.c_str(), NRanks,
                                      F.ModelNote.c_str()));
  std::vector<Access> Acc;
  if (Error E = instantiate(F.Model, NRanks, Acc))
    return Error(E.code(), strf("the plan's model (%s) does not apply: %s", F.ModelNote.c_str(), E.message().c_str()));
  Out = partitionFile(F.Path, NRanks, buildChunks({&Acc}));
  How = strf("derived at %u ranks from the model (%s)", NRanks, F.ModelNote.c_str());
  return Error();
}

uint64_t layoutHash(const FilePlan &P, uint32_t Rank) {
  uint64_t H = 1469598103934665603ull; // FNV-1a over the partition's ranges
  auto Mix = [&](uint64_t V) {
    for (int I = 0; I < 8; ++I) {
      H ^= (V >> (8 * I)) & 0xff;
      H *= 1099511628211ull;
    }
  };
  Mix(P.NRanks);
  Mix(Rank);
  if (Rank < P.Partitions.size())
    for (const PartitionEntry &E : P.Partitions[Rank]) {
      const PlannedChunk &C = P.Chunks[E.Chunk];
      Mix(C.C.Offset);
      Mix(C.C.Length);
      Mix(E.LocalOffset);
      Mix(static_cast<uint64_t>(C.Class));
      Mix(static_cast<uint64_t>(static_cast<int64_t>(C.Home)));
    }
  return H;
}

} // namespace iopoly::prof
