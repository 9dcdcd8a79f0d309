// The real operator trees of ../shared/data/optrees, end to end as a user runs them: plan, then
// instrument (the whole profiling chain), then lint --op with 0 errors, then --revert byte for
// byte; the hand-instrumented w4a8 as shipped and with its marks stripped; and planted defects
// generated on every real tree, each of which lint must find with its rule at its file:line.
// Skipped (one visible skip) in a clone without ../shared.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <unistd.h>

#include "core/file_io.h"
#include "source/hook/hook.h"
#include "source/lint/lint.h"
#include "testing/cli_runner.h"
#include "testing/temp_tree.h"

namespace optrace {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::RunCli;
using testing::TempTree;

const fs::path kOptrees = fs::path(OPTRACE_SOURCE_DIR).parent_path() / "shared" / "data" / "optrees";
constexpr const char* kW4a8 = "dispatch_ffn_combine_w4a8";

// Trees beyond ../shared for a harness run over swept repositories: OPTRACE_PLANT_TREES names a
// file with one operator folder per line (fetched corpora, never part of the project). Their
// test names are "swept_" + the folder's last two path parts. Unset (CI), only ../shared's trees.
std::map<std::string, fs::path>& ExtraTrees() {
  static std::map<std::string, fs::path> extra = [] {
    std::map<std::string, fs::path> out;
    const char* list = std::getenv("OPTRACE_PLANT_TREES");
    if (!list || !*list) return out;
    Result<std::string> text = ReadFileToString(list);
    if (!text.ok()) return out;
    size_t start = 0;
    while (start < text->size()) {
      size_t nl = text->find('\n', start);
      std::string line = text->substr(start, nl == std::string::npos ? std::string::npos : nl - start);
      start = nl == std::string::npos ? text->size() : nl + 1;
      fs::path dir(line);
      std::error_code ec;
      if (line.empty() || !fs::is_directory(dir, ec)) continue;
      std::string name = "swept_" + dir.parent_path().filename().string() + "_" + dir.filename().string();
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      out[name] = dir;
    }
    return out;
  }();
  return extra;
}

fs::path TreeSource(const std::string& name) {
  auto it = ExtraTrees().find(name);
  return it != ExtraTrees().end() ? it->second : kOptrees / name;
}

std::vector<std::string> TreeNames() {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(kOptrees, ec)) return out;
  for (const auto& e : fs::directory_iterator(kOptrees, ec))
    if (e.is_directory()) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  for (const auto& [name, dir] : ExtraTrees()) out.push_back(name);
  return out;
}

// Every regular file under `dir` (relative path -> bytes), hidden folders skipped.
std::map<std::string, std::string> Snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && it->path().filename().string().starts_with(".")) it.disable_recursion_pending();
    if (!it->is_regular_file()) continue;
    out[it->path().lexically_relative(dir).generic_string()] = *ReadFileToString(it->path());
  }
  return out;
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      out.push_back(text.substr(start));
      break;
    }
    out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

std::string JoinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += lines[i] + (i + 1 < lines.size() ? "\n" : "");
  return out;
}

source::LintReport LintOp(const fs::path& dir) {
  source::LintOptions o;
  o.op_dir = dir;
  auto r = source::RunLint(o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : source::LintReport{};
}

std::vector<std::string> Errors(const source::LintReport& r) {
  std::vector<std::string> out;
  for (const source::Diagnostic& d : r.diagnostics)
    if (d.severity == source::Severity::kError) out.push_back(source::FormatDiagnostic(d));
  return out;
}

// One real tree, planned and instrumented once per build of this test binary: ctest runs every
// test in its own process, so the instrumented copy and its plan are cached on disk (keyed by the
// binary's mtime; two processes preparing the same tree race harmlessly through rename).
struct PreparedTree {
  fs::path dir;  // the instrumented copy: read-only for tests (they lint copies of it)
  std::map<std::string, std::string> original;
  nlohmann::json plan;
  int plan_exit = -1, instrument_exit = -1;
  std::string instrument_output;
};

fs::path CacheRoot() {
  std::error_code ec;
  auto stamp = fs::last_write_time("/proc/self/exe", ec).time_since_epoch().count();
  return fs::temp_directory_path() / ("optrace_optrees_" + std::to_string(static_cast<unsigned long long>(stamp)));
}

const PreparedTree& Prepared(const std::string& name) {
  static std::map<std::string, PreparedTree> cache;
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  fs::path root = CacheRoot(), dir = root / name, meta = root / (name + ".json");
  std::error_code ec;
  if (!fs::exists(meta)) {
    std::string tag = ".tmp" + std::to_string(::getpid());
    fs::path work = root / (name + tag);
    fs::remove_all(work, ec);
    fs::create_directories(work);
    fs::copy(TreeSource(name), work, fs::copy_options::recursive);
    auto plan = RunCli({"plan", "--op", work.string(), "--format", "json"});
    auto inst = RunCli({"instrument", "--op", work.string()});
    nlohmann::json m = {{"plan_exit", plan.exit_code},
                        {"plan", plan.exit_code == 0 ? nlohmann::json::parse(plan.out) : nlohmann::json()},
                        {"instrument_exit", inst.exit_code},
                        {"instrument_output", inst.out + inst.err}};
    fs::rename(work, dir, ec);
    if (ec) fs::remove_all(work, ec);  // another process got there first: use its copy
    EXPECT_TRUE(WriteFileAtomic(root / (name + tag + ".json"), m.dump()).ok());
    fs::rename(root / (name + tag + ".json"), meta, ec);
  }
  PreparedTree& t = cache[name];
  nlohmann::json m = nlohmann::json::parse(*ReadFileToString(meta));
  t.dir = dir;
  t.original = Snapshot(TreeSource(name));
  t.plan = m["plan"];
  t.plan_exit = m["plan_exit"];
  t.instrument_exit = m["instrument_exit"];
  t.instrument_output = m["instrument_output"];
  return t;
}

class OptreeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OptreeTest, PlanExitsZeroWithLabelsOnlyOnTheKernelsCoreTypes) {
  const PreparedTree& t = Prepared(GetParam());
  ASSERT_EQ(t.plan_exit, 0);
  ASSERT_FALSE(t.plan["kernels"].empty());
  for (const auto& k : t.plan["kernels"]) {
    std::set<std::string> cores = k["cores"].get<std::set<std::string>>();
    for (const char* core : {"aic", "aiv"}) {
      size_t labels = k["density"].contains(core) ? k["density"][core]["labels"].size() : 0;
      if (!cores.count(core)) EXPECT_EQ(labels, 0u) << k["function"] << " has no " << core << " code";
    }
  }
}

