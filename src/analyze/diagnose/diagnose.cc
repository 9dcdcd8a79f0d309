// Diagnose: the finding families in order (finding_builder.h), then the top operators, the roll-up
// of per-rank patterns and the numbering.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analyze/diagnose/finding_builder.h"

namespace optrace::analyze {
namespace findings {
namespace {

void TopOperators(AnalysisResult& res, const Rules& rules, Builder& b) {
  double total = 0;
  for (const OperatorClassSummary& c : res.summaries.operator_classes) total += c.duration_sum_us;
  int n = 0;
  for (const OperatorClassSummary& c : res.summaries.operator_classes) {
    // Compute operators: communication has its own findings and summaries.
    if (c.op_type == OpType::kCommunication) continue;
    if (n++ >= rules.thresholds.top_operators) break;
    Finding f;
    f.severity = Severity::kInfo;
    f.type = "top_operator";
    double share = total > 0 ? c.duration_sum_us / total : 0;
    f.summary =
        fmt::format("{} ({}) takes {:.1f} us over {} calls on {} rank(s), {:.1f}% of device time; bound: {}{}.",
                    res.Str(c.name), OpTypeName(c.op_type), c.duration_sum_us, c.call_count, c.rank_count, 100 * share,
                    c.bound.bound_family, c.bound.bound_stage.empty() ? "" : " (" + c.bound.bound_stage + ")");
    f.numbers = {{"total_us", c.duration_sum_us},
                 {"calls", double(c.call_count)},
                 {"share", share},
                 {"rank_skew_ratio", c.rank_duration_skew_ratio}};
    for (const OperatorSummary& o : res.summaries.operators) {
      if (o.name != c.name || o.type != c.type || o.op_type != c.op_type) continue;
      const RankTable& t = *res.FindRank(o.rank);
      Evidence ev;
      ev.rank = o.rank;
      ev.file = t.files[o.file].path + (t.files[o.file].table.empty() ? "" : "#" + t.files[o.file].table);
      ev.row_first = o.first_row;
      ev.row_last = o.last_row;
      ev.note = fmt::format("rank {}: {} calls, {:.1f} us", o.rank, o.stats.count, o.stats.total_us);
      f.evidence.push_back(ev);
    }
    b.Add(std::move(f));
  }
}

// One finding per pattern: a per-rank pattern seen on several ranks becomes one finding that
// lists the ranks, leads with the worst rank's numbers and interleaves the ranks' evidence (the
// worst first), so an 8-rank root does not repeat the same finding 8 times.
void RollUp(std::vector<Finding>& in, const AnalysisResult& res, const Rules& rules) {
  static const std::map<std::string, std::string> kWorstBy = {{"communication_dominated_step", "max_comm_share"},
                                                              {"recurring_bubble_pattern", "bubble_recurrence_ratio"},
                                                              {"prelaunch_gap_heavy", "max_gap_ms"},
                                                              {"tail_gap_heavy", "max_gap_ms"},
                                                              {"aicpu_on_critical_path", "exposed_us"},
                                                              {"exposed_communication", "max_exposed_share"},
                                                              {"outlier_step", "max_ratio"},
                                                              {"device_waits_on_launch", "max_idle_share"},
                                                              {"host_op_compile", "share_of_step"},
                                                              {"host_sync", "host_wait_ms"}};
  auto number = [](const Finding& f, const std::string& name) {
    for (const auto& [k, v] : f.numbers)
      if (k == name) return v;
    return 0.0;
  };
  std::vector<Finding> out;
  std::map<std::string, std::vector<Finding>> groups;
  for (Finding& f : in) {
    if (kWorstBy.count(f.type) && f.rank >= 0)
      groups[f.type].push_back(std::move(f));
    else
      out.push_back(std::move(f));
  }
  for (auto& [type, list] : groups) {
    const std::string& key = kWorstBy.at(type);
    std::stable_sort(list.begin(), list.end(),
                     [&](const Finding& a, const Finding& b) { return number(a, key) > number(b, key); });
    Finding merged = list.front();
    for (const Finding& f : list) merged.ranks.push_back(f.rank);
    std::sort(merged.ranks.begin(), merged.ranks.end());
    if (list.size() > 1) {
      merged.summary = fmt::format("Seen on {} of {} ranks ({}). Worst, rank {}: {}", list.size(), res.ranks.size(),
                                   FormatRankList(merged.ranks), merged.rank, list.front().summary);
      merged.evidence.clear();
      for (size_t k = 0; merged.evidence.size() < size_t(rules.thresholds.max_evidence_items); ++k) {
        bool any = false;
        for (const Finding& f : list) {
          if (k >= f.evidence.size()) continue;
          any = true;
          if (merged.evidence.size() < size_t(rules.thresholds.max_evidence_items))
            merged.evidence.push_back(f.evidence[k]);
        }
        if (!any) break;
      }
    }
    merged.numbers.push_back({"ranks", double(list.size())});
    out.push_back(std::move(merged));
  }
  in = std::move(out);
}

}  // namespace
}  // namespace findings

void Diagnose(AnalysisResult& res, const Rules& rules) {
  using namespace findings;  // the families (finding_builder.h) and their Builder
  Builder b(res, rules);
  SlowRank(res, rules, b);
  int slow_rank = -1;
  for (const Finding& f : b.out())
    if (f.type == "slow_rank") slow_rank = f.rank;
  CrossRankFindings(res, rules, b);
  CollectiveSkew(res, rules, b, slow_rank);
  PerRankStepFindings(res, rules, b);
  Aicpu(res, rules, b);
  SlowOperators(res, rules, b);
  OutlierSteps(res, rules, b);
  DeviceWaitsOnLaunch(res, rules, b);
  HostApiFindings(res, rules, b);
  SlowPipelineStage(res, rules, b);
  ExpertLoadImbalance(res, rules, b);
  LayerOutliers(res, rules, b);
  TopOperators(res, rules, b);
  for (Finding& c : CommunicationFindings(res, rules, slow_rank)) b.Add(std::move(c));
  std::vector<Finding>& f = b.out();
  RollUp(f, res, rules);
  AddConfidenceAndKnowledge(res, f);
  std::stable_sort(f.begin(), f.end(), [](const Finding& a, const Finding& c) { return a.severity > c.severity; });
  for (size_t i = 0; i < f.size(); ++i) f[i].id = fmt::format("F{:03d}", i + 1);
  res.findings = std::move(f);
}

}  // namespace optrace::analyze
