//===- Options.cpp - The IOPOLY_KNOWAC* table -----------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Sizes and durations use the runtime's parsers (runtime/core/Config.h), so that
// IOPOLY_KNOWAC_CACHE=256M reads like IOPOLY_BUFFER=256M.
//
//===----------------------------------------------------------------------===//
#include "Options.h"

#include "core/Config.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

extern char **environ;

namespace iopoly {
namespace knowac {

const char *modeName(Mode M) {
  switch (M) {
  case Mode::Off:
    return "off";
  case Mode::Learn:
    return "learn";
  case Mode::Prefetch:
    return "prefetch";
  }
  return "?";
}

EnvGet processEnvGet() {
  return [](const char *Name) -> const char * { return std::getenv(Name); };
}

EnvNames processEnvNames() {
  return [] {
    std::vector<std::string> Names;
    for (char **E = environ; E && *E; ++E) {
      const char *Eq = std::strchr(*E, '=');
      Names.emplace_back(*E, Eq ? size_t(Eq - *E) : std::strlen(*E));
    }
    return Names;
  };
}

std::string defaultDbPath(const EnvGet &Get) {
  const char *Xdg = Get("XDG_CACHE_HOME");
  if (Xdg && *Xdg == '/')
    return std::string(Xdg) + "/iopoly/knowac.db";
  const char *Home = Get("HOME");
  if (Home && *Home)
    return std::string(Home) + "/.cache/iopoly/knowac.db";
  return "knowac.db";
}

namespace {

/// A name for an application or a branch: printable, no '/' or newline.
Error checkName(const char *Var, const std::string &V) {
  if (V.empty())
    return {Errc::BadOption, std::string(Var) + " is set but empty"};
  if (V.size() > 200)
    return {Errc::BadOption, std::string(Var) + ": name longer than 200 characters"};
  for (unsigned char C : V)
    if (C < 0x20 || C == 0x7f)
      return {Errc::BadOption, std::string(Var) + "='" + V + "': control characters are not allowed"};
  return {};
}

Error parseFlag(const char *Var, const std::string &V, bool &Out) {
  if (V == "1" || V == "on" || V == "yes" || V == "true")
    Out = true;
  else if (V == "0" || V == "off" || V == "no" || V == "false")
    Out = false;
  else
    return {Errc::BadOption, std::string(Var) + "=" + V + ": expected 0 or 1 (on/off, yes/no, true/false)"};
  return {};
}

struct Entry {
  OptionDoc Doc;
  std::function<Error(Options &, const std::string &)> Set;
};

const std::vector<Entry> &table() {
  static const std::vector<Entry> T = {
      {{"IOPOLY_KNOWAC", "prefetch",
        "off: forward every PnetCDF call untouched; learn: record each run's variable accesses and merge them into "
        "the accumulation graph; prefetch: learn, and prefetch what the graph predicts"},
       [](Options &O, const std::string &V) -> Error {
         if (V == "off")
           O.M = Mode::Off;
         else if (V == "learn")
           O.M = Mode::Learn;
         else if (V == "prefetch")
           O.M = Mode::Prefetch;
         else
           return {Errc::BadOption, "IOPOLY_KNOWAC=" + V + ": expected off, learn or prefetch"};
         return {};
       }},
      {{"IOPOLY_KNOWAC_APP", "compile-time name, else <executable>-<signature hash>",
        "the application's identity in the knowledge base (overrides -DIOPOLY_KNOWAC_APP)"},
       [](Options &O, const std::string &V) {
         O.App = V;
         return checkName("IOPOLY_KNOWAC_APP", V);
       }},
      {{"IOPOLY_KNOWAC_CURRENT", "default",
        "the knowledge branch of the application this run reads and extends (several profiles of one application)"},
       [](Options &O, const std::string &V) {
         O.Current = V;
         return checkName("IOPOLY_KNOWAC_CURRENT", V);
       }},
      {{"IOPOLY_KNOWAC_DB", "$XDG_CACHE_HOME/iopoly/knowac.db (~/.cache/iopoly/knowac.db)",
        "the SQLite knowledge base (created with its directory when missing)"},
       [](Options &O, const std::string &V) -> Error {
         if (V.empty())
           return {Errc::BadOption, "IOPOLY_KNOWAC_DB is set but empty"};
         O.Db = V;
         return {};
       }},
      {{"IOPOLY_KNOWAC_CACHE", "256M", "bound of the prefetch cache per process (K/M/G suffixes)"},
       [](Options &O, const std::string &V) -> Error {
         size_t N = 0;
         if (Status S = parseSize(V, N))
           return {Errc::BadOption, "IOPOLY_KNOWAC_CACHE=" + V + ": " + S.message()};
         O.CacheBytes = N;
         return {};
       }},
      {{"IOPOLY_KNOWAC_DRY_RUN", "0",
        "1: match, predict and schedule as usual but read nothing ahead (measures the metadata and helper-thread "
        "overhead, paper 5 Fig. 13)"},
       [](Options &O, const std::string &V) { return parseFlag("IOPOLY_KNOWAC_DRY_RUN", V, O.DryRun); }},
      {{"IOPOLY_KNOWAC_MIN_IDLE", "2ms",
        "least idle (compute) time the graph must predict before a read for it to be prefetched"},
       [](Options &O, const std::string &V) -> Error {
         double S = 0;
         if (V == "0") {
           O.MinIdleSec = 0;
           return {};
         }
         if (Status St = parseDuration(V, S))
           return {Errc::BadOption, "IOPOLY_KNOWAC_MIN_IDLE=" + V + ": " + St.message()};
         O.MinIdleSec = S;
         return {};
       }},
      {{"IOPOLY_KNOWAC_LOOKAHEAD", "64", "most accesses predicted ahead of the current one (1 to 100000)"},
       [](Options &O, const std::string &V) -> Error {
         char *End = nullptr;
         errno = 0;
         unsigned long N = std::strtoul(V.c_str(), &End, 10);
         if (V.empty() || *End || errno || N < 1 || N > 100000 || V[0] == '-')
           return {Errc::BadOption, "IOPOLY_KNOWAC_LOOKAHEAD=" + V + ": expected an integer from 1 to 100000"};
         O.Lookahead = unsigned(N);
         return {};
       }},
      {{"IOPOLY_KNOWAC_VERBOSE", "0", "1: say on stderr what KNOWAC loads, predicts and merges"},
       [](Options &O, const std::string &V) { return parseFlag("IOPOLY_KNOWAC_VERBOSE", V, O.Verbose); }},
  };
  return T;
}

} // namespace

const std::vector<OptionDoc> &optionDocs() {
  static const std::vector<OptionDoc> Docs = [] {
    std::vector<OptionDoc> D;
    for (const Entry &E : table())
      D.push_back(E.Doc);
    D.push_back({"IOPOLY_STATS", "",
                 "write the statistics JSON object (its knowac member) to this file at exit; %p, %r, %h become pid, "
                 "MPI rank, host"});
    return D;
  }();
  return Docs;
}

Error parseOptions(const EnvGet &Get, const EnvNames &Names, Options &Out) {
  Options O;
  O.Db = defaultDbPath(Get);
  for (const std::string &N : Names()) {
    if (N.rfind("IOPOLY_KNOWAC", 0) != 0)
      continue;
    bool Known = false;
    for (const Entry &E : table())
      Known |= N == E.Doc.Name;
    if (!Known) {
      std::string List;
      for (const Entry &E : table())
        List += std::string(List.empty() ? "" : ", ") + E.Doc.Name;
      return {Errc::BadOption, N + ": unknown variable (known: " + List + ")"};
    }
  }
  for (const Entry &E : table()) {
    const char *V = Get(E.Doc.Name);
    if (!V)
      continue;
    if (Error Err = E.Set(O, V))
      return Err;
  }
  if (const char *S = Get("IOPOLY_STATS"))
    O.StatsPath = S;
  if (const char *V = Get("IOPOLY_VERBOSE"); V && !Get("IOPOLY_KNOWAC_VERBOSE"))
    O.Verbose = std::strcmp(V, "1") == 0;
  Out = O;
  return {};
}

} // namespace knowac
} // namespace iopoly
