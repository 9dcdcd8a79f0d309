// Reading latency CSVs into LatencyTable: column lookup, unit conversion, warm-up policy.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/csv_reader.h"
#include "evidence/latency/latency.h"

namespace optrace::evidence {
namespace {

struct RawRow {
  LatencySample sample;
  bool value_missing = false;
  bool warmup_flag = false;
};

struct ReadState {
  std::vector<RawRow> rows;
  std::vector<std::string> origins;
  std::string value_column;
  std::string measurement;
  std::string measurement_where;
  std::optional<double> clock_hz;
  std::string clock_where;
  bool any_warmup_column = false;
};

double ToMicros(double v, LatencyUnit unit, double clock_hz) {
  switch (unit) {
    case LatencyUnit::kUs: return v;
    case LatencyUnit::kMs: return v * 1e3;
    case LatencyUnit::kNs: return v * 1e-3;
    case LatencyUnit::kCycles: return v / clock_hz * 1e6;
  }
  return v;
}

std::string ColumnList(const CsvHeader& header) {
  std::string out;
  for (const std::string& n : header.names()) {
    if (n.empty()) continue;
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

Status ReadOne(CsvReader& reader, const LatencyOptions& opt, ReadState& st) {
  const std::string& origin = reader.origin();
  st.origins.push_back(origin);
  CsvRecord rec;
  OPTRACE_ASSIGN_OR_RETURN(bool have_header, reader.Next(rec));
  if (!have_header) return BadInputError("{}: empty file; expected a header line with rank, iteration and a latency column", origin);
  CsvHeader header(rec);
  auto need = [&](const std::string& name, std::string_view flag) -> Result<size_t> {
    if (auto c = header.Find(name)) return *c;
    return BadInputError("{}:{}: no '{}' column (columns: {}); name the column with {}", origin, rec.line, name,
                         ColumnList(header), flag);
  };
  OPTRACE_ASSIGN_OR_RETURN(size_t rank_col, need(opt.rank_column, "--rank-col"));
  OPTRACE_ASSIGN_OR_RETURN(size_t iter_col, need(opt.iteration_column, "--iter-col"));
  size_t value_col = 0;
  LatencyUnit unit = opt.unit;
  std::string value_name;
  if (!opt.value_column.empty()) {
    OPTRACE_ASSIGN_OR_RETURN(value_col, need(opt.value_column, "--value-col"));
    value_name = opt.value_column;
  } else if (auto us = header.Find("elapsed_us")) {
    value_col = *us, unit = LatencyUnit::kUs, value_name = "elapsed_us";
  } else if (auto ms = header.Find("elapsed_ms")) {
    value_col = *ms, unit = LatencyUnit::kMs, value_name = "elapsed_ms";
  } else {
    return BadInputError("{}:{}: no elapsed_us or elapsed_ms column (columns: {}); name the latency column with --value-col",
                         origin, rec.line, ColumnList(header));
  }
  if (!st.value_column.empty() && st.value_column != value_name) {
    return BadInputError("{}: latency comes from '{}' here but from '{}' in an earlier file; give files of one layout",
                         origin, value_name, st.value_column);
  }
  st.value_column = value_name;
  auto warm_col = header.Find("is_warmup");
  auto avg_col = header.Find("in_average");
  auto meas_col = header.Find("measurement");
  auto clock_col = header.Find("clock_hz");
  if (warm_col) st.any_warmup_column = true;
  if (unit == LatencyUnit::kCycles && !clock_col && !opt.clock_hz) {
    return BadInputError("{}: --unit cycles needs a clock_hz column or --clock-hz", origin);
  }

  // Fields a row must have: up to the last named column (a trailing comma adds an empty name).
  size_t need_fields = header.names().size();
  while (need_fields > 0 && header.names()[need_fields - 1].empty()) --need_fields;

  auto flag = [&](size_t col, std::string_view name) -> Result<bool> {
    std::string_view f = TrimCsvField(rec.Field(col));
    if (f == "1" || f == "true" || f == "True") return true;
    if (f == "0" || f == "false" || f == "False" || IsMissingCsvValue(f)) return false;
    return BadInputError("{}:{}: {} is '{}', expected 0 or 1", origin, rec.line, name, f);
  };

  while (true) {
    OPTRACE_ASSIGN_OR_RETURN(bool more, reader.Next(rec));
    if (!more) break;
    // Built only for messages: formatting it per row dominated the read time.
    auto where = [&] { return fmt::format("{}:{}", origin, rec.line); };
    if (rec.size() < need_fields) {
      return BadInputError("{}: {} fields but the header has {} ({}); the row is cut short: fix or remove it "
                           "(write NA for a missing value)",
                           where(), rec.size(), need_fields, ColumnList(header));
    }
    RawRow row;
    auto rank = ParseCsvInt(rec.Field(rank_col));
    if (!rank) return BadInputError("{}: {} '{}' is not an integer", where(), opt.rank_column, TrimCsvField(rec.Field(rank_col)));
    auto iter = ParseCsvInt(rec.Field(iter_col));
    if (!iter) {
      return BadInputError("{}: {} '{}' is not an integer", where(), opt.iteration_column, TrimCsvField(rec.Field(iter_col)));
    }
    row.sample.rank = *rank;
    row.sample.iteration = *iter;
    row.sample.input = static_cast<uint32_t>(st.origins.size() - 1);
    row.sample.line = rec.line;
    if (warm_col) {
      OPTRACE_ASSIGN_OR_RETURN(row.warmup_flag, flag(*warm_col, "is_warmup"));
      if (avg_col) {
        OPTRACE_ASSIGN_OR_RETURN(bool in_avg, flag(*avg_col, "in_average"));
        if (in_avg && row.warmup_flag) {
          return BadInputError("{}: is_warmup and in_average are both 1; the file is inconsistent", where());
        }
      }
    }
    if (meas_col) {
      std::string_view m = TrimCsvField(rec.Field(*meas_col));
      if (!m.empty()) {
        if (st.measurement.empty()) {
          st.measurement = std::string(m), st.measurement_where = where();
        } else if (m != st.measurement) {
          return BadInputError("{}: measurement '{}' differs from '{}' at {}; analyze kernel and event timings separately",
                               where(), m, st.measurement, st.measurement_where);
        }
      }
    }
    double hz = opt.clock_hz.value_or(0);
    if (clock_col && !IsMissingCsvValue(rec.Field(*clock_col))) {
      auto c = ParseCsvNumber(rec.Field(*clock_col));
      if (!c || !(*c > 0)) return BadInputError("{}: clock_hz '{}' is not a positive number", where(), TrimCsvField(rec.Field(*clock_col)));
      if (st.clock_hz && *st.clock_hz != *c) {
        return BadInputError("{}: clock_hz {} differs from {} at {}; analyze one clock at a time", where(), *c, *st.clock_hz,
                             st.clock_where);
      }
      if (!st.clock_hz) st.clock_hz = *c, st.clock_where = where();
      hz = *c;
    }
    std::string_view cell = rec.Field(value_col);
    if (IsMissingCsvValue(cell)) {
      row.value_missing = true;
    } else {
      auto v = ParseCsvNumber(cell);
      if (!v) return BadInputError("{}: {} '{}' is not a number", where(), value_name, TrimCsvField(cell));
      if (!std::isfinite(*v) || *v < 0) {
        return BadInputError("{}: {} {} is not a finite non-negative latency", where(), value_name, TrimCsvField(cell));
      }
      if (unit == LatencyUnit::kCycles && !(hz > 0)) {
        return BadInputError("{}: no clock_hz for a cycles value; give --clock-hz", where());
      }
      row.sample.us = ToMicros(*v, unit, hz);
    }
    st.rows.push_back(std::move(row));
  }
  if (st.clock_hz == std::nullopt && opt.clock_hz) st.clock_hz = opt.clock_hz;
  return Status::Ok();
}

Result<LatencyTable> Finish(ReadState st, std::vector<std::string> inputs, const LatencyOptions& opt) {
  if (st.rows.empty()) {
    return BadInputError("{}: no data rows after the header; nothing to analyze", fmt::join(inputs, ", "));
  }
  // Duplicate (rank, iteration) pairs: sort row indices by key, keeping file order among equals.
  {
    std::vector<uint32_t> order(st.rows.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    auto key = [&](uint32_t i) { return std::pair(st.rows[i].sample.rank, st.rows[i].sample.iteration); };
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
    const LatencySample* dup = nullptr;
    const LatencySample* first = nullptr;
    for (size_t i = 1; i < order.size(); ++i) {
      if (key(order[i]) != key(order[i - 1])) continue;
      const LatencySample& s = st.rows[order[i]].sample;
      // Report the earliest second occurrence in read order.
      if (!dup || std::pair(s.input, s.line) < std::pair(dup->input, dup->line)) {
        dup = &s, first = &st.rows[order[i - 1]].sample;
      }
    }
    if (dup) {
      return BadInputError("{}:{}: rank {} iteration {} appears twice (first at {}:{}); each (rank, iteration) needs "
                           "one row",
                           st.origins[dup->input], dup->line, dup->rank, dup->iteration, st.origins[first->input],
                           first->line);
    }
  }
  LatencyTable t;
  t.inputs = std::move(inputs);
  t.value_column = st.value_column;
  t.measurement = st.measurement;
  t.clock_hz = st.clock_hz;
  std::set<int64_t> warm_iterations;
  if (opt.warmup) {
    std::set<int64_t> all;
    for (const RawRow& r : st.rows) all.insert(r.sample.iteration);
    for (int64_t it : all) {
      if (static_cast<int64_t>(warm_iterations.size()) >= *opt.warmup) break;
      warm_iterations.insert(it);
    }
    t.warmup_policy = fmt::format("--warmup {}: the first {} iterations (by iteration number) excluded{}", *opt.warmup,
                                  *opt.warmup, st.any_warmup_column ? "; the is_warmup column is ignored" : "");
  } else if (st.any_warmup_column) {
    t.warmup_policy = "rows with is_warmup = 1 excluded";
  } else {
    t.warmup_policy = "none: no is_warmup column and no --warmup; every row is measured";
  }
  for (RawRow& r : st.rows) {
    bool warm = opt.warmup ? warm_iterations.count(r.sample.iteration) > 0 : r.warmup_flag;
    if (warm) {
      ++t.warmup_rows_excluded;
      continue;
    }
    if (r.value_missing) {
      ++t.missing_value_rows;
      t.missing_values.push_back({r.sample.rank, r.sample.iteration, r.sample.input, r.sample.line});
      continue;
    }
    t.samples.push_back(std::move(r.sample));
  }
  if (t.samples.empty()) {
    return BadInputError("{}: all {} rows are warm-up or have no value; nothing left to analyze (check --warmup)",
                         fmt::join(t.inputs, ", "), st.rows.size());
  }
  return t;
}

}  // namespace

std::optional<LatencyUnit> ParseLatencyUnit(std::string_view text) {
  if (text == "us") return LatencyUnit::kUs;
  if (text == "ms") return LatencyUnit::kMs;
  if (text == "ns") return LatencyUnit::kNs;
  if (text == "cycles") return LatencyUnit::kCycles;
  return std::nullopt;
}

Result<LatencyTable> ReadLatencyCsvFiles(const std::vector<std::filesystem::path>& paths, const LatencyOptions& options) {
  ReadState st;
  std::vector<std::string> inputs;
  for (const auto& p : paths) {
    OPTRACE_ASSIGN_OR_RETURN(CsvReader reader, CsvReader::Open(p));
    OPTRACE_RETURN_IF_ERROR(ReadOne(reader, options, st));
    inputs.push_back(p.string());
  }
  return Finish(std::move(st), std::move(inputs), options);
}

Result<LatencyTable> ReadLatencyCsvText(std::string text, const std::string& origin, const LatencyOptions& options) {
  ReadState st;
  CsvReader reader = CsvReader::FromString(std::move(text), origin);
  OPTRACE_RETURN_IF_ERROR(ReadOne(reader, options, st));
  return Finish(std::move(st), {origin}, options);
}

}  // namespace optrace::evidence
