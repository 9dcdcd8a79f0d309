#include "analyze/read/normalize.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <regex>

#include "analyze/read/discover.h"
#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

using testing::Sample;
using testing::TempDir;

struct Normalized {
  StringTable strings;
  std::vector<RankTable> ranks;
};

Normalized NormalizeRoot(const std::filesystem::path& root) {
  Normalized n;
  std::vector<DataIssue> issues;
  Rules rules = testing::BuiltinRules();
  auto d = Discover({root}, issues);
  EXPECT_TRUE(d.ok()) << d.status().message();
  if (!d.ok()) return n;
  for (const RankInput& in : d->ranks) {
    auto t = NormalizeRank(in, rules, n.strings, issues);
    EXPECT_TRUE(t.ok()) << t.status().message();
    if (t.ok()) n.ranks.push_back(std::move(t).value());
  }
  return n;
}

TEST(NormalizeTest, ParsesMicrosecondTextToExactNanoseconds) {
  EXPECT_EQ(ParseUsToNs("1736405443881410.320\t"), 1736405443881410320);
  EXPECT_EQ(ParseUsToNs(" 50.621"), 50621);
  EXPECT_EQ(ParseUsToNs("1881.080000"), 1881080);
  EXPECT_EQ(ParseUsToNs("0"), 0);
  EXPECT_EQ(ParseUsToNs("1.2345"), 1235);  // rounds the 4th decimal
  EXPECT_NEAR(double(*ParseUsToNs("1.73641057643165e+15")), 1736410576431650000.0, 1024);
  EXPECT_EQ(ParseUsToNs("N/A"), std::nullopt);
  EXPECT_EQ(ParseUsToNs(""), std::nullopt);
  EXPECT_EQ(ParseUsToNs("abc"), std::nullopt);
}

TEST(NormalizeTest, TextExportBecomesRelativeEventsWithProvenance) {
  Normalized n = NormalizeRoot(Sample("tp_l1_text"));
  ASSERT_EQ(n.ranks.size(), 2u);
  const RankTable& t = n.ranks[0];
  ASSERT_EQ(t.events.size(), 191u);
  EXPECT_EQ(t.base_ns, 1736408883704643212);  // the first Start Time(us), tab stripped
  const Event& first = t.events[0];
  EXPECT_EQ(first.start_ns, 0);
  EXPECT_EQ(first.dur_ns, 53741);
  EXPECT_EQ(first.row, 2u);
  EXPECT_EQ(n.strings.Get(first.name), "trans_TransData_0");
  EXPECT_EQ(n.strings.Get(first.input_shapes), "32,3,224,224");  // literal quotes removed
  EXPECT_EQ(first.op_type, OpType::kAiv);
  EXPECT_EQ(first.step_id, 50);
  EXPECT_EQ(first.block_dim, 32);
  ASSERT_TRUE(t.PipeOf(first).has_value());
  EXPECT_DOUBLE_EQ(t.PipeValue(*t.PipeOf(first), Pipe::kAivVecTime), 9.406);
  EXPECT_DOUBLE_EQ(t.PipeValue(*t.PipeOf(first), Pipe::kAicMacTime), 0.0);  // a real 0.0 stays 0
  int comm = 0;
  for (const Event& e : t.events)
    if (e.op_type == OpType::kCommunication) {
      ++comm;
      EXPECT_FALSE(t.PipeOf(e).has_value());  // N/A pipeline fields stay missing
      EXPECT_EQ(e.stream_id, -1);
    }
  EXPECT_EQ(comm, 4);
  EXPECT_EQ(t.identity.profiler_level, "Level1");
  EXPECT_EQ(t.comm_ops.size(), 4u);
  ASSERT_EQ(t.step_trace.size(), 1u);
  EXPECT_EQ(t.step_trace[0].step_id, 50);
}