TEST_P(OptreeTest, PlannedLabelsAreTheCodesWordsNeverPlaceholders) {
  const PreparedTree& t = Prepared(GetParam());
  for (const auto& s : t.plan["sites"]) {
    std::string label = s["label"];
    if (label.empty()) continue;
    for (const std::string& word : SplitLines(label)) {
      EXPECT_THAT(" " + word + " ", ::testing::Not(HasSubstr(" loop "))) << label;
      EXPECT_THAT(word, ::testing::Not(::testing::ContainsRegex("(^| )loop-[0-9]"))) << label;
    }
    EXPECT_LE(std::count(label.begin(), label.end(), ' '), 6) << label;
  }
}

TEST_P(OptreeTest, InstrumentWiresTheChainAndLintFindsNoErrors) {
  const PreparedTree& t = Prepared(GetParam());
  ASSERT_EQ(t.instrument_exit, 0) << t.instrument_output;
  TempTree copy;
  fs::copy(t.dir, copy.path(), fs::copy_options::recursive);
  source::LintReport r = LintOp(copy.path());
  // Hand steps instrument lists are lint errors until they are done, not wrong edits: an aclnn API
  // that builds l0op calls keeps its signature (binding-aclnn), and a launcher that does not
  // synchronize after its launch passes nullptr until its caller provides the buffer (binding-pybind).
  std::vector<std::string> errors;
  for (const std::string& e : Errors(r)) {
    size_t at = e.find("error: aclnn");
    std::string api = at == std::string::npos ? "" : e.substr(at + 7, e.find(' ', at + 7) - at - 7);
    bool listed = e.find("[binding-aclnn]") != std::string::npos && !api.empty() &&
                  t.instrument_output.find(api + " does not pass its tensors on to aclnnInner*") != std::string::npos;
    size_t launch = e.find("error: the launch of ");
    std::string kernel = launch == std::string::npos ? "" : e.substr(launch + 21, e.find(' ', launch + 21) - launch - 21);
    listed = listed || (e.find("[binding-pybind]") != std::string::npos && !kernel.empty() &&
                        t.instrument_output.find("the launch of " + kernel + " passes nullptr for the profiling buffer") !=
                            std::string::npos);
    if (!listed) errors.push_back(e);
  }
  EXPECT_THAT(errors, ::testing::IsEmpty());
  EXPECT_GT(r.trace_points, 0u);
}

