// ReadTraceViewSteps: the streaming ProfilerStep reader (src/analyze/read/trace_view.cc).
#include <gtest/gtest.h>

#include <string>

#include "analyze/read/normalize.h"
#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

using testing::TempDir;

Result<RankTable> Read(TempDir& tmp, const std::string& text) {
  auto p = tmp.Write("trace_view.json", text);
  RankTable t;
  OPTRACE_RETURN_IF_ERROR(ReadTraceViewSteps(p, t));
  return t;
}

TEST(TraceViewStepsTest, ArrayFormKeepsProfilerStepsWithStringTimestamps) {
  TempDir tmp;
  auto t = Read(tmp, R"([{"ph":"X","name":"ProfilerStep#3","ts":"1000.5005","dur":12.25,"pid":1},
                         {"ph":"X","name":"aten::mm","ts":"1001.0","dur":1}])");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->step_markers.size(), 1u);
  EXPECT_EQ(t->step_markers[0].step_id, 3);
  EXPECT_EQ(t->step_markers[0].start_ns, 1000501);  // 4th decimal rounds
  EXPECT_EQ(t->step_markers[0].end_ns, 1000501 + 12250);
  EXPECT_EQ(t->step_markers[0].source, "trace_view.json");
}

TEST(TraceViewStepsTest, ObjectFormSkipsOtherMembersAndNestedArgs) {
  TempDir tmp;
  auto t = Read(tmp, R"({"schemaVersion":1,"meta":{"a":[1,{"b":"]}"}]},
    "traceEvents":[{"args":{"name":"ProfilerStep#9","nested":{"x":[1,2]}},"name":"ProfilerStep#1","ts":5,"dur":2},
                   {"name":"ProfilerStep#2","ph":"X","ts":10.5}],
    "otherData":{"s":"a \"quoted\" } string"}})");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->step_markers.size(), 2u);
  EXPECT_EQ(t->step_markers[0].step_id, 1);  // the event's own name, not the one inside args
  EXPECT_EQ(t->step_markers[0].start_ns, 5000);
  EXPECT_EQ(t->step_markers[0].end_ns, 7000);
  EXPECT_EQ(t->step_markers[1].start_ns, 10500);
  EXPECT_EQ(t->step_markers[1].end_ns, 10500);  // no dur
}

TEST(TraceViewStepsTest, NonCompleteEventsAndOtherNamesAreIgnored) {
  TempDir tmp;
  auto t = Read(tmp, R"([{"ph":"B","name":"ProfilerStep#1","ts":"1"},{"ph":"X","name":"ProfilerStep#x","ts":"1"},
                         {"ph":"X","name":"Profiler\"Step#4","ts":"1"},{"ph":"X","name":"ProfilerStep#5"},
                         {"ph":"M","name":"process_name","args":{"name":"Python"}}, 7, null, "s"])");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_TRUE(t->step_markers.empty());
}

TEST(TraceViewStepsTest, MarkersAcrossBufferBoundariesAreRead) {
  // Far more than the 1 MiB read buffer, so events and strings straddle refills.
  std::string text = "[";
  int steps = 0;
  for (int i = 0; i < 40000; ++i) {
    if (i) text += ",\n";
    if (i % 1000 == 7) {
      text += R"({"ph":"X","name":"ProfilerStep#)" + std::to_string(++steps) + R"(","ts":")" + std::to_string(i) +
              R"(.000","dur":1})";
    } else {
      text += R"({"ph":"X","name":"kernel \"a\" )" + std::to_string(i) +
              R"(","ts":"1.0","dur":1,"args":{"shape":"[1, 2, {3}]","pad":")" + std::string(20, 'x') + "\"}}";
    }
  }
  text += "]\n";
  ASSERT_GT(text.size(), 2u << 20);
  TempDir tmp;
  auto t = Read(tmp, text);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->step_markers.size(), 40u);
  for (int s = 0; s < 40; ++s) {
    EXPECT_EQ(t->step_markers[s].step_id, s + 1);
    EXPECT_EQ(t->step_markers[s].start_ns, int64_t{s * 1000 + 7} * 1000);
  }
}