TEST(NormalizeTest, Level0RowsWithoutCoreAreUnknownOrCommunicationByName) {
  Normalized n = NormalizeRoot(Sample("tp_l0_text"));
  ASSERT_EQ(n.ranks.size(), 2u);
  std::map<OpType, int> hist;
  for (const Event& e : n.ranks[0].events) ++hist[e.op_type];
  EXPECT_EQ(hist[OpType::kCommunication], 4);  // hcom_ names
  EXPECT_EQ(hist[OpType::kUnknown], 187);
  EXPECT_TRUE(n.ranks[0].pipes.empty());
}

TEST(NormalizeTest, Ascend910AUnprefixedPipeColumnsGiveTheOperatorABound) {
  // An Ascend910A export: one AI Core type, pipe stages written without aic_ / aiv_ prefixes.
  testing::TempDir tmp;
  tmp.Write("rank0_ascend_pt/profiler_info_0.json", "{}");
  tmp.Write("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
            "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),aicore_time(us),total_cycles,"
            "vec_time(us),vec_ratio,mac_time(us),mac_ratio,scalar_time(us),scalar_ratio,mte1_time(us),mte1_ratio,"
            "mte2_time(us),mte2_ratio,mte3_time(us),mte3_ratio,icache_miss_rate\n"
            "1,Add,Add,AI_CORE,1000.000,100.0,98.0,78923,1.2,0.012,0,0,0.8,0.008,0,0,96.0,0.98,2.1,0.021,0.0002\n"
            "1,MatMul,MatMul,AI_CORE,1200.000,50.0,49.0,38000,0.5,0.01,45.0,0.92,1.0,0.02,3.0,0.06,4.0,0.08,0,0,0\n");
  AnalysisResult r = testing::Analyze(tmp.path());
  ASSERT_EQ(r.summaries.operators.size(), 2u);
  for (const auto& op : r.summaries.operators) {
    std::string name(r.Str(op.name));
    if (name == "Add") {
      EXPECT_EQ(op.bound.bound_family, "aic_mte") << name;
      EXPECT_EQ(op.bound.bound_stage, "aic_mte2_time") << name;
    } else {
      EXPECT_EQ(op.bound.bound_family, "cube") << name;
    }
  }
}

TEST(NormalizeTest, MsprofOpSummaryUsesItsColumnNames) {
  Normalized n = NormalizeRoot(Sample("msprof_minimal"));
  ASSERT_EQ(n.ranks.size(), 1u);
  const RankTable& t = n.ranks[0];
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(n.strings.Get(t.events[0].name), "sanitized_kernel");
  EXPECT_EQ(t.events[0].op_type, OpType::kMixCv);
  EXPECT_EQ(t.events[0].dur_ns, 42399120);
  EXPECT_EQ(t.events[1].start_ns, 42400000);
  EXPECT_EQ(t.events[0].step_id, -1);
}

// The db export and the text export of the same workload normalize to the same events: the
// samples are two captures of one training step, so every event (name, type, op type, shapes,
// block dim, step, pipeline presence) appears as often in both; times differ per capture and
// tasks of parallel streams (DSA) interleave differently, so the comparison is per event key.
// Communication op names embed the last 3 digits of the HCCL group hash, and the group name holds
// the capture's timestamp ("hcom_allReduce__586_0_1"): the key drops them.
std::string NameKey(const std::string& name) {
  static const std::regex kGroup("^(hcom_[A-Za-z]+_)_[0-9]+(_.*)$");
  return std::regex_replace(name, kGroup, "$1_#$2");
}

std::map<std::string, int> EventKeys(const Normalized& n, size_t rank, bool with_op_type) {
  std::map<std::string, int> keys;
  for (const Event& e : n.ranks[rank].events) {
    std::string k = NameKey(n.strings.Get(e.name)) + "|" + n.strings.Get(e.type) + "|" +
                    (with_op_type ? std::string(OpTypeName(e.op_type)) : "") +
                    "|" + n.strings.Get(e.input_shapes) + "|" + n.strings.Get(e.output_shapes) + "|" +
                    std::to_string(e.step_id) + "|" +
                    (e.op_type == OpType::kCommunication ? "" : std::to_string(e.block_dim)) + "|" +
                    // Pipeline data, not the OP State (text only) that rides in the same row.
                    (n.ranks[rank].PipeOf(e) && n.ranks[rank].PipeOf(e)->AnyPipe() ? "pipe" : "nopipe");
    ++keys[k];
  }
  return keys;
}

