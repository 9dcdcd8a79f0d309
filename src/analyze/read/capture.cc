// Capture identity: group rank directories by shared configuration and collection time.
#include "analyze/read/capture.h"

#include <algorithm>
#include <ctime>
#include <fstream>
#include <iterator>
#include <map>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/csv_reader.h"
#include "core/file_io.h"

namespace optrace::analyze {
namespace fs = std::filesystem;
namespace {

struct Traits {
  std::string config;
  std::string summary;
  int64_t time_ns = -1;
  std::string time_source;
};

// A JSON value as compact text, "" when absent; never throws.
std::string Compact(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* at = &j;
  for (const char* key : path) {
    if (!at->is_object()) return "";
    auto it = at->find(key);
    if (it == at->end()) return "";
    at = &*it;
  }
  if (at->is_string()) return at->get<std::string>();
  if (at->is_array() && std::all_of(at->begin(), at->end(), [](const nlohmann::json& e) { return e.is_string(); })) {
    std::string joined;  // export type ["text", "db"] and "text" read alike
    for (const auto& e : *at) joined += (joined.empty() ? "" : "+") + e.get<std::string>();
    return joined;
  }
  return at->dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

int64_t JsonInt(const nlohmann::json& j, const char* a, const char* b) {
  if (!j.is_object() || !j.contains(a) || !j[a].is_object() || !j[a].contains(b)) return -1;
  const nlohmann::json& v = j[a][b];
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_unsigned()) return static_cast<int64_t>(std::min<uint64_t>(v.get<uint64_t>(), INT64_MAX));
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.empty() || s.size() > 19 || !std::all_of(s.begin(), s.end(), ::isdigit)) return -1;
    return std::stoll(s);
  }
  return -1;
}

