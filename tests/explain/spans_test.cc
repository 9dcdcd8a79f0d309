// The span inputs of `optrace explain`: a collection and the Chrome trace written from it give the
// same spans; B/E nesting, legacy names, thread names and bad traces are handled as documented.
#include "explain/spans.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <string>

#include "collect/chrome_writer.h"
#include "collect/collector.h"
#include "core/point_map.h"
#include "moe_dispatch_combine/runner/moe_runner.h"
#include "source/scan/scanner.h"
#include "testing/temp_tree.h"

namespace optrace::explain {
namespace {

using collect::CoreKind;

std::string Describe(const Span& s) {
  return fmt::format("rank {} {} {} '{}' [{:.3f}, {:.3f}] parent {}", s.rank, collect::CoreKindName(s.kind), s.core,
                     s.label, s.begin_us, s.end_us, s.parent);
}

// Writes the collection's Chrome trace, reads it back and expects the collection's spans.
void ExpectTraceRoundTrip(const collect::Collection& c, collect::NameStyle names, const testing::TempTree& tree) {
  SpanSet want = SpansFromCollection(c, {"dumps/"});
  ASSERT_FALSE(want.spans.empty());
  EXPECT_EQ(want.source, "dumps");
  collect::ChromeTraceOptions opt;
  opt.names = names;
  const std::string trace = tree.path("trace.json");
  {
    std::ofstream out(trace, std::ios::binary);
    ASSERT_TRUE(collect::WriteChromeTrace(c, opt, "", out).ok());
  }
  Result<SpanSet> got = ReadTraceSpans(trace);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->source, "trace");
  EXPECT_EQ(got->inputs, std::vector<std::string>{trace});
  ComputeParents(want);
  ComputeParents(*got);
  ASSERT_EQ(got->spans.size(), want.spans.size());
  for (size_t i = 0; i < want.spans.size(); ++i) {
    const Span& w = want.spans[i];
    const Span& g = got->spans[i];
    SCOPED_TRACE(fmt::format("span {}: want {}, got {}", i, Describe(w), Describe(g)));
    ASSERT_EQ(g.rank, w.rank);
    ASSERT_EQ(g.kind, w.kind);
    ASSERT_EQ(g.core, w.core);
    ASSERT_EQ(g.label, w.label);
    ASSERT_NEAR(g.begin_us, w.begin_us, 1e-3);
    ASSERT_NEAR(g.end_us, w.end_us, 1e-3);
    ASSERT_EQ(g.parent, w.parent);
  }
}

TEST(Spans, DemoCollectionAndItsTraceGiveTheSameSpans) {
  examples::MoeRunOptions run_opt;
  run_opt.ranks = 2;
  Result<examples::MoeRunResult> run = examples::RunMoeExample(run_opt);
  ASSERT_TRUE(run.ok()) << run.status().message();
  Result<source::ScanResult> scan = source::ScanSourceTexts(examples::MoeExampleSources(), "/example");
  ASSERT_TRUE(scan.ok()) << scan.status().message();

  testing::TempTree tree;
  for (size_t r = 0; r < run->rank_buffers.size(); ++r) {
    const auto& buf = run->rank_buffers[r];
    tree.Write("dumps/rank" + std::to_string(r) + ".bin",
               std::string(reinterpret_cast<const char*>(buf.data()), buf.size() * 8));
  }
  collect::CollectOptions o;
  o.inputs = {tree.path("dumps")};
  o.map = &scan->map;
  Result<collect::CollectResult> got = collect::Collect(o);
  ASSERT_TRUE(got.ok()) << got.status().message();
  const collect::Collection& c = got->collection;
  ASSERT_GT(c.intervals.size(), 50u);

  SpanSet spans = SpansFromCollection(c, {"dumps/"});
  ASSERT_EQ(spans.spans.size(), c.intervals.size());
  // Both ranks and both core kinds are there, each rank starting at 0.
  std::set<std::pair<int32_t, CoreKind>> seen;
  std::map<int32_t, double> first;
  for (const Span& s : spans.spans) {
    seen.emplace(s.rank, s.kind);
    auto [it, fresh] = first.emplace(s.rank, s.begin_us);
    if (!fresh) it->second = std::min(it->second, s.begin_us);
    EXPECT_LE(s.begin_us, s.end_us);
  }
  EXPECT_EQ(seen.size(), 4u);
  for (const auto& [rank, t] : first) EXPECT_EQ(t, 0.0) << "rank " << rank;
  ExpectTraceRoundTrip(c, collect::NameStyle::kLabel, tree);
}

TEST(Spans, LegacyDumpTraceWithLegacyNamesGivesTheCollectionsSpans) {
  const std::string dir = std::string(OPTRACE_TEST_DATA_DIR) + "/collect/legacy/";
  Result<PointMap> map = LoadPointMap(dir + "point_map.json");
  ASSERT_TRUE(map.ok()) << map.status().message();
  collect::CollectOptions o;
  o.inputs = {dir + "rank000.pt"};
  o.map = &map.value();
  Result<collect::CollectResult> got = collect::Collect(o);
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_FALSE(got->collection.intervals.empty());
  testing::TempTree tree;
  // --names legacy writes "label [extra:n] #seq": the reader strips it back to the label.
  ExpectTraceRoundTrip(got->collection, collect::NameStyle::kLegacy, tree);
}

std::string WriteTrace(const testing::TempTree& tree, const std::string& name, const std::string& text) {
  tree.Write(name, text);
  return tree.path(name);
}

TEST(Spans, NestedBeginEndPairsOnOneThreadGiveParents) {
  testing::TempTree tree;
  const std::string path = WriteTrace(tree, "be.json", R"({"traceEvents":[
    {"name":"process_name","ph":"M","pid":7,"tid":0,"args":{"name":"rank 3"}},
    {"name":"outer","ph":"B","pid":7,"tid":5,"ts":100},
    {"name":"inner","ph":"B","pid":7,"tid":5,"ts":110},
    {"name":"inner","ph":"E","pid":7,"tid":5,"ts":120},
    {"name":"second","ph":"B","pid":7,"tid":5,"ts":130},
    {"ph":"E","pid":7,"tid":5,"ts":140},
    {"name":"outer","ph":"E","pid":7,"tid":5,"ts":200},
    {"name":"stray","ph":"E","pid":7,"tid":5,"ts":300},
    {"name":"other","ph":"X","pid":7,"tid":6,"ts":105,"dur":50},
    {"name":"thread_name","ph":"M","pid":7,"tid":5,"args":{"name":"AIV 12"}}
  ]})");
  Result<SpanSet> got = ReadTraceSpans(path);
  ASSERT_TRUE(got.ok()) << got.status().message();
  ComputeParents(*got);
  const std::vector<Span>& s = got->spans;
  ASSERT_EQ(s.size(), 4u);
  // tid 6 has no thread name: kind unknown, core = tid; it sorts before the AIV core.
  EXPECT_EQ(s[0].label, "other");
  EXPECT_EQ(s[0].kind, CoreKind::kUnknown);
  EXPECT_EQ(s[0].core, 6u);
  EXPECT_EQ(s[0].parent, -1);
  for (const Span& x : s) {
    EXPECT_EQ(x.rank, 3);  // process_name "rank 3", not pid 7
  }
  EXPECT_EQ(s[1].label, "outer");
  EXPECT_EQ(s[1].kind, CoreKind::kAiv);
  EXPECT_EQ(s[1].core, 12u);
  EXPECT_DOUBLE_EQ(s[1].begin_us, 0.0);  // relative to the rank's first span
  EXPECT_DOUBLE_EQ(s[1].end_us, 100.0);
  EXPECT_EQ(s[1].parent, -1);
  EXPECT_EQ(s[2].label, "inner");
  EXPECT_DOUBLE_EQ(s[2].begin_us, 10.0);
  EXPECT_DOUBLE_EQ(s[2].end_us, 20.0);
  EXPECT_EQ(s[2].parent, 1);
  EXPECT_EQ(s[3].label, "second");  // closed by a nameless E
  EXPECT_EQ(s[3].parent, 1);
  EXPECT_DOUBLE_EQ(s[0].begin_us, 5.0);
  ASSERT_FALSE(got->warnings.empty());
  EXPECT_NE(got->warnings[0].find("1 E events without a B"), std::string::npos) << got->warnings[0];
}