// Level0 text exports have no Accelerator Core (every op is unknown there) while the Level0 db
// has TASK.taskType: their op types are compared by LevelZeroDbOpTypesComeFromTaskType instead.
void ExpectSameEvents(const std::string& text_root, const std::string& db_root, size_t ranks,
                      bool with_op_type = true) {
  Normalized text = NormalizeRoot(Sample(text_root));
  Normalized db = NormalizeRoot(Sample(db_root));
  ASSERT_GE(text.ranks.size(), ranks);
  ASSERT_EQ(db.ranks.size(), ranks);
  for (size_t r = 0; r < ranks; ++r) {
    EXPECT_EQ(db.ranks[r].kind, InputKind::kTorchDb);
    EXPECT_EQ(text.ranks[r].events.size(), db.ranks[r].events.size()) << "rank " << r;
    std::map<std::string, int> a = EventKeys(text, r, with_op_type), b = EventKeys(db, r, with_op_type);
    std::string diff;
    for (auto& [k, n] : a)
      if (b[k] != n) diff += "\n text " + std::to_string(n) + " db " + std::to_string(b[k]) + ": " + k;
    for (auto& [k, n] : b)
      if (!a.count(k)) diff += "\n text 0 db " + std::to_string(n) + ": " + k;
    EXPECT_EQ(diff, "") << "rank " << r;
  }
}

TEST(NormalizeTest, DbAndTextExportsOfLevel1NormalizeToTheSameEvents) { ExpectSameEvents("tp_l1_text", "tp_l1_db", 2); }

TEST(NormalizeTest, DbAndTextExportsOfLevel0NormalizeToTheSameEvents) {
  ExpectSameEvents("tp_l0_text", "tp_l0_db", 1, /*with_op_type=*/false);
}

TEST(NormalizeTest, LevelZeroDbOpTypesComeFromTaskType) {
  Normalized db = NormalizeRoot(Sample("tp_l0_db"));
  ASSERT_GE(db.ranks.size(), 1u);
  std::map<std::string, std::string> op_of;  // TASK.taskType -> op type
  for (const Event& e : db.ranks[0].events)
    if (e.op_type != OpType::kCommunication) op_of[db.strings.Get(e.core)] = std::string(OpTypeName(e.op_type));
  EXPECT_EQ(op_of["KERNEL_AICORE"], "aic");
  EXPECT_EQ(op_of["KERNEL_AIVEC"], "aiv");
  EXPECT_EQ(op_of["MIX_AIV"], "mix_cv");
}

TEST(NormalizeTest, DbWaitNsBecomesTheWaitTime) {
  Normalized db = NormalizeRoot(Sample("tp_l1_db"));
  ASSERT_EQ(db.ranks.size(), 2u);
  size_t with_wait = 0, positive = 0;
  for (const Event& e : db.ranks[0].events) {
    if (e.op_type == OpType::kCommunication) continue;
    with_wait += db.ranks[0].WaitNs(e) >= 0;
    positive += db.ranks[0].WaitNs(e) > 0;
  }
  EXPECT_GT(with_wait, 0u);  // rank 0's COMPUTE_TASK_INFO has waitNs
  EXPECT_GT(positive, 0u);
  for (const Event& e : db.ranks[1].events) EXPECT_EQ(db.ranks[1].WaitNs(e), -1);  // rank 1's has none
}

