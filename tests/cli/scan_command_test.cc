#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/point_map.h"
#include "testing/cli_runner.h"
#include "testing/temp_tree.h"

namespace optrace {
namespace {
using ::testing::HasSubstr;
using testing::RunCli;
using testing::TempTree;

constexpr const char* kKernel =
    "#include \"gemm/block.h\"\n"
    "extern \"C\" __global__ void moe() {\n"
    "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
    "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
    "}\n";

TEST(ScanCommandTest, WritesPointMapForTree) {
  TempTree t({{"op/moe.cpp", kKernel}, {"op/gemm/block.h", "MoeTracing(TRACE_POINT(\"gemm aic\", \"B\"));\n"}});
  auto r = RunCli({"scan", t.path("op"), "-o", t.path("out/map.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("scanned 2 file(s): 3 trace point(s)"));
  auto map = LoadPointMap(t.path("out/map.json"));
  ASSERT_TRUE(map.ok()) << map.status().message();
  EXPECT_EQ(map->points.size(), 3u);
  EXPECT_EQ(map->source_root, t.path("op"));
}

TEST(ScanCommandTest, CollisionExitsOneNamingBothLocations) {
  TempTree t({{"a.h", "TRACE_POINT(\"phase 36123\", \"B\")"}, {"b.h", "TRACE_POINT(\"phase 411380\", \"B\")"}});
  auto r = RunCli({"scan", t.path(), "-o", t.path("map.json")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("b.h:1:1: error: labels \"phase 411380\" and \"phase 36123\" (at a.h:1:1)"));
  EXPECT_THAT(r.err, HasSubstr("no point map written"));
  EXPECT_FALSE(std::filesystem::exists(t.path("map.json")));
}

TEST(ScanCommandTest, MissingSourceExitsTwoNamingIt) {
  auto r = RunCli({"scan", "/nonexistent/optrace/kernel", "-o", "/tmp/x.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("/nonexistent/optrace/kernel: no such file or directory"));
}

TEST(ScanCommandTest, NoSourcesIsUsageError) {
  auto r = RunCli({"scan", "-o", "x.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("give source files"));
}

TEST(ScanCommandTest, EntryScansIncludeTreeOnly) {
  TempTree t({{"op/moe.cpp", kKernel}, {"op/gemm/block.h", "TRACE_POINT(\"gemm\", \"B\")"},
              {"op/stale.h", "TRACE_POINT(\"stale\", \"B\")"}});
  auto r = RunCli({"scan", "--entry", t.path("op/moe.cpp"), "--format", "json", "-o", t.path("m.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["files"], 2);
  EXPECT_EQ(j["points"], 3);
}

TEST(ScanCommandTest, ModifyRewritesIdempotentlyKeepingPermissionsAndMap) {
  TempTree t({{"op/moe.cpp", kKernel}});
  std::filesystem::permissions(t.path("op/moe.cpp"), std::filesystem::perms(0640));
  ASSERT_EQ(RunCli({"scan", t.path("op"), "-o", t.path("before.json")}).exit_code, 0);
  auto r = RunCli({"scan", t.path("op"), "--modify", "-o", t.path("after.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rewrote 1 file(s)"));
  std::string once = t.Read("op/moe.cpp");
  EXPECT_THAT(once, HasSubstr("MoeTracing(0x84bb278c /* TRACE_POINT(\"processing\", \"B\") */);"));
  EXPECT_EQ(t.Read("before.json"), t.Read("after.json"));
  EXPECT_EQ(std::filesystem::status(t.path("op/moe.cpp")).permissions(), std::filesystem::perms(0640));
  auto again = RunCli({"scan", t.path("op"), "--modify", "-o", t.path("again.json")});
  EXPECT_THAT(again.out, HasSubstr("rewrote 0 file(s)"));
  EXPECT_EQ(t.Read("op/moe.cpp"), once);
  EXPECT_EQ(t.Read("again.json"), t.Read("before.json"));
}

TEST(ScanCommandTest, DryRunPrintsDiffAndWritesNothing) {
  TempTree t({{"op/moe.cpp", kKernel}});
  auto r = RunCli({"scan", t.path("op"), "--modify", "--dry-run", "-o", t.path("m.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("--- a/moe.cpp\n+++ b/moe.cpp\n"));
  EXPECT_THAT(r.out, HasSubstr("-  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                               "+  MoeTracing(0x84bb278c /* TRACE_POINT(\"processing\", \"B\") */);\n"));
  EXPECT_EQ(t.Read("op/moe.cpp"), kKernel);
  EXPECT_FALSE(std::filesystem::exists(t.path("m.json")));
}

TEST(ScanCommandTest, WithoutOutputPrintsMap) {
  TempTree t({{"op/moe.cpp", kKernel}});
  auto r = RunCli({"scan", t.path("op")});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("\"format\": \"optrace-point-map\""));
}

TEST(ScanCommandTest, SyntaxErrorExitsOneWithRule) {
  TempTree t({{"op/k.cpp", "\n  MoeTracing(TRACE_POINT(\"x\", \"begin\"));\n"}});
  auto r = RunCli({"scan", t.path("op"), "-o", t.path("m.json")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("k.cpp:2:31: error: TRACE_POINT event type must be \"B\" or \"E\", found \"begin\" "
                               "[event-type]"));
}

}  // namespace
}  // namespace optrace