TEST(Spans, SeedTraceKeepsAicAndAivCoresApartByTheTypeInTheTid) {
  // Issue 29.13: the seed's trace.json names both "Core 3"; the kind is only in "type0_" / "type1_".
  testing::TempTree tree;
  const std::string path = WriteTrace(tree, "seed.json", R"({"traceEvents":[
    {"name":"thread_name","ph":"M","pid":0,"tid":"type0_3","args":{"name":"Core 3"}},
    {"name":"thread_name","ph":"M","pid":0,"tid":"type1_3","args":{"name":"Core 3"}},
    {"name":"mm","ph":"X","pid":0,"tid":"type0_3","ts":10,"dur":50},
    {"name":"vec","ph":"X","pid":0,"tid":"type1_3","ts":20,"dur":10}
  ]})");
  Result<SpanSet> got = ReadTraceSpans(path);
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->spans.size(), 2u);
  EXPECT_EQ(got->spans[0].label, "mm");
  EXPECT_EQ(got->spans[0].kind, CoreKind::kAic);
  EXPECT_EQ(got->spans[0].core, 3u);
  EXPECT_EQ(got->spans[1].label, "vec");
  EXPECT_EQ(got->spans[1].kind, CoreKind::kAiv);
  EXPECT_EQ(got->spans[1].core, 3u);
}

