// Reader of the torch_npu db export (ascend_pytorch_profiler_<rank>.db): the same events as
// kernel_details.csv, rebuilt from TASK x COMPUTE_TASK_INFO (+ TASK_PMU_INFO) and COMMUNICATION_OP.
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <future>
#include <map>
#include <set>
#include <tuple>
#include <type_traits>
#include <unordered_map>

#include "analyze/read/export_db.h"
#include "analyze/read/process_identity.h"
#include "analyze/read/normalize.h"
#include "core/csv_reader.h"

namespace optrace::analyze {
namespace {

class Db {
 public:
  ~Db() {
    if (db_) sqlite3_close(db_);
  }
  Status Open(const std::filesystem::path& path) {
    path_ = path.string();
    // NOMUTEX (one thread per connection, so no lock around every column read: 12% of the time);
    // immutable unless the db has pending commits (export_db.h).
    if (OpenExportDb(path, &db_) != SQLITE_OK)
      return BadInputError("{}: cannot open as SQLite: {}", path_, db_ ? sqlite3_errmsg(db_) : "out of memory");
    // Probe: a non-database file fails here, not at open.
    // Tables of the db's own only: a view may be recursive and never end (issue 53.7), and a
    // virtual table is code, not data. Both read as missing; the names are kept for the message.
    sqlite3_stmt* st = nullptr;
    const std::string sql =
        "SELECT name, " + std::string(kPlainTableSql) + " FROM sqlite_master WHERE type IN ('table', 'view')";
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
      return BadInputError("{}: not a readable SQLite database ({})", path_, sqlite3_errmsg(db_));
    while (sqlite3_step(st) == SQLITE_ROW)
      (sqlite3_column_int(st, 1) ? tables_ : not_tables_).insert(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    int rc = sqlite3_finalize(st);
    if (rc != SQLITE_OK) return BadInputError("{}: not a readable SQLite database ({})", path_, sqlite3_errmsg(db_));
    return Status::Ok();
  }
  bool HasTable(const std::string& t) const { return tables_.count(t) > 0; }
  // A view or virtual table of that name, not read.
  bool HasNonTable(const std::string& t) const { return not_tables_.count(t) > 0; }
  std::set<std::string> Columns(const std::string& table) {
    std::set<std::string> out;
    sqlite3_stmt* st = nullptr;
    std::string q = "PRAGMA table_info(" + table + ")";
    if (sqlite3_prepare_v2(db_, q.c_str(), -1, &st, nullptr) != SQLITE_OK) return out;
    while (sqlite3_step(st) == SQLITE_ROW) out.insert(reinterpret_cast<const char*>(sqlite3_column_text(st, 1)));
    sqlite3_finalize(st);
    return out;
  }
  // Runs `sql`, calling fn(stmt) per row; a fn that returns bool stops the query with false.
  template <typename Fn>
  Status Query(const std::string& sql, Fn fn) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
      return BadInputError("{}: query failed ({}): {}", path_, sqlite3_errmsg(db_), sql);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      if constexpr (std::is_same_v<decltype(fn(st)), bool>) {
        if (!fn(st)) {
          rc = SQLITE_DONE;
          break;
        }
      } else {
        fn(st);
      }
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_INTERRUPT)
      return BadInputError("{}: reading stopped at the time limit (2 minutes + 1 s per MB of the db): the db is not "
                           "an export optrace can read in bounded time",
                           path_);
    if (rc != SQLITE_DONE) return BadInputError("{}: reading failed: {}", path_, sqlite3_errmsg(db_));
    return Status::Ok();
  }
  const std::string& path() const { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  std::set<std::string> tables_;
  std::set<std::string> not_tables_;
};

// Values by db id (STRING_IDS.id, globalTaskId): a vector while the ids are dense (0..n-1 in
// every export seen), a hash map for ids far beyond the expected count.
template <typename T>
class IdTable {
 public:
  explicit IdTable(size_t dense_limit) : limit_(dense_limit) {}
  T& At(int64_t id) {
    if (id >= 0 && static_cast<uint64_t>(id) < limit_) {
      if (static_cast<size_t>(id) >= dense_.size()) {
        dense_.resize(std::max<size_t>(static_cast<size_t>(id) + 1, dense_.size() * 2));
        present_.resize(dense_.size(), 0);
      }
      present_[static_cast<size_t>(id)] = 1;
      return dense_[static_cast<size_t>(id)];
    }
    return sparse_[id];
  }
  const T* Find(int64_t id) const {
    if (id >= 0 && static_cast<uint64_t>(id) < dense_.size())
      return present_[static_cast<size_t>(id)] ? &dense_[static_cast<size_t>(id)] : nullptr;
    auto it = sparse_.find(id);
    return it == sparse_.end() ? nullptr : &it->second;
  }