TEST_P(OptreeTest, RevertRestoresEveryFileByteForByte) {
  const PreparedTree& t = Prepared(GetParam());
  TempTree copy;
  fs::copy(t.dir, copy.path(), fs::copy_options::recursive);
  auto r = RunCli({"instrument", "--op", copy.path(), "--revert"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> now = Snapshot(copy.path());
  EXPECT_EQ(now.size(), t.original.size());
  for (const auto& [rel, bytes] : t.original) EXPECT_TRUE(now.count(rel) && now[rel] == bytes) << rel;
}

INSTANTIATE_TEST_SUITE_P(Optrees, OptreeTest, ::testing::ValuesIn(TreeNames()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OptreeTest);

TEST(OptreeCorpusTest, CorpusIsPresent) {
  if (TreeNames().empty()) GTEST_SKIP() << kOptrees << " is absent (a user's clone): the real-tree tests do not run";
  EXPECT_GE(TreeNames().size(), 10u);
}

// --- the hand-instrumented w4a8 -----------------------------------------------------------

TEST(W4a8Test, ShippedTreeLintsWithoutErrors) {
  if (TreeNames().empty()) GTEST_SKIP() << "no ../shared";
  EXPECT_THAT(Errors(LintOp(kOptrees / kW4a8)), ::testing::IsEmpty());
}

// Functions of the plan's call tree that hold a proposed mark (function or loop inside it).
void MarkedFunctions(const nlohmann::json& node, const std::map<int, nlohmann::json>& sites, std::string fn,
                     std::map<std::string, std::set<std::string>>* out) {
  const nlohmann::json& s = sites.at(node["site"].get<int>());
  if (s["kind"] == "function") fn = s["file"].get<std::string>() + " " + s["name"].get<std::string>();
  if (s["decision"] == "phase" || s["decision"] == "hot") (*out)[fn].insert(s["label"].get<std::string>());
  for (const auto& c : node["children"]) MarkedFunctions(c, sites, fn, out);
}

TEST(W4a8Test, StrippedTreeIsPlannedIntoTheKernelHeaderRecoveringTheHandMarkedFunctions) {
  if (TreeNames().empty()) GTEST_SKIP() << "no ../shared";
  // What the authors marked: the functions the plan of the shipped tree finds already traced.
  auto shipped = RunCli({"plan", "--op", (kOptrees / kW4a8).string(), "--format", "json"});
  ASSERT_EQ(shipped.exit_code, 0) << shipped.err;
  std::set<std::string> hand;
  const nlohmann::json shipped_plan = nlohmann::json::parse(shipped.out);
  for (const auto& s : shipped_plan["sites"])
    if (s["kind"] == "function" && s["decision"] == "existing")
      hand.insert(s["file"].get<std::string>() + " " + s["name"].get<std::string>());
  ASSERT_GE(hand.size(), 8u);

  TempTree t;
  fs::copy(kOptrees / kW4a8, t.path(), fs::copy_options::recursive);
  size_t stripped = 0;
  for (const auto& [rel, bytes] : Snapshot(t.path())) {
    std::vector<std::string> lines = SplitLines(bytes);
    size_t n = std::erase_if(lines, [](const std::string& l) { return l.find("MoeTracing(TRACE_POINT(") != std::string::npos; });
    if (n > 0) ASSERT_TRUE(WriteFileAtomic(t.path(rel), JoinLines(lines)).ok());
    stripped += n;
  }
  ASSERT_EQ(stripped, 42u);  // the authors' 42 marks
  auto planned = RunCli({"plan", "--op", t.path(), "--format", "json"});
  ASSERT_EQ(planned.exit_code, 0) << planned.err;
  nlohmann::json plan = nlohmann::json::parse(planned.out);
  std::map<int, nlohmann::json> sites;
  for (const auto& s : plan["sites"]) sites[s["id"].get<int>()] = s;
  std::map<std::string, std::set<std::string>> marked;
  for (const auto& k : plan["kernels"]) MarkedFunctions(k["tree"], sites, "", &marked);
  size_t recovered = 0, in_kernel_hpp = 0;
  for (const std::string& f : hand) recovered += marked.count(f);
  for (const auto& [f, labels] : marked) in_kernel_hpp += f.find("_kernel.hpp ") != std::string::npos;
  EXPECT_GE(recovered * 10, hand.size() * 8) << recovered << " of " << hand.size();
  EXPECT_GE(in_kernel_hpp, 5u);
  // Instrumented, the stripped tree lints clean (its own base header keeps its MoeTracing).
  ASSERT_EQ(RunCli({"instrument", "--op", t.path()}).exit_code, 0);
  EXPECT_THAT(Errors(LintOp(t.path())), ::testing::IsEmpty());
  EXPECT_THAT(t.Read("op_kernel/dispatch_ffn_combine_w4_a8.cpp"), ::testing::Not(HasSubstr("optrace/trace.h")));
}

// --- planted defects on real trees --------------------------------------------------------

// A tree copy being edited, with the expected finding.
struct Planted {
  fs::path dir;
  const nlohmann::json* plan = nullptr;
  std::string rule, file;
  std::set<int> lines;  // any of these (1-based) is the right line
  bool warning = false;  // the rule is a heuristic: found as a warning (precision counts errors only)
  // Further rules the same edit breaks for certain at those lines (a return planted in the kernel
  // entry also skips the buffer's write-back): right findings, not false ones.
  std::set<std::string> also;
};

std::vector<std::string> ReadLines(const Planted& p, const std::string& rel) {
  return SplitLines(*ReadFileToString(p.dir / rel));
}
void WriteLines(const Planted& p, const std::string& rel, const std::vector<std::string>& lines) {
  ASSERT_TRUE(WriteFileAtomic(p.dir / rel, JoinLines(lines)).ok());
}

bool IsAutoMark(const std::string& l) {
  return l.find("MoeTracing(TRACE_POINT(\"") != std::string::npos && l.find("// optrace:auto") != std::string::npos;
}
std::string MarkLabel(const std::string& l) {
  size_t b = l.find("TRACE_POINT(\"") + 13;
  return l.substr(b, l.find('"', b) - b);
}

// The file and line of the first inserted, non-root B mark of a non-entry file (the entry's
// when every mark is there), and its E.
struct MarkPair {
  std::string file;
  size_t b = 0, e = 0;  // 0-based
  std::string label;
  std::vector<size_t> es;  // every E of the range (one per exit), up to the label's next B
};
// Every kernel's entry file: a folder of several programs (cann-samples' stories) has one per
// program, and a return planted in any of them skips that kernel's write-back.
std::set<std::string> KernelEntries(const Planted& p) {
  std::set<std::string> out;
  for (const auto& k : (*p.plan)["kernels"]) out.insert(k["entry"].get<std::string>());
  return out;
}

std::optional<MarkPair> FirstPhasePair(const Planted& p, bool outside_entry) {
  const std::set<std::string> entries = KernelEntries(p);
  std::vector<std::pair<bool, std::string>> files;  // (is an entry, rel)
  for (const auto& [rel, bytes] : Snapshot(p.dir))
    if (bytes.find("// optrace:auto") != std::string::npos) files.push_back({entries.count(rel) > 0, rel});
  std::sort(files.begin(), files.end());
  for (const auto& [is_entry, rel] : files) {
    if (is_entry && outside_entry) continue;
    std::vector<std::string> lines = ReadLines(p, rel);
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!IsAutoMark(lines[i]) || lines[i].find("\"B\")") == std::string::npos) continue;
      std::string label = MarkLabel(lines[i]);
      if (label == "processing") continue;
      MarkPair m{rel, i, 0, label, {}};
      for (size_t j = i + 1; j < lines.size(); ++j) {
        if (!IsAutoMark(lines[j]) || MarkLabel(lines[j]) != label) continue;
        if (lines[j].find("\"B\")") != std::string::npos) break;
        if (lines[j].find("\"E\")") != std::string::npos) m.es.push_back(j);
      }
      if (!m.es.empty()) {
        m.e = m.es.front();
        return m;
      }
    }
  }
  return std::nullopt;
}

// Renames the range: its B and every E it has.
void Relabel(std::vector<std::string>& lines, const MarkPair& m, const std::string& to) {
  std::vector<size_t> all = m.es;
  all.push_back(m.b);
  for (size_t i : all) {
    size_t at = lines[i].find("\"" + m.label + "\"");
    lines[i].replace(at, m.label.size() + 2, "\"" + to + "\"");
  }
}

// The nearest line at or above `i` that starts a function definition (column 0, has '(').
int FunctionHeadAbove(const std::vector<std::string>& lines, size_t i) {
  for (size_t k = i + 1; k-- > 0;)
    if (!lines[k].empty() && !std::isspace(static_cast<unsigned char>(lines[k][0])) && lines[k].find('(') != std::string::npos &&
        lines[k][0] != '#' && lines[k][0] != '}')
      return static_cast<int>(k) + 1;
  return 0;
}

// The first file (sorted) holding a line with all of `needles`, and that line (0-based).
std::optional<std::pair<std::string, size_t>> FindLine(const Planted& p, std::vector<std::string> needles) {
  for (const auto& [rel, bytes] : Snapshot(p.dir)) {
    std::vector<std::string> lines = SplitLines(bytes);
    for (size_t i = 0; i < lines.size(); ++i)
      if (std::all_of(needles.begin(), needles.end(), [&](const std::string& n) { return lines[i].find(n) != std::string::npos; }))
        return std::make_pair(rel, i);
  }
  return std::nullopt;
}

// A defect generator: edits the copy and fills rule/file/lines; false when the tree has nothing to
// plant it in (e.g. no torch adapter).
using Planter = std::function<bool(Planted&)>;

const std::vector<std::pair<std::string, Planter>>& Planters() {
  static const std::vector<std::pair<std::string, Planter>> all = {
      {"pairing_missing_e",
       [](Planted& p) {
         auto m = FirstPhasePair(p, false);
         if (!m) return false;
         auto lines = ReadLines(p, m->file);
         // An E right before a return / break / continue closes the range on that exit only:
         // without it the exit leaves the range open (early-return), while every other path still
         // pairs. The E that the range's own path ends with is the one whose loss breaks pairing.
         auto exits_next = [&](size_t e) {
           for (size_t k = e + 1; k < lines.size(); ++k) {
             std::string t = lines[k].substr(std::min(lines[k].find_first_not_of(" \t"), lines[k].size()));
             if (t.empty() || t.starts_with("//")) continue;
             return t.starts_with("return") || t.starts_with("break") || t.starts_with("continue");
           }
           return false;
         };
         size_t e = m->e;
         for (size_t k = m->e; k < lines.size() && exits_next(e); ++k) {
           if (lines[k].find("TRACE_POINT(\"" + m->label + "\", \"B\")") != std::string::npos) break;
           if (IsAutoMark(lines[k]) && MarkLabel(lines[k]) == m->label && lines[k].find("\"E\")") != std::string::npos)
             e = k;
         }
         const bool before_exit = exits_next(e);
         lines.erase(lines.begin() + static_cast<long>(e));
         WriteLines(p, m->file, lines);
         if (before_exit) {
           // Every E of the range sits before an exit: the defect is the exit leaving it open.
           size_t at = e;
           while (at < lines.size() && lines[at].find_first_not_of(" \t") == std::string::npos) ++at;
           p.rule = "early-return", p.file = m->file, p.lines = {static_cast<int>(at) + 1};
         } else {
           p.rule = "pairing", p.file = m->file, p.lines = {static_cast<int>(m->b) + 1};
         }
         return true;
       }},
      {"label_style",
       [](Planted& p) {
         auto m = FirstPhasePair(p, false);
         if (!m) return false;
         auto lines = ReadLines(p, m->file);
         Relabel(lines, *m, "Bad_Label");
         WriteLines(p, m->file, lines);
         p.rule = "label-style", p.file = m->file, p.lines = {static_cast<int>(m->b) + 1};
         for (size_t e : m->es) p.lines.insert(static_cast<int>(e) + 1);
         return true;
       }},
      {"event_type",
       [](Planted& p) {
         auto m = FirstPhasePair(p, false);
         if (!m) return false;
         auto lines = ReadLines(p, m->file);
         lines[m->b].replace(lines[m->b].find("\"B\")"), 4, "\"S\")");
         WriteLines(p, m->file, lines);
         p.rule = "event-type", p.file = m->file, p.lines = {static_cast<int>(m->b) + 1};
         return true;
       }},
      {"root_label_nested",
       [](Planted& p) {
         auto m = FirstPhasePair(p, true);
         if (!m) return false;
         auto lines = ReadLines(p, m->file);
         Relabel(lines, *m, "processing");
         WriteLines(p, m->file, lines);
         p.rule = "root-label", p.file = m->file, p.lines = {static_cast<int>(m->b) + 1};
         return true;
       }},
      {"depth",
       [](Planted& p) {
         auto m = FirstPhasePair(p, false);
         if (!m) return false;
         auto lines = ReadLines(p, m->file);
         Relabel(lines, *m, "one two three four five six seven eight");
         WriteLines(p, m->file, lines);
         p.rule = "depth", p.file = m->file, p.lines = {static_cast<int>(m->b) + 1};
         for (size_t e : m->es) p.lines.insert(static_cast<int>(e) + 1);
         return true;
       }},
      {"early_return",
       [](Planted& p) {
         // Outside the kernel entry where the tree has such a range: a return in the entry also
         // skips the buffer's write-back, a second defect of the same edit (entry-buffer).
         auto m = FirstPhasePair(p, true);
         if (!m) m = FirstPhasePair(p, false);
         if (!m) return false;
         auto lines = ReadLines(p, m->file);
         lines.insert(lines.begin() + static_cast<long>(m->b) + 1, "        return;");
         WriteLines(p, m->file, lines);
         p.rule = "early-return", p.file = m->file, p.lines = {static_cast<int>(m->b) + 2};
         if (KernelEntries(p).count(m->file)) p.also = {"entry-buffer"};
         return true;
       }},
      {"index_scope",
       [](Planted& p) {
         auto m = FirstPhasePair(p, false);
         if (!m) return false;
         auto lines = ReadLines(p, m->file);
         std::string& l = lines[m->b];
         size_t from = l.find("\"B\")") + 4, to = l.find(");", from);
         l.replace(from, to - from, ", optraceUndeclaredIdx");
         WriteLines(p, m->file, lines);
         p.rule = "index-scope", p.file = m->file, p.lines = {static_cast<int>(m->b) + 1};
         return true;
       }},
      {"coverage_file",
       [](Planted& p) {
         // Every inserted line of the phase file with the most marks (outside the entry) removed:
         // the file as it was before instrument, so the plan's function lines are its lines.
         // Hand-made marks count too (the shipped w4a8). The right lines: the functions of that
         // file as the plan of the edited tree sees them.
         // Root ranges do not count: a second kernel's entry (arch35/) holding only "processing"
         // has no phase to lose.
         // Every kernel's entry is left alone (a folder of several programs, cann-samples' stories,
         // has one per program): emptying one would drop that kernel's buffer set-up too.
         std::string entry = (*p.plan)["kernels"][0]["entry"], file;
         std::set<std::string> entries;
         for (const auto& k : (*p.plan)["kernels"]) entries.insert(k["entry"].get<std::string>());
         auto is_mark = [](const std::string& l) {
           return l.find("MoeTracing(TRACE_POINT(\"") != std::string::npos &&
                  l.find("TRACE_POINT(\"processing\"") == std::string::npos;
         };
         // Only a file holding a main-flow phase must hold marks (set-up and per-tile helpers never
         // need them): the defect is planted in the most-marked of those. A file whose only range
         // is density-sensitive (a kernel at the label limit) is a warning, coverage-density: not
         // this class.
         std::set<std::string> main_flow;
         for (const auto& s : (*p.plan)["sites"])
           if (s.value("main_flow", false) && !s.value("density_sensitive", false))
             main_flow.insert(s["file"].get<std::string>());
         long most = 0;
         for (const auto& [rel, bytes] : Snapshot(p.dir)) {
           std::vector<std::string> ls = SplitLines(bytes);
           long n = std::count_if(ls.begin(), ls.end(), is_mark);
           // optrace_trace.h (placed by instrument) is optrace's, its doc comments show marks.
           if (!entries.count(rel) && !rel.ends_with("optrace_trace.h") && main_flow.count(rel) && n > most)
             most = n, file = rel;
         }
         if (file.empty()) return false;
         auto lines = ReadLines(p, file);
         std::erase_if(lines, [&](const std::string& l) {
           return l.find("MoeTracing(TRACE_POINT(\"") != std::string::npos || l.find("// optrace:auto") != std::string::npos;
         });
         WriteLines(p, file, lines);
         p.rule = "coverage-file", p.file = file;
         auto plan = RunCli({"plan", "--op", p.dir.string(), "--format", "json"});
         if (plan.exit_code != 0) return true;  // nothing expected: the test fails and says so
         const nlohmann::json j = nlohmann::json::parse(plan.out);
         // The phase lint names may be a function or a traced loop of main-flow code.
         for (const auto& s : j["sites"])
           if (s["file"] == file) p.lines.insert(s["line"].get<int>());
         return true;
       }},
      {"entry_buffer_no_write_back",
       [](Planted& p) {
         const nlohmann::json& k = (*p.plan)["kernels"][0];
         std::string entry = k["entry"], fn = k["function"];
         auto lines = ReadLines(p, entry);
         // The kernel's definition: `void fn(` (a name that is a substring of another, `log` in
         // `LogKernel` or a comment, must not match), else the first line naming `fn(`.
         size_t head = lines.size();
         for (size_t i = 0; i < lines.size() && head == lines.size(); ++i)
           if (lines[i].find("void " + fn + "(") != std::string::npos) head = i;
         for (size_t i = 0; i < lines.size() && head == lines.size(); ++i)
           if (lines[i].find(fn + "(") != std::string::npos && lines[i].find('#') == std::string::npos) head = i;
         if (head == lines.size()) return false;
         size_t end = head;
         while (end < lines.size() && lines[end].find("OPTRACE_KERNEL_END(") == std::string::npos) ++end;
         if (end == lines.size()) return false;
         // Only the call goes: on an early exit written on one line (`if (!ws) {...; OPTRACE_KERNEL_END(p);
         // return;}`) the exit stays and now skips the write-back.
         std::string& l = lines[end];
         size_t from = l.find("OPTRACE_KERNEL_END("), to = l.find(");", from);
         if (to == std::string::npos) return false;
         l.erase(from, to + 2 - from);
         const bool only_space = l.find_first_not_of(" \t") == std::string::npos ||
                                 l.substr(l.find_first_not_of(" \t")).starts_with("//");
         if (only_space) lines.erase(lines.begin() + static_cast<long>(end));
         WriteLines(p, entry, lines);
         // At the kernel, or at the exit that now skips the write-back: the return after it (on
         // its line, or below), or the closing brace of the entry.
         p.rule = "entry-buffer", p.file = entry, p.lines = {static_cast<int>(head) + 1};
         for (size_t i = end; i < lines.size(); ++i)
           if (lines[i].find("return") != std::string::npos || lines[i].starts_with("}")) {
             p.lines.insert(static_cast<int>(i) + 1);
             break;
           }
         return true;
       }},
      {"opdef_without_profiling",
       [](Planted& p) {
         auto at = FindLine(p, {"Output(\"profiling_data\")", "// optrace:auto"});
         if (!at) return false;
         auto lines = ReadLines(p, at->first);
         lines.erase(lines.begin() + static_cast<long>(at->second));
         int last = 0;
         for (size_t i = 0; i < at->second; ++i)
           if (lines[i].find("Output(\"") != std::string::npos) last = static_cast<int>(i) + 1;
         WriteLines(p, at->first, lines);
         p.rule = "binding-opdef-last", p.file = at->first, p.lines = {last};
         return true;
       }},
      {"infer_without_dtype",
       [](Planted& p) {
         auto at = FindLine(p, {"SetOutputDataType(", "DT_INT64", "// optrace:auto"});
         if (!at) return false;
         auto lines = ReadLines(p, at->first);
         lines.erase(lines.begin() + static_cast<long>(at->second));
         WriteLines(p, at->first, lines);
         p.rule = "binding-infer", p.file = at->first, p.lines = {FunctionHeadAbove(lines, at->second - 1)};
         return true;
       }},
      {"kernel_profiling_first",
       [](Planted& p) {
         std::string entry = (*p.plan)["kernels"][0]["entry"], fn = (*p.plan)["kernels"][0]["function"];
         auto lines = ReadLines(p, entry);
         size_t i = 0;
         while (i < lines.size() && lines[i].find(fn + "(") == std::string::npos) ++i;
         while (i < lines.size() && !(lines[i].find("GM_ADDR profiling_data") != std::string::npos &&
                                      lines[i].find("// optrace:orig") != std::string::npos))
           ++i;
         if (i == lines.size()) return false;
         auto at = std::optional<std::pair<std::string, size_t>>({entry, i});
         std::string& l = lines[at->second];
         size_t cut = l.find(", GM_ADDR profiling_data"), first = l.find("GM_ADDR");
         if (cut == std::string::npos || first >= cut) return false;
         l.erase(cut, std::string(", GM_ADDR profiling_data").size());
         l.insert(first, "GM_ADDR profiling_data, ");
         WriteLines(p, at->first, lines);
         p.rule = "binding-kernel-order", p.file = at->first, p.lines = {static_cast<int>(at->second) + 1};
         return true;
       }},
      {"kernel_profiling_after_workspace",
       [](Planted& p) {
         // The generated launch passes workspace and tiling last: profiling after them gets their address.
         std::string entry = (*p.plan)["kernels"][0]["entry"], fn = (*p.plan)["kernels"][0]["function"];
         auto lines = ReadLines(p, entry);
         size_t i = 0;
         while (i < lines.size() && lines[i].find(fn + "(") == std::string::npos) ++i;
         while (i < lines.size() && lines[i].find(", GM_ADDR profiling_data") == std::string::npos) ++i;
         if (i == lines.size()) return false;
         std::string& l = lines[i];
         size_t cut = l.find(", GM_ADDR profiling_data");
         size_t tail = std::min(l.find("workspace", cut), l.find("tiling", cut));
         size_t close = l.find(')', cut);
         if (tail == std::string::npos || close == std::string::npos || tail > close) return false;
         l.erase(cut, std::string(", GM_ADDR profiling_data").size());
         l.insert(l.find(')', cut), ", GM_ADDR profiling_data");
         WriteLines(p, entry, lines);
         p.rule = "binding-kernel-order", p.file = entry, p.lines = {static_cast<int>(i) + 1};
         return true;
       }},
      {"root_renamed",
       [](Planted& p) {
         // Every "processing" mark renamed: the kernel has no root range. Reported at the kernel
         // (per-kernel check) or the entry's first function (the tree-wide one).
         bool any = false;
         for (const auto& [rel, bytes] : Snapshot(p.dir)) {
           if (bytes.find("TRACE_POINT(\"processing\"") == std::string::npos) continue;
           std::string text = bytes;
           for (size_t at; (at = text.find("TRACE_POINT(\"processing\"")) != std::string::npos;)
             text.replace(at, std::string("TRACE_POINT(\"processing\"").size(), "TRACE_POINT(\"process\"");
           EXPECT_TRUE(WriteFileAtomic(p.dir / rel, text).ok());
           any = true;
         }
         if (!any) return false;
         p.rule = "root-label", p.file = (*p.plan)["kernels"][0]["entry"];
         for (int l = 1; l <= (*p.plan)["kernels"][0]["line"].get<int>() + 2; ++l) p.lines.insert(l);
         return true;
       }},
      {"adapter_drops_profiling",
       [](Planted& p) {
         auto at = FindLine(p, {"EXEC_NPU_CMD(", "profiling_data", "// optrace:orig"});
         if (!at) return false;
         auto lines = ReadLines(p, at->first);
         std::string& l = lines[at->second];
         size_t cut = l.find(", profiling_data");
         if (cut == std::string::npos || cut > l.find("//")) return false;
         l.erase(cut, std::string(", profiling_data").size());
         WriteLines(p, at->first, lines);
         p.rule = "binding-pybind", p.file = at->first, p.lines = {static_cast<int>(at->second) + 1};
         return true;
       }},
      {"second_profiling_op",
       [](Planted& p) {
         auto at = FindLine(p, {"OP_ADD("});
         if (!at) return false;
         auto lines = ReadLines(p, at->first);
         std::string l = lines[at->second];
         size_t b = l.find("OP_ADD(") + 7, e = l.find_first_of(",)", b);
         lines.insert(lines.begin() + static_cast<long>(at->second) + 1, "OP_ADD(" + l.substr(b, e - b) + "Profiling);");
         WriteLines(p, at->first, lines);
         p.rule = "no-profiling-op", p.file = at->first, p.lines = {static_cast<int>(at->second) + 2};
         return true;
       }},
  };
  return all;
}

using PlantParam = std::tuple<std::string, std::string>;  // tree, planter

// Defects of a hand-instrumented tree as its authors could make them (planted on the shipped w4a8).
const std::vector<std::pair<std::string, Planter>>& HandPlanters() {
  static const std::vector<std::pair<std::string, Planter>> all = {
      {"init_outputs_swapped",
       [](Planted& p) {
         // Two main outputs swapped in the kernel class Init call against the __global__ order.
         auto at = FindLine(p, {"op.Init("});
         if (!at) return false;
         auto lines = ReadLines(p, at->first);
         std::string& l = lines[at->second];
         size_t c = l.find(", c, expertTokenNums,");
         if (c == std::string::npos) return false;
         l.replace(c, std::string(", c, expertTokenNums,").size(), ", expertTokenNums, c,");
         WriteLines(p, at->first, lines);
         // Init names them outGM / expertTokenNums: only the __global__ order tells (a warning).
         p.rule = "binding-init-names", p.file = at->first, p.lines = {static_cast<int>(at->second) + 1};
         p.warning = true;
         return true;
       }},
      {"profile_ptr_never_set",
       [](Planted& p) {
         auto at = FindLine(p, {"SetMoeProfilePtr(profBase"});
         if (!at) return false;
         auto lines = ReadLines(p, at->first);
         lines.erase(lines.begin() + static_cast<long>(at->second));
         size_t head = 0;
         while (head < lines.size() && lines[head].find("__global__") == std::string::npos) ++head;
         WriteLines(p, at->first, lines);
         p.rule = "entry-buffer", p.file = at->first, p.lines = {static_cast<int>(head) + 1, static_cast<int>(head) + 2};
         return true;
       }},
      {"group_loop_without_index",
       [](Planted& p) {
         auto at = FindLine(p, {"TRACE_POINT(\"dispatch-gmm1 aic expert-matmul\", \"B\"), 0, groupIdx"});
         if (!at) return false;
         auto lines = ReadLines(p, at->first);
         std::string& l = lines[at->second];
         l.replace(l.find(", 0, groupIdx"), std::string(", 0, groupIdx").size(), "");
         WriteLines(p, at->first, lines);
         p.rule = "index-group-loop", p.file = at->first, p.lines = {static_cast<int>(at->second) + 1};
         return true;
       }},
      {"processing_in_a_callee",
       [](Planted& p) {
         auto at = FindLine(p, {"TRACE_POINT(\"dispatch-gmm1 aic\", \"B\")"});
         if (!at) return false;
         auto lines = ReadLines(p, at->first);
         lines.insert(lines.begin() + static_cast<long>(at->second) + 1,
                      {"        MoeTracing(TRACE_POINT(\"processing\", \"B\"));",
                       "        MoeTracing(TRACE_POINT(\"processing\", \"E\"));"});
         WriteLines(p, at->first, lines);
         p.rule = "root-label", p.file = at->first, p.lines = {static_cast<int>(at->second) + 2};
         return true;
       }},
      {"scan_only_hook",
       [](Planted& p) {
         // The tree's TRACE_POINT is seed 000's `0` fallback: a hook that only scans breaks G1.
         source::HookSpec spec;
         spec.optrace_path = "optrace";
         std::string script = "#!/bin/bash\nset -e\ncp -r op_kernel build_out/\n" + source::HookBlock(spec) + "bash build.sh\n";
         EXPECT_TRUE(WriteFileAtomic(p.dir / "build.sh", script).ok());
         p.rule = "hook-modify", p.file = "build.sh", p.lines = {4};
         return true;
       }},
  };
  return all;
}

std::vector<PlantParam> PlantParams() {
  std::vector<PlantParam> out;
  for (const std::string& tree : TreeNames())
    for (const auto& [name, plant] : Planters()) out.emplace_back(tree, name);
  if (!TreeNames().empty())
    for (const auto& [name, plant] : HandPlanters()) out.emplace_back(std::string(kW4a8) + "_shipped", name);
  return out;
}

struct PlantStats {
  int planted = 0, found = 0, true_findings = 0, other_errors = 0, inherited = 0;
  std::vector<std::string> missed, false_findings;
};

// Errors the instrumented copy has before anything is planted (the hand steps instrument lists,
// the tree's own defects), counted per (rule, file): a planted copy repeats them, and they are
// neither the planted defect nor a false finding of it.
// Kept on disk beside the prepared tree (each test is its own process): one lint per tree and
// build instead of one per planted defect.
std::map<std::pair<std::string, std::string>, int> BaselineErrors(const std::string& tree, const fs::path& dir) {
  static std::map<std::string, std::map<std::pair<std::string, std::string>, int>> cache;
  auto it = cache.find(tree);
  if (it != cache.end()) return it->second;
  std::map<std::pair<std::string, std::string>, int> out;
  const fs::path file = CacheRoot() / (tree + ".baseline.json");
  if (Result<std::string> text = ReadFileToString(file); text.ok()) {
    nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
    if (j.is_array()) {
      for (const nlohmann::json& e : j) out[{e.at(0).get<std::string>(), e.at(1).get<std::string>()}] = e.at(2).get<int>();
      return cache[tree] = out;
    }
  }
  for (const source::Diagnostic& d : LintOp(dir).diagnostics)
    if (d.severity == source::Severity::kError) ++out[{d.rule, d.file}];
  nlohmann::json j = nlohmann::json::array();
  for (const auto& [key, n] : out) j.push_back({key.first, key.second, n});
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  const fs::path tmp = file.string() + ".tmp" + std::to_string(::getpid());
  if (WriteFileAtomic(tmp, j.dump()).ok()) fs::rename(tmp, file, ec);
  return cache[tree] = out;
}
PlantStats& Stats() {
  static PlantStats s;
  return s;
}

class PlantedDefectTest : public ::testing::TestWithParam<PlantParam> {};

TEST_P(PlantedDefectTest, IsFoundWithItsRuleAtItsLine) {
  const auto& [tree, planter] = GetParam();
  bool shipped = tree.ends_with("_shipped");  // planted in the tree as its authors ship it
  const PreparedTree& t = Prepared(shipped ? std::string(kW4a8) : tree);
  ASSERT_EQ(t.instrument_exit, 0);
  TempTree copy;
  fs::copy(shipped ? kOptrees / kW4a8 : t.dir, copy.path(), fs::copy_options::recursive);
  Planted p{copy.path(), &t.plan, "", "", {}, false, {}};
  for (const auto& [name, plant] : shipped ? HandPlanters() : Planters())
    if (name == planter && !plant(p)) GTEST_SKIP() << tree << " has nothing to plant " << planter << " in";
  PlantStats& st = Stats();
  ++st.planted;
  bool found = false;
  std::string all;
  std::map<std::pair<std::string, std::string>, int> baseline =
      BaselineErrors(tree, shipped ? kOptrees / kW4a8 : t.dir);
  for (const source::Diagnostic& d : LintOp(copy.path()).diagnostics) {
    all += "\n  " + source::FormatDiagnostic(d);
    bool right = (d.rule == p.rule || p.also.count(d.rule)) && d.file == p.file && p.lines.count(d.line);
    if (p.warning && right && d.rule == p.rule && d.severity == source::Severity::kWarning) {
      found = true;
      continue;
    }
    if (d.severity != source::Severity::kError) continue;
    found = found || (right && d.rule == p.rule);
    if (right) {
      ++st.true_findings;
    } else if (baseline[{d.rule, d.file}]-- > 0) {
      ++st.inherited;
    } else {
      ++st.other_errors;
      st.false_findings.push_back(tree + "/" + planter + ": " + source::FormatDiagnostic(d));
    }
  }
  st.found += found;
  if (!found) st.missed.push_back(tree + "/" + planter);
  std::string want;
  for (int l : p.lines) want += " " + std::to_string(l);
  EXPECT_TRUE(found) << p.rule << " at " << p.file << " line(s)" << want << "; lint found:" << all;
}

INSTANTIATE_TEST_SUITE_P(Optrees, PlantedDefectTest, ::testing::ValuesIn(PlantParams()),
                         [](const ::testing::TestParamInfo<PlantParam>& i) {
                           return std::get<0>(i.param) + "_" + std::get<1>(i.param);
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PlantedDefectTest);

// Precision and recall over every planted defect of this run (docs/source.md quotes them).
class PlantSummary : public ::testing::Environment {
 public:
  void TearDown() override {
    const PlantStats& s = Stats();
    if (s.planted == 0) return;
    int errors = s.true_findings + s.other_errors;
    std::printf("planted defects on real trees: %d planted, %d found (recall %.3f); %d new error findings, %d at the "
                "planted rule and line (precision %.3f); %d errors the copy had before planting\n",
                s.planted, s.found, static_cast<double>(s.found) / s.planted, errors, s.true_findings,
                errors ? static_cast<double>(s.true_findings) / errors : 1.0, s.inherited);
    for (const std::string& m : s.missed) std::printf("  missed: %s\n", m.c_str());
    for (const std::string& f : s.false_findings) std::printf("  other: %s\n", f.c_str());
  }
};
[[maybe_unused]] ::testing::Environment* const kPlantSummary = ::testing::AddGlobalTestEnvironment(new PlantSummary);

}  // namespace
}  // namespace optrace
