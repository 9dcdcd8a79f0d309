// optrace skills / optrace samples: what the binary carries, written where the user asks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "testing/cli_runner.h"
#include "testing/temp_tree.h"

namespace optrace {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::RunCli;
using testing::TempTree;

TEST(SkillsCommand, ListNamesEverySkillWithWhenToUseIt) {
  auto r = RunCli({"skills", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("optrace-trace-operator\n  "));
  EXPECT_THAT(r.out, HasSubstr("optrace-profiling-analysis\n  "));
  EXPECT_THAT(r.out, HasSubstr("optrace-dispatch-evidence\n  "));
  EXPECT_THAT(r.out, HasSubstr("算子打点"));
}

TEST(SkillsCommand, ShowPrintsTheSkillAndAnUnknownNameListsTheSkills) {
  auto r = RunCli({"skills", "show", "optrace-trace-operator"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("name: optrace-trace-operator"));
  auto bad = RunCli({"skills", "show", "trace"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("no skill named 'trace'; the skills are: optrace-dispatch-evidence"));
}

TEST(SkillsCommand, InstallWritesEachSkillFolderAndASecondRunChangesNothing) {
  TempTree t;
  auto r = RunCli({"skills", "install", "--to", t.path("agent")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("3 skills"));
  EXPECT_TRUE(fs::exists(t.path("agent/optrace-profiling-analysis/references/findings.md")));
  EXPECT_TRUE(fs::exists(t.path("agent/optrace-trace-operator/evals/evals.json")));
  auto again = RunCli({"skills", "install", "--to", t.path("agent")});
  ASSERT_EQ(again.exit_code, 0);
  EXPECT_THAT(again.out, HasSubstr(" 0 files written, 0 replaced"));
}

TEST(SkillsCommand, AnEditedSkillIsReplacedOnlyWithForce) {
  TempTree t;
  ASSERT_EQ(RunCli({"skills", "install", "--to", t.path("agent"), "--skill", "optrace-trace-operator"}).exit_code, 0);
  EXPECT_FALSE(fs::exists(t.path("agent/optrace-dispatch-evidence")));
  t.Write("agent/optrace-trace-operator/SKILL.md", "my notes\n");
  auto refused = RunCli({"skills", "install", "--to", t.path("agent")});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("SKILL.md: exists and differs"));
  EXPECT_THAT(refused.err, HasSubstr("--force"));
  EXPECT_EQ(t.Read("agent/optrace-trace-operator/SKILL.md"), "my notes\n");
  auto forced = RunCli({"skills", "install", "--to", t.path("agent"), "--force"});
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_THAT(forced.out, HasSubstr("1 replaced"));
  EXPECT_THAT(t.Read("agent/optrace-trace-operator/SKILL.md"), HasSubstr("name: optrace-trace-operator"));
}

TEST(SkillsCommand, InstallNeedsAFolder) {
  auto r = RunCli({"skills", "install"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--to"));
}

TEST(SamplesCommand, WritesTheSamplesWithTheirReadmeAndAnExecutableBuildScript) {
  TempTree t;
  auto r = RunCli({"samples", "-o", t.path("s")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("README.md says what each is"));
  EXPECT_THAT(t.Read("s/README.md"), HasSubstr("capture_8rank/"));
  EXPECT_TRUE(fs::exists(t.path("s/capture_tp_l1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv")));
  EXPECT_NE(fs::status(t.path("s/operator/compile_ascend_proj.sh")).permissions() & fs::perms::owner_exec,
            fs::perms::none);
}

TEST(SamplesCommand, TheSampleOperatorLintsAndTheBareKernelPlans) {
  TempTree t;
  ASSERT_EQ(RunCli({"samples", "-o", t.path("s")}).exit_code, 0);
  auto lint = RunCli({"lint", "--op", t.path("s/operator")});
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
  auto plan = RunCli({"plan", "--op", t.path("s/operator_bare")});
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_THAT(plan.out, HasSubstr("site(s) to instrument"));
}

}  // namespace
}  // namespace optrace
