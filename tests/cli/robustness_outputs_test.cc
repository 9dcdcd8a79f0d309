// Issue 11 regressions: never lose a user's data. Outputs that name an input, writes through a
// symlink, empty output paths, multi-file rewrites that stop half way.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include <fstream>

#include "collect/dump_builder.h"
#include "core/directory_lock.h"
#include "testing/cli_runner.h"
#include "testing/temp_tree.h"

namespace optrace {
namespace {
using ::testing::HasSubstr;
using testing::RunCli;
using testing::TempTree;
namespace fs = std::filesystem;
using collect::testing::SmallNativeDump;

const std::string kKernel =
    "extern \"C\" __global__ void moe() {\n"
    "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n"
    "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n"
    "}\n";

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(RobustOutputs, CollectRefusesToWriteOverADump) {
  TempTree t({{"dumps/rank0.bin", SmallNativeDump()}});
  std::string before = Read(t.path("dumps/rank0.bin"));
  auto r = RunCli({"collect", t.path("dumps"), "-o", t.path("dumps/rank0.bin")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("is an input of this command"));
  EXPECT_EQ(Read(t.path("dumps/rank0.bin")), before);
}

TEST(RobustOutputs, CollectRefusesStatsOverTheMap) {
  TempTree t({{"dumps/rank0.bin", SmallNativeDump()}, {"op/k.cpp", kKernel}});
  ASSERT_EQ(RunCli({"scan", t.path("op"), "-o", t.path("map.json")}).exit_code, 0);
  std::string map = Read(t.path("map.json"));
  auto r = RunCli({"collect", t.path("dumps"), "--map", t.path("map.json"), "-o", t.path("t.json"), "--stats",
                   t.path("map.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--stats"));
  EXPECT_EQ(Read(t.path("map.json")), map);
}

TEST(RobustOutputs, ScanRefusesToWriteTheMapOverASource) {
  TempTree t({{"op/k.cpp", kKernel}});
  auto r = RunCli({"scan", t.path("op"), "-o", t.path("op/k.cpp")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(Read(t.path("op/k.cpp")), kKernel);
}

TEST(RobustOutputs, EmptyOutputPathIsAUsageErrorNotSuccess) {
  TempTree t({{"dumps/rank0.bin", SmallNativeDump()}});
  auto r = RunCli({"collect", t.path("dumps"), "-o", ""});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("empty output path"));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("Success")));
}

TEST(RobustOutputs, ScanModifyKeepsASymlinkedSourceALink) {
  TempTree t({{"real/k.cpp", kKernel}});
  fs::create_directories(t.path("op"));
  fs::create_symlink(t.path("real/k.cpp"), t.path("op/k.cpp"));
  auto r = RunCli({"scan", t.path("op"), "--modify", "-o", t.path("map.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(t.path("op/k.cpp")));
  EXPECT_NE(Read(t.path("real/k.cpp")), kKernel);  // the change went to the link's target
}

TEST(RobustOutputs, InstrumentKeepsASymlinkedSourceALink) {
  TempTree t({{"real/k.cpp", "extern \"C\" __global__ __aicore__ void k(GM_ADDR x)\n{\n    for (int g = 0; g < 4; ++g) {\n"
                             "        Work(x, g);\n        SyncAll();\n    }\n}\n"}});
  fs::create_directories(t.path("op/op_kernel"));
  fs::create_symlink(t.path("real/k.cpp"), t.path("op/op_kernel/k.cpp"));
  auto r = RunCli({"instrument", "--op", t.path("op")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(t.path("op/op_kernel/k.cpp")));
  EXPECT_THAT(Read(t.path("real/k.cpp")), HasSubstr("optrace:auto"));
}

TEST(RobustOutputs, InstrumentChecksEveryFileBeforeWritingAny) {
  if (::geteuid() == 0) GTEST_SKIP() << "root may write read-only files";
  TempTree t({{"op/op_kernel/k.cpp", "#include \"b.h\"\nextern \"C\" __global__ __aicore__ void k(GM_ADDR x)\n{\n"
                                     "    B(x);\n}\n"},
              {"op/op_kernel/b.h", "__aicore__ inline void B(GM_ADDR x)\n{\n    for (int g = 0; g < 4; ++g) {\n"
                                   "        Work(x, g);\n        SyncAll();\n    }\n}\n"}});
  fs::permissions(t.path("op/op_kernel/b.h"), fs::perms::owner_read);
  std::string before = Read(t.path("op/op_kernel/k.cpp"));
  auto r = RunCli({"instrument", "--op", t.path("op")});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("nothing was changed"));
  EXPECT_EQ(Read(t.path("op/op_kernel/k.cpp")), before);
}

TEST(RobustOutputs, AFullDiskOnStandardOutputIsAnErrorNotSuccess) {
  // `scan SRC > map.json` on a full disk exited 0 with a truncated map.
  TempTree t({{"op/k.cpp", kKernel}});
  std::string cmd = std::string(OPTRACE_BINARY) + " scan " + t.path("op") + " > /dev/full 2> " + t.path("err.txt");
  int rc = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  EXPECT_THAT(Read(t.path("err.txt")), HasSubstr("cannot write standard output"));
}

TEST(RobustOutputs, AReaderThatLeftTheOutputPipeIsNotAnError) {
  // `optrace pipe ... | head` exited 2 when head left before optrace wrote (issue 53): here the
  // reader (`true`) is gone before optrace starts, so every write finds the pipe closed.
  TempTree t({{"x", ""}});
  std::string cmd = "{ sleep 0.3; " + std::string(OPTRACE_BINARY) + " headers --print 2> " + t.path("err.txt") +
                    "; echo $? > " + t.path("rc.txt") + "; } | true";
  ASSERT_EQ(std::system(("bash -c '" + cmd + "'").c_str()), 0);
  EXPECT_EQ(Read(t.path("rc.txt")), "0\n");
  EXPECT_EQ(Read(t.path("err.txt")), "");
}

TEST(RobustOutputs, TwoAnalyzeRunsIntoOneDirectoryDoNotInterleave) {
  TempTree t({{"x", ""}});
  Result<DirectoryLock> first = DirectoryLock::Acquire(t.path("out"), "analyze");  // a run in progress
  ASSERT_TRUE(first.ok());
  auto r = RunCli({"analyze", "--format", "json", std::string(OPTRACE_TEST_DATA_DIR) + "/analyze/tp_l0_text", "-o", t.path("out")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("optrace analyze (pid "));
  EXPECT_THAT(r.err, HasSubstr("is writing this directory now"));
}

TEST(RobustOutputs, SweepTakesTheLockAnalyzeTakes) {
  // sweep wrote 31 files into an OUT/<NN>_<root>/ that an analyze was writing (issue 53.16).
  TempTree t({{"x", ""}});
  const std::string root = std::string(OPTRACE_TEST_DATA_DIR) + "/analyze/tp_l0_text";
  {
    Result<DirectoryLock> analyzing = DirectoryLock::Acquire(t.path("out/01_tp_l0_text"), "analyze");
    ASSERT_TRUE(analyzing.ok());
    auto r = RunCli({"sweep", root, "-o", t.path("out")});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_THAT(r.out + r.err, HasSubstr("optrace analyze (pid "));
    EXPECT_FALSE(std::filesystem::exists(t.path("out/01_tp_l0_text/report.md"))) << "nothing written into it";
  }
  {
    Result<DirectoryLock> sweeping = DirectoryLock::Acquire(t.path("out2"), "sweep");
    ASSERT_TRUE(sweeping.ok());
    auto r = RunCli({"sweep", root, "-o", t.path("out2")});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_THAT(r.err, HasSubstr("optrace sweep (pid "));
  }
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

TEST(RobustArguments, ANonNumberIsRefusedWithAReadableBound) {
  // `--threads abc` printed CLI11's bound of NonNegativeNumber: a 309-digit DBL_MAX (issue 53).
  const std::vector<std::vector<std::string>> commands = {
      {"analyze", "x", "-o", "y", "--threads", "abc"}, {"analyze", "x", "-o", "y", "--run", "abc"},
      {"compare", "a", "b", "-o", "y", "--noise-k", "abc"}, {"explain", "x", "--clock-mhz", "abc"},
      {"latency", "x.csv", "--warmup", "abc"}};
  for (const auto& args : commands) {
    auto r = testing::RunCli(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[args.size() - 2];
    EXPECT_THAT(r.err, ::testing::HasSubstr("abc")) << r.err;
    EXPECT_LT(r.err.size(), 300u) << r.err;
  }
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

TEST(RobustOutputs, AnOperatorNamedLikeAFormulaIsTextInEveryCsv) {
  // Operator names went into operator_summary.csv as they were: `=cmd|...` ran as a formula in a
  // spreadsheet (issue 53.10).
  TempTree t({{"x", ""}});
  const std::filesystem::path src = std::string(OPTRACE_TEST_DATA_DIR) + "/analyze/tp_l0_text";
  std::filesystem::copy(src, t.path("cap"), std::filesystem::copy_options::recursive);
  for (const char* rank : {"rank0_ascend_pt", "rank1_ascend_pt"}) {
    const std::string rel = std::string("cap/") + rank + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv";
    std::string text = t.Read(rel);
    for (size_t at = text.find("trans_TransData_0"); at != std::string::npos; at = text.find("trans_TransData_0"))
      text.replace(at, 17, "=cmd|' /C calc'!A0");
    t.Write(rel, text);
  }
  auto r = RunCli({"analyze", "--format", "json", t.path("cap"), "-o", t.path("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int cells = 0;
  for (const auto& e : std::filesystem::directory_iterator(t.path("out"))) {
    if (e.path().extension() != ".csv") continue;
    const std::string csv = t.Read(std::filesystem::relative(e.path(), t.path()).string());
    for (size_t at = csv.find("=cmd|"); at != std::string::npos; at = csv.find("=cmd|", at + 1)) {
      ++cells;
      EXPECT_TRUE(at > 0 && csv[at - 1] == '\'') << e.path().filename() << ": a cell starts with the formula";
    }
  }
  EXPECT_GT(cells, 0) << "the operator reached no CSV";
}

}  // namespace
}  // namespace optrace

namespace optrace {
namespace {

TEST(RobustOutputs, AWalkThatCannotGoOnIsAnErrorNotAShorterList) {
  // At `ulimit -n 1024` a folder 1,100 levels deep ended the walk silently: scan wrote 2 of 4
  // points and exited 0 (issue 53.18). Here: 40 open files, a kernel 80 levels down.
  TempTree t({{"op/top.cpp", "void F() { MoeTracing(TRACE_POINT(\"top\", \"B\")); }\n"}});
  std::string deep = "op";
  for (int i = 0; i < 80; ++i) deep += "/d";
  t.Write(deep + "/k.cpp", "void G() { MoeTracing(TRACE_POINT(\"deep\", \"B\")); }\n");
  std::string cmd = "ulimit -n 40; " + std::string(OPTRACE_BINARY) + " scan " + t.path("op") + " -o " +
                    t.path("map.json") + " 2> " + t.path("err.txt");
  int rc = std::system(("bash -c '" + cmd + "'").c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  if (WEXITSTATUS(rc) == 0) {  // the walk reached the bottom: then both points must be there
    EXPECT_THAT(Read(t.path("map.json")), HasSubstr("\"deep\""));
  } else {
    EXPECT_EQ(WEXITSTATUS(rc), 2);
    EXPECT_THAT(Read(t.path("err.txt")), HasSubstr("cannot list the directory"));
  }
}

}  // namespace
}  // namespace optrace
