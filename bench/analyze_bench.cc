// Analyze benchmarks: normalize throughput (MB/s per core) and peak memory on a large
// kernel_details.csv from bench/analyze/generate_kernel_details.py.
//
//   bench/analyze/generate_kernel_details.py /tmp/akd 1024
//   OPTRACE_BENCH_KERNEL_DETAILS=/tmp/akd/kernel_details.csv build/release/bench/analyze_bench
//
// Counters: MB/s (bytes of the CSV per second, one thread), events, peak_rss_mb (process peak,
// getrusage) next to input_mb.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdlib>
#include <filesystem>

#include "analyze/read/normalize.h"
#include "analyze/rules/rules.h"
#include "analyze/segment/segment.h"
#include "analyze/summarize/summarize.h"

namespace {

using namespace optrace::analyze;

std::filesystem::path InputPath() {
  const char* p = std::getenv("OPTRACE_BENCH_KERNEL_DETAILS");
  return p ? std::filesystem::path(p) : std::filesystem::path();
}

double PeakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}

void SetCounters(benchmark::State& state, const std::filesystem::path& path, size_t events) {
  double mb = double(std::filesystem::file_size(path)) / (1024.0 * 1024.0);
  state.SetBytesProcessed(int64_t(std::filesystem::file_size(path)) * state.iterations());
  state.counters["events"] = double(events);
  state.counters["input_mb"] = mb;
  state.counters["peak_rss_mb"] = PeakRssMb();
}

void BM_NormalizeKernelCsv(benchmark::State& state) {
  std::filesystem::path path = InputPath();
  if (path.empty()) {
    state.SkipWithError("set OPTRACE_BENCH_KERNEL_DETAILS to a kernel_details.csv (generate_kernel_details.py)");
    return;
  }
  auto rules = LoadRules("");
  size_t events = 0;
  for (auto _ : state) {
    StringTable strings;
    RankTable t;
    std::vector<DataIssue> issues;
    auto st = ReadKernelCsv(path, *rules, strings, t, issues);
    if (!st.ok()) {
      state.SkipWithError(st.message().c_str());
      return;
    }
    events = t.events.size();
    benchmark::DoNotOptimize(t.events.data());
  }
  SetCounters(state, path, events);
}
BENCHMARK(BM_NormalizeKernelCsv)->Unit(benchmark::kMillisecond)->Iterations(1);

// normalize + segment + operator/HCCL summaries: the pandas read_csv + groupby equivalent.
void BM_NormalizeAndSummarize(benchmark::State& state) {
  std::filesystem::path path = InputPath();
  if (path.empty()) {
    state.SkipWithError("set OPTRACE_BENCH_KERNEL_DETAILS to a kernel_details.csv (generate_kernel_details.py)");
    return;
  }
  auto rules = LoadRules("");
  size_t events = 0;
  for (auto _ : state) {
    AnalysisResult r;
    RankTable t;
    t.rank = 0;
    std::vector<DataIssue> issues;
    auto st = ReadKernelCsv(path, *rules, r.strings, t, issues);
    if (!st.ok()) {
      state.SkipWithError(st.message().c_str());
      return;
    }
    int64_t base = t.events.empty() ? 0 : t.events.front().start_ns;
    for (Event& e : t.events) e.start_ns -= base;
    r.ranks.push_back(std::move(t));
    SegmentRanks(r, *rules);
    Summarize(r, *rules);
    events = r.ranks[0].events.size();
    benchmark::DoNotOptimize(r.summaries.operators.data());
  }
  SetCounters(state, path, events);
}
BENCHMARK(BM_NormalizeAndSummarize)->Unit(benchmark::kMillisecond)->Iterations(1);

// trace_view.json: the ProfilerStep#N markers (simdjson DOM over the whole file).
void BM_TraceViewSteps(benchmark::State& state) {
  const char* p = std::getenv("OPTRACE_BENCH_TRACE_VIEW");
  if (!p) {
    state.SkipWithError("set OPTRACE_BENCH_TRACE_VIEW to a trace_view.json (generate_kernel_details.py)");
    return;
  }
  size_t markers = 0;
  for (auto _ : state) {
    RankTable t;
    auto st = ReadTraceViewSteps(p, t);
    if (!st.ok()) {
      state.SkipWithError(st.message().c_str());
      return;
    }
    markers = t.step_markers.size();
  }
  SetCounters(state, p, markers);
}
BENCHMARK(BM_TraceViewSteps)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
