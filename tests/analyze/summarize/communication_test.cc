#include "analyze/summarize/communication.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::Sample;
using testing::TempDir;

const fs::path kAscend = fs::path(OPTRACE_SOURCE_DIR).parent_path() / "shared" / "data" / "ascend";

json Load(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

// The numbers straight from the raw JSON, written apart from the reader: per rank the sums over
// collective ops, per transport the sums over ops that used it, per link the sums over "-total"
// entries (or every entry when the file has none).
void ExpectSameAsRawJson(const AnalysisResult& r) {
  size_t ranks_with_comm = 0, links_seen = 0;
  for (const RankInput& in : r.discovery.ranks) {
    SCOPED_TRACE(in.dir.string());
    if (!in.communication.empty()) {
      ++ranks_with_comm;
      json j = Load(in.communication);
      double elapse = 0, transit = 0, wait = 0, sync = 0, idle = 0;
      uint64_t ops = 0;
      std::map<std::string, std::pair<double, double>> transport;  // size, time
      for (auto& [step, kinds] : j.items())
        for (const char* kind : {"collective", "p2p"}) {
          if (!kinds.contains(kind)) continue;
          for (auto& [key, op] : kinds[kind].items()) {
            if (key == "Total Op Info") continue;
            const json& t = op["Communication Time Info"];
            if (std::string(kind) == "collective") {
              ++ops;
              elapse += t.value("Elapse Time(ms)", 0.0);
              transit += t.value("Transit Time(ms)", 0.0);
              wait += t.value("Wait Time(ms)", 0.0);
              sync += t.value("Synchronization Time(ms)", 0.0);
              idle += t.value("Idle Time(ms)", 0.0);
            }
            for (auto& [name, link] : op["Communication Bandwidth Info"].items()) {
              double size = link.value("Transit Size(MB)", 0.0), time = link.value("Transit Time(ms)", 0.0);
              if (size <= 0 && time <= 0) continue;
              transport[name].first += size;
              transport[name].second += time;
            }
          }
        }
      const CommRankSummary* c = nullptr;
      for (const CommRankSummary& x : r.summaries.comm_ranks)
        if (x.rank == in.rank) c = &x;
      ASSERT_NE(c, nullptr);
      EXPECT_EQ(c->ops, ops);
      EXPECT_NEAR(c->elapse_ms, elapse, 1e-9 * (1 + elapse));
      EXPECT_NEAR(c->transit_ms, transit, 1e-9 * (1 + transit));
      EXPECT_NEAR(c->wait_ms, wait, 1e-9 * (1 + wait));
      EXPECT_NEAR(c->sync_ms, sync, 1e-9 * (1 + sync));
      EXPECT_NEAR(c->idle_ms, idle, 1e-9 * (1 + idle));
      if (!std::isnan(c->wait_ratio)) {
        EXPECT_NEAR(c->wait_ratio, wait / (wait + transit), 1e-12);
      }
      for (auto& [name, st] : transport) {
        const CommTransportSummary* x = nullptr;
        for (const CommTransportSummary& y : r.summaries.comm_transports)
          if (y.rank == in.rank && y.transport == name) x = &y;
        ASSERT_NE(x, nullptr) << name;
        EXPECT_NEAR(x->size_mb, st.first, 1e-9 * (1 + st.first)) << name;
        EXPECT_NEAR(x->time_ms, st.second, 1e-9 * (1 + st.second)) << name;
        if (st.second > 0) {
          EXPECT_NEAR(x->bandwidth_gbps, st.first / st.second, 1e-9 * (1 + x->bandwidth_gbps));
        }
      }
    }
    if (!in.communication_matrix.empty()) {
      json j = Load(in.communication_matrix);
      auto is_total = [](const std::string& key) {
        std::string op = key.substr(0, key.find('@'));
        return op.size() >= 6 && op.compare(op.size() - 6, 6, "-total") == 0;
      };
      bool totals = false;
      for (auto& [step, kinds] : j.items())
        for (auto& [kind, ops] : kinds.items())
          for (auto& [key, links] : ops.items()) totals |= is_total(key);
      std::map<std::string, std::pair<double, double>> links;  // "group src-dst transport"
      for (auto& [step, kinds] : j.items())
        for (auto& [kind, ops] : kinds.items())
          for (auto& [key, pairs] : ops.items()) {
            if (key == "Total Op Info") continue;
            if (totals && !is_total(key)) continue;
            std::string group = key.find('@') == std::string::npos ? "" : key.substr(key.find('@') + 1);
            for (auto& [pair, link] : pairs.items()) {
              auto& v = links[group + " " + pair + " " + link.value("Transport Type", "")];
              v.first += link.value("Transit Size(MB)", 0.0);
              v.second += link.value("Transit Time(ms)", 0.0);
            }
          }
      for (auto& [key, v] : links) {
        const CommLinkSummary* x = nullptr;
        for (const CommLinkSummary& y : r.summaries.comm_links)
          if (y.reported_by == in.rank && fmt::format("{} {}-{} {}", y.group, y.src, y.dst, y.transport) == key) x = &y;
        ASSERT_NE(x, nullptr) << key;
        EXPECT_NEAR(x->size_mb, v.first, 1e-9 * (1 + v.first)) << key;
        EXPECT_NEAR(x->time_ms, v.second, 1e-9 * (1 + v.second)) << key;
        ++links_seen;
      }
    }
  }
  EXPECT_GT(ranks_with_comm + links_seen, 0u);
}

TEST(CommunicationTest, NumbersEqualAnIndependentComputationFromTheRawJson) {
  ExpectSameAsRawJson(testing::Analyze(Sample("tp_l1_text")));
}

TEST(CommunicationTest, RealCapturesEqualAnIndependentComputationFromTheRawJson) {
  if (!fs::exists(kAscend)) GTEST_SKIP() << "no ../shared";
  for (const char* root : {"msinsight/test/data/pytorch/text/level1", "msinsight/test/st/level2",
                           "msinsight/server/src/test/test_data/test_rank_0"}) {
    SCOPED_TRACE(root);
    AnalysisResult r = testing::Analyze(kAscend / root);
    ExpectSameAsRawJson(r);
  }
}

// A 4-rank capture: rank 3 arrives late at every collective (ranks 0-2 wait), and one of the
// HCCS links runs at a quarter of the others' bandwidth.
std::string CommJson(int rank, bool small_packets) {
  json steps;
  for (int i = 0; i < 4; ++i) {
    double wait = rank == 3 ? 0.05 : 3.0;
    json op;
    op["Communication Time Info"] = {{"Start Timestamp(us)", 1700000000000000.0 + i * 10000.0 + (rank == 3 ? 3000 : 0)},
                                     {"Elapse Time(ms)", 1.0 + wait + 0.5},
                                     {"Transit Time(ms)", 1.0},
                                     {"Wait Time(ms)", wait},
                                     {"Synchronization Time(ms)", wait * 0.9},
                                     {"Idle Time(ms)", 0.5},
                                     {"Wait Time Ratio", wait / (wait + 1.0)},
                                     {"Synchronization Time Ratio", wait * 0.9 / (wait * 0.9 + 1.0)}};
    json dist = small_packets ? json{{"0.0625", {400, 0.9}}, {"16.0", {1, 0.1}}} : json{{"16.0", {2, 1.0}}};
    op["Communication Bandwidth Info"] = {
        {"HCCS", {{"Transit Size(MB)", 32.0}, {"Transit Time(ms)", 1.0}, {"Bandwidth(GB/s)", 32.0},
                  {"Large Packet Ratio", small_packets ? 0.1 : 1.0}, {"Size Distribution", dist}}},
        {"RDMA", {{"Transit Size(MB)", 0}, {"Transit Time(ms)", 0}, {"Bandwidth(GB/s)", 0}, {"Large Packet Ratio", 0},
                  {"Size Distribution", json::object()}}}};
    steps["step1"]["collective"][fmt::format("hcom_allReduce__1_{}_1@123", i)] = op;
  }
  steps["step1"]["p2p"] = json::object();
  return steps.dump();
}

// pcie: the links to and from rank 3 go over PCIe at 2.5 GB/s (rank 3 on another server).
std::string MatrixJson(int rank, bool pcie = false) {
  json links;
  for (int dst = 0; dst < 4; ++dst) {
    if (dst == rank) continue;
    bool slow = rank == 1 && dst == 2;
    bool over_pcie = pcie && (rank == 3 || dst == 3);
    double time = over_pcie ? 8.0 : slow ? 4.0 : 1.0;
    links[fmt::format("{}-{}", rank, dst)] = {{"Transport Type", over_pcie ? "PCIE" : "HCCS"}, {"Transit Size(MB)", 20.0},
                                               {"Transit Time(ms)", time}, {"Bandwidth(GB/s)", 20.0 / time},
                                               {"Op Name", "hcom_allReduce__1_0_1"}};
  }
  links[fmt::format("{}-{}", rank, rank)] = {{"Transport Type", "LOCAL"}, {"Transit Size(MB)", 20.0},
                                             {"Transit Time(ms)", 0.1}, {"Bandwidth(GB/s)", 200.0}};
  json m;
  m["step1"]["collective"]["allreduce-total@123"] = links;
  m["step1"]["collective"]["allreduce-top1@123"] = links;  // overlaps -total: must not be added again
  m["step1"]["p2p"] = json::object();
  return m.dump();
}

void WriteCapture(const TempDir& tmp, bool small_packets_on_rank_2, bool pcie = false) {
  for (int r = 0; r < 4; ++r) {
    std::string dir = fmt::format("rank{}_ascend_pt", r);
    std::string kd = "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n";
    for (int i = 0; i < 4; ++i)
      kd += fmt::format("1,hcom_allReduce__1_{}_1,hcom_allReduce_,HCCL,{}.0,{}.0\n", i,
                        1700000000000000LL + i * 10000 + (r == 3 ? 3000 : 0), r == 3 ? 1500 : 4500);
    tmp.Write(dir + "/ASCEND_PROFILER_OUTPUT/kernel_details.csv", kd);
    tmp.Write(dir + "/ASCEND_PROFILER_OUTPUT/communication.json", CommJson(r, small_packets_on_rank_2 && r == 2));
    tmp.Write(dir + "/ASCEND_PROFILER_OUTPUT/communication_matrix.json", MatrixJson(r, pcie));
  }
}

const Finding* FindingOf(const AnalysisResult& r, const std::string& type) {
  for (const Finding& f : r.findings)
    if (f.type == type) return &f;
  return nullptr;
}

TEST(CommunicationTest, PlantedSlowLinkIsNamedWithItsTransport) {
  TempDir tmp;
  WriteCapture(tmp, false);
  AnalysisResult r = testing::Analyze(tmp.path());
  const Finding* f = FindingOf(r, "slow_link");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("1->2 of group 123"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("HCCS"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("5.00 GB/s"), std::string::npos) << f->summary;
  EXPECT_EQ(f->rank, 1);
  ASSERT_EQ(f->evidence.size(), 1u);  // only the planted link; LOCAL links are not compared
  EXPECT_NE(f->evidence[0].file.find("communication_matrix.json"), std::string::npos);
  // The overlapping "-top1" class was not added to the "-total" numbers.
  for (const CommLinkSummary& l : r.summaries.comm_links) EXPECT_EQ(l.entries, 1u);
}

// Rank 3 reached over PCIe (2.5 GB/s) while the others talk over HCCS (20 GB/s): one finding for
// the group, naming both transports and their medians; without PCIe links, none.
TEST(CommunicationTest, AGroupSplitOverHccsAndPcieIsNamed) {
  TempDir tmp;
  WriteCapture(tmp, false, /*pcie=*/true);
  AnalysisResult r = testing::Analyze(tmp.path());
  const Finding* f = FindingOf(r, "mixed_transport_group");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->summary.find("Group 123 moves data over HCCS and PCIE"), std::string::npos) << f->summary;
  EXPECT_NE(f->summary.find("6 PCIE link(s) run at a median 2.50 GB/s"), std::string::npos) << f->summary;
  EXPECT_EQ(f->evidence.size(), 2u);  // one line per transport
  TempDir hccs_only;
  WriteCapture(hccs_only, false);
  EXPECT_EQ(FindingOf(testing::Analyze(hccs_only.path()), "mixed_transport_group"), nullptr);
}

TEST(CommunicationTest, PlantedLateRankIsNamedByTheWaitOfTheOthers) {
  TempDir tmp;
  WriteCapture(tmp, false);
  AnalysisResult r = testing::Analyze(tmp.path());
  const Finding* f = FindingOf(r, "comm_wait_dominated");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->ranks, (std::vector<int>{0, 1, 2}));
  EXPECT_NE(f->summary.find("Rank 3 waits least"), std::string::npos) << f->summary;
  double late = -1;
  for (auto& [k, v] : f->numbers)
    if (k == "late_rank") late = v;
  EXPECT_EQ(late, 3);
  EXPECT_EQ(FindingOf(r, "small_packets"), nullptr);
}