// "..._20250109065044123_ascend_pt", "PROF_000001_20260605161708478_FRJK...": the first run of 17
// (or 14) digits read as YYYYMMDDhhmmss[mmm], as Unix ns (the zone does not matter: only
// differences between directories of one machine's clock are used).
int64_t TimeFromName(const std::string& name) {
  for (size_t i = 0; i < name.size();) {
    if (!::isdigit(static_cast<unsigned char>(name[i]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < name.size() && ::isdigit(static_cast<unsigned char>(name[j]))) ++j;
    size_t n = j - i;
    if (n == 17 || n == 14) {
      auto num = [&](size_t at, size_t len) { return std::stoi(name.substr(i + at, len)); };
      std::tm tm{};
      tm.tm_year = num(0, 4) - 1900;
      tm.tm_mon = num(4, 2) - 1;
      tm.tm_mday = num(6, 2);
      tm.tm_hour = num(8, 2);
      tm.tm_min = num(10, 2);
      tm.tm_sec = num(12, 2);
      if (tm.tm_year > 70 && tm.tm_mon >= 0 && tm.tm_mon < 12 && tm.tm_mday >= 1 && tm.tm_mday <= 31 &&
          tm.tm_hour < 24 && tm.tm_min < 60 && tm.tm_sec < 61) {
        int64_t ms = n == 17 ? num(14, 3) : 0;
        return static_cast<int64_t>(timegm(&tm)) * 1000000000 + ms * 1000000;
      }
    }
    i = j;
  }
  return -1;
}

Traits ReadTraits(const RankInput& in) {
  Traits t;
  std::string family = in.kind == InputKind::kMsprof ? "msprof" : "torch_npu";
  t.config = family;
  if (!in.profiler_info.empty()) {
    auto text = ReadFileToString(in.profiler_info);
    if (text.ok()) {
      nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
      if (j.is_object()) {
        const char* kExp = "experimental_config";
        const char* kCommon = "common_config";
        std::string level = Compact(j, {"config", kExp, "_profiler_level"}),
                    metrics = Compact(j, {"config", kExp, "_aic_metrics"}),
                    exported = Compact(j, {"config", kExp, "_export_type"});
        for (const std::string& part : {level, metrics, exported})
          if (!part.empty()) t.summary += (t.summary.empty() ? "" : " ") + part;
        for (std::string part : {level, metrics, exported, Compact(j, {"config", kCommon, "activities"}),
                                 Compact(j, {"config", kCommon, "schedule"}), Compact(j, {"config", kCommon, "record_shapes"})})
          if (!part.empty()) t.config += " " + part;
        int64_t end = JsonInt(j, "end_info", "collectionTimeEnd");
        if (end <= 0) end = JsonInt(j, "start_info", "collectionTimeBegin");
        if (end > 0) {
          t.time_ns = end;
          t.time_source = "profiler_info";
        }
      }
    }
  }
  t.summary = family + (t.summary.empty() ? "" : " " + t.summary);
  if (t.time_ns < 0) {
    int64_t from_name = TimeFromName(in.dir.filename().string());
    if (from_name > 0) {
      t.time_ns = from_name;
      t.time_source = "directory name";
    }
  }
  return t;
}

fs::path CommonDir(const std::vector<size_t>& members, const std::vector<RankInput>& ranks) {
  fs::path common;
  for (size_t m : members) {
    fs::path p = ranks[m].dir;
    if (common.empty()) {
      common = members.size() == 1 ? p : p.parent_path();
      continue;
    }
    fs::path shared;
    auto a = common.begin(), b = p.begin();
    for (; a != common.end() && b != p.end() && *a == *b; ++a, ++b) shared /= *a;
    common = shared;
  }
  return common;
}

std::string FormatUtc(int64_t ns) {
  std::time_t secs = static_cast<std::time_t>(ns / 1000000000);
  std::tm tm{};
  if (!gmtime_r(&secs, &tm)) return "?";
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

// The device-time window of an msprof export, in us: its first task's start and the latest end
// among its last rows. An export is in time order: the first record and the last 64 KiB are read,
// not the file. {-1, -1} when the columns or numbers are not there.
std::pair<double, double> MsprofWindow(const RankInput& in) {
  std::pair<double, double> none{-1, -1}, w = none;
  auto columns = [](const CsvRecord& header, std::optional<size_t>* start, std::optional<size_t>* dur) {
    CsvHeader h(header);
    *start = h.FindAny({"Task Start Time(us)", "Start Time(us)"});
    *dur = h.FindAny({"Task Duration(us)", "Duration(us)"});
    return *start && *dur;
  };
  std::optional<size_t> start, dur;
  {
    auto reader = CsvReader::Open(in.kernel_details, 64 << 10);
    if (!reader.ok()) return none;
    CsvRecord rec;
    auto head = reader->Next(rec);
    if (!head.ok() || !*head || !columns(rec, &start, &dur)) return none;
    auto first = reader->Next(rec);
    if (!first.ok() || !*first) return none;
    auto s = ParseCsvNumber(rec.Field(*start));
    if (!s) return none;
    w.first = *s;
  }
  const fs::path& last = in.kernel_slices.empty() ? in.kernel_details : in.kernel_slices.back();
  std::error_code ec;
  uint64_t size = fs::file_size(last, ec);
  if (ec) return none;
  std::ifstream f(last, std::ios::binary);
  uint64_t from = size > (64u << 10) ? size - (64u << 10) : 0;
  f.seekg(static_cast<std::streamoff>(from));
  std::string tail((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  size_t nl = tail.find('\n');
  if (nl == std::string::npos) return none;
  tail.erase(0, nl + 1);  // a partial record, or the header (a slice has its own)
  CsvReader rows = CsvReader::FromString(std::move(tail), last.string());
  CsvRecord rec;
  while (true) {
    auto more = rows.Next(rec);
    if (!more.ok() || !*more) break;
    auto s = ParseCsvNumber(rec.Field(*start)), d = ParseCsvNumber(rec.Field(*dur));
    if (s && d && *d >= 0) w.second = std::max(w.second, *s + *d);
  }
  if (w.second < w.first) return none;
  return w;
}

// msprof runs of one kernel or script, one after another, share a configuration and a time of day,
// and have no rank id: ranks of one job run at the same time, so exports whose device-time windows
// do not overlap at all are separate runs, each its own capture (issue 52).
std::vector<Capture> SplitSequentialRuns(Capture c, const std::vector<RankInput>& ranks) {
  if (c.members.size() < 2) return {std::move(c)};
  std::vector<std::pair<std::pair<double, double>, size_t>> windows;
  for (size_t m : c.members) {
    const RankInput& in = ranks[m];
    if (in.kind != InputKind::kMsprof || in.rank >= 0) return {std::move(c)};
    auto w = MsprofWindow(in);
    if (w.first < 0) return {std::move(c)};
    windows.push_back({w, m});
  }
  std::sort(windows.begin(), windows.end());
  for (size_t i = 1; i < windows.size(); ++i)
    if (windows[i].first.first <= windows[i - 1].first.second) return {std::move(c)};  // overlap: one job
  std::vector<Capture> runs;
  for (auto& [w, m] : windows) {
    Capture one = c;
    one.members = {m};
    one.summary += fmt::format(", device time {:.3f} s", (w.second - w.first) / 1e6);
    runs.push_back(std::move(one));
  }
  return runs;
}

}  // namespace

std::vector<Capture> GroupCaptures(const std::vector<RankInput>& ranks) {
  std::vector<Traits> traits;
  traits.reserve(ranks.size());
  for (const RankInput& in : ranks) traits.push_back(ReadTraits(in));
  std::vector<size_t> order(ranks.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (traits[a].config != traits[b].config) return traits[a].config < traits[b].config;
    return traits[a].time_ns < traits[b].time_ns;
  });
  std::vector<Capture> caps;
  int64_t last_time = -1;
  for (size_t i : order) {
    const Traits& t = traits[i];
    bool same = !caps.empty() && caps.back().config == t.config &&
                (t.time_ns < 0 || last_time < 0 || t.time_ns - last_time <= kCaptureTimeTolerance);
    if (!same) {
      caps.push_back({t.config, t.summary, -1, "", {}, {}});
      last_time = -1;
    }
    Capture& c = caps.back();
    c.members.push_back(i);
    if (t.time_ns >= 0) {
      last_time = t.time_ns;
      c.end_ns = std::max(c.end_ns, t.time_ns);
      if (c.time_source.empty()) c.time_source = t.time_source;
    }
  }
  // The same rank id twice in one group: two jobs with the same configuration at the same time
  // (e.g. on different nodes). Their directories tell them apart: split by parent directory.
  std::vector<Capture> split;
  for (Capture& c : caps) {
    std::map<int, int> seen;
    bool dup = false;
    for (size_t m : c.members)
      if (ranks[m].rank >= 0 && ++seen[ranks[m].rank] > 1) dup = true;
    std::map<fs::path, std::vector<size_t>> by_parent;
    for (size_t m : c.members) by_parent[ranks[m].dir.parent_path()].push_back(m);
    if (!dup || by_parent.size() < 2) {
      for (Capture& run : SplitSequentialRuns(std::move(c), ranks)) split.push_back(std::move(run));
      continue;
    }
    for (auto& [parent, members] : by_parent) {
      Capture part = c;
      part.members = members;
      split.push_back(std::move(part));
    }
  }
  caps = std::move(split);
  for (Capture& c : caps) {
    std::sort(c.members.begin(), c.members.end());
    c.dir = CommonDir(c.members, ranks);
  }
  std::sort(caps.begin(), caps.end(), [](const Capture& a, const Capture& b) {
    return a.dir != b.dir ? a.dir < b.dir : a.members < b.members;
  });
  return caps;
}

std::string DescribeCapture(const Capture& c, const std::vector<RankInput>& ranks, const fs::path& root) {
  std::error_code ec;
  fs::path rel = fs::relative(c.dir, root, ec);
  std::string where = ec || rel.empty() || rel.native().rfind("..", 0) == 0 ? c.dir.string() : rel.string();
  std::vector<int> ids;
  int with_kernels = 0;
  for (size_t m : c.members) {
    if (ranks[m].rank >= 0) ids.push_back(ranks[m].rank);
    with_kernels += ranks[m].has_kernel_data();
  }
  std::sort(ids.begin(), ids.end());
  std::string id_list;
  for (size_t i = 0; i < ids.size() && i < 16; ++i) id_list += (i ? "," : "") + std::to_string(ids[i]);
  if (ids.size() > 16) id_list += ",...";
  std::string s = fmt::format("{}: {} rank dir(s)", where, c.members.size());
  if (!id_list.empty()) s += " (rank " + id_list + ")";
  if (with_kernels < static_cast<int>(c.members.size())) s += fmt::format(", {} with kernel data", with_kernels);
  s += ", " + c.summary;
  if (c.end_ns >= 0)
    s += fmt::format(", {} {} UTC", c.time_source == "profiler_info" ? "ended" : "started", FormatUtc(c.end_ns));
  return s;
}

}  // namespace optrace::analyze
