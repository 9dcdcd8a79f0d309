#include "bundle/skills.h"

#include <gtest/gtest.h>

#include <set>

namespace optrace::bundle {
namespace {

TEST(Skills, EverySkillHasADescriptionFromItsFrontMatter) {
  const std::vector<SkillInfo> skills = ListSkills();
  ASSERT_GE(skills.size(), 3u);
  for (const SkillInfo& s : skills) {
    EXPECT_TRUE(s.name.starts_with("optrace-")) << s.name;
    EXPECT_NE(s.description.find("Use when"), std::string::npos) << s.name;
  }
}

TEST(Skills, FilesOfOneSkillAreOnlyItsOwn) {
  const FileTable files = SkillFilesOf("optrace-trace-operator");
  std::set<std::string> names;
  for (const auto& [path, text] : files) names.insert(path);
  EXPECT_TRUE(names.count("optrace-trace-operator/SKILL.md"));
  EXPECT_TRUE(names.count("optrace-trace-operator/evals/evals.json"));
  for (const std::string& n : names) EXPECT_TRUE(n.starts_with("optrace-trace-operator/")) << n;
}

TEST(Skills, AnUnknownNameHasNoFiles) {
  EXPECT_TRUE(SkillFilesOf("optrace-trace").empty());  // a prefix of a real name is not that skill
  EXPECT_TRUE(SkillFilesOf("nope").empty());
}

TEST(Samples, HoldTheOperatorTheCapturesAndTheirReadme) {
  std::set<std::string> names;
  for (const auto& [path, text] : SampleFiles()) names.insert(path);
  EXPECT_TRUE(names.count("README.md"));
  EXPECT_TRUE(names.count("operator/compile_ascend_proj.sh"));
  EXPECT_TRUE(names.count("operator_bare/op_kernel/moe_dispatch_combine.cpp"));
  EXPECT_TRUE(names.count("evidence/latency/dispatch_latency.csv"));
  for (const std::string& n : names) {
    EXPECT_FALSE(n.starts_with("operator/runner/")) << "the emulator's runner is not part of the operator: " << n;
  }
}

TEST(Samples, TheBareKernelHasNoTraceMarks) {
  for (const auto& [path, text] : SampleFiles()) {
    if (!path.starts_with("operator_bare/")) continue;
    EXPECT_EQ(text.find("MoeTracing(TRACE_POINT"), std::string::npos) << path;
  }
}

}  // namespace
}  // namespace optrace::bundle
