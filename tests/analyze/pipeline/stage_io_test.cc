#include "analyze/pipeline/stage_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analyze/model/model.h"
#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

// A one-rank normalize result with `rows` pipeline rows, each with the fields of `f`.
AnalysisResult OneRank(const PipelineFields& f, int rows) {
  AnalysisResult r;
  r.strings.Intern("op");
  RankTable t;
  t.rank = 0;
  t.files.push_back({"/k.csv", ""});
  for (int i = 0; i < rows; ++i) {
    Event e;
    e.start_ns = i * 10;
    e.dur_ns = 5;
    e.pipe = t.pipes.Add(f);
    t.events.push_back(e);
  }
  r.ranks.push_back(std::move(t));
  return r;
}

TEST(StageIoTest, SparsePipelineRowsRoundTripThroughTheNormalizeStageFile) {
  std::vector<double> overflow;
  PipelineFields f;
  f.packed[0] = PackDecimalText("139.707", overflow);
  f.packed[2] = PackDecimalText("0.0", overflow);
  f.op_state = OpState::kStatic;
  AnalysisResult before = OneRank(f, 3);
  TempDir dir;
  ASSERT_TRUE(SaveStage(dir.path(), Stage::kNormalize, before).ok());
  AnalysisResult after;
  Status s = LoadStage(dir.path(), Stage::kNormalize, after);
  ASSERT_TRUE(s.ok()) << s.message();
  const RankTable& t = after.ranks.at(0);
  ASSERT_EQ(t.pipes.size(), 3u);
  EXPECT_EQ(t.pipes.values().size(), 3u);  // one nonzero value a row
  const std::optional<PipeView> v = t.PipeOf(t.events[2]);
  ASSERT_TRUE(v.has_value());
  EXPECT_DOUBLE_EQ(t.PipeValue(*v, 0), 139.707);
  EXPECT_EQ(t.PipeValue(*v, 2), 0.0);
  EXPECT_FALSE(v->Has(1));
  EXPECT_EQ(v->op_state(), OpState::kStatic);
}

TEST(StageIoTest, PipelineRowClaimingValuesPastTheStoreIsRefused) {
  std::vector<double> overflow;
  PipelineFields f;
  f.packed[0] = PackDecimalText("1.5", overflow);
  AnalysisResult r = OneRank(f, 2);
  r.ranks[0].pipes.rows()[1].first = 7;  // past the two values: a later stage would read beyond them
  TempDir dir;
  ASSERT_TRUE(SaveStage(dir.path(), Stage::kNormalize, r).ok());
  AnalysisResult loaded;
  Status s = LoadStage(dir.path(), Stage::kNormalize, loaded);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kBadInput);
  EXPECT_THAT(s.message(), HasSubstr("rank 0 pipeline row 1: fields; the stage file is inconsistent: re-run the 'normalize' stage"));
}

TEST(StageIoTest, PipelineRowBothMissingAndValuedIsRefused) {
  std::vector<double> overflow;
  PipelineFields f;
  f.packed[3] = PackDecimalText("2.25", overflow);
  AnalysisResult r = OneRank(f, 1);
  r.ranks[0].pipes.rows()[0].bits |= (1u << 3) << kPipeMaskBits;  // field 3 also marked missing
  TempDir dir;
  ASSERT_TRUE(SaveStage(dir.path(), Stage::kNormalize, r).ok());
  AnalysisResult loaded;
  Status s = LoadStage(dir.path(), Stage::kNormalize, loaded);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("pipeline row 0: fields"));
}

}  // namespace
}  // namespace optrace::analyze
