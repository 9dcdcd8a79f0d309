// Scan and lint speed on a generated operator tree of about 100k lines (issue: "well under a
// second"). The tree: op_kernel/<entry>.cpp including 200 headers of ~500 lines each, every
// header a phase class with AIC/AIV operator() specialisations, loops, B/E marks, comments and
// strings; plus op_host/ and pybind/ files.
//
//   build/dev/bench/source_bench  (Google Benchmark flags, e.g. --benchmark_repetitions=3)
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "source/lint/lint.h"
#include "source/lexer/lexer.h"
#include "source/scan/scanner.h"

namespace {
namespace fs = std::filesystem;

constexpr int kHeaders = 200;

std::string Header(int h) {
  std::string s = fmt::format("// Phase {} of the generated operator.\n#ifndef PHASE_{}_H\n#define PHASE_{}_H\n"
                              "#include \"../op_base.h\"\n\nnamespace gen {{\n\nclass Phase{} {{\n public:\n",
                              h, h, h, h);
  for (int f = 0; f < 12; ++f) {
    s += fmt::format("  __aicore__ inline void Step{}(uint32_t group) {{\n", f);
    s += fmt::format("    MoeTracing(TRACE_POINT(\"phase{} step{}\", \"B\"), group);\n", h % 7, f);
    for (int k = 0; k < 8; ++k) {
      s += fmt::format("    for (uint32_t i = 0; i < rows_; ++i) {{  // tile loop {}\n", k);
      s += "      acc_ += static_cast<float>(i) * scale_ - \"/* not a comment */\"[0];\n";
      s += "      /* TRACE_POINT(\"commented\", \"B\") */ data_[i % 16] = acc_;\n    }\n";
    }
    s += fmt::format("    MoeTracing(TRACE_POINT(\"phase{} step{}\", \"E\"), group);\n  }}\n\n", h % 7, f);
  }
  s += "  template <int32_t CORE_TYPE>\n  __aicore__ inline void operator()();\n\n private:\n"
       "  uint32_t rows_ = 0;\n  float acc_ = 0, scale_ = 1;\n  float data_[16];\n};\n\n";
  for (const char* core : {"AIC", "AIV"}) {
    s += fmt::format("template <>\n__aicore__ inline void Phase{}::operator()<AscendC::{}>() {{\n", h, core);
    s += fmt::format("  MoeTracing(TRACE_POINT(\"phase{} {}\", \"B\"));\n", h % 7, core == std::string("AIC") ? "aic" : "aiv");
    s += "  for (uint32_t g = 0; g < 4; ++g) {\n";
    for (int f = 0; f < 12; ++f) s += fmt::format("    Step{}(g);\n", f);
    s += "  }\n#if ENABLE_MOE_PROFILING\n  AscendC::PipeBarrier<PIPE_ALL>();\n#endif\n";
    s += fmt::format("  MoeTracing(TRACE_POINT(\"phase{} {}\", \"E\"));\n}}\n\n", h % 7, core == std::string("AIC") ? "aic" : "aiv");
  }
  s += fmt::format("}}  // namespace gen\n#endif  // PHASE_{}_H\n", h);
  return s;
}

// Header h without its marks (a phase file nobody instrumented yet).
std::string Unmarked(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    size_t end = nl == std::string::npos ? text.size() : nl + 1;
    std::string_view line(text.data() + start, end - start);
    if (line.find("MoeTracing(") == std::string_view::npos) out += line;
    start = end;
  }
  return out;
}

