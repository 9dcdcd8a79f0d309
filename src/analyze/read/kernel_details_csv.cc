// Streaming reader of kernel_details.csv (torch_npu) and op_summary_*.csv (msprof).
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <mutex>
#include <unordered_map>

#include "analyze/read/normalize.h"
#include "core/csv_reader.h"
#include "core/huge_pages.h"
#include "core/parallel_for.h"

namespace optrace::analyze {
namespace {

struct KernelColumns {
  std::optional<size_t> device, step, name, type, core, start, dur, wait, block, stream, task, in_shapes,
      out_shapes, in_dtypes, op_state;
  std::array<std::optional<size_t>, kStoredPipeCount> pipe;  // the kept fields (kPipeSumFields)
};

KernelColumns FindColumns(const CsvHeader& h) {
  KernelColumns c;
  c.step = h.Find("Step Id");
  c.device = h.FindAny({"Device_id", "Device ID"});
  c.name = h.FindAny({"Name", "Op Name"});
  c.type = h.FindAny({"Type", "OP Type"});
  c.core = h.FindAny({"Accelerator Core", "Task Type"});
  c.start = h.FindAny({"Start Time(us)", "Task Start Time(us)"});
  c.dur = h.FindAny({"Duration(us)", "Task Duration(us)"});
  c.wait = h.FindAny({"Wait Time(us)", "Task Wait Time(us)"});
  c.block = h.FindAny({"Block Dim", "Block Num"});
  c.stream = h.Find("Stream ID");
  c.task = h.Find("Task ID");
  c.in_shapes = h.Find("Input Shapes");
  c.out_shapes = h.Find("Output Shapes");
  c.in_dtypes = h.Find("Input Data Types");
  c.op_state = h.Find("OP State");
  for (int i = 0; i < kStoredPipeCount; ++i) {
    c.pipe[i] = h.Find(PipeColumnName(kPipeSumFields[i]));
    std::string_view a910 = Pipe910AColumnName(kPipeSumFields[i]);
    if (!c.pipe[i] && !a910.empty()) c.pipe[i] = h.Find(a910);  // Ascend910A: unprefixed stages
  }
  return c;
}

// Shapes keep their literal quotes after CSV unquoting ("\"1,2;3\""): drop them.
std::string_view ShapeText(std::string_view f) {
  f = TrimCsvField(f);
  if (f.size() >= 2 && f.front() == '"' && f.back() == '"') f = f.substr(1, f.size() - 2);
  if (IsMissingCsvValue(f)) return {};
  return f;
}

OpState ParseOpState(std::string_view f) {
  f = TrimCsvField(f);
  if (f == "dynamic") return OpState::kDynamic;
  if (f == "static") return OpState::kStatic;
  return OpState::kUnknown;  // "N/A" (communication), empty, or a value this reader does not know
}

int32_t IntOr(std::string_view f, int32_t missing) {
  auto v = ParseCsvInt(f);
  if (!v || *v > INT32_MAX || *v < INT32_MIN) return missing;
  return static_cast<int32_t>(*v);
}

}  // namespace

std::optional<int64_t> ParseUsToNs(std::string_view t) {
  t = TrimCsvField(t);
  if (t.empty()) return std::nullopt;
  const char* p = t.data();
  const char* end = p + t.size();
  bool neg = false;
  if (*p == '-' || *p == '+') {
    neg = *p == '-';
    ++p;
  }
  int64_t whole = 0;
  const char* digits = p;
  while (p < end && *p >= '0' && *p <= '9') {
    if (whole > (INT64_MAX / 10000)) return std::nullopt;
    whole = whole * 10 + (*p - '0');
    ++p;
  }
  int64_t frac = 0;
  int frac_digits = 0;
  bool round_up = false;
  if (p < end && *p == '.') {
    ++p;
    while (p < end && *p >= '0' && *p <= '9') {
      if (frac_digits < 3) {
        frac = frac * 10 + (*p - '0');
        ++frac_digits;
      } else if (frac_digits == 3) {
        round_up = *p >= '5';
        ++frac_digits;
      }
      ++p;
    }
  }
  if (p != end || (p == digits)) {
    // Scientific notation or other forms: fall back to double (db NUMERIC "1.73e+15").
    auto d = ParseCsvNumber(t);
    if (!d) return std::nullopt;
    return static_cast<int64_t>(std::llround(*d * 1000.0));
  }
  while (frac_digits < 3) {
    frac *= 10;
    ++frac_digits;
  }
  int64_t ns = whole * 1000 + frac + (round_up ? 1 : 0);
  return neg ? -ns : ns;
}

std::vector<uint32_t> MergeStrings(const StringTable& local, StringTable& strings) {
  std::vector<uint32_t> ids(local.size());
  for (uint32_t i = 0; i < ids.size(); ++i) ids[i] = strings.Intern(local.Get(i));
  return ids;
}

void RemapStrings(Event& e, const std::vector<uint32_t>& ids) {
  e.name = ids[e.name];
  e.type = ids[e.type];
  e.core = ids[e.core];
  e.input_shapes = ids[e.input_shapes];
  e.output_shapes = ids[e.output_shapes];
  e.input_dtypes = ids[e.input_dtypes];
}

void AddIssue(std::vector<DataIssue>& issues, std::string_view name, std::string_view severity,
              std::string_view description, std::string_view example, uint64_t count) {
  for (DataIssue& i : issues)
    if (i.name == name) {
      i.count += count;
      return;
    }
  issues.push_back({std::string(name), std::string(severity), std::string(description), count, std::string(example)});
}

namespace {

// A data issue of a chunk. Its line counts from the chunk's first line until the chunk's place
// in the file is known (the merge adds the offset).
struct ChunkIssue {
  std::string name, severity, description;
  uint64_t count = 0;
  uint64_t line = 0;
  std::string detail;  // after "path:line" in the example
};

void NoteIssue(std::vector<ChunkIssue>& v, std::string_view name, std::string_view severity,
               std::string_view description, uint64_t line, std::string detail = {}) {
  for (ChunkIssue& i : v)
    if (i.name == name) {
      ++i.count;
      return;
    }
  v.push_back({std::string(name), std::string(severity), std::string(description), 1, line, std::move(detail)});
}

// Room for `rows` pipeline rows of up to every kept field (virtual until written), advised like
// the event table.
void ReservePipes(PipeStore& pipes, size_t rows) {
  pipes.Reserve(rows, kStoredPipeCount);
  AdviseHugePages(pipes.rows().data(), pipes.rows().capacity() * sizeof(PipeRow));
  AdviseHugePages(pipes.values().data(), pipes.values().capacity() * sizeof(uint32_t));
}

// What a range of a kernel CSV turns into. The first range writes straight into the rank's
// table and string table (no copy); the others into their own, merged in file order.
struct KernelChunk {
  uint64_t begin = 0;   // first byte parsed
  uint64_t end = 0;     // where the next record starts (the reader stopped there)
  uint64_t lines = 0;   // newlines consumed (the next range's lines count on from here)
  bool local_lines = false;  // rows and issue lines count from 1, not from their line in the file
  Status status = Status::Ok();
  std::vector<ChunkIssue> issues;
  // Own storage (unused by the first range).
  StringTable own_strings;
  std::vector<Event> own_events;
  PipeStore own_pipes;
  std::vector<double> own_overflow;
  std::vector<int64_t> own_long_waits;
  // Where the rows go.
  StringTable* strings = &own_strings;
  std::vector<Event>* events = &own_events;
  PipeStore* pipes = &own_pipes;
  std::vector<double>* overflow = &own_overflow;
  std::vector<int64_t>* long_waits = &own_long_waits;
  KernelChunk() = default;
  KernelChunk(const KernelChunk&) = delete;  // points into itself
  KernelChunk& operator=(const KernelChunk&) = delete;

