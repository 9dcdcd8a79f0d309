#include "source/scan/scanner.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>
#include <system_error>

#include "core/file_io.h"
#include "optrace/point_id.h"
#include "source/lexer/include_tree.h"

namespace optrace::source {
namespace fs = std::filesystem;

bool ScanResult::HasErrors() const {
  if (!collisions.empty()) return true;
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::kError; });
}

std::string FormatCollision(const Collision& c) {
  return fmt::format("{}:{}:{}: error: labels \"{}\" and \"{}\" (at {}:{}:{}) hash to the same label id {}; "
                     "rename one of them [label-collision]",
                     c.second.file, c.second.line, c.second.column, c.second_label, c.first_label, c.first.file,
                     c.first.line, c.first.column, c.label_id);
}

fs::path DefaultSourceRoot(const std::vector<fs::path>& roots) {
  if (roots.empty()) return ResolveAgainstCwd(".");
  std::vector<fs::path> dirs;
  for (const fs::path& r : roots) {
    fs::path abs = ResolveAgainstCwd(r).lexically_normal();
    std::error_code ec;
    if (abs.has_filename() == false) abs = abs.parent_path();
    dirs.push_back(fs::is_directory(abs, ec) ? abs : abs.parent_path());
  }
  fs::path common = dirs[0];
  for (const fs::path& d : dirs) {
    while (!common.empty() && d.lexically_relative(common).string().rfind("..", 0) == 0) {
      if (common == common.parent_path()) break;
      common = common.parent_path();
    }
  }
  return common;
}

ScanResult ScanLoaded(std::shared_ptr<SourceSet> sources, std::vector<const SourceFile*> files) {
  ScanResult r;
  sources->FindAllTraces();
  std::sort(files.begin(), files.end(), [](const SourceFile* a, const SourceFile* b) { return a->rel < b->rel; });
  files.erase(std::unique(files.begin(), files.end()), files.end());
  r.map.scheme = PointIdScheme::kFnv1a31;
  r.map.source_root = sources->root().generic_string();
  struct FirstUse {
    std::string label;
    Location where;
  };
  std::map<uint32_t, FirstUse> by_label_id;
  int64_t event_id = 0;
  for (const SourceFile* f : files) {
    for (const TraceSyntaxIssue& issue : f->traces.issues) {
      r.diagnostics.push_back({f->rel, issue.line, issue.column, Severity::kError,
                               issue.event_type ? "event-type" : "trace-syntax", issue.message});
    }
    for (const TraceSite& s : f->traces.sites) {
      if (s.event_type != 'B' && s.event_type != 'E') continue;
      ++r.site_count;
      uint32_t label_id = LabelId(s.label.data(), static_cast<uint32_t>(s.label.size()));
      uint32_t id = PointId(label_id, s.event_type == 'E');
      Location here{f->rel, s.line, s.column};
      if (s.rewritten && s.literal_id != id) {
        r.diagnostics.push_back({f->rel, s.line, s.column, Severity::kError, "trace-syntax",
                                 fmt::format("integer {:#x} does not match its comment TRACE_POINT(\"{}\", \"{}\") "
                                             "(id {:#x}); restore the TRACE_POINT or rerun 'optrace scan --modify'",
                                             s.literal_id, s.label, s.event_type, id)});
      }
      auto [it, inserted] = by_label_id.emplace(label_id, FirstUse{s.label, here});
      if (!inserted && it->second.label != s.label) {
        r.collisions.push_back({label_id, it->second.label, s.label, it->second.where, here});
        continue;
      }
      if (r.map.points.count(id) != 0) continue;
      PointInfo p;
      p.id = id;
      p.label = s.label;
      p.event_type = s.event_type;
      p.file = f->rel;
      p.line = s.line;
      p.column = s.column;
      p.event_id = ++event_id;
      r.map.points.emplace(id, std::move(p));
    }
  }
  // Report each colliding pair once.
  std::sort(r.collisions.begin(), r.collisions.end(), [](const Collision& a, const Collision& b) {
    return std::tie(a.label_id, a.second_label) < std::tie(b.label_id, b.second_label);
  });
  r.collisions.erase(std::unique(r.collisions.begin(), r.collisions.end(),
                                 [](const Collision& a, const Collision& b) {
                                   return a.label_id == b.label_id && a.second_label == b.second_label;
                                 }),
                     r.collisions.end());
  SortDiagnostics(&r.diagnostics);
  r.files = std::move(files);
  r.sources = std::move(sources);
  return r;
}

Result<ScanResult> ScanSources(const std::vector<fs::path>& roots, const ScanOptions& options) {
  if (roots.empty() && !options.entry) return UsageError("no source files or directories given");
  std::vector<fs::path> all_roots = roots;
  if (options.entry) all_roots.push_back(*options.entry);
  fs::path root = options.source_root.empty() ? DefaultSourceRoot(all_roots) : options.source_root;
  auto sources = std::make_shared<SourceSet>(root);
  std::vector<const SourceFile*> files;
  std::vector<std::string> unresolved;
  if (options.entry) {
    IncludeOptions io;
    io.include_dirs = options.include_dirs;
    OPTRACE_ASSIGN_OR_RETURN(IncludeTree tree, WalkIncludeTree(*sources, *options.entry, io));
    files = tree.files;
    unresolved = tree.UnresolvedQuoted();
  }
  for (const fs::path& r : roots) {
    OPTRACE_ASSIGN_OR_RETURN(std::vector<fs::path> list, ListSourceFiles(r));
    for (const fs::path& p : list) {
      OPTRACE_ASSIGN_OR_RETURN(const SourceFile* f, sources->Load(p));
      files.push_back(f);
    }
  }
  ScanResult r = ScanLoaded(std::move(sources), std::move(files));
  r.unresolved_includes = std::move(unresolved);
  return r;
}

Result<ScanResult> ScanSourceTexts(const std::vector<std::pair<std::string, std::string>>& files,
                                   std::string source_root) {
  auto sources = std::make_shared<SourceSet>(source_root.empty() ? fs::path("/") : fs::path(source_root));
  std::vector<const SourceFile*> list;
  for (const auto& [rel, text] : files) {
    if (rel.empty()) return UsageError("in-memory source with an empty path");
    list.push_back(sources->AddText(rel, text));
  }
  return ScanLoaded(std::move(sources), std::move(list));
}

}  // namespace optrace::source
