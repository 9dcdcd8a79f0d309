#include "analyze/cross_rank/pipeline_stages.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

using testing::TempDir;

// Two pipeline stages (MindSpeed's metadata layout: pp groups {0, 2} and {1, 3}). Stage 1 starts
// each step waiting 0.5 ms on a receive before its first matmul (1F1B warm-up); stage 0 ends each
// step waiting 0.3 ms on a receive after its last matmul (cool-down).
TEST(PipelineStagesTest, WarmUpAndCoolDownAreMeasuredPerStage) {
  TempDir tmp;
  for (int rank = 0; rank < 4; ++rank) {
    const int pp = rank % 2, stage = rank / 2;
    std::string dir = "r" + std::to_string(rank) + "_ascend_pt/";
    tmp.Write(dir + "profiler_info_" + std::to_string(rank) + ".json", "{}");
    tmp.Write(dir + "profiler_metadata.json",
              fmt::format("{{\"parallel_group_info\": {{\"group_name_{}\": {{\"group_name\": \"pp\", "
                          "\"global_ranks\": [{}, {}]}}}}}}",
                          20 + pp, pp, pp + 2));
    std::string csv = "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n";
    for (int k = 1; k <= 3; ++k) {
      const double base = 1000 + k * 10000.0;
      if (stage == 1) {
        csv += fmt::format("{},hcom_receive__1,hcom_receive_,HCCL,{:.3f},500\n", k, base);
        csv += fmt::format("{},MatMul,MatMul,AI_CORE,{:.3f},1000\n", k, base + 500);
      } else {
        csv += fmt::format("{},MatMul,MatMul,AI_CORE,{:.3f},1000\n", k, base);
        csv += fmt::format("{},hcom_receive__1,hcom_receive_,HCCL,{:.3f},300\n", k, base + 1000);
      }
    }
    tmp.Write(dir + "ASCEND_PROFILER_OUTPUT/kernel_details.csv", csv);
  }
  std::vector<PipelineStage> stages = PipelineStages(testing::Analyze(tmp.path()));
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0].steps, 3);
  EXPECT_NEAR(stages[0].warmup_ms, 0.0, 1e-9);
  EXPECT_NEAR(stages[0].cooldown_ms, 0.3, 1e-9);
  EXPECT_NEAR(stages[1].warmup_ms, 0.5, 1e-9);
  EXPECT_NEAR(stages[1].cooldown_ms, 0.0, 1e-9);
}

}  // namespace
}  // namespace optrace::analyze
