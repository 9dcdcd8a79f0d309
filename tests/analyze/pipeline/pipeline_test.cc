#include "analyze/pipeline/pipeline.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>

#include "analyze/pipeline/stage_io.h"
#include "analyze/analyze_test_util.h"

namespace optrace::analyze {
namespace {

using testing::DataDir;
using testing::Sample;
using testing::TempDir;

class RecordingSink : public ProgressSink {
 public:
  void OnStage(const StageEvent& e) override { events.push_back(e); }
  std::vector<StageEvent> events;
  std::vector<std::string> Lines() const {
    std::vector<std::string> out;
    for (const StageEvent& e : events) out.push_back(std::string(StageName(e.stage)) + ":" + e.status);
    return out;
  }
};

std::vector<std::string> FindingKeys(const AnalysisResult& r) {
  std::vector<std::string> out;
  for (const Finding& f : r.findings) out.push_back(f.id + " " + f.type + " " + f.summary);
  return out;
}

TEST(PipelineTest, EverySampleRootRunsToFindings) {
  for (const char* root : {"tp_l0_text", "tp_l1_text", "tp_l0_db", "tp_l1_db", "st_l2", "msprof_minimal",
                           "synthetic_8rank"}) {
    SCOPED_TRACE(root);
    AnalyzeOptions opt;
    opt.roots = {Sample(root)};
    opt.persist_stages = false;
    auto r = RunAnalysis(opt);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_GT(r->identity.event_count, 0u);
    EXPECT_FALSE(r->findings.empty());
    EXPECT_FALSE(r->summaries.operators.empty());
    EXPECT_EQ(r->timings.size(), 7u);
  }
}

TEST(PipelineTest, ProgressReportsEachStageWithCounts) {
  RecordingSink sink;
  AnalyzeOptions opt;
  opt.roots = {Sample("tp_l1_text")};
  opt.persist_stages = false;
  opt.progress = &sink;
  ASSERT_TRUE(RunAnalysis(opt).ok());
  std::vector<std::string> expected;
  for (const char* s : {"discover", "normalize", "segment", "classify", "summarize", "cross_rank", "diagnose"}) {
    expected.push_back(std::string(s) + ":started");
    expected.push_back(std::string(s) + ":done");
  }
  EXPECT_EQ(sink.Lines(), expected);
  EXPECT_EQ(sink.events[3].counts.at("events"), 382);  // normalize: 191 per rank
  EXPECT_EQ(sink.events[5].counts.at("steps"), 2);
}

TEST(PipelineTest, LaterStagesReuseEarlierStageFiles) {
  TempDir out;
  AnalyzeOptions full;
  full.roots = {Sample("synthetic_8rank")};
  full.out_dir = out.path() / "full";
  auto a = RunAnalysis(full);
  ASSERT_TRUE(a.ok()) << a.status().message();
  for (const char* s : {"discover", "normalize", "segment", "classify", "summarize", "cross_rank", "diagnose"})
    EXPECT_TRUE(std::filesystem::exists(out.path() / "full" / "stages" / (std::string(s) + ".bin"))) << s;

  // Stop after segment, then resume from classify without the roots.
  AnalyzeOptions first;
  first.roots = {Sample("synthetic_8rank")};
  first.out_dir = out.path() / "split";
  first.to = Stage::kSegment;
  RecordingSink s1;
  first.progress = &s1;
  auto b = RunAnalysis(first);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_TRUE(b->findings.empty());
  EXPECT_EQ(s1.Lines().back(), "diagnose:skipped");
  EXPECT_FALSE(std::filesystem::exists(out.path() / "split" / "stages" / "classify.bin"));

  AnalyzeOptions second;
  second.out_dir = out.path() / "split";
  second.from = Stage::kClassify;
  RecordingSink s2;
  second.progress = &s2;
  auto c = RunAnalysis(second);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(s2.Lines().front(), "discover:loaded");
  EXPECT_EQ(s2.Lines()[2], "segment:loaded");
  EXPECT_EQ(s2.Lines()[3], "classify:started");
  EXPECT_EQ(FindingKeys(*c), FindingKeys(*a));
  EXPECT_EQ(c->identity.event_count, a->identity.event_count);
  EXPECT_EQ(c->steps.size(), a->steps.size());
}

TEST(PipelineTest, OnlyStageRunsOneStageFromItsInputs) {
  TempDir out;
  AnalyzeOptions full;
  full.roots = {Sample("tp_l1_text")};
  full.out_dir = out.path();
  auto a = RunAnalysis(full);
  ASSERT_TRUE(a.ok());
  AnalyzeOptions only;
  only.out_dir = out.path();
  only.from = only.to = Stage::kDiagnose;
  RecordingSink sink;
  only.progress = &sink;
  auto b = RunAnalysis(only);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(FindingKeys(*b), FindingKeys(*a));
  EXPECT_EQ(sink.Lines().size(), 6u + 2u);  // 6 loaded + started + done
}

TEST(PipelineTest, OnlyStageReportLoadsDiagnoseInsteadOfRerunningIt) {
  TempDir out;
  AnalyzeOptions full;
  full.roots = {Sample("tp_l1_text")};
  full.out_dir = out.path();
  auto a = RunAnalysis(full);
  ASSERT_TRUE(a.ok());
  AnalyzeOptions only;
  only.out_dir = out.path();
  only.from = only.to = Stage::kReport;
  RecordingSink sink;
  only.progress = &sink;
  auto b = RunAnalysis(only);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(FindingKeys(*b), FindingKeys(*a));
  ASSERT_EQ(sink.Lines().size(), 7u);  // every stage loaded, none run
  EXPECT_EQ(sink.Lines()[6], "diagnose:loaded");
  EXPECT_EQ(b->limitations, a->limitations);
  EXPECT_TRUE(std::filesystem::exists(out.path() / "stages" / "diagnose.bin"));
}

TEST(PipelineTest, BlockRowsAreKeptInFullModeOnly) {
  AnalyzeOptions opt;
  opt.roots = {Sample("st_l2")};
  opt.persist_stages = false;
  auto fast = RunAnalysis(opt);
  ASSERT_TRUE(fast.ok()) << fast.status().message();
  ASSERT_FALSE(fast->blocks.empty());
  EXPECT_TRUE(fast->summaries.blocks.empty());
  EXPECT_FALSE(fast->summaries.block_classes.empty());  // classes are built from the blocks anyway
  opt.mode = Mode::kFull;
  auto full = RunAnalysis(opt);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(full->summaries.blocks.size(), full->blocks.size());
}

TEST(PipelineTest, FullModeReportFromFastStageFilesHasTheBlockRows) {
  TempDir out;
  AnalyzeOptions fast;
  fast.roots = {Sample("st_l2")};
  fast.out_dir = out.path();
  ASSERT_TRUE(RunAnalysis(fast).ok());
  AnalyzeOptions report = fast;
  report.from = report.to = Stage::kReport;
  report.mode = Mode::kFull;
  auto b = RunAnalysis(report);
  ASSERT_TRUE(b.ok()) << b.status().message();
  AnalyzeOptions direct = fast;
  direct.mode = Mode::kFull;
  direct.persist_stages = false;
  auto a = RunAnalysis(direct);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(b->summaries.blocks.size(), a->summaries.blocks.size());
  ASSERT_FALSE(a->summaries.blocks.empty());
  for (size_t i = 0; i < a->summaries.blocks.size(); ++i) {
    EXPECT_EQ(b->summaries.blocks[i].wall_ms, a->summaries.blocks[i].wall_ms);
    EXPECT_EQ(b->summaries.blocks[i].top_ops, a->summaries.blocks[i].top_ops);
    EXPECT_EQ(b->summaries.blocks[i].bound.bound_family, a->summaries.blocks[i].bound.bound_family);
  }
}

TEST(PipelineTest, ATraceViewDoesNotHideThatBubblesHaveNoHostAttribution) {
  TempDir tmp;
  std::filesystem::copy(Sample("tp_l1_text"), tmp.path() / "root", std::filesystem::copy_options::recursive);
  tmp.Write("root/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", "[]");
  AnalyzeOptions opt;
  opt.roots = {tmp.path() / "root"};
  opt.persist_stages = false;
  auto r = RunAnalysis(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  bool said = false;
  for (const std::string& l : r->limitations) said |= l.find("no host-side attribution") != std::string::npos;
  EXPECT_TRUE(said);
}

// Two nodes, each a per-node msprof export with 4 devices in one op_summary (Device_id column);
// node 1's device 1 (global rank 5) runs its dispatch kernel 1.5x slower.
void WritePerNodeMsprof(const TempDir& tmp, const std::string& dir, int node) {
  std::string csv = "Device_id,Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us),Task Wait Time(us)\n";
  for (int call = 0; call < 6; ++call)
    for (int dev = 0; dev < 4; ++dev) {
      double t = 1780676228000000.0 + call * 1000 + dev;
      double dur = node == 1 && dev == 1 ? 300 : 200;
      csv += fmt::format("{},MoeDispatch,MoeDispatch,AI_VECTOR_CORE,{:.3f}\t,{:.3f},0\n", dev, t, dur);
      csv += fmt::format("{},MatMulV2,MatMulV2,AI_CORE,{:.3f}\t,100.0,0\n", dev, t + 400);
    }
  tmp.Write(dir + "/mindstudio_profiler_output/op_summary_1.csv", csv);
}

TEST(PipelineTest, PerNodeMsprofExportsBecomeOneRankPerDevice) {
  TempDir tmp;
  WritePerNodeMsprof(tmp, "cluster/PROF_000001_20260605161708478_AAAA", 0);
  WritePerNodeMsprof(tmp, "cluster/PROF_000001_20260605161709120_BBBB", 1);
  AnalyzeOptions opt;
  opt.roots = {tmp.path() / "cluster"};
  opt.persist_stages = false;
  auto r = RunAnalysis(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->ranks.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(r->ranks[i].rank, i);
    EXPECT_EQ(r->ranks[i].device_id, i % 4);
    EXPECT_EQ(r->ranks[i].node, i < 4 ? "PROF_000001_20260605161708478_AAAA" : "PROF_000001_20260605161709120_BBBB");
    EXPECT_EQ(r->ranks[i].events.size(), 12u);
  }
  const Finding* slow = nullptr;
  for (const Finding& f : r->findings)
    if (f.type == "slow_operator") slow = &f;
  ASSERT_NE(slow, nullptr) << "the slow device must not vanish into a per-node mean";
  EXPECT_EQ(slow->ranks, (std::vector<int>{5}));
  bool issue = false;
  for (const DataIssue& i : r->issues) issue |= i.name == "devices_as_ranks";
  EXPECT_TRUE(issue);
}

// The real Level0 rank of msinsight with its kernel_details.csv removed: its trace_view.json
// device tasks (533 tasks, of which 187 compute tasks and 4 hcom_ ops) give the same 191 events,
// step 50 and operator totals as the kernel rows did.
TEST(PipelineTest, TraceViewOnlyRankIsAnalyzedFromItsDeviceTasks) {
  std::filesystem::path real = std::filesystem::path(OPTRACE_SOURCE_DIR).parent_path() /
                               "shared/data/ascend/msinsight/test/data/pytorch/text/level0/rank0_ascend_pt";
  if (!std::filesystem::exists(real)) GTEST_SKIP() << "no ../shared";
  TempDir tmp;
  std::filesystem::copy(real, tmp.path() / "rank0_ascend_pt", std::filesystem::copy_options::recursive);
  std::filesystem::remove(tmp.path() / "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv");
  AnalyzeOptions opt;
  opt.roots = {tmp.path()};
  opt.persist_stages = false;
  auto tv = RunAnalysis(opt);
  ASSERT_TRUE(tv.ok()) << tv.status().message();
  opt.roots = {real};
  auto kd = RunAnalysis(opt);
  ASSERT_TRUE(kd.ok()) << kd.status().message();
  ASSERT_EQ(tv->ranks.size(), 1u);
  EXPECT_EQ(tv->ranks[0].event_source, "trace_view.json");
  EXPECT_EQ(tv->ranks[0].events.size(), kd->ranks[0].events.size());
  ASSERT_EQ(tv->steps.size(), 1u);
  EXPECT_EQ(tv->steps[0].step_id, 50);
  std::map<std::string, double> a, b;
  for (const OperatorSummary& o : tv->summaries.operators) a[tv->Str(o.name)] = o.stats.total_us;
  for (const OperatorSummary& o : kd->summaries.operators) b[kd->Str(o.name)] = o.stats.total_us;
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, us] : b) EXPECT_NEAR(a[name], us, 0.01) << name;
}

TEST(PipelineTest, PerNodeDevicesTakeTheirGlobalRankFromTheCapturesInfoJson) {
  TempDir tmp;
  const std::string a = "cluster/PROF_000001_20260605161708478_AAAA", b = "cluster/PROF_000001_20260605161709120_BBBB";
  WritePerNodeMsprof(tmp, a, 0);
  WritePerNodeMsprof(tmp, b, 1);
  // Node A holds global ranks 4-7, node B ranks 0-3 (the launcher's order, not the folders').
  for (int dev = 0; dev < 4; ++dev) {
    tmp.Write(fmt::format("{}/device_{}/info.json.{}", a, dev, dev), fmt::format(R"({{"rank_id": {}}})", 4 + dev));
    tmp.Write(fmt::format("{}/device_{}/info.json.{}", b, dev, dev), fmt::format(R"({{"rank_id": "{}"}})", dev));
  }
  AnalyzeOptions opt;
  opt.roots = {tmp.path() / "cluster"};
  opt.persist_stages = false;
  auto r = RunAnalysis(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->ranks.size(), 8u);
  EXPECT_EQ(r->ranks[1].node, "PROF_000001_20260605161709120_BBBB");
  EXPECT_EQ(r->ranks[1].device_id, 1);
  EXPECT_EQ(r->ranks[4].node, "PROF_000001_20260605161708478_AAAA");
  const Finding* slow = nullptr;
  for (const Finding& f : r->findings)
    if (f.type == "slow_operator") slow = &f;
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->ranks, (std::vector<int>{1}));
}

