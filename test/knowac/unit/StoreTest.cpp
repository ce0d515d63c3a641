//===- StoreTest.cpp - The SQLite knowledge base --------------------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What a run merges survives a reopen; concurrent processes each add their
// runs exactly once; an older schema is migrated; a damaged file, a foreign
// database and a newer schema are refused with an error naming the file;
// a database locked past the busy timeout is reported, not waited on
// forever; forget removes an application with its graph.
//
//===----------------------------------------------------------------------===//
#include "KnowacTestUtil.h"
#include "Store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace iopoly::knowac;
using namespace iopoly::knowac::test;

namespace {
RunInfo run() {
  RunInfo R;
  R.Host = "test";
  R.Mode = "learn";
  return R;
}

void rawSql(const std::string &Path, const char *Sql) {
  sqlite3 *Db = nullptr;
  ASSERT_EQ(sqlite3_open(Path.c_str(), &Db), SQLITE_OK);
  char *Err = nullptr;
  EXPECT_EQ(sqlite3_exec(Db, Sql, nullptr, nullptr, &Err), SQLITE_OK) << (Err ? Err : "");
  sqlite3_free(Err);
  sqlite3_close(Db);
}
} // namespace

TEST(Store, MergedRunsSurviveReopen) {
  Scratch T;
  std::string Db = T.file("sub/dir/k.db"); // directories are created
  {
    Store S;
    ASSERT_FALSE(S.open(Db)) << Db;
    EXPECT_EQ(S.journalMode(), "wal");
    ASSERT_FALSE(S.merge("app", "default", runOf({"a", "b", "c"}), run()));
    ASSERT_FALSE(S.merge("app", "default", runOf({"a", "x", "c"}), run()));
    ASSERT_FALSE(S.merge("app", "other", runOf({"z"}), run()));
  }
  Store S;
  ASSERT_FALSE(S.open(Db, false));
  Graph G;
  bool Found = false;
  ASSERT_FALSE(S.load("app", "default", G, Found));
  ASSERT_TRUE(Found);
  EXPECT_EQ(G.size(), 5u); // start a b c x
  EXPECT_EQ(G.edges().size(), 5u);
  EXPECT_EQ(G.vertices()[size_t(vertexOf(G, "c"))].Visits, 2u);
  EXPECT_EQ(G.vertices()[size_t(vertexOf(G, "a"))].File, "in.nc");
  std::vector<AppInfo> Apps;
  ASSERT_FALSE(S.list(Apps));
  ASSERT_EQ(Apps.size(), 2u);
  EXPECT_EQ(Apps[0].Runs, 2);
  EXPECT_EQ(Apps[0].Vertices, 5);
  ASSERT_FALSE(S.load("nobody", "default", G, Found));
  EXPECT_FALSE(Found);
}

TEST(Store, ForgetDeletesTheGraph) {
  Scratch T;
  Store S;
  ASSERT_FALSE(S.open(T.file("k.db")));
  ASSERT_FALSE(S.merge("app", "default", runOf({"a"}), run()));
  ASSERT_FALSE(S.merge("app", "b2", runOf({"a"}), run()));
  int N = 0;
  std::string B = "b2";
  ASSERT_FALSE(S.forget("app", &B, N));
  EXPECT_EQ(N, 1);
  ASSERT_FALSE(S.forget("app", nullptr, N));
  EXPECT_EQ(N, 1);
  std::vector<AppInfo> Apps;
  ASSERT_FALSE(S.list(Apps));
  EXPECT_TRUE(Apps.empty());
  S.close();
  // The cascade removed the rows, not only the application.
  sqlite3 *Db = nullptr;
  ASSERT_EQ(sqlite3_open(T.file("k.db").c_str(), &Db), SQLITE_OK);
  sqlite3_stmt *St = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(Db, "SELECT (SELECT count(*) FROM vertices) + (SELECT count(*) FROM edges)", -1, &St,
                               nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(St), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(St, 0), 0);
  sqlite3_finalize(St);
  sqlite3_close(Db);
}

TEST(Store, ConcurrentWritersEachAddTheirRuns) {
  Scratch T;
  std::string Db = T.file("k.db");
  const int Procs = 6, Runs = 5;
  std::vector<pid_t> Kids;
  for (int P = 0; P < Procs; ++P) {
    pid_t Pid = ::fork();
    ASSERT_GE(Pid, 0);
    if (Pid == 0) {
      // Each process: its own connection, racing on creation and merges.
      Store S;
      if (S.open(Db))
        _exit(10);
      for (int R = 0; R < Runs; ++R)
        if (S.merge("app", "default", runOf({"a", "b", P % 2 ? "odd" : "even", "c"}), run()))
          _exit(11);
      _exit(0);
    }
    Kids.push_back(Pid);
  }
  for (pid_t Pid : Kids) {
    int St = 0;
    ASSERT_EQ(::waitpid(Pid, &St, 0), Pid);
    ASSERT_TRUE(WIFEXITED(St));
    EXPECT_EQ(WEXITSTATUS(St), 0);
  }
  Store S;
  ASSERT_FALSE(S.open(Db));
  Graph G;
  bool Found = false;
  ASSERT_FALSE(S.load("app", "default", G, Found));
  EXPECT_EQ(G.size(), 6u); // start a b even odd c: no vertex added twice
  EXPECT_EQ(G.vertices()[size_t(vertexOf(G, "a"))].Visits, uint64_t(Procs * Runs));
  EXPECT_EQ(G.vertices()[size_t(vertexOf(G, "even"))].Visits, uint64_t(Procs / 2 * Runs));
  EXPECT_EQ(G.vertices()[size_t(vertexOf(G, "c"))].Visits, uint64_t(Procs * Runs));
  std::vector<AppInfo> Apps;
  ASSERT_FALSE(S.list(Apps));
  ASSERT_EQ(Apps.size(), 1u);
  EXPECT_EQ(Apps[0].Runs, Procs * Runs);
}