  bool owns() const { return events == &own_events; }
  // Back to an empty range with its own storage (memory released).
  void Reset() {
    own_strings = StringTable();
    std::vector<Event>().swap(own_events);
    own_pipes = PipeStore();
    std::vector<double>().swap(own_overflow);
    std::vector<int64_t>().swap(own_long_waits);
    issues.clear();
    strings = &own_strings;
    events = &own_events;
    pipes = &own_pipes;
    overflow = &own_overflow;
    long_waits = &own_long_waits;
    local_lines = false;
  }
  void Direct(StringTable& s, RankTable& t) {
    strings = &s;
    events = &t.events;
    pipes = &t.pipes;
    overflow = &t.pipe_overflow;
    long_waits = &t.long_waits;
  }
};

// Interns one column's values through a small cache. A column repeats a few distinct values
// (names, types, shapes) millions of times: the cache compares the bytes where the string table
// would hash them first. A value probes up to kProbes slots from its home slot, so a few values
// that share a home do not evict each other on every row (with one slot per home, two shapes
// alternating row by row missed every time: a sixth of the column's cost was the string table).
// The table still sees each new value first-come, so ids come out as without the cache.
class ColumnInterner {
 public:
  uint32_t Intern(std::string_view s, StringTable& table) {
    const size_t home = Home(s);
    for (size_t k = 0; k < kProbes; ++k) {
      Slot& slot = slots_[(home + k) & (kSlots - 1)];
      if (slot.id == kNone32) return Fill(slot, s, table);
      if (std::string_view(slot.text) == s) return slot.id;
    }
    return Fill(slots_[home], s, table);  // every probe taken by other values: replace the home slot
  }

