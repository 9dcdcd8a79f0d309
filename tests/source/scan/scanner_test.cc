#include "source/scan/scanner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "optrace/point_id.h"
#include "testing/temp_tree.h"

namespace optrace::source {
namespace {
using ::testing::HasSubstr;
using optrace::testing::TempTree;

uint32_t Id(const std::string& label, bool end) {
  return PointId(LabelId(label.data(), static_cast<uint32_t>(label.size())), end);
}

TEST(ScannerTest, InMemorySourcesGiveDeviceIdsAndRelativePaths) {
  auto r = ScanSourceTexts({{"op_kernel/moe.cpp", "void k() {\n  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
                                                  "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n}\n"}},
                           "/src/op");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->map.source_root, "/src/op");
  ASSERT_EQ(r->map.points.size(), 2u);
  const PointInfo* b = r->map.Find(Id("processing", false));
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->file, "op_kernel/moe.cpp");
  EXPECT_EQ(b->line, 2);
  EXPECT_EQ(b->column, 14);
  EXPECT_EQ(b->event_type, 'B');
  EXPECT_NE(r->map.Find(Id("processing", true)), nullptr);
  EXPECT_FALSE(r->HasErrors());
}

TEST(ScannerTest, RepeatedPointKeepsFirstLocationInPathOrder) {
  auto r = ScanSourceTexts({{"b.h", "TRACE_POINT(\"x\", \"B\")"}, {"a.h", "\n TRACE_POINT(\"x\", \"B\")"}}, "/r");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->map.points.size(), 1u);
  EXPECT_EQ(r->map.points.begin()->second.file, "a.h");
  EXPECT_EQ(r->site_count, 2u);
}

TEST(ScannerTest, DistinctLabelsWithEqualLabelIdAreCollisions) {
  // FNV-1a 31-bit: "phase 36123" and "phase 411380" share label id 1298949899.
  auto r = ScanSourceTexts({{"a.h", "TRACE_POINT(\"phase 36123\", \"B\")"},
                            {"b.h", "\n\n  TRACE_POINT(\"phase 411380\", \"B\")"}},
                           "/r");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->collisions.size(), 1u);
  const Collision& c = r->collisions[0];
  EXPECT_EQ(c.label_id, 1298949899u);
  EXPECT_EQ(c.first.file, "a.h");
  EXPECT_EQ(c.second.file, "b.h");
  EXPECT_EQ(c.second.line, 3);
  EXPECT_TRUE(r->HasErrors());
  EXPECT_THAT(FormatCollision(c), HasSubstr("a.h:1:1"));
}

TEST(ScannerTest, SyntaxProblemsAreDiagnosticsWithRuleIds) {
  auto r = ScanSourceTexts({{"a.h", "TRACE_POINT(\"x\", \"Q\");\nTRACE_POINT(lbl, \"B\");"}}, "/r");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->diagnostics.size(), 2u);
  EXPECT_EQ(r->diagnostics[0].rule, "event-type");
  EXPECT_EQ(r->diagnostics[1].rule, "trace-syntax");
  EXPECT_EQ(r->diagnostics[1].line, 2);
  EXPECT_TRUE(r->map.points.empty());
}

TEST(ScannerTest, WholeTreeSkipsNonSourceFilesAndReadsCuda) {
  TempTree t({{"k/a.cu", "TRACE_POINT(\"cuda k\", \"B\")"},
              {"k/notes.txt", "TRACE_POINT(\"no\", \"B\")"},
              {"k/sub/b.cuh", "TRACE_POINT(\"cuda k\", \"E\")"}});
  auto r = ScanSources({t.path("k")}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->files.size(), 2u);
  EXPECT_EQ(r->map.points.size(), 2u);
  EXPECT_EQ(r->map.Find(Id("cuda k", true))->file, "sub/b.cuh");
}

TEST(ScannerTest, EntryFollowsIncludesOnly) {
  TempTree t({{"op/op_kernel/moe.cpp", "#include \"moe.h\"\n"},
              {"op/op_kernel/moe.h", "#include \"gemm/block.h\"\n#if 0\n#include \"dead.h\"\n#endif\n"},
              {"op/op_kernel/gemm/block.h", "#include \"../common.h\"\nTRACE_POINT(\"gemm\", \"B\")"},
              {"op/op_kernel/common.h", "TRACE_POINT(\"common\", \"B\")"},
              {"op/op_kernel/dead.h", "TRACE_POINT(\"dead\", \"B\")"},
              {"op/op_kernel/unused.h", "TRACE_POINT(\"unused\", \"B\")"}});
  ScanOptions o;
  o.entry = t.path("op/op_kernel/moe.cpp");
  auto r = ScanSources({}, o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->files.size(), 4u);
  EXPECT_EQ(r->map.points.size(), 2u);
  EXPECT_EQ(r->map.Find(Id("dead", false)), nullptr);
  EXPECT_EQ(r->map.Find(Id("gemm", false))->file, "gemm/block.h");
}

TEST(ScannerTest, MissingRootIsNotFound) {
  auto r = ScanSources({"/nonexistent/optrace/src"}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("/nonexistent/optrace/src"));
}

}  // namespace
}  // namespace optrace::source
