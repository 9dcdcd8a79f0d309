// The db readers on what SQL can make of a real export (issue 53.7, 53.8): the fuzz input is SQL
// run on a copy of tests/data/analyze/tp_l0_db's db (views in place of tables, repeated ids,
// NULL or text times, tables dropped or added), then analyze runs to the end. Byte-level
// mutation of the db file (fuzz_analyze_inputs) rarely gets past SQLite's own checks; this
// reaches the readers' queries. The SQL itself is bounded (16 MB of db, a step budget).
#include <sqlite3.h>

#include "fuzz_harness.h"
#include "fuzz_target.h"

OPTRACE_FUZZ_TARGET(fuzz_export_db_sql) {
  using namespace optrace::fuzz;
  Scratch& s = Scratch::Fresh();
  s.CopyFromSource("tests/data/analyze/tp_l0_db/rank0_ascend_pt", "root/rank0_ascend_pt");
  const std::string db_path = s.Path("root/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db");
  sqlite3* db = nullptr;
  if (sqlite3_open(db_path.c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return 0;
  }
  sqlite3_exec(db, "PRAGMA max_page_count = 4096", nullptr, nullptr, nullptr);
  static int steps;
  steps = 0;
  sqlite3_progress_handler(db, 1000, [](void*) -> int { return ++steps > 20000; }, nullptr);
  const std::string sql = Bytes(data, size);
  sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close(db);
  Run({"analyze", s.Path("root"), "-o", s.Path("out")});
  return 0;
}
