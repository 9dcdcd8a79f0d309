#include "analyze/read/export_db.h"

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
  if (NonEmptyFile(wal) || NonEmptyFile(journal)) return sqlite3_open_v2(path.c_str(), db, kFlags, nullptr);
  return sqlite3_open_v2(ImmutableDbUri(path).c_str(), db, kFlags | SQLITE_OPEN_URI, nullptr);
}

}  // namespace optrace::analyze
