// OpenExportDb: opens a profiler's SQLite export for reading without writing beside it.
//
//   sqlite3* db = nullptr;
//   if (OpenExportDb(path, &db) != SQLITE_OK) { ...sqlite3_errmsg(db), sqlite3_close(db)... }
//
// Opened read-only the usual way, a WAL-mode db (torch_npu writes ascend_pytorch_profiler_*.db in
// WAL mode) makes SQLite create <db>-wal and <db>-shm next to it: files written into the user's
// capture, and a capture in a directory the user cannot write then does not open at all. A
// finished export has no -wal file (or an empty one) and no hot -journal: it is opened immutable
// (no locks, no side files). One with pending commits in its -wal, or a -journal to roll back, is
// opened read-only as before, so nothing committed is missed.
#pragma once

#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace optrace::analyze {

// Also bounds the connection's time: a statement still running past the deadline (2 minutes
// plus one second per MB of the db) is interrupted (SQLITE_INTERRUPT), so no crafted db holds
// analyze forever.
int OpenExportDb(const std::filesystem::path& path, sqlite3** db);

// Whether `name` is a table of the db's own (sqlite_master type 'table', not a virtual table):
// the only objects optrace reads. A view can be recursive (WITH RECURSIVE ... with no end), and
// reading one ran forever while SQLite's temp file grew (issue 53.7); an export writes tables.
bool IsPlainTable(sqlite3* db, const char* name);
// The sqlite_master condition IsPlainTable tests, for queries that list tables themselves.
inline constexpr std::string_view kPlainTableSql =
    "type = 'table' AND upper(substr(ltrim(sql), 1, 14)) <> 'CREATE VIRTUAL'";

// The "file:" URI that opens `path` (made absolute) immutable (the path encoded by UriPath).
std::string ImmutableDbUri(const std::filesystem::path& path);

}  // namespace optrace::analyze