TEST(CommunicationTest, SmallPacketsDominatingATransportAreAFinding) {
  TempDir tmp;
  WriteCapture(tmp, true);
  AnalysisResult r = testing::Analyze(tmp.path());
  const Finding* f = FindingOf(r, "small_packets");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->rank, 2);
  EXPECT_NE(f->summary.find("90% of its HCCS transit time"), std::string::npos) << f->summary;
}

TEST(CommunicationTest, FieldsTheExportLacksStayNotProvided) {
  TempDir tmp;
  WriteCapture(tmp, false);
  // Rank 0's export without Synchronization Time: a sum of nothing is not 0.
  json j = json::parse(CommJson(0, false));
  for (auto& [key, op] : j["step1"]["collective"].items()) op["Communication Time Info"].erase("Synchronization Time(ms)");
  tmp.Write("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/communication.json", j.dump());
  AnalysisResult r = testing::Analyze(tmp.path());
  ASSERT_FALSE(r.summaries.comm_ranks.empty());
  EXPECT_EQ(r.summaries.comm_ranks[0].rank, 0);
  EXPECT_TRUE(std::isnan(r.summaries.comm_ranks[0].sync_ms));
  EXPECT_TRUE(std::isnan(r.summaries.comm_ranks[0].sync_ratio));
  EXPECT_FALSE(std::isnan(r.summaries.comm_ranks[0].wait_ms));
}