 private:
  size_t limit_;
  std::vector<T> dense_;
  std::vector<uint8_t> present_;
  std::unordered_map<int64_t, T> sparse_;
};

// Rows of T by db id, for large rows of few ids: a 4-byte slot per id (an IdTable), a T only
// per id present. PMU rows exist for compute tasks alone, keyed by globalTaskId, which counts
// every task: a PipelineFields per id was 48 MB on a 198 MB db, the peak of the command.
template <typename T>
class IdRows {
 public:
  explicit IdRows(size_t dense_limit) : slot_(dense_limit) {}
  void Reserve(size_t rows) { rows_.reserve(rows); }
  T& At(int64_t id) {
    uint32_t& slot = slot_.At(id);  // 0 until the id is first seen
    if (slot == 0) {
      rows_.emplace_back();
      slot = static_cast<uint32_t>(rows_.size());
    }
    return rows_[slot - 1];
  }
  const T* Find(int64_t id) const {
    const uint32_t* slot = slot_.Find(id);
    return slot && *slot ? &rows_[*slot - 1] : nullptr;
  }

 private:
  IdTable<uint32_t> slot_;  // 1 + index into rows_
  std::vector<T> rows_;
};

int64_t Int(sqlite3_stmt* st, int col, int64_t missing = -1) {
  return sqlite3_column_type(st, col) == SQLITE_NULL ? missing : sqlite3_column_int64(st, col);
}

// No task runs a day: a longer one is a corrupt time (INT64_MAX endNs gave a 237-year step).
constexpr int64_t kMaxTaskNs = int64_t{24} * 3600 * 1000000000;

// Task times as the profiler writes them: integer ns, >= 0, end >= start, at most a day apart.
enum class TaskTime { kOk, kMissing, kBackwards, kImpossible };
TaskTime ReadTaskTimes(sqlite3_stmt* st, int start_col, int end_col, int64_t* start, int64_t* end) {
  auto one = [&](int col, int64_t* out) {
    switch (sqlite3_column_type(st, col)) {
      case SQLITE_NULL: return TaskTime::kMissing;
      case SQLITE_FLOAT: {  // sqlite3_column_int64 would saturate 9.9e300 to INT64_MAX
        double d = sqlite3_column_double(st, col);
        if (!(d >= 0 && d < 9.0e18)) return TaskTime::kImpossible;
        *out = static_cast<int64_t>(d);
        return TaskTime::kOk;
      }
      default:
        *out = sqlite3_column_int64(st, col);
        return *out >= 0 ? TaskTime::kOk : TaskTime::kImpossible;
    }
  };
  TaskTime a = one(start_col, start), b = one(end_col, end);
  if (a == TaskTime::kMissing || b == TaskTime::kMissing) return TaskTime::kMissing;
  if (a != TaskTime::kOk || b != TaskTime::kOk) return TaskTime::kImpossible;
  if (*end < *start) return TaskTime::kBackwards;
  if (*end - *start > kMaxTaskNs) return TaskTime::kImpossible;
  return TaskTime::kOk;
}

}  // namespace

// The SDMA copies msprof-analyze's advisor checks for byte alignment (its ByteAlignmentChecker:
// Memcpy and Reduce_Inline tasks whose transport is SDMA, over a link other than ON_CHIP, above
// the minimum size), summed per communication operator. Transport, link and task type are read
// by name through the db's own enum and string tables, never by number. A db without these
// tables (older exports, Level0's N/A rows) leaves the list empty: not an error.
static void ReadSdmaAlignment(Db& db, const Thresholds& th, RankTable& table) {
  for (const char* t : {"COMMUNICATION_TASK_INFO", "TASK", "STRING_IDS", "ENUM_HCCL_TRANSPORT_TYPE", "ENUM_HCCL_LINK_TYPE"})
    if (!db.HasTable(t)) return;
  if (th.byte_alignment_bytes <= 0) return;
  const bool ops = db.HasTable("COMMUNICATION_OP");
  const std::string sql = fmt::format(
      "SELECT c.opId, {}, c.size, t.endNs - t.startNs FROM COMMUNICATION_TASK_INFO c "
      "JOIN TASK t ON t.globalTaskId = c.globalTaskId JOIN STRING_IDS tt ON tt.id = c.taskType "
      "JOIN ENUM_HCCL_TRANSPORT_TYPE tr ON tr.id = c.transportType JOIN ENUM_HCCL_LINK_TYPE lk ON lk.id = c.linkType "
      "{} WHERE tr.name = 'SDMA' AND lk.name <> 'ON_CHIP' AND tt.value IN ('Memcpy', 'Reduce_Inline') "
      "AND c.size > {} ORDER BY c.opId",
      ops ? "COALESCE(os.value, '')" : "''",
      ops ? "LEFT JOIN COMMUNICATION_OP o ON o.opId = c.opId LEFT JOIN STRING_IDS os ON os.id = o.opName" : "",
      th.byte_alignment_min_bytes);
  std::map<int64_t, SdmaOpAlignment> calls;  // by opId: one call of a communication operator
  Status st = db.Query(sql, [&](sqlite3_stmt* q) {
    const int64_t dur = sqlite3_column_int64(q, 3), bytes = sqlite3_column_int64(q, 2);
    if (dur < 0 || sqlite3_column_type(q, 3) == SQLITE_NULL) return;
    SdmaOpAlignment& c = calls[sqlite3_column_int64(q, 0)];
    if (const unsigned char* n = sqlite3_column_text(q, 1)) c.op = reinterpret_cast<const char*>(n);
    c.tasks += 1;
    c.bytes += bytes;
    c.dur_ns += dur;
    if (bytes % th.byte_alignment_bytes != 0) {
      c.unaligned_tasks += 1;
      c.unaligned_dur_ns += dur;
      c.unaligned_example_bytes = bytes;
    }
  });
  if (!st.ok()) return;
  std::map<std::string, SdmaOpAlignment> by_name;
  for (auto& [id, c] : calls) {
    SdmaOpAlignment& a = by_name[c.op];
    a.op = c.op;
    a.calls += 1;
    a.unaligned_calls += c.unaligned_tasks > 0;
    a.tasks += c.tasks;
    a.unaligned_tasks += c.unaligned_tasks;
    a.bytes += c.bytes;
    a.dur_ns += c.dur_ns;
    a.unaligned_dur_ns += c.unaligned_dur_ns;
    if (c.unaligned_example_bytes) a.unaligned_example_bytes = c.unaligned_example_bytes;
  }
  for (auto& [name, a] : by_name) table.sdma_alignment.push_back(std::move(a));
}

Status ReadTorchDb(const std::filesystem::path& path, const Rules& rules, StringTable& strings, RankTable& table,
                   std::vector<DataIssue>& issues) {
  Db db;
  OPTRACE_RETURN_IF_ERROR(db.Open(path));
  for (const char* t : {"TASK", "STRING_IDS", "COMPUTE_TASK_INFO"}) {
    if (db.HasNonTable(t))
      return BadInputError("{}: {} is a view or a virtual table, not a table; a profiler export writes tables, and "
                           "optrace reads nothing else (a view can run forever)",
                           path.string(), t);
    if (!db.HasTable(t))
      return BadInputError("{}: missing table {}; expected a torch_npu db export (ascend_pytorch_profiler_<rank>.db)",
                           path.string(), t);
  }
  // Row counts size the id tables (COUNT(*) of a rowid table is a walk of its pages, no decoding).
  uint64_t string_rows = 0, compute = 0;
  OPTRACE_RETURN_IF_ERROR(db.Query("SELECT COUNT(*) FROM STRING_IDS", [&](sqlite3_stmt* st) {
    string_rows = static_cast<uint64_t>(sqlite3_column_int64(st, 0));
  }));
  OPTRACE_RETURN_IF_ERROR(db.Query("SELECT COUNT(*) FROM COMPUTE_TASK_INFO", [&](sqlite3_stmt* st) {
    compute = static_cast<uint64_t>(sqlite3_column_int64(st, 0));
  }));
  uint64_t communication = 0;
  if (db.HasTable("COMMUNICATION_OP"))
    OPTRACE_RETURN_IF_ERROR(db.Query("SELECT COUNT(*) FROM COMMUNICATION_OP", [&](sqlite3_stmt* st) {
      communication = static_cast<uint64_t>(sqlite3_column_int64(st, 0));
    }));
  // STRING_IDS -> interned ids ("N/A" and "" are missing). The kept PMU metric names are noted on
  // the way: only their rows of TASK_PMU_INFO are read.
  std::unordered_map<std::string_view, Pipe> kept_metric;
  std::vector<std::string> names_910a;  // Ascend910A's unprefixed metrics ("mac_time"), as in its csv
  for (Pipe p : kPipeSumFields) {
    if (!PipeDbName(p).empty()) kept_metric[PipeDbName(p)] = p;
    std::string_view a = Pipe910AColumnName(p);
    if (!a.empty()) names_910a.emplace_back(a.substr(0, a.find('(')));
  }
  size_t k910 = 0;
  for (Pipe p : kPipeSumFields)
    if (!Pipe910AColumnName(p).empty()) kept_metric.emplace(names_910a[k910++], p);
  std::vector<std::pair<int64_t, Pipe>> metric_ids;  // STRING_IDS.id of a kept metric name
  IdTable<uint32_t> sid(4 * string_rows + 1024);
  OPTRACE_RETURN_IF_ERROR(db.Query("SELECT id, value FROM STRING_IDS", [&](sqlite3_stmt* st) {
    const unsigned char* v = sqlite3_column_text(st, 1);
    std::string_view s = v ? reinterpret_cast<const char*>(v) : "";
    int64_t id = sqlite3_column_int64(st, 0);
    sid.At(id) = (s == "N/A" || s == "NA") ? 0 : strings.Intern(s);
    auto k = kept_metric.find(s);
    if (k != kept_metric.end()) metric_ids.push_back({id, k->second});
  }));
  auto str = [&](sqlite3_stmt* st, int col) -> uint32_t {
    if (sqlite3_column_type(st, col) == SQLITE_NULL) return 0;
    const uint32_t* id = sid.Find(sqlite3_column_int64(st, col));
    return id ? *id : 0;
  };
  // Shapes carry literal quotes as in the CSV ("\"32,3\""): the same unquoted text as the text export.
  std::unordered_map<uint32_t, uint32_t> shape_of;
  auto shape = [&](sqlite3_stmt* st, int col) -> uint32_t {
    uint32_t id = str(st, col);
    auto it = shape_of.find(id);
    if (it != shape_of.end()) return it->second;
    std::string_view v = strings.Get(id);
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    uint32_t out = (v == "N/A" || v == "NA") ? 0 : strings.Intern(std::string(v));
    shape_of.emplace(id, out);
    return out;
  };

  // PMU metrics per task: the kept ones only (11 of the 28 PipeUtilization rows per task), read
  // on a second connection while this one joins the tasks; attached to the events afterwards.
  IdRows<PipelineFields> pmu(4 * compute + 1024);
  std::vector<double> pmu_overflow;
  std::future<Status> pmu_read;
  if (db.HasTable("TASK_PMU_INFO")) {
    for (Pipe p : kPipeSumFields)  // the names as strings of this analysis, as the text export has them
      if (!PipeDbName(p).empty()) strings.Intern(PipeDbName(p));
    std::string in;
    for (auto& [id, p] : metric_ids) in += (in.empty() ? "" : ",") + std::to_string(id);
    // Sized ahead (capacity never touched is not memory): doubling held the old and the new copy
    // at once. Every value may overflow its packed form (most PMU doubles do).
    pmu.Reserve(compute);
    pmu_overflow.reserve(compute * metric_ids.size());
    if (!in.empty())
      pmu_read = std::async(std::launch::async, [&path, &metric_ids, &pmu, &pmu_overflow, in]() -> Status {
        Db pmu_db;
        OPTRACE_RETURN_IF_ERROR(pmu_db.Open(path));
        std::unordered_map<int64_t, Pipe> pipe_of(metric_ids.begin(), metric_ids.end());
        return pmu_db.Query("SELECT globalTaskId, name, value FROM TASK_PMU_INFO WHERE name IN (" + in + ")",
                            [&](sqlite3_stmt* st) {
          auto it = pipe_of.find(sqlite3_column_int64(st, 1));
          if (it == pipe_of.end() || sqlite3_column_type(st, 2) == SQLITE_NULL) return;
          double v = sqlite3_column_double(st, 2);
          std::string_view n = PipeDbName(it->second);
          if (n.size() > 5 && n.substr(n.size() - 5) == "_time") v /= 1000.0;  // ns -> us
          pmu.At(sqlite3_column_int64(st, 0)).packed[StoredPipeIndex(it->second)] = PackDecimalValue(v, pmu_overflow);
        });
      });
  }
  // Waited for on every way out (the query writes into this frame's tables).
  struct JoinPmu {
    std::future<Status>& f;
    ~JoinPmu() {
      if (f.valid()) f.wait();
    }
  } join_pmu{pmu_read};
  std::vector<std::pair<size_t, int64_t>> task_of_event;  // (event index, globalTaskId) of compute tasks
  // Sized from the row counts: grown by doubling, the event table held its old and new copies at
  // once, the peak of the whole command on a db export (79 MB of the 141 MB for a 198 MB db).
  task_of_event.reserve(compute);
  table.events.reserve(table.events.size() + compute + communication);

  uint16_t task_file = static_cast<uint16_t>(table.files.size());
  table.files.push_back({path.string(), "TASK"});
  std::set<std::string> cols = db.Columns("COMPUTE_TASK_INFO");
  std::string block = cols.count("blockNum") ? "c.blockNum" : cols.count("blockDim") ? "c.blockDim" : "NULL";
  // waitNs (Level1+ exports) is the text export's Wait Time; TASK.taskType (KERNEL_AICORE,
  // KERNEL_AIVEC, MIX_AIV, ...) stands in for the core where COMPUTE_TASK_INFO.taskType is N/A
  // (Level0), so the op type comes out as aic/aiv/mix_cv instead of unknown.
  std::string wait = cols.count("waitNs") ? "c.waitNs" : "NULL";
  std::string task_type = db.Columns("TASK").count("taskType") ? "t.taskType" : "NULL";
  // Column 9 stands where the mix block dim was: no output reads it (Event does not keep it).
  std::string sql =
      "SELECT t.rowid, t.startNs, t.endNs, t.streamId, t.taskId, c.name, c.opType, c.taskType, " + block +
      ", NULL, c.inputShapes, c.outputShapes, c.inputDataTypes, t.globalTaskId, " + wait + ", " + task_type +
      " FROM COMPUTE_TASK_INFO c JOIN TASK t ON t.globalTaskId = c.globalTaskId";
  std::unordered_map<uint64_t, OpType> op_cache;
  auto classify = [&](uint32_t core, uint32_t name) {
    uint64_t key = (uint64_t(core) << 32) | name;
    auto it = op_cache.find(key);
    if (it == op_cache.end()) it = op_cache.emplace(key, rules.ClassifyCore(strings.Get(core), strings.Get(name))).first;
    return it->second;
  };
  // A task without both times, or ending before it starts, is not an operator run: it is
  // counted as a data issue, never turned into a 1.7e15 us or 0 us operator.
  uint64_t joined = 0, no_time = 0, backwards = 0, impossible = 0;
  std::string no_time_example, backwards_example, impossible_example;
  // globalTaskId names one task: the join gives at most one row per COMPUTE_TASK_INFO row. More
  // means the id repeats in TASK, and the join could be their product (20,000 x 20,000 rows).
  int64_t repeated_id = 0;
  bool too_many = false;
  OPTRACE_RETURN_IF_ERROR(db.Query(sql, [&](sqlite3_stmt* st) -> bool {
    if (++joined > compute) {
      too_many = true;
      repeated_id = sqlite3_column_int64(st, 13);
      return false;
    }
    int64_t start = 0, end = 0;
    switch (ReadTaskTimes(st, 1, 2, &start, &end)) {
      case TaskTime::kOk: break;
      case TaskTime::kMissing:
        if (no_time++ == 0) no_time_example = fmt::format("{}: TASK row {}", path.string(), sqlite3_column_int64(st, 0));
        return true;
      case TaskTime::kBackwards:
        if (backwards++ == 0)
          backwards_example =
              fmt::format("{}: TASK row {}: endNs {} < startNs {}", path.string(), sqlite3_column_int64(st, 0), end, start);
        return true;
      case TaskTime::kImpossible:
        if (impossible++ == 0)
          impossible_example = fmt::format("{}: TASK row {}: startNs {}, endNs {}", path.string(),
                                           sqlite3_column_int64(st, 0), reinterpret_cast<const char*>(sqlite3_column_text(st, 1)),
                                           reinterpret_cast<const char*>(sqlite3_column_text(st, 2)));
        return true;
    }
    Event e;
    e.row = static_cast<uint32_t>(sqlite3_column_int64(st, 0));
    e.file = task_file;
    e.start_ns = start;
    e.dur_ns = end - start;
    int64_t stream = Int(st, 3), task = Int(st, 4);
    e.stream_id = stream >= 0 && stream <= INT32_MAX ? static_cast<int32_t>(stream) : -1;
    e.task_id = task >= 0 && task <= INT32_MAX ? static_cast<int32_t>(task) : -1;
    e.name = str(st, 5);
    e.type = str(st, 6);
    e.core = str(st, 7);
    if (e.core == 0) e.core = str(st, 15);
    int64_t b = Int(st, 8);
    e.block_dim = b >= 0 && b <= INT32_MAX ? static_cast<int32_t>(b) : -1;
    e.input_shapes = shape(st, 10);
    e.output_shapes = shape(st, 11);
    e.input_dtypes = str(st, 12);
    e.op_type = classify(e.core, e.name);
    e.wait = PackWait(Int(st, 14), table.long_waits);
    task_of_event.push_back({table.events.size(), sqlite3_column_int64(st, 13)});
    table.events.push_back(e);
    return true;
  }));
  if (too_many)
    return BadInputError("{}: TASK joined with COMPUTE_TASK_INFO on globalTaskId gives more rows than "
                         "COMPUTE_TASK_INFO has ({}): globalTaskId {} (at least) repeats in TASK; not a profiler export "
                         "optrace can read",
                         path.string(), compute, repeated_id);
  if (pmu_read.valid()) {
    OPTRACE_RETURN_IF_ERROR(pmu_read.get());
    table.pipes.Reserve(table.pipes.size() + task_of_event.size(), kStoredPipeCount);
    // A table without overflow values yet (a db is read into a fresh one) takes the PMU thread's
    // as they are: the packed fields keep their slots, and the values are not copied into a
    // second vector (35 MB each on a 198 MB db).
    const bool adopt = table.pipe_overflow.empty();
    if (adopt) table.pipe_overflow = std::move(pmu_overflow);
    for (auto [index, task] : task_of_event)
      if (const PipelineFields* p = pmu.Find(task)) {
        PipelineFields f = *p;
        if (!adopt)
          for (uint32_t& v : f.packed) v = RepackDecimal(v, pmu_overflow, table.pipe_overflow);
        table.events[index].pipe = table.pipes.Add(f);
      }
  }
  std::vector<std::pair<size_t, int64_t>>().swap(task_of_event);
  for (uint64_t k = 0; k < no_time; ++k)
    AddIssue(issues, "db_task_time_missing", "data_loss",
             "a db task has no startNs or endNs: it is left out (not an operator of unknown length)", no_time_example);
  for (uint64_t k = 0; k < backwards; ++k)
    AddIssue(issues, "db_task_time_backwards", "data_loss", "a db task ends before it starts: it is left out",
             backwards_example);
  for (uint64_t k = 0; k < impossible; ++k)
    AddIssue(issues, "db_task_time_impossible", "data_loss",
             "a db task time is not a possible ns count (negative, past 9e18, or a task longer than a day): it is "
             "left out",
             impossible_example);
  {
    // Compute tasks whose TASK row is missing (an empty or cut TASK table) vanish in the join.
    if (compute > joined) {
      AddIssue(issues, "db_tasks_without_times", "data_loss",
               "compute tasks of COMPUTE_TASK_INFO have no TASK row (no start or end time): they are left out",
               fmt::format("{}: {} of {} compute tasks have a TASK row", path.string(), joined, compute));
    }
  }

  if (db.HasTable("COMMUNICATION_OP")) {
    uint16_t comm_file = static_cast<uint16_t>(table.files.size());
    table.files.push_back({path.string(), "COMMUNICATION_OP"});
    uint32_t hccl = strings.Intern("HCCL");
    OPTRACE_RETURN_IF_ERROR(
        db.Query("SELECT rowid, opName, startNs, endNs, opType FROM COMMUNICATION_OP", [&](sqlite3_stmt* st) {
          int64_t start = 0, end = 0;
          TaskTime tt = ReadTaskTimes(st, 2, 3, &start, &end);
          if (tt != TaskTime::kOk) {
            std::string where = fmt::format("{}: COMMUNICATION_OP row {}", path.string(), sqlite3_column_int64(st, 0));
            if (tt == TaskTime::kImpossible)
              AddIssue(issues, "db_task_time_impossible", "data_loss",
                       "a db task time is not a possible ns count (negative, past 9e18, or a task longer than a "
                       "day): it is left out",
                       where);
            else
              AddIssue(issues, "db_task_time_missing", "data_loss",
                       "a db task has no startNs or endNs: it is left out (not an operator of unknown length)", where);
            return;
          }
          Event e;
          e.row = static_cast<uint32_t>(sqlite3_column_int64(st, 0));
          e.file = comm_file;
          e.name = str(st, 1);
          e.start_ns = start;
          e.dur_ns = end - start;
          e.type = str(st, 4);
          e.core = hccl;
          e.block_dim = 0;
          e.op_type = classify(e.core, e.name);
          table.events.push_back(e);
        }));
  }

  if (db.HasTable("STEP_TIME")) {
    OPTRACE_RETURN_IF_ERROR(db.Query("SELECT id, startNs, endNs FROM STEP_TIME ORDER BY startNs", [&](sqlite3_stmt* st) {
      table.step_markers.push_back({Int(st, 0), sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2), "STEP_TIME"});
    }));
  }
  if (db.HasTable("NPU_INFO")) {
    OPTRACE_RETURN_IF_ERROR(db.Query("SELECT name FROM NPU_INFO LIMIT 1", [&](sqlite3_stmt* st) {
      const unsigned char* v = sqlite3_column_text(st, 0);
      if (v) table.identity.device_name = reinterpret_cast<const char*>(v);
    }));
  }
  ReadSdmaAlignment(db, rules.thresholds, table);
  // Who recorded it: HOST_INFO's host name, and the pid msprof packs into the high 32 bits of a
  // host thread's globalTid. Not every version has these tables or columns: a failed query is
  // only a blank, never a read error.
  const std::string db_name = path.filename().string();
  if (db.HasTable("HOST_INFO")) {
    (void)db.Query("SELECT hostName FROM HOST_INFO WHERE hostName IS NOT NULL LIMIT 1", [&](sqlite3_stmt* st) {
      const unsigned char* v = sqlite3_column_text(st, 0);
      if (v && *v) OfferHostname(table.identity.process, reinterpret_cast<const char*>(v), db_name + " HOST_INFO");
    });
  }
  if (db.HasTable("RANK_DEVICE_MAP") && table.device_id < 0) {
    // One row: the export's one device. Several: a node-level db, split by the tasks' own ids.
    (void)db.Query("SELECT COUNT(*), MIN(deviceId) FROM RANK_DEVICE_MAP", [&](sqlite3_stmt* st) {
      const int64_t d = sqlite3_column_int64(st, 1);
      if (sqlite3_column_int64(st, 0) == 1 && d >= 0 && d < 64) table.device_id = static_cast<int>(d);
    });
  }
  for (const char* api : {"PYTORCH_API", "CANN_API"}) {
    if (table.identity.process.pid >= 0 || !db.HasTable(api)) continue;
    (void)db.Query(fmt::format("SELECT globalTid FROM {} LIMIT 1", api), [&](sqlite3_stmt* st) {
      const int64_t pid = static_cast<int64_t>(static_cast<uint64_t>(sqlite3_column_int64(st, 0)) >> 32);
      if (pid > 0 && pid <= INT32_MAX)
        OfferPid(table.identity.process, pid, fmt::format("{} {} globalTid", db_name, api));
    });
  }
  if (table.events.empty())
    AddIssue(issues, "db_without_tasks", "data_loss", "a db export holds no compute or communication tasks",
             path.string());
  return Status::Ok();
}

