#include "analyze/cross_rank/host_launch.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "analyze/report/analyze_run.h"
#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

using nlohmann::json;
using testing::TempDir;

constexpr int64_t kBaseUs = 1700000000000000;

// A torch_npu export's launch path as trace_view.json writes it: a HostToDevice flow from the CANN
// API call ("s" on the CANN process) to the task on "Ascend Hardware" ("f", bp "e"), and an
// async_task_queue flow from the Python thread's Enqueue to the launch thread's Dequeue. Six steps
// of two kernels: MatMul at t0 (1 ms), Add at t0 + 4 ms (1 ms). With `late_launch` the host calls
// aclnnAdd at t0 + 3.9 ms, after the device went idle at t0 + 1 ms (the device waits 3 ms on it);
// otherwise at t0 + 0.5 ms, while MatMul still runs (a queue ahead of the device, same gap).
void WriteRoot(const TempDir& tmp, bool late_launch) {
  std::string kd = "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n";
  json ev = json::array();
  ev.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 11}, {"args", {{"name", "CANN"}}}});
  ev.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 12}, {"args", {{"name", "Python"}}}});
  ev.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", 13}, {"args", {{"name", "Ascend Hardware"}}}});
  int id = 100;
  auto flow = [&](const char* cat, int pid_s, int64_t s_us, int pid_f, int64_t f_us) {
    std::string name = std::string(cat) + std::to_string(id);
    ev.push_back({{"ph", "s"}, {"cat", cat}, {"name", name}, {"id", std::to_string(id)}, {"pid", pid_s}, {"tid", 1},
                  {"ts", fmt::format("{}.000", s_us)}});
    ev.push_back({{"ph", "f"}, {"cat", cat}, {"name", name}, {"id", std::to_string(id)}, {"pid", pid_f}, {"tid", 2},
                  {"ts", fmt::format("{}.000", f_us)}, {"bp", "e"}});
    ++id;
  };
  for (int s = 0; s < 6; ++s) {
    const int64_t t0 = kBaseUs + s * 20000;
    kd += fmt::format("{},MatMul,MatMul,AI_CORE,{}.0,1000.0\n", s + 1, t0);
    kd += fmt::format("{},Add,Add,AI_VECTOR_CORE,{}.0,1000.0\n", s + 1, t0 + 4000);
    flow("HostToDevice", 11, t0 - 50, 13, t0);
    flow("HostToDevice", 11, t0 + (late_launch ? 3900 : 500), 13, t0 + 4000);
    for (int q = 0; q < 3; ++q) flow("async_task_queue", 12, t0 + 10 + 10 * q, 12, t0 + 3000 + q);
  }
  tmp.Write("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", kd);
  tmp.Write("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", json{{"traceEvents", ev}}.dump());
}

const Finding* FindType(const AnalysisResult& r, const std::string& type) {
  for (const Finding& f : r.findings)
    if (f.type == type) return &f;
  return nullptr;
}

TEST(HostLaunchTest, LateLaunchesAreLaunchBoundIdle) {
  TempDir tmp;
  WriteRoot(tmp, /*late_launch=*/true);
  AnalysisResult r = testing::Analyze(tmp.path());
  ASSERT_EQ(r.cross_rank.launches.size(), 6u);
  const StepLaunch& L = r.cross_rank.launches[0];
  EXPECT_EQ(L.step_id, 1);
  EXPECT_EQ(L.launches, 2u);
  EXPECT_EQ(L.launch_bound_gaps, 1u);
  EXPECT_EQ(L.launch_bound_idle_ns, 3000 * 1000);  // MatMul's end to Add's start
  EXPECT_EQ(L.longest_wait_start_ns, (kBaseUs + 1000) * 1000);
  EXPECT_EQ(L.longest_wait_end_ns, (kBaseUs + 4000) * 1000);
  EXPECT_EQ(L.delay_max_ns, 100 * 1000);
  EXPECT_EQ(L.max_queue_depth, 3);
  const Finding* f = FindType(r, "device_waits_on_launch");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rank, 0);
  EXPECT_FALSE(f->evidence.empty());
  EXPECT_EQ(f->evidence[0].window_start_ns, (kBaseUs + 1000) * 1000);
  EXPECT_NE(f->summary.find("waits on the host"), std::string::npos) << f->summary;
}

TEST(HostLaunchTest, ALaunchAheadOfTheDeviceIsNotAWaitForTheHost) {
  TempDir tmp;
  WriteRoot(tmp, /*late_launch=*/false);
  AnalysisResult r = testing::Analyze(tmp.path());
  ASSERT_EQ(r.cross_rank.launches.size(), 6u);
  EXPECT_EQ(r.cross_rank.launches[0].launch_bound_idle_ns, 0);
  EXPECT_EQ(r.cross_rank.launches[0].delay_max_ns, 3500 * 1000);  // a long delay: the queue is ahead
  EXPECT_EQ(FindType(r, "device_waits_on_launch"), nullptr);
}

