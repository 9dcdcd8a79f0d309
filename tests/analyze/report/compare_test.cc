#include "analyze/report/compare.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "analyze/pipeline/pipeline.h"
#include "analyze/report/analyze_run.h"
#include "analyze/analyze_test_util.h"

namespace optrace::analyze::report {
namespace {

namespace fs = std::filesystem;
using testing::Sample;
using testing::TempDir;

// A copy of the 8-rank sample with every call of `op` `factor` times longer (the fields before the
// quoted shapes hold no commas, so the split is exact for Name and Duration).
fs::path SlowerCopy(const TempDir& tmp, const std::string& op, double factor, const std::string& rename = "",
                    const std::string& dir = "b") {
  fs::path root = tmp.path() / dir;
  fs::copy(Sample("synthetic_8rank"), root, fs::copy_options::recursive);
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().filename() != "kernel_details.csv") continue;
    std::ifstream in(e.path());
    std::stringstream out;
    std::string line;
    bool header = true;
    while (std::getline(in, line)) {
      if (!header) {
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string x;
        while (std::getline(ss, x, ',')) f.push_back(x);
        if (f.size() > 9 && f[4] == op) {
          f[9] = fmt::format("{:.3f}", std::stod(f[9]) * factor);
          if (!rename.empty()) f[4] = rename;
        }
        line.clear();
        for (size_t i = 0; i < f.size(); ++i) line += (i ? "," : "") + f[i];
      }
      header = false;
      out << line << "\n";
    }
    in.close();
    std::ofstream(e.path()) << out.str();
  }
  return root;
}

