#include "analyze/report/analyze_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string_view>
#include <vector>

namespace optrace::analyze::report {
namespace {

using Json = nlohmann::ordered_json;

std::string Str(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double Num(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

// Cut at `width` bytes without splitting a UTF-8 character.
std::string Cut(std::string_view s, size_t width) {
  if (s.size() <= width) return std::string(s);
  size_t end = width - 3;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return std::string(s.substr(0, end)) + "...";
}

int SeverityRank(const std::string& s) {
  if (s == "high") return 0;
  if (s == "medium") return 1;
  if (s == "low") return 2;
  return 3;
}

std::string CaptureLine(const Json& run, const Json& summary) {
  const Json& id = summary.contains("identity") ? summary["identity"] : Json::object();
  std::set<std::string> kinds;
  if (id.contains("ranks"))
    for (const Json& r : id["ranks"]) kinds.insert(Str(r, "input_kind"));
  std::vector<std::string> what;
  for (const std::string& k : kinds)
    if (!k.empty()) what.push_back(k);
  if (!Str(id, "profiler_level").empty()) what.push_back(Str(id, "profiler_level"));
  if (!Str(id, "device_name").empty()) what.push_back(Str(id, "device_name"));
  if (!Str(id, "cann_version").empty()) what.push_back("CANN " + Str(id, "cann_version"));
  std::string status = Str(run, "status");
  if (status != "ok") status += " (" + Str(run, "phase") + ")";
  return fmt::format("analyze: {}: {} rank(s){}, {} step(s), {} layer(s), {} event(s)\n", status,
                     run.value("rank_count", 0), what.empty() ? "" : " (" + fmt::format("{}", fmt::join(what, ", ")) + ")",
                     run.value("step_count", 0), run.value("layer_count", 0), run.value("event_count", 0));
}

std::string StepLines(const Json& kpis) {
  std::string out;
  const Json& wall = kpis.contains("step_wall_ms") ? kpis["step_wall_ms"] : Json::object();
  const Json& prof = kpis.contains("profiler_step_ms") ? kpis["profiler_step_ms"] : Json::object();
  if (Num(prof, "count") > 0) {
    const Json& host = kpis.contains("host_prepare_ms") ? kpis["host_prepare_ms"] : Json::object();
    out += fmt::format("step (the profiler's): p50 {:.2f} ms, p90 {:.2f} ms, max {:.2f} ms; host before the first "
                       "device task p50 {:.2f} ms\n",
                       Num(prof, "p50"), Num(prof, "p90"), Num(prof, "max"), Num(host, "p50"));
  } else if (Num(wall, "count") > 0) {
    out += fmt::format("step (first to last device task): p50 {:.2f} ms, p90 {:.2f} ms, max {:.2f} ms\n",
                       Num(wall, "p50"), Num(wall, "p90"), Num(wall, "max"));
  }
  if (kpis.contains("wall_ms_sum") && Num(kpis, "wall_ms_sum") > 0)
    out += fmt::format("device: communication {:.1f}% of the step wall, idle inside steps {:.1f}%\n",
                       100 * Num(kpis, "comm_share"), 100 * Num(kpis, "bubble_ratio"));
  return out;
}

std::string FindingLines(const Json& run, const Json& summary) {
  const Json& list = summary.contains("findings") ? summary["findings"] : run.value("findings", Json::array());
  std::vector<const Json*> order;
  for (const Json& f : list) order.push_back(&f);
  std::stable_sort(order.begin(), order.end(), [](const Json* a, const Json* b) {
    return SeverityRank(Str(*a, "severity")) < SeverityRank(Str(*b, "severity"));
  });
  const Json& counts = run.value("diagnosis_counts", Json::object());
  std::string out = fmt::format("findings: {} high, {} medium, {} low, {} info\n", counts.value("high", 0),
                                counts.value("medium", 0), counts.value("low", 0), counts.value("info", 0));
  int shown = 0;
  for (const Json* f : order) {
    if (shown == kSummaryFindings) break;
    std::string confidence = Str(*f, "confidence");
    std::string note = confidence.empty() || confidence == "high" ? "" : " [confidence " + confidence + "]";
    out += fmt::format("  {:<6} {} {}: {}{}\n", Str(*f, "severity"), Str(*f, "id"), Str(*f, "type"),
                       Cut(Str(*f, "summary"), kSummaryFindingWidth), note);
    ++shown;
  }
  if (order.size() > static_cast<size_t>(shown))
    out += fmt::format("  and {} more in report.md / analysis_summary.json\n", order.size() - shown);
  return out;
}

std::string IssueLine(const Json& summary) {
  if (!summary.contains("data_issues") || summary["data_issues"].empty()) return "";
  std::vector<std::string> names;
  for (const Json& d : summary["data_issues"]) names.push_back(Str(d, "name") + " (" + Str(d, "severity") + ")");
  return fmt::format("data issues: {}\n", Cut(fmt::format("{}", fmt::join(names, ", ")), kSummaryFindingWidth));
}

std::string KernelLine(const Json& run) {
  if (!run.contains("kernel_focus")) return "";
  const Json& k = run["kernel_focus"];
  int calls = 0;
  // A named copy: items() of the temporary value() returns would outlive it in the loop.
  const Json per_rank = k.value("calls_per_rank", Json::object());
  for (const auto& [rank, n] : per_rank.items()) calls += n.is_number_integer() ? n.get<int>() : 0;
  return fmt::format("kernel {}: {} call(s) on {} rank(s), {} iteration(s): kernel_calls.csv, kernel_latency.csv\n",
                     Str(k, "query"), calls, per_rank.size(), k.value("iterations", 0));
}

}  // namespace

std::string AnalyzeRunText(const Json& run) {
  const Json& summary = run.contains("analysis_summary") && run["analysis_summary"].is_object()
                            ? run["analysis_summary"]
                            : Json::object();
  std::string out = CaptureLine(run, summary);
  if (Str(run, "status") != "ok" && !Str(run, "error").empty())
    out += "error: " + Cut(Str(run, "error"), 2 * kSummaryFindingWidth) + "\n";
  if (summary.contains("kpis")) out += StepLines(summary["kpis"]);
  out += FindingLines(run, summary);
  out += IssueLine(summary);
  out += KernelLine(run);
  if (!Str(run, "report_html").empty()) {
    size_t files = run.value("artifacts", Json::object()).size();
    out += fmt::format("report: {} (and report.md, analysis_summary.json: {} files in {})\n", Str(run, "report_html"),
                       files, Str(run, "out_dir"));
  }
  out += "for scripts: --format json prints this run as one JSON object\n";
  return out;
}

}  // namespace optrace::analyze::report