TEST(PipelineTest, FromStageRefusesStageFilesOfAnotherCapture) {
  TempDir tmp;
  std::filesystem::create_directories(tmp.path() / "both");
  std::filesystem::copy(Sample("tp_l0_text"), tmp.path() / "both/l0", std::filesystem::copy_options::recursive);
  std::filesystem::copy(Sample("tp_l1_text"), tmp.path() / "both/l1", std::filesystem::copy_options::recursive);
  AnalyzeOptions first;
  first.roots = {tmp.path() / "both"};
  first.out_dir = tmp.path() / "out";
  first.run = 1;
  first.to = Stage::kSegment;
  ASSERT_TRUE(RunAnalysis(first).ok());
  AnalyzeOptions other = first;
  other.run = 2;
  other.from = Stage::kClassify;
  other.to = Stage::kDiagnose;
  auto r = RunAnalysis(other);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUsage);
  EXPECT_NE(r.status().message().find("made with --run 1, not --run 2"), std::string::npos) << r.status().message();
  other.run = 1;
  EXPECT_TRUE(RunAnalysis(other).ok());
}

TEST(PipelineTest, FromStageRefusesStageFilesOfOtherRoots) {
  TempDir out;
  AnalyzeOptions first;
  first.roots = {Sample("tp_l1_text")};
  first.out_dir = out.path();
  first.to = Stage::kSegment;
  ASSERT_TRUE(RunAnalysis(first).ok());
  AnalyzeOptions other;
  other.roots = {Sample("synthetic_8rank")};
  other.out_dir = out.path();
  other.from = Stage::kClassify;
  auto r = RunAnalysis(other);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUsage);  // exit 2
  const std::string& m = r.status().message();
  EXPECT_NE(m.find(out.path().string()), std::string::npos) << m;
  EXPECT_NE(m.find("made from root(s) " + Sample("tp_l1_text").string()), std::string::npos) << m;
  EXPECT_NE(m.find("pass the same roots"), std::string::npos) << m;
}