// A numeric column of the current row, NaN when NULL (analysis.db's tables leave absent values NULL).
static double ColumnNumber(sqlite3_stmt* st, int col) {
  return sqlite3_column_type(st, col) == SQLITE_NULL ? kMissing : sqlite3_column_double(st, col);
}

Status ReadAnalysisDbCommunication(const std::filesystem::path& path, RankTable& table) {
  Db db;
  OPTRACE_RETURN_IF_ERROR(db.Open(path));
  auto text = [](sqlite3_stmt* st, int col) {
    const unsigned char* v = sqlite3_column_text(st, col);
    return v ? std::string(reinterpret_cast<const char*>(v)) : std::string();
  };
  // The 1:1 table forms of communication.json (FORMATS.md 9.2): times in ms, start in us.
  std::map<std::tuple<std::string, std::string, std::string>, size_t> op_index;  // (step, op, group)
  if (db.HasTable("CommAnalyzerTime")) {
    OPTRACE_RETURN_IF_ERROR(db.Query(
        "SELECT hccl_op_name, group_name, start_timestamp, elapse_time, transit_time, wait_time, synchronization_time, "
        "idle_time, step, type FROM CommAnalyzerTime ORDER BY rowid",
        [&](sqlite3_stmt* st) {
          CommOp op;
          op.name = text(st, 0);
          op.group = text(st, 1);
          if (op.name == "Total Op Info") return;
          double start_us = ColumnNumber(st, 2);
          op.start_ns = IsMissing(start_us) ? -1 : static_cast<int64_t>(std::llround(start_us * 1000.0));
          op.elapse_ms = ColumnNumber(st, 3);
          op.transit_ms = ColumnNumber(st, 4);
          op.wait_ms = ColumnNumber(st, 5);
          op.sync_ms = ColumnNumber(st, 6);
          op.idle_ms = ColumnNumber(st, 7);
          op.step = text(st, 8);
          op.p2p = text(st, 9) == "p2p";
          if (!IsMissing(op.wait_ms) && !IsMissing(op.transit_ms) && op.wait_ms + op.transit_ms > 0)
            op.wait_ratio = op.wait_ms / (op.wait_ms + op.transit_ms);
          if (!IsMissing(op.sync_ms) && !IsMissing(op.transit_ms) && op.sync_ms + op.transit_ms > 0)
            op.sync_ratio = op.sync_ms / (op.sync_ms + op.transit_ms);
          op_index[{op.step, op.name, op.group}] = table.comm_ops.size();
          table.comm_ops.push_back(std::move(op));
        }));
  }
  if (db.HasTable("CommAnalyzerBandwidth")) {
    // One row per (op, transport, packet size bucket); size / time / bandwidth repeat on each.
    OPTRACE_RETURN_IF_ERROR(db.Query(
        "SELECT hccl_op_name, group_name, transport_type, transit_size, transit_time, bandwidth, large_packet_ratio, "
        "package_size, count, total_duration, step FROM CommAnalyzerBandwidth ORDER BY rowid",
        [&](sqlite3_stmt* st) {
          auto it = op_index.find({text(st, 10), text(st, 0), text(st, 1)});
          if (it == op_index.end()) return;
          CommOp& op = table.comm_ops[it->second];
          std::string transport = text(st, 2);
          double size = ColumnNumber(st, 3), time = ColumnNumber(st, 4);
          if (!(size > 0) && !(time > 0)) return;  // a transport the op did not use
          CommBandwidth* b = nullptr;
          for (CommBandwidth& x : op.bandwidth)
            if (x.transport == transport) b = &x;
          if (!b) {
            op.bandwidth.push_back({transport, size, time, ColumnNumber(st, 5), ColumnNumber(st, 6), {}});
            b = &op.bandwidth.back();
          }
          double packet = ColumnNumber(st, 7), count = ColumnNumber(st, 8), total = ColumnNumber(st, 9);
          if (count > 0 && !IsMissing(packet)) b->sizes.push_back({packet, count, IsMissing(total) ? 0 : total});
        }));
    for (CommOp& op : table.comm_ops)
      for (CommBandwidth& b : op.bandwidth)
        std::sort(b.sizes.begin(), b.sizes.end(),
                  [](const CommPacketBucket& x, const CommPacketBucket& y) { return x.packet_mb < y.packet_mb; });
  }
  if (db.HasTable("CommAnalyzerMatrix")) {
    OPTRACE_RETURN_IF_ERROR(db.Query(
        "SELECT hccl_op_name, group_name, src_rank, dst_rank, transport_type, transit_size, transit_time, bandwidth, "
        "step, type, op_name FROM CommAnalyzerMatrix ORDER BY rowid",
        [&](sqlite3_stmt* st) {
          CommMatrixLink l;
          l.key = text(st, 0);
          l.group = text(st, 1);
          auto src = ParseCsvInt(text(st, 2)), dst = ParseCsvInt(text(st, 3));
          if (!src || !dst) return;
          l.src = static_cast<int>(*src);
          l.dst = static_cast<int>(*dst);
          l.transport = text(st, 4);
          l.size_mb = ColumnNumber(st, 5);
          l.time_ms = ColumnNumber(st, 6);
          l.bandwidth_gbps = ColumnNumber(st, 7);
          l.step = text(st, 8);
          l.p2p = text(st, 9) == "p2p";
          l.op_name = text(st, 10);
          table.comm_matrix.push_back(std::move(l));
        }));
  }
  return Status::Ok();
}

