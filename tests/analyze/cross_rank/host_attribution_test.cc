#include "analyze/cross_rank/host_attribution.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "analyze/report/analyze_run.h"
#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

using nlohmann::json;
using testing::TempDir;

constexpr int64_t kBaseUs = 1700000000000000;

// One rank, three steps of two kernels with a 3 ms device gap between them. The host: in step 1
// a stream synchronize overlaps the gap, in step 2 nothing runs, in step 3 the host launches the
// second kernel inside the gap; step 4's gap is covered by a long Python function alone.
void WriteRoot(const TempDir& tmp, bool wrapped) {
  std::string kd = "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n";
  json events = json::array();
  events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 11}, {"args", {{"name", "CANN"}}}});
  events.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 12}, {"args", {{"name", "Python"}}}});
  for (int s = 0; s < 4; ++s) {
    int64_t t0 = kBaseUs + s * 20000;
    kd += fmt::format("{},MatMul,MatMul,AI_CORE,{}.0,1000.0\n", s + 1, t0);
    kd += fmt::format("{},Add,Add,AI_VECTOR_CORE,{}.0,1000.0\n", s + 1, t0 + 4000);  // gap 1000..4000 us
    // Device tasks of the same kernels (they carry a Task Type: never host events).
    events.push_back({{"ph", "X"}, {"name", "MatMul"}, {"pid", 99}, {"ts", std::to_string(t0)}, {"dur", 1000},
                      {"args", {{"Task Type", "AI_CORE"}}}});
    if (s == 0)
      events.push_back({{"ph", "X"}, {"name", "aclrtSynchronizeStream"}, {"pid", 11}, {"cat", "AscendCL"},
                        {"ts", std::to_string(t0 + 1200)}, {"dur", 2500}});
    if (s == 2)
      events.push_back({{"ph", "X"}, {"name", "aclnnAdd"}, {"pid", 11}, {"cat", "AscendCL"},
                        {"ts", std::to_string(t0 + 3800)}, {"dur", 50}});
    if (s == 3)
      events.push_back({{"ph", "X"}, {"name", "train.py(42): step"}, {"pid", 12}, {"cat", "python_function"},
                        {"ts", std::to_string(t0 + 500)}, {"dur", 3400}});
  }
  json trace = wrapped ? json{{"traceEvents", events}, {"displayTimeUnit", "ns"}} : events;
  tmp.Write("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", kd);
  tmp.Write("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", trace.dump());
}

std::map<int64_t, std::string> LabelsByStep(const AnalysisResult& r) {
  std::map<int64_t, std::string> out;
  for (const BubbleWindow& b : r.cross_rank.bubbles) out[b.step_id] = b.label;
  return out;
}

TEST(HostAttributionTest, PlantedHostCausesGetTheirLabels) {
  for (bool wrapped : {false, true}) {
    SCOPED_TRACE(wrapped ? "traceEvents wrapper" : "bare array");
    TempDir tmp;
    WriteRoot(tmp, wrapped);
    AnalysisResult r = testing::Analyze(tmp.path());
    EXPECT_EQ(LabelsByStep(r), (std::map<int64_t, std::string>{{1, "possible_sync_or_h2d"},
                                                               {2, "possible_untraced_host_blocking"},
                                                               {3, "possible_host_launch_lag"},
                                                               {4, "possible_python_serialization_or_lock"}}));
    ASSERT_EQ(r.cross_rank.bubbles.size(), 4u);
    const BubbleWindow& b = r.cross_rank.bubbles[0];
    EXPECT_EQ(b.start_ns, (kBaseUs + 1000) * 1000);
    EXPECT_EQ(b.end_ns, (kBaseUs + 4000) * 1000);
    ASSERT_EQ(b.host.size(), 1u);
    EXPECT_EQ(b.host[0].name, "aclrtSynchronizeStream");
    EXPECT_EQ(b.host[0].process, "CANN");
    EXPECT_EQ(b.host[0].overlap_ns, 2500 * 1000);
  }
}

TEST(HostAttributionTest, TheReportWritesOneJsonLinePerBubble) {
  TempDir tmp;
  WriteRoot(tmp, false);
  report::AnalyzeRunOptions opt;
  opt.analyze.roots = {tmp.path()};
  opt.analyze.out_dir = tmp.path() / "out";
  opt.analyze.to = Stage::kReport;
  auto run = report::RunAnalyzeAndReport(opt);
  ASSERT_TRUE(run.ok()) << run.status().message();
  std::ifstream in(tmp.path() / "out" / "evidence" / "bubble_windows.jsonl");
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    json j = json::parse(line);
    EXPECT_TRUE(j.contains("label") && j.contains("rule") && j.contains("host_events") && j.contains("gap_us"));
    ++lines;
  }
  EXPECT_EQ(lines, 4);
}

TEST(HostAttributionTest, RulesAreCheckedInOrder) {
  std::vector<HostEventNear> host = {{"CANN", "aclnnMatmul", "AscendCL", 1500, 10, 10},
                                     {"CANN", "HcclAllReduce", "AscendCL", 1100, 100, 100}};
  EXPECT_EQ(LabelBubble(1000, 2000, host).first, "possible_communication_wait");
  host.push_back({"Python", "aten::item", "cpu_op", 1000, 900, 900});
  EXPECT_EQ(LabelBubble(1000, 2000, host).first, "possible_sync_or_h2d");
  EXPECT_EQ(LabelBubble(1000, 2000, {{"CANN", "aclrtMalloc", "AscendCL", 1000, 10, 10}}).first, "insufficient_evidence");
}

}  // namespace
}  // namespace optrace::analyze
