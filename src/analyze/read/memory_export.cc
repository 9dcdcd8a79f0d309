// Readers of the memory records, text and db layouts (memory_export.h).
#include "analyze/read/memory_export.h"

#include <limits>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "analyze/read/export_db.h"
#include "core/saturating.h"
#include "core/csv_reader.h"

namespace optrace::analyze {
namespace fs = std::filesystem;
namespace {

// Clamped first: llround of a value past int64 is unspecified (a crafted 1e300 us).
int64_t UsToNs(double us) {
  const double ns = us * 1000.0;
  if (!(ns > -9.2e18)) return std::numeric_limits<int64_t>::min();  // and NaN
  if (ns > 9.2e18) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(std::llround(ns));
}


// Per component maxima and samples of memory_record.csv; false when the file cannot be read.
bool ReadRecords(const fs::path& path, const RankTable& t, std::map<std::string, ComponentRecords>& out) {
  auto reader = CsvReader::Open(path);
  if (!reader.ok()) return false;
  CsvRecord rec;
  auto first = reader->Next(rec);
  if (!first.ok() || !*first) return false;
  CsvHeader h(rec);
  auto comp = h.Find("Component"), ts = h.Find("Timestamp(us)"), alloc = h.Find("Total Allocated(MB)"),
       reserved = h.Find("Total Reserved(MB)");
  if (!comp || !ts || !reserved) return false;
  while (true) {
    auto more = reader->Next(rec);
    if (!more.ok() || !*more) break;
    std::string c(rec.Field(*comp));
    ComponentRecords& cr = out[c];
    ComponentMemory& m = cr.peaks;
    m.component = c;
    std::optional<double> res = ParseCsvNumber(rec.Field(*reserved));
    std::optional<double> at = ParseCsvNumber(rec.Field(*ts));
    std::optional<double> a = alloc ? ParseCsvNumber(rec.Field(*alloc)) : std::nullopt;
    if (res && at) {
      const int64_t rel = SubSaturating(UsToNs(*at), t.base_ns);
      cr.samples.push_back({rel, *res, a ? *a : kMissing});
      if (IsMissing(m.peak_reserved_mb) || *res > m.peak_reserved_mb) {
        m.peak_reserved_mb = *res;
        m.peak_rel_ns = rel;
        m.peak_row = rec.line;
      }
    }
    if (a && (IsMissing(m.peak_allocated_mb) || *a > m.peak_allocated_mb)) m.peak_allocated_mb = *a;
  }
  return true;
}

std::vector<LiveAllocation> LiveAt(const fs::path& path, const RankTable& t, int64_t rel_ns) {
  std::vector<LiveAllocation> live;
  auto reader = CsvReader::Open(path);
  if (!reader.ok()) return live;
  CsvRecord rec;
  auto first = reader->Next(rec);
  if (!first.ok() || !*first) return live;
  CsvHeader h(rec);
  auto name = h.Find("Name"), size = h.Find("Size(KB)"), alloc = h.Find("Allocation Time(us)"),
       release = h.Find("Release Time(us)");
  if (!name || !size || !alloc) return live;
  while (true) {
    auto more = reader->Next(rec);
    if (!more.ok() || !*more) break;
    std::optional<double> kb = ParseCsvNumber(rec.Field(*size)), a = ParseCsvNumber(rec.Field(*alloc));
    if (!kb || !a || SubSaturating(UsToNs(*a), t.base_ns) > rel_ns) continue;
    std::optional<double> rel = release ? ParseCsvNumber(rec.Field(*release)) : std::nullopt;
    if (rel && SubSaturating(UsToNs(*rel), t.base_ns) <= rel_ns) continue;  // released before the peak
    live.push_back({std::string(rec.Field(*name)), *kb / 1024.0, rec.line});
  }
  std::stable_sort(live.begin(), live.end(), [](const LiveAllocation& x, const LiveAllocation& y) { return x.size_mb > y.size_mb; });
  if (live.size() > 5) live.resize(5);
  return live;
}

// The db layout (ascend_pytorch_profiler_*.db): MEMORY_RECORD and OP_MEMORY hold the same records
// as the CSVs, in bytes and ns, names as STRING_IDS ids; the row is the rowid.
class MemoryDb {
 public:
  explicit MemoryDb(const fs::path& path) {
    if (OpenExportDb(path, &db_) != SQLITE_OK) Close();
  }
  ~MemoryDb() { Close(); }
  MemoryDb(const MemoryDb&) = delete;
  MemoryDb& operator=(const MemoryDb&) = delete;
  // Whether `name` is a table of the db's own: views and virtual tables are never read.
  bool HasTable(const char* name) const { return db_ && IsPlainTable(db_, name); }
  // fn(stmt) per row of `sql`; false when the query cannot run (no such table or column), or
  // gives more than `max_rows` rows (a join on ids that repeat: a malformed db, never read whole).
  template <typename Fn>
  bool Query(const char* sql, Fn fn, uint64_t max_rows = UINT64_MAX) {
    if (!db_) return false;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql, -1, &st, nullptr) != SQLITE_OK) return false;
    int rc;
    uint64_t rows = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && ++rows <= max_rows) fn(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE;
  }
  // COUNT(*) of a table of the db's own (0 when it is not one).
  uint64_t Rows(const char* table) {
    uint64_t n = 0;
    if (!HasTable(table)) return 0;
    Query((std::string("SELECT COUNT(*) FROM ") + table).c_str(),
          [&](sqlite3_stmt* st) { n = static_cast<uint64_t>(sqlite3_column_int64(st, 0)); });
    return n;
  }