// analysis.db's StepTraceTime: step_trace_time.csv as a table (same columns, microseconds).
Status ReadAnalysisDbStepTrace(const std::filesystem::path& path, RankTable& table) {
  Db db;
  OPTRACE_RETURN_IF_ERROR(db.Open(path));
  if (!db.HasTable("StepTraceTime")) return Status::Ok();
  return db.Query(
      "SELECT step, computing, communication_not_overlapped, overlapped, communication, free, stage, bubble, "
      "preparing FROM StepTraceTime ORDER BY rowid",
      [&](sqlite3_stmt* st) {
        const unsigned char* v = sqlite3_column_text(st, 0);
        auto id = ParseCsvInt(v ? reinterpret_cast<const char*>(v) : "");
        StepTraceRow r;
        r.step_id = id ? *id : -1;
        r.computing_us = ColumnNumber(st, 1);
        r.comm_not_overlapped_us = ColumnNumber(st, 2);
        r.overlapped_us = ColumnNumber(st, 3);
        r.communication_us = ColumnNumber(st, 4);
        r.free_us = ColumnNumber(st, 5);
        r.stage_us = ColumnNumber(st, 6);
        r.bubble_us = ColumnNumber(st, 7);
        r.preparing_us = ColumnNumber(st, 8);
        table.step_trace.push_back(r);
      });
}

