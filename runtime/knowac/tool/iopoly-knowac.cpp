//===- iopoly-knowac.cpp - Inspect and reset KNOWAC knowledge --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//   iopoly-knowac list               [--db FILE]
//   iopoly-knowac show|dot|export APP [--db FILE] [--current BRANCH]
//   iopoly-knowac forget APP          [--db FILE] [--current BRANCH]
//
// The database defaults to IOPOLY_KNOWAC_DB, else the library's default.
// Exit status: 0 done, 1 error (no such database or application), 2 usage.
//
//===----------------------------------------------------------------------===//
#include "Options.h"
#include "Store.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <sys/stat.h>

using namespace iopoly::knowac;

namespace {

int usage(const char *Msg = nullptr) {
  if (Msg)
    std::fprintf(stderr, "iopoly-knowac: %s\n", Msg);
  std::fprintf(stderr,
               "usage: iopoly-knowac list [--db FILE]\n"
               "       iopoly-knowac show|dot|export|forget APP [--db FILE] [--current BRANCH]\n"
               "  list    every application and branch in the knowledge base\n"
               "  show    the accumulation graph as text: every data object by file and variable\n"
               "  dot     the graph for Graphviz (iopoly-knowac dot APP | dot -Tsvg > graph.svg)\n"
               "  export  the graph as JSON\n"
               "  forget  delete what was learned about APP (every branch, or --current BRANCH)\n"
               "  --db FILE         knowledge base (default: IOPOLY_KNOWAC_DB, else %s)\n"
               "  --current BRANCH  one branch (IOPOLY_KNOWAC_CURRENT of the runs)\n",
               defaultDbPath(processEnvGet()).c_str());
  return 2;
}

std::string human(uint64_t Bytes) {
  char B[32];
  if (Bytes >= (uint64_t(1) << 30))
    std::snprintf(B, sizeof B, "%.1f GiB", double(Bytes) / double(uint64_t(1) << 30));
  else if (Bytes >= (1u << 20))
    std::snprintf(B, sizeof B, "%.1f MiB", double(Bytes) / double(1u << 20));
  else if (Bytes >= (1u << 10))
    std::snprintf(B, sizeof B, "%.1f KiB", double(Bytes) / 1024.0);
  else
    std::snprintf(B, sizeof B, "%llu B", (unsigned long long)Bytes);
  return B;
}

std::string ms(double S) {
  char B[32];
  std::snprintf(B, sizeof B, "%.1f ms", S * 1e3);
  return B;
}

const char *modeWord(char M) {
  return M == 'c' ? "created" : M == 'w' ? "opened writable" : "opened read-only";
}

std::string baseName(const std::string &P) {
  size_t S = P.find_last_of('/');
  return S == std::string::npos ? P : P.substr(S + 1);
}

std::string what(const Vertex &V) {
  if (V.L.O == Op::Start)
    return "start of rank " + V.L.Region.substr(0, V.L.Region.find('/')) + " of " +
           V.L.Region.substr(V.L.Region.find('/') + 1);
  return std::string(V.L.O == Op::Read ? "read " : "write") + "  " + V.L.Var + " [" + V.L.Region + "] in file " +
         std::to_string(V.L.Slot) + " (" + baseName(V.File) + ", " + modeWord(V.L.Mode) + ")";
}

void show(const AppInfo &A, const Graph &G) {
  std::printf("application %s, branch %s: %lld runs, %zu vertices, %zu edges (created %s, updated %s)\n",
              A.Name.c_str(), A.Branch.c_str(), (long long)A.Runs, G.size(), G.edges().size(), A.Created.c_str(),
              A.Updated.c_str());
  for (uint32_t I : G.topologicalOrder()) {
    const Vertex &V = G.vertices()[I];
    if (V.L.O == Op::Start) {
      std::printf("\n  v%-6lld %s, %llu runs\n", (long long)V.DbId, what(V).c_str(), (unsigned long long)V.Visits);
    } else {
      std::printf("  v%-6lld %s  %s  x%llu", (long long)V.DbId, what(V).c_str(), human(V.Bytes).c_str(),
                  (unsigned long long)V.Visits);
      if (V.IoSamples)
        std::printf("  io %s", ms(V.meanIoSeconds()).c_str());
      std::printf("\n");
    }
    for (uint32_t Id : G.outEdges(I)) {
      const Edge &E = G.edges()[Id];
      std::printf("           -> v%lld x%llu, idle %s before\n", (long long)G.vertices()[E.Dst].DbId,
                  (unsigned long long)E.Visits, ms(E.meanGapSeconds()).c_str());
    }
  }
}

std::string dotQuote(const std::string &S) {
  std::string O = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      O += '\\';
    O += C;
  }
  return O + "\"";
}

