#include "source/lexer/kernel_launches.h"

#include <gtest/gtest.h>

#include <string>

namespace optrace::source {
namespace {

struct Found {
  std::string kernel, kind;
  std::vector<std::string> args;
};

std::vector<Found> Launches(std::string_view text) {
  static std::vector<std::string> keep;  // LexedFile views into its text
  keep.emplace_back(text);
  LexedFile f = Lex(keep.back());
  std::vector<Found> out;
  for (const KernelLaunch& l : FindKernelLaunches(f.tokens, [](std::string_view n) { return n == "k" || n == "k2"; })) {
    Found x{std::string(l.kernel), KernelLaunch::KindName(l.kind), {}};
    for (const auto& [b, e] : l.args) {
      std::string a;
      for (size_t i = b; i < e; ++i) a += f.tokens[i].text;
      x.args.push_back(a);
    }
    out.push_back(x);
  }
  return out;
}

TEST(KernelLaunchesTest, ChevronLaunchGivesTheKernelArgumentsWithoutTheConfig) {
  auto l = Launches("void f() { k<<<8, nullptr, stream>>>(x, y); }");
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].kind, "<<<>>>");
  EXPECT_EQ(l[0].args, (std::vector<std::string>{"x", "y"}));
}

TEST(KernelLaunchesTest, TemplateArgumentsBeforeTheChevronsAreTheSameLaunch) {
  auto l = Launches("void f() { k<float, 2><<<n, nullptr, s>>>(a, b, c); k2<T><<<1, nullptr, s>>>(); }");
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].kernel, "k");
  EXPECT_EQ(l[0].args.size(), 3u);
  EXPECT_EQ(l[1].kernel, "k2");
  EXPECT_TRUE(l[1].args.empty());
}

TEST(KernelLaunchesTest, ConfigWithCallsAndTemplateArgumentsInTheArgumentsSplitRight) {
  auto l = Launches("void f() { k<<<Blocks(n, 2), nullptr, s>>>(Cast<int, 2>(x), g(a, b)); }");
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(l[0].args, (std::vector<std::string>{"Cast<int,2>(x)", "g(a,b)"}));
}

TEST(KernelLaunchesTest, LaunchMacrosDropTheirConfigArguments) {
  auto l = Launches("void f() { ACLRT_LAUNCH_KERNEL(k)(8, stream, x, y); EXEC_KERNEL_CMD(k2, 8, x); }");
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].kind, "ACLRT_LAUNCH_KERNEL");
  EXPECT_EQ(l[0].args, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(l[1].kind, "EXEC_KERNEL_CMD");
  EXPECT_EQ(l[1].args, (std::vector<std::string>{"x"}));
}

TEST(KernelLaunchesTest, CommentsStringsDisabledCodeAndOtherNamesAreNotLaunches) {
  auto l = Launches(
      "// k<<<8, nullptr, s>>>(x);\n"
      "const char* s = \"k<<<8, nullptr, s>>>(x)\";\n"
      "#if 0\nvoid g() { k<<<8, nullptr, s>>>(x); }\n#endif\n"
      "void h() { other<<<8, nullptr, s>>>(x); int v = a << b < c; }\n");
  EXPECT_TRUE(l.empty());
}

}  // namespace
}  // namespace optrace::source
