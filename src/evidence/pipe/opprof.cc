// Loading OPPROF directories and metric CSVs.
#include "evidence/pipe/opprof.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

#include "core/csv_reader.h"

namespace optrace::evidence {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kMaxBlockId = 1 << 16;

// "cube0" -> (kAic, 0), "vector1" -> (kAiv, 1).
bool ParseSubBlock(std::string_view s, format::CoreKind& kind, uint32_t& k) {
  std::string_view digits;
  if (s.starts_with("cube")) {
    kind = format::CoreKind::kAic, digits = s.substr(4);
  } else if (s.starts_with("vector")) {
    kind = format::CoreKind::kAiv, digits = s.substr(6);
  } else {
    return false;
  }
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
  return !digits.empty() && ec == std::errc() && p == digits.data() + digits.size() && k < 256;
}

Result<MetricTable> ParseMetricTable(CsvReader& reader, const std::string& name) {
  const std::string& origin = reader.origin();
  CsvRecord rec;
  OPTRACE_ASSIGN_OR_RETURN(bool have_header, reader.Next(rec));
  if (!have_header) return BadInputError("{}: empty file; expected an msprof op metric CSV with a header", origin);
  CsvHeader header(rec);
  auto block_col = header.Find("block_id");
  auto sub_col = header.Find("sub_block_id");
  if (!block_col || !sub_col) {
    return BadInputError("{}:{}: no {} column; this is not an msprof op per-core metric CSV (expected block_id, "
                         "sub_block_id, then metric columns)",
                         origin, rec.line, block_col ? "sub_block_id" : "block_id");
  }
  MetricTable t;
  t.name = name;
  t.path = origin;
  std::vector<size_t> metric_cols;
  for (size_t i = 0; i < header.names().size(); ++i) {
    const std::string& n = header.names()[i];
    if (i == *block_col || i == *sub_col || n.empty()) continue;  // trailing comma: empty last name
    metric_cols.push_back(i);
    t.columns.push_back(n);
  }
  if (t.columns.empty()) {
    return BadInputError("{}:{}: no metric column after block_id and sub_block_id; expected an msprof op metric CSV "
                         "such as PipeUtilization.csv (aic_time(us), aiv_time(us), aiv_vec_ratio, ...)",
                         origin, rec.line);
  }
  // Fields a row must have: up to the last named column (real exports end every line with a comma).
  size_t need_fields = header.names().size();
  while (need_fields > 0 && header.names()[need_fields - 1].empty()) --need_fields;
  std::set<std::pair<uint32_t, std::string>> seen;
  while (true) {
    OPTRACE_ASSIGN_OR_RETURN(bool more, reader.Next(rec));
    if (!more) break;
    if (rec.size() < need_fields) {
      return BadInputError("{}:{}: {} fields but the header has {}; the row is cut short: fix or remove it (write NA "
                           "for a missing value)",
                           origin, rec.line, rec.size(), need_fields);
    }
    MetricRow row;
    row.line = rec.line;
    auto block = ParseCsvInt(rec.Field(*block_col));
    // Core indices are small (tens per chip); a huge block id would wrap into core 0 later.
    if (!block || *block < 0 || *block >= kMaxBlockId) {
      return BadInputError("{}:{}: block_id '{}' is not an integer from 0 to {}", origin, rec.line,
                           TrimCsvField(rec.Field(*block_col)), kMaxBlockId - 1);
    }
    row.block = static_cast<uint32_t>(*block);
    row.sub_block = std::string(TrimCsvField(rec.Field(*sub_col)));
    if (!ParseSubBlock(row.sub_block, row.kind, row.sub)) {
      return BadInputError("{}:{}: sub_block_id '{}' is not cube<k> or vector<k>", origin, rec.line, row.sub_block);
    }
    if (!seen.emplace(row.block, row.sub_block).second) {
      return BadInputError("{}:{}: block {} {} appears twice", origin, rec.line, row.block, row.sub_block);
    }
    for (size_t c = 0; c < metric_cols.size(); ++c) {
      std::string_view cell = rec.Field(metric_cols[c]);
      if (IsMissingCsvValue(cell)) {
        row.values.emplace_back();
        continue;
      }
      auto v = ParseCsvNumber(cell);
      if (!v) {
        return BadInputError("{}:{}: {} '{}' is not a number (NA marks a missing value)", origin, rec.line, t.columns[c],
                             TrimCsvField(cell));
      }
      row.values.push_back(*v);
    }
    t.rows.push_back(std::move(row));
  }
  if (t.rows.empty()) return BadInputError("{}: no data rows after the header; the export holds no cores", origin);
  return t;
}

Result<OpBasicInfo> ParseOpBasicInfo(const fs::path& path) {
  OPTRACE_ASSIGN_OR_RETURN(CsvReader reader, CsvReader::Open(path));
  CsvRecord rec;
  OPTRACE_ASSIGN_OR_RETURN(bool have_header, reader.Next(rec));
  if (!have_header) return BadInputError("{}: empty file; expected OpBasicInfo.csv with a header and one row", path.string());
  CsvHeader header(rec);
  OPTRACE_ASSIGN_OR_RETURN(bool have_row, reader.Next(rec));
  if (!have_row) return BadInputError("{}: header only; expected one row describing the operator", path.string());
  OpBasicInfo info;
  info.path = path.string();
  for (size_t i = 0; i < header.names().size(); ++i) {
    if (header.names()[i].empty()) continue;
    info.fields.emplace_back(header.names()[i], std::string(TrimCsvField(rec.Field(i))));
  }
  return info;
}

// The identity of a launch in OpBasicInfo.csv, and what may differ between its replays.
constexpr std::string_view kLaunchIdentity[] = {"Op Name", "Op Type", "Block Dim", "Mix Block Dim", "Device Id"};
constexpr std::string_view kMayDiffer[] = {"Current Freq"};

// A further export of the run must describe the same launch as the first.
Status CheckReplay(OpprofRun& run, const OpBasicInfo& info) {
  ReplayCheck& r = run.replay;
  ++r.exports;
  if (!run.op_info) {
    for (std::string_view f : kLaunchIdentity)
      if (info.Get(f)) r.agreeing.emplace_back(f);
    return Status::Ok();
  }
  const OpBasicInfo& first = *run.op_info;
  for (std::string_view f : kLaunchIdentity) {
    std::optional<std::string> a = first.Get(f), b = info.Get(f);
    if (a && b && *a != *b)
      return BadInputError("{} and {}: {} is '{}' in one and '{}' in the other: these exports are not replays of the "
                           "same kernel launch and their metrics do not combine; collect every metric group with the "
                           "same msprof op command (the same --kernel-name, --launch-count, --warm-up and launch "
                           "script), or pass the second run with --compare",
                           first.path, info.path, f, *a, *b);
  }
  for (std::string_view f : kMayDiffer) {
    std::optional<std::string> a = first.Get(f), b = info.Get(f);
    if (a && b && *a != *b)
      r.notes.push_back(fmt::format("{} differs between replays ({} in {}, {} in {}): compare rates with care", f, *a,
                                    first.path, *b, info.path));
  }
  return Status::Ok();
}

struct Candidate {
  fs::path path;
  std::string table;  // canonical name, "OpBasicInfo", or the stem for unknown tables
};

}  // namespace