void dot(const AppInfo &A, const Graph &G) {
  std::printf("  subgraph %s {\n    label=%s;\n", dotQuote("cluster_" + A.Branch).c_str(),
              dotQuote(A.Name + " / " + A.Branch + " (" + std::to_string(A.Runs) + " runs)").c_str());
  for (uint32_t I : G.topologicalOrder()) {
    const Vertex &V = G.vertices()[I];
    std::string Label, Style;
    if (V.L.O == Op::Start) {
      Label = what(V);
      Style = "shape=ellipse";
    } else {
      Label = std::string(V.L.O == Op::Read ? "R " : "W ") + V.L.Var + "\n" + baseName(V.File) + " [" + V.L.Region +
              "]\n" + human(V.Bytes) + " x" + std::to_string(V.Visits);
      Style = V.L.O == Op::Read ? "color=blue" : "color=red";
    }
    std::printf("    v%lld [label=%s, %s];\n", (long long)V.DbId, dotQuote(Label).c_str(), Style.c_str());
  }
  for (const Edge &E : G.edges())
    std::printf("    v%lld -> v%lld [label=\"%llu\"];\n", (long long)G.vertices()[E.Src].DbId,
                (long long)G.vertices()[E.Dst].DbId, (unsigned long long)E.Visits);
  std::printf("  }\n");
}