TEST(PipelineTest, FromStageRefusesStageFilesMadeWithOtherRules) {
  TempDir tmp;
  tmp.Write("rules/diagnosis_rules.json", "{\"slow_rank_min_wait_ms\": 99}");
  AnalyzeOptions first;
  first.roots = {Sample("tp_l1_text")};
  first.out_dir = tmp.path() / "out";
  first.rules_dir = tmp.path() / "rules";
  first.to = Stage::kSegment;
  ASSERT_TRUE(RunAnalysis(first).ok());
  // diagnosis_rules.json holds thresholds segment applied: reusing segment.bin is refused.
  AnalyzeOptions builtin = first;
  builtin.rules_dir.clear();
  builtin.from = Stage::kClassify;
  builtin.to = Stage::kDiagnose;
  auto r = RunAnalysis(builtin);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUsage);
  EXPECT_NE(r.status().message().find("another diagnosis_rules.json"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("--from-stage segment"), std::string::npos) << r.status().message();
  AnalyzeOptions same = builtin;
  same.rules_dir = first.rules_dir;  // the rules the files were made with: accepted
  EXPECT_TRUE(RunAnalysis(same).ok());
  builtin.from = Stage::kSegment;  // rerunning the first stage that reads the changed file: accepted
  auto again = RunAnalysis(builtin);
  EXPECT_TRUE(again.ok()) << again.status().message();
}