std::optional<size_t> MetricTable::Column(std::string_view metric) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i] == metric) return i;
  }
  return std::nullopt;
}

std::optional<std::string> OpBasicInfo::Get(std::string_view name) const {
  for (const auto& [k, v] : fields) {
    if (k == name) return IsMissingCsvValue(v) ? std::nullopt : std::optional<std::string>(v);
  }
  return std::nullopt;
}

uint32_t OpprofRun::CoreIndex(const MetricRow& row) const {
  return row.kind == format::CoreKind::kAiv ? row.block * vectors_per_block + row.sub : row.block;
}

std::string CanonicalTableName(std::string_view stem) {
  std::vector<std::string_view> names = KnownMetricTables();
  names.push_back("OpBasicInfo");
  for (std::string_view n : names) {
    if (stem == n) return std::string(n);
    // Timestamped exports: PipeUtilization_20250101120000.
    if (stem.size() > n.size() && stem.starts_with(n) && stem[n.size()] == '_') return std::string(n);
  }
  return "";
}

std::string TableKindFromColumns(const std::vector<std::string>& columns) {
  auto has = [&](std::string_view n) { return std::find(columns.begin(), columns.end(), n) != columns.end(); };
  if (!has("block_id")) return has("Op Name") ? "OpBasicInfo" : "";
  // Columns every known table has (aic_time(us), ...) say nothing about the kind.
  const auto& tables = KnownMetricTables();
  auto in_every_table = [&](std::string_view c) {
    return std::all_of(tables.begin(), tables.end(), [&](std::string_view t) {
      const auto* k = KnownColumns(t);
      return std::find(k->begin(), k->end(), c) != k->end();
    });
  };
  std::string best;
  size_t best_score = 0;
  bool tie = false;
  for (std::string_view t : tables) {
    size_t score = 0;
    for (std::string_view c : *KnownColumns(t)) score += has(c) && !in_every_table(c);
    if (score > best_score) {
      best = std::string(t), best_score = score, tie = false;
    } else if (score == best_score && score > 0) {
      tie = true;
    }
  }
  return tie ? "" : best;
}

