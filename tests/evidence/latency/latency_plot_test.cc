#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "evidence/latency/latency_writers.h"
#include "evidence/plot/svg.h"

namespace optrace::evidence {
namespace {
using ::testing::HasSubstr;

std::string Plot() {
  auto t = ReadLatencyCsvFiles({std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/latency/missing_pair.csv"}, {});
  EXPECT_TRUE(t.ok());
  return RenderLatencySvg(*t, AnalyzeLatency(*t, {}));
}

// Plot area y 40..360 for 0..10 us (max sample 9 -> axis 10): y(v) = 360 - 32 v.
TEST(LatencyPlotTest, RankBoxSpansFirstToThirdQuartile) {
  // rank 0 samples 5,6,7,8: Q1 5.75 -> y 176, Q3 7.25 -> y 128.
  EXPECT_THAT(Plot(), HasSubstr("<rect x=\"117.7\" y=\"128.0\" width=\"28.0\" height=\"48.0\""));
}

TEST(LatencyPlotTest, MaxLineSkipsIncompleteIterationsAndMarksThem) {
  std::string svg = Plot();
  // Complete iterations 0, 1, 3 (max 6, 7, 9); iteration 2 is a red dot at its partial max 9.
  EXPECT_THAT(svg, HasSubstr("points=\"500.0,168.0 643.3,136.0 930.0,72.0\""));
  EXPECT_THAT(svg, HasSubstr("<circle cx=\"786.7\" cy=\"72.0\" r=\"3\" fill=\"#d62728\"/>"));
}

TEST(SvgTest, TextIsEscaped) {
  SvgDocument svg(10, 10);
  svg.Text(1, 2, "a<b & \"c\"");
  EXPECT_THAT(svg.Finish(), HasSubstr(">a&lt;b &amp; &quot;c&quot;</text>"));
}

}  // namespace
}  // namespace optrace::evidence