TEST(NormalizeTest, DbPipelineTimesAreConvertedToMicroseconds) {
  Normalized db = NormalizeRoot(Sample("tp_l1_db"));
  const RankTable& t = db.ranks[1];
  const Event& first = t.events[0];
  ASSERT_TRUE(t.PipeOf(first).has_value());
  EXPECT_NEAR(t.PipeValue(*t.PipeOf(first), Pipe::kAivTime), 48.115, 0.001);  // 48114.9 ns in TASK_PMU_INFO
  // Ratios are derived from the times (and not kept): only the 11 stage times are.
  EXPECT_TRUE(std::isnan(t.PipeValue(*t.PipeOf(first), Pipe::kAivVecRatio)));
  EXPECT_EQ(t.files[first.file].table, "TASK");
  EXPECT_GT(first.row, 0u);
}

TEST(NormalizeTest, MissingColumnNamesFileAndColumn) {
  TempDir tmp;
  auto p = tmp.Write("kernel_details.csv", "Step Id,Name,Type,Accelerator Core,Wait Time(us)\n1,a,b,AI_CORE,0\n");
  Rules rules = testing::BuiltinRules();
  StringTable strings;
  RankTable t;
  std::vector<DataIssue> issues;
  Status st = ReadKernelCsv(p, rules, strings, t, issues);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kBadInput);
  EXPECT_NE(st.message().find(p.string()), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("'Start Time(us)', 'Duration(us)'"), std::string::npos) << st.message();
}

TEST(NormalizeTest, UnparsableRowsAreCountedNotFatal) {
  TempDir tmp;
  auto p = tmp.Write("kernel_details.csv",
                     "Name,Start Time(us),Duration(us)\na,10.0,1.0\nb,N/A,2\nc,bad,3\nd,20.5,1.5\n");
  Rules rules = testing::BuiltinRules();
  StringTable strings;
  RankTable t;
  std::vector<DataIssue> issues;
  ASSERT_TRUE(ReadKernelCsv(p, rules, strings, t, issues).ok());
  EXPECT_EQ(t.events.size(), 2u);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].name, "kernel_row_unparsable");
  EXPECT_EQ(issues[0].count, 2u);
  EXPECT_EQ(issues[0].example, p.string() + ":3");
}

TEST(NormalizeTest, RowsWithAFieldCountOtherThanTheHeadersAreSkippedAsDataLoss) {
  TempDir tmp;
  // Line 3 lacks the Type field and line 4 has an extra one: read by position, their durations
  // would land under other columns.
  auto p = tmp.Write("kernel_details.csv",
                     "Name,Type,Start Time(us),Duration(us)\na,T,10.0,1.0\nb,20.0,2.0\nc,T,30.0,3.0,9\nd,T,40.0,4.0\n");
  Rules rules = testing::BuiltinRules();
  StringTable strings;
  RankTable t;
  std::vector<DataIssue> issues;
  ASSERT_TRUE(ReadKernelCsv(p, rules, strings, t, issues).ok());
  ASSERT_EQ(t.events.size(), 2u);
  EXPECT_EQ(strings.Get(t.events[0].name), "a");
  EXPECT_EQ(strings.Get(t.events[1].name), "d");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].name, "kernel_row_field_count");
  EXPECT_EQ(issues[0].severity, "data_loss");
  EXPECT_EQ(issues[0].count, 2u);
  EXPECT_EQ(issues[0].example.rfind(p.string() + ":3", 0), 0u) << issues[0].example;
}

TEST(NormalizeTest, MalformedCommunicationJsonNamesFileAndOffset) {
  TempDir tmp;
  auto p = tmp.Write("communication.json", "{\"step1\": {\"collective\": {\"a@1\": {\"x\": }}}}");
  RankTable t;
  Status st = ReadCommunicationJson(p, t);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(p.string()), std::string::npos);
  EXPECT_NE(st.message().find("malformed JSON at byte"), std::string::npos) << st.message();
}

