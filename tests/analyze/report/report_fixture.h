// A small hand-built AnalysisResult for the report writer tests: 2 ranks x 3 steps, four
// operators per step (MatMul on AIC, Add on AIV, an AI CPU op, an allreduce), rank 1's
// MatMul slower and its allreduce shorter (it arrives last), a bubble in every rank-0 step,
// three findings with file-row and time-window evidence. Values are made up but consistent.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "analyze/model/model.h"

namespace optrace::analyze::testing {

inline constexpr int64_t kFixtureBaseNs = 1736408883704643000;  // Unix ns of rank time 0

inline std::string FixtureKernelFile(int rank) {
  return "/data/run1/rank" + std::to_string(rank) + "_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv";
}

inline AnalysisResult MakeReportFixture() {
  AnalysisResult r;
  r.identity.roots = {"/data/run1"};
  r.identity.profiler_level = "Level1";
  r.identity.torch_npu_version = "2.1.0";
  r.identity.cann_version = "8.0.RC2";
  r.identity.device_name = "Ascend910B";
  r.cross_rank.alignment_method = "step_id";
  const uint32_t matmul = r.strings.Intern("aclnnMatmul_MatMulCommon_MatMulV2");
  const uint32_t add = r.strings.Intern("aclnnAdd_AddAiCore_Add");
  const uint32_t aicpu = r.strings.Intern("IndexPut_AiCpu");
  const uint32_t allreduce = r.strings.Intern("hcom_allReduce__586_0_1");
  const uint32_t t_matmul = r.strings.Intern("MatMulV2"), t_add = r.strings.Intern("Add");
  const uint32_t t_aicpu = r.strings.Intern("IndexPut"), t_hcom = r.strings.Intern("hcom_allReduce_");
  const uint32_t shape = r.strings.Intern("\"8192,4096;4096,4096\"");
  struct Proto {
    uint32_t name, type;
    OpType op;
    double offset_ms, dur_ms_rank0, dur_ms_rank1;
  };
  const std::vector<Proto> protos = {{matmul, t_matmul, OpType::kAic, 0.1, 3.0, 3.5},
                                     {add, t_add, OpType::kAiv, 3.7, 1.0, 1.0},
                                     {aicpu, t_aicpu, OpType::kAicpu, 4.8, 0.5, 0.5},
                                     {allreduce, t_hcom, OpType::kCommunication, 5.5, 2.0, 1.2}};
  for (int rank = 0; rank < 2; ++rank) {
    RankTable t;
    t.rank = rank;
    t.dir = "/data/run1/rank" + std::to_string(rank) + "_ascend_pt";
    t.base_ns = kFixtureBaseNs + rank * 200000;
    t.files.push_back({FixtureKernelFile(rank), ""});
    r.identity.ranks.push_back(rank);
    r.identity.input_kinds.push_back("torch_npu_text");
    uint32_t row = 2;
    for (int step = 0; step < 3; ++step) {
      Step s;
      s.rank = rank;
      s.step_id = step + 1;
      s.step_source = "Step Id";
      s.events.first = static_cast<uint32_t>(t.events.size());
      for (const Proto& p : protos) {
        PipelineFields pipe;
        Event e;
        e.start_ns = static_cast<int64_t>((step * 10.0 + p.offset_ms) * 1e6);
        e.dur_ns = static_cast<int64_t>((rank ? p.dur_ms_rank1 : p.dur_ms_rank0) * 1e6);
        e.name = p.name;
        e.type = p.type;
        e.op_type = p.op;
        e.step_id = step + 1;
        e.row = row++;
        e.input_shapes = p.op == OpType::kAic ? shape : 0;
        if (p.op == OpType::kAic) {
          t.SetPipe(pipe, Pipe::kAicoreTime, e.dur_ns / 1e3 * 0.9);
          t.SetPipe(pipe, Pipe::kAicMacTime, e.dur_ns / 1e3 * 0.6);
          t.SetPipe(pipe, Pipe::kAicMte2Time, e.dur_ns / 1e3 * 0.3);
          e.pipe = t.pipes.Add(pipe);
        }
        t.events.push_back(e);
      }
      s.events.last = static_cast<uint32_t>(t.events.size());
      const Event& first = t.events[s.events.first];
      const Event& last = t.events[s.events.last - 1];
      s.start_ns = first.start_ns;
      s.end_ns = last.end_ns();
      int64_t busy = 0;
      for (uint32_t i = s.events.first; i < s.events.last; ++i) busy += t.events[i].dur_ns;
      s.anatomy.wall_ns = s.end_ns - s.start_ns;
      s.anatomy.busy_ns = busy;
      s.anatomy.bubble_ns = s.anatomy.wall_ns - busy;
      s.anatomy.main_ns = s.anatomy.wall_ns;
      s.anatomy.max_gap_ns = 600000;  // MatMul end (3.1 / 3.6 ms) to Add start (3.7 ms) on rank 0
      s.anatomy.max_gap_start_ns = static_cast<int64_t>((step * 10.0 + 3.1) * 1e6);
      s.anatomy.has_bubble = rank == 0;
      s.anatomy.bubble_gap_count = rank == 0 ? 1 : 0;
      s.anatomy.bubble_gap_ns = rank == 0 ? 600000 : 0;
      s.comm_ns = last.dur_ns;
      s.compute_ns = busy - last.dur_ns;
      s.prelaunch_gap_ns = step == 0 ? -1 : 10 * 1000000 - (s.end_ns - s.start_ns);
      s.tail_gap_ns = step == 2 ? -1 : 10 * 1000000 - (s.end_ns - s.start_ns);
      s.step_class = "S1";
      s.complete = true;
      if (rank == 0) s.anomaly_tags.push_back("BUBBLE");
      r.steps.push_back(s);
    }
    r.ranks.push_back(std::move(t));
  }
  r.step_classes.push_back({"S1", "9f3a", true, {0, 1, 2, 3, 4, 5}});

  // Summaries.
  for (const RankTable& t : r.ranks) {
    std::map<uint32_t, std::vector<const Event*>> by_name;
    for (const Event& e : t.events) by_name[e.name].push_back(&e);
    for (const auto& [name, events] : by_name) {
      OperatorSummary o;
      o.rank = t.rank;
      o.name = name;
      o.type = events.front()->type;
      o.op_type = events.front()->op_type;
      std::vector<double> d;
      for (const Event* e : events) d.push_back(e->dur_ns / 1e3);
      std::sort(d.begin(), d.end());
      o.stats.count = d.size();
      for (double v : d) o.stats.total_us += v;
      o.stats.mean_us = o.stats.total_us / d.size();
      o.stats.p50_us = d[d.size() / 2];
      o.stats.p90_us = o.stats.max_us = d.back();
      o.stats.min_us = d.front();
      o.pipe_sums.fill(kMissing);
      if (o.op_type == OpType::kAic) {
        o.pipe_sums[0] = o.stats.total_us * 0.9;
        o.pipe_sums[2] = o.stats.total_us * 0.6;
        o.pipe_sums[5] = o.stats.total_us * 0.3;
        o.pipe_event_count = d.size();
        o.bound = {"aic_mac_time", "cube", "aic"};
      } else if (o.op_type == OpType::kCommunication) {
        o.bound = {"", "communication", "none"};
      } else if (o.op_type == OpType::kAicpu) {
        o.bound = {"", "aicpu", "none"};
      } else {
        o.bound = {"", "unknown", "none"};
      }
      o.first_row = events.front()->row;
      o.last_row = events.back()->row;
      r.summaries.operators.push_back(o);
    }
  }
  std::stable_sort(r.summaries.operators.begin(), r.summaries.operators.end(), [](const auto& a, const auto& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.stats.total_us > b.stats.total_us;
  });
  OperatorClassSummary mm;
  mm.name = matmul;
  mm.type = t_matmul;
  mm.op_type = OpType::kAic;
  mm.rank_count = 2;
  mm.call_count = 6;
  mm.duration_sum_us = 19500;
  mm.pipe_sums.fill(kMissing);
  mm.bound = {"aic_mac_time", "cube", "aic"};
  mm.rank_duration_min_us = 9000;
  mm.rank_duration_max_us = 10500;
  mm.rank_duration_p50_us = 9750;
  mm.rank_duration_skew_ratio = 1500.0 / 9750.0;
  r.summaries.operator_classes.push_back(mm);
  for (int rank = 0; rank < 2; ++rank) {
    HcclSummary h;
    h.kind = "allreduce";
    h.rank = rank;
    h.stats.count = 3;
    double us = rank ? 1200 : 2000;
    h.stats.total_us = 3 * us;
    h.stats.mean_us = h.stats.p50_us = h.stats.p90_us = h.stats.max_us = h.stats.min_us = us;
    r.summaries.hccl.push_back(h);
  }
  r.summaries.hccl_classes.push_back({"allreduce", false, 2, 6, 9600, 1200, 2000, 1600, 0.5, 1, 0});
  StepClassSummary sc;
  sc.id = "S1";
  sc.members = 6;
  sc.wall_ms_mean = 7.5;
  sc.wall_ms_sum = 45;
  sc.wall_ms_p50 = 7.5;
  sc.wall_ms_p90 = 7.6;
  sc.main_ratio_mean = 1;
  sc.bubble_ratio_mean = 0.1;
  sc.top_ops = {{matmul, 19500}, {allreduce, 9600}};
  r.summaries.step_classes.push_back(sc);
  for (int rank = 0; rank < 2; ++rank) {
    RankSummary s;
    s.rank = rank;
    s.event_count = 12;
    s.step_count = s.complete_step_count = 3;
    for (const Step& st : r.steps) {
      if (st.rank != rank) continue;
      s.wall_ms_sum += st.anatomy.wall_ns / 1e6;
      s.busy_ms_sum += st.anatomy.busy_ns / 1e6;
      s.bubble_ms_sum += st.anatomy.bubble_ns / 1e6;
      s.comm_ms_sum += st.comm_ns / 1e6;
      s.compute_ms_sum += st.compute_ns / 1e6;
    }
    s.step_wall_ms_p50 = s.step_wall_ms_p90 = s.wall_ms_sum / 3;
    s.bubbling_step_count = rank == 0 ? 3 : 0;
    s.bubble_recurrence_ratio = rank == 0 ? 1.0 : 0.0;
    s.dominant_idle_pattern = rank == 0 ? "internal_bubble" : "none";
    s.recurring_bubble_pattern = rank == 0;
    s.op_type_ms[static_cast<int>(OpType::kAic)] = rank ? 10.5 : 9.0;
    s.op_type_ms[static_cast<int>(OpType::kAiv)] = 3.0;
    s.op_type_ms[static_cast<int>(OpType::kAicpu)] = 1.5;
    s.op_type_ms[static_cast<int>(OpType::kCommunication)] = rank ? 3.6 : 6.0;
    r.summaries.ranks.push_back(s);
  }
  r.summaries.events_total = 24;
  r.summaries.events_with_pipeline = 6;
  r.summaries.operators_total = 8;
  r.summaries.operators_with_pipeline = 2;

  // Cross-rank.
  r.cross_rank.ranks = {0, 1};
  for (int step = 0; step < 3; ++step) {
    AlignedStep a;
    a.step_id = step + 1;
    a.wall_ms = {{0, r.steps[step].anatomy.wall_ns / 1e6}, {1, r.steps[3 + step].anatomy.wall_ns / 1e6}};
    a.compute_ms = {{0, 4.5}, {1, 5.0}};
    a.wall_skew_ratio = 0.0;
    a.compute_skew_ratio = 0.5 / 4.75;
    a.slowest_rank = 1;
    a.fastest_rank = 0;
    r.cross_rank.steps.push_back(a);
    AlignedCollective c;
    c.step_id = step + 1;
    c.name = allreduce;
    c.kind = "allreduce";
    c.dur_us = {{0, 2000}, {1, 1200}};
    c.skew_ratio = 0.5;
    c.shortest_rank = c.outlier_rank = 1;
    c.test = "two_rank_skew";
    c.statistic = 0.5;
    c.critical = 0.05;
    r.cross_rank.collectives.push_back(c);
  }
  r.cross_rank.tested_collectives = 3;
  r.cross_rank.votes = {{1, 3, 1.0}, {0, 0, 0.0}};
  r.cross_rank.max_step_skew_ratio = 0.0;
  r.cross_rank.max_collective_skew_ratio = 0.5;
  r.cross_rank.compute_imbalance_ratio = 0.5 / 4.75;

  // Findings.
  Finding slow;
  slow.id = "F001";
  slow.severity = Severity::kHigh;
  slow.type = "slow_rank";
  slow.summary = "Rank 1 arrived last at 3 of 3 allreduce collectives (its compute is 11% slower).";
  slow.rank = 1;
  slow.numbers = {{"votes", 3}, {"vote_share", 1.0}, {"compute_skew_ratio", 0.105263}};
  Evidence w;
  w.rank = 1;
  w.step_id = 2;
  w.window_start_ns = r.ranks[1].AbsNs(r.steps[4].start_ns);
  w.window_end_ns = r.ranks[1].AbsNs(r.steps[4].end_ns);
  w.note = "step 2 on rank 1";
  Evidence rows;
  rows.file = FixtureKernelFile(1);
  rows.row_first = 6;
  rows.row_last = 9;
  rows.rank = 1;
  rows.step_id = 2;
  rows.note = "collective hcom_allReduce__586_0_1 #0 on rank 1";
  slow.evidence = {w, rows};
  Finding bubble;
  bubble.id = "F002";
  bubble.severity = Severity::kMedium;
  bubble.type = "recurring_bubble_pattern";
  bubble.summary = "Rank 0 has an idle bubble in 3 of 3 complete steps (100%).";
  bubble.rank = 0;
  bubble.numbers = {{"bubbling_steps", 3}, {"complete_steps", 3}, {"ratio", 1.0}};
  Evidence b;
  b.file = FixtureKernelFile(0);
  b.row_first = 2;
  b.row_last = 13;
  b.rank = 0;
  bubble.evidence = {b};
  Finding top;
  top.id = "F003";
  top.severity = Severity::kInfo;
  top.type = "top_operator";
  top.summary = "aclnnMatmul_MatMulCommon_MatMulV2 takes 19.5 ms over 2 ranks (cube bound).";
  top.numbers = {{"total_ms", 19.5}};
  r.findings = {slow, bubble, top};
  r.issues.push_back({"csv_row_short", "info", "a row has fewer fields than the header; missing fields read as N/A", 1,
                      FixtureKernelFile(0) + ":14"});
  r.limitations = {"trace_view.json was not found: host-side bubble attribution is not available."};
  r.timings = {{"discover", "ran", 0.01}, {"normalize", "ran", 0.2}, {"segment", "ran", 0.05}};
  r.identity.event_count = 24;
  r.identity.step_count = 6;
  return r;
}

}  // namespace optrace::analyze::testing
