#include "join/join.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "analyze/read/discover.h"
#include "analyze/rules/rules.h"
#include "collect/collector.h"
#include "core/file_io.h"

namespace optrace::join {
namespace {
namespace fs = std::filesystem;

std::string RankList(const std::set<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out.empty() ? "none" : out;
}

// The kernel's task slices of one rank, in start order: rows whose Name is `kernel`, else rows of
// that Type.
std::vector<const analyze::Event*> KernelSlices(const analyze::RankTable& t, const analyze::StringTable& strings,
                                                const std::string& kernel) {
  std::vector<const analyze::Event*> by_name, by_type;
  for (const analyze::Event& e : t.events) {
    if (strings.Get(e.name) == kernel) by_name.push_back(&e);
    else if (strings.Get(e.type) == kernel) by_type.push_back(&e);
  }
  std::vector<const analyze::Event*>& out = by_name.empty() ? by_type : by_name;
  std::stable_sort(out.begin(), out.end(), [](const analyze::Event* a, const analyze::Event* b) {
    return a->start_ns < b->start_ns;
  });
  return out;
}

// What the export calls tasks that look like `kernel`, for the message when none is named so.
std::string NearNames(const analyze::RankTable& t, const analyze::StringTable& strings, const std::string& kernel) {
  std::map<std::string, int> count;
  std::string lower_kernel = kernel;
  std::transform(lower_kernel.begin(), lower_kernel.end(), lower_kernel.begin(), ::tolower);
  for (const analyze::Event& e : t.events) {
    std::string n = strings.Get(e.name);
    std::string lower = n;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    if (lower.find(lower_kernel) != std::string::npos || (!lower.empty() && lower_kernel.find(lower) != std::string::npos))
      ++count[n];
  }
  if (count.empty()) {
    for (const analyze::Event& e : t.events) ++count[strings.Get(e.name)];
  }
  std::vector<std::pair<int, std::string>> top;
  for (const auto& [n, c] : count) top.push_back({c, n});
  std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::string out;
  for (size_t i = 0; i < top.size() && i < 5; ++i) out += fmt::format("{}'{}' ({}x)", i ? ", " : "", top[i].second, top[i].first);
  return out;
}

// trace_view.json's processes that hold device-side rows (tasks, HCCL, overlap, counters), not the host.
bool IsDeviceProcess(std::string_view name) {
  for (std::string_view d : {"Ascend Hardware", "HCCL", "Overlap Analysis", "AI Core Freq", "Stars Soc Info",
                             "Stars Chip Trans", "Acc PMU", "SIO", "QoS", "NPU MEM", "HBM", "LLC", "DDR"})
    if (name == d) return true;
  return false;
}

Status ReadFindings(const fs::path& analysis, JoinResult& r) {
  fs::path summary = analysis / "analysis_summary.json";
  OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(summary));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("findings") || !j["findings"].is_array())
    return BadInputError("{}: no findings array: give the folder `optrace analyze -o DIR` wrote", summary.string());
  for (const nlohmann::json& f : j["findings"]) {
    if (!f.is_object() || !f.contains("evidence") || !f["evidence"].is_array()) continue;
    std::string title = fmt::format("[{}] {}", f.value("severity", "?"), f.value("type", "finding"));
    for (const nlohmann::json& e : f["evidence"]) {
      if (!e.is_object() || !e.contains("window_start_ns") || !e.contains("window_end_ns")) continue;
      if (!e["window_start_ns"].is_number_integer() || !e["window_end_ns"].is_number_integer()) continue;
      JoinedFinding jf;
      jf.rank = e.contains("rank") && e["rank"].is_number_integer() ? e["rank"].get<int>() : -1;
      jf.title = title;
      jf.summary = f.value("summary", "");
      if (e.contains("note") && e["note"].is_string()) jf.summary += " (" + e["note"].get<std::string>() + ")";
      jf.begin_ns = e["window_start_ns"].get<int64_t>();
      jf.end_ns = std::max(jf.begin_ns, e["window_end_ns"].get<int64_t>());
      r.findings.push_back(std::move(jf));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<JoinResult> JoinKernelPhases(const JoinOptions& o) {
  if (o.launches.empty()) return UsageError("give the dump folder of each launch (rank<N>.bin), in launch order");
  if (o.kernel.empty()) return UsageError("--kernel NAME: the kernel's task name (or type) as the export writes it");
  JoinResult r;
  r.kernel = o.kernel;

  // The dumps, one collection per launch.
  std::vector<collect::CollectResult> launches;
  std::map<int, std::vector<int>> launches_of_rank;  // rank -> launch indices that hold it
  for (size_t k = 0; k < o.launches.size(); ++k) {
    collect::CollectOptions co;
    co.inputs = {o.launches[k].string()};
    co.map = o.map;
    OPTRACE_ASSIGN_OR_RETURN(collect::CollectResult cr, collect::Collect(co));
    for (const collect::InputSummary& in : cr.inputs) launches_of_rank[in.rank].push_back(static_cast<int>(k));
    for (collect::Problem p : cr.diagnostics.Present()) {
      const collect::ProblemInfo& info = collect::InfoOf(p);
      if (info.severity == collect::Severity::kInfo) continue;
      r.issues.push_back(fmt::format("launch {} ({}): {} {}: {}", k, o.launches[k].string(), cr.diagnostics.Get(p).count,
                                     info.name, info.description));
    }
    launches.push_back(std::move(cr));
  }

  // The capture.
  std::vector<analyze::DataIssue> data_issues;
  OPTRACE_ASSIGN_OR_RETURN(analyze::Discovery d, analyze::Discover({o.capture}, data_issues, o.run));
  r.capture = d.capture;
  OPTRACE_ASSIGN_OR_RETURN(analyze::Rules rules, analyze::LoadRules(""));
  std::map<int, const analyze::RankInput*> inputs;
  std::set<int> capture_ranks;
  for (const analyze::RankInput& in : d.ranks) {
    inputs[in.rank] = &in;
    capture_ranks.insert(in.rank);
  }

  for (const auto& [rank, ks] : launches_of_rank) {
    auto it = inputs.find(rank);
    if (it == inputs.end() || !it->second->has_kernel_data())
      return BadInputError("rank {} is in the dumps but has no kernel rows in the capture {} (ranks there: {}): the "
                           "dumps and the capture must come from the same run",
                           rank, o.capture.string(), RankList(capture_ranks));
    const analyze::RankInput& in = *it->second;
    if (in.profiler_info.empty())
      return BadInputError("{}: no profiler_info_{}.json: the device clock of rank {} is unknown, so its phases cannot "
                           "be placed on the export's clock",
                           in.dir.string(), rank, rank);
    JoinedRank jr;
    jr.rank = rank;
    OPTRACE_ASSIGN_OR_RETURN(jr.clock, ReadDeviceClock(in.profiler_info));
    OPTRACE_ASSIGN_OR_RETURN(jr.table, analyze::NormalizeRank(in, rules, r.strings, data_issues));
    std::vector<const analyze::Event*> slices = KernelSlices(jr.table, r.strings, o.kernel);
    if (slices.empty())
      return BadInputError("rank {}: no task named (or of type) '{}' in {}; names like it: {}", rank, o.kernel,
                           in.dir.string(), NearNames(jr.table, r.strings, o.kernel));
    if (slices.size() != ks.size())
      return BadInputError("rank {}: {} launch(es) in the dumps, {} task slice(s) of '{}' in the capture: launches are "
                           "matched by order, so every launch the capture holds needs its dump folder (and no "
                           "other); give the folders of exactly those launches",
                           rank, ks.size(), slices.size(), o.kernel);
    const int64_t tolerance = static_cast<int64_t>(std::ceil(2e9 / jr.clock.counter_hz)) + 1;
    r.tolerance_ns = std::max(r.tolerance_ns, tolerance);
    for (size_t i = 0; i < ks.size(); ++i) {
      const collect::Collection& c = launches[static_cast<size_t>(ks[i])].collection;
      const analyze::Event& slice = *slices[i];
      LaunchJoin lj;
      lj.rank = rank;
      lj.launch = ks[i];
      lj.slice_start_ns = jr.table.AbsNs(slice.start_ns);
      lj.slice_dur_ns = slice.dur_ns;
      lj.stream_id = slice.stream_id;
      lj.task_id = slice.task_id;
      const int64_t slice_end = lj.slice_start_ns + lj.slice_dur_ns;
      std::set<std::pair<int, uint32_t>> cores;
      bool first = true;
      for (const collect::Interval& iv : c.intervals) {
        if (iv.rank != rank) continue;
        const collect::SeriesInfo& s = c.series[iv.series];
        if (s.clock_hz > 0 && std::abs(s.clock_hz - jr.clock.counter_hz) > 0.01 * jr.clock.counter_hz) {
          std::string note = fmt::format(
              "rank {}: the slots declare a {:g} MHz clock, the capture's system counter runs at {:g} MHz ({}): ticks "
              "are read at the capture's rate",
              rank, s.clock_hz / 1e6, jr.clock.counter_hz / 1e6, jr.clock.source);
          if (std::find(r.notes.begin(), r.notes.end(), note) == r.notes.end()) r.notes.push_back(note);
        }
        JoinedPhase p;
        p.rank = rank;
        p.launch = ks[i];
        p.kind = iv.kind;
        p.core_index = iv.core_index;
        p.label = c.labels[iv.label].name;
        p.begin_ns = jr.clock.UnixNs(iv.begin_ticks);
        p.end_ns = jr.clock.UnixNs(iv.end_ticks);
        p.depth = iv.depth;
        cores.insert({static_cast<int>(iv.kind), iv.core_index});
        lj.phases_begin_ns = first ? p.begin_ns : std::min(lj.phases_begin_ns, p.begin_ns);
        lj.phases_end_ns = first ? p.end_ns : std::max(lj.phases_end_ns, p.end_ns);
        first = false;
        const int64_t reach = std::max(lj.slice_start_ns - p.begin_ns, p.end_ns - slice_end);
        if (reach > tolerance) {
          ++lj.outside;
          lj.worst_outside_ns = std::max(lj.worst_outside_ns, reach);
        }
        ++lj.intervals;
        r.phases.push_back(std::move(p));
      }
      lj.cores = static_cast<uint32_t>(cores.size());
      if (lj.intervals == 0) {
        r.issues.push_back(fmt::format("rank {} launch {}: no phase in the dumps (nothing recorded, or no map)", rank, lj.launch));
      } else if (lj.outside > 0) {
        r.issues.push_back(fmt::format(
            "rank {} launch {}: {} phase(s) outside the task slice [{} ns + {:.3f} us], by up to {:.3f} us: the clocks "
            "do not line up for this launch (kept where the clock puts them, not clipped)",
            rank, lj.launch, lj.outside, lj.slice_start_ns, lj.slice_dur_ns / 1e3, lj.worst_outside_ns / 1e3));
      }
      r.launches.push_back(lj);
    }
    if (!in.trace_view.empty() && !jr.table.events.empty()) {
      // Events are sorted by start, not end: the window ends at the latest end of any.
      const int64_t lo = jr.table.base_ns;
      int64_t last = lo;
      for (const analyze::Event& e : jr.table.events) last = std::max(last, jr.table.AbsNs(e.end_ns()));
      OPTRACE_RETURN_IF_ERROR(analyze::ReadTraceViewHostEvents(in.trace_view, {{lo - 1'000'000'000, last + 1'000'000'000}}, jr.host));
      // The device side of trace_view.json is the export's task table, already on the stream tracks.
      std::erase_if(jr.host, [](const analyze::TraceHostEvent& h) { return IsDeviceProcess(h.process); });
    }
    r.ranks.push_back(std::move(jr));
  }
  if (!o.analysis.empty()) OPTRACE_RETURN_IF_ERROR(ReadFindings(o.analysis, r));
  return r;
}

}  // namespace optrace::join