TEST(NormalizeTest, MalformedTraceViewNamesFile) {
  TempDir tmp;
  auto p = tmp.Write("trace_view.json", "[{\"name\": \"ProfilerStep#1\", \"ts\": ");
  RankTable t;
  Status st = ReadTraceViewSteps(p, t);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(p.string()), std::string::npos);
  EXPECT_NE(st.message().find("malformed JSON"), std::string::npos) << st.message();
}

TEST(NormalizeTest, TraceViewProfilerStepMarkersAssignSteps) {
  TempDir tmp;
  tmp.Write("r_ascend_pt/profiler_info_0.json", "{}");
  tmp.Write("r_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
            "Name,Start Time(us),Duration(us)\na,1000.000,5\nb,1010.000,5\nc,2000.000,5\n");
  tmp.Write("r_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
            "[{\"ph\":\"X\",\"name\":\"ProfilerStep#7\",\"ts\":\"990.000\",\"dur\":100,\"cat\":\"cpu_op\"},"
            "{\"ph\":\"X\",\"name\":\"ProfilerStep#8\",\"ts\":\"1990.000\",\"dur\":50},"
            "{\"ph\":\"M\",\"name\":\"process_name\",\"args\":{\"name\":\"Python\"}}]");
  Normalized n = NormalizeRoot(tmp.path());
  ASSERT_EQ(n.ranks.size(), 1u);
  ASSERT_EQ(n.ranks[0].step_markers.size(), 2u);
  EXPECT_EQ(n.ranks[0].events[0].step_id, 7);
  EXPECT_EQ(n.ranks[0].events[1].step_id, 7);
  EXPECT_EQ(n.ranks[0].events[2].step_id, 8);
  EXPECT_EQ(n.ranks[0].step_markers[0].start_ns, -10000);  // relative to the first event
}

TEST(NormalizeTest, NonDatabaseFileIsABadInput) {
  TempDir tmp;
  auto p = tmp.Write("ascend_pytorch_profiler_0.db", "this is not sqlite");
  Rules rules = testing::BuiltinRules();
  StringTable strings;
  RankTable t;
  std::vector<DataIssue> issues;
  Status st = ReadTorchDb(p, rules, strings, t, issues);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find(p.string()), std::string::npos) << st.message();
}

// --- Reading one file in ranges, ranks in parallel: the same result as one pass. ---

struct Read {
  Status status = Status::Ok();
  StringTable strings;
  RankTable table;
  std::vector<DataIssue> issues;
};

Read ReadWith(const std::filesystem::path& p, ParallelRead parallel) {
  Read r;
  Rules rules = testing::BuiltinRules();
  r.status = ReadKernelCsv(p, rules, r.strings, r.table, r.issues, parallel);
  return r;
}

void ExpectSameRead(const Read& a, const Read& b) {
  ASSERT_EQ(a.status.ok(), b.status.ok()) << a.status.message() << " / " << b.status.message();
  EXPECT_EQ(a.status.message(), b.status.message());
  if (!a.status.ok()) return;  // the caller drops a failed read's table
  EXPECT_EQ(a.strings.strings(), b.strings.strings());
  ASSERT_EQ(a.table.events.size(), b.table.events.size());
  for (size_t i = 0; i < a.table.events.size(); ++i) {
    const Event &x = a.table.events[i], &y = b.table.events[i];
    ASSERT_EQ(std::memcmp(&x, &y, sizeof x), 0) << "event " << i << " (row " << x.row << " vs " << y.row << ")";
    EXPECT_EQ(a.table.WaitNs(x), b.table.WaitNs(y)) << "event " << i;
    const std::optional<PipeView> px = a.table.PipeOf(x);
    const std::optional<PipeView> py = b.table.PipeOf(y);
    ASSERT_EQ(px.has_value(), py.has_value());
    for (int f = 0; px && f < kStoredPipeCount; ++f) {
      double u = a.table.PipeValue(*px, f), v = b.table.PipeValue(*py, f);
      EXPECT_TRUE(u == v || (std::isnan(u) && std::isnan(v))) << "event " << i << " field " << f;
    }
  }
  ASSERT_EQ(a.issues.size(), b.issues.size());
  for (size_t i = 0; i < a.issues.size(); ++i) {
    EXPECT_EQ(a.issues[i].name, b.issues[i].name);
    EXPECT_EQ(a.issues[i].count, b.issues[i].count);
    EXPECT_EQ(a.issues[i].example, b.issues[i].example);
  }
}