TEST(CompareTest, AnOperatorMadeSlowerIsTheOnlySignificantChange) {
  TempDir tmp;
  CompareOptions opt;
  opt.a = Sample("synthetic_8rank");
  opt.b = SlowerCopy(tmp, "SwiGlu", 1.3);
  opt.out_dir = tmp.path() / "cmp";
  auto r = RunCompare(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(r->rows.empty());
  EXPECT_TRUE(r->rows[0].significant);
  EXPECT_EQ(r->rows[0].key, "SwiGlu (SwiGlu, aiv)");
  EXPECT_NEAR(r->rows[0].relative, 0.30, 0.001);
  for (size_t i = 1; i < r->rows.size(); ++i) EXPECT_FALSE(r->rows[i].significant) << r->rows[i].kind << " " << r->rows[i].key;
  EXPECT_TRUE(fs::exists(tmp.path() / "cmp" / "compare.md"));
  EXPECT_TRUE(fs::exists(tmp.path() / "cmp" / "compare.json"));
  std::ifstream html(tmp.path() / "cmp" / "compare.html");
  std::string page((std::istreambuf_iterator<char>(html)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("<tr class=\"sig-up\"><td>operator</td><td>SwiGlu (SwiGlu, aiv)</td>"), std::string::npos);
}

// compare.html's #phase-diff: the slower operator is the first bar, red, to the right of the axis.
TEST(CompareTest, ThePhaseDiffBarsPutTheSignificantChangeFirst) {
  TempDir tmp;
  CompareOptions opt;
  opt.a = Sample("synthetic_8rank");
  opt.b = SlowerCopy(tmp, "SwiGlu", 1.3);
  opt.out_dir = tmp.path() / "cmp";
  ASSERT_TRUE(RunCompare(opt).ok());
  std::ifstream html(tmp.path() / "cmp" / "compare.html");
  std::string page((std::istreambuf_iterator<char>(html)), std::istreambuf_iterator<char>());
  size_t svg = page.find("<svg id=\"phase-diff\"");
  ASSERT_NE(svg, std::string::npos);
  size_t first = page.find("<g class=\"diff-bar", svg);
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(page.compare(first, 24, "<g class=\"diff-bar sig\">"), 0) << page.substr(first, 200);
  EXPECT_NE(page.find("SwiGlu (SwiGlu, aiv): +30.0%", first), std::string::npos);
  EXPECT_NE(page.find("fill=\"#c62828\"", first), std::string::npos);
}

// Two (rank, step) samples a side give a standard error that is itself noise: never significant,
// however large the change; --min-samples lowers the bar when the user accepts that.
TEST(CompareTest, TooFewSamplesAreNeverSignificant) {
  TempDir tmp;
  CompareOptions opt;
  opt.a = Sample("synthetic_8rank");
  opt.b = SlowerCopy(tmp, "SwiGlu", 1.3);
  opt.min_samples = 41;  // the sample has 8 ranks x 5 steps = 40 per operator
  auto r = RunCompare(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const CompareRow& row : r->rows) EXPECT_FALSE(row.significant) << row.key;
  opt.min_samples = 40;
  r = RunCompare(opt);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->rows[0].significant);
}

TEST(CompareTest, HtmlInOperatorNamesIsEscapedInCompareMd) {
  // Issue 29.14: keys are operator names from the capture; a viewer rendering inline HTML ran them.
  TempDir tmp;
  const std::string evil = "<img src=x onerror=alert(1)>&amp|x";
  CompareOptions opt;
  opt.a = SlowerCopy(tmp, "SwiGlu", 1.0, evil, "a");
  opt.b = SlowerCopy(tmp, "SwiGlu", 1.3, evil, "b");
  opt.out_dir = tmp.path() / "cmp";
  auto r = RunCompare(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::ifstream in(r->markdown);
  std::stringstream md;
  md << in.rdbuf();
  EXPECT_EQ(md.str().find("<img"), std::string::npos);
  EXPECT_NE(md.str().find("&lt;img src=x onerror=alert(1)&gt;&amp;amp\\|x"), std::string::npos) << md.str().substr(0, 2000);
}

// Every rank folder of a copy of the 8-rank sample gets api_statistic.csv with `rows` (a text
// export's host API table; db exports have none).
fs::path WithApiStatistic(const TempDir& tmp, const std::string& dir, const std::string& rows) {
  fs::path root = SlowerCopy(tmp, "SwiGlu", 1.0, "", dir);
  for (const auto& e : fs::directory_iterator(root))
    if (fs::is_directory(e.path() / "ASCEND_PROFILER_OUTPUT"))
      std::ofstream(e.path() / "ASCEND_PROFILER_OUTPUT" / "api_statistic.csv")
          << "Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n" << rows;
  return root;
}

TEST(CompareTest, AFindingTheOtherExportCannotComputeIsNotComparableNotGone) {
  // Issue 52.5: a text export against a db export of one job. host_op_compile reads
  // api_statistic.csv, which only text exports write: against B without it, it is not "gone".
  TempDir tmp;
  CompareOptions opt;
  opt.a = WithApiStatistic(tmp, "a", "acl,aclopCompileAndExecute,14049.23,19,739.4,63.3,1773.7,4e5\n");
  opt.b = SlowerCopy(tmp, "SwiGlu", 1.0, "", "b");
  auto r = RunCompare(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const std::string& k : r->disappeared) EXPECT_EQ(k.find("host_op_compile"), std::string::npos) << k;
  ASSERT_FALSE(r->not_comparable.empty());
  EXPECT_NE(r->not_comparable[0].find("host_op_compile (rank "), std::string::npos) << r->not_comparable[0];
  EXPECT_NE(r->not_comparable[0].find("B has no api_statistic.csv"), std::string::npos) << r->not_comparable[0];
}

TEST(CompareTest, AFindingBothExportsCanComputeThatStopsIsGone) {
  TempDir tmp;
  CompareOptions opt;
  opt.a = WithApiStatistic(tmp, "a", "acl,aclopCompileAndExecute,14049.23,19,739.4,63.3,1773.7,4e5\n");
  opt.b = WithApiStatistic(tmp, "b", "acl,aclopCompileAndExecute,100.0,1,100,100,100,0\n");
  auto r = RunCompare(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->not_comparable.empty());
  size_t gone = 0;  // one finding for the ranks it was seen on, keyed by the worst
  for (const std::string& k : r->disappeared) gone += k.find("host_op_compile (rank ") == 0;
  EXPECT_EQ(gone, 1u);
}

TEST(CompareTest, ARunComparedWithItselfHasNoSignificantChange) {
  CompareOptions opt;
  opt.a = opt.b = Sample("synthetic_8rank");
  auto r = RunCompare(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const CompareRow& row : r->rows) EXPECT_FALSE(row.significant) << row.key;
  EXPECT_TRUE(r->appeared.empty());
  EXPECT_TRUE(r->disappeared.empty());
}

TEST(CompareTest, AnalyzeOutputDirectoriesCompareLikeTheirRoots) {
  TempDir tmp;
  fs::path b = SlowerCopy(tmp, "SwiGlu", 1.3);
  for (auto [root, out] : {std::pair{Sample("synthetic_8rank"), tmp.path() / "outA"}, std::pair{b, tmp.path() / "outB"}}) {
    AnalyzeOptions opt;
    opt.roots = {root};
    opt.out_dir = out;
    ASSERT_TRUE(RunAnalysis(opt).ok());
  }
  CompareOptions opt;
  opt.a = tmp.path() / "outA";
  opt.b = tmp.path() / "outB";
  auto r = RunCompare(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->rows[0].key, "SwiGlu (SwiGlu, aiv)");
  EXPECT_TRUE(r->rows[0].significant);
}

TEST(CompareTest, CapturesOfDifferentJobsAreRefusedWithTheReason) {
  CompareOptions opt;
  opt.a = Sample("synthetic_8rank");
  opt.b = Sample("tp_l1_text");
  auto r = RunCompare(opt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("8 ranks"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("same job"), std::string::npos);
}

TEST(CompareTest, Level0AndLevel1OfOneJobCompareByOperatorName) {
  // Level0 writes no operator type (N/A) and no core; Level1 of the same job does (issue 52).
  CompareOptions opt;
  opt.a = Sample("tp_l0_text");
  opt.b = Sample("tp_l1_text");
  auto r = RunCompare(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  int both = 0;
  for (const CompareRow& row : r->rows) both += row.kind == "operator" && row.samples_a > 0 && row.samples_b > 0;
  EXPECT_GT(both, 50);
  bool typed = false;  // the key carries the type Level1 states
  for (const CompareRow& row : r->rows) typed |= row.key == "aclnnMm_MatMulCommon_MatMulV2 (MatMulV2, aic)";
  EXPECT_TRUE(typed);
}

TEST(CompareTest, TextAndDbExportsOfOneJobCompare) {
  CompareOptions opt;
  opt.a = Sample("tp_l1_text");
  opt.b = Sample("tp_l1_db");
  auto r = RunCompare(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  int both = 0;
  for (const CompareRow& row : r->rows) both += row.kind == "operator" && row.samples_a > 0 && row.samples_b > 0;
  EXPECT_GT(both, 50);
}

TEST(CompareTest, AnAnalyzeOutputWithoutStageFilesIsAnalyzedAgainFromItsRoots) {
  TempDir tmp;
  fs::path b = SlowerCopy(tmp, "SwiGlu", 1.3);
  for (auto [root, out] : {std::pair{Sample("synthetic_8rank"), tmp.path() / "outA"}, std::pair{b, tmp.path() / "outB"}}) {
    AnalyzeRunOptions opt;  // what `optrace analyze ROOT -o OUT` (no --keep-stages) runs
    opt.analyze.roots = {root};
    opt.analyze.out_dir = out;
    opt.analyze.to = Stage::kReport;
    opt.analyze.persist_stages = false;
    ASSERT_TRUE(RunAnalyzeAndReport(opt).ok());
    ASSERT_TRUE(fs::exists(out / "analysis_summary.json"));
    ASSERT_FALSE(fs::exists(out / "stages" / "diagnose.bin"));
  }
  CompareOptions opt;
  opt.a = tmp.path() / "outA";
  opt.b = tmp.path() / "outB";
  auto r = RunCompare(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->rows[0].key, "SwiGlu (SwiGlu, aiv)");
  ASSERT_EQ(r->notes.size(), 2u);
  EXPECT_NE(r->notes[0].find("analyzed again from its root(s)"), std::string::npos) << r->notes[0];
  fs::remove_all(b);  // its root gone: refused with what to do
  auto gone = RunCompare(opt);
  ASSERT_FALSE(gone.ok());
  EXPECT_NE(gone.status().message().find("--keep-stages"), std::string::npos) << gone.status().message();
}

TEST(CompareTest, TwoVariantsOfOneKernelCompareByStep) {
  // Two single-kernel runs with different kernel names: no operator in common, still comparable.
  TempDir tmp;
  for (auto [dir, name, dur] : {std::tuple{"a", "add_v1", 100}, std::tuple{"b", "add_v2", 80}}) {
    std::string csv = "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n";
    for (int step = 1; step <= 4; ++step)
      csv += fmt::format("{},{},Add,AI_VECTOR_CORE,{}.000,{}\n", step, name, step * 1000, dur + step);
    tmp.Write(std::string(dir) + "/rank0_ascend_pt/profiler_info_0.json", "{}");
    tmp.Write(std::string(dir) + "/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", csv);
  }
  CompareOptions opt;
  opt.a = tmp.path() / "a";
  opt.b = tmp.path() / "b";
  auto r = RunCompare(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(r->notes.empty());
  EXPECT_NE(r->notes.back().find("no operator in common"), std::string::npos);
  bool rank_row = false;
  for (const CompareRow& row : r->rows)
    if (row.kind == "rank") {
      rank_row = true;
      EXPECT_LT(row.delta, 0);
    }
  EXPECT_TRUE(rank_row);
}

}  // namespace
}  // namespace optrace::analyze::report