TEST(CommunicationTest, ACaptureWithoutCommunicationFilesHasNoCommunicationSummaries) {
  AnalysisResult r = testing::Analyze(Sample("tp_l0_text"));
  EXPECT_TRUE(r.summaries.comm_ranks.empty());
  EXPECT_TRUE(r.summaries.comm_links.empty());
  EXPECT_EQ(FindingOf(r, "comm_wait_dominated"), nullptr);
}

// --- Parallel groups (profiler_metadata.json parallel_group_info). ---

TEST(CommunicationTest, GroupHashIsTheExportsDoubleHash) {
  // Checked against the ST sample: its communication.json keys use these hashes.
  EXPECT_EQ(GroupHash("group_name_0"), "5862276093215481612");
  EXPECT_EQ(GroupHash("group_name_5"), "5862276114690318097");
  EXPECT_EQ(GroupHash("group_name_19"), "3985310405473756128");
}

TEST(CommunicationTest, ProcessGroupNamesMapToParallelismKinds) {
  EXPECT_EQ(ParallelKind("tp"), "tp");
  EXPECT_EQ(ParallelKind("dp_cp"), "dp");
  EXPECT_EQ(ParallelKind("pp"), "pp");
  EXPECT_EQ(ParallelKind("ep"), "ep");
  EXPECT_EQ(ParallelKind("expert_model_parallel"), "ep");
  EXPECT_EQ(ParallelKind("exp"), "ep");  // MindSpeed's EP group, as msprof-analyze's ep_load_balance reads it
  EXPECT_EQ(ParallelKind("default_group"), "world");
  EXPECT_EQ(ParallelKind("mp"), "mp");
  EXPECT_EQ(ParallelKind("embd"), "other");
}

