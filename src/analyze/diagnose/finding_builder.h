// Internal to the diagnose room: the Builder every finding family adds its findings through
// (evidence of an event range or a time window, the evidence cap) and the families, one file each:
//   findings_ranks.cc     across ranks: slow rank, step skew, compute imbalance, collective skew,
//                         slow operators
//   findings_steps.cc     per rank and step: communication, bubbles, gaps, AI CPU, outlier steps and
//                         layers, launch-bound idle
//   findings_parallel.cc  parallel layout: expert-parallel load, pipeline stages
//   findings_comm.cc      communication internals: slow links, waits, small packets
// diagnose.cc runs them in order, adds the top operators, rolls per-rank patterns up and numbers them.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analyze/diagnose/diagnose.h"

namespace optrace::analyze::findings {

inline double Ms(int64_t ns) { return double(ns) / 1e6; }

class Builder {
 public:
  Builder(AnalysisResult& res, const Rules& rules) : res_(res), rules_(rules) {}

  // Evidence for an event range of a rank: file + row range (per file) and the time window.
  Evidence RangeEvidence(int rank, EventRange r, int64_t step_id, std::string note) const {
    const RankTable& t = *res_.FindRank(rank);
    Evidence ev;
    ev.rank = rank;
    ev.step_id = step_id;
    ev.note = std::move(note);
    if (r.empty()) return ev;
    uint32_t lo = UINT32_MAX, hi = 0;
    int64_t ws = INT64_MAX, we = INT64_MIN;
    uint16_t file = t.events[r.first].file;
    for (uint32_t i = r.first; i < r.last; ++i) {
      const Event& e = t.events[i];
      ws = std::min(ws, e.start_ns);
      we = std::max(we, e.end_ns());
      if (e.file != file) continue;
      lo = std::min(lo, e.row);
      hi = std::max(hi, e.row);
    }
    ev.file = t.files[file].path;
    if (!t.files[file].table.empty()) ev.file += "#" + t.files[file].table;
    ev.row_first = lo;
    ev.row_last = hi;
    ev.window_start_ns = t.AbsNs(ws);
    ev.window_end_ns = t.AbsNs(we);
    return ev;
  }
  Evidence WindowEvidence(int rank, int64_t step_id, int64_t rel_start, int64_t rel_end, std::string note) const {
    const RankTable& t = *res_.FindRank(rank);
    Evidence ev;
    ev.rank = rank;
    ev.step_id = step_id;
    ev.window_start_ns = t.AbsNs(rel_start);
    ev.window_end_ns = t.AbsNs(rel_end);
    ev.note = std::move(note);
    return ev;
  }
  void Add(Finding f) {
    if (f.evidence.size() > size_t(rules_.thresholds.max_evidence_items))
      f.evidence.resize(rules_.thresholds.max_evidence_items);
    out_.push_back(std::move(f));
  }
  std::vector<Finding>& out() { return out_; }

 private:
  AnalysisResult& res_;
  const Rules& rules_;
  std::vector<Finding> out_;
};

void SlowRank(AnalysisResult& res, const Rules& rules, Builder& b);
void PerRankStepFindings(AnalysisResult& res, const Rules& rules, Builder& b);
void Aicpu(AnalysisResult& res, const Rules& rules, Builder& b);
void CrossRankFindings(AnalysisResult& res, const Rules& rules, Builder& b);
void CollectiveSkew(AnalysisResult& res, const Rules& rules, Builder& b, int slow_rank);
void SlowOperators(AnalysisResult& res, const Rules& rules, Builder& b);
void OutlierSteps(AnalysisResult& res, const Rules& rules, Builder& b);
void ExpertLoadImbalance(AnalysisResult& res, const Rules& rules, Builder& b);
void SlowPipelineStage(AnalysisResult& res, const Rules& rules, Builder& b);
void LayerOutliers(AnalysisResult& res, const Rules& rules, Builder& b);
void DeviceWaitsOnLaunch(AnalysisResult& res, const Rules& rules, Builder& b);
void HostApiFindings(AnalysisResult& res, const Rules& rules, Builder& b);
// Sets each finding's confidence (capping its severity) and knowledge references.
void AddConfidenceAndKnowledge(AnalysisResult& res, std::vector<Finding>& findings);

}  // namespace optrace::analyze::findings
