// A map of another scan is certain to be seen (issue 51.3): the build hook's `scan
// --stamp-fingerprint` puts the point set's fingerprint beside optrace_trace.h, the binary stores it
// in every slot, and collect compares it with the map it is given. End to end with the host
// compiler: headers, scan, compile, run, collect.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "core/subprocess.h"
#include "source/compile/compile_check.h"
#include "testing/cli_runner.h"
#include "testing/temp_tree.h"

namespace optrace {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunCli;
using testing::TempTree;

constexpr char kProgram[] = R"(#include <cstdio>
#include <vector>
#include "optrace_trace.h"
int main(int argc, char** argv) {
  std::vector<int64_t> buf(PROF_SIZE_PER_CORE, 0);
  OPTRACE_KERNEL_BEGIN(buf.data(), 0);
  MoeTracing(TRACE_POINT("processing", "B"));
  MoeTracing(TRACE_POINT("dispatch", "B"));
  MoeTracing(TRACE_POINT("dispatch", "E"));
  MoeTracing(TRACE_POINT("processing", "E"));
  OPTRACE_KERNEL_END(buf.data());
  FILE* f = std::fopen(argv[1], "wb");
  if (!f) return 1;
  std::fwrite(buf.data(), sizeof(int64_t), buf.size(), f);
  return std::fclose(f);
}
)";

// Builds kernel/run.cc as the team's build would (its own folder only) and runs it into
// dumps/rank0.bin. Returns "" on success, else what failed.
std::string BuildAndRun(const TempTree& t) {
  Result<std::string> cxx = source::FindHostCompiler("");
  if (!cxx.ok()) return "no host compiler: " + cxx.status().message();
  ProcessRun c = RunProcess(*cxx, {"-std=c++17", "-o", t.path("run"), t.path("kernel/run.cc")},
                            std::chrono::seconds(120), true);
  if (c.exit_code != 0) return "compile: " + c.output;
  fs::create_directories(t.path("dumps"));
  ProcessRun r = RunProcess(t.path("run"), {t.path("dumps/rank0.bin")}, std::chrono::seconds(30), true);
  return r.exit_code == 0 ? "" : "run: " + r.output;
}

TEST(PointSetStamp, TheBinaryCarriesItsScanAndCollectRefusesAMapOfAnotherScanUnderStrict) {
  TempTree t;
  t.Write("kernel/run.cc", kProgram);
  ASSERT_EQ(RunCli({"headers", "-o", t.path("kernel")}).exit_code, 0);
  auto scan = RunCli({"scan", t.path("kernel"), "-o", t.path("map.json"), "--stamp-fingerprint"});
  ASSERT_EQ(scan.exit_code, 0) << scan.err;
  EXPECT_THAT(scan.out, HasSubstr("stamped beside 1 optrace_trace.h"));
  ASSERT_TRUE(fs::exists(t.path("kernel/optrace_point_set.h")));
  std::string built = BuildAndRun(t);
  if (built.starts_with("no host compiler")) GTEST_SKIP() << built;
  ASSERT_EQ(built, "");

  // The map of the build: nothing to say, --strict passes.
  auto same = RunCli({"collect", t.path("dumps"), "--map", t.path("map.json"), "-o", t.path("a.json"), "--strict"});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_THAT(same.out + same.err, Not(HasSubstr("map_other_scan")));

  // The sources gained a mark since the build: every id of the dumps is still in the new map,
  // so only the fingerprint can tell.
  std::string src = t.Read("kernel/run.cc");
  src.insert(src.find("  OPTRACE_KERNEL_END"), "  MoeTracing(TRACE_POINT(\"combine\", \"B\"));\n"
                                                  "  MoeTracing(TRACE_POINT(\"combine\", \"E\"));\n");
  t.Write("kernel/run.cc", src);
  ASSERT_EQ(RunCli({"scan", t.path("kernel"), "-o", t.path("later.json")}).exit_code, 0);
  auto other = RunCli({"collect", t.path("dumps"), "--map", t.path("later.json"), "-o", t.path("b.json"), "--strict"});
  EXPECT_EQ(other.exit_code, 1) << other.out << other.err;
  EXPECT_THAT(other.out + other.err, HasSubstr("map_other_scan"));
  EXPECT_THAT(other.out + other.err, HasSubstr("1 slot(s) built with point set 0x"));
}

TEST(PointSetStamp, RescanningTheSameSourcesLeavesTheStampUntouched) {
  TempTree t;
  t.Write("kernel/run.cc", kProgram);
  ASSERT_EQ(RunCli({"headers", "-o", t.path("kernel")}).exit_code, 0);
  ASSERT_EQ(RunCli({"scan", t.path("kernel"), "-o", t.path("map.json"), "--stamp-fingerprint"}).exit_code, 0);
  const auto before = fs::last_write_time(t.path("kernel/optrace_point_set.h"));
  ASSERT_EQ(RunCli({"scan", t.path("kernel"), "-o", t.path("map.json"), "--stamp-fingerprint"}).exit_code, 0);
  EXPECT_EQ(fs::last_write_time(t.path("kernel/optrace_point_set.h")), before) << "no rebuild for an unchanged scan";
}

TEST(PointSetStamp, AFileOfThatNameOptraceDidNotWriteIsNotOverwritten) {
  TempTree t;
  t.Write("kernel/run.cc", kProgram);
  t.Write("kernel/optrace_point_set.h", "// mine\n");
  ASSERT_EQ(RunCli({"headers", "-o", t.path("kernel")}).exit_code, 0);
  auto r = RunCli({"scan", t.path("kernel"), "-o", t.path("map.json"), "--stamp-fingerprint"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("optrace did not write"));
  EXPECT_EQ(t.Read("kernel/optrace_point_set.h"), "// mine\n");
}

TEST(PointSetStamp, WithoutASingleHeaderNothingIsStampedAndScanSaysSo) {
  TempTree t;
  t.Write("kernel/run.cc", kProgram);
  auto r = RunCli({"scan", t.path("kernel"), "-o", t.path("map.json"), "--stamp-fingerprint"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("nothing stamped"));
  EXPECT_FALSE(fs::exists(t.path("kernel/optrace_point_set.h")));
}

TEST(PointSetStamp, RevertRemovesTheStampWithTheSingleHeader) {
  TempTree t;
  t.Write("op_kernel/run.cc", kProgram);
  ASSERT_EQ(RunCli({"headers", "-o", t.path("op_kernel")}).exit_code, 0);
  ASSERT_EQ(RunCli({"scan", t.path("op_kernel"), "-o", t.path("map.json"), "--stamp-fingerprint"}).exit_code, 0);
  t.Write("op_kernel/optrace_keep.h", "// a file of the team's\n");
  auto r = RunCli({"instrument", "--op", t.path(), "--revert"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(t.path("op_kernel/optrace_point_set.h")));
  EXPECT_FALSE(fs::exists(t.path("op_kernel/optrace_trace.h")));
  EXPECT_TRUE(fs::exists(t.path("op_kernel/optrace_keep.h")));
}

}  // namespace
}  // namespace optrace