std::string Metadata(int rank) {
  // 4 ranks: tp pairs {0,1} {2,3}, pp pairs {0,2} {1,3}, the world group.
  json info;
  info["group_name_0"] = {{"group_name", "default_group"}, {"group_rank", rank}, {"global_ranks", {0, 1, 2, 3}}};
  int tp = rank / 2, pp = rank % 2;
  info[fmt::format("group_name_{}", 10 + tp)] = {{"group_name", "tp"}, {"global_ranks", {2 * tp, 2 * tp + 1}}};
  info[fmt::format("group_name_{}", 20 + pp)] = {{"group_name", "pp"}, {"global_ranks", {pp, pp + 2}}};
  return json{{"parallel_group_info", info}}.dump();
}

TEST(CommunicationTest, GroupsGetTheirRanksKindsSkewAndPipelineStages) {
  TempDir tmp;
  WriteCapture(tmp, false);
  // The planted capture's collectives run in group "123": name it in the metadata too.
  for (int r = 0; r < 4; ++r) {
    json m = json::parse(Metadata(r));
    tmp.Write(fmt::format("rank{}_ascend_pt/profiler_metadata.json", r), m.dump());
  }
  AnalysisResult r = testing::Analyze(tmp.path());
  std::map<std::string, const ParallelGroup*> by_hash;
  for (const ParallelGroup& g : r.summaries.groups) by_hash[g.hash] = &g;
  ASSERT_TRUE(by_hash.count(GroupHash("group_name_0")));
  EXPECT_EQ(by_hash[GroupHash("group_name_0")]->kind, "world");
  ASSERT_TRUE(by_hash.count(GroupHash("group_name_21")));
  EXPECT_EQ(by_hash[GroupHash("group_name_21")]->kind, "pp");
  EXPECT_EQ(by_hash[GroupHash("group_name_21")]->global_ranks, (std::vector<int>{1, 3}));
  // Pipeline stage: the rank's index in its pp group.
  std::map<int, int> stage;
  for (const RankSummary& s : r.summaries.ranks) stage[s.rank] = s.pp_stage;
  EXPECT_EQ(stage, (std::map<int, int>{{0, 0}, {1, 0}, {2, 1}, {3, 1}}));
  // The collectives of group "123" (not in the metadata) still get their skew, rank 3 last.
  ASSERT_EQ(r.cross_rank.groups.size(), 1u);
  EXPECT_EQ(r.cross_rank.groups[0].group, "123");
  EXPECT_EQ(r.cross_rank.groups[0].collectives, 4);
  EXPECT_EQ(r.cross_rank.groups[0].last_rank, 3);
}

