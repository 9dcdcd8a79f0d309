#include "source/lexer/code_structure.h"

#include <gtest/gtest.h>

#include <string>

namespace optrace::source {
namespace {

// The function blocks' names and the lines of their '}'.
std::vector<std::pair<std::string, int>> Functions(std::string_view text) {
  static std::vector<std::string> keep;  // LexedFile views into its text
  keep.emplace_back(text);
  LexedFile lex = Lex(keep.back());
  CodeStructure cs = AnalyzeStructure(lex);
  std::vector<std::pair<std::string, int>> out;
  for (const Block& b : cs.blocks)
    if (b.kind == BlockKind::kFunction)
      out.push_back({b.name, b.close < lex.tokens.size() ? lex.tokens[b.close].line : -1});
  return out;
}

// ops-nn foreach_lerp_list: each #if alternative opens the same `if (...) {`, closed once after
// #endif. The function ends at its own '}', not at the end of the file.
TEST(CodeStructureTest, IfAlternativesThatEachOpenABraceOpenOneBlock) {
  auto f = Functions(
      "void Init() {\n"                      // 1
      "#if __CCE_AICORE__ >= 220\n"          // 2
      "  if (a || b) {\n"                    // 3
      "#else\n"                              // 4
      "  if (b) {\n"                         // 5
      "#endif\n"                             // 6
      "    Work();\n"                        // 7
      "  }\n"                                // 8
      "}\n"                                  // 9
      "void Next() {\n  Step();\n}\n");      // 10-12
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0], (std::pair<std::string, int>{"Init", 9}));
  EXPECT_EQ(f[1], (std::pair<std::string, int>{"Next", 12}));
}

TEST(CodeStructureTest, BalancedIfAlternativesAreBothCode) {
  auto f = Functions(
      "#if X\nvoid A() {\n  Step();\n}\n#else\nvoid B() {\n  Step();\n}\n#endif\n");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].first, "A");
  EXPECT_EQ(f[1].first, "B");
}

}  // namespace
}  // namespace optrace::source