TEST(HostLaunchTest, WithoutFlowsTheReportSaysNotInThisCapture) {
  TempDir tmp;
  tmp.Write("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
            fmt::format("Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n1,MatMul,MatMul,AI_CORE,{}.0,10.0\n",
                        kBaseUs));
  report::AnalyzeRunOptions opt;
  opt.analyze.roots = {tmp.path()};
  opt.analyze.out_dir = tmp.path() / "out";
  opt.analyze.to = Stage::kReport;
  auto run = report::RunAnalyzeAndReport(opt);
  ASSERT_TRUE(run.ok()) << run.status().message();
  std::ifstream md(tmp.path() / "out" / "report.md");
  std::string text((std::istreambuf_iterator<char>(md)), {});
  EXPECT_NE(text.find("No launch flows in this capture"), std::string::npos);
  std::ifstream js(tmp.path() / "out" / "analysis_summary.json");
  json j = json::parse(js);
  EXPECT_EQ(j["host_launch"]["ranks_without_flows"], 1);
  EXPECT_TRUE(j["host_launch"]["ranks"].empty());
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "out" / "host_launch_summary.csv"));
}

TEST(HostLaunchTest, TheReportWritesOneCsvRowPerStepAndAnHtmlTable) {
  TempDir tmp;
  WriteRoot(tmp, /*late_launch=*/true);
  report::AnalyzeRunOptions opt;
  opt.analyze.roots = {tmp.path()};
  opt.analyze.out_dir = tmp.path() / "out";
  opt.analyze.to = Stage::kReport;
  auto run = report::RunAnalyzeAndReport(opt);
  ASSERT_TRUE(run.ok()) << run.status().message();
  std::ifstream csv(tmp.path() / "out" / "host_launch_summary.csv");
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line.rfind("rank,step_id,complete,wall_ms,launches,", 0), 0u) << line;
  std::getline(csv, line);
  EXPECT_EQ(line, "0,1,true,5,2,0.1,0.1,0.1,3,0.6,1,3");  // p50 of two: the upper (nearest rank)
  std::ifstream html(tmp.path() / "out" / "report.html");
  std::string page((std::istreambuf_iterator<char>(html)), {});
  EXPECT_NE(page.find("Host launch per step"), std::string::npos);
}

TEST(HostLaunchTest, AGapEndedByATaskLaunchedAfterTheDeviceIdledIsLaunchBound) {
  RankTable t;
  t.rank = 0;
  t.base_ns = 0;
  Event a, b;
  a.start_ns = 0;
  a.dur_ns = 1000;
  b.start_ns = 5000;
  b.dur_ns = 1000;
  t.events = {a, b};
  Step s;
  s.rank = 0;
  s.step_id = 7;
  s.start_ns = 0;
  s.end_ns = 6000;
  std::vector<StepLaunch> out = StepLaunches(t, {s}, {{TraceFlow::kHostToDevice, 4000, 5000}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].launch_bound_idle_ns, 4000);
  EXPECT_EQ(out[0].max_queue_depth, -1);  // no task-queue flows
}

// The db layout: CANN_API rows linked to TASK by connectionId (as torch_npu writes them), each API
// call 20 us before its task, added to a copy of the tp_l0_db fixture.
TEST(HostLaunchTest, TheDbLayoutLinksLaunchesThroughCannApi) {
  namespace fs = std::filesystem;
  TempDir tmp;
  fs::copy(testing::Sample("tp_l0_db"), tmp.path(), fs::copy_options::recursive);
  fs::path db = tmp.path() / "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db";
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(h,
                         "CREATE TABLE CANN_API (startNs INTEGER,endNs INTEGER,type INTEGER,globalTid INTEGER,"
                         "connectionId INTEGER PRIMARY KEY,name INTEGER);"
                         "INSERT INTO CANN_API SELECT MIN(startNs) - 20000, MIN(startNs) - 10000, 1, 1, connectionId, 0 "
                         "FROM TASK GROUP BY connectionId;",
                         nullptr, nullptr, &err),
            SQLITE_OK)
      << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(h);
  AnalysisResult r = testing::Analyze(tmp.path());
  ASSERT_FALSE(r.cross_rank.launches.empty());
  uint32_t launches = 0;
  for (const StepLaunch& L : r.cross_rank.launches) {
    launches += L.launches;
    EXPECT_EQ(L.max_queue_depth, -1);  // the db keeps no task-queue flows
    if (L.launches) {
      EXPECT_GE(L.delay_p50_ns, 20000);  // 20 us before the first task of its connection
    }
  }
  EXPECT_GT(launches, 0u);
  EXPECT_LE(launches, 187u);  // compute tasks only (COMPUTE_TASK_INFO), within steps
}

}  // namespace
}  // namespace optrace::analyze