 private:
  static constexpr size_t kSlots = 256;
  static constexpr size_t kProbes = 4;
  struct Slot {
    uint32_t id = kNone32;
    std::string text;
  };
  static uint32_t Fill(Slot& slot, std::string_view s, StringTable& table) {
    slot.id = table.Intern(s);
    slot.text.assign(s);
    return slot.id;
  }
  // The first and last 8 bytes and the length, mixed by one multiply; the top bits of a product
  // depend on every bit of its input (its low bits only on the input's low bits).
  static size_t Home(std::string_view s) {
    uint64_t head = 0, tail = 0;
    if (!s.empty()) std::memcpy(&head, s.data(), std::min<size_t>(s.size(), 8));
    if (s.size() > 8) std::memcpy(&tail, s.data() + s.size() - 8, 8);
    const uint64_t h = (head ^ ((tail << 29) | (tail >> 35)) ^ (uint64_t(s.size()) << 56)) * 0x9e3779b97f4a7c15ull;
    return static_cast<size_t>(h >> 56);  // 8 bits: kSlots
  }
  std::array<Slot, kSlots> slots_;
};

struct KernelLayout {
  std::filesystem::path path;
  KernelColumns columns;
  size_t field_count = 0;
  bool any_pipe = false;
  uint16_t file_id = 0;
};

// Parses the records that start in [begin, end), lines numbered from first_line.
void ParseKernelRange(const KernelLayout& k, const Rules& rules, uint64_t begin, uint64_t end, uint64_t first_line,
                      size_t reserve_rows, KernelChunk& out) {
  out.begin = begin;
  out.end = begin;
  out.lines = 0;
  out.status = Status::Ok();
  out.issues.clear();
  auto opened = CsvReader::OpenRange(k.path, begin, end, first_line);
  if (!opened.ok()) {
    out.status = opened.status();
    return;
  }
  CsvReader reader = std::move(opened).value();
  const KernelColumns& c = k.columns;
  std::vector<Event>& events = *out.events;
  PipeStore& pipes = *out.pipes;
  std::vector<double>& overflow = *out.overflow;
  std::vector<int64_t>& long_waits = *out.long_waits;
  if (reserve_rows > 0) {
    events.reserve(events.size() + reserve_rows);
    AdviseHugePages(events.data(), events.capacity() * sizeof(Event));
    if (k.any_pipe) ReservePipes(pipes, pipes.size() + reserve_rows);
  }
  std::unordered_map<uint64_t, OpType> op_cache;  // (core id, name id) -> op type
  StringTable& strings = *out.strings;
  ColumnInterner names, types, cores, in_shapes, out_shapes, in_dtypes;
  CsvRecord rec;
  while (true) {
    auto more = reader.Next(rec);
    if (!more.ok()) {
      out.status = more.status();
      break;
    }
    if (!*more) break;
    if (rec.size() != k.field_count) {
      // A short or long row would put its values under the wrong columns (a 31-field row under
      // a 32-column header turned a Duration into aicore_time): skip it, never guess.
      NoteIssue(out.issues, "kernel_row_field_count", "data_loss",
                fmt::format("kernel rows whose field count differs from the header's {} columns were skipped "
                            "(values would land in the wrong columns); check the export for a truncated or "
                            "hand-edited row",
                            k.field_count),
                rec.line, fmt::format(" ({} fields)", rec.size()));
      continue;
    }
    auto start = ParseUsToNs(rec.Field(*c.start));
    auto dur = ParseUsToNs(rec.Field(*c.dur));
    if (!start || !dur || *dur < 0) {
      NoteIssue(out.issues, "kernel_row_unparsable", "data_loss",
                "kernel rows without a parsable Start Time / Duration were skipped", rec.line);
      continue;
    }
    Event e;
    e.start_ns = *start;
    e.dur_ns = *dur;
    e.row = static_cast<uint32_t>(rec.line);
    e.file = k.file_id;
    std::string_view name = TrimCsvField(rec.Field(*c.name));
    e.name = names.Intern(name, strings);
    if (c.type) {
      std::string_view t = TrimCsvField(rec.Field(*c.type));
      e.type = IsMissingCsvValue(t) ? 0 : types.Intern(t, strings);
    }
    if (c.core) {
      std::string_view t = TrimCsvField(rec.Field(*c.core));
      e.core = IsMissingCsvValue(t) ? 0 : cores.Intern(t, strings);
    }
    uint64_t key = (uint64_t(e.core) << 32) | e.name;
    auto it = op_cache.find(key);
    if (it == op_cache.end()) it = op_cache.emplace(key, rules.ClassifyCore(strings.Get(e.core), name)).first;
    e.op_type = it->second;
    if (c.step) {
      auto s = ParseCsvInt(rec.Field(*c.step));
      e.step_id = s ? EventStepId(*s) : -1;
    }
    if (c.device) {
      int32_t d = IntOr(rec.Field(*c.device), -1);
      if (d > 127) {  // events keep a byte; no NPU server numbers its devices this high
        NoteIssue(out.issues, "device_id_out_of_range", "data_loss",
                  "rows with a Device_id above 127 are kept without a device (not split into a rank of their own)",
                  rec.line, fmt::format(" (Device_id {})", d));
        d = -1;
      }
      e.device = static_cast<int8_t>(std::max(d, -1));
    }
    if (c.wait) {
      auto w = ParseUsToNs(rec.Field(*c.wait));
      e.wait = w ? PackWait(*w, long_waits) : kNoWait;
    }
    if (c.block) e.block_dim = IntOr(rec.Field(*c.block), -1);
    if (c.stream) e.stream_id = IntOr(rec.Field(*c.stream), -1);
    if (c.task) e.task_id = IntOr(rec.Field(*c.task), -1);
    if (c.in_shapes) e.input_shapes = in_shapes.Intern(ShapeText(rec.Field(*c.in_shapes)), strings);
    if (c.out_shapes) e.output_shapes = out_shapes.Intern(ShapeText(rec.Field(*c.out_shapes)), strings);
    if (c.in_dtypes) {
      std::string_view t = TrimCsvField(rec.Field(*c.in_dtypes));
      e.input_dtypes = IsMissingCsvValue(t) ? 0 : in_dtypes.Intern(t, strings);
    }
    if (k.any_pipe) {
      PipelineFields pf;
      bool have = false;
      for (int i = 0; i < kStoredPipeCount; ++i) {
        if (!c.pipe[i]) continue;
        pf.packed[i] = PackDecimalText(rec.Field(*c.pipe[i]), overflow);
        have |= pf.packed[i] != kPackedMissing;
      }
      if (c.op_state) {
        pf.op_state = ParseOpState(rec.Field(*c.op_state));
        have |= pf.op_state != OpState::kUnknown;
      }
      if (have) e.pipe = pipes.Add(pf);
    }
    events.push_back(e);
  }
  out.end = reader.position();
  out.lines = reader.line() - first_line;
}

// Appends a chunk to the rank's table: its strings interned in their first-seen order (so ids
// come out as a single pass over the file would give them), rows and issue lines moved to their
// place in the file. The caller releases or recycles the chunk's storage.
void MergeChunk(KernelChunk& c, uint64_t line_shift, const std::string& path, StringTable& strings, RankTable& table,
                std::vector<DataIssue>& issues) {
  for (const ChunkIssue& i : c.issues)
    AddIssue(issues, i.name, i.severity, i.description, fmt::format("{}:{}{}", path, i.line + line_shift, i.detail),
             i.count);
  if (!c.owns()) return;  // already in the table
  const std::vector<uint32_t> ids = MergeStrings(c.own_strings, strings);
  const uint32_t pipe_base = table.pipes.Append(
      c.own_pipes, [&](uint32_t v) { return RepackDecimal(v, c.own_overflow, table.pipe_overflow); });
  for (Event& e : c.own_events) {
    RemapStrings(e, ids);
    e.row = static_cast<uint32_t>(e.row + line_shift);
    if (e.pipe != kNone32) e.pipe += pipe_base;
    e.wait = RepackWait(e.wait, c.own_long_waits, table.long_waits);
    table.events.push_back(e);
  }
}

// Bytes per line in the first MiB after `begin`, or in the `bytes` there when fewer (1 when there
// is no newline). The sample buffer is no larger than what it samples: a cluster root reads
// thousands of small files, and a zero-filled MiB each was a third of their cost.
double SampleLineBytes(const std::filesystem::path& path, uint64_t begin, uint64_t bytes) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(begin));
  std::vector<char> buf(static_cast<size_t>(std::min<uint64_t>(bytes, 1 << 20)));
  in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
  size_t got = static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0));
  size_t lines = static_cast<size_t>(std::count(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(got), '\n'));
  return lines ? double(got) / double(lines) : std::max<double>(1.0, double(got));
}