TEST(NormalizeTest, AFileReadInRangesGivesTheTableOfOnePass) {
  for (const char* rel : {"tp_l1_text/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
                          "st_l2/rank_0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
                          "msprof_minimal/PROF_001/mindstudio_profiler_output/op_summary_001.csv"}) {
    SCOPED_TRACE(rel);
    std::filesystem::path p = Sample(rel);
    ASSERT_TRUE(std::filesystem::exists(p));
    Read one = ReadWith(p, {});
    ASSERT_TRUE(one.status.ok()) << one.status.message();
    for (uint64_t chunk : {64u, 300u, 4096u})
      for (int threads : {2, 3}) ExpectSameRead(one, ReadWith(p, {threads, chunk}));
  }
}

// A wait of 2^31 ns (2.1 s) and more is kept beside the table (the event has 4 bytes for it): in
// a file read in ranges each range's long waits move into the rank's table with their events.
TEST(NormalizeTest, LongWaitsSurviveAFileReadInRanges) {
  testing::TempDir dir;
  std::string csv = "Name,Start Time(us),Duration(us),Wait Time(us)\n";
  for (int i = 0; i < 40; ++i) {
    const char* wait = i % 4 == 0 ? "3000000.5" : i % 4 == 1 ? "1.25" : i % 4 == 2 ? "N/A" : "2147483.648";
    csv += fmt::format("op{},{}.000,1.0,{}\n", i % 3, 1000 + 10 * i, wait);
  }
  const std::filesystem::path p = dir.Write("kernel_details.csv", csv);
  Read one = ReadWith(p, {});
  ASSERT_TRUE(one.status.ok()) << one.status.message();
  ASSERT_EQ(one.table.events.size(), 40u);
  EXPECT_EQ(one.table.WaitNs(one.table.events[0]), 3000000500);  // 3 s: past 31 bits of ns
  EXPECT_EQ(one.table.WaitNs(one.table.events[1]), 1250);
  EXPECT_EQ(one.table.WaitNs(one.table.events[2]), -1);
  EXPECT_EQ(one.table.WaitNs(one.table.events[3]), 2147483648);  // exactly 2^31 ns
  EXPECT_EQ(one.table.long_waits.size(), 20u);
  for (uint64_t chunk : {40u, 120u, 333u})
    for (int threads : {2, 3}) ExpectSameRead(one, ReadWith(p, {threads, chunk}));
}

// Shapes quoted with newlines inside: a range that starts inside one begins at a wrong place and
// is read again from where the range before it stopped.
TEST(NormalizeTest, QuotedNewlinesAcrossRangeStartsAreReadAsOnePassReadsThem) {
  TempDir tmp;
  std::string csv = "Name,Start Time(us),Duration(us),Input Shapes,Accelerator Core\n";
  for (int i = 0; i < 400; ++i) {
    std::string shape = i % 3 == 0 ? "\"\"\"8,16\n32;4\n\n1\"\"\"" : "\"\"\"8,16\"\"\"";
    csv += fmt::format("op{},{}.5,{}.25,{},AI_CORE\n", i % 7, 1000 + i * 10, 1 + i % 5, shape);
    if (i == 200) csv += "short,row\n";  // an issue deep in the file: its line must be right
  }
  auto p = tmp.Write("kernel_details.csv", csv);
  Read one = ReadWith(p, {});
  ASSERT_TRUE(one.status.ok());
  ASSERT_EQ(one.table.events.size(), 400u);
  ASSERT_EQ(one.issues.size(), 1u);
  for (uint64_t chunk : {16u, 50u, 97u, 500u}) ExpectSameRead(one, ReadWith(p, {2, chunk}));
  // Rows are physical line numbers: every third row spans 4 lines.
  EXPECT_EQ(one.table.events[1].row, 6u);
}

