// optrace analyze end to end: every sample root under tests/data/analyze/, usage errors, stage
// selection, progress protocol, a root without kernel data.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "testing/cli_runner.h"

namespace optrace::cli {
namespace {
namespace fs = std::filesystem;
using ::optrace::testing::RunCli;
using ::testing::HasSubstr;

fs::path SamplesDir() { return fs::path(OPTRACE_TEST_DATA_DIR) / "analyze"; }

// Sample roots: every directory of tests/data/analyze/ holding *_ascend_pt or PROF_* folders
// (report/ and golden/ hold expected outputs, not inputs).
bool IsProfilingRoot(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (e.is_directory() && (name.ends_with("_ascend_pt") || name.starts_with("PROF_"))) return true;
  }
  return false;
}

std::vector<fs::path> SampleRoots() {
  std::vector<fs::path> roots;
  for (const auto& e : fs::directory_iterator(SamplesDir()))
    if (e.is_directory() && IsProfilingRoot(e.path())) roots.push_back(e.path());
  std::sort(roots.begin(), roots.end());
  return roots;
}

class AnalyzeCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("optrace_analyze_cli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

const std::vector<std::string> kFastArtifacts = {
    "report.md", "analysis_summary.json", "diagnosis_findings.json", "report.html", "manifest.json",
    "operator_summary.csv", "operator_class_summary.csv", "hccl_op_summary.csv", "hccl_class_summary.csv",
    "step_summary.csv", "step_anatomy.csv", "rank_summary.csv", "step_class_summary.csv", "layer_class_summary.csv",
    "block_class_summary.csv", "cross_rank_step_summary.csv", "operator_efficiency_summary.csv",
    "operator_roofline_summary.csv", "operator_not_modelled_summary.csv", "mfu_summary.csv",
    "hardware_theoretical_peaks.csv", "model_inferred_config.csv", "model_feature_summary.csv",
    "model_layer_type_summary.csv", "segment_manifest.json"};

// Issue 52.6 / seed 002: a root whose only export holds nothing (an empty trace_view.json) was
// "ok" with 0 events. Nothing analyzed is a failure naming why; the reports are still written.
TEST_F(AnalyzeCommandTest, ARootWithNothingToAnalyzeFailsSayingSo) {
  fs::create_directories(dir_ / "cap/r_ascend_pt/ASCEND_PROFILER_OUTPUT");
  std::ofstream(dir_ / "cap/r_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json") << "[]";
  auto r = RunCli({"analyze", (dir_ / "cap").string(), "-o", (dir_ / "out").string(), "--format", "json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no rank holds a device task, a profiler step or a communication operator"));
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["phase"], "normalize");
  EXPECT_TRUE(fs::exists(dir_ / "out" / "report.md"));
}

TEST_F(AnalyzeCommandTest, EverySampleRootProducesTheReportSet) {
  std::vector<fs::path> roots = SampleRoots();
  ASSERT_GE(roots.size(), 6u) << "sample roots are expected under " << SamplesDir();
  for (const fs::path& root : roots) {
    SCOPED_TRACE(root.string());
    fs::path out = dir_ / root.filename();
    auto r = RunCli({"analyze", "--format", "json", root.string(), "-o", out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["status"], "ok");
    EXPECT_GT(j["event_count"].get<int>(), 0);
    EXPECT_GT(j["step_count"].get<int>(), 0);
    EXPECT_EQ(j["analysis_summary"]["schema_version"], 1);
    for (const std::string& f : kFastArtifacts) EXPECT_TRUE(fs::exists(out / f)) << f;
    for (const auto& [key, path] : j["artifacts"].items()) EXPECT_TRUE(fs::exists(path.get<std::string>())) << key;
    // operator_summary.csv: one row per (name, rank), starting with the required columns.
    std::ifstream ops(out / "operator_summary.csv");
    std::string header;
    std::getline(ops, header);
    EXPECT_EQ(header.rfind("name,rank,type,op_type,count,total_us,", 0), 0u) << header;
  }
}

TEST_F(AnalyzeCommandTest, FullModeAddsWorkbookAndFullTables) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "tp_l1_text").string(), "-o", dir_.string(), "--mode", "full"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["mode"], "full");
  EXPECT_EQ(j["report_xlsx"], (dir_ / "report.xlsx").string());
  for (const char* f : {"report.xlsx", "normalized_event_index.csv", "layer_summary.csv", "block_summary.csv",
                        "collective_alignment.csv"})
    EXPECT_TRUE(fs::exists(dir_ / f)) << f;
}

