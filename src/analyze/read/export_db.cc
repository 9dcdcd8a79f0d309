#include "analyze/read/export_db.h"

#include <chrono>
#include <cstdint>
#include <system_error>

#include "core/uri_path.h"

namespace optrace::analyze {
namespace {

// Whether `path` exists and holds at least one byte.
bool NonEmptyFile(const std::filesystem::path& path) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  return !ec && size > 0;
}

}  // namespace

std::string ImmutableDbUri(const std::filesystem::path& path) {
  // Absolute and normalised: "file://x" would name a host.
  std::error_code ec;
  std::filesystem::path full = std::filesystem::absolute(path, ec).lexically_normal();
  if (ec) full = path;
  return "file:" + UriPath(full.string()) + "?immutable=1";
}

int OpenExportDb(const std::filesystem::path& path, sqlite3** db) {
  // NOMUTEX: one thread per connection, so no lock around every column read.
  constexpr int kFlags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX;
  std::filesystem::path wal = path, journal = path;
  wal += "-wal";
  journal += "-journal";
  const int rc = NonEmptyFile(wal) || NonEmptyFile(journal)
                     ? sqlite3_open_v2(path.c_str(), db, kFlags, nullptr)
                     : sqlite3_open_v2(ImmutableDbUri(path).c_str(), db, kFlags | SQLITE_OPEN_URI, nullptr);
  if (rc == SQLITE_OK && *db) {
    std::error_code ec;
    const uintmax_t bytes = std::filesystem::file_size(path, ec);
    const auto budget = std::chrono::seconds(120) + std::chrono::seconds(ec ? 0 : bytes / (1u << 20));
    // The deadline travels as the handler's argument (steady-clock ticks): no state to free.
    const auto deadline = (std::chrono::steady_clock::now() + budget).time_since_epoch().count();
    sqlite3_progress_handler(
        *db, 10000,
        [](void* arg) -> int {
          return std::chrono::steady_clock::now().time_since_epoch().count() > reinterpret_cast<intptr_t>(arg);
        },
        reinterpret_cast<void*>(static_cast<intptr_t>(deadline)));
  }
  return rc;
}

bool IsPlainTable(sqlite3* db, const char* name) {
  sqlite3_stmt* st = nullptr;
  const std::string sql = "SELECT 1 FROM sqlite_master WHERE name = ?1 AND " + std::string(kPlainTableSql);
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
    return false;
  sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
  const bool found = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return found;
}

}  // namespace optrace::analyze
