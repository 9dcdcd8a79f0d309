#include "evidence/report/bytes_definition.h"

#include <gtest/gtest.h>

#include <sstream>

#include "evidence/report/report.h"

namespace optrace::evidence {
namespace {

const std::string kData = std::string(OPTRACE_TEST_DATA_DIR) + "/evidence";

TEST(BytesDefinitionTest, TokenBytesAreTokensTimesHiddenTimesDtype) {
  auto b = ParseBytesDefinition(R"({"kind": "effective_token_bytes", "tokens_per_rank": 4096, "hidden": 7168,
    "dtype_bytes": 1, "includes_metadata": false, "includes_local_traffic": false,
    "includes_protocol_overhead": false})",
                                "b.json");
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->BytesPerRank(), 4096.0 * 7168);
  EXPECT_EQ(b->Formula(), "4096 tokens x 7168 hidden x 1 B = 29360128 B");
}

TEST(BytesDefinitionTest, LogicalOutputBytesCountTheTopKCopies) {
  auto b = ParseBytesDefinition(R"({"kind": "logical_output_bytes", "tokens_per_rank": 4096, "hidden": 7168,
    "dtype_bytes": 1, "topk": 8, "includes_metadata": true, "includes_local_traffic": true,
    "includes_protocol_overhead": false})",
                                "b.json");
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->BytesPerRank(), 4096.0 * 7168 * 8);
  auto no_topk = ParseBytesDefinition(R"({"kind": "logical_output_bytes", "tokens_per_rank": 1, "hidden": 1,
    "dtype_bytes": 1, "includes_metadata": true, "includes_local_traffic": true, "includes_protocol_overhead": false})",
                                      "b.json");
  ASSERT_FALSE(no_topk.ok());
  EXPECT_NE(no_topk.status().message().find("give topk"), std::string::npos);
}

TEST(BytesDefinitionTest, UndeclaredOverheadsAreRefused) {
  auto b = ParseBytesDefinition(R"({"kind": "physical_link_bytes", "bytes_per_rank": 1000000})", "bytes.json");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(),
            "bytes.json: 'includes_metadata' (true or false) is required: the bytes are not defined without it");
  auto kind = ParseBytesDefinition(R"({"kind": "capacity", "bytes_per_rank": 1})", "bytes.json");
  ASSERT_FALSE(kind.ok());
  EXPECT_NE(kind.status().message().find("kind 'capacity' is not one of"), std::string::npos);
}

EvidenceInputs Latency() {
  auto lat = ReadLatencyCsvFiles({kData + "/latency/dispatch_latency.csv"}, {});
  EXPECT_TRUE(lat.ok());
  EvidenceInputs in;
  LatencyReport r = AnalyzeLatency(*lat, {});
  in.latency = LatencyEvidence{*lat, r};
  return in;
}

TEST(BytesDefinitionTest, TheReportGivesBandwidthOnlyWithDeclaredBytes) {
  EvidenceInputs in = Latency();
  std::ostringstream without;
  WriteEvidenceReport(in, without);
  EXPECT_NE(without.str().find("Bandwidth: No bandwidth is given"), std::string::npos);
  EXPECT_EQ(without.str().find("GB/s"), std::string::npos);

  in.bytes = *ParseBytesDefinition(R"({"kind": "effective_token_bytes", "bytes_per_rank": 14000000,
    "includes_metadata": false, "includes_local_traffic": false, "includes_protocol_overhead": false})",
                                   "bytes.json");
  std::ostringstream with;
  WriteEvidenceReport(in, with);
  // dispatch_latency.csv: per-iteration max median 14 us, P95 15.8 us (tests/data/evidence/README.md):
  // 14e6 B / 14 us = 1000 GB/s; / 15.8 us = 886.076 GB/s.
  EXPECT_NE(with.str().find("| per-iteration max: median | 14.000 | 1000 |"), std::string::npos) << with.str();
  EXPECT_NE(with.str().find("| per-iteration max: P95 | 15.800 | 886.076 |"), std::string::npos);
  EXPECT_NE(with.str().find("metadata counted: no"), std::string::npos);
}

}  // namespace
}  // namespace optrace::evidence