TEST_F(AnalyzeCommandTest, ProgressJsonIsOneLinePerStageOnStderr) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "tp_l0_text").string(), "-o", dir_.string(), "--progress", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.err);
  std::string line;
  std::vector<std::string> stages;
  while (std::getline(lines, line)) {
    auto j = nlohmann::json::parse(line);  // throws (fails the test) on a non-JSON line
    EXPECT_EQ(j["event"], "stage");
    EXPECT_EQ(j["status"], "done");
    stages.push_back(j["stage"]);
  }
  EXPECT_THAT(stages, ::testing::ElementsAre("discover", "normalize", "segment", "classify", "summarize", "cross_rank",
                                             "diagnose", "report"));
  EXPECT_EQ(nlohmann::json::parse(r.out)["status"], "ok");  // stdout: one JSON object
}

TEST_F(AnalyzeCommandTest, TextProgressNamesEachStage) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "tp_l0_text").string(), "-o", dir_.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("analyze: normalize"));
  EXPECT_THAT(r.err, HasSubstr("analyze: report"));
}

// SPEC section 7: people by default, machines with --format json. The 8-rank sample has seven
// findings; the summary lists them by severity and says where the report is, in at most 20 lines.
TEST_F(AnalyzeCommandTest, DefaultStdoutIsAShortSummaryWithTheTopFindingsAndTheReport) {
  auto r = RunCli({"analyze", (SamplesDir() / "synthetic_8rank").string(), "-o", dir_.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LE(std::count(r.out.begin(), r.out.end(), '\n'), 20) << r.out;
  EXPECT_THAT(r.out, HasSubstr("analyze: ok: 8 rank(s) (torch_npu_text, Level1, CANN 8.3.RC1), 40 step(s)"));
  EXPECT_THAT(r.out, HasSubstr("findings: 0 high, 1 medium, 1 low, 5 info"));
  // By severity: the medium bubble before the low slow rank before the info rows.
  size_t medium = r.out.find("medium F001 recurring_bubble_pattern: Rank 2");
  size_t low = r.out.find("low    F002 slow_rank: Rank 5");
  ASSERT_NE(medium, std::string::npos) << r.out;
  ASSERT_NE(low, std::string::npos) << r.out;
  EXPECT_LT(medium, low);
  EXPECT_THAT(r.out, HasSubstr("report: " + (dir_ / "report.html").string()));
  EXPECT_THAT(r.out, HasSubstr("--format json"));
  EXPECT_EQ(r.out.find('{'), std::string::npos) << "no JSON on stdout without --format json";
}

TEST_F(AnalyzeCommandTest, FormatJsonAndTextAgreeOnTheFindingCounts) {
  auto text = RunCli({"analyze", (SamplesDir() / "tp_l1_text").string(), "-o", (dir_ / "t").string()});
  auto json = RunCli({"analyze", "--format", "json", (SamplesDir() / "tp_l1_text").string(), "-o", (dir_ / "j").string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto c = nlohmann::json::parse(json.out)["diagnosis_counts"];
  EXPECT_THAT(text.out, HasSubstr(fmt::format("findings: {} high, {} medium, {} low, {} info", c.value("high", 0),
                                              c.value("medium", 0), c.value("low", 0), c.value("info", 0))));
}

// A run whose reports are written but whose cut is not lossless: the summary says failed, which
// phase, and why, above the rest (exit 2).
TEST_F(AnalyzeCommandTest, TextSummaryOfAFailedCutSaysSoFirst) {
  fs::path rank = dir_ / "root" / "rank0_ascend_pt";
  fs::create_directories(rank / "ASCEND_PROFILER_OUTPUT");
  std::ofstream(rank / "profiler_info_0.json") << "{}";
  std::ofstream(rank / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv")
      << "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
         "1,MatMul,MatMul,AI_CORE,1000.000,100\n,Add,Add,AI_VECTOR_CORE,2000.000,100\n"
         "2,MatMul,MatMul,AI_CORE,3000.000,100\n";
  auto r = RunCli({"analyze", (dir_ / "root").string(), "-o", (dir_ / "out").string()});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_EQ(r.out.rfind("analyze: failed (segment_validation): 1 rank(s)", 0), 0u) << r.out;
  EXPECT_THAT(r.out, HasSubstr("\nerror: 0 hard data error(s) and 1 event(s) between steps"));
  EXPECT_THAT(r.out, HasSubstr("report: " + (dir_ / "out" / "report.html").string()));
}

TEST_F(AnalyzeCommandTest, FailedRunPrintsNothingOnStdoutInTextMode) {
  auto r = RunCli({"analyze", (dir_ / "nope").string(), "-o", (dir_ / "out").string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("nope"));
}

TEST_F(AnalyzeCommandTest, RootWithoutKernelDataIsExit2SayingWhatWasFound) {
  fs::path rank = dir_ / "root" / "rank0_ascend_pt";
  fs::create_directories(rank / "ASCEND_PROFILER_OUTPUT");
  std::ofstream(rank / "profiler_info_0.json") << "{\"rank_id\": 0}";
  std::ofstream(rank / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv") << "Step,Computing\n1,10\n";
  auto r = RunCli({"analyze", "--format", "json", (dir_ / "root").string(), "-o", (dir_ / "out").string()});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("optrace analyze: error:"));
  EXPECT_THAT(r.err, HasSubstr("no kernel data found"));
  EXPECT_THAT(r.err, HasSubstr("step_trace_time.csv"));
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["phase"], "discover");  // the stage that failed
  EXPECT_THAT(j["error"].get<std::string>(), HasSubstr("no kernel data found"));
  EXPECT_FALSE(fs::exists(dir_ / "out" / "report.md"));
}

TEST_F(AnalyzeCommandTest, EventsBetweenStepsThatNoStepHoldsFailTheRunWithTheReportsWritten) {
  // Seed 002's failure policy: a row between step 1 and step 2 with no Step Id is an interior
  // island: the cut is not lossless, so the run is not a success.
  fs::path rank = dir_ / "root" / "rank0_ascend_pt";
  fs::create_directories(rank / "ASCEND_PROFILER_OUTPUT");
  std::ofstream(rank / "profiler_info_0.json") << "{}";
  std::ofstream(rank / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv")
      << "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
         "1,MatMul,MatMul,AI_CORE,1000.000,100\n,Add,Add,AI_VECTOR_CORE,2000.000,100\n"
         "2,MatMul,MatMul,AI_CORE,3000.000,100\n";
  auto r = RunCli({"analyze", "--format", "json", (dir_ / "root").string(), "-o", (dir_ / "out").string()});
  EXPECT_EQ(r.exit_code, kExitBadInput) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["phase"], "segment_validation");
  EXPECT_THAT(j["error"].get<std::string>(), HasSubstr("1 event(s) between steps"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "report.md"));
  std::ifstream in(dir_ / "out" / "segment_manifest.json");
  auto m = nlohmann::json::parse(in);
  EXPECT_EQ(m["status"], "failed");
  EXPECT_EQ(m["interior_island_total"], 1);
  EXPECT_EQ(m["ranks"][0]["steps"][0]["first_row"], 2);
}

TEST_F(AnalyzeCommandTest, TheStdoutObjectCountsSegments) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "synthetic_8rank").string(), "-o", (dir_ / "out").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["segment_count"].get<int>(),
            j["step_count"].get<int>() + j["layer_count"].get<int>() + j["block_count"].get<int>());
  EXPECT_GT(j["layer_count"].get<int>(), 0);
}

// Seed 002's input by manifest: the collection step's manifest.json names the root (relative to
// its folder) and whether the capture can be analyzed.
TEST_F(AnalyzeCommandTest, AManifestNamesTheRootAndAStatusOtherThanOkIsRefusedAsRecorded) {
  fs::create_directories(dir_ / "run");
  fs::copy(SamplesDir() / "tp_l0_text", dir_ / "run" / "prof", fs::copy_options::recursive);
  auto write = [&](const std::string& body) {
    std::ofstream(dir_ / "run" / "manifest.json") << body;
    return (dir_ / "run" / "manifest.json").string();
  };
  std::string ok = write(R"({"schema_version": 1, "analysis_status": "ok", "remote_profile_root": "prof",)"
                         R"( "execution_id": "e42", "host": "node7"})");
  auto r = RunCli({"analyze", "--format", "json", "--manifest", ok, "-o", (dir_ / "out").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["collection_manifest"]["execution_id"], "e42");
  EXPECT_TRUE(fs::exists(dir_ / "out" / "report.md"));

  std::string missing = write(R"({"analysis_status": "missing_kernel_details", "remote_profile_root": "prof"})");
  auto refused = RunCli({"analyze", "--format", "json", "--manifest", missing, "-o", (dir_ / "out2").string()});
  EXPECT_EQ(refused.exit_code, kExitBadInput);
  EXPECT_THAT(refused.err, HasSubstr("analysis_status \"missing_kernel_details\""));
  EXPECT_FALSE(fs::exists(dir_ / "out2" / "report.md"));

  std::string remote = write(R"({"analysis_status": "ok", "remote_profile_root": "/nowhere/prof", "host": "node7"})");
  auto elsewhere = RunCli({"analyze", "--format", "json", "--manifest", remote, "-o", (dir_ / "out3").string()});
  EXPECT_EQ(elsewhere.exit_code, kExitBadInput);
  EXPECT_THAT(elsewhere.err, HasSubstr("recorded on node7"));

  auto both = RunCli({"analyze", "--format", "json", (dir_ / "run" / "prof").string(), "--manifest", ok, "-o", (dir_ / "out4").string()});
  EXPECT_EQ(both.exit_code, kExitBadInput);
  EXPECT_THAT(both.err, HasSubstr("excludes"));
}

TEST_F(AnalyzeCommandTest, MissingRootIsExit2NamingIt) {
  auto r = RunCli({"analyze", "--format", "json", (dir_ / "nope").string(), "-o", (dir_ / "out").string()});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr((dir_ / "nope").string()));
}

TEST_F(AnalyzeCommandTest, MissingOutputIsUsageError) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "tp_l0_text").string()});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("--output"));
}

