// Issue 29 regressions, files that are not regular: outputs that are FIFOs or devices are written
// as they are (or refused), never replaced by a regular file; every command refuses an output
// that is one of its inputs; inputs that never end (FIFOs, /dev/zero links) are not read.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <fstream>

#include "collect/dump_builder.h"
#include "testing/cli_runner.h"
#include "testing/example_tree.h"
#include "testing/temp_tree.h"

namespace optrace {
namespace {
using ::testing::HasSubstr;
using testing::RunCli;
using testing::TempTree;
namespace fs = std::filesystem;
using collect::testing::SmallNativeDump;

bool IsFifo(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

const char* kLatency = "rank,iteration,elapsed_us\n0,0,5\n0,1,6\n1,0,5\n1,1,7\n";

// --- outputs that are not regular files ----------------------------------------------------

TEST(SpecialOutputs, AFifoWithoutAReaderIsRefusedAndStaysAFifo) {
  TempTree t({{"dumps/rank0.bin", SmallNativeDump()}, {"lat.csv", kLatency}});
  ASSERT_EQ(::mkfifo(t.path("out").c_str(), 0644), 0);
  for (std::vector<std::string> cmd :
       {std::vector<std::string>{"collect", t.path("dumps"), "-o", t.path("out")},
        {"report", "--latency", t.path("lat.csv"), "-o", t.path("out")},
        {"plan", "--op", testing::ExampleOperatorDir().string(), "-o", t.path("out")}}) {
    auto r = RunCli(cmd);
    EXPECT_NE(r.exit_code, 0) << cmd[0];
    EXPECT_THAT(r.err, HasSubstr("a FIFO with no reader")) << cmd[0];
    EXPECT_TRUE(IsFifo(t.path("out"))) << cmd[0] << " replaced the FIFO by a regular file";
  }
}

// A reader like `cat FIFO` leaves at the first end of file. The output was opened twice (once to
// look for a reader, then again to write): a reader that read in between left, and the second
// open waited for a reader forever (issue 53.3). The descriptor that found the reader is written.
TEST(SpecialOutputs, AFifoReaderThatLeavesAtEndOfFileGetsTheWholeOutput) {
  TempTree t({{"dumps/rank0.bin", SmallNativeDump()}});
  ASSERT_EQ(::mkfifo(t.path("out").c_str(), 0644), 0);
  // The race itself is rare; how often the command opened the FIFO for writing is not:
  // inotify counts the closes of write descriptors, one per run (opens are watched too, so two
  // closes are never adjacent events, which inotify would merge into one).
  int watch = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(watch, 0);
  ASSERT_GE(::inotify_add_watch(watch, t.path("out").c_str(), IN_OPEN | IN_CLOSE_WRITE), 0);
  int write_closes = 0;
  for (int run = 0; run < 10; ++run) {
    std::string got;
    std::thread reader([&] {
      int fd = ::open(t.path("out").c_str(), O_RDONLY);  // blocks until the command opens it
      if (fd < 0) return;
      char buf[4096];
      for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
      ::close(fd);
    });
    testing::CliResult r;
    for (int attempt = 0; attempt < 100; ++attempt) {  // until the reader is waiting in open()
      r = RunCli({"collect", t.path("dumps"), "-o", t.path("out")});
      if (r.exit_code == 0 || r.err.find("a FIFO with no reader") == std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    reader.join();
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(got, HasSubstr("traceEvents")) << "run " << run;
    EXPECT_EQ(got.back(), '\n') << "run " << run << ": the trace was cut";
    alignas(inotify_event) char events[4096];
    for (ssize_t n; (n = ::read(watch, events, sizeof events)) > 0;)
      for (char* p = events; p < events + n; p += sizeof(inotify_event) + reinterpret_cast<inotify_event*>(p)->len)
        if (reinterpret_cast<inotify_event*>(p)->mask & IN_CLOSE_WRITE) ++write_closes;
    EXPECT_EQ(write_closes, run + 1) << "the command opened the FIFO for writing more than once";
  }
  ::close(watch);
}

TEST(SpecialOutputs, DevNullIsWrittenIntoNotReplaced) {
  if (::access("/dev/null", W_OK) != 0) GTEST_SKIP() << "/dev/null not writable";
  struct stat before {};
  ASSERT_EQ(::stat("/dev/null", &before), 0);
  TempTree t({{"dumps/rank0.bin", SmallNativeDump()}});
  EXPECT_EQ(RunCli({"plan", "--op", testing::ExampleOperatorDir().string(), "-o", "/dev/null"}).exit_code, 0);
  EXPECT_EQ(RunCli({"collect", t.path("dumps"), "-o", "/dev/null"}).exit_code, 0);
  struct stat after {};
  ASSERT_EQ(::stat("/dev/null", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode)) << "/dev/null is no longer a device";
  EXPECT_EQ(after.st_rdev, before.st_rdev);
}

// --- outputs that are inputs: one rule for every command -----------------------------------

TEST(OutputsAreNotInputs, LatencyReportTimelineAndEnvRefuseToOverwriteTheirInput) {
  TempTree t({{"lat.csv", kLatency}, {"roles.txt", "send: aiv 0-3\n"}, {"fields.txt", "clock_mhz: 50\n"}});
  const std::string timeline = std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/timeline/pipe_timeline.json";
  for (std::vector<std::string> cmd :
       {std::vector<std::string>{"latency", t.path("lat.csv"), "-o", t.path("lat.csv")},
        {"report", "--latency", t.path("lat.csv"), "-o", t.path("lat.csv")},
        {"timeline", timeline, "--roles", t.path("roles.txt"), "-o", t.path("roles.txt")},
        {"env", "--fields", t.path("fields.txt"), "-o", t.path("fields.txt")}}) {
    const std::string victim = cmd.back();
    const std::string before = Read(victim);
    auto r = RunCli(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd[0];
    EXPECT_THAT(r.err, HasSubstr("is an input of this command")) << cmd[0];
    EXPECT_EQ(Read(victim), before) << cmd[0];
  }
}

TEST(OutputsAreNotInputs, PlanExplainAndCollectRefuseAFileOfTheirInputDirectory) {
  TempTree t({{"dumps/rank0.bin", SmallNativeDump()}});
  testing::CopyExampleOperator(t, "op");
  const std::string src = t.path("op/op_kernel/moe_dispatch_combine.cpp");
  const std::string before = Read(src);
  for (std::vector<std::string> cmd : {std::vector<std::string>{"plan", "--op", t.path("op"), "-o", src},
                                       {"collect", t.path("dumps"), "--source", t.path("op"), "-o", src},
                                       {"explain", t.path("dumps"), "--source", t.path("op"), "-o", src}}) {
    auto r = RunCli(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd[0] << r.err;
    EXPECT_THAT(r.err, HasSubstr("is a file of the input directory")) << cmd[0];
    EXPECT_EQ(Read(src), before) << cmd[0];
  }
}

// --- inputs that never end ------------------------------------------------------------------

// Runs the real binary with a deadline: a command that blocks on a FIFO or reads /dev/zero is
// killed at 20 s (exit 124) instead of hanging the test. Returns the exit code; stderr in *err.
int RunBounded(const std::string& args, std::string* err) {
  testing::TempTree out;
  const std::string cmd = "timeout 20 " + std::string(OPTRACE_BINARY) + " " + args + " >" + out.path("err") + " 2>&1";
  int status = std::system(cmd.c_str());
  *err = Read(out.path("err"));
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(EndlessInputs, ADumpLinkedToDevZeroIsThatRanksProblemNotAHang) {
  TempTree t({{"dumps/rank0.bin", SmallNativeDump()}});
  fs::create_symlink("/dev/zero", t.path("dumps/rank1.bin"));
  std::string err;
  int rc = RunBounded("collect " + t.path("dumps") + " -o " + t.path("t.json"), &err);
  EXPECT_NE(rc, 124) << "collect read /dev/zero forever";
  EXPECT_TRUE(fs::exists(t.path("t.json"))) << err;  // rank 0 is collected
  EXPECT_THAT(err, HasSubstr("character device"));
}

TEST(EndlessInputs, EveryDirectlyNamedFifoIsRefusedAtOnce) {
  TempTree t({{"dumps/rank0.bin", SmallNativeDump()}});
  ASSERT_EQ(::mkfifo(t.path("fifo").c_str(), 0644), 0);
  const std::string f = t.path("fifo");
  for (const std::string& args :
       {"collect " + t.path("dumps") + " --map " + f + " -o " + t.path("t.json"), "hook verify --script " + f,
        "latency " + f, "stall " + f, "timeline " + f, "pipe " + f, "env --fields " + f, "report --latency " + f}) {
    std::string err;
    int rc = RunBounded(args, &err);
    EXPECT_NE(rc, 124) << args << ": blocked on the FIFO";
    EXPECT_NE(rc, 0) << args;
    EXPECT_THAT(err, HasSubstr("FIFO")) << args;
  }
}

}  // namespace
}  // namespace optrace