// The first record start at or after `offset` when no quoted field spans it: the byte after the
// first '\n' at or after offset - 1. `size` when there is none.
Result<uint64_t> NextLineStart(const std::filesystem::path& path, uint64_t offset, uint64_t size) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError("{}: cannot open", path.string());
  uint64_t pos = offset - 1;
  in.seekg(static_cast<std::streamoff>(pos));
  std::vector<char> buf(64 << 10);
  while (pos < size) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    size_t got = static_cast<size_t>(in.gcount());
    if (got == 0) break;
    if (const void* nl = std::memchr(buf.data(), '\n', got))
      return pos + static_cast<uint64_t>(static_cast<const char*>(nl) - buf.data()) + 1;
    pos += got;
  }
  return size;
}

}  // namespace

Status ReadKernelCsv(const std::filesystem::path& path, const Rules& rules, StringTable& strings, RankTable& table,
                     std::vector<DataIssue>& issues, const ParallelRead& parallel) {
  OPTRACE_ASSIGN_OR_RETURN(CsvReader reader, CsvReader::Open(path));
  CsvRecord rec;
  OPTRACE_ASSIGN_OR_RETURN(bool have_header, reader.Next(rec));
  if (!have_header) return BadInputError("{}: empty file; expected a kernel_details.csv header", path.string());
  CsvHeader header(rec);
  KernelLayout k;
  k.path = path;
  k.columns = FindColumns(header);
  k.field_count = header.names().size();
  const KernelColumns& c = k.columns;
  std::vector<std::string> missing;
  if (!c.name) missing.push_back("Name");
  if (!c.start) missing.push_back("Start Time(us)");
  if (!c.dur) missing.push_back("Duration(us)");
  if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "'" : ", '") + m + "'";
    return BadInputError("{}:1: missing column {} (header has {} columns); expected a torch_npu kernel_details.csv "
                         "or msprof op_summary export",
                         path.string(), list, header.names().size());
  }
  table.identity.csv_columns = header.names();
  k.file_id = static_cast<uint16_t>(table.files.size());
  table.files.push_back({path.string(), ""});
  for (const auto& p : c.pipe) k.any_pipe |= p.has_value();
  k.any_pipe |= c.op_state.has_value();
  const uint64_t data_begin = reader.position();
  const uint64_t first_line = reader.line();
  reader = CsvReader::FromString("", "");  // closes the file

  // Ranges of about equal size, each starting after a newline. A newline inside a quoted field
  // makes a wrong start: the range before then ends past it, and the range is parsed again from
  // where that one stopped (rare: only shapes are quoted, and they hold no newlines).
  std::error_code size_ec;
  const uint64_t size = std::filesystem::file_size(path, size_ec);
  const uint64_t bytes = size_ec || size < data_begin ? 0 : size - data_begin;
  size_t ranges = 1;
  if (parallel.threads > 1 && parallel.min_chunk_bytes > 0 && bytes >= 2 * parallel.min_chunk_bytes)
    ranges = static_cast<size_t>(std::min<uint64_t>(bytes / parallel.min_chunk_bytes, uint64_t(parallel.threads) * 4));
  std::vector<uint64_t> starts{data_begin};
  for (size_t i = 1; i < ranges; ++i) {
    OPTRACE_ASSIGN_OR_RETURN(uint64_t s, NextLineStart(path, data_begin + bytes * i / ranges, size));
    if (s > starts.back() && s < size) starts.push_back(s);
  }
  ranges = starts.size();
  starts.push_back(size_ec ? UINT64_MAX : size);

  // Reserved from a sample of the row size (virtual until written), so no vector copies itself
  // while growing: the first range fills the rank's table, the others are appended to it.
  const double line_bytes = bytes > 0 ? SampleLineBytes(path, data_begin, bytes) : 1.0;
  auto rows_in = [&](uint64_t n) { return static_cast<size_t>(double(n) / line_bytes * 1.05) + 64; };
  table.events.reserve(table.events.size() + rows_in(bytes));
  AdviseHugePages(table.events.data(), table.events.capacity() * sizeof(Event));
  if (k.any_pipe) ReservePipes(table.pipes, table.pipes.size() + rows_in(bytes));
  std::vector<KernelChunk> chunks(ranges);
  chunks[0].Direct(strings, table);
  // Ranges are merged into the rank's table in file order as soon as they and every range
  // before them are parsed, by the thread that finished last: merging overlaps the parsing of
  // later ranges, and each range's own storage is released as soon as it is merged.
  std::mutex merge_mutex;
  // The tables of merged ranges, emptied, for ranges that start later: their rows then land in
  // pages already touched (the kernel zeroes every fresh page first: a sixth of the CPU here).
  std::vector<std::pair<std::vector<Event>, PipeStore>> spare;
  std::vector<uint8_t> parsed(ranges, 0);
  size_t started = 0;  // ParallelFor hands ranges out in order: 0 .. started - 1 have begun
  size_t merged = 0;
  uint64_t pos = data_begin, line = first_line;
  Status merge_status;
  auto merge_ready = [&] {  // under merge_mutex
    while (merged < ranges && parsed[merged] && merge_status.ok()) {
      const size_t i = merged;
      KernelChunk& ch = chunks[i];
      // A range that did not start where the one before stopped, or failed where its line
      // numbers were still relative: parse it again from the right place (errors then name the
      // right line).
      if (ch.begin != pos || (!ch.status.ok() && ch.local_lines)) {
        ch.Reset();
        ParseKernelRange(k, rules, pos, starts[i + 1], line, 0, ch);
      }
      if (!ch.status.ok()) {
        merge_status = ch.status;
        return;
      }
      uint64_t shift = ch.local_lines ? line - 1 : 0;
      uint64_t end = ch.end, lines = ch.lines;
      MergeChunk(ch, shift, path.string(), strings, table, issues);
      if (ch.owns() && spare.size() < ranges - started) {  // only for a range yet to start
        ch.own_events.clear();
        ch.own_pipes.Clear();
        spare.emplace_back(std::move(ch.own_events), std::move(ch.own_pipes));
      }
      ch.Reset();
      pos = end;
      line += lines;
      ++merged;
    }
  };
  ParallelFor(ranges, parallel.threads, [&](size_t i) {
    {
      std::lock_guard<std::mutex> lock(merge_mutex);
      started = std::max(started, i + 1);
      if (i > 0 && !spare.empty()) {
        chunks[i].own_events = std::move(spare.back().first);
        chunks[i].own_pipes = std::move(spare.back().second);
        spare.pop_back();
      }
    }
    uint64_t end = std::min(starts[i + 1], size_ec ? UINT64_MAX : size);
    ParseKernelRange(k, rules, starts[i], starts[i + 1], i == 0 ? first_line : 1,
                     i == 0 ? 0 : rows_in(end - starts[i]), chunks[i]);
    chunks[i].local_lines = i != 0;
    std::lock_guard<std::mutex> lock(merge_mutex);
    parsed[i] = 1;
    merge_ready();
  });
  OPTRACE_RETURN_IF_ERROR(merge_status);
  return Status::Ok();
}

}  // namespace optrace::analyze
