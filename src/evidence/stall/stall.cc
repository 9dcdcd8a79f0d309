// Reading stall-sample CSVs and computing shares over both denominators.
#include "evidence/stall/stall.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "core/csv_reader.h"

namespace optrace::evidence {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "AIV3", "aiv_3", "aiv 3" -> "aiv 3"; "7" -> "core 7"; anything else as written.
std::string NormalizeCore(std::string_view raw) {
  std::string s = Lower(TrimCsvField(raw));
  size_t letters = 0;
  while (letters < s.size() && std::isalpha(static_cast<unsigned char>(s[letters]))) ++letters;
  size_t digits = letters;
  while (digits < s.size() && (s[digits] == ' ' || s[digits] == '_')) ++digits;
  std::string num = s.substr(digits);
  bool numeric = !num.empty() && std::all_of(num.begin(), num.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (!numeric) return std::string(TrimCsvField(raw));
  return letters == 0 ? "core " + num : s.substr(0, letters) + " " + num;
}

Status ReadRows(CsvReader& reader, StallTable& t) {
  const std::string& origin = reader.origin();
  CsvRecord rec;
  OPTRACE_ASSIGN_OR_RETURN(bool have_header, reader.Next(rec));
  if (!have_header) return BadInputError("{}: empty file; expected a header with reason and count columns", origin);
  CsvHeader h(rec);
  auto reason_col = h.FindAny({"reason", "stall_reason", "Stall Reason", "Reason"});
  auto count_col = h.FindAny({"count", "samples", "sample_count", "Count", "Samples"});
  if (!reason_col || !count_col) {
    return BadInputError("{}:{}: no {} column; a stall CSV needs reason and count columns (docs/evidence.md, "
                         "'optrace stall')",
                         origin, rec.line, reason_col ? "count (or samples)" : "reason");
  }
  auto core_col = h.FindAny({"core", "core_id", "Core"});
  auto pc_col = h.FindAny({"pc", "PC"});
  auto source_col = h.FindAny({"source", "Source"});
  auto file_col = h.FindAny({"file", "File"});
  auto line_col = h.FindAny({"line", "Line"});
  t.has_core = core_col.has_value();
  t.has_location = pc_col || source_col || (file_col && line_col);
  std::map<std::string, bool> warned;
  while (true) {
    OPTRACE_ASSIGN_OR_RETURN(bool more, reader.Next(rec));
    if (!more) break;
    StallRow row;
    std::string_view raw_reason = TrimCsvField(rec.Field(*reason_col));
    if (raw_reason.empty()) return BadInputError("{}:{}: empty reason", origin, rec.line);
    row.reason = CanonicalStallReason(raw_reason);
    if (row.reason.empty()) {
      row.reason = std::string(raw_reason);
      if (!warned[row.reason]) {
        warned[row.reason] = true;
        t.warnings.push_back(fmt::format("{}:{}: unknown stall reason '{}' kept under its own name and counted as "
                                         "not issued",
                                         origin, rec.line, raw_reason));
      }
    }
    auto count = ParseCsvInt(rec.Field(*count_col));
    if (!count || *count < 0) {
      return BadInputError("{}:{}: count '{}' is not a non-negative integer sample count", origin, rec.line,
                           TrimCsvField(rec.Field(*count_col)));
    }
    row.count = static_cast<uint64_t>(*count);
    if (core_col) row.core = NormalizeCore(rec.Field(*core_col));
    if (pc_col) row.pc = std::string(TrimCsvField(rec.Field(*pc_col)));
    if (source_col && !IsMissingCsvValue(rec.Field(*source_col))) {
      row.location = std::string(TrimCsvField(rec.Field(*source_col)));
    } else if (file_col && line_col && !IsMissingCsvValue(rec.Field(*file_col))) {
      row.location = fmt::format("{}:{}", TrimCsvField(rec.Field(*file_col)), TrimCsvField(rec.Field(*line_col)));
    }
    if (row.location.empty()) row.location = row.pc;
    t.rows.push_back(std::move(row));
  }
  if (t.rows.empty()) return BadInputError("{}: no data rows after the header; nothing to summarise", origin);
  uint64_t total = 0;
  for (const StallRow& r : t.rows) total += r.count;
  if (total == 0) return BadInputError("{}: every count is 0; no samples to summarise", origin);
  return Status::Ok();
}

void Add(std::map<std::string, uint64_t>& m, const std::string& reason, uint64_t n) { m[reason] += n; }

StallGroup MakeGroup(std::string key, const std::map<std::string, uint64_t>& counts) {
  StallGroup g;
  g.key = std::move(key);
  for (const auto& [reason, n] : counts) {
    g.all_samples += n;
    if (reason == kActiveReason) g.active_samples += n;
  }
  g.not_issued_samples = g.all_samples - g.active_samples;
  auto share = [&](const std::string& reason, uint64_t n) {
    ReasonShare s{reason, n, std::nullopt, std::nullopt};
    if (g.all_samples > 0) s.share_of_all = static_cast<double>(n) / static_cast<double>(g.all_samples);
    if (reason != kActiveReason && g.not_issued_samples > 0) {
      s.share_of_not_issued = static_cast<double>(n) / static_cast<double>(g.not_issued_samples);
    }
    return s;
  };
  for (std::string_view known : KnownStallReasons()) {
    auto it = counts.find(std::string(known));
    g.reasons.push_back(share(std::string(known), it == counts.end() ? 0 : it->second));
  }
  for (const auto& [reason, n] : counts) {
    if (CanonicalStallReason(reason) != reason) g.reasons.push_back(share(reason, n));
  }
  return g;
}

}  // namespace

const std::vector<std::string_view>& KnownStallReasons() {
  static const std::vector<std::string_view> kReasons = {
      "Stall_IBuf_Empty",        "Stall_Scoreboard_Not_Ready",   "Stall_Warp_Level_Sync",
      "Stall_Register_bank_conflict", "Stall_Resource_conflict", "Stall_Divergence_Stack_Spill",
      "Stall_Others",            "active"};
  return kReasons;
}

std::string CanonicalStallReason(std::string_view text) {
  std::string t = Lower(TrimCsvField(text));
  if (t == "active" || t == "stall_active" || t == "issued") return std::string(kActiveReason);
  if (!t.starts_with("stall_")) t = "stall_" + t;
  for (std::string_view known : KnownStallReasons()) {
    if (Lower(known) == t) return std::string(known);
  }
  return "";
}

const ReasonShare* StallGroup::TopStall() const {
  const ReasonShare* best = nullptr;
  for (const ReasonShare& r : reasons) {
    if (r.reason != kActiveReason && r.samples > 0 && (!best || r.samples > best->samples)) best = &r;
  }
  return best;
}

Result<StallTable> ReadStallCsv(const std::filesystem::path& path) {
  StallTable t;
  t.input = path.string();
  OPTRACE_ASSIGN_OR_RETURN(CsvReader reader, CsvReader::Open(path));
  OPTRACE_RETURN_IF_ERROR(ReadRows(reader, t));
  return t;
}

Result<StallTable> ReadStallCsvText(std::string text, const std::string& origin) {
  StallTable t;
  t.input = origin;
  CsvReader reader = CsvReader::FromString(std::move(text), origin);
  OPTRACE_RETURN_IF_ERROR(ReadRows(reader, t));
  return t;
}

StallReport AnalyzeStalls(const StallTable& t) {
  StallReport r;
  r.warnings = t.warnings;
  std::map<std::string, uint64_t> all;
  std::map<std::string, std::map<std::string, uint64_t>> by_core, by_location;
  for (const StallRow& row : t.rows) {
    Add(all, row.reason, row.count);
    if (t.has_core) Add(by_core[row.core], row.reason, row.count);
    if (t.has_location && !row.location.empty()) Add(by_location[row.location], row.reason, row.count);
  }
  r.overall = MakeGroup("", all);
  if (r.overall.not_issued_samples == 0) {
    r.warnings.push_back("every sample is active: the not-issued denominator is 0, so no stall shares over it");
  }
  for (const auto& [core, counts] : by_core) r.per_core.push_back(MakeGroup(core, counts));
  // "aiv 2" before "aiv 10": kind, then the index as a number.
  auto split = [](const std::string& k) {
    size_t sp = k.rfind(' ');
    std::string num = sp == std::string::npos ? "" : k.substr(sp + 1);
    bool digits = !num.empty() && num.size() < 10 &&
                  std::all_of(num.begin(), num.end(), [](char c) { return c >= '0' && c <= '9'; });
    return digits ? std::pair(k.substr(0, sp), static_cast<int64_t>(std::stoll(num))) : std::pair(k, int64_t{-1});
  };
  std::stable_sort(r.per_core.begin(), r.per_core.end(),
                   [&](const StallGroup& a, const StallGroup& b) { return split(a.key) < split(b.key); });
  for (const auto& [loc, counts] : by_location) r.per_location.push_back(MakeGroup(loc, counts));
  std::stable_sort(r.per_location.begin(), r.per_location.end(),
                   [](const StallGroup& a, const StallGroup& b) { return a.all_samples > b.all_samples; });
  return r;
}

}  // namespace optrace::evidence