TEST(Spans, SeedTraceOfOneCoreTypeIsAiv) {
  testing::TempTree tree;
  const std::string path = WriteTrace(tree, "seed1.json", R"({"traceEvents":[
    {"name":"thread_name","ph":"M","pid":0,"tid":"type0_1","args":{"name":"Core 1"}},
    {"name":"vec","ph":"X","pid":0,"tid":"type0_1","ts":20,"dur":10}
  ]})");
  Result<SpanSet> got = ReadTraceSpans(path);
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->spans.size(), 1u);
  EXPECT_EQ(got->spans[0].kind, CoreKind::kAiv);
  EXPECT_EQ(got->spans[0].core, 1u);
}

TEST(Spans, ParentsAreTheInnermostEnclosingSpanOnTheSameCore) {
  SpanSet set;
  auto add = [&](uint32_t core, double b, double e, const char* label) {
    Span s;
    s.kind = CoreKind::kAic;
    s.core = core;
    s.label = label;
    s.begin_us = b;
    s.end_us = e;
    set.spans.push_back(s);
  };
  add(0, 0, 100, "a");
  add(0, 10, 50, "b");
  add(0, 20, 30, "c");
  add(0, 60, 70, "d");
  add(0, 100, 120, "e");  // touches a's end: not inside it
  add(1, 15, 25, "f");    // inside b's time, on another core
  ComputeParents(set);
  std::vector<int> parents;
  for (const Span& s : set.spans) parents.push_back(s.parent);
  EXPECT_EQ(parents, (std::vector<int>{-1, 0, 1, 0, -1, -1}));
}

TEST(Spans, LegacyCollectorNamesLoseTheirDecorations) {
  EXPECT_EQ(StripLegacyDecorations("dispatch [extra:3] #7"), "dispatch");
  EXPECT_EQ(StripLegacyDecorations("combine [extra:1027]"), "combine");
  EXPECT_EQ(StripLegacyDecorations("send tokens #12"), "send tokens");
  EXPECT_EQ(StripLegacyDecorations("dispatch"), "dispatch");
  EXPECT_EQ(StripLegacyDecorations("issue #a"), "issue #a");
  EXPECT_EQ(StripLegacyDecorations("[extra:3]"), "[extra:3]");

  testing::TempTree tree;
  const std::string path = WriteTrace(tree, "legacy.json", R"([
    {"name":"thread_name","ph":"M","pid":0,"tid":3,"args":{"name":"aic_3"}},
    {"name":"dispatch [extra:3] #7","ph":"X","pid":0,"tid":3,"ts":10,"dur":5},
    {"name":"combine [extra:1027]","ph":"X","pid":0,"tid":3,"ts":20,"dur":5}
  ])");
  Result<SpanSet> got = ReadTraceSpans(path);
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_EQ(got->spans.size(), 2u);
  EXPECT_EQ(got->spans[0].label, "dispatch");
  EXPECT_EQ(got->spans[1].label, "combine");
  EXPECT_EQ(got->spans[0].kind, CoreKind::kAic);
  EXPECT_EQ(got->spans[0].core, 3u);
}

