#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "collect/dump_builder.h"
#include "testing/cli_runner.h"

namespace optrace::collect {
namespace {

using ::testing::HasSubstr;
using optrace::testing::RunCli;
using namespace testing;  // NOLINT
namespace fs = std::filesystem;

TEST(InspectCommand, ValidDumpGivesAPerSlotTable) {
  fs::path dir = FreshDir();
  WriteBytes(dir / "rank0.bin", SmallNativeDump());
  auto r = RunCli({"inspect", dir.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rank0.bin: rank 0, native, valid (4 slots of 32 words, 1 never written)"));
  EXPECT_THAT(r.out, HasSubstr("AIV"));
  EXPECT_THAT(r.out, HasSubstr("1 file(s): 1 valid, 0 empty, 0 overflowed, 0 corrupt"));
}

TEST(InspectCommand, TimestampsGoingBackwardsMakeTheFileCorruptButKeepTheTable) {
  fs::path dir = FreshDir();
  SlotSpec s{CoreKind::kAiv, 2};
  s.events = {{Bid("a"), 0, 100}, {Eid("a"), 0, 60}};
  WriteBytes(dir / "rank0.bin", ToBytes(BuildNativeBuffer({s}, 16)));
  auto r = RunCli({"inspect", dir.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("rank0.bin: rank 0, native, corrupt (1 slots of 16 words, 0 never written)"));
  EXPECT_THAT(r.out, HasSubstr("slot 0 (AIV 2): record 1 at tick 60 is earlier than record 0 at tick 100"));
  EXPECT_THAT(r.out, HasSubstr("fill%"));
}

TEST(InspectCommand, VerdictsForEmptyOverflowedAndCorruptFiles) {
  fs::path dir = FreshDir();
  WriteBytes(dir / "rank0.bin", std::string(256, '\0'));
  SlotSpec s{CoreKind::kAic, 0};
  s.events = {{Bid("a"), 0, 1}, {Eid("a"), 0, 2}, {Bid("a"), 0, 3}, {Eid("a"), 0, 4}};
  s.dropped = 9;
  WriteBytes(dir / "rank1.bin", ToBytes(BuildNativeBuffer({s}, 16)));
  std::vector<uint64_t> w = BuildNativeBuffer({SlotSpec{}}, 16);
  w[format::kWordEventCount] = 99;
  WriteBytes(dir / "rank2.bin", ToBytes(w));
  auto r = RunCli({"inspect", dir.string(), "--format", "json"});
  EXPECT_EQ(r.exit_code, 1);
  nlohmann::json doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["files"].size(), 3u);
  EXPECT_EQ(doc["files"][0]["verdict"], "empty");
  EXPECT_THAT(doc["files"][0]["message"].get<std::string>(), HasSubstr("synchronise"));
  EXPECT_EQ(doc["files"][1]["verdict"], "overflowed");
  EXPECT_EQ(doc["files"][1]["slots"][0]["dropped"], 9);
  EXPECT_DOUBLE_EQ(doc["files"][1]["slots"][0]["fill"].get<double>(), 1.0);
  EXPECT_EQ(doc["files"][2]["verdict"], "corrupt");
  EXPECT_THAT(doc["files"][2]["message"].get<std::string>(), HasSubstr("count 99 > capacity 4"));
}

TEST(InspectCommand, LegacyDumpRowsAreInspectedToo) {
  auto r = RunCli({"inspect", std::string(OPTRACE_TEST_DATA_DIR) + "/collect/legacy/rank000.pt"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("rank 0, legacy, valid"));
}

TEST(InspectCommand, NoDumpsIsAnError) {
  fs::path dir = FreshDir();
  auto r = RunCli({"inspect", dir.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no dumps found"));
}

}  // namespace
}  // namespace optrace::collect
