//===- Store.h - The knowledge base in SQLite -------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Accumulation graphs of every application and branch in one SQLite file
// (paper 5, section V.B). The schema (Store.cpp, README "KNOWAC") is
// versioned with PRAGMA user_version and brought up to date by numbered
// migrations, each in a transaction. Many processes share the file: WAL
// journal, a busy timeout, and every merge of a run is one IMMEDIATE
// transaction that re-reads the graph, merges and writes, so concurrent
// ranks and jobs each add their run exactly once. A file that is not a
// database, a SQLite database that is not a knowledge base, or one written
// by a newer schema is refused with an error naming the file; the caller
// then runs without KNOWAC.
//
//===----------------------------------------------------------------------===//
#ifndef IOPOLY_KNOWAC_STORE_H
#define IOPOLY_KNOWAC_STORE_H

#include "Graph.h"
#include "KnowacError.h"

#include <cstdint>
#include <string>
#include <vector>

struct sqlite3;

namespace iopoly {
namespace knowac {

/// One application branch in the knowledge base.
struct AppInfo {
  std::string Name, Branch, Created, Updated;
  int64_t Runs = 0, Vertices = 0, Edges = 0;
};

/// What is logged about a run merged into the graph.
struct RunInfo {
  std::string Host, Mode;
  int64_t Pid = 0;
  int Rank = 0, NProcs = 1;
  uint64_t Accesses = 0, Hits = 0, Predictions = 0;
  double Seconds = 0;
};

class Store {
public:
  /// The schema this code writes; older ones are migrated on open.
  static constexpr int SchemaVersion = 2;

  Store() = default;
  ~Store() { close(); }
  Store(const Store &) = delete;
  Store &operator=(const Store &) = delete;

  /// Opens (and with \p Create creates, with its directory) the database,
  /// checks that it is a knowledge base and migrates it.
  Error open(const std::string &Path, bool Create = true, int BusyTimeoutMs = 30000);
  void close();
  bool isOpen() const { return Db != nullptr; }
  const std::string &path() const { return Path; }
  /// "wal", or the journal mode SQLite kept (e.g. on a file system
  /// without shared memory).
  const std::string &journalMode() const { return Journal; }

  /// The graph of \p App / \p Branch; \p Found is false when there is none.
  Error load(const std::string &App, const std::string &Branch, Graph &G, bool &Found);
  /// Merges one run's path into the graph, in one transaction.
  Error merge(const std::string &App, const std::string &Branch, const std::vector<Step> &Path,
              const RunInfo &Run, MergeStats *Stats = nullptr);
  /// Every application branch, or those of \p App.
  Error list(std::vector<AppInfo> &Out, const std::string *App = nullptr);
  /// Deletes \p App (one branch if \p Branch); \p Deleted branches removed.
  Error forget(const std::string &App, const std::string *Branch, int &Deleted);

  /// Creates a knowledge base at schema \p Version (tests of migration).
  static Error createAtVersion(const std::string &Path, int Version);

private:
  Error fail(const std::string &What) const;
  Error exec(const char *Sql);
  Error migrate();
  Error userVersion(int &V);
  Error loadLocked(int64_t AppId, Graph &G);
  Error appId(const std::string &App, const std::string &Branch, bool Create, int64_t &Id);

  sqlite3 *Db = nullptr;
  std::string Path, Journal;
};

} // namespace knowac
} // namespace iopoly

#endif