nlohmann::ordered_json exportJson(const AppInfo &A, const Graph &G) {
  nlohmann::ordered_json J;
  J["branch"] = A.Branch;
  J["runs"] = A.Runs;
  J["created"] = A.Created;
  J["updated"] = A.Updated;
  J["vertices"] = nlohmann::ordered_json::array();
  for (const Vertex &V : G.vertices()) {
    nlohmann::ordered_json X;
    X["id"] = V.DbId;
    X["op"] = V.L.O == Op::Start ? "start" : V.L.O == Op::Read ? "read" : "write";
    X["file_slot"] = V.L.Slot;
    X["file_mode"] = std::string(1, V.L.Mode);
    X["file_name"] = V.File;
    X["var"] = V.L.Var;
    X["region"] = V.L.Region;
    X["visits"] = V.Visits;
    X["bytes"] = V.Bytes;
    X["io_seconds"] = V.IoSeconds;
    X["io_samples"] = V.IoSamples;
    J["vertices"].push_back(X);
  }
  J["edges"] = nlohmann::ordered_json::array();
  for (const Edge &E : G.edges())
    J["edges"].push_back({{"src", G.vertices()[E.Src].DbId},
                          {"dst", G.vertices()[E.Dst].DbId},
                          {"visits", E.Visits},
                          {"gap_seconds", E.GapSeconds}});
  return J;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 2)
    return usage();
  std::string Cmd = Argv[1];
  if (Cmd == "-h" || Cmd == "--help") {
    usage();
    return 0;
  }
  std::string App, Db, Branch;
  bool HaveBranch = false;
  for (int I = 2; I < Argc; ++I) {
    std::string A = Argv[I];
    if ((A == "--db" || A == "--current") && I + 1 < Argc) {
      (A == "--db" ? Db : Branch) = Argv[++I];
      HaveBranch |= A == "--current";
    } else if (A.rfind("--db=", 0) == 0) {
      Db = A.substr(5);
    } else if (A.rfind("--current=", 0) == 0) {
      Branch = A.substr(10);
      HaveBranch = true;
    } else if (!A.empty() && A[0] == '-') {
      return usage(("unknown option '" + A + "'").c_str());
    } else if (App.empty()) {
      App = A;
    } else {
      return usage(("unexpected argument '" + A + "'").c_str());
    }
  }
  bool NeedsApp = Cmd == "show" || Cmd == "dot" || Cmd == "export" || Cmd == "forget";
  if (!NeedsApp && Cmd != "list")
    return usage(("unknown command '" + Cmd + "'").c_str());
  if (NeedsApp && App.empty())
    return usage((Cmd + " needs an application name (iopoly-knowac list shows them)").c_str());
  if (Db.empty()) {
    const char *E = std::getenv("IOPOLY_KNOWAC_DB");
    Db = E && *E ? E : defaultDbPath(processEnvGet());
  }
  struct stat St;
  if (::stat(Db.c_str(), &St) != 0) {
    std::fprintf(stderr, "iopoly-knowac: no knowledge base at '%s' (nothing learned yet, or see --db)\n", Db.c_str());
    return 1;
  }
  Store S;
  if (Error E = S.open(Db, false)) {
    std::fprintf(stderr, "iopoly-knowac: %s\n", E.message().c_str());
    return 1;
  }
  std::vector<AppInfo> Apps;
  if (Error E = S.list(Apps, Cmd == "list" ? nullptr : &App)) {
    std::fprintf(stderr, "iopoly-knowac: %s\n", E.message().c_str());
    return 1;
  }
  if (Cmd == "list") {
    if (Apps.empty())
      std::printf("no applications in %s\n", Db.c_str());
    for (const AppInfo &A : Apps)
      std::printf("%-32s branch %-12s %6lld runs %7lld vertices %7lld edges  updated %s\n", A.Name.c_str(),
                  A.Branch.c_str(), (long long)A.Runs, (long long)A.Vertices, (long long)A.Edges, A.Updated.c_str());
    return 0;
  }
  if (HaveBranch) {
    std::vector<AppInfo> One;
    for (const AppInfo &A : Apps)
      if (A.Branch == Branch)
        One.push_back(A);
    Apps.swap(One);
  }
  if (Apps.empty()) {
    std::fprintf(stderr, "iopoly-knowac: no knowledge about '%s'%s in %s (iopoly-knowac list shows what there is)\n",
                 App.c_str(), HaveBranch ? (" branch '" + Branch + "'").c_str() : "", Db.c_str());
    return 1;
  }
  if (Cmd == "forget") {
    int N = 0;
    if (Error E = S.forget(App, HaveBranch ? &Branch : nullptr, N)) {
      std::fprintf(stderr, "iopoly-knowac: %s\n", E.message().c_str());
      return 1;
    }
    std::printf("forgot %s (%d branch%s) in %s\n", App.c_str(), N, N == 1 ? "" : "es", Db.c_str());
    return 0;
  }
  nlohmann::ordered_json Export;
  if (Cmd == "export") {
    Export["format"] = "iopoly-knowac-export";
    Export["version"] = 1;
    Export["app"] = App;
    Export["db"] = Db;
    Export["branches"] = nlohmann::ordered_json::array();
  }
  if (Cmd == "dot")
    std::printf("digraph %s {\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n",
                dotQuote("knowac " + App).c_str());
  for (size_t I = 0; I < Apps.size(); ++I) {
    Graph G;
    bool Found = false;
    if (Error E = S.load(Apps[I].Name, Apps[I].Branch, G, Found)) {
      std::fprintf(stderr, "iopoly-knowac: %s\n", E.message().c_str());
      return 1;
    }
    if (Cmd == "show") {
      if (I)
        std::printf("\n");
      show(Apps[I], G);
    } else if (Cmd == "dot") {
      dot(Apps[I], G);
    } else {
      Export["branches"].push_back(exportJson(Apps[I], G));
    }
  }
  if (Cmd == "dot")
    std::printf("}\n");
  if (Cmd == "export")
    std::cout << Export.dump(2) << "\n";
  return 0;
}
