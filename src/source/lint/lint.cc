// Orchestration of `optrace lint`: gather files, find the kernel entry and its include tree,
// run the rule groups, apply in-source suppressions.
#include "source/lint/lint.h"

#include <algorithm>
#include <set>
#include <system_error>

#include "core/file_io.h"
#include "source/lint/lint_context.h"
#include "source/index/call_graph.h"
#include "source/index/code_index.h"
#include "source/scan/scanner.h"

namespace optrace::source {
namespace fs = std::filesystem;

LintContext::LintContext() = default;
LintContext::~LintContext() = default;

const index::CodeIndex& LintContext::Index() {
  if (!index_) {
    std::set<const SourceFile*> files;
    for (const IncludeTree& t : trees)
      for (const SourceFile* f : t.files) files.insert(f);
    std::vector<const SourceFile*> list(files.begin(), files.end());
    std::sort(list.begin(), list.end(), [](const SourceFile* a, const SourceFile* b) { return a->rel < b->rel; });
    index_ = std::make_unique<index::CodeIndex>(list);
  }
  return *index_;
}

const std::vector<index::CallGraph>& LintContext::Graphs() {
  if (!graphs_) {
    graphs_ = std::make_unique<std::vector<index::CallGraph>>();
    const index::CodeIndex& idx = Index();
    for (const index::FunctionDef* k : idx.Kernels()) {
      if (idx.CalledByAnotherKernel(*k)) continue;  // part of the entry that calls it
      if (idx.ForwardedKernel(*k)) continue;        // a stub for the kernel it calls
      bool entry = false;
      for (const IncludeTree& t : trees) entry = entry || t.entry == k->file;
      if (entry) graphs_->push_back(index::CallGraph::Build(idx, *k));
    }
  }
  return *graphs_;
}

const CodeStructure& LintContext::Structure(const SourceFile* f) {
  auto& slot = structures_[f];
  if (!slot) slot = std::make_unique<CodeStructure>(AnalyzeStructure(f->lex));
  return *slot;
}

void LintContext::Report(const SourceFile* f, int line, int column, std::string_view rule, std::string message) {
  Report(f->rel, line, column, rule, std::move(message));
}

void LintContext::Report(const std::string& rel, int line, int column, std::string_view rule, std::string message) {
  const LintRule* r = FindLintRule(rule);
  diagnostics.push_back({rel, line, column, r ? r->severity : Severity::kError, std::string(rule), std::move(message)});
}

size_t LintReport::Count(Severity s) const {
  return static_cast<size_t>(
      std::count_if(diagnostics.begin(), diagnostics.end(), [s](const Diagnostic& d) { return d.severity == s; }));
}

namespace {

// `every`: all .py files (an operator's examples/ directory), else samples and tests only.
bool IsPythonCandidate(const fs::path& p, bool every) {
  if (p.extension() != ".py") return false;
  if (every) return true;
  std::string name = p.filename().string();
  return name.rfind("test_", 0) == 0 || (name.size() > 10 && name.substr(name.size() - 10) == "_sample.py");
}

Status ListPython(const fs::path& root, std::vector<fs::path>* out, bool every = false) {
  fs::path abs = ResolveAgainstCwd(root).lexically_normal();
  std::error_code ec;
  if (fs::is_regular_file(abs, ec)) {
    if (IsPythonCandidate(abs, true)) out->push_back(abs);
    return Status::Ok();
  }
  if (!fs::is_directory(abs, ec)) return Status::Ok();
  for (fs::recursive_directory_iterator it(abs, fs::directory_options::skip_permission_denied, ec), end; it != end;
       it.increment(ec)) {
    if (ec) return IoError("{}: cannot list the directory: {}", root.string(), ec.message());
    std::string name = it->path().filename().string();
    if (it->is_directory(ec) && !name.empty() && (name[0] == '.' || name == "__pycache__")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ec) && IsPythonCandidate(it->path(), every)) out->push_back(it->path().lexically_normal());
    ec.clear();  // a file that vanished is skipped; only a failed step of the walk is an error
  }
  if (ec) return IoError("{}: cannot list the directory: {}", root.string(), ec.message());
  return Status::Ok();
}

// `optrace-lint: disable=rule[,rule]` (file) and `disable-line=` (that line and the next).
bool Suppressed(std::string_view text, const Diagnostic& d) {
  static constexpr std::string_view kTag = "optrace-lint:";
  size_t pos = 0;
  int line = 1;
  size_t line_pos = 0;
  while ((pos = text.find(kTag, pos)) != std::string_view::npos) {
    for (; line_pos < pos; ++line_pos)
      if (text[line_pos] == '\n') ++line;
    size_t eol = text.find('\n', pos);
    std::string_view rest = text.substr(pos + kTag.size(), (eol == std::string_view::npos ? text.size() : eol) - pos -
                                                               kTag.size());
    pos += kTag.size();
    size_t s = rest.find_first_not_of(' ');
    if (s == std::string_view::npos) continue;
    rest = rest.substr(s);
    bool whole_file = rest.rfind("disable=", 0) == 0;
    bool this_line = rest.rfind("disable-line=", 0) == 0;
    if (!whole_file && !this_line) continue;
    rest = rest.substr(rest.find('=') + 1);
    size_t stop = rest.find_first_of(" \t*");
    rest = rest.substr(0, stop);
    bool named = false;
    while (!rest.empty()) {
      size_t comma = rest.find(',');
      std::string_view id = rest.substr(0, comma);
      if (id == d.rule || id == "all") named = true;
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
    if (!named) continue;
    if (whole_file || d.line == line || d.line == line + 1) return true;
  }
  return false;
}

}  // namespace

Result<LintReport> RunLint(const LintOptions& options) {
  if (options.paths.empty() && options.op_dir.empty()) return UsageError("give files or directories to lint, or --op DIR");
  std::vector<fs::path> roots = options.paths;
  if (!options.op_dir.empty()) {
    std::error_code ec;
    if (!fs::is_directory(ResolveAgainstCwd(options.op_dir), ec)) {
      return NotFoundError("{}: operator directory not found (expected op_host/ and op_kernel/ inside)",
                           options.op_dir.string());
    }
    roots.push_back(options.op_dir);
  }
  fs::path root = options.op_dir.empty() ? DefaultSourceRoot(roots) : ResolveAgainstCwd(options.op_dir);
  SourceSet set(root);
  LintContext ctx;
  ctx.sources = &set;
  ctx.op_dir = options.op_dir.empty() ? fs::path() : set.Normalize(options.op_dir);
  ctx.include_dirs = options.include_dirs;
  ctx.gates = options.gates;
  std::set<const SourceFile*> chosen;
  for (const fs::path& r : roots) {
    OPTRACE_ASSIGN_OR_RETURN(SourceListing list, ListOperatorFiles(r));
    ctx.single_headers.insert(ctx.single_headers.end(), list.single_headers.begin(), list.single_headers.end());
    for (const fs::path& p : list.sources) {
      if (!IsSourceExtension(p)) continue;
      OPTRACE_ASSIGN_OR_RETURN(const SourceFile* f, set.Load(p));
      chosen.insert(f);
    }
    OPTRACE_RETURN_IF_ERROR(ListPython(r, &ctx.python_files));
  }
  // Every script under the operator's examples/ drives it (run.py, bench.py, ...), not only *_sample.py.
  if (!options.op_dir.empty()) OPTRACE_RETURN_IF_ERROR(ListPython(options.op_dir / "examples", &ctx.python_files, true));
  std::sort(ctx.single_headers.begin(), ctx.single_headers.end());
  ctx.single_headers.erase(std::unique(ctx.single_headers.begin(), ctx.single_headers.end()), ctx.single_headers.end());
  std::sort(ctx.python_files.begin(), ctx.python_files.end());
  ctx.python_files.erase(std::unique(ctx.python_files.begin(), ctx.python_files.end()), ctx.python_files.end());

  // The kernel entries: given, else every kernel source with a __global__ function (those under
  // op_kernel/ when there are any).
  std::vector<fs::path> entries;
  if (!options.entry.empty()) {
    entries.push_back(options.entry);
  } else {
    std::vector<const SourceFile*> candidates;
    const auto kernel_macros = KernelMacros(set);
    for (const SourceFile* f : chosen)
      if (DefinesKernel(*f, kernel_macros)) candidates.push_back(f);
    std::sort(candidates.begin(), candidates.end(),
              [](const SourceFile* a, const SourceFile* b) { return a->rel < b->rel; });
    std::vector<std::string> rels;
    for (const SourceFile* f : candidates) rels.push_back(f->rel);
    std::vector<std::string> picked = DefaultKernelEntries(rels);
    for (const SourceFile* f : candidates)
      if (std::find(picked.begin(), picked.end(), f->rel) != picked.end()) entries.push_back(f->path);
  }
  LintReport report;
  report.root = root.generic_string();
  ctx.root = root;
  ctx.entry_option = options.entry;
  for (const fs::path& entry : entries) {
    IncludeOptions io;
    io.include_dirs = options.include_dirs;
    io.include_dirs.push_back(root);
    io.limit = root;
    io.by_name = true;
    OPTRACE_ASSIGN_OR_RETURN(IncludeTree tree, WalkIncludeTree(set, entry, io));
    for (const SourceFile* f : tree.files) chosen.insert(f);
    for (std::string& u : tree.UnresolvedQuoted()) report.unresolved_includes.push_back(std::move(u));
    for (std::string& b : tree.FoundByName()) report.includes_found_by_name.push_back(std::move(b));
    if (!ctx.tree) {
      report.entry = tree.entry->rel;
      ctx.tree = tree;
    }
    ctx.trees.push_back(std::move(tree));
  }
  ctx.files.assign(chosen.begin(), chosen.end());
  std::sort(ctx.files.begin(), ctx.files.end(), [](const SourceFile* a, const SourceFile* b) { return a->rel < b->rel; });
  set.FindAllTraces();

  CheckLabels(ctx);
  CheckCompileSafety(ctx);
  if (ctx.tree) CheckCoverage(ctx, &report.density);
  if (ctx.tree) CheckCallGraph(ctx);
  if (!ctx.op_dir.empty()) CheckBinding(ctx);
  CheckSamples(ctx);
  CheckHook(ctx, options.build_script);
  CheckTraceHeader(ctx);
  if (options.compile) OPTRACE_RETURN_IF_ERROR(CheckCompiles(ctx, options, &report));

  // In-source suppressions.
  std::map<std::string, std::string> python_texts;
  std::vector<Diagnostic> kept;
  for (Diagnostic& d : ctx.diagnostics) {
    std::string_view text;
    if (const SourceFile* f = set.Find(d.file)) {
      text = *f->text;
    } else {
      auto it = python_texts.find(d.file);
      if (it == python_texts.end()) {
        auto loaded = ReadFileToString(root / d.file);
        it = python_texts.emplace(d.file, loaded.ok() ? *loaded : std::string()).first;
      }
      text = it->second;
    }
    if (!Suppressed(text, d)) kept.push_back(std::move(d));
  }
  SortDiagnostics(&kept);
  report.diagnostics = std::move(kept);
  if (options.gates) report.gates = JudgeGates(report.diagnostics, ctx.facts, !ctx.op_dir.empty());
  report.files_checked = ctx.files.size() + ctx.python_files.size();
  for (const SourceFile* f : ctx.files) {
    report.lines_checked += static_cast<size_t>(f->lex.line_count);
    report.trace_points += f->traces.sites.size();
  }
  return report;
}

}  // namespace optrace::source