TEST(Spans, ThreadNamesGiveCoreKindAndIndex) {
  struct Case {
    const char* name;
    bool ok;
    CoreKind kind;
    uint32_t core;
  };
  const Case cases[] = {
      {"AIC 3", true, CoreKind::kAic, 3},          {"AIV 12", true, CoreKind::kAiv, 12},
      {"aic_3", true, CoreKind::kAic, 3},          {"vector 5", true, CoreKind::kAiv, 5},
      {"cube0", true, CoreKind::kAic, 0},          {"core 2", true, CoreKind::kUnknown, 2},
      {"block 7", true, CoreKind::kCudaBlock, 7},  {"thread 1", true, CoreKind::kHostThread, 1},
      {"rank0 AIV-4", true, CoreKind::kAiv, 4},    {"main", false, CoreKind::kUnknown, 0},
      {"aicore", false, CoreKind::kUnknown, 0},    {"AIC3x", false, CoreKind::kUnknown, 0},
  };
  for (const Case& c : cases) {
    CoreKind kind = CoreKind::kUnknown;
    uint32_t core = 99;
    EXPECT_EQ(ParseThreadName(c.name, &kind, &core), c.ok) << c.name;
    if (!c.ok) continue;
    EXPECT_EQ(kind, c.kind) << c.name;
    EXPECT_EQ(core, c.core) << c.name;
  }
}

TEST(Spans, MalformedJsonNamesTheFileAndByteOffset) {
  testing::TempTree tree;
  const std::string text = R"({"traceEvents":[{"name":"a","ph":"X",}]})";
  const std::string path = WriteTrace(tree, "bad.json", text);
  Result<SpanSet> got = ReadTraceSpans(path);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kBadInput);
  const std::string& msg = got.status().message();
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find(fmt::format("malformed JSON at byte {}", text.find(",}") + 1)), std::string::npos) << msg;

  // Truncated: the offset is the end of the file.
  const std::string cut = R"({"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":2})";
  Result<SpanSet> trunc = ReadTraceSpans(WriteTrace(tree, "cut.json", cut));
  ASSERT_FALSE(trunc.ok());
  EXPECT_NE(trunc.status().message().find(fmt::format("at byte {}", cut.size())), std::string::npos)
      << trunc.status().message();
}

TEST(Spans, TraceWithoutSpansIsRefused) {
  testing::TempTree tree;
  for (const char* text : {R"({"traceEvents":[{"name":"process_name","ph":"M","pid":0,"tid":0,"args":{"name":"rank 0"}},
                               {"name":"x","ph":"i","s":"t","pid":0,"tid":1,"ts":3}]})",
                           "[]", R"({"traceEvents":[{"name":"open","ph":"B","pid":0,"tid":1,"ts":3}]})"}) {
    const std::string path = WriteTrace(tree, "empty.json", text);
    Result<SpanSet> got = ReadTraceSpans(path);
    ASSERT_FALSE(got.ok()) << text;
    EXPECT_NE(got.status().message().find(path), std::string::npos) << got.status().message();
    EXPECT_NE(got.status().message().find("no span events"), std::string::npos) << got.status().message();
  }
  Result<SpanSet> empty_file = ReadTraceSpans(WriteTrace(tree, "zero.json", ""));
  ASSERT_FALSE(empty_file.ok());
  EXPECT_NE(empty_file.status().message().find("empty"), std::string::npos) << empty_file.status().message();
  Result<SpanSet> no_events = ReadTraceSpans(WriteTrace(tree, "obj.json", R"({"otherData":{}})"));
  ASSERT_FALSE(no_events.ok());
  EXPECT_NE(no_events.status().message().find("traceEvents"), std::string::npos) << no_events.status().message();
  Result<SpanSet> missing = ReadTraceSpans(tree.path("nope.json"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace optrace::explain

namespace optrace::explain {
namespace {

// Found by fuzz_explain_trace: a float pid beyond int64 was cast (undefined behaviour).
TEST(SpansRegressionTest, AHugeFloatPidIsReadWithoutAnOutOfRangeCast) {
  auto set = ParseTraceSpans(R"([{"ph":"X","name":"a","pid":5.55556e45,"tid":1,"ts":0,"dur":1}])", "huge.json");
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->spans.size(), 1u);
}

}  // namespace
}  // namespace optrace::explain