TEST(PipelineTest, LoadedStagesAreTimedAsLoadedNotRan) {
  TempDir out;
  AnalyzeOptions full;
  full.roots = {Sample("tp_l1_text")};
  full.out_dir = out.path();
  ASSERT_TRUE(RunAnalysis(full).ok());
  AnalyzeOptions again = full;
  again.from = Stage::kSummarize;
  auto r = RunAnalysis(again);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::map<std::string, std::string> status;
  for (const StageTiming& t : r->timings) status[t.stage] = t.status;
  for (const char* s : {"discover", "normalize", "segment", "classify"}) EXPECT_EQ(status[s], "loaded") << s;
  for (const char* s : {"summarize", "cross_rank", "diagnose"}) EXPECT_EQ(status[s], "ran") << s;
}

TEST(PipelineTest, RerunningAStageRemovesTheLaterStagesFiles) {
  TempDir out;
  AnalyzeOptions full;
  full.roots = {Sample("tp_l1_text")};
  full.out_dir = out.path();
  ASSERT_TRUE(RunAnalysis(full).ok());
  AnalyzeOptions only = full;
  only.from = only.to = Stage::kSegment;
  ASSERT_TRUE(RunAnalysis(only).ok());
  std::filesystem::path stages = out.path() / "stages";
  for (const char* s : {"discover", "normalize", "segment"})
    EXPECT_TRUE(std::filesystem::exists(stages / (std::string(s) + ".bin"))) << s;
  for (const char* s : {"classify", "summarize", "cross_rank", "diagnose"})
    EXPECT_FALSE(std::filesystem::exists(stages / (std::string(s) + ".bin"))) << s;
  AnalyzeOptions later = full;
  later.from = Stage::kSummarize;  // classify.bin is gone: an error, not a stale reload
  auto r = RunAnalysis(later);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("classify.bin"), std::string::npos) << r.status().message();
}

