// Issue 6's done-when on the un-instrumented moe example (made from examples/ at build time):
// the plan reaches the density target on both core types, instrument's output passes lint, and
// the emulated run of that output (built by tests/source/plan/CMakeLists.txt) records the planned labels.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/file_io.h"
#include "optrace/format.h"
#include "source/lint/lint.h"
#include "source/plan/instrument.h"
#include "source/plan/plan.h"
#include "source/scan/scanner.h"
#include "testing/binary_runner.h"
#include "testing/temp_tree.h"

namespace optrace::source {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Made at build time from examples/moe_dispatch_combine (cmake/make_uninstrumented.py, src/bundle/CMakeLists.txt).
const fs::path kExample = fs::path(OPTRACE_UNINSTRUMENTED_EXAMPLE_DIR);

Plan ExamplePlan(const fs::path& dir = kExample) {
  PlanOptions o;
  o.op_dir = dir;
  Result<Plan> p = BuildPlan(o);
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? std::move(*p) : Plan{};
}

// A copy of the un-instrumented example in a temporary directory.
class MoeCopyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& e : fs::recursive_directory_iterator(kExample)) {
      if (!e.is_regular_file()) continue;
      std::ifstream in(e.path(), std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      tree_.Write(fs::relative(e.path(), kExample).generic_string(), ss.str());
    }
  }
  void InstrumentCopy() {
    Result<InstrumentResult> r = Instrument(ExamplePlan(tree_.path()));
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_TRUE(r->warnings.empty());
    for (const FileChange& c : r->changes) ASSERT_TRUE(WriteFileAtomic(c.path, c.after).ok());
  }
  testing::TempTree tree_;
};

TEST(MoeExamplePlanTest, ReachesTheDensityTargetOnBothCoreTypes) {
  Plan plan = ExamplePlan();
  ASSERT_EQ(plan.kernels.size(), 1u);
  const PlanKernel& k = plan.kernels[0];
  EXPECT_TRUE(k.split);
  EXPECT_GE(k.labels.aic.size(), static_cast<size_t>(kTargetMin));
  EXPECT_LE(k.labels.aic.size(), static_cast<size_t>(kTargetMax));
  EXPECT_GE(k.labels.aiv.size(), static_cast<size_t>(kTargetMin));
  EXPECT_LE(k.labels.aiv.size(), static_cast<size_t>(kTargetMax));
  EXPECT_LE(k.max_depth, kMaxLevels);
  EXPECT_TRUE(plan.warnings.empty()) << plan.warnings.front();
}

TEST(MoeExamplePlanTest, TextPlanMatchesGolden) {
  std::string text = FormatPlanText(ExamplePlan());
  std::string root = kExample.lexically_normal().string();
  for (size_t p = text.find(root); p != std::string::npos; p = text.find(root)) text.replace(p, root.size(), "<op>");
  const fs::path golden = fs::path(OPTRACE_TEST_DATA_DIR) / "plan" / "moe_plan.txt";
  if (std::getenv("OPTRACE_UPDATE_GOLDENS")) {
    ASSERT_TRUE(WriteFileAtomic(golden, text).ok());
  }
  Result<std::string> want = ReadFileToString(golden);
  ASSERT_TRUE(want.ok()) << "missing golden; run with OPTRACE_UPDATE_GOLDENS=1";
  EXPECT_EQ(text, *want);
}

TEST(MoeExamplePlanTest, AivRolesAreFoundFromTheRoleSwitch) {
  Plan plan = ExamplePlan();
  std::map<std::string, std::set<std::string>> roles;
  for (const PlanSite& s : plan.sites) roles[s.name] = s.roles;
  EXPECT_EQ(roles["MoeDispatch::SendTokens"], std::set<std::string>{"send"});
  EXPECT_EQ(roles["MoeDispatch::ReceiveTokens"], std::set<std::string>{"recv"});
  EXPECT_EQ(roles["MoeDispatch::ComputeLocal"], std::set<std::string>{"compute"});
  EXPECT_EQ(roles["MoeCombine::ReceiveAndReduce"], std::set<std::string>{"recv"});
}

TEST(MoeExamplePlanTest, HandInstrumentedExampleKeepsItsPointsAndAddsNothing) {
  Plan plan = ExamplePlan(fs::path(OPTRACE_SOURCE_DIR) / "examples" / "moe_dispatch_combine");
  for (const PlanSite& s : plan.sites) EXPECT_FALSE(Inserts(s.decision)) << s.name << ": " << s.reason;
  EXPECT_EQ(plan.sites[static_cast<size_t>(plan.kernels[0].root.site)].decision, Decision::kExisting);
}

