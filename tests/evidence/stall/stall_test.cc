#include "evidence/stall/stall.h"

#include <gtest/gtest.h>

#include <string>

namespace optrace::evidence {
namespace {

std::string Data(const std::string& name) { return std::string(OPTRACE_TEST_DATA_DIR) + "/evidence/stall/" + name; }

const ReasonShare& Reason(const StallGroup& g, std::string_view name) {
  for (const ReasonShare& r : g.reasons) {
    if (r.reason == name) return r;
  }
  ADD_FAILURE() << "no reason " << name;
  static ReasonShare none;
  return none;
}

StallReport Hand() {
  auto t = ReadStallCsv(Data("stalls.csv"));
  EXPECT_TRUE(t.ok()) << t.status().message();
  return AnalyzeStalls(*t);
}

// Hand-worked values: tests/data/evidence/README.md (stall/stalls.csv).
TEST(StallTest, DenominatorsAreAllSamplesAndNotIssuedSamples) {
  StallReport r = Hand();
  EXPECT_EQ(r.overall.all_samples, 200u);
  EXPECT_EQ(r.overall.active_samples, 70u);
  EXPECT_EQ(r.overall.not_issued_samples, 130u);
}

TEST(StallTest, SharesOverBothDenominatorsMatchHandWorkedCase) {
  StallReport r = Hand();
  const ReasonShare& ibuf = Reason(r.overall, "Stall_IBuf_Empty");
  EXPECT_EQ(ibuf.samples, 40u);  // "IBuf_Empty" without prefix is the same reason
  EXPECT_DOUBLE_EQ(*ibuf.share_of_all, 0.20);
  EXPECT_DOUBLE_EQ(*ibuf.share_of_not_issued, 40.0 / 130);
  EXPECT_DOUBLE_EQ(*Reason(r.overall, "Stall_Register_bank_conflict").share_of_all, 0.025);
  EXPECT_DOUBLE_EQ(*Reason(r.overall, "Stall_Others").share_of_not_issued, 20.0 / 130);
  EXPECT_EQ(Reason(r.overall, "Stall_Divergence_Stack_Spill").samples, 0u);
}

TEST(StallTest, ActiveHasNoNotIssuedShare) {
  StallReport r = Hand();
  const ReasonShare& active = Reason(r.overall, "active");
  EXPECT_EQ(active.samples, 70u);  // "Active" spelled with a capital counts too
  EXPECT_DOUBLE_EQ(*active.share_of_all, 0.35);
  EXPECT_FALSE(active.share_of_not_issued.has_value());
}

TEST(StallTest, EveryKnownReasonIsListedInOrder) {
  StallReport r = Hand();
  ASSERT_EQ(r.overall.reasons.size(), 8u);
  EXPECT_EQ(r.overall.reasons.front().reason, "Stall_IBuf_Empty");
  EXPECT_EQ(r.overall.reasons.back().reason, "active");
}

TEST(StallTest, PerCoreGroupsNormalizeCoreNames) {
  StallReport r = Hand();
  ASSERT_EQ(r.per_core.size(), 2u);
  EXPECT_EQ(r.per_core[1].key, "aiv 1");  // written AIV1
  EXPECT_EQ(r.per_core[0].not_issued_samples, 50u);
  EXPECT_DOUBLE_EQ(*Reason(r.per_core[0], "Stall_IBuf_Empty").share_of_not_issued, 0.6);
  ASSERT_NE(r.per_core[1].TopStall(), nullptr);
  EXPECT_EQ(r.per_core[1].TopStall()->reason, "Stall_Warp_Level_Sync");
  EXPECT_DOUBLE_EQ(*r.per_core[1].TopStall()->share_of_not_issued, 0.5);
}

TEST(StallTest, PerSourceLineSortedBySamples) {
  StallReport r = Hand();
  ASSERT_EQ(r.per_location.size(), 4u);
  EXPECT_EQ(r.per_location[0].key, "elastic_dispatch.cpp:120");
  EXPECT_EQ(r.per_location[0].all_samples, 100u);
  EXPECT_EQ(r.per_location[1].key, "elastic_dispatch.cpp:150");
  EXPECT_DOUBLE_EQ(*r.per_location[1].TopStall()->share_of_not_issued, 0.8);
  EXPECT_EQ(r.per_location[3].key, "elastic_dispatch.cpp:160");
}

TEST(StallTest, FileAndLineColumnsFormALocationAndUnknownReasonWarns) {
  auto t = ReadStallCsv(Data("file_line_unknown.csv"));
  ASSERT_TRUE(t.ok()) << t.status().message();
  StallReport r = AnalyzeStalls(*t);
  EXPECT_EQ(r.overall.not_issued_samples, 5u);
  EXPECT_DOUBLE_EQ(*Reason(r.overall, "Stall_Mystery").share_of_not_issued, 0.2);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("file_line_unknown.csv:3: unknown stall reason 'Stall_Mystery'"), std::string::npos);
  EXPECT_EQ(r.per_location[0].key, "kernel.cpp:10");
  EXPECT_TRUE(r.per_core.empty());
}

TEST(StallTest, PcIsTheLocationWhenThereIsNoSource) {
  auto t = ReadStallCsvText("pc,reason,count\n0x10,active,1\n0x10,Stall_Others,3\n", "pc.csv");
  ASSERT_TRUE(t.ok());
  StallReport r = AnalyzeStalls(*t);
  ASSERT_EQ(r.per_location.size(), 1u);
  EXPECT_EQ(r.per_location[0].key, "0x10");
}

TEST(StallTest, AllActiveLeavesNotIssuedSharesEmptyWithAWarning) {
  auto t = ReadStallCsvText("reason,count\nactive,5\n", "a.csv");
  ASSERT_TRUE(t.ok());
  StallReport r = AnalyzeStalls(*t);
  EXPECT_FALSE(Reason(r.overall, "Stall_Others").share_of_not_issued.has_value());
  ASSERT_EQ(r.warnings.size(), 1u);
}

TEST(StallTest, CanonicalReasonNames) {
  EXPECT_EQ(CanonicalStallReason("ibuf_empty"), "Stall_IBuf_Empty");
  EXPECT_EQ(CanonicalStallReason("Stall_Warp_Level_Sync"), "Stall_Warp_Level_Sync");
  EXPECT_EQ(CanonicalStallReason("Active"), "active");
  EXPECT_EQ(CanonicalStallReason("Stall_Mystery"), "");
}

TEST(StallTest, MissingCountColumnIsRejected) {
  auto t = ReadStallCsv(Data("no_count.csv"));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("no_count.csv:1: no count (or samples) column"), std::string::npos)
      << t.status().message();
}

TEST(StallTest, NonNumericCountNamesTheLine) {
  auto t = ReadStallCsv(Data("bad_count.csv"));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("bad_count.csv:3: count 'many' is not a non-negative integer"), std::string::npos);
}

TEST(StallTest, EmptyHeaderOnlyAndZeroTotalAreRejected) {
  auto empty = ReadStallCsvText("", "e.csv");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("e.csv: empty file"), std::string::npos);
  auto header = ReadStallCsvText("reason,count\n", "h.csv");
  ASSERT_FALSE(header.ok());
  EXPECT_NE(header.status().message().find("h.csv: no data rows"), std::string::npos);
  auto zero = ReadStallCsv(Data("all_zero.csv"));
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("every count is 0"), std::string::npos);
}

}  // namespace
}  // namespace optrace::evidence
