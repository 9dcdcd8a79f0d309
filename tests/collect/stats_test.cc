#include "collect/stats.h"

#include <gtest/gtest.h>

namespace optrace::collect {
namespace {

// Two AIV cores on rank 0 at 50 MHz (1 us = 50 ticks): "send" takes 1, 2, 3 us on core 0 and 4 us
// on core 1; "wait" (2 us) nests inside the 4 us send.
Collection Sample() {
  Collection c;
  c.labels.resize(2);
  c.labels[0].name = "send";
  c.labels[1].name = "wait";
  c.series = {{0, CoreKind::kAiv, 0, 50e6}, {0, CoreKind::kAiv, 1, 50e6}};
  auto iv = [](uint32_t label, uint32_t core, int64_t b_us, int64_t d_us, int64_t self_us) {
    Interval i;
    i.kind = CoreKind::kAiv;
    i.core_index = core;
    i.series = core;
    i.label = label;
    i.begin_ticks = b_us * 50;
    i.end_ticks = (b_us + d_us) * 50;
    i.self_ticks = self_us * 50;
    return i;
  };
  c.intervals = {iv(0, 0, 0, 1, 1), iv(0, 0, 10, 2, 2), iv(0, 0, 20, 3, 3), iv(0, 1, 0, 4, 2), iv(1, 1, 1, 2, 2)};
  return c;
}

TEST(Stats, PercentilesInterpolateBetweenClosestRanks) {
  StatsTable t = ComputeStats(Sample(), nullptr);
  ASSERT_EQ(t.rows.size(), 2u);
  const LabelStats& send = t.rows[0];
  EXPECT_EQ(send.label, "send");
  EXPECT_EQ(send.duration.count, 4u);
  EXPECT_DOUBLE_EQ(send.duration.total, 10);
  EXPECT_DOUBLE_EQ(send.duration.mean, 2.5);
  EXPECT_DOUBLE_EQ(send.duration.p50, 2.5);   // h = 1.5 -> 2 + 0.5 * (3 - 2)
  EXPECT_DOUBLE_EQ(send.duration.p90, 3.7);   // h = 2.7 -> 3 + 0.7 * (4 - 3)
  EXPECT_DOUBLE_EQ(send.duration.p99, 3.97);  // h = 2.97
  EXPECT_DOUBLE_EQ(send.duration.max, 4);
}

TEST(Stats, DurationsOfTwoClocksOrPast32BitTicksKeepTheirExactValues) {
  // Durations are held as 32-bit ticks of one clock while they can be: a second clock in the same
  // row, or a duration of 2^32 ticks and more, must not change a value.
  Collection c = Sample();
  c.series.push_back({0, CoreKind::kAiv, 2, 1e9});  // core 2 at 1 GHz
  Interval fast;
  fast.kind = CoreKind::kAiv;
  fast.core_index = 2;
  fast.series = 2;
  fast.begin_ticks = 0;
  fast.end_ticks = 1500;  // 1.5 us
  c.intervals.push_back(fast);
  Interval huge = fast;
  huge.end_ticks = int64_t{5} << 32;  // 21474836.48 us
  c.intervals.push_back(huge);
  StatsTable t = ComputeStats(c, nullptr);
  const LabelStats& send = t.rows[0];
  EXPECT_EQ(send.duration.count, 6u);
  EXPECT_DOUBLE_EQ(send.duration.min, 1);
  EXPECT_DOUBLE_EQ(send.duration.p50, 2.5);  // 1, 1.5, 2, 3, 4, 21474836.48
  EXPECT_DOUBLE_EQ(send.duration.max, static_cast<double>(int64_t{5} << 32) * (1e6 / 1e9));
}

TEST(Stats, ShortDurationsFollowedByALongOneKeepTheirExactValues) {
  // Short durations are held in 16 bits until one needs more; moving them to 32 bits (past a chunk
  // boundary) must not change a value.
  Collection c;
  c.labels.resize(1);
  c.labels[0].name = "send";
  c.series = {{0, CoreKind::kAiv, 0, 50e6}};
  double total = 0;
  for (int64_t i = 0; i < 5000; ++i) {
    Interval iv;
    iv.kind = CoreKind::kAiv;
    iv.begin_ticks = i * 100000;
    iv.end_ticks = iv.begin_ticks + (i == 4321 ? 70000 : 1 + i % 50);  // one of 1.4 ms among 0.02-1 us
    total += static_cast<double>(iv.end_ticks - iv.begin_ticks) * (1e6 / 50e6);
    c.intervals.push_back(iv);
  }
  StatsTable t = ComputeStats(c, nullptr);
  ASSERT_EQ(t.rows.size(), 1u);
  const LabelStats& send = t.rows[0];
  EXPECT_EQ(send.duration.count, 5000u);
  EXPECT_DOUBLE_EQ(send.duration.min, 0.02);
  EXPECT_DOUBLE_EQ(send.duration.max, 1400);
  EXPECT_DOUBLE_EQ(send.duration.p50, 26 * 0.02);  // 1..50 ticks, 100 of each (one 22 replaced)
  EXPECT_EQ(send.core_total_max, total);  // one core: its total, summed in arrival order
  EXPECT_NEAR(send.duration.total, total, 1e-9);
}

TEST(Stats, RoleSpanningBothKindsAddsACoreIndexSeenAgainToItsTotal) {
  // Per-core totals are keyed by (rank, core index) and appended in core order; a role of AIC 0-1
  // and AIV 0-1 meets core index 0 again after AIC 1, and must add to the same total.
  Collection c;
  c.labels.resize(1);
  c.labels[0].name = "step";
  auto iv = [&](int32_t rank, CoreKind kind, uint32_t core, int64_t us) {
    Interval i;
    i.rank = rank;
    i.kind = kind;
    i.core_index = core;
    i.series = static_cast<uint32_t>(c.series.size());
    c.series.push_back({rank, kind, core, 50e6});
    i.end_ticks = us * 50;
    i.self_ticks = i.end_ticks;
    c.intervals.push_back(i);
  };
  iv(0, CoreKind::kAic, 0, 1);
  iv(0, CoreKind::kAic, 1, 5);
  iv(0, CoreKind::kAiv, 0, 2);
  iv(0, CoreKind::kAiv, 1, 1);
  iv(1, CoreKind::kAic, 0, 1);
  Result<RoleMap> roles = ParseRoles("both: aic 0-1\nboth: aiv 0-1\n", "roles.txt");
  ASSERT_TRUE(roles.ok()) << roles.status().message();
  StatsTable t = ComputeStats(c, &*roles);
  ASSERT_EQ(t.role_rows.size(), 1u);
  const LabelStats& both = t.role_rows[0];
  EXPECT_EQ(both.cores, 3u);  // (0, 0): 1 + 2 us, (0, 1): 5 + 1 us, (1, 0): 1 us
  EXPECT_DOUBLE_EQ(both.core_total_min, 1);
  EXPECT_DOUBLE_EQ(both.core_total_max, 6);
  EXPECT_EQ(both.slowest_rank, 0);
  EXPECT_EQ(both.slowest_core, 1u);
  ASSERT_EQ(t.rows.size(), 2u);  // AIC and AIV rows keep their own totals
  EXPECT_EQ(t.rows[0].cores, 3u);
  EXPECT_DOUBLE_EQ(t.rows[0].core_total_max, 5);
  EXPECT_EQ(t.rows[1].cores, 2u);
  EXPECT_DOUBLE_EQ(t.rows[1].core_total_max, 2);
}

TEST(Stats, SelfTimeAndSpreadAcrossCores) {
  StatsTable t = ComputeStats(Sample(), nullptr);
  const LabelStats& send = t.rows[0];
  EXPECT_DOUBLE_EQ(send.self_total, 8);
  EXPECT_DOUBLE_EQ(send.self_mean, 2);
  EXPECT_EQ(send.cores, 2u);
  EXPECT_DOUBLE_EQ(send.core_total_min, 4);  // core 1: 4 us
  EXPECT_DOUBLE_EQ(send.core_total_max, 6);  // core 0: 1 + 2 + 3 us
  EXPECT_EQ(send.slowest_core, 0u);
}

TEST(Stats, RolesGroupCoresByTheRolesFile) {
  Result<RoleMap> roles = ParseRoles("first: aiv 0\nsecond: aiv 1\n", "roles.txt");
  ASSERT_TRUE(roles.ok()) << roles.status().message();
  StatsTable t = ComputeStats(Sample(), &*roles);
  ASSERT_EQ(t.role_rows.size(), 3u);
  EXPECT_EQ(t.role_rows[0].role, "first");
  EXPECT_EQ(t.role_rows[0].label, "send");
  EXPECT_EQ(t.role_rows[0].duration.count, 3u);
  EXPECT_EQ(t.role_rows[1].role, "second");
  EXPECT_EQ(t.role_rows[1].duration.count, 1u);
  EXPECT_EQ(t.role_rows[2].label, "wait");
}

TEST(Stats, RoleCoverageFlagsRolesWithoutCoresAndCoresWithoutRole) {
  Result<RoleMap> roles = ParseRoles("ghost: aiv 8-9\npart: aiv 1-3\n", "roles.txt");
  ASSERT_TRUE(roles.ok()) << roles.status().message();
  Diagnostics d;
  AddRoleCoverageProblems(Sample(), *roles, d);  // the sample has aiv 0 and aiv 1
  ASSERT_EQ(d.Count(Problem::kRoleMatchesNoCore), 1u);
  EXPECT_EQ(d.Get(Problem::kRoleMatchesNoCore).examples[0], "role 'ghost' (aiv 8-9): no such core in the dumps");
  ASSERT_EQ(d.Count(Problem::kRoleCoresAbsent), 1u);
  EXPECT_EQ(d.Get(Problem::kRoleCoresAbsent).examples[0], "role 'part' declares aiv 1-3 but the dumps have no aiv 2-3");
  ASSERT_EQ(d.Count(Problem::kCoreWithoutRole), 1u);
  EXPECT_EQ(d.Get(Problem::kCoreWithoutRole).examples[0], "aiv 0: in the dumps, in no role");
  EXPECT_FALSE(d.HasDataLoss());  // warnings, not data loss: --strict is unaffected
}

TEST(Stats, RolesThatFitTheDumpsAddNoProblem) {
  Result<RoleMap> roles = ParseRoles("first: aiv 0\nsecond: aiv 1\n", "roles.txt");
  ASSERT_TRUE(roles.ok()) << roles.status().message();
  Diagnostics d;
  AddRoleCoverageProblems(Sample(), *roles, d);
  EXPECT_TRUE(d.Empty());
}

TEST(Stats, TableListsEveryLabelWithItsCoreKind) {
  std::string text = FormatStatsTable(ComputeStats(Sample(), nullptr));
  EXPECT_NE(text.find("send"), std::string::npos);
  EXPECT_NE(text.find("AIV"), std::string::npos);
  EXPECT_NE(text.find("rank 0 AIV 0"), std::string::npos);
}

}  // namespace
}  // namespace optrace::collect