TEST(NormalizeTest, AnUnclosedQuoteIsTheSameErrorWhenReadInRanges) {
  TempDir tmp;
  std::string csv = "Name,Start Time(us),Duration(us),Input Shapes\n";
  for (int i = 0; i < 200; ++i) csv += fmt::format("op,{}.5,1.0,\"\"\"1,2\"\"\"\n", 100 + i);
  csv += "op,9999.5,1.0,\"never closed\n";
  auto p = tmp.Write("kernel_details.csv", csv);
  Read one = ReadWith(p, {});
  ASSERT_FALSE(one.status.ok());
  EXPECT_NE(one.status.message().find("line 202"), std::string::npos) << one.status.message();
  for (uint64_t chunk : {32u, 200u}) ExpectSameRead(one, ReadWith(p, {2, chunk}));
}

TEST(NormalizeTest, RanksNormalizedInParallelMatchOneAfterAnother) {
  for (const char* root : {"synthetic_8rank", "tp_l1_text", "st_l2"}) {
    SCOPED_TRACE(root);
    std::vector<DataIssue> discover_issues;
    auto d = Discover({Sample(root)}, discover_issues);
    ASSERT_TRUE(d.ok());
    Rules rules = testing::BuiltinRules();
    StringTable s1, s4;
    std::vector<DataIssue> i1 = discover_issues, i4 = discover_issues;
    auto one = NormalizeRanks(d->ranks, rules, s1, i1, 1);
    auto four = NormalizeRanks(d->ranks, rules, s4, i4, 4);
    ASSERT_TRUE(one.ok() && four.ok());
    EXPECT_EQ(s1.strings(), s4.strings());
    ASSERT_EQ(one->size(), four->size());
    for (size_t r = 0; r < one->size(); ++r) {
      const RankTable &a = (*one)[r], &b = (*four)[r];
      EXPECT_EQ(a.rank, b.rank);
      EXPECT_EQ(a.base_ns, b.base_ns);
      ASSERT_EQ(a.events.size(), b.events.size());
      EXPECT_EQ(std::memcmp(a.events.data(), b.events.data(), a.events.size() * sizeof(Event)), 0);
      EXPECT_EQ(a.comm_ops.size(), b.comm_ops.size());
      EXPECT_EQ(a.step_markers.size(), b.step_markers.size());
    }
    ASSERT_EQ(i1.size(), i4.size());
    for (size_t k = 0; k < i1.size(); ++k) {
      EXPECT_EQ(i1[k].name, i4[k].name);
      EXPECT_EQ(i1[k].count, i4[k].count);
      EXPECT_EQ(i1[k].example, i4[k].example);
    }
  }
}

TEST(NormalizeTest, TheFirstFailingRankIsTheErrorOfAParallelRun) {
  TempDir tmp;
  for (int r = 0; r < 4; ++r) {
    std::string dir = fmt::format("r{}_ascend_pt/ASCEND_PROFILER_OUTPUT", r);
    std::string body = r == 1 || r == 3 ? "Step Id,Wait Time(us)\n1,0\n" : "Name,Start Time(us),Duration(us)\na,1.0,1.0\n";
    tmp.Write(dir + "/kernel_details.csv", body);
  }
  std::vector<DataIssue> issues;
  auto d = Discover({tmp.path()}, issues);
  ASSERT_TRUE(d.ok()) << d.status().message();
  Rules rules = testing::BuiltinRules();
  StringTable strings;
  auto r = NormalizeRanks(d->ranks, rules, strings, issues, 4);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(d->ranks[1].kernel_details.string()), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace optrace::analyze