format::CoreKind MetricKind(std::string_view metric) {
  if (metric.starts_with("aic_")) return format::CoreKind::kAic;
  if (metric.starts_with("aiv_")) return format::CoreKind::kAiv;
  return format::CoreKind::kUnknown;
}

Result<MetricTable> ParseMetricTableText(std::string text, const std::string& origin, const std::string& name) {
  CsvReader reader = CsvReader::FromString(std::move(text), origin);
  return ParseMetricTable(reader, name);
}

Result<OpprofRun> LoadOpprof(const std::vector<fs::path>& paths) {
  std::vector<Candidate> files;
  for (const fs::path& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      size_t before = files.size();
      std::vector<fs::path> entries;
      for (const auto& e : fs::directory_iterator(p, ec)) {
        if (e.is_regular_file() && e.path().extension() == ".csv") entries.push_back(e.path());
      }
      std::sort(entries.begin(), entries.end());
      for (const fs::path& e : entries) {
        std::string name = CanonicalTableName(e.stem().string());
        if (!name.empty()) files.push_back({e, name});
      }
      if (files.size() == before) {
        return BadInputError("{}: no msprof op CSVs (PipeUtilization.csv, Memory.csv, ...) in this directory; give "
                             "an OPPROF_* directory or the CSV files",
                             p.string());
      }
    } else if (fs::exists(p, ec)) {
      std::string name = CanonicalTableName(p.stem().string());
      if (name.empty()) {  // a renamed export (run1_pipe.csv): recognise it by its columns
        OPTRACE_ASSIGN_OR_RETURN(CsvReader reader, CsvReader::Open(p));
        CsvRecord rec;
        OPTRACE_ASSIGN_OR_RETURN(bool have_header, reader.Next(rec));
        if (have_header) name = TableKindFromColumns(CsvHeader(rec).names());
      }
      files.push_back({p, name.empty() ? p.stem().string() : name});
    } else {
      return NotFoundError("{}: no such file or directory", p.string());
    }
  }
  OpprofRun run;
  for (const fs::path& p : paths) run.inputs.push_back(p.string());
  std::set<std::string> loaded;
  for (const Candidate& c : files) {
    if (c.table != "OpBasicInfo" && !loaded.insert(c.table).second) {
      return BadInputError("{}: a second {} table in one run; pass another run's files with --compare", c.path.string(),
                           c.table);
    }
    if (c.table == "OpBasicInfo") {
      OPTRACE_ASSIGN_OR_RETURN(OpBasicInfo info, ParseOpBasicInfo(c.path));
      OPTRACE_RETURN_IF_ERROR(CheckReplay(run, info));
      if (!run.op_info) run.op_info = std::move(info);
      continue;
    }
    OPTRACE_ASSIGN_OR_RETURN(CsvReader reader, CsvReader::Open(c.path));
    OPTRACE_ASSIGN_OR_RETURN(MetricTable t, ParseMetricTable(reader, c.table));
    run.tables.push_back(std::move(t));
  }
  // Canonical order first, unknown tables after, each by name.
  auto rank = [](const std::string& name) {
    const auto& known = KnownMetricTables();
    auto it = std::find(known.begin(), known.end(), name);
    return it == known.end() ? known.size() : static_cast<size_t>(it - known.begin());
  };
  std::stable_sort(run.tables.begin(), run.tables.end(), [&](const MetricTable& a, const MetricTable& b) {
    return std::pair(rank(a.name), a.name) < std::pair(rank(b.name), b.name);
  });
  for (const MetricTable& t : run.tables) {
    for (const MetricRow& r : t.rows) {
      if (r.kind == format::CoreKind::kAiv) run.vectors_per_block = std::max(run.vectors_per_block, r.sub + 1);
    }
  }
  if (run.tables.empty()) {
    return BadInputError("{}: only OpBasicInfo.csv given; per-core metrics need PipeUtilization.csv or a sibling",
                         fmt::join(run.inputs, ", "));
  }
  return run;
}

}  // namespace optrace::evidence