struct Tree {
  fs::path root;
  size_t lines = 0;
  // unmarked_every > 0: every n-th header has no marks, so lint's coverage rule plans the tree.
  explicit Tree(int unmarked_every = 0) {
    root = fs::temp_directory_path() / fmt::format("optrace_source_bench_{}_{}", ::getpid(), unmarked_every);
    fs::remove_all(root);
    fs::create_directories(root / "op_kernel" / "phases");
    std::string entry = "#include \"op_base.h\"\n";
    for (int h = 0; h < kHeaders; ++h) {
      std::string text = Header(h);
      if (unmarked_every > 0 && h % unmarked_every == 0) text = Unmarked(text);
      lines += static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
      std::ofstream(root / "op_kernel" / "phases" / fmt::format("phase{}.h", h)) << text;
      entry += fmt::format("#include \"phases/phase{}.h\"\n", h);
    }
    entry += "extern \"C\" __global__ __aicore__ void gen_op(GM_ADDR x, GM_ADDR y) {\n"
             "  MoeTracing(TRACE_POINT(\"processing\", \"B\"));\n";
    for (int h = 0; h < kHeaders; ++h) {
      entry += fmt::format("  if ASCEND_IS_AIC {{\n    gen::Phase{} p;\n    p.template operator()<AscendC::AIC>();\n"
                           "  }} else {{\n    gen::Phase{} p;\n    p.template operator()<AscendC::AIV>();\n  }}\n",
                           h, h);
    }
    entry += "  MoeTracing(TRACE_POINT(\"processing\", \"E\"));\n}\n";
    lines += static_cast<size_t>(std::count(entry.begin(), entry.end(), '\n'));
    std::ofstream(root / "op_kernel" / "gen_op.cpp") << entry;
    std::ofstream(root / "op_kernel" / "op_base.h") << "#pragma once\n#include \"optrace/trace.h\"\n";
  }
  ~Tree() { fs::remove_all(root); }
};

Tree& GetTree() {
  static Tree tree;
  return tree;
}

Tree& GetPartlyMarkedTree() {
  static Tree tree(10);
  return tree;
}

void BM_Lex(benchmark::State& state) {
  std::vector<std::string> texts;
  size_t lines = 0;
  for (int h = 0; h < kHeaders; ++h) {
    texts.push_back(Header(h));
    lines += static_cast<size_t>(std::count(texts.back().begin(), texts.back().end(), '\n'));
  }
  for (auto _ : state) {
    for (const std::string& t : texts) benchmark::DoNotOptimize(optrace::source::Lex(t).tokens.size());
  }
  state.counters["lines/s"] = benchmark::Counter(static_cast<double>(lines), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["lines"] = static_cast<double>(lines);
}
BENCHMARK(BM_Lex)->Unit(benchmark::kMillisecond);

void BM_ScanTree(benchmark::State& state) {
  Tree& tree = GetTree();
  for (auto _ : state) {
    auto r = optrace::source::ScanSources({tree.root / "op_kernel"}, {});
    if (!r.ok()) state.SkipWithError(r.status().message().c_str());
    benchmark::DoNotOptimize(r);
  }
  state.counters["lines/s"] =
      benchmark::Counter(static_cast<double>(tree.lines), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["lines"] = static_cast<double>(tree.lines);
}
BENCHMARK(BM_ScanTree)->Unit(benchmark::kMillisecond);

void LintTree(benchmark::State& state, Tree& tree) {
  optrace::source::LintOptions o;
  o.paths = {tree.root / "op_kernel"};
  size_t findings = 0;
  for (auto _ : state) {
    auto r = optrace::source::RunLint(o);
    if (!r.ok()) state.SkipWithError(r.status().message().c_str());
    findings = r->diagnostics.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["lines/s"] =
      benchmark::Counter(static_cast<double>(tree.lines), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["lines"] = static_cast<double>(tree.lines);
  state.counters["findings"] = static_cast<double>(findings);
}

void BM_LintTree(benchmark::State& state) { LintTree(state, GetTree()); }
BENCHMARK(BM_LintTree)->Unit(benchmark::kMillisecond);

// One header in ten without marks: lint's coverage-file rule then builds the plan.
void BM_LintTreePartlyMarked(benchmark::State& state) { LintTree(state, GetPartlyMarkedTree()); }
BENCHMARK(BM_LintTreePartlyMarked)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