TEST_F(AnalyzeCommandTest, BadModeIsUsageError) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "tp_l0_text").string(), "-o", dir_.string(), "--mode", "slow"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("--mode"));
}

TEST_F(AnalyzeCommandTest, UnknownStageIsUsageErrorListingTheStages) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "tp_l0_text").string(), "-o", dir_.string(), "--to-stage", "bogus"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("--to-stage bogus: unknown stage"));
  EXPECT_THAT(r.err, HasSubstr("cross_rank"));
}

TEST_F(AnalyzeCommandTest, OnlyStageExcludesFromStage) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "tp_l0_text").string(), "-o", dir_.string(), "--only-stage", "segment",
                   "--from-stage", "normalize"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("--only-stage"));
}

TEST_F(AnalyzeCommandTest, FromAfterToIsUsageError) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "tp_l0_text").string(), "-o", dir_.string(), "--from-stage",
                   "summarize", "--to-stage", "segment"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("comes after"));
}

TEST_F(AnalyzeCommandTest, ToStageStopsBeforeTheReport) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "tp_l0_text").string(), "-o", dir_.string(), "--to-stage", "segment"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["report_md"].is_null());
  EXPECT_FALSE(j.contains("analysis_summary"));
  EXPECT_FALSE(fs::exists(dir_ / "report.md"));
}