TEST(TraceViewStepsTest, TruncatedFileIsMalformedWithItsByteOffset) {
  TempDir tmp;
  auto t = Read(tmp, R"([{"name": "ProfilerStep#1", "ts": )");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("trace_view.json: malformed JSON at byte 34"), std::string::npos)
      << t.status().message();
  EXPECT_NE(t.status().message().find("re-export the profiler output"), std::string::npos);
}

TEST(TraceViewStepsTest, TextAfterTheValueIsMalformed) {
  TempDir tmp;
  auto t = Read(tmp, "[] x");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("text after the end of the JSON value"), std::string::npos)
      << t.status().message();
}

TEST(TraceViewStepsTest, ObjectWithoutTraceEventsIsRefused) {
  TempDir tmp;
  auto t = Read(tmp, R"({"otherData":{}})");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("expected a JSON array of trace events or an object with traceEvents"),
            std::string::npos)
      << t.status().message();
}

TEST(TraceViewStepsTest, EmptyFileIsRefused) {
  TempDir tmp;
  auto t = Read(tmp, "");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("empty file"), std::string::npos) << t.status().message();
}

}  // namespace
}  // namespace optrace::analyze

namespace optrace::analyze {
namespace {

// Shaped like a torch_npu trace_view.json: process names given after the tasks, compute tasks
// beside the Notify Wait / SDMA pieces of a collective, the collective itself in "HCCL".
TEST(TraceViewDeviceTasksTest, KeepsComputeTasksAndHcclOpsOnly) {
  testing::TempDir tmp;
  auto p = tmp.Write("trace_view.json", R"({"traceEvents": [
    {"ph":"X","name":"ProfilerStep#7","pid":9,"tid":9,"ts":"999.0","dur":100},
    {"ph":"X","name":"MatMulV2","pid":800,"tid":3,"ts":"1000.000","dur":5.5,
     "args":{"Model Id":4294967295,"Task Type":"AI_CORE","Stream Id":3,"Task Id":279,"nested":{"a":[1,2]}}},
    {"ph":"X","name":"Notify_Wait","pid":800,"tid":4,"ts":"1006.0","dur":40,"args":{"Task Type":"Notify Wait"}},
    {"ph":"X","name":"hcom_allReduce__1_0_1","pid":801,"tid":0,"ts":"1006.0","dur":41.25,"args":{"count":4}},
    {"ph":"X","name":"Add","pid":800,"tid":3,"ts":"1050.0","dur":2,"args":{"Task Type":"AI_VECTOR_CORE","Physic Stream Id":2}},
    {"ph":"X","name":"aten::add","pid":9,"tid":9,"ts":"1049.0","dur":3,"cat":"cpu_op"},
    {"ph":"M","name":"process_name","pid":800,"args":{"name":"Ascend Hardware"}},
    {"ph":"M","name":"process_name","pid":801,"args":{"name":"HCCL"}},
    {"ph":"M","name":"process_name","pid":9,"args":{"name":"Python"}}]})");
  Rules rules = testing::BuiltinRules();
  StringTable strings;
  RankTable t;
  Status st = ReadTraceViewDeviceTasks(p, rules, strings, t);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(t.events.size(), 3u);
  EXPECT_EQ(strings.Get(t.events[0].name), "MatMulV2");
  EXPECT_EQ(t.events[0].op_type, OpType::kAic);
  EXPECT_EQ(t.events[0].start_ns, 1000000);
  EXPECT_EQ(t.events[0].dur_ns, 5500);
  EXPECT_EQ(t.events[0].stream_id, 3);
  EXPECT_EQ(t.events[0].task_id, 279);
  EXPECT_EQ(strings.Get(t.events[1].name), "hcom_allReduce__1_0_1");
  EXPECT_EQ(t.events[1].op_type, OpType::kCommunication);
  EXPECT_EQ(t.events[1].dur_ns, 41250);
  EXPECT_EQ(t.events[2].op_type, OpType::kAiv);
  EXPECT_EQ(t.events[2].stream_id, 2);
  ASSERT_EQ(t.step_markers.size(), 1u);
  EXPECT_EQ(t.step_markers[0].step_id, 7);
}

}  // namespace
}  // namespace optrace::analyze
