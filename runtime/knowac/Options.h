//===- Options.h - IOPOLY_KNOWAC* settings ----------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every setting of KNOWAC comes from one table of environment variables
// (Options.cpp), read once per process. A malformed value, or an unknown
// IOPOLY_KNOWAC_* name, is an error naming the variable and the value; the
// interposer then stays out of the way for the whole run (the application
// runs as if KNOWAC were absent).
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_KNOWAC_OPTIONS_H
#define IOPOLY_KNOWAC_OPTIONS_H

#include "KnowacError.h"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace iopoly {
namespace knowac {

/// IOPOLY_KNOWAC: what the interposer does.
enum class Mode {
  Off,      ///< forward every call, learn nothing
  Learn,    ///< record the run and merge it into the accumulation graph
  Prefetch, ///< learn, and prefetch what the graph predicts (default)
};
const char *modeName(Mode M);

struct Options {
  Mode M = Mode::Prefetch;                ///< IOPOLY_KNOWAC
  std::string App;                        ///< IOPOLY_KNOWAC_APP ("" = not set)
  std::string Current = "default";        ///< IOPOLY_KNOWAC_CURRENT
  std::string Db;                         ///< IOPOLY_KNOWAC_DB
  size_t CacheBytes = size_t(256) << 20;  ///< IOPOLY_KNOWAC_CACHE
  bool DryRun = false;                    ///< IOPOLY_KNOWAC_DRY_RUN
  double MinIdleSec = 0.002;              ///< IOPOLY_KNOWAC_MIN_IDLE
  unsigned Lookahead = 64;                ///< IOPOLY_KNOWAC_LOOKAHEAD
  bool Verbose = false;                   ///< IOPOLY_KNOWAC_VERBOSE
  std::string StatsPath;                  ///< IOPOLY_STATS (unexpanded)
};

/// Looks a variable up: its value, or nullptr when unset.
using EnvGet = std::function<const char *(const char *Name)>;
/// Every variable of the environment (for the unknown-name check).
using EnvNames = std::function<std::vector<std::string>()>;

/// The process environment.
EnvGet processEnvGet();
EnvNames processEnvNames();

/// Parses the IOPOLY_KNOWAC* variables (and IOPOLY_STATS) into \p Out.
Error parseOptions(const EnvGet &Get, const EnvNames &Names, Options &Out);

/// The default knowledge database: $XDG_CACHE_HOME/iopoly/knowac.db, else
/// $HOME/.cache/iopoly/knowac.db, else ./knowac.db.
std::string defaultDbPath(const EnvGet &Get);

/// The documented variables: name, default, meaning (README and --help).
struct OptionDoc {
  const char *Name;
  const char *Default;
  const char *Meaning;
};
const std::vector<OptionDoc> &optionDocs();

} // namespace knowac
} // namespace iopoly

#endif