TEST_F(AnalyzeCommandTest, FromStageReusesTheEarlierStagesInOut) {
  std::string root = (SamplesDir() / "tp_l1_text").string();
  ASSERT_EQ(RunCli({"analyze", "--format", "json", root, "-o", dir_.string(), "--keep-stages"}).exit_code, 0);
  fs::remove(dir_ / "report.md");
  auto r = RunCli({"analyze", "--format", "json", root, "-o", dir_.string(), "--from-stage", "summarize", "--progress", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto first = nlohmann::json::parse(r.err.substr(0, r.err.find('\n')));
  EXPECT_EQ(first["stage"], "discover");
  EXPECT_EQ(first["status"], "loaded");
  EXPECT_TRUE(fs::exists(dir_ / "report.md"));
}

TEST_F(AnalyzeCommandTest, FromStageReportsReloadedStagesAsLoadedOnStdoutAndInTheManifest) {
  std::string root = (SamplesDir() / "tp_l1_text").string();
  ASSERT_EQ(RunCli({"analyze", "--format", "json", root, "-o", dir_.string(), "--keep-stages"}).exit_code, 0);
  auto r = RunCli({"analyze", "--format", "json", root, "-o", dir_.string(), "--from-stage", "summarize"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto out = nlohmann::json::parse(r.out);
  auto manifest = nlohmann::json::parse(std::ifstream(dir_ / "manifest.json"));
  for (const auto& stages : {out["stage_timings"], manifest["stages"]}) {
    std::map<std::string, std::string> status;
    for (const auto& s : stages) status[s["stage"].get<std::string>()] = s["status"].get<std::string>();
    EXPECT_EQ(status["discover"], "loaded");
    EXPECT_EQ(status["classify"], "loaded");
    EXPECT_EQ(status["summarize"], "ran");
  }
}

TEST_F(AnalyzeCommandTest, FromStageWithOtherRootsIsRefused) {
  std::string made = (SamplesDir() / "tp_l1_text").string();
  ASSERT_EQ(RunCli({"analyze", "--format", "json", made, "-o", dir_.string(), "--keep-stages"}).exit_code, 0);
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "tp_l0_text").string(), "-o", dir_.string(), "--from-stage", "summarize"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr(dir_.string()));
  EXPECT_THAT(r.err, HasSubstr(made));
  EXPECT_THAT(r.err, HasSubstr("pass the same roots"));
}

TEST_F(AnalyzeCommandTest, OnlyStageReportRewritesTheReportFromSavedStages) {
  std::string root = (SamplesDir() / "tp_l0_text").string();
  ASSERT_EQ(RunCli({"analyze", "--format", "json", root, "-o", dir_.string(), "--keep-stages"}).exit_code, 0);
  fs::remove(dir_ / "report.html");
  auto r = RunCli({"analyze", "--format", "json", root, "-o", dir_.string(), "--only-stage", "report"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "report.html"));
}

TEST_F(AnalyzeCommandTest, FromStageWithoutAnEarlierRunNamesWhatIsMissing) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "tp_l0_text").string(), "-o", dir_.string(), "--from-stage", "summarize"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("stages"));
  EXPECT_THAT(r.err, HasSubstr("--keep-stages"));
}

