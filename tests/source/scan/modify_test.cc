#include "source/scan/modify.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "source/scan/scanner.h"

namespace optrace::source {
namespace {
using ::testing::HasSubstr;

std::string Rewrite(const std::string& text) {
  auto r = ScanSourceTexts({{"a.h", text}}, "/r");
  return RewriteTracePoints(*r->files[0]);
}

TEST(ModifyTest, ReplacesPointWithIdAndKeepsOriginalInComment) {
  EXPECT_EQ(Rewrite("  MoeTracing(TRACE_POINT(\"processing\", \"B\"), i);\n"),
            "  MoeTracing(0x84bb278c /* TRACE_POINT(\"processing\", \"B\") */, i);\n");
}

TEST(ModifyTest, SecondRewriteChangesNothing) {
  std::string once = Rewrite("MoeTracing(TRACE_POINT(\"a b\", \"E\"));\nMoeTracing(TRACE_POINT(\"c\", \"B\"));\n");
  EXPECT_EQ(Rewrite(once), once);
}

TEST(ModifyTest, MapIsIdenticalBeforeAndAfter) {
  std::string text = "void f() {\n  MoeTracing(TRACE_POINT(\"x\", \"B\"));\n  MoeTracing(TRACE_POINT(\"x\",\n \"E\"));\n}\n";
  auto before = ScanSourceTexts({{"a.h", text}}, "/r");
  auto after = ScanSourceTexts({{"a.h", RewriteTracePoints(*before->files[0])}}, "/r");
  EXPECT_EQ(SerializePointMap(before->map), SerializePointMap(after->map));
}

TEST(ModifyTest, LeavesCommentsWrappersAndMalformedPointsAlone) {
  std::string text = "// TRACE_POINT(\"c\", \"B\")\n#define P(n) TRACE_POINT(n, \"B\")\nP(\"w\");\nTRACE_POINT(\"x\", \"Z\");\n";
  EXPECT_EQ(Rewrite(text), text);
}

TEST(ModifyTest, UnifiedDiffShowsChangedLinesWithContext) {
  std::string d = UnifiedDiff("k.h", "a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\nd\nE\nf\ng\nh\n");
  EXPECT_EQ(d, "--- a/k.h\n+++ b/k.h\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n");
  EXPECT_EQ(UnifiedDiff("k.h", "same\n", "same\n"), "");
}

TEST(ModifyTest, UnifiedDiffHandlesInsertedLines) {
  std::string d = UnifiedDiff("s.sh", "a\nb\n", "a\nx\nb\n");
  EXPECT_THAT(d, HasSubstr("@@ -1,2 +1,3 @@\n a\n+x\n b\n"));
}

}  // namespace
}  // namespace optrace::source
