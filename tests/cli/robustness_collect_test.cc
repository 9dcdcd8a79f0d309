// Issue 11 regressions for collect / inspect: each holds the minimised input of one failure the
// fuzzing campaign found (crash, hang, lost rank, misleading success).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "collect/dump_builder.h"
#include "testing/cli_runner.h"

namespace optrace::collect {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using nlohmann::json;
using optrace::testing::RunCli;
using namespace testing;  // NOLINT
namespace fs = std::filesystem;

const std::string kData = std::string(OPTRACE_TEST_DATA_DIR) + "/collect/";

// One AIV slot with one pair whose end tick has bit 62 flipped.
std::string DumpWithHugeTimestamp() {
  SlotSpec s{CoreKind::kAiv, 0};
  s.events = {{Bid("x"), 0, 100}, {Eid("x"), 0, 200 | (int64_t{1} << 62)}};
  return ToBytes(BuildNativeBuffer({s}, 32));
}

TEST(RobustCollect, HugeTimestampWritesAValidJsonTrace) {
  fs::path dir = FreshDir();
  WriteBytes(dir / "dumps/rank0.bin", DumpWithHugeTimestamp());
  auto r = RunCli({"collect", (dir / "dumps").string(), "-o", (dir / "t.json").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json t = json::parse(ReadText(dir / "t.json"));
  EXPECT_TRUE(t.contains("traceEvents"));
}

TEST(RobustCollect, NanOrTinyClockIsAUsageError) {
  fs::path dir = FreshDir();
  WriteBytes(dir / "dumps/rank0.bin", SmallNativeDump());
  for (const char* bad : {"nan", "inf", "1e-300", "-5"}) {
    auto r = RunCli({"collect", (dir / "dumps").string(), "-o", (dir / "t.json").string(), "--clock-mhz", bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_THAT(r.out + r.err, HasSubstr("--clock-mhz")) << bad;
  }
}

TEST(RobustCollect, HugeDroppedCountIsACorruptSlotNotAHang) {
  fs::path dir = FreshDir();
  SlotSpec bad{CoreKind::kAiv, 1};
  bad.events = {{Bid("x"), 0, 100}, {Eid("x"), 0, 200}};
  bad.dropped = uint64_t{1} << 62;
  SlotSpec good{CoreKind::kAiv, 0};
  good.events = {{Bid("x"), 0, 100}, {Eid("x"), 0, 200}};
  WriteBytes(dir / "dumps/rank0.bin", ToBytes(BuildNativeBuffer({good, bad}, 32)));
  auto r = RunCli({"collect", (dir / "dumps").string(), "-o", (dir / "t.json").string(), "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("corrupt_slot"));
  EXPECT_THAT(r.out, HasSubstr("dropped count"));
}

TEST(RobustCollect, SymlinkLoopRankIsNamedAndTheOtherRanksCollected) {
  fs::path dir = FreshDir();
  WriteBytes(dir / "dumps/rank0.bin", SmallNativeDump());
  fs::create_symlink("rank1.bin", dir / "dumps/rank1.bin");
  auto r = RunCli({"collect", (dir / "dumps").string(), "-o", (dir / "t.json").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err + r.out, HasSubstr("rank1.bin"));
  EXPECT_THAT(r.err + r.out, HasSubstr("symlink loop"));
  auto strict = RunCli({"collect", (dir / "dumps").string(), "-o", (dir / "t.json").string(), "--strict"});
  EXPECT_EQ(strict.exit_code, 1);
}

TEST(RobustCollect, InspectNamesASymlinkLoopAsCorrupt) {
  fs::path dir = FreshDir();
  WriteBytes(dir / "dumps/rank0.bin", SmallNativeDump());
  fs::create_symlink("rank1.bin", dir / "dumps/rank1.bin");
  auto r = RunCli({"inspect", (dir / "dumps").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("symlink loop"));
}

TEST(RobustCollect, DanglingSymlinkAndDirectoryRanksAreNamedNotSkipped) {
  fs::path dir = FreshDir();
  WriteBytes(dir / "dumps/rank0.bin", SmallNativeDump());
  fs::create_symlink("gone.bin", dir / "dumps/rank1.bin");
  fs::create_directories(dir / "dumps/rank2.bin");
  auto r = RunCli({"collect", (dir / "dumps").string(), "-o", (dir / "t.json").string(), "--strict"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out + r.err, HasSubstr("rank1.bin"));
  EXPECT_THAT(r.out + r.err, HasSubstr("rank2.bin"));
  EXPECT_TRUE(fs::exists(dir / "t.json"));
}

TEST(RobustCollect, AllZeroRankDoesNotStopTheOthers) {
  fs::path dir = FreshDir();
  WriteBytes(dir / "dumps/rank0.bin", SmallNativeDump());
  WriteBytes(dir / "dumps/rank1.bin", std::string(32 * 8 * 4, '\0'));
  auto r = RunCli({"collect", (dir / "dumps").string(), "-o", (dir / "t.json").string(), "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  EXPECT_THAT(r.out, HasSubstr("rank_unreadable"));
  EXPECT_THAT(r.out, HasSubstr("all 1024 bytes are zero"));
  json t = json::parse(ReadText(dir / "t.json"));
  bool rank0 = false;
  for (const json& e : t["traceEvents"]) rank0 = rank0 || (e.value("ph", "") == "X" && e["pid"] == 0);
  EXPECT_TRUE(rank0);
}

TEST(RobustCollect, AllZeroLegacyRankDoesNotStopTheOthers) {
  fs::path dir = FreshDir();
  fs::create_directories(dir / "dumps");
  fs::copy_file(kData + "legacy/rank000.pt", dir / "dumps/rank000.pt");
  fs::copy_file(kData + "zero/rank000.pt", dir / "dumps/rank001.pt");
  auto r = RunCli({"collect", (dir / "dumps").string(), "--map", kData + "legacy/point_map.json", "-o",
                   (dir / "t.json").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out + r.err, HasSubstr("rank001.pt"));
  EXPECT_TRUE(fs::exists(dir / "t.json"));
}

TEST(RobustCollect, EveryRankUnreadableIsStillAnError) {
  fs::path dir = FreshDir();
  WriteBytes(dir / "dumps/rank0.bin", std::string(64, '\0'));
  auto r = RunCli({"collect", (dir / "dumps").string(), "-o", (dir / "t.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.out + r.err, HasSubstr("are zero"));
}

TEST(RobustCollect, OverwrittenMagicBesideAnIntactHeaderIsDataLoss) {
  fs::path dir = FreshDir();
  SlotSpec a{CoreKind::kAiv, 0}, b{CoreKind::kAiv, 1};
  a.events = b.events = {{Bid("x"), 0, 100}, {Eid("x"), 0, 200}};
  std::vector<uint64_t> words = BuildNativeBuffer({a, b}, 32);
  words[32] ^= 0xffu;  // slot 1's magic byte
  WriteBytes(dir / "dumps/rank0.bin", ToBytes(words));
  auto r = RunCli({"collect", (dir / "dumps").string(), "-o", (dir / "t.json").string(), "--strict"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out + r.err, HasSubstr("unknown magic"));
  auto i = RunCli({"inspect", (dir / "dumps").string()});
  EXPECT_EQ(i.exit_code, 1);
  EXPECT_THAT(i.out, HasSubstr("unknown magic"));
}

TEST(RobustCollect, TwoSlotsClaimingOneCoreAreFlagged) {
  fs::path dir = FreshDir();
  SlotSpec a{CoreKind::kAiv, 3}, b{CoreKind::kAiv, 3};
  a.events = b.events = {{Bid("x"), 0, 100}, {Eid("x"), 0, 200}};
  WriteBytes(dir / "dumps/rank0.bin", ToBytes(BuildNativeBuffer({a, b}, 32)));
  auto r = RunCli({"collect", (dir / "dumps").string(), "-o", (dir / "t.json").string(), "--strict"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out + r.err, HasSubstr("both claim"));
  auto i = RunCli({"inspect", (dir / "dumps").string()});
  EXPECT_EQ(i.exit_code, 1);
  EXPECT_THAT(i.out, HasSubstr("both claim"));
}

TEST(RobustCollect, ASequentialMapShiftedByOneIsNamedAsAnotherBuild) {
  // One TRACE_POINT added before the others shifts every legacy id: most ids still exist, but
  // B and E swap, so nothing pairs.
  fs::path dir = FreshDir();
  WriteBytes(dir / "map.json",
             R"({"points": {"2": {"label": "processing", "event_type": "B"}, "3": {"label": "processing", "event_type": "E"},)"
             R"( "4": {"label": "send", "event_type": "B"}, "5": {"label": "send", "event_type": "E"}}})");
  auto r = RunCli({"collect", kData + "legacy", "--map", (dir / "map.json").string(), "-o", (dir / "t.json").string(),
                   "--format", "json"});
  EXPECT_THAT(r.out + r.err, HasSubstr("map_mismatch"));
  EXPECT_THAT(r.out + r.err, HasSubstr("another build"));
}

// A legacy map made before a B/E pair ("old") was removed from the sources: every later id is
// shifted by two, so B stays B, E stays E and everything pairs. Before, each interval silently
// took another point's label ("dispatch send" became "dispatch"'s sibling) and --strict exited 0.
std::string SequentialMap(bool stale) {
  std::vector<std::string> labels = {"processing", "dispatch", "dispatch send", "combine", "combine recv"};
  if (stale) labels.insert(labels.begin() + 1, "old");
  std::string points;
  int id = 1;
  for (const std::string& l : labels)
    for (const char* t : {"B", "E"})
      points += fmt::format(R"({}"{}": {{"label": "{}", "event_type": "{}"}})", points.empty() ? "" : ", ", id++, l, t);
  return "{\"points\": {" + points + "}}";
}

std::string DumpOfTheBuildWithoutOld() {
  // ids of the build: processing 1/2, dispatch 3/4, dispatch send 5/6, combine 7/8, combine recv 9/10
  std::vector<SlotSpec> slots;
  for (uint32_t core = 0; core < 4; ++core) {
    SlotSpec s{CoreKind::kAiv, core};
    int64_t t = 100;
    s.events.push_back({1, 0, t});
    for (int round = 0; round < 3; ++round)
      for (uint32_t b : {3u, 7u}) {
        s.events.push_back({b, 0, t += 10});
        s.events.push_back({b + 2, 0, t += 10});
        s.events.push_back({b + 3, 0, t += 10});
        s.events.push_back({b + 1, 0, t += 10});
      }
    s.events.push_back({2, 0, t += 10});
    slots.push_back(s);
  }
  std::vector<std::optional<SlotSpec>> in(slots.begin(), slots.end());
  return ToBytes(BuildNativeBuffer(in, 64));
}

TEST(RobustCollect, ASequentialMapShiftedByAPairIsSeenInTheNestingOfItsLabels) {
  fs::path dir = FreshDir();
  WriteBytes(dir / "dumps/rank0.bin", DumpOfTheBuildWithoutOld());
  WriteBytes(dir / "fits.json", SequentialMap(false));
  WriteBytes(dir / "stale.json", SequentialMap(true));
  auto fits = RunCli({"collect", (dir / "dumps").string(), "--map", (dir / "fits.json").string(), "-o",
                      (dir / "a.json").string(), "--strict"});
  EXPECT_EQ(fits.exit_code, 0) << fits.out << fits.err;
  EXPECT_THAT(fits.out + fits.err, Not(HasSubstr("map_mismatch")));
  auto stale = RunCli({"collect", (dir / "dumps").string(), "--map", (dir / "stale.json").string(), "-o",
                       (dir / "b.json").string(), "--strict"});
  EXPECT_EQ(stale.exit_code, 1) << stale.out << stale.err;
  EXPECT_THAT(stale.out + stale.err, HasSubstr("map_mismatch"));
  EXPECT_THAT(stale.out + stale.err, HasSubstr("12 of 12 intervals whose label names a parent label"));
}

// Inputs the fuzz campaign found (docs/fuzzing.md), each read through collect and inspect: under
// the sanitizers a regression is a crash or a UBSan report, not a failed expectation.
TEST(RobustCollect, DumpsTheFuzzerFoundAreReadOrRefused) {
  for (const auto& e : fs::directory_iterator(kData + "fuzz")) {
    fs::path dir = FreshDir();
    fs::create_directories(dir / "dumps");
    fs::copy_file(e.path(), dir / "dumps/rank0.bin");
    auto r = RunCli({"collect", (dir / "dumps").string(), "-o", (dir / "t.json").string(), "--format", "json"});
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << e.path() << r.err;
    if (r.exit_code == 0) EXPECT_TRUE(json::accept(ReadText(dir / "t.json"))) << e.path();
    auto i = RunCli({"inspect", (dir / "dumps").string(), "--format", "json"});
    EXPECT_TRUE(json::accept(i.out)) << e.path();
  }
}

}  // namespace
}  // namespace optrace::collect