Status ReadDbLaunchFlows(const std::filesystem::path& path, std::vector<TraceFlow>& flows) {
  sqlite3* db = nullptr;
  if (OpenExportDb(path, &db) != SQLITE_OK) {
    if (db) sqlite3_close(db);
    return BadInputError("{}: cannot open as SQLite", path.string());
  }
  sqlite3_stmt* st = nullptr;
  // No such tables (a db without CANN_API): no flows, not an error. Views are not read (issue
  // 53.7); connectionId names one API call and globalTaskId one task, so a join giving more rows
  // than COMPUTE_TASK_INFO has is a malformed db: no flows from it.
  uint64_t compute = 0;
  bool tables = true;
  for (const char* t : {"TASK", "CANN_API", "COMPUTE_TASK_INFO"}) tables = tables && IsPlainTable(db, t);
  if (tables && sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM COMPUTE_TASK_INFO", -1, &st, nullptr) == SQLITE_OK) {
    if (sqlite3_step(st) == SQLITE_ROW) compute = static_cast<uint64_t>(sqlite3_column_int64(st, 0));
    sqlite3_finalize(st);
    st = nullptr;
  }
  const size_t first = flows.size();
  if (tables && sqlite3_prepare_v2(db,
                         "SELECT c.startNs, t.startNs FROM TASK t JOIN CANN_API c ON c.connectionId = t.connectionId "
                         "JOIN COMPUTE_TASK_INFO i ON i.globalTaskId = t.globalTaskId "
                         "WHERE c.startNs IS NOT NULL AND t.startNs IS NOT NULL",
                         -1, &st, nullptr) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      if (flows.size() - first >= compute) {
        flows.resize(first);
        break;
      }
      flows.push_back({TraceFlow::kHostToDevice, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)});
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return Status::Ok();
}

}  // namespace optrace::analyze