TEST_F(AnalyzeCommandTest, StageFilesAreWrittenOnlyWithKeepStages) {
  std::string root = (SamplesDir() / "tp_l0_text").string();
  ASSERT_EQ(RunCli({"analyze", "--format", "json", root, "-o", dir_.string()}).exit_code, 0);
  EXPECT_FALSE(fs::exists(dir_ / "stages"));
  EXPECT_TRUE(fs::exists(dir_ / "report.md"));
  ASSERT_EQ(RunCli({"analyze", "--format", "json", root, "-o", dir_.string(), "--keep-stages"}).exit_code, 0);
  EXPECT_TRUE(fs::exists(dir_ / "stages" / "normalize.bin"));
}

TEST_F(AnalyzeCommandTest, FromAnEarlierRunWithoutKeepStagesSaysToKeepThem) {
  std::string root = (SamplesDir() / "tp_l0_text").string();
  ASSERT_EQ(RunCli({"analyze", "--format", "json", root, "-o", dir_.string()}).exit_code, 0);
  auto r = RunCli({"analyze", "--format", "json", root, "-o", dir_.string(), "--only-stage", "report"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("--keep-stages"));
}

std::string ReadText(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_F(AnalyzeCommandTest, HardwareModelGivesMfuAndTheRooflineSection) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "st_l2").string(), "-o", dir_.string(), "--hardware-model",
                   "Ascend910B2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string md = ReadText(dir_ / "report.md");
  EXPECT_THAT(md, HasSubstr("## 10. Model Fingerprint, Hardware Peaks And Roofline"));
  EXPECT_THAT(md, HasSubstr("Hardware **Ascend910B2** from --hardware-model Ascend910B2"));
  EXPECT_THAT(md, HasSubstr("theoretical bf16 cube peak"));
  EXPECT_THAT(ReadText(dir_ / "hardware_theoretical_peaks.csv"), HasSubstr("Ascend910B2,cube_bf16_tflops,353.89"));
  auto s = nlohmann::json::parse(ReadText(dir_ / "analysis_summary.json"));
  EXPECT_EQ(s["efficiency"]["hardware"]["name"], "Ascend910B2");
  EXPECT_EQ(s["efficiency"]["mfu_dtype"], "bf16");
  EXPECT_GT(s["efficiency"]["mfu"][0]["mfu"].get<double>(), 0);
  EXPECT_EQ(s["efficiency"]["model_fingerprint"]["config"]["hidden_size"], "1024");
}