TEST(Store, OlderSchemaIsMigrated) {
  Scratch T;
  std::string Db = T.file("v1.db");
  ASSERT_FALSE(Store::createAtVersion(Db, 1));
  rawSql(Db, "INSERT INTO apps VALUES(1, 'old', 'default', 1, 'then', 'then');"
             "INSERT INTO vertices VALUES(1, 1, 'S', -1, ' ', '', '', '0/1', 'S/0/1', 1, 0, 0, 0);"
             "INSERT INTO vertices VALUES(2, 1, 'R', 0, 'r', 'in.nc', 'a', '*', 'R/0r/a/*', 1, 8, 0.5, 1);"
             "INSERT INTO edges VALUES(1, 2, 1, 1, 0.25);");
  Store S;
  ASSERT_FALSE(S.open(Db));
  Graph G;
  bool Found = false;
  ASSERT_FALSE(S.load("old", "default", G, Found));
  ASSERT_TRUE(Found);
  EXPECT_EQ(G.size(), 2u);
  // The run log of version 2 exists now: a merge writes to it.
  EXPECT_FALSE(S.merge("old", "default", runOf({"a"}), run()));
  ASSERT_FALSE(S.load("old", "default", G, Found));
  EXPECT_EQ(G.vertices()[size_t(vertexOf(G, "a"))].Visits, 2u);
}

TEST(Store, NewerSchemaIsRefused) {
  Scratch T;
  std::string Db = T.file("new.db");
  ASSERT_FALSE(Store::createAtVersion(Db, Store::SchemaVersion));
  rawSql(Db, "PRAGMA user_version=99");
  Store S;
  Error E = S.open(Db);
  ASSERT_TRUE(E);
  EXPECT_EQ(E.code(), Errc::DbVersion);
  EXPECT_NE(E.message().find(Db), std::string::npos);
  EXPECT_NE(E.message().find("schema version 99"), std::string::npos);
}

TEST(Store, ForeignDatabaseIsRefused) {
  Scratch T;
  std::string Db = T.file("other.db");
  rawSql(Db, "CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT)");
  Store S;
  Error E = S.open(Db);
  ASSERT_TRUE(E);
  EXPECT_EQ(E.code(), Errc::DbForeign);
  EXPECT_NE(E.message().find("not a KNOWAC knowledge base"), std::string::npos);
  rawSql(Db, "PRAGMA user_version=2");
  E = S.open(Db);
  ASSERT_TRUE(E);
  EXPECT_EQ(E.code(), Errc::DbForeign);
}

TEST(Store, GarbageFileIsRefused) {
  Scratch T;
  std::string Db = T.file("garbage.db");
  {
    std::ofstream F(Db, std::ios::binary);
    for (int I = 0; I < 8192; ++I)
      F.put(char((I * 7919) & 0xff));
  }
  Store S;
  Error E = S.open(Db);
  ASSERT_TRUE(E);
  EXPECT_EQ(E.code(), Errc::DbCorrupt);
  EXPECT_NE(E.message().find(Db), std::string::npos);
}

TEST(Store, DamagedPagesAreReported) {
  Scratch T;
  std::string Db = T.file("damaged.db");
  {
    Store S;
    ASSERT_FALSE(S.open(Db));
    std::vector<std::string> Many;
    for (int I = 0; I < 400; ++I)
      Many.push_back("variable_with_a_long_name_" + std::to_string(I));
    ASSERT_FALSE(S.merge("app", "default", runOf(Many), run()));
  }
  rawSql(Db, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE");
  {
    // Overwrite everything after the first page (the header stays valid).
    std::fstream F(Db, std::ios::in | std::ios::out | std::ios::binary);
    F.seekp(4096);
    for (int I = 0; I < 16384; ++I)
      F.put(char(0xa5));
  }
  Store S;
  Error E = S.open(Db);
  Graph G;
  bool Found = false;
  if (!E)
    E = S.load("app", "default", G, Found);
  ASSERT_TRUE(E);
  EXPECT_EQ(E.code(), Errc::DbCorrupt) << E.message();
}

TEST(Store, BusyDatabaseIsReportedAfterTheTimeout) {
  Scratch T;
  std::string Db = T.file("k.db");
  Store A, B;
  ASSERT_FALSE(A.open(Db));
  ASSERT_FALSE(B.open(Db, true, 100));
  sqlite3 *Raw = nullptr;
  ASSERT_EQ(sqlite3_open(Db.c_str(), &Raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(Raw, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  Error E = B.merge("app", "default", runOf({"a"}), run());
  ASSERT_TRUE(E);
  EXPECT_EQ(E.code(), Errc::DbBusy);
  // Readers are not blocked by the writer (WAL).
  Graph G;
  bool Found = true;
  EXPECT_FALSE(A.load("app", "default", G, Found));
  sqlite3_exec(Raw, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(Raw);
  EXPECT_FALSE(B.merge("app", "default", runOf({"a"}), run()));
}
