// The example operator's instrumentation meets seed 000's rules on what it actually records:
// >= 15 distinct labels per core type, root `processing`, balanced and nested B/E per core,
// depth <= 7, indexed expert-group loops, lowercase space-separated names.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "moe_dispatch_combine/runner/moe_runner.h"
#include "optrace/point_id.h"

namespace optrace::examples {
namespace {

// label_id -> label, from the embedded kernel sources.
std::map<uint32_t, std::string> LabelsFromSources() {
  std::map<uint32_t, std::string> labels;
  const std::regex mark(R"re(TRACE_POINT\("([^"]*)",\s*"[BE]"\))re");
  for (const auto& [path, text] : MoeExampleSources()) {
    for (std::sregex_iterator it(text.begin(), text.end(), mark), end; it != end; ++it) {
      const std::string label = (*it)[1];
      labels[LabelId(label.data(), static_cast<uint32_t>(label.size()))] = label;
    }
  }
  return labels;
}

struct Fixture {
  MoeRunResult run;
  std::map<uint32_t, std::string> labels;
  // (rank, slot) -> events in call order
  std::map<std::tuple<int, uint32_t>, std::vector<RecordedEvent>> cores;
};

const Fixture& Get() {
  static const Fixture* fixture = [] {
    auto* f = new Fixture;
    auto r = RunMoeExample({});
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (r.ok()) f->run = std::move(r).value();
    f->labels = LabelsFromSources();
    for (const RecordedEvent& e : f->run.recorded) f->cores[{e.rank, e.slot}].push_back(e);
    return f;
  }();
  return *fixture;
}

TEST(MoeTraceCoverageTest, SourcesAreEmbeddedWithRelativePaths) {
  std::set<std::string> paths;
  for (const auto& [path, text] : MoeExampleSources()) {
    paths.insert(path);
    EXPECT_FALSE(text.empty()) << path;
  }
  EXPECT_TRUE(paths.count("op_kernel/moe_dispatch_combine.cpp"));
  EXPECT_TRUE(paths.count("op_kernel/moe_dispatch_combine_base.h"));
  EXPECT_TRUE(paths.count("op_kernel/dispatch/moe_dispatch.h"));
  EXPECT_TRUE(paths.count("op_kernel/gemm/grouped_matmul.h"));
  EXPECT_TRUE(paths.count("op_kernel/combine/moe_combine.h"));
}

TEST(MoeTraceCoverageTest, EveryRecordedIdIsAMarkInTheSources) {
  const Fixture& f = Get();
  ASSERT_FALSE(f.run.recorded.empty());
  for (const RecordedEvent& e : f.run.recorded) {
    EXPECT_TRUE(f.labels.count(LabelIdOfPoint(e.point_id))) << "point " << e.point_id;
  }
}

TEST(MoeTraceCoverageTest, AtLeastFifteenDistinctLabelsPerCoreType) {
  const Fixture& f = Get();
  std::map<format::CoreKind, std::set<uint32_t>> distinct;
  for (const RecordedEvent& e : f.run.recorded) distinct[e.kind].insert(LabelIdOfPoint(e.point_id));
  EXPECT_GE(distinct[format::CoreKind::kAic].size(), 15u);
  EXPECT_GE(distinct[format::CoreKind::kAiv].size(), 15u);
  EXPECT_LE(distinct[format::CoreKind::kAic].size(), 30u);
  EXPECT_LE(distinct[format::CoreKind::kAiv].size(), 30u);
}

TEST(MoeTraceCoverageTest, EveryCoreOpensAndClosesProcessingAndNestsWithinDepthSeven) {
  const Fixture& f = Get();
  ASSERT_EQ(f.cores.size(), 24u);  // 2 ranks x (4 AIC + 8 AIV)
  const uint32_t root = LabelId("processing", 10);
  for (const auto& [key, events] : f.cores) {
    ASSERT_GE(events.size(), 2u);
    EXPECT_EQ(LabelIdOfPoint(events.front().point_id), root);
    EXPECT_EQ(LabelIdOfPoint(events.back().point_id), root);
    std::vector<const RecordedEvent*> stack;
    size_t max_depth = 0;
    for (const RecordedEvent& e : events) {
      if (!IsEndPoint(e.point_id)) {
        stack.push_back(&e);
        max_depth = std::max(max_depth, stack.size());
        continue;
      }
      ASSERT_FALSE(stack.empty()) << "E without B on slot " << std::get<1>(key);
      EXPECT_EQ(LabelIdOfPoint(stack.back()->point_id), LabelIdOfPoint(e.point_id)) << "misnested E";
      EXPECT_EQ(stack.back()->payload, e.payload) << "B and E of one interval carry the same index";
      EXPECT_GE(e.timestamp, stack.back()->timestamp);
      stack.pop_back();
    }
    EXPECT_TRUE(stack.empty()) << "unclosed B on slot " << std::get<1>(key);
    EXPECT_LE(max_depth, 7u);
  }
}

TEST(MoeTraceCoverageTest, ExpertGroupLoopsCarryTheGroupIndex) {
  const Fixture& f = Get();
  std::set<uint32_t> gemm_groups, gather_groups;
  for (const RecordedEvent& e : f.run.recorded) {
    const std::string& label = f.labels.at(LabelIdOfPoint(e.point_id));
    if (label == "gemm group aic") gemm_groups.insert(e.payload);
    if (label == "dispatch recv-gather") gather_groups.insert(e.payload);
  }
  EXPECT_EQ(gemm_groups, (std::set<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(gather_groups, (std::set<uint32_t>{0, 1, 2, 3}));
}

TEST(MoeTraceCoverageTest, AivRolesRecordTheirOwnPhases) {
  const Fixture& f = Get();
  std::map<std::string, std::set<uint32_t>> aiv_by_label;  // label -> AIV indices of rank 0
  for (const RecordedEvent& e : f.run.recorded) {
    if (e.rank == 0 && e.kind == format::CoreKind::kAiv) {
      aiv_by_label[f.labels.at(LabelIdOfPoint(e.point_id))].insert(e.core_index);
    }
  }
  EXPECT_EQ(aiv_by_label["dispatch send aiv"], (std::set<uint32_t>{0, 3, 6}));
  EXPECT_EQ(aiv_by_label["dispatch recv aiv"], (std::set<uint32_t>{1, 4, 7}));
  EXPECT_EQ(aiv_by_label["dispatch compute aiv"], (std::set<uint32_t>{2, 5}));
}

TEST(MoeTraceCoverageTest, LabelsFollowTheNamingRules) {
  const std::regex name("[a-z0-9][a-z0-9-]*( [a-z0-9-]+)*");
  for (const auto& [id, label] : LabelsFromSources()) {
    EXPECT_TRUE(std::regex_match(label, name)) << "'" << label << "'";
  }
}

TEST(MoeTraceCoverageTest, BadOptionsAreRejectedWithTheRange) {
  auto r = RunMoeExample({2, 1, 4, 64});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUsage);
  EXPECT_NE(r.status().message().find("block_dim 1 must be in 2..32"), std::string::npos) << r.status().message();
  EXPECT_FALSE(RunMoeExample({0, 4, 4, 64}).ok());
  EXPECT_FALSE(RunMoeExample({2, 4, 0, 64}).ok());
  EXPECT_FALSE(RunMoeExample({2, 4, 4, 0}).ok());
}

TEST(MoeTraceCoverageTest, OtherShapesRunAndStayConsistent) {
  auto r = RunMoeExample({3, 2, 3, 17});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->rank_buffers.size(), 3u);
  EXPECT_EQ(r->rank_buffers[0].size(), 2u * 3u * 2048u);
}

}  // namespace
}  // namespace optrace::examples
