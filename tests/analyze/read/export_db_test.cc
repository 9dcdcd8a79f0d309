// Reading a profiler's SQLite export writes nothing beside it (a WAL-mode db opened read-only the
// usual way left <db>-wal and <db>-shm in the user's capture), and commits still in a -wal are read.
#include "analyze/read/export_db.h"

#include <sqlite3.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "testing/temp_tree.h"

namespace optrace::analyze {
namespace {
namespace fs = std::filesystem;
using testing::TempTree;

void Exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
}

// A WAL-mode db with `rows` rows in table T, closed cleanly (SQLite then removes its -wal).
void MakeWalDb(const fs::path& path, int rows) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  Exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE T(x INTEGER);");
  for (int i = 0; i < rows; ++i) Exec(db, "INSERT INTO T VALUES(" + std::to_string(i) + ")");
  sqlite3_close(db);
}

int64_t RowCount(const fs::path& path) {
  sqlite3* db = nullptr;
  int64_t n = -1;
  if (OpenExportDb(path, &db) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM T", -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

bool Exists(const fs::path& p) { return fs::exists(p); }

TEST(ExportDb, AFinishedWalDbIsReadWithoutSideFiles) {
  TempTree tree;
  const fs::path db = fs::path(tree.path("capture")) / "ascend_pytorch_profiler_0.db";
  fs::create_directories(db.parent_path());
  MakeWalDb(db, 3);
  ASSERT_FALSE(Exists(db.string() + "-wal"));
  EXPECT_EQ(RowCount(db), 3);
  EXPECT_FALSE(Exists(db.string() + "-wal"));
  EXPECT_FALSE(Exists(db.string() + "-shm"));
}

TEST(ExportDb, CommitsStillInTheWalAreRead) {
  // A profiler killed before its checkpoint: the last rows are only in the -wal file.
  TempTree tree;
  const fs::path live = fs::path(tree.path("live")) / "p.db", copy = fs::path(tree.path("copy")) / "p.db";
  fs::create_directories(live.parent_path());
  fs::create_directories(copy.parent_path());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(live.c_str(), &db), SQLITE_OK);
  Exec(db, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE T(x INTEGER);");
  Exec(db, "INSERT INTO T VALUES(1); INSERT INTO T VALUES(2);");
  fs::copy_file(live, copy);
  fs::copy_file(live.string() + "-wal", copy.string() + "-wal");
  sqlite3_close(db);
  EXPECT_EQ(RowCount(copy), 2);
}

TEST(ExportDb, PathsWithUriCharactersOpen) {
  TempTree tree;
  const fs::path db = fs::path(tree.path("run 1 #a?b%c")) / "x.db";
  fs::create_directories(db.parent_path());
  MakeWalDb(db, 1);
  EXPECT_EQ(RowCount(db), 1);
  EXPECT_EQ(ImmutableDbUri("/p/a b?#%.db"), "file:/p/a%20b%3F%23%25.db?immutable=1");
  EXPECT_EQ(ImmutableDbUri("//p/x.db"), "file:/p/x.db?immutable=1");
}

}  // namespace
}  // namespace optrace::analyze