TEST(PipelineTest, MissingStageFileNamesItAndTheStageToRun) {
  TempDir out;
  AnalyzeOptions opt;
  opt.out_dir = out.path();
  opt.from = Stage::kSummarize;
  auto r = RunAnalysis(opt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("stages/discover.bin"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("run the 'discover' stage first"), std::string::npos);
}

TEST(PipelineTest, TruncatedStageFileIsRejected) {
  TempDir out;
  AnalyzeOptions full;
  full.roots = {Sample("tp_l1_text")};
  full.out_dir = out.path();
  full.to = Stage::kNormalize;
  ASSERT_TRUE(RunAnalysis(full).ok());
  std::filesystem::path p = out.path() / "stages" / "normalize.bin";
  std::filesystem::resize_file(p, std::filesystem::file_size(p) / 2);
  AnalyzeOptions again;
  again.out_dir = out.path();
  again.from = Stage::kSegment;
  auto r = RunAnalysis(again);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kBadInput);
  EXPECT_NE(r.status().message().find("normalize.bin: truncated or corrupt"), std::string::npos)
      << r.status().message();
}

TEST(PipelineTest, BitFlippedStageFilesAreRejectedNotDecoded) {
  // Issue 11: a flipped bit in stages/*.bin decoded into indices past the tables (segfault).
  TempDir out;
  AnalyzeOptions full;
  full.roots = {Sample("tp_l1_text")};
  full.out_dir = out.path();
  full.to = Stage::kSegment;
  ASSERT_TRUE(RunAnalysis(full).ok());
  for (const char* name : {"normalize.bin", "segment.bin"}) {
    std::filesystem::path p = out.path() / "stages" / name;
    std::string good;
    {
      std::ifstream in(p, std::ios::binary);
      good.assign(std::istreambuf_iterator<char>(in), {});
    }
    for (size_t at = 20; at < good.size(); at += std::max<size_t>(1, good.size() / 31)) {
      std::string bad = good;
      bad[at] = static_cast<char>(bad[at] ^ 0x10);
      std::ofstream(p, std::ios::binary) << bad;
      AnalyzeOptions again;
      again.out_dir = out.path();
      again.from = std::string(name) == "normalize.bin" ? Stage::kSegment : Stage::kClassify;
      auto r = RunAnalysis(again);
      ASSERT_FALSE(r.ok()) << name << " byte " << at;
      EXPECT_EQ(r.status().code(), StatusCode::kBadInput);
    }
    std::ofstream(p, std::ios::binary) << good;
  }
}

// Stage files the fuzz campaign found (docs/fuzzing.md, fuzz/fuzz_analyze_stage.cc): byte 0 picks
// the stage file replaced (0 discover, 1 normalize, 2 segment), the rest is the file without its
// checksum. Each is refused as bad input; under the sanitizers a regression is a crash.
TEST(PipelineTest, StageFilesTheFuzzerFoundAreRefused) {
  static const char* kStage[] = {"discover", "normalize", "segment"};
  static const Stage kNext[] = {Stage::kNormalize, Stage::kSegment, Stage::kClassify};
  int seen = 0;
  for (const auto& e : std::filesystem::directory_iterator(DataDir() / "fuzz")) {
    std::string input;
    {
      std::ifstream in(e.path(), std::ios::binary);
      input.assign(std::istreambuf_iterator<char>(in), {});
    }
    ASSERT_GE(input.size(), 1u) << e.path();
    const int which = static_cast<unsigned char>(input[0]) % 3;
    TempDir out;
    AnalyzeOptions base;
    base.roots = {Sample("tp_l0_text")};
    base.out_dir = out.path();
    base.to = Stage::kSegment;
    ASSERT_TRUE(RunAnalysis(base).ok());
    std::string file = input.substr(1);
    // Kept inputs stay meaningful across format versions: the header's version is this build's.
    const uint32_t version = kStageFileVersion;
    if (file.size() >= 18) file.replace(14, 4, reinterpret_cast<const char*>(&version), 4);
    uint64_t h = StageChecksum::Of(file);  // the stage file trailer
    file.append(reinterpret_cast<const char*>(&h), sizeof h);
    std::ofstream(out.path() / "stages" / (std::string(kStage[which]) + ".bin"), std::ios::binary) << file;
    AnalyzeOptions again;
    again.roots = {Sample("tp_l0_text")};
    again.out_dir = out.path();
    again.from = kNext[which];
    auto r = RunAnalysis(again);
    ASSERT_FALSE(r.ok()) << e.path();
    EXPECT_EQ(r.status().code(), StatusCode::kBadInput) << r.status().message();
    ++seen;
  }
  EXPECT_GE(seen, 1);
}