 private:
  void Close() {
    if (db_) sqlite3_close(db_);
    db_ = nullptr;
  }
  sqlite3* db_ = nullptr;
};

std::string Text(sqlite3_stmt* st, int col) {
  const unsigned char* v = sqlite3_column_text(st, col);
  return v ? reinterpret_cast<const char*>(v) : "";
}
bool Null(sqlite3_stmt* st, int col) { return sqlite3_column_type(st, col) == SQLITE_NULL; }
constexpr double kMb = 1024.0 * 1024.0;

bool ReadDbRecords(MemoryDb& db, const RankTable& t, std::map<std::string, ComponentRecords>& out) {
  if (!db.HasTable("MEMORY_RECORD") || !db.HasTable("STRING_IDS")) return false;
  const uint64_t rows = db.Rows("MEMORY_RECORD");
  return db.Query(
      "SELECT m.rowid, COALESCE(s.value, CAST(m.component AS TEXT)), m.timestamp, m.totalAllocated, m.totalReserved "
      "FROM MEMORY_RECORD m LEFT JOIN STRING_IDS s ON s.id = m.component ORDER BY m.rowid",
      [&](sqlite3_stmt* st) {
        std::string c = Text(st, 1);
        ComponentRecords& cr = out[c];
        ComponentMemory& m = cr.peaks;
        m.component = c;
        const double a = Null(st, 3) ? kMissing : double(sqlite3_column_int64(st, 3)) / kMb;
        if (!Null(st, 4) && !Null(st, 2)) {
          const double res = double(sqlite3_column_int64(st, 4)) / kMb;
          const int64_t rel = SubSaturating(sqlite3_column_int64(st, 2), t.base_ns);
          cr.samples.push_back({rel, res, a});
          if (IsMissing(m.peak_reserved_mb) || res > m.peak_reserved_mb) {
            m.peak_reserved_mb = res;
            m.peak_rel_ns = rel;
            m.peak_row = static_cast<uint64_t>(sqlite3_column_int64(st, 0));
          }
        }
        if (!IsMissing(a) && (IsMissing(m.peak_allocated_mb) || a > m.peak_allocated_mb)) m.peak_allocated_mb = a;
      },
      rows);
}

std::vector<LiveAllocation> DbLiveAt(MemoryDb& db, const RankTable& t, int64_t rel_ns) {
  std::vector<LiveAllocation> live;
  if (!db.HasTable("OP_MEMORY") || !db.HasTable("STRING_IDS")) return live;
  const uint64_t rows = db.Rows("OP_MEMORY");
  db.Query("SELECT o.rowid, COALESCE(s.value, CAST(o.name AS TEXT)), o.size, o.allocationTime, o.releaseTime "
           "FROM OP_MEMORY o LEFT JOIN STRING_IDS s ON s.id = o.name ORDER BY o.rowid",
           [&](sqlite3_stmt* st) {
             if (Null(st, 2) || Null(st, 3) || SubSaturating(sqlite3_column_int64(st, 3), t.base_ns) > rel_ns) return;
             if (!Null(st, 4) && SubSaturating(sqlite3_column_int64(st, 4), t.base_ns) <= rel_ns) return;  // released before
             live.push_back({Text(st, 1), double(sqlite3_column_int64(st, 2)) / kMb,
                             static_cast<uint64_t>(sqlite3_column_int64(st, 0))});
           },
           rows);
  std::stable_sort(live.begin(), live.end(), [](const LiveAllocation& x, const LiveAllocation& y) { return x.size_mb > y.size_mb; });
  if (live.size() > 5) live.resize(5);
  return live;
}

// The db a rank's events came from ("" for a text export).
std::string RankDb(const RankTable& t) {
  for (const SourceFile& f : t.files)
    if (!f.table.empty()) return f.path;
  return "";
}

}  // namespace

std::optional<MemoryRecords> ReadMemoryRecords(const RankTable& t) {
  std::error_code ec;
  const fs::path record = fs::path(t.dir) / "ASCEND_PROFILER_OUTPUT" / "memory_record.csv";
  MemoryRecords out;
  if (fs::is_regular_file(record, ec)) {
    if (!ReadRecords(record, t, out.components)) return std::nullopt;
    out.source = record.string();
    return out;
  }
  const std::string db_path = RankDb(t);
  if (db_path.empty()) return std::nullopt;
  MemoryDb db(db_path);
  if (!ReadDbRecords(db, t, out.components)) return std::nullopt;
  out.source = db_path + "#MEMORY_RECORD";
  out.db = db_path;
  return out;
}

std::vector<LiveAllocation> ReadLiveAllocations(const RankTable& t, const MemoryRecords& records, int64_t rel_ns,
                                                std::string* source) {
  source->clear();
  if (!records.db.empty()) {
    MemoryDb db(records.db);
    std::vector<LiveAllocation> live = DbLiveAt(db, t, rel_ns);
    if (!live.empty()) *source = records.db + "#OP_MEMORY";
    return live;
  }
  std::error_code ec;
  const fs::path ops = fs::path(t.dir) / "ASCEND_PROFILER_OUTPUT" / "operator_memory.csv";
  if (!fs::is_regular_file(ops, ec)) return {};
  *source = ops.string();
  return LiveAt(ops, t, rel_ns);
}

}  // namespace optrace::analyze