TEST_F(AnalyzeCommandTest, WithoutHardwareTheReportSaysWhichOptionGivesIt) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "tp_l1_db").string(), "-o", dir_.string(), "--no-cann-hardware-scan"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string md = ReadText(dir_ / "report.md");
  EXPECT_THAT(md, HasSubstr("No hardware peaks: no --hardware-model / --hardware-profile; the capture names its "
                            "device 'Ascend910B', not one part of the table"));
  EXPECT_THAT(md, HasSubstr("--no-cann-hardware-scan"));
  auto s = nlohmann::json::parse(ReadText(dir_ / "analysis_summary.json"));
  EXPECT_TRUE(s["efficiency"]["hardware"].is_null());
  EXPECT_TRUE(s["efficiency"]["mfu"][0]["mfu"].is_null());
}

TEST_F(AnalyzeCommandTest, UnknownHardwareModelFailsBeforeTheAnalysisListingTheParts) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "tp_l0_text").string(), "-o", dir_.string(), "--hardware-model",
                   "Ascend999"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("--hardware-model Ascend999: not in the bundled table; known: Ascend910B1"));
  EXPECT_FALSE(fs::exists(dir_ / "stages"));  // refused before any stage ran
}

TEST_F(AnalyzeCommandTest, HardwareModelAndProfileTogetherIsUsageError) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "tp_l0_text").string(), "-o", dir_.string(), "--hardware-model",
                   "Ascend910B2", "--hardware-profile", "x.json"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("excludes"));
}

TEST_F(AnalyzeCommandTest, MissingModelConfigIsExit2NamingTheFile) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "tp_l0_text").string(), "-o", dir_.string(), "--model-config",
                   (dir_ / "config.json").string()});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("config.json"));
}