TEST(PipelineTest, StageChecksumDoesNotDependOnHowTheBytesArrive) {
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes.push_back(static_cast<char>(i * 37 + 11));
  const uint64_t whole = StageChecksum::Of(bytes);
  for (size_t piece : {1u, 3u, 7u, 8u, 9u, 64u, 999u}) {
    StageChecksum c;
    for (size_t at = 0; at < bytes.size(); at += piece) c.Update(bytes.data() + at, std::min(piece, bytes.size() - at));
    EXPECT_EQ(c.Final(), whole) << piece;
  }
  std::string flipped = bytes;
  flipped[500] ^= 1;
  EXPECT_NE(StageChecksum::Of(flipped), whole);
  EXPECT_NE(StageChecksum::Of(bytes.substr(0, 999)), whole);
}

TEST(PipelineTest, FromAfterToIsAUsageError) {
  AnalyzeOptions opt;
  opt.roots = {Sample("tp_l1_text")};
  opt.from = Stage::kDiagnose;
  opt.to = Stage::kSegment;
  auto r = RunAnalysis(opt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUsage);
}

TEST(PipelineTest, StageNamesParse) {
  EXPECT_EQ(ParseStage("cross_rank"), Stage::kCrossRank);
  EXPECT_EQ(ParseStage("cross-rank"), Stage::kCrossRank);
  EXPECT_EQ(ParseStage("diagnostics"), Stage::kDiagnose);
  EXPECT_EQ(ParseStage("report"), Stage::kReport);
  EXPECT_EQ(ParseStage("bogus"), std::nullopt);
}

TEST(PipelineTest, RulesDirectoryOverridesBuiltinThresholds) {
  TempDir rules;
  rules.Write("diagnosis_rules.json", "{\"slow_rank_min_wait_ms\": 99}");
  AnalyzeOptions opt;
  opt.roots = {Sample("synthetic_8rank")};
  opt.persist_stages = false;
  opt.rules_dir = rules.path();
  auto r = RunAnalysis(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const Finding& f : r->findings) EXPECT_NE(f.type, "slow_rank");
}

TEST(PipelineTest, BadRulesFileNamesFileAndProblem) {
  TempDir rules;
  auto p = rules.Write("segmentation_rules.json", "{\"layer_anchors\": [{\"family\": \"x\", \"regex\": \"(\"}]}");
  AnalyzeOptions opt;
  opt.roots = {Sample("tp_l1_text")};
  opt.persist_stages = false;
  opt.rules_dir = rules.path();
  auto r = RunAnalysis(opt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(p.string()), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("bad regex"), std::string::npos);
  rules.Write("segmentation_rules.json", "{\"layer_anchors\": [");
  r = RunAnalysis(opt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("malformed JSON at byte"), std::string::npos) << r.status().message();
}

TEST(PipelineTest, LimitationsExplainWhatIsMissing) {
  // Real Level2 export (msinsight st/level2): rank 1 has no kernel_details.csv; rank 0's kernel
  // rows, reduced to the first 614 for tests/data, hold 41 ms of the 231 ms its
  // step_trace_time.csv calls Computing.
  AnalyzeOptions opt;
  opt.roots = {Sample("st_l2")};
  opt.persist_stages = false;
  auto r = RunAnalysis(opt);
  ASSERT_TRUE(r.ok());
  bool rank1 = false, low = false;
  for (const std::string& l : r->limitations) {
    rank1 |= l.find("rank_1_ascend_pt has no kernel data: rank 1 takes part") != std::string::npos;
    low |= l.find("Rank 0: kernel rows cover 18%") != std::string::npos;
  }
  EXPECT_TRUE(rank1);
  EXPECT_TRUE(low);
  EXPECT_EQ(r->identity.profiler_level, "Level2");
  EXPECT_EQ(r->identity.cann_version, "8.3.RC1");
}

// The limitations of a capture made of one file at `rel` holding `text`.
std::vector<std::string> LimitationsOfOneFile(const std::string& rel, const std::string& text) {
  TempDir tmp;
  tmp.Write(rel, text);
  AnalyzeOptions opt;
  opt.roots = {tmp.path()};
  opt.persist_stages = false;
  auto r = RunAnalysis(opt);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r->limitations : std::vector<std::string>{};
}

