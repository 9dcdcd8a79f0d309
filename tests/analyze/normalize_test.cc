#include "analyze/normalize.h"

#include <gtest/gtest.h>

#include <map>

#include "analyze/discover.h"
#include "analyze_test_util.h"

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
  EXPECT_EQ(ParseUsToNs("1.73641057643165e+15"), 1736410576431650000);
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
  ASSERT_NE(t.PipeOf(first), nullptr);
  EXPECT_FLOAT_EQ(t.PipeOf(first)->Get(Pipe::kAivVecTime), 9.406f);
  EXPECT_FLOAT_EQ(t.PipeOf(first)->Get(Pipe::kAicMacTime), 0.0f);  // a real 0.0 stays 0
  int comm = 0;
  for (const Event& e : t.events)
    if (e.op_type == OpType::kCommunication) {
      ++comm;
      EXPECT_EQ(t.PipeOf(e), nullptr);  // N/A pipeline fields stay missing
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
// samples are two captures of one training step, so names, types, op types, shapes, block
// dims, steps and pipeline presence match event by event; times differ per capture.
void ExpectSameEvents(const std::string& text_root, const std::string& db_root, size_t ranks) {
  Normalized text = NormalizeRoot(Sample(text_root));
  Normalized db = NormalizeRoot(Sample(db_root));
  ASSERT_EQ(text.ranks.size(), ranks);
  ASSERT_EQ(db.ranks.size(), ranks);
  for (size_t r = 0; r < ranks; ++r) {
    const RankTable& a = text.ranks[r];
    const RankTable& b = db.ranks[r];
    ASSERT_EQ(a.events.size(), b.events.size()) << "rank " << r;
    EXPECT_EQ(b.kind, InputKind::kTorchDb);
    for (size_t i = 0; i < a.events.size(); ++i) {
      const Event& x = a.events[i];
      const Event& y = b.events[i];
      SCOPED_TRACE(testing::Sample(text_root).string() + " rank " + std::to_string(r) + " event " + std::to_string(i));
      EXPECT_EQ(text.strings.Get(x.name), db.strings.Get(y.name));
      EXPECT_EQ(text.strings.Get(x.type), db.strings.Get(y.type));
      EXPECT_EQ(x.op_type, y.op_type);
      EXPECT_EQ(text.strings.Get(x.input_shapes), db.strings.Get(y.input_shapes));
      EXPECT_EQ(text.strings.Get(x.output_shapes), db.strings.Get(y.output_shapes));
      EXPECT_EQ(x.step_id, y.step_id);
      if (x.op_type != OpType::kCommunication) EXPECT_EQ(x.block_dim, y.block_dim);
      EXPECT_EQ(x.pipe == kNone32, y.pipe == kNone32);
    }
  }
}

TEST(NormalizeTest, DbAndTextExportsOfLevel1NormalizeToTheSameEvents) { ExpectSameEvents("tp_l1_text", "tp_l1_db", 2); }

TEST(NormalizeTest, DbAndTextExportsOfLevel0NormalizeToTheSameEvents) {
  Normalized text = NormalizeRoot(Sample("tp_l0_text"));
  Normalized db = NormalizeRoot(Sample("tp_l0_db"));
  ASSERT_EQ(db.ranks.size(), 1u);
  const RankTable& a = text.ranks[0];
  const RankTable& b = db.ranks[0];
  ASSERT_EQ(a.events.size(), b.events.size());
  for (size_t i = 0; i < a.events.size(); ++i) {
    EXPECT_EQ(text.strings.Get(a.events[i].name), db.strings.Get(b.events[i].name)) << i;
    EXPECT_EQ(a.events[i].op_type, b.events[i].op_type) << i;
    EXPECT_EQ(a.events[i].step_id, b.events[i].step_id) << i;
  }
}

TEST(NormalizeTest, DbPipelineTimesAreConvertedToMicroseconds) {
  Normalized db = NormalizeRoot(Sample("tp_l1_db"));
  const RankTable& t = db.ranks[1];
  const Event& first = t.events[0];
  ASSERT_NE(t.PipeOf(first), nullptr);
  EXPECT_NEAR(t.PipeOf(first)->Get(Pipe::kAivTime), 48.115, 0.001);  // 48114.9 ns in TASK_PMU_INFO
  EXPECT_NEAR(t.PipeOf(first)->Get(Pipe::kAivVecRatio), 0.1955, 0.0001);
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

}  // namespace
}  // namespace optrace::analyze
