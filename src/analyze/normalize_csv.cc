// Streaming reader of kernel_details.csv (torch_npu) and op_summary_*.csv (msprof).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_map>

#include "analyze/normalize.h"
#include "core/csv_reader.h"

namespace optrace::analyze {
namespace {

struct KernelColumns {
  std::optional<size_t> device, step, name, type, core, start, dur, wait, block, mix_block, stream, task, in_shapes,
      out_shapes, in_dtypes;
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
  c.mix_block = h.FindAny({"Mix Block Dim", "Mix Block Num"});
  c.stream = h.Find("Stream ID");
  c.task = h.Find("Task ID");
  c.in_shapes = h.Find("Input Shapes");
  c.out_shapes = h.Find("Output Shapes");
  c.in_dtypes = h.Find("Input Data Types");
  for (int i = 0; i < kStoredPipeCount; ++i) c.pipe[i] = h.Find(PipeColumnName(kPipeSumFields[i]));
  return c;
}

// Shapes keep their literal quotes after CSV unquoting ("\"1,2;3\""): drop them.
std::string_view ShapeText(std::string_view f) {
  f = TrimCsvField(f);
  if (f.size() >= 2 && f.front() == '"' && f.back() == '"') f = f.substr(1, f.size() - 2);
  if (IsMissingCsvValue(f)) return {};
  return f;
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

void AddIssue(std::vector<DataIssue>& issues, std::string_view name, std::string_view severity,
              std::string_view description, std::string_view example) {
  for (DataIssue& i : issues)
    if (i.name == name) {
      ++i.count;
      return;
    }
  issues.push_back({std::string(name), std::string(severity), std::string(description), 1, std::string(example)});
}

Status ReadKernelCsv(const std::filesystem::path& path, const Rules& rules, StringTable& strings, RankTable& table,
                     std::vector<DataIssue>& issues) {
  OPTRACE_ASSIGN_OR_RETURN(CsvReader reader, CsvReader::Open(path));
  CsvRecord rec;
  OPTRACE_ASSIGN_OR_RETURN(bool have_header, reader.Next(rec));
  if (!have_header) return BadInputError("{}: empty file; expected a kernel_details.csv header", path.string());
  CsvHeader header(rec);
  KernelColumns c = FindColumns(header);
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
  uint16_t file_id = static_cast<uint16_t>(table.files.size());
  table.files.push_back({path.string(), ""});
  bool any_pipe = false;
  for (const auto& p : c.pipe) any_pipe |= p.has_value();

  std::unordered_map<uint64_t, OpType> op_cache;  // (core id, name id) -> op type
  // Reserve once the row size is known, instead of growing (copies and page faults).
  std::error_code size_ec;
  uint64_t file_bytes = std::filesystem::file_size(path, size_ec);
  size_t first_events = table.events.size();
  bool reserved = size_ec || file_bytes < (1u << 20);
  while (true) {
    if (!reserved && table.events.size() - first_events == 2048) {
      reserved = true;
      double per_row = std::max(1.0, double(rec.byte_offset) / 2048.0);
      size_t rows = static_cast<size_t>(double(file_bytes) / per_row * 1.02) + 1024;
      table.events.reserve(table.events.size() + rows);
      if (any_pipe) table.pipes.reserve(table.pipes.size() + rows);
    }
    OPTRACE_ASSIGN_OR_RETURN(bool more, reader.Next(rec));
    if (!more) break;
    if (rec.size() != header.names().size()) {
      // A short or long row would put its values under the wrong columns (a 31-field row under
      // a 32-column header turned a Duration into aicore_time): skip it, never guess.
      AddIssue(issues, "kernel_row_field_count", "data_loss",
               fmt::format("kernel rows whose field count differs from the header's {} columns were skipped "
                           "(values would land in the wrong columns); check the export for a truncated or "
                           "hand-edited row",
                           header.names().size()),
               fmt::format("{}:{} ({} fields)", path.string(), rec.line, rec.size()));
      continue;
    }
    auto start = ParseUsToNs(rec.Field(*c.start));
    auto dur = ParseUsToNs(rec.Field(*c.dur));
    if (!start || !dur || *dur < 0) {
      AddIssue(issues, "kernel_row_unparsable", "data_loss",
               "kernel rows without a parsable Start Time / Duration were skipped",
               fmt::format("{}:{}", path.string(), rec.line));
      continue;
    }
    Event e;
    e.start_ns = *start;
    e.dur_ns = *dur;
    e.row = static_cast<uint32_t>(rec.line);
    e.file = file_id;
    std::string_view name = TrimCsvField(rec.Field(*c.name));
    e.name = strings.Intern(name);
    if (c.type) {
      std::string_view t = TrimCsvField(rec.Field(*c.type));
      e.type = IsMissingCsvValue(t) ? 0 : strings.Intern(t);
    }
    if (c.core) {
      std::string_view t = TrimCsvField(rec.Field(*c.core));
      e.core = IsMissingCsvValue(t) ? 0 : strings.Intern(t);
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
      if (d > 127) {  // events keep a byte; no NPU server numbers devices this high
        AddIssue(issues, "device_id_out_of_range", "warning",
                 "rows with a Device_id above 127 are kept without a device (not split into their own rank)",
                 fmt::format("{}:{} (Device_id {})", path.string(), rec.line, d));
        d = -1;
      }
      e.device = static_cast<int8_t>(std::max(d, -1));
    }
    if (c.wait) {
      auto w = ParseUsToNs(rec.Field(*c.wait));
      e.wait_ns = w ? *w : -1;
    }
    if (c.block) e.block_dim = IntOr(rec.Field(*c.block), -1);
    if (c.mix_block) e.mix_block_dim = IntOr(rec.Field(*c.mix_block), -1);
    if (c.stream) e.stream_id = IntOr(rec.Field(*c.stream), -1);
    if (c.task) e.task_id = IntOr(rec.Field(*c.task), -1);
    if (c.in_shapes) e.input_shapes = strings.Intern(ShapeText(rec.Field(*c.in_shapes)));
    if (c.out_shapes) e.output_shapes = strings.Intern(ShapeText(rec.Field(*c.out_shapes)));
    if (c.in_dtypes) {
      std::string_view t = TrimCsvField(rec.Field(*c.in_dtypes));
      e.input_dtypes = IsMissingCsvValue(t) ? 0 : strings.Intern(t);
    }
    if (any_pipe) {
      PipelineFields pf;
      bool have = false;
      for (int i = 0; i < kStoredPipeCount; ++i) {
        if (!c.pipe[i]) continue;
        pf.packed[i] = PackDecimalText(rec.Field(*c.pipe[i]), table.pipe_overflow);
        have |= pf.packed[i] != kPackedMissing;
      }
      if (have) {
        e.pipe = static_cast<uint32_t>(table.pipes.size());
        table.pipes.push_back(pf);
      }
    }
    table.events.push_back(e);
  }
  return Status::Ok();
}

}  // namespace optrace::analyze