// The first limitation containing `needle`, "" when none does.
std::string LimitationWith(const std::vector<std::string>& limitations, std::string_view needle) {
  for (const std::string& l : limitations)
    if (l.find(needle) != std::string::npos) return l;
  return "";
}

constexpr char kKernelCsv[] = "rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv";
constexpr char kOpSummary[] = "PROF_001/mindstudio_profiler_output/op_summary_20260101000000.csv";

// A capture made with another aic_metrics set (here ArithmeticUtilization's columns) has PMU
// columns but none of the stage times: the limitation names its columns instead of calling it
// Level0.
TEST(PipelineTest, PmuColumnsOfAnotherMetricSetAreNamedNotCalledLevel0) {
  const std::string said = LimitationWith(
      LimitationsOfOneFile(
          kKernelCsv,
          "Step Id,Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us),aic_total_cycles,"
          "aic_mac_fp16_ratio,aic_mac_int8_ratio,aic_cube_fops\n"
          "1,0,aclnnMatmul_MatMulV3Common_MatMulV3,MatMulV3,AI_CORE,1750000000000000.500\t,10.0,1000,0.35,0.0,4096\n"
          "1,0,aclnnMatmul_MatMulV3Common_MatMulV3,MatMulV3,AI_CORE,1750000000000012.000\t,11.0,1100,0.36,0.0,4096\n"),
      "PMU");
  EXPECT_NE(said.find("No PipeUtilization stage times"), std::string::npos) << said;
  EXPECT_NE(said.find("(aic_total_cycles, aic_mac_fp16_ratio, aic_mac_int8_ratio, aic_cube_fops)"), std::string::npos)
      << said;
  EXPECT_EQ(said.find("Level0"), std::string::npos) << said;
}

// The op_summary of a chip whose AI Core is not split (mac_time(us), vec_time(us), ... without
// aic_/aiv_) is analyzed from its durations; the limitation says its stage times were not read.
TEST(PipelineTest, StageTimesOfAnUnsplitAiCoreAreNamedAsNotRead) {
  const std::string said = LimitationWith(
      LimitationsOfOneFile(
          kOpSummary,
          "Device_id,Model ID,Task ID,Stream ID,Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us),"
          "Task Wait Time(us),Block Dim,aicore_time(us),total_cycles,vec_time(us),vec_ratio,mac_time(us),mac_ratio,"
          "scalar_time(us),scalar_ratio,mte2_time(us),mte2_ratio,mte3_time(us),mte3_ratio\n"
          "0,1,1,5,my_add,Add,AI_CORE,2000000000.250,80.0,0,8,9.5,70000,0.3,0.03,0,0,8.0,0.8,3.5,0.35,2.5,0.25\n"
          "0,1,2,5,my_add,Add,AI_CORE,2000000100.250,81.0,0,8,9.6,71000,0.3,0.03,0,0,8.1,0.8,3.6,0.35,2.6,0.25\n"),
      "not split into cube and vector cores");
  EXPECT_NE(said.find("(vec_time(us), mac_time(us), scalar_time(us), mte2_time(us), mte3_time(us))"), std::string::npos)
      << said;

  // Beside a split core's stage times (which are read) the unprefixed ones are not a reason.
  EXPECT_EQ(LimitationWith(LimitationsOfOneFile(kOpSummary,
                                                "Device_id,Op Name,OP Type,Task Type,Task Start Time(us),"
                                                "Task Duration(us),aicore_time(us),aic_mac_time(us),mac_time(us)\n"
                                                "0,my_mm,MatMul,AI_CORE,2000000000.250,80.0,9.5,7.0,7.0\n"),
                           "not split into cube and vector cores"),
            "");
}

// Ratios without times (an unsplit core's mac_ratio, vec_ratio) are PMU columns too.
TEST(PipelineTest, RatioOnlyPmuColumnsAreNamedNotCalledLevel0) {
  EXPECT_NE(LimitationWith(LimitationsOfOneFile(kKernelCsv,
                                                "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),"
                                                "total_cycles,vec_ratio,mac_ratio\n"
                                                "1,my_add,Add,AI_CORE,1750000000000000.500,10.0,1000,0.3,0.0\n"),
                           "PMU columns (total_cycles, vec_ratio, mac_ratio)"),
            "");
}

// Stage-time columns that hold no value (N/A on every row) keep the Level0 wording: the set is
// PipeUtilization, its values are missing.
TEST(PipelineTest, EmptyStageTimeColumnsKeepTheNoPipelineWording) {
  const std::string said = LimitationWith(
      LimitationsOfOneFile(kKernelCsv,
                           "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),aicore_time(us),"
                           "aic_mac_ratio\n"
                           "1,hcom_allReduce__1,hcom_allReduce_,HCCL,1750000000000000.500,10.0,N/A,N/A\n"),
      "PMU");
  EXPECT_EQ(said.rfind("No pipeline (PMU) data (Level0", 0), 0u) << said;
}