TEST(CommunicationTest, RealCaptureLinksGetGlobalRanksThroughTheirGroup) {
  if (!fs::exists(kAscend)) GTEST_SKIP() << "no ../shared";
  AnalysisResult r = testing::Analyze(kAscend / "msinsight/test/st/level2");
  // Rank 0's pp group is [0, 2]: its link 0-1 in that group goes to global rank 2.
  const CommLinkSummary* pp = nullptr;
  for (const CommLinkSummary& l : r.summaries.comm_links)
    if (l.reported_by == 0 && l.group == GroupHash("group_name_19") && l.src == 0 && l.dst == 1) pp = &l;
  ASSERT_NE(pp, nullptr);
  EXPECT_EQ(pp->src_global, 0);
  EXPECT_EQ(pp->dst_global, 2);
  for (const RankSummary& s : r.summaries.ranks) EXPECT_EQ(s.pp_stage, 0) << s.rank;  // ranks 0 and 1 lead their pipelines
}

// A db export's analysis.db holds the same numbers as communication.json, as tables.
TEST(CommunicationTest, DbExportCommunicationEqualsItsAnalysisDbTables) {
  if (!fs::exists(kAscend)) GTEST_SKIP() << "no ../shared";
  fs::path root = kAscend / "msinsight/test/data/pytorch/db/level1";
  AnalysisResult r = testing::Analyze(root);
  ASSERT_EQ(r.summaries.comm_ranks.size(), 2u);
  for (const CommRankSummary& c : r.summaries.comm_ranks) {
    fs::path db = root / fmt::format("rank{}_ascend_pt/ASCEND_PROFILER_OUTPUT/analysis.db", c.rank);
    sqlite3* h = nullptr;
    ASSERT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(h,
                                 "SELECT COUNT(*), SUM(elapse_time), SUM(transit_time), SUM(wait_time) FROM "
                                 "CommAnalyzerTime WHERE type = 'collective'",
                                 -1, &st, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
    EXPECT_EQ(c.ops, static_cast<uint64_t>(sqlite3_column_int64(st, 0)));
    EXPECT_NEAR(c.elapse_ms, sqlite3_column_double(st, 1), 1e-9);
    EXPECT_NEAR(c.transit_ms, sqlite3_column_double(st, 2), 1e-9);
    EXPECT_NEAR(c.wait_ms, sqlite3_column_double(st, 3), 1e-9);
    sqlite3_finalize(st);
    sqlite3_close(h);
  }
  EXPECT_FALSE(r.summaries.comm_links.empty());
}

}  // namespace
}  // namespace optrace::analyze