TEST(MoeExamplePlanTest, JsonPlanReadsBackWithTheSameSites) {
  Plan plan = ExamplePlan();
  Result<Plan> back = PlanFromJson(PlanToJson(plan), "plan.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->sites.size(), plan.sites.size());
  for (size_t i = 0; i < plan.sites.size(); ++i) {
    EXPECT_EQ(back->sites[i].label, plan.sites[i].label);
    EXPECT_EQ(back->sites[i].line, plan.sites[i].line);
    EXPECT_EQ(back->sites[i].kind, plan.sites[i].kind);
    EXPECT_EQ(back->sites[i].index, plan.sites[i].index);
  }
}

TEST_F(MoeCopyTest, InstrumentedExamplePassesLintAtTheTargetDensity) {
  InstrumentCopy();
  LintOptions o;
  o.paths = {tree_.path("op_kernel")};
  Result<LintReport> r = RunLint(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->Count(Severity::kError), 0u) << FormatLintText(*r);
  EXPECT_EQ(r->Count(Severity::kWarning), 0u) << FormatLintText(*r);
  EXPECT_EQ(r->density.aic_labels.size(), 15u);
  EXPECT_EQ(r->density.aiv_labels.size(), 20u);
}

TEST_F(MoeCopyTest, InstrumentThenRevertRestoresEveryFileByteForByte) {
  InstrumentCopy();
  Result<InstrumentResult> r = RevertInstrumentation(tree_.path());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->changes.size(), 5u);
  for (const FileChange& c : r->changes) ASSERT_TRUE(WriteFileAtomic(c.path, c.after).ok());
  for (const auto& e : fs::recursive_directory_iterator(kExample)) {
    if (!e.is_regular_file()) continue;
    std::string rel = fs::relative(e.path(), kExample).generic_string();
    Result<std::string> want = ReadFileToString(e.path());
    EXPECT_EQ(tree_.Read(rel), *want) << rel;
  }
}

// Labels of the events in rank<N>.bin dumps (buffer format v1), per core kind, with B and E.
std::map<format::CoreKind, std::map<std::string, std::set<char>>> DecodeLabels(const fs::path& dir,
                                                                               const PointMap& map, int ranks) {
  std::map<format::CoreKind, std::map<std::string, std::set<char>>> out;
  for (int r = 0; r < ranks; ++r) {
    Result<std::string> bytes = ReadFileToString(dir / ("rank" + std::to_string(r) + ".bin"));
    EXPECT_TRUE(bytes.ok());
    if (!bytes.ok()) continue;
    std::vector<uint64_t> w(bytes->size() / 8);
    std::memcpy(w.data(), bytes->data(), w.size() * 8);
    uint32_t slot_words = 0;
    for (size_t at = 0; at + format::kHeaderWords <= w.size(); at += slot_words) {
      if (format::MagicOf(w[at]) != format::kMagic) {
        if (slot_words == 0) break;
        continue;
      }
      slot_words = format::SlotWordsOf(w[at + format::kWordCapacity]);
      EXPECT_GT(slot_words, format::kHeaderWords);
      if (slot_words <= format::kHeaderWords) break;
      format::CoreKind kind = format::CoreKindOf(w[at + format::kWordCore]);
      uint64_t n = w[at + format::kWordEventCount];
      EXPECT_EQ(w[at + format::kWordDropped], 0u);
      for (uint64_t e = 0; e < n; ++e) {
        uint32_t id = format::PointIdOf(w[at + format::kHeaderWords + e * format::kWordsPerEvent]);
        auto p = map.points.find(id);
        EXPECT_NE(p, map.points.end()) << "point id " << id << " not in the scanned map";
        if (p != map.points.end()) out[kind][p->second.label].insert(p->second.event_type);
      }
    }
  }
  return out;
}

TEST(MoeExampleRunTest, EmulatedRunOfTheInstrumentedExampleRecordsThePlannedLabels) {
  testing::TempTree out;
  std::string cmd = std::string(OPTRACE_PLAN_MOE_RUN) + " " + out.path();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  // The map comes from the sources instrument wrote at build time, as `optrace scan` makes it.
  Result<ScanResult> scan = ScanSources({fs::path(OPTRACE_PLAN_INSTRUMENTED_DIR) / "op_kernel"}, {});
  ASSERT_TRUE(scan.ok()) << scan.status().message();
  ASSERT_FALSE(scan->HasErrors());
  auto seen = DecodeLabels(out.path(), scan->map, 2);
  Plan plan = ExamplePlan();
  std::set<std::string> aic, aiv;
  for (const auto& [label, types] : seen[format::CoreKind::kAic]) {
    aic.insert(label);
    EXPECT_EQ(types, (std::set<char>{'B', 'E'})) << label;
  }
  for (const auto& [label, types] : seen[format::CoreKind::kAiv]) {
    aiv.insert(label);
    EXPECT_EQ(types, (std::set<char>{'B', 'E'})) << label;
  }
  const CoreLabels& labels = plan.kernels[0].labels;
  EXPECT_EQ(aic, std::set<std::string>(labels.aic.begin(), labels.aic.end()));
  EXPECT_EQ(aiv, std::set<std::string>(labels.aiv.begin(), labels.aiv.end()));

  // The demo's path: dumps + the instrumented sources -> optrace collect -> Chrome trace.
  std::string trace = out.path("trace.json");
  auto r = testing::RunBinary({"collect", out.path(), "--source", std::string(OPTRACE_PLAN_INSTRUMENTED_DIR) + "/op_kernel",
                            "-o", trace, "--strict"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  Result<std::string> text = ReadFileToString(trace);
  ASSERT_TRUE(text.ok());
  nlohmann::json j = nlohmann::json::parse(*text);
  std::map<std::pair<int, int>, std::string> threads;  // (pid, tid) -> "AIC 0"
  std::vector<std::pair<std::pair<int, int>, std::string>> complete;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name")
      threads[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"].get<std::string>();
    if (e["ph"] == "X") complete.push_back({{e["pid"].get<int>(), e["tid"].get<int>()}, e["name"].get<std::string>()});
  }
  std::set<std::string> trace_aic, trace_aiv;
  for (const auto& [thread, name] : complete) {
    const std::string& t = threads[thread];
    (t.starts_with("AIC") ? trace_aic : trace_aiv).insert(name);
  }
  EXPECT_EQ(trace_aic, aic);
  EXPECT_EQ(trace_aiv, aiv);
}

}  // namespace
}  // namespace optrace::source
