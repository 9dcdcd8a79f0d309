// report.md section 9, "Cross-Rank And Anomaly Findings": alignment and slow-rank votes, the findings
// that name a rank or step, then the views behind them: pipeline stages, expert-parallel load,
// device memory, communication internals, host-side bubble attribution and host launch.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analyze/report/markdown_report.h"
#include "analyze/report/markdown_table.h"
#include "analyze/report/table.h"

namespace optrace::analyze::report {
namespace {

using internal::MdTable;
using internal::Ms;
using internal::NsMs;
using internal::Num;
using internal::Pct;
using internal::Row;

void CommunicationInternals(const AnalysisResult& r, double link_min_mb, std::ostream& out);
void PipelineStageTable(const AnalysisResult& r, std::ostream& out);
void DeviceMemory(const AnalysisResult& r, std::ostream& out);
void ExpertLoadTable(const AnalysisResult& r, std::ostream& out);
void HostAttribution(const AnalysisResult& r, std::ostream& out);
void HostLaunch(const AnalysisResult& r, std::ostream& out);

}  // namespace

namespace {

// Per pipeline stage: compute, communication and idle per step, and how often it bounds the step.
void PipelineStageTable(const AnalysisResult& r, std::ostream& out) {
  out << "### Pipeline stages\n\n";
  const std::vector<PipelineStage>& stages = r.cross_rank.pipeline_stages;
  if (stages.empty()) {
    out << "No pipeline-parallel groups in this capture (profiler_metadata.json `parallel_group_info` names none, or "
           "one stage only).\n\n";
    return;
  }
  std::vector<Row> rows;
  for (const PipelineStage& p : stages)
    rows.push_back({std::to_string(p.stage), FormatRankList(p.ranks), std::to_string(p.steps), Num(p.compute_ms),
                    Num(p.comm_ms), Num(p.bubble_ms), Num(p.warmup_ms), Num(p.cooldown_ms), Num(p.wall_ms),
                    std::to_string(p.bounding_steps)});
  out << "Mean per step over the stage's ranks (a stage's rank is its index in its pp group; the stage with the most "
         "compute bounds the step; warm-up: the step's first event to its first compute kernel, cool-down: its last compute kernel to the step's end, the 1F1B ramps that grow with the stage's distance from the ends):\n\n";
  MdTable(out, {"stage", "ranks", "steps", "compute ms", "communication ms", "idle ms", "warm-up ms", "cool-down ms",
                "wall ms", "bounds steps"},
          rows);
}

// Per EP group and rank: grouped-matmul load per step and how often the rank was the busiest.
void ExpertLoadTable(const AnalysisResult& r, std::ostream& out) {
  out << "### Expert-parallel load\n\n";
  const std::vector<ExpertGroupLoad>& groups = r.cross_rank.expert_load;
  if (groups.empty()) {
    out << "No grouped-matmul (expert) operators on two or more ranks in this capture.\n\n";
    return;
  }
  for (const ExpertGroupLoad& g : groups) {
    out << fmt::format("Group {} ({} steps; load in {}): per-step peak-to-mean {:.2f} on average, {:.2f} at worst "
                       "(step {}), busiest / least loaded {:.2f}:\n\n",
                       g.group, g.steps, g.by_tokens ? "routed tokens, the first dimension of GroupedMatmul's input"
                                                     : "grouped-matmul time (no input shapes in the export)",
                       g.mean_peak_to_mean, g.max_peak_to_mean, g.worst_step_id, g.max_over_min);
    // The busiest ranks first; a 10,000-rank group lists its top 16.
    std::vector<const ExpertRankLoad*> top;
    for (const ExpertRankLoad& l : g.ranks) top.push_back(&l);
    std::stable_sort(top.begin(), top.end(), [&](auto* a, auto* b) {
      return g.by_tokens ? a->tokens_per_step > b->tokens_per_step : a->ms_per_step > b->ms_per_step;
    });
    if (top.size() > 16) {
      out << fmt::format("The 16 busiest of its {} ranks:\n\n", top.size());
      top.resize(16);
    }
    std::vector<Row> rows;
    for (const ExpertRankLoad* l : top)
      rows.push_back({std::to_string(l->rank), std::to_string(l->calls), g.by_tokens ? Num(l->tokens_per_step) : "-",
                      Num(l->ms_per_step), std::to_string(l->hot_steps)});
    MdTable(out, {"rank", "calls", "tokens per step", "ms per step", "busiest in steps"}, rows);
  }
}

// Peak reserved / allocated per rank and allocator component, and what was allocated at the peak.
void DeviceMemory(const AnalysisResult& r, std::ostream& out) {
  out << "### Device memory\n\n";
  const std::vector<RankMemory>& mem = r.summaries.memory;
  if (mem.empty()) {
    out << "No memory records in this capture (memory_record.csv, or the db layout's MEMORY_RECORD table: torch_npu "
           "writes them with profile_memory=True).\n\n";
    return;
  }
  std::vector<Row> rows;
  for (const RankMemory& m : mem)
    for (const ComponentMemory& c : m.components)
      rows.push_back({std::to_string(m.rank), c.component, Num(c.peak_reserved_mb),
                      IsMissing(c.peak_allocated_mb) ? "-" : Num(c.peak_allocated_mb),
                      c.peak_step_id < 0 ? "-" : std::to_string(c.peak_step_id),
                      fmt::format("`{}` row {}", std::filesystem::path(m.memory_record).filename().string(), c.peak_row)});
  out << "Peak device memory per rank and component (memory_record.csv / MEMORY_RECORD):\n\n";
  MdTable(out, {"rank", "component", "peak reserved MB", "peak allocated MB", "step at the peak", "evidence"}, rows);
  rows.clear();
  for (const RankMemory& m : mem)
    for (const LiveAllocation& a : m.live_at_peak)
      rows.push_back({std::to_string(m.rank), m.live_component, a.name, Num(a.size_mb),
                      fmt::format("`{}` row {}", std::filesystem::path(m.operator_memory).filename().string(), a.row)});
  if (!rows.empty()) {
    out << "The largest allocations live at each rank's allocator peak (operator_memory.csv / OP_MEMORY):\n\n";
    MdTable(out, {"rank", "at the peak of", "operator", "size MB", "evidence"}, rows);
  }
}


// Section 9's communication part: what communication.json / communication_matrix.json say.
void CommunicationInternals(const AnalysisResult& r, double link_min_mb, std::ostream& out) {
  const Summaries& S = r.summaries;
  out << "### Communication internals\n\n";
  if (S.comm_ranks.empty() && S.comm_links.empty() && S.groups.empty()) {
    out << "No communication.json or communication_matrix.json in this capture (torch_npu writes them for "
           "multi-rank Level1+ runs): the transit / wait split and link bandwidths are not available.\n\n";
    return;
  }
  auto val = [](double v, bool ratio = false) {
    return IsMissing(v) ? std::string("not provided") : ratio ? Pct(v) : Ms(v);
  };
  if (!S.comm_ranks.empty()) {
    out << "Collective ops per rank (wait ratio = wait / (wait + transit), synchronization ratio = sync / (sync + "
           "transit); a rank above 20% waits for a late one):\n\n";
    std::vector<Row> rows;
    for (const CommRankSummary& c : S.comm_ranks)
      rows.push_back({std::to_string(c.rank), std::to_string(c.ops), val(c.elapse_ms), val(c.transit_ms),
                      val(c.wait_ms), val(c.sync_ms), val(c.idle_ms), val(c.wait_ratio, true), val(c.sync_ratio, true)});
    MdTable(out, {"rank", "ops", "elapse ms", "transit ms", "wait ms", "sync ms", "idle ms", "wait ratio", "sync ratio"},
            rows);
  }
  if (!S.comm_transports.empty()) {
    std::vector<Row> rows;
    for (const CommTransportSummary& c : S.comm_transports)
      rows.push_back({std::to_string(c.rank), c.transport, Num(c.size_mb), Ms(c.time_ms),
                      IsMissing(c.bandwidth_gbps) ? "not provided" : Num(c.bandwidth_gbps),
                      IsMissing(c.small_packet_time_share) ? "not provided" : Pct(c.small_packet_time_share)});
    out << "Transports per rank (bandwidth = size / time; SDMA sums the intra-node HCCS / PCIE / SIO traffic):\n\n";
    MdTable(out, {"rank", "transport", "size MB", "time ms", "GB/s", "small-packet time"}, rows);
  }
  if (!S.groups.empty() || !r.cross_rank.groups.empty()) {
    std::map<std::string, const GroupSkew*> skew;
    for (const GroupSkew& g : r.cross_rank.groups) skew[g.group] = &g;
    std::vector<Row> rows;
    for (const ParallelGroup& g : S.groups) {
      std::vector<int> ranks(g.global_ranks.begin(), g.global_ranks.end());
      const GroupSkew* k = skew.count(g.hash) ? skew[g.hash] : nullptr;
      rows.push_back({g.pg_name.empty() ? g.hash : g.pg_name + " (" + g.hash + ")", g.kind, FormatRankList(ranks),
                      k ? std::to_string(k->collectives) : "-", k ? Pct(k->max_skew_ratio) : "-",
                      k && k->last_rank >= 0 ? fmt::format("{} ({}x)", k->last_rank, k->last_rank_count) : "-"});
    }
    for (const GroupSkew& k : r.cross_rank.groups) {
      bool listed = false;
      for (const ParallelGroup& g : S.groups) listed |= g.hash == k.group;
      if (!listed)
        rows.push_back({k.group, "not provided", "not provided", std::to_string(k.collectives), Pct(k.max_skew_ratio),
                        k.last_rank >= 0 ? fmt::format("{} ({}x)", k.last_rank, k.last_rank_count) : "-"});
    }
    out << "Communication groups (names and ranks from profiler_metadata.json `parallel_group_info`; collectives "
           "matched across ranks per group, the rank most often last):\n\n";
    MdTable(out, {"group", "kind", "global ranks", "collectives", "max skew", "last rank"}, rows);
  }
  if (!S.comm_links.empty()) {
    std::vector<const CommLinkSummary*> links;
    // The slow_link rule's byte floor: a 24-byte control message has a "bandwidth" of latency only.
    size_t small = 0;
    for (const CommLinkSummary& l : S.comm_links) {
      if (l.transport == "LOCAL" || IsMissing(l.bandwidth_gbps)) continue;
      if (l.size_mb < link_min_mb) {
        ++small;
        continue;
      }
      links.push_back(&l);
    }
    std::sort(links.begin(), links.end(), [](auto* a, auto* b) { return a->bandwidth_gbps < b->bandwidth_gbps; });
    if (links.size() > 10) links.resize(10);
    std::vector<Row> rows;
    for (const CommLinkSummary* l : links)
      rows.push_back({std::to_string(l->reported_by), l->group,
                      l->src_global >= 0 && l->dst_global >= 0
                          ? fmt::format("{}->{} (global {}->{})", l->src, l->dst, l->src_global, l->dst_global)
                          : fmt::format("{}->{}", l->src, l->dst),
                      l->transport,
                      Num(l->size_mb), Ms(l->time_ms), Num(l->bandwidth_gbps)});
    out << fmt::format("Slowest links between devices that moved at least {} MB (communication_matrix.json; src / "
                       "dst are ranks local to the group; {} smaller link(s) left out, where latency, not bandwidth, "
                       "sets the rate; all links: `communication_link_summary.csv`):\n\n",
                       Num(link_min_mb), small);
    if (rows.empty()) {
      out << "No link moved that much.\n\n";
    } else {
      MdTable(out, {"reported by", "group", "link", "transport", "size MB", "time ms", "GB/s"}, rows);
    }
  }
}

// Section 9's host part: the candidate host-side cause of each device bubble.
void HostAttribution(const AnalysisResult& r, std::ostream& out) {
  const CrossRank& c = r.cross_rank;
  out << "### Host-side bubble attribution\n\n";
  if (c.bubbles.empty()) {
    out << (c.bubbles_without_trace
                ? fmt::format("{} bubble(s), on ranks without trace_view.json: not attributed.\n\n", c.bubbles_without_trace)
                : std::string("No device bubble was matched with host events (no bubble at or above the threshold, or "
                              "no trace_view.json).\n\n"));
    return;
  }
  std::map<std::string, int> count;
  for (const BubbleWindow& b : c.bubbles) ++count[b.label];
  std::vector<Row> rows;
  for (const auto& [label, n] : count) rows.push_back({label, std::to_string(n)});
  out << "Each bubble gets the first rule that holds (candidates, not proof; every window with its host events: "
         "`evidence/bubble_windows.jsonl`):\n\n";
  MdTable(out, {"candidate cause", "bubbles"}, rows);
  std::vector<const BubbleWindow*> longest;
  for (const BubbleWindow& b : c.bubbles) longest.push_back(&b);
  std::stable_sort(longest.begin(), longest.end(),
                   [](auto* a, auto* b) { return a->end_ns - a->start_ns > b->end_ns - b->start_ns; });
  if (longest.size() > 5) longest.resize(5);
  rows.clear();
  for (const BubbleWindow* b : longest)
    rows.push_back({std::to_string(b->rank), std::to_string(b->step_id), Ms(double(b->end_ns - b->start_ns) / 1e6),
                    b->label, b->rule});
  MdTable(out, {"rank", "step", "gap ms", "candidate cause", "rule"}, rows);
  if (c.bubbles_without_trace)
    out << fmt::format("{} more bubble(s) are on ranks without trace_view.json: not attributed.\n\n", c.bubbles_without_trace);
}

// Section 9's launch part: how the host fed the device per rank (host_launch.h).
void HostLaunch(const AnalysisResult& r, std::ostream& out) {
  const CrossRank& c = r.cross_rank;
  out << "### Host launch\n\n";
  if (c.launches.empty()) {
    out << "No launch flows in this capture (trace_view.json's HostToDevice / async_task_queue flows, or the db "
           "layout's CANN_API linked to TASK; torch_npu writes them at every profiler level).\n\n";
    return;
  }
  // Per rank over its complete steps (all steps when none is complete): medians of the per-step
  // numbers, the worst step by launch-bound idle share.
  std::map<int, std::vector<const StepLaunch*>> by_rank;
  for (const StepLaunch& L : c.launches) by_rank[L.rank].push_back(&L);
  std::vector<Row> rows;
  for (auto& [rank, all] : by_rank) {
    std::vector<const StepLaunch*> steps;
    for (const StepLaunch* L : all)
      if (L->complete) steps.push_back(L);
    if (steps.empty()) steps = all;
    auto median = [&](auto get) {
      std::vector<double> v;
      for (const StepLaunch* L : steps) v.push_back(get(*L));
      std::sort(v.begin(), v.end());
      return 0.5 * (v[(v.size() - 1) / 2] + v[v.size() / 2]);
    };
    const StepLaunch* worst = steps.front();
    auto share = [](const StepLaunch& L) { return L.step_wall_ns > 0 ? double(L.launch_bound_idle_ns) / double(L.step_wall_ns) : 0.0; };
    int depth = -1;
    for (const StepLaunch* L : steps) {
      if (share(*L) > share(*worst)) worst = L;
      depth = std::max(depth, L->max_queue_depth);
    }
    rows.push_back({std::to_string(rank), std::to_string(steps.size()),
                    Num(median([](const StepLaunch& L) { return double(L.launches); })),
                    Ms(median([](const StepLaunch& L) { return double(L.delay_p50_ns) / 1e6; })),
                    Ms(median([](const StepLaunch& L) { return double(L.delay_p90_ns) / 1e6; })),
                    Ms(median([](const StepLaunch& L) { return double(L.launch_bound_idle_ns) / 1e6; })),
                    fmt::format("{} ({})", worst->step_id, Pct(share(*worst))), depth < 0 ? "-" : std::to_string(depth)});
  }
  out << "Per rank, medians over its complete steps: launches, launch delay (CANN API call to the task's start on the "
         "device; long is a deep queue, not a wait), and launch-bound idle (device idle that ends with a task launched "
         "only after the device had gone idle: the device waited on the host):\n\n";
  MdTable(out, {"rank", "steps", "launches per step", "delay p50 ms", "delay p90 ms", "launch-bound idle ms",
                "worst step (idle share)", "max task-queue depth"},
          rows);
  if (c.launch_ranks_without_flows)
    out << fmt::format("{} rank(s) have no launch flows (no trace_view.json, or none in it).\n\n", c.launch_ranks_without_flows);
}

}  // namespace

void CrossRankSection(const AnalysisResult& r, double link_min_mb, std::ostream& out) {
  out << "## 9. Cross-Rank And Anomaly Findings\n\n";
  const CrossRank& c = r.cross_rank;
  out << fmt::format(
      "Alignment: {} ({} aligned steps, {} collectives tested). Max step wall skew {}; max collective skew {}; "
      "compute imbalance {}.\n\n",
      c.alignment_method.empty() ? "none" : c.alignment_method, c.steps.size(), c.tested_collectives,
      Pct(c.max_step_skew_ratio), Pct(c.max_collective_skew_ratio), Pct(c.compute_imbalance_ratio));
  if (!c.votes.empty()) {
    std::vector<Row> rows;
    for (const SlowRankVote& v : c.votes)
      rows.push_back({std::to_string(v.rank), std::to_string(v.votes), Pct(v.vote_share)});
    out << "Slow-rank votes (a rank gets a vote when its matching collective is the shortest outlier: it arrived last):\n\n";
    MdTable(out, {"rank", "votes", "share of tested collectives"}, rows);
  }
  std::vector<Row> rows;
  for (const Finding& f : r.findings) {
    if (f.rank < 0 && f.step_id < 0) continue;
    std::string rank = f.rank < 0 ? "-" : std::to_string(f.rank);
    if (f.ranks.size() > 1) rank = FormatRankList(f.ranks);
    rows.push_back({f.id, std::string(SeverityName(f.severity)), f.type, rank,
                    f.step_id < 0 ? "-" : std::to_string(f.step_id), f.summary});
  }
  if (rows.empty()) {
    out << "No rank- or step-specific findings.\n\n";
  } else {
    MdTable(out, {"id", "severity", "type", "rank", "step", "summary"}, rows);
  }
  PipelineStageTable(r, out);
  ExpertLoadTable(r, out);
  DeviceMemory(r, out);
  CommunicationInternals(r, link_min_mb, out);
  HostAttribution(r, out);
  HostLaunch(r, out);
}

}  // namespace optrace::analyze::report
