// The lint corpus: the example operator project (examples/moe_dispatch_combine, copied at test
// time) lints clean, and one variant per rule with exactly one planted defect
// (tests/data/lint/variants.json) is found at its line.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "core/file_io.h"
#include "source/lint/lint_test_util.h"
#include "testing/example_tree.h"

namespace optrace::source {
namespace {
namespace fs = std::filesystem;
using ::testing::IsEmpty;

const fs::path kCorpus = optrace::testing::SharedExampleOperator();

// Parsed once per process: the test names are made from it at start-up, once per variant, and
// every test process (ctest runs one per test) paid for all of them.
const nlohmann::json& Variants() {
  static const nlohmann::json all = [] {
    auto text = ReadFileToString(fs::path(OPTRACE_TEST_DATA_DIR) / "lint" / "variants.json");
    EXPECT_TRUE(text.ok());
    return nlohmann::json::parse(text.ok() ? *text : "{}");
  }();
  return all;
}

std::vector<std::string>& Matrix() {
  static std::vector<std::string> rows;
  return rows;
}

Result<LintReport> LintOp(const fs::path& dir) {
  LintOptions o;
  o.op_dir = dir;
  return RunLint(o);
}

TEST(LintCorpusTest, CleanCorpusHasNoFindings) {
  auto r = LintOp(kCorpus);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_THAT(Findings(*r), IsEmpty());
  EXPECT_EQ(r->entry, "op_kernel/moe_dispatch_combine.cpp");
  EXPECT_TRUE(r->density.split);
  EXPECT_EQ(r->density.aic_labels.size(), 17u);
  EXPECT_EQ(r->density.aiv_labels.size(), 27u);
}

TEST(LintCorpusTest, ExampleOperatorHasNoFindings) {
  auto r = LintOp(fs::path(OPTRACE_SOURCE_DIR) / "examples" / "moe_dispatch_combine");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_THAT(Findings(*r), IsEmpty());
}

TEST(LintCorpusTest, EveryRuleHasAVariant) {
  std::set<std::string> covered;
  nlohmann::json all = Variants();
  for (const auto& v : all["variants"]) covered.insert(v["rule"].get<std::string>());
  // A rule whose defect cannot be planted in the example names the test that covers it.
  const nlohmann::json elsewhere = all.value("covered_elsewhere", nlohmann::json::object());
  for (const auto& [rule, where] : elsewhere.items()) covered.insert(rule);
  for (const LintRule& rule : AllLintRules()) EXPECT_TRUE(covered.count(rule.id)) << rule.id;
}

// Applies one variant's edits to a copy of the corpus; returns the expected line or 0.
int ApplyVariant(const nlohmann::json& v, const fs::path& dir) {
  for (const auto& e : v["edits"]) {
    fs::path file = dir / e["file"].get<std::string>();
    if (e.contains("create")) {
      fs::create_directories(file.parent_path());
      EXPECT_TRUE(WriteFileAtomic(file, e["create"].get<std::string>()).ok());
      continue;
    }
    std::string text = *ReadFileToString(file);
    if (e.contains("find")) {
      std::string find = e["find"], replace = e["replace"];
      size_t n = 0;
      for (size_t p = text.find(find); p != std::string::npos; p = text.find(find, p + replace.size()), ++n)
        text.replace(p, find.size(), replace);
      EXPECT_GT(n, 0u) << e["file"] << ": not found: " << find;
    } else if (e.contains("delete_lines_containing")) {
      std::string out;
      size_t start = 0, removed = 0;
      while (start < text.size()) {
        size_t nl = text.find('\n', start);
        std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start + 1);
        bool drop = false;
        for (const auto& s : e["delete_lines_containing"]) drop = drop || line.find(s.get<std::string>()) != std::string::npos;
        if (drop) ++removed; else out += line;
        start = nl == std::string::npos ? text.size() : nl + 1;
      }
      EXPECT_GT(removed, 0u) << e["file"];
      text = out;
    } else if (e.contains("append")) {
      text += e["append"].get<std::string>();
    }
    EXPECT_TRUE(WriteFileAtomic(file, text).ok());
  }
  if (v["expect"].contains("line")) return v["expect"]["line"].get<int>();
  std::string text = *ReadFileToString(dir / v["expect"]["file"].get<std::string>());
  std::string needle = v["expect"]["line_of"];
  size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  EXPECT_EQ(text.find(needle, at + 1), std::string::npos) << "line_of is not unique: " << needle;
  return at == std::string::npos ? 0 : 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
}

class LintVariantTest : public ::testing::TestWithParam<int> {};

TEST_P(LintVariantTest, PlantedDefectIsFoundWithItsRuleAndLineAndNothingElse) {
  nlohmann::json v = Variants()["variants"][static_cast<size_t>(GetParam())];
  std::string rule = v["rule"];
  SCOPED_TRACE(rule + ": " + v["description"].get<std::string>());
  optrace::testing::TempTree tree;
  optrace::testing::CopyExampleOperator(tree);
  int line = ApplyVariant(v, tree.path());
  LintOptions o;
  o.op_dir = tree.path();
  if (v.contains("lint")) {
    o.compile = v["lint"].value("compile", false);
    if (v["lint"].value("sdk", "") == "emulator") {
      o.sdk = fs::path(OPTRACE_SOURCE_DIR) / "emu" / "include";
      // The example's own build names optrace's include/ (its CMakeLists.txt): its -I, as a team's.
      o.include_dirs = {fs::path(OPTRACE_SOURCE_DIR) / "include"};
    }
    if (o.sdk.empty()) {
      unsetenv("ASCEND_HOME_PATH");
      unsetenv("ASCEND_TOOLKIT_HOME");
      if (fs::exists("/usr/local/Ascend/ascend-toolkit/latest")) GTEST_SKIP() << "a CANN toolkit is installed";
    }
  }
  auto r = RunLint(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string want = rule + "@" + v["expect"]["file"].get<std::string>() + ":" + std::to_string(line);
  std::vector<std::string> found = Findings(*r, /*density=*/true);
  EXPECT_THAT(found, ::testing::Contains(want));
  for (const Diagnostic& d : r->diagnostics) EXPECT_EQ(d.rule, rule) << FormatDiagnostic(d);
  // Its gate: not satisfied for an error, "not checkable statically" for a warning (a rule that
  // can only guess never leaves its gate "satisfied").
  std::string severity;
  for (const Diagnostic& d : r->diagnostics)
    if (d.rule == rule) severity = d.severity == Severity::kError ? "error" : d.severity == Severity::kWarning ? "warning" : "note";
  o.gates = true;  // a second run: --gates adds findings of its own (the example has no build hook)
  auto judged = RunLint(o);
  ASSERT_TRUE(judged.ok()) << judged.status().message();
  std::string gate(GateOfRule(rule)), state = "-";
  for (const GateVerdict& g : judged->gates)
    if (g.id == gate) state = GateStateName(g.state);
  if (gate.size() == 2 && severity == "error") EXPECT_EQ(state, "not satisfied") << gate;
  if (gate.size() == 2 && severity == "warning") EXPECT_NE(state, "satisfied") << gate;
  Matrix().push_back(fmt::format("| {} | `{}` | {} | {} | {} |", v["description"].get<std::string>(), rule,
                                 severity.empty() ? "missed" : severity, gate.empty() ? "-" : gate, state));
}

// The detection matrix of this run (docs/source.md holds it): planted class, rule, severity found,
// gate, the gate's verdict. Printed when the variants ran in this process.
class MatrixPrinter : public ::testing::Environment {
 public:
  void TearDown() override {
    if (Matrix().size() < 2) return;
    std::printf("| planted defect | rule | found as | gate | gate verdict |\n|---|---|---|---|---|\n");
    for (const std::string& row : Matrix()) std::printf("%s\n", row.c_str());
  }
};
[[maybe_unused]] ::testing::Environment* const kMatrixPrinter = ::testing::AddGlobalTestEnvironment(new MatrixPrinter);

INSTANTIATE_TEST_SUITE_P(Variants, LintVariantTest, ::testing::Range(0, static_cast<int>(Variants()["variants"].size())),
                         [](const ::testing::TestParamInfo<int>& info) {
                           const nlohmann::json& all = Variants()["variants"];
                           std::string name = all[static_cast<size_t>(info.param)]["rule"];
                           int same = 0;  // a second variant of one rule gets a suffix
                           for (int i = 0; i < info.param; ++i) same += all[static_cast<size_t>(i)]["rule"] == name;
                           if (same > 0) name += "_" + std::to_string(same + 1);
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace optrace::source