TEST(PipelineTest, RankWithoutKernelRowsJoinsStepsAndCollectivesFromItsSummaries) {
  AnalyzeOptions opt;
  opt.roots = {Sample("st_l2")};
  opt.persist_stages = false;
  auto r = RunAnalysis(opt);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->ranks.size(), 2u);
  EXPECT_EQ(r->ranks[1].event_source, "communication.json");
  EXPECT_EQ(r->ranks[1].events.size(), 15u);  // the 15 HCCL ops of its communication.json
  const CrossRank& C = r->cross_rank;
  EXPECT_EQ(C.ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(C.alignment_method, "step_trace_time");
  ASSERT_EQ(C.steps.size(), 1u);
  ASSERT_EQ(C.steps[0].wall_ms.size(), 2u);
  // step time = Computing + Communication(Not Overlapped) + Free of each rank's step_trace_time.csv
  EXPECT_NEAR(C.steps[0].wall_ms[0].value, (231290.1 + 420174.26 + 158558.0) / 1e3, 1e-3);
  EXPECT_NEAR(C.steps[0].wall_ms[1].value, (230903.72 + 441708.38 + 136819.56) / 1e3, 1e-3);
  EXPECT_GT(C.tested_collectives, 0);
  for (const AlignedCollective& c : C.collectives) EXPECT_EQ(c.dur_us.size(), 2u);
  bool issue = false;
  for (const DataIssue& i : r->issues)
    issue |= i.name == "rank_without_kernel_data" && i.description.find("takes part in steps") != std::string::npos;
  EXPECT_TRUE(issue);
  // No per-rank step finding about rank 1: its "steps" are HCCL ops only.
  for (const Finding& f : r->findings) {
    if (f.type == "communication_dominated_step") {
      EXPECT_EQ(f.ranks, (std::vector<int>{0}));
    }
  }
}

TEST(PipelineTest, KernelRowsBelowTheSummariesMakeTheRankLowConfidence) {
  AnalyzeOptions opt;
  opt.roots = {Sample("st_l2")};
  opt.persist_stages = false;
  auto r = RunAnalysis(opt);
  ASSERT_TRUE(r.ok());
  const RankSummary* r0 = nullptr;
  for (const RankSummary& s : r->summaries.ranks)
    if (s.rank == 0) r0 = &s;
  ASSERT_NE(r0, nullptr);
  EXPECT_TRUE(r0->low_confidence);
  EXPECT_NEAR(r0->kernel_coverage, 41.27194 / 231.2901, 1e-3);
  bool issue = false;
  for (const DataIssue& i : r->issues)
    if (i.name == "kernel_rows_incomplete") {
      issue = true;
      EXPECT_NE(i.description.find("15 of 15 HCCL ops"), std::string::npos) << i.description;
    }
  EXPECT_TRUE(issue);
  // Complete exports check out: the TP samples' kernel rows match their step_trace_time.csv.
  auto ok = RunAnalysis([] {
    AnalyzeOptions o;
    o.roots = {Sample("tp_l1_text")};
    o.persist_stages = false;
    return o;
  }());
  ASSERT_TRUE(ok.ok());
  for (const RankSummary& s : ok->summaries.ranks) {
    EXPECT_FALSE(s.low_confidence);
    EXPECT_NEAR(s.kernel_coverage, 1.0, 1e-3);
  }
}

}  // namespace
TEST(PipelineTest, AComputeKernelNamedForCommunicationIsACaveatNotSilentCompute) {
  // An elastic dispatch kernel of the team's own runs on the vector cores: the taxonomy does not
  // know it, so its time counts as compute; the limitations say so (issue 52).
  TempDir tmp;
  tmp.Write("rank0_ascend_pt/profiler_info_0.json", "{}");
  tmp.Write("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
            "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
            "1,ElasticDispatchV2,ElasticDispatchV2,AI_VECTOR_CORE,1000.000,300\n"
            "1,MatMul,MatMul,AI_CORE,1300.000,100\n"
            "1,MoeDistributeCombine,MoeDistributeCombine,MIX_AIV,1400.000,200\n");
  AnalyzeOptions opt;
  opt.roots = {tmp.path()};
  opt.persist_stages = false;
  auto r = RunAnalysis(opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string caveat;
  for (const std::string& l : r->limitations)
    if (l.find("exchange data between ranks") != std::string::npos) caveat = l;
  EXPECT_NE(caveat.find("1 compute operator(s)"), std::string::npos) << caveat;
  EXPECT_NE(caveat.find("ElasticDispatchV2 0.300 ms"), std::string::npos) << caveat;
  EXPECT_EQ(caveat.find("MoeDistributeCombine"), std::string::npos) << caveat;  // known: communication
}

}  // namespace optrace::analyze
