//===- Store.cpp - SQLite schema, migrations, load and merge --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Schema version 2 (PRAGMA user_version):
//
//   knowac_meta(key, value)       ('format', 'iopoly-knowac'): marks the file
//   apps(id, name, branch, runs, created, updated)
//                                 one accumulation graph per application
//                                 name and branch (IOPOLY_KNOWAC_CURRENT)
//   vertices(id, app, op, file_slot, file_mode, file_name, var, region, key,
//            visits, bytes, io_seconds, io_samples)
//                                 data objects (Label.h): op 'S' start, 'R'
//                                 read, 'W' write; key = the label's identity
//   edges(src, dst, app, visits, gap_seconds)
//                                 observed order, runs through it, summed
//                                 idle time between the two accesses
//   runs(id, app, finished, host, pid, rank, nprocs, mode, accesses, hits,
//        predictions, new_vertices, seconds)        (version 2) a run log
//
// Deleting an app deletes its vertices, edges and runs (foreign keys with
// ON DELETE CASCADE). Times are ISO 8601 UTC.
//
//===----------------------------------------------------------------------===//
#include "Store.h"

#include <sqlite3.h>

#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <unordered_map>

namespace iopoly {
namespace knowac {

namespace {

/// Migration N brings the schema from version N-1 to N.
const char *const Migrations[] = {
    // 1: the accumulation graphs.
    "CREATE TABLE knowac_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT INTO knowac_meta VALUES('format', 'iopoly-knowac');"
    "CREATE TABLE apps(id INTEGER PRIMARY KEY, name TEXT NOT NULL, branch TEXT NOT NULL,"
    "  runs INTEGER NOT NULL DEFAULT 0, created TEXT NOT NULL, updated TEXT NOT NULL,"
    "  UNIQUE(name, branch));"
    "CREATE TABLE vertices(id INTEGER PRIMARY KEY,"
    "  app INTEGER NOT NULL REFERENCES apps(id) ON DELETE CASCADE,"
    "  op TEXT NOT NULL, file_slot INTEGER NOT NULL, file_mode TEXT NOT NULL, file_name TEXT NOT NULL,"
    "  var TEXT NOT NULL, region TEXT NOT NULL, key TEXT NOT NULL,"
    "  visits INTEGER NOT NULL, bytes INTEGER NOT NULL, io_seconds REAL NOT NULL, io_samples INTEGER NOT NULL);"
    "CREATE INDEX vertices_by_app ON vertices(app, key);"
    "CREATE TABLE edges(src INTEGER NOT NULL REFERENCES vertices(id) ON DELETE CASCADE,"
    "  dst INTEGER NOT NULL REFERENCES vertices(id) ON DELETE CASCADE,"
    "  app INTEGER NOT NULL REFERENCES apps(id) ON DELETE CASCADE,"
    "  visits INTEGER NOT NULL, gap_seconds REAL NOT NULL, PRIMARY KEY(src, dst));"
    "CREATE INDEX edges_by_app ON edges(app);",
    // 2: a log of the runs merged.
    "CREATE TABLE runs(id INTEGER PRIMARY KEY,"
    "  app INTEGER NOT NULL REFERENCES apps(id) ON DELETE CASCADE,"
    "  finished TEXT NOT NULL, host TEXT NOT NULL, pid INTEGER NOT NULL, rank INTEGER NOT NULL,"
    "  nprocs INTEGER NOT NULL, mode TEXT NOT NULL, accesses INTEGER NOT NULL, hits INTEGER NOT NULL,"
    "  predictions INTEGER NOT NULL, new_vertices INTEGER NOT NULL, seconds REAL NOT NULL);"
    "CREATE INDEX runs_by_app ON runs(app);",
};
static_assert(sizeof(Migrations) / sizeof(Migrations[0]) == Store::SchemaVersion,
              "one migration per schema version");

const char *const Now = "strftime('%Y-%m-%dT%H:%M:%SZ','now')";

/// A prepared statement, finalized on scope exit.
class Stmt {
public:
  Stmt(sqlite3 *Db, const std::string &Sql) { Rc = sqlite3_prepare_v2(Db, Sql.c_str(), -1, &S, nullptr); }
  ~Stmt() { sqlite3_finalize(S); }
  bool ok() const { return Rc == SQLITE_OK; }
  Stmt &bind(int I, int64_t V) {
    sqlite3_bind_int64(S, I, V);
    return *this;
  }
  Stmt &bind(int I, double V) {
    sqlite3_bind_double(S, I, V);
    return *this;
  }
  Stmt &bind(int I, const std::string &V) {
    sqlite3_bind_text(S, I, V.data(), int(V.size()), SQLITE_TRANSIENT);
    return *this;
  }
  /// SQLITE_ROW, SQLITE_DONE or an error code.
  int step() { return sqlite3_step(S); }
  void reset() {
    sqlite3_reset(S);
    sqlite3_clear_bindings(S);
  }
  int64_t i64(int C) const { return sqlite3_column_int64(S, C); }
  double dbl(int C) const { return sqlite3_column_double(S, C); }
  std::string text(int C) const {
    const unsigned char *T = sqlite3_column_text(S, C);
    return T ? std::string(reinterpret_cast<const char *>(T), size_t(sqlite3_column_bytes(S, C))) : std::string();
  }

private:
  sqlite3_stmt *S = nullptr;
  int Rc = SQLITE_ERROR;
};

/// mkdir -p of the directory part of \p Path.
bool makeParents(const std::string &Path, std::string &Err) {
  size_t Slash = Path.find_last_of('/');
  if (Slash == std::string::npos || Slash == 0)
    return true;
  std::string Dir = Path.substr(0, Slash);
  for (size_t I = 1; I <= Dir.size(); ++I) {
    if (I != Dir.size() && Dir[I] != '/')
      continue;
    std::string Part = Dir.substr(0, I);
    if (::mkdir(Part.c_str(), 0755) != 0 && errno != EEXIST) {
      Err = "cannot create directory '" + Part + "': " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

Op opOf(const std::string &T) {
  return T == "S" ? Op::Start : T == "W" ? Op::Write : Op::Read;
}

/// Undoes an open transaction unless committed.
class Transaction {
public:
  explicit Transaction(sqlite3 *Db) : Db(Db) {}
  ~Transaction() {
    if (Open)
      sqlite3_exec(Db, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  int begin(const char *Kind) {
    int Rc = sqlite3_exec(Db, Kind, nullptr, nullptr, nullptr);
    Open = Rc == SQLITE_OK;
    return Rc;
  }
  int commit() {
    int Rc = sqlite3_exec(Db, "COMMIT", nullptr, nullptr, nullptr);
    if (Rc == SQLITE_OK)
      Open = false;
    return Rc;
  }

private:
  sqlite3 *Db;
  bool Open = false;
};

} // namespace

Error Store::fail(const std::string &What) const {
  int Rc = Db ? sqlite3_errcode(Db) & 0xff : SQLITE_ERROR;
  std::string Msg = "knowledge database '" + Path + "': " + What + ": " + (Db ? sqlite3_errmsg(Db) : "not open");
  switch (Rc) {
  case SQLITE_NOTADB:
  case SQLITE_CORRUPT:
    return {Errc::DbCorrupt, Msg + " (the file is damaged or not a SQLite database; remove it or set "
                                   "IOPOLY_KNOWAC_DB to another file)"};
  case SQLITE_BUSY:
  case SQLITE_LOCKED:
    return {Errc::DbBusy, Msg + " (other processes held it longer than the busy timeout)"};
  case SQLITE_CANTOPEN:
  case SQLITE_PERM:
  case SQLITE_READONLY:
    return {Errc::DbOpen, Msg};
  default:
    return {Errc::DbFailed, Msg};
  }
}

Error Store::exec(const char *Sql) {
  if (sqlite3_exec(Db, Sql, nullptr, nullptr, nullptr) != SQLITE_OK)
    return fail(std::string("'") + std::string(Sql).substr(0, 40) + "'");
  return {};
}

Error Store::userVersion(int &V) {
  Stmt S(Db, "PRAGMA user_version");
  if (!S.ok() || S.step() != SQLITE_ROW)
    return fail("reading the schema version");
  V = int(S.i64(0));
  return {};
}

Error Store::open(const std::string &P, bool Create, int BusyTimeoutMs) {
  close();
  Path = P;
  if (Create) {
    std::string Err;
    if (!makeParents(P, Err))
      return {Errc::DbOpen, "knowledge database '" + P + "': " + Err};
  }
  int Flags = SQLITE_OPEN_READWRITE | (Create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(P.c_str(), &Db, Flags, nullptr) != SQLITE_OK) {
    Error E = Db ? fail("cannot open") : Error{Errc::DbOpen, "knowledge database '" + P + "': cannot open"};
    if (!Create && Db && (sqlite3_errcode(Db) & 0xff) == SQLITE_CANTOPEN)
      E = {Errc::NotFound, "knowledge database '" + P + "' does not exist"};
    close();
    return E;
  }
  sqlite3_extended_result_codes(Db, 1);
  sqlite3_busy_timeout(Db, BusyTimeoutMs);
  // No checkpoint (and its fsync) when a run closes the base: commits copy
  // the journal back once it holds 1000 pages, so each run's merge stays a
  // WAL append.
  sqlite3_db_config(Db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  int V = 0;
  if (Error E = userVersion(V)) {
    close();
    return E;
  }
  // WAL lets readers (a starting run) go on while another run merges. A
  // file system without shared memory keeps the rollback journal: still
  // correct, only less concurrent.
  {
    Stmt J(Db, "PRAGMA journal_mode=WAL");
    Journal = J.ok() && J.step() == SQLITE_ROW ? J.text(0) : "unknown";
  }
  if (Error E = exec("PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL")) {
    close();
    return E;
  }
  if (Error E = migrate()) {
    close();
    return E;
  }
  return {};
}

void Store::close() {
  if (Db)
    sqlite3_close_v2(Db);
  Db = nullptr;
}

Error Store::migrate() {
  int V = 0;
  if (Error E = userVersion(V))
    return E;
  auto Foreign = [&](const std::string &Why) {
    return Error{Errc::DbForeign, "'" + Path + "' is a SQLite database but not a KNOWAC knowledge base (" + Why +
                                      "); set IOPOLY_KNOWAC_DB to another file"};
  };
  auto TooNew = [&](int Found) {
    return Error{Errc::DbVersion, "knowledge database '" + Path + "' has schema version " + std::to_string(Found) +
                                      "; this iopoly reads versions 1 to " + std::to_string(SchemaVersion) +
                                      " (written by a newer iopoly?); KNOWAC is off for this run"};
  };
  if (V > SchemaVersion)
    return TooNew(V);
  auto CheckMark = [&]() -> Error {
    Stmt S(Db, "SELECT value FROM knowac_meta WHERE key='format'");
    if (!S.ok())
      return (sqlite3_errcode(Db) & 0xff) == SQLITE_ERROR ? Foreign("no knowac_meta table")
                                                          : fail("reading knowac_meta");
    int Rc = S.step();
    if (Rc == SQLITE_ROW && S.text(0) == "iopoly-knowac")
      return {};
    if (Rc == SQLITE_ROW || Rc == SQLITE_DONE)
      return Foreign("knowac_meta has no format 'iopoly-knowac'");
    return fail("reading knowac_meta");
  };
  if (V == SchemaVersion)
    return CheckMark();
  // Older or new: migrate under a write lock, re-reading the version (a
  // concurrent process may have done it meanwhile).
  Transaction T(Db);
  if (T.begin("BEGIN IMMEDIATE") != SQLITE_OK)
    return fail("locking to create or migrate the schema");
  if (Error E = userVersion(V))
    return E;
  if (V > SchemaVersion)
    return TooNew(V);
  if (V == 0) {
    Stmt S(Db, "SELECT count(*) FROM sqlite_master");
    if (!S.ok() || S.step() != SQLITE_ROW)
      return fail("reading the table list");
    if (S.i64(0) != 0)
      return Foreign("it has tables but no schema version");
  } else if (Error E = CheckMark()) {
    return E;
  }
  for (int Next = V + 1; Next <= SchemaVersion; ++Next) {
    if (sqlite3_exec(Db, Migrations[Next - 1], nullptr, nullptr, nullptr) != SQLITE_OK)
      return fail("migrating the schema to version " + std::to_string(Next));
    std::string Set = "PRAGMA user_version=" + std::to_string(Next);
    if (Error E = exec(Set.c_str()))
      return E;
  }
  if (T.commit() != SQLITE_OK)
    return fail("committing the schema");
  return {};
}

Error Store::createAtVersion(const std::string &P, int Version) {
  Store S;
  S.Path = P;
  if (sqlite3_open_v2(P.c_str(), &S.Db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK)
    return S.fail("cannot create");
  for (int N = 1; N <= Version && N <= SchemaVersion; ++N) {
    if (sqlite3_exec(S.Db, Migrations[N - 1], nullptr, nullptr, nullptr) != SQLITE_OK)
      return S.fail("creating schema version " + std::to_string(N));
  }
  std::string Set = "PRAGMA user_version=" + std::to_string(Version);
  return S.exec(Set.c_str());
}

Error Store::appId(const std::string &App, const std::string &Branch, bool Create, int64_t &Id) {
  Id = 0;
  if (Create) {
    Stmt Ins(Db, std::string("INSERT INTO apps(name, branch, runs, created, updated) VALUES(?1, ?2, 0, ") + Now +
                     ", " + Now + ") ON CONFLICT(name, branch) DO NOTHING");
    if (!Ins.ok())
      return fail("preparing the application insert");
    Ins.bind(1, App).bind(2, Branch);
    if (Ins.step() != SQLITE_DONE)
      return fail("adding application '" + App + "'");
  }
  Stmt Q(Db, "SELECT id FROM apps WHERE name=?1 AND branch=?2");
  if (!Q.ok())
    return fail("preparing the application lookup");
  Q.bind(1, App).bind(2, Branch);
  int Rc = Q.step();
  if (Rc == SQLITE_ROW)
    Id = Q.i64(0);
  else if (Rc != SQLITE_DONE)
    return fail("looking up application '" + App + "'");
  return {};
}

Error Store::loadLocked(int64_t AppId, Graph &G) {
  G = Graph();
  std::unordered_map<int64_t, uint32_t> Index;
  Stmt Vq(Db, "SELECT id, op, file_slot, file_mode, file_name, var, region, visits, bytes, io_seconds, io_samples "
              "FROM vertices WHERE app=?1 ORDER BY id");
  if (!Vq.ok())
    return fail("preparing the vertex query");
  Vq.bind(1, AppId);
  int Rc;
  while ((Rc = Vq.step()) == SQLITE_ROW) {
    Vertex X;
    X.DbId = Vq.i64(0);
    X.L.O = opOf(Vq.text(1));
    X.L.Slot = int(Vq.i64(2));
    std::string Mode = Vq.text(3);
    X.L.Mode = Mode.empty() ? ' ' : Mode[0];
    X.File = Vq.text(4);
    X.L.Var = Vq.text(5);
    X.L.Region = Vq.text(6);
    X.Visits = uint64_t(Vq.i64(7));
    X.Bytes = uint64_t(Vq.i64(8));
    X.IoSeconds = Vq.dbl(9);
    X.IoSamples = uint64_t(Vq.i64(10));
    int64_t Db = X.DbId;
    Index[Db] = G.addVertex(std::move(X));
  }
  if (Rc != SQLITE_DONE)
    return fail("reading vertices");
  Stmt Eq(Db, "SELECT src, dst, visits, gap_seconds FROM edges WHERE app=?1 ORDER BY rowid");
  if (!Eq.ok())
    return fail("preparing the edge query");
  Eq.bind(1, AppId);
  while ((Rc = Eq.step()) == SQLITE_ROW) {
    auto S = Index.find(Eq.i64(0)), D = Index.find(Eq.i64(1));
    if (S == Index.end() || D == Index.end())
      return {Errc::DbCorrupt, "knowledge database '" + Path + "': an edge names a vertex of another application"};
    uint32_t Id = G.addEdge(S->second, D->second, uint64_t(Eq.i64(2)), Eq.dbl(3));
    G.edges()[Id].Stored = true;
  }
  if (Rc != SQLITE_DONE)
    return fail("reading edges");
  return {};
}

Error Store::load(const std::string &App, const std::string &Branch, Graph &G, bool &Found) {
  Found = false;
  G = Graph();
  Transaction T(Db);
  if (T.begin("BEGIN") != SQLITE_OK)
    return fail("starting a read");
  int64_t Id = 0;
  if (Error E = appId(App, Branch, false, Id))
    return E;
  if (!Id)
    return {};
  if (Error E = loadLocked(Id, G))
    return E;
  Found = true;
  T.commit();
  return {};
}

Error Store::merge(const std::string &App, const std::string &Branch, const std::vector<Step> &PathSteps,
                   const RunInfo &Run, MergeStats *StatsOut) {
  Transaction T(Db);
  if (T.begin("BEGIN IMMEDIATE") != SQLITE_OK)
    return fail("locking to merge the run");
  int64_t Id = 0;
  if (Error E = appId(App, Branch, true, Id))
    return E;
  Graph G;
  if (Error E = loadLocked(Id, G))
    return E;
  MergeStats MS = G.merge(PathSteps);

  Stmt Ins(Db, "INSERT INTO vertices(app, op, file_slot, file_mode, file_name, var, region, key, visits, bytes, "
               "io_seconds, io_samples) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
  Stmt Upd(Db, "UPDATE vertices SET file_name=?2, visits=?3, bytes=?4, io_seconds=?5, io_samples=?6 WHERE id=?1");
  if (!Ins.ok() || !Upd.ok())
    return fail("preparing the vertex updates");
  for (Vertex &X : G.vertices()) {
    if (X.DbId == 0) {
      Ins.bind(1, Id).bind(2, std::string(1, char(X.L.O))).bind(3, int64_t(X.L.Slot));
      Ins.bind(4, std::string(1, X.L.Mode)).bind(5, X.File).bind(6, X.L.Var).bind(7, X.L.Region).bind(8, X.Key);
      Ins.bind(9, int64_t(X.Visits)).bind(10, int64_t(X.Bytes)).bind(11, X.IoSeconds).bind(12, int64_t(X.IoSamples));
      if (Ins.step() != SQLITE_DONE)
        return fail("adding a vertex");
      Ins.reset();
      X.DbId = sqlite3_last_insert_rowid(Db);
    } else if (X.Dirty) {
      Upd.bind(1, X.DbId).bind(2, X.File).bind(3, int64_t(X.Visits)).bind(4, int64_t(X.Bytes));
      Upd.bind(5, X.IoSeconds).bind(6, int64_t(X.IoSamples));
      if (Upd.step() != SQLITE_DONE)
        return fail("updating a vertex");
      Upd.reset();
    }
  }
  Stmt EIns(Db, "INSERT INTO edges(src, dst, app, visits, gap_seconds) VALUES(?1, ?2, ?3, ?4, ?5)");
  Stmt EUpd(Db, "UPDATE edges SET visits=?3, gap_seconds=?4 WHERE src=?1 AND dst=?2");
  if (!EIns.ok() || !EUpd.ok())
    return fail("preparing the edge updates");
  for (const Edge &Ed : G.edges()) {
    int64_t S = G.vertices()[Ed.Src].DbId, D = G.vertices()[Ed.Dst].DbId;
    if (!Ed.Stored) {
      EIns.bind(1, S).bind(2, D).bind(3, Id).bind(4, int64_t(Ed.Visits)).bind(5, Ed.GapSeconds);
      if (EIns.step() != SQLITE_DONE)
        return fail("adding an edge");
      EIns.reset();
    } else if (Ed.Dirty) {
      EUpd.bind(1, S).bind(2, D).bind(3, int64_t(Ed.Visits)).bind(4, Ed.GapSeconds);
      if (EUpd.step() != SQLITE_DONE)
        return fail("updating an edge");
      EUpd.reset();
    }
  }
  Stmt App2(Db, std::string("UPDATE apps SET runs=runs+1, updated=") + Now + " WHERE id=?1");
  if (!App2.ok() || App2.bind(1, Id).step() != SQLITE_DONE)
    return fail("counting the run");
  Stmt R(Db, std::string("INSERT INTO runs(app, finished, host, pid, rank, nprocs, mode, accesses, hits, "
                         "predictions, new_vertices, seconds) VALUES(?1, ") +
                 Now + ", ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)");
  if (!R.ok())
    return fail("preparing the run log");
  R.bind(1, Id).bind(2, Run.Host).bind(3, Run.Pid).bind(4, int64_t(Run.Rank)).bind(5, int64_t(Run.NProcs));
  R.bind(6, Run.Mode).bind(7, int64_t(Run.Accesses)).bind(8, int64_t(Run.Hits)).bind(9, int64_t(Run.Predictions));
  R.bind(10, int64_t(MS.NewVertices)).bind(11, Run.Seconds);
  if (R.step() != SQLITE_DONE)
    return fail("logging the run");
  if (T.commit() != SQLITE_OK)
    return fail("committing the merge");
  if (StatsOut)
    *StatsOut = MS;
  return {};
}

Error Store::list(std::vector<AppInfo> &Out, const std::string *App) {
  Out.clear();
  std::string Sql = "SELECT a.name, a.branch, a.runs, a.created, a.updated,"
                    " (SELECT count(*) FROM vertices v WHERE v.app=a.id),"
                    " (SELECT count(*) FROM edges e WHERE e.app=a.id) FROM apps a";
  if (App)
    Sql += " WHERE a.name=?1";
  Sql += " ORDER BY a.name, a.branch";
  Stmt S(Db, Sql);
  if (!S.ok())
    return fail("preparing the application list");
  if (App)
    S.bind(1, *App);
  int Rc;
  while ((Rc = S.step()) == SQLITE_ROW) {
    AppInfo A;
    A.Name = S.text(0);
    A.Branch = S.text(1);
    A.Runs = S.i64(2);
    A.Created = S.text(3);
    A.Updated = S.text(4);
    A.Vertices = S.i64(5);
    A.Edges = S.i64(6);
    Out.push_back(A);
  }
  if (Rc != SQLITE_DONE)
    return fail("listing applications");
  return {};
}

Error Store::forget(const std::string &App, const std::string *Branch, int &Deleted) {
  Deleted = 0;
  Transaction T(Db);
  if (T.begin("BEGIN IMMEDIATE") != SQLITE_OK)
    return fail("locking to delete");
  Stmt S(Db, Branch ? "DELETE FROM apps WHERE name=?1 AND branch=?2" : "DELETE FROM apps WHERE name=?1");
  if (!S.ok())
    return fail("preparing the delete");
  S.bind(1, App);
  if (Branch)
    S.bind(2, *Branch);
  if (S.step() != SQLITE_DONE)
    return fail("deleting '" + App + "'");
  Deleted = sqlite3_changes(Db);
  if (T.commit() != SQLITE_OK)
    return fail("committing the delete");
  return {};
}

} // namespace knowac
} // namespace iopoly