TEST_F(AnalyzeCommandTest, KernelFocusWritesItsCallsAndFeedsLatency) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "synthetic_8rank").string(), "-o", dir_.string(), "--kernel",
                   "FusedInferAttentionScore"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kernel_focus"]["calls_per_rank"]["3"], 15);
  for (const char* f : {"kernel_calls.csv", "kernel_iterations.csv", "kernel_latency.csv"})
    EXPECT_TRUE(fs::exists(dir_ / f)) << f;
  EXPECT_THAT(ReadText(dir_ / "report.md"), HasSubstr("### Kernel focus: `FusedInferAttentionScore`"));
  auto lat = RunCli({"latency", (dir_ / "kernel_latency.csv").string(), "--format", "json"});
  ASSERT_EQ(lat.exit_code, 0) << lat.err;
  EXPECT_THAT(lat.out, HasSubstr("\"measurement\""));
}

TEST_F(AnalyzeCommandTest, KernelFocusWithoutAMatchIsExit2ListingKernels) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "synthetic_8rank").string(), "-o", dir_.string(), "--kernel", "Nope"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("--kernel Nope: no kernel name or type matches it; the heaviest kernels are"));
}

TEST_F(AnalyzeCommandTest, HelpDescribesTheFlags) {
  auto r = RunCli({"analyze", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* flag : {"--mode", "--rules", "--from-stage", "--to-stage", "--only-stage", "--progress",
                           "--hardware-model", "--hardware-profile", "--model-config", "--no-cann-hardware-scan"})
    EXPECT_THAT(r.out, HasSubstr(flag));
}

}  // namespace
TEST_F(AnalyzeCommandTest, AModelConfigWithOtherLayersThanTheCaptureIsAMismatchNotConsistent) {
  // The 8-rank sample has 3 layers a step; a config of 61 must not read "consistent".
  for (auto [layers, status] : {std::pair{61, "mismatch"}, std::pair{3, "consistent"}}) {
    fs::path cfg = dir_ / ("config_" + std::to_string(layers) + ".json");
    std::ofstream(cfg) << "{\"num_hidden_layers\": " << layers << "}";
    fs::path out = dir_ / ("out_" + std::to_string(layers));
    auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "synthetic_8rank").string(), "-o", out.string(), "--model-config",
                     cfg.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto v = nlohmann::json::parse(r.out)["analysis_summary"]["layer_validation"];
    EXPECT_EQ(v["expected_layers"].get<double>(), layers);
    EXPECT_EQ(v["status"], status) << layers;
  }
}

TEST_F(AnalyzeCommandTest, AModelIdOfTheCatalogIsItsConfigWithoutANetwork) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "synthetic_8rank").string(), "-o", dir_.string(),
                   "--model-id", "DeepSeek-V3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto v = nlohmann::json::parse(r.out)["analysis_summary"]["layer_validation"];
  EXPECT_EQ(v["expected_layers"].get<double>(), 61);
  EXPECT_EQ(v["expected_source"], "--model-id deepseek-ai/DeepSeek-V3");
  EXPECT_EQ(v["status"], "mismatch") << "3 layers a step are not DeepSeek-V3's 61";
  EXPECT_THAT(ReadText(dir_ / "report.md"), HasSubstr("`--model-id deepseek-ai/DeepSeek-V3` is a cross-check"));
}

TEST_F(AnalyzeCommandTest, AModelIdTheCatalogLacksIsExit2WithTheModelsItHolds) {
  auto r = RunCli({"analyze", "--format", "json", (SamplesDir() / "synthetic_8rank").string(), "-o", dir_.string(),
                   "--model-id", "Qwen2.5-99B"});
  EXPECT_EQ(r.exit_code, kExitBadInput);
  EXPECT_THAT(r.err, HasSubstr("--model-id Qwen2.5-99B: not in the model catalog"));
  EXPECT_THAT(r.err, HasSubstr("pass --model-config config.json"));
  EXPECT_THAT(r.err, HasSubstr("Qwen/Qwen2.5-7B"));
}

}  // namespace optrace::cli
