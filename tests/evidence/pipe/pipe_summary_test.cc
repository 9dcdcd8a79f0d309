#include "evidence/pipe/pipe_summary.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace optrace::evidence {
namespace {

std::string Data(const std::string& name) { return std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/opprof/" + name; }

const MetricEntry* FindMetric(const PipeSummary& s, std::string_view name) {
  for (const MetricEntry& m : s.metrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

const RoleValue* ForRole(const MetricEntry& m, std::string_view role) {
  for (const RoleValue& rv : m.per_role) {
    if (rv.role == role) return &rv;
  }
  return nullptr;
}

PipeSummary SyntheticWithRoles(const std::string& dir) {
  auto run = LoadOpprof({Data(dir)});
  EXPECT_TRUE(run.ok()) << run.status().message();
  auto roles = LoadRoles(Data("roles.txt"));
  EXPECT_TRUE(roles.ok()) << roles.status().message();
  return SummarizePipe(*run, &*roles);
}

// Hand-worked values: tests/data/evidence/README.md (opprof/synthetic_a).
TEST(PipeSummaryTest, PerRoleMeanMaxSpreadMatchHandWorkedCase) {
  PipeSummary s = SyntheticWithRoles("synthetic_a");
  const MetricEntry* t = FindMetric(s, "aiv_time(us)");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->per_role.size(), 2u);  // send, recv: not gemm (an AIC role)
  const MetricSummary& send = *ForRole(*t, "send")->summary;
  EXPECT_EQ(send.samples, 2u);
  EXPECT_DOUBLE_EQ(send.mean, 11);
  EXPECT_DOUBLE_EQ(send.max, 12);
  EXPECT_DOUBLE_EQ(send.spread, 2);
  EXPECT_EQ(send.max_core, "aiv 1");
  const MetricSummary& recv = *ForRole(*t, "recv")->summary;
  EXPECT_DOUBLE_EQ(recv.mean, 23);
  EXPECT_DOUBLE_EQ(recv.min, 20);
  EXPECT_DOUBLE_EQ(recv.spread, 6);
  EXPECT_EQ(recv.max_core, "aiv 3");
  const MetricSummary& gemm = *ForRole(*FindMetric(s, "aic_time(us)"), "gemm")->summary;
  EXPECT_DOUBLE_EQ(gemm.mean, 32);
  EXPECT_DOUBLE_EQ(gemm.spread, 4);
}

TEST(PipeSummaryTest, NaCellsAreLeftOutNotZero) {
  PipeSummary s = SyntheticWithRoles("synthetic_a");
  const MetricEntry* m = FindMetric(s, "aiv_icache_miss_rate");
  ASSERT_NE(m, nullptr);
  EXPECT_DOUBLE_EQ(ForRole(*m, "send")->summary->mean, 0.2);
  const MetricSummary& recv = *ForRole(*m, "recv")->summary;
  EXPECT_EQ(recv.samples, 1u);  // aiv 3 is NA
  EXPECT_DOUBLE_EQ(recv.mean, 0.05);
}

TEST(PipeSummaryTest, AbsentKnownColumnsAreNotProvidedNeverZero) {
  PipeSummary s = SyntheticWithRoles("synthetic_a");
  const MetricEntry* m = FindMetric(s, "aiv_vec_bankgroup_cflt_ratio");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(m->provided);
  EXPECT_EQ(m->table, "ResourceConflictRatio");
  for (const RoleValue& rv : m->per_role) {
    EXPECT_FALSE(rv.summary.has_value());
    EXPECT_EQ(rv.reason, "not provided");
  }
  const MetricEntry* bw = FindMetric(s, "aic_mte2_active_bw(GB/s)");
  ASSERT_NE(bw, nullptr);
  EXPECT_FALSE(bw->provided);
}

TEST(PipeSummaryTest, AbsentTableIsListedAndItsMetricsNotProvided) {
  PipeSummary s = SyntheticWithRoles("synthetic_a");
  bool l2_absent = false;
  for (const auto& [name, file] : s.tables) l2_absent |= name == "L2Cache" && file.empty();
  EXPECT_TRUE(l2_absent);
  const MetricEntry* m = FindMetric(s, "aiv_total_hit_rate(%)");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(m->provided);
}

TEST(PipeSummaryTest, ExtraColumnsOfNewerExportsAreKept) {
  PipeSummary s = SyntheticWithRoles("synthetic_a");
  const MetricEntry* m = FindMetric(s, "memory_bound");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->provided);
  EXPECT_EQ(m->per_role.size(), 3u);  // unprefixed: every role
}

TEST(PipeSummaryTest, DefaultRolesAreOnePerCoreKind) {
  auto run = LoadOpprof({Data("workload128")});
  ASSERT_TRUE(run.ok()) << run.status().message();
  PipeSummary s = SummarizePipe(*run, nullptr);
  ASSERT_EQ(s.roles.size(), 2u);
  EXPECT_EQ(s.roles[0].name, "aic");
  EXPECT_EQ(s.roles[1].found_cores, 2u);
  // Real sample: vector0 0.257732, vector1 0.279070.
  const MetricSummary& icache = *ForRole(*FindMetric(s, "aiv_icache_miss_rate"), "aiv")->summary;
  EXPECT_NEAR(icache.mean, (0.257732 + 0.279070) / 2, 1e-12);
  EXPECT_NEAR(icache.spread, 0.279070 - 0.257732, 1e-12);
  EXPECT_EQ(icache.max_core, "aiv 1");
  const RoleValue& bw = *ForRole(*FindMetric(s, "aic_mte1_active_bw(GB/s)"), "aic");
  EXPECT_FALSE(bw.summary.has_value());
  EXPECT_EQ(bw.reason, "no values (NA in every row)");
}

TEST(PipeSummaryTest, RealMinimalSampleHasNoL2CacheTable) {
  auto run = LoadOpprof({Data("minimal")});
  ASSERT_TRUE(run.ok());
  PipeSummary s = SummarizePipe(*run, nullptr);
  const MetricEntry* m = FindMetric(s, "aiv_write_hit_rate(%)");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(m->provided);
  EXPECT_DOUBLE_EQ(ForRole(*FindMetric(s, "aiv_time(us)"), "aiv")->summary->mean, 3.200556);
}

TEST(PipeSummaryTest, RolesReportCoresAbsentFromTheExport) {
  auto run = LoadOpprof({Data("synthetic_a")});
  auto roles = LoadRoles(Data("roles_wide.txt"));
  ASSERT_TRUE(roles.ok());
  PipeSummary s = SummarizePipe(*run, &*roles);
  ASSERT_EQ(s.roles.size(), 2u);
  EXPECT_EQ(s.roles[1].declared_cores, 6u);
  EXPECT_EQ(s.roles[1].found_cores, 2u);
  EXPECT_EQ(s.roles[1].missing, "aiv 4-7");
  EXPECT_EQ(s.unassigned, "aic 0-1");
}

TEST(PipeSummaryTest, CompareGivesPerRoleDeltasOfMeans) {
  PipeSummary a = SyntheticWithRoles("synthetic_a");
  PipeSummary b = SyntheticWithRoles("synthetic_b");
  std::vector<MetricDelta> d = ComparePipe(a, b);
  int checked = 0;
  for (const MetricDelta& x : d) {
    if (x.name == "aiv_time(us)" && x.role == "send") {
      EXPECT_DOUBLE_EQ(*x.delta, 1.0);  // 12 - 11
      EXPECT_NEAR(*x.delta_pct, 100.0 / 11, 1e-9);
      ++checked;
    }
    if (x.name == "aiv_time(us)" && x.role == "recv") {
      EXPECT_DOUBLE_EQ(*x.delta, -3.0);  // 20 - 23
      ++checked;
    }
    if (x.name == "aiv_vec_wait_ratio" && x.role == "send") {
      EXPECT_FALSE(x.delta.has_value());  // synthetic_b has no ResourceConflictRatio.csv
      EXPECT_EQ(x.reason, "compare: not provided");
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3);
}

TEST(PipeSummaryTest, CoresMissingFromAnExportAgainstOpBasicInfoAreAProblemLine) {
  auto run = LoadOpprof({Data("coverage_short")});
  ASSERT_TRUE(run.ok()) << run.status().message();
  ExportCoverage c = SummarizePipe(*run, nullptr).coverage;
  ASSERT_TRUE(c.checked) << c.why_not;
  EXPECT_EQ(c.expected_aic, 8u);   // mix: AIC = Block Dim
  EXPECT_EQ(c.expected_aiv, 16u);  // AIV = Mix Block Dim
  ASSERT_EQ(c.tables.size(), 1u);
  EXPECT_EQ(c.tables[0].aic_found, 2u);
  EXPECT_EQ(c.tables[0].aiv_found, 4u);
  EXPECT_EQ(c.tables[0].missing, "aic 2-7, aiv 4-15");
  ASSERT_EQ(c.problems.size(), 1u);
  EXPECT_EQ(c.problems[0],
            "PipeUtilization: rows for 2 AIC + 4 AIV cores, OpBasicInfo.csv declares 8 AIC + 16 AIV (Op Type mix, "
            "Block Dim 8, Mix Block Dim 16); missing aic 2-7, aiv 4-15");
}

TEST(PipeSummaryTest, TheRealMinimalSampleMissesOneVectorCore) {
  auto run = LoadOpprof({Data("minimal")});
  ASSERT_TRUE(run.ok()) << run.status().message();
  ExportCoverage c = CheckExportCoverage(*run);
  ASSERT_TRUE(c.checked);
  EXPECT_EQ(c.expected_aiv, 2u);
  for (const TableCoverage& t : c.tables) EXPECT_EQ(t.missing, "aiv 1") << t.table;
  EXPECT_FALSE(c.problems.empty());
}

TEST(PipeSummaryTest, EveryDeclaredCorePresentIsNoProblem) {
  auto run = LoadOpprof({Data("workload128")});  // Block Dim 1, Mix Block Dim 2: cube0, vector0, vector1
  ASSERT_TRUE(run.ok()) << run.status().message();
  ExportCoverage c = CheckExportCoverage(*run);
  ASSERT_TRUE(c.checked);
  EXPECT_TRUE(c.problems.empty()) << c.problems[0];
}

TEST(PipeSummaryTest, WithoutOpBasicInfoCoverageIsNotCheckedAndSaysWhy) {
  auto run = LoadOpprof({Data("synthetic_a")});
  ASSERT_TRUE(run.ok()) << run.status().message();
  ExportCoverage c = CheckExportCoverage(*run);
  EXPECT_FALSE(c.checked);
  EXPECT_EQ(c.why_not, "no OpBasicInfo.csv among the inputs");
}

TEST(PipeSummaryTest, CompressCoresWritesRanges) {
  EXPECT_EQ(CompressCores(format::CoreKind::kAiv, {0, 1, 2, 5, 7, 8}), "aiv 0-2,5,7-8");
}

TEST(PipeSummaryTest, KnownColumnsInATableOfUnknownNameAreSummarised) {
  auto t = ParseMetricTableText("block_id,sub_block_id,aiv_time(us),my_counter\n0,vector0,4,1\n1,vector0,6,3\n",
                                "mystery.csv", "mystery");
  ASSERT_TRUE(t.ok()) << t.status().message();
  OpprofRun run;
  run.tables.push_back(std::move(*t));
  PipeSummary s = SummarizePipe(run, nullptr);
  const MetricEntry* m = FindMetric(s, "aiv_time(us)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->provided);
  EXPECT_EQ(m->table, "mystery");
  EXPECT_DOUBLE_EQ(ForRole(*m, "aiv")->summary->mean, 5.0);
  const MetricEntry* extra = FindMetric(s, "my_counter");
  ASSERT_NE(extra, nullptr);
  EXPECT_TRUE(extra->provided);
  EXPECT_TRUE(s.tables_without_metrics.empty());
  EXPECT_TRUE(CheckEveryTableYields(s).ok());
}

TEST(PipeSummaryTest, FileWhoseColumnsAllComeFromAnotherFileYieldsNoMetric) {
  auto run = LoadOpprof({Data("synthetic_a/PipeUtilization.csv")});
  ASSERT_TRUE(run.ok()) << run.status().message();
  auto dup = ParseMetricTableText("block_id,sub_block_id,aiv_time(us)\n0,vector0,4\n", "dup.csv", "dup");
  ASSERT_TRUE(dup.ok()) << dup.status().message();
  run->tables.push_back(std::move(*dup));
  PipeSummary s = SummarizePipe(*run, nullptr);
  ASSERT_EQ(s.tables_without_metrics, std::vector<std::string>{"dup.csv"});
  Status st = CheckEveryTableYields(s);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("dup.csv: yields no metric"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace optrace::evidence
