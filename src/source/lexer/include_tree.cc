#include "source/lexer/include_tree.h"

#include "source/lexer/trace_header.h"

#include <algorithm>
#include <set>
#include <system_error>

namespace optrace::source {
namespace fs = std::filesystem;

namespace {

bool Exists(const SourceSet& set, const fs::path& p) {
  if (set.Find(p) != nullptr) return true;
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

bool Under(const fs::path& p, const fs::path& dir) {
  fs::path rel = p.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

fs::path ResolveInclude(const SourceSet& set, const fs::path& from, const std::string& spelled, bool angled,
                        const std::vector<fs::path>& include_dirs) {
  if (spelled.empty()) return {};
  if (!angled) {
    fs::path p = (from.parent_path() / spelled).lexically_normal();
    if (Exists(set, p)) return p;
  }
  for (const fs::path& dir : include_dirs) {
    fs::path p = (set.Normalize(dir) / spelled).lexically_normal();
    if (Exists(set, p)) return p;
  }
  return {};
}

bool IncludeTree::Contains(const SourceFile* f) const {
  return std::find(files.begin(), files.end(), f) != files.end();
}

std::vector<const SourceFile*> IncludeTree::ClosureOf(const SourceFile* f) const {
  std::vector<const SourceFile*> out, stack{f};
  std::set<const SourceFile*> seen;
  while (!stack.empty()) {
    const SourceFile* cur = stack.back();
    stack.pop_back();
    for (const IncludeEdge& e : edges) {
      if (e.from != cur || e.to == nullptr || !seen.insert(e.to).second) continue;
      out.push_back(e.to);
      stack.push_back(e.to);
    }
  }
  return out;
}

std::vector<std::string> IncludeTree::UnresolvedQuoted() const {
  std::vector<std::string> out;
  for (const IncludeEdge& e : edges)
    if (!e.angled && !e.to && e.resolved.empty() && e.from) out.push_back(fmt::format("{}:{}: {}", e.from->rel, e.line, e.spelled));
  return out;
}

Result<IncludeTree> WalkIncludeTree(SourceSet& set, const fs::path& entry, const IncludeOptions& options) {
  IncludeTree tree;
  OPTRACE_ASSIGN_OR_RETURN(tree.entry, set.Load(entry));
  fs::path limit = options.limit.empty() ? fs::path() : set.Normalize(options.limit);
  std::set<const SourceFile*> seen{tree.entry};
  // Depth-first in include order, iterative so that deep trees cannot overflow the stack.
  struct Pending {
    const SourceFile* file;
    size_t next_directive;
  };
  std::vector<Pending> stack{{tree.entry, 0}};
  tree.files.push_back(tree.entry);
  while (!stack.empty()) {
    Pending& top = stack.back();
    const auto& dirs = top.file->lex.directives;
    if (top.next_directive >= dirs.size()) {
      stack.pop_back();
      continue;
    }
    const Directive& d = dirs[top.next_directive++];
    if (d.kind != DirectiveKind::kInclude || !d.active || d.include_path.empty()) continue;
    IncludeEdge edge;
    edge.from = top.file;
    edge.line = d.line;
    edge.column = d.column;
    edge.spelled = d.include_path;
    edge.angled = d.include_angled;
    edge.resolved = ResolveInclude(set, top.file->path, d.include_path, d.include_angled, options.include_dirs);
    // optrace's placed header is optrace's API, not the operator's code: recorded, never read
    // (as the SDK's headers are not), so its macros do not hide OPTRACE_KERNEL_BEGIN & co.
    if (!edge.resolved.empty() && (limit.empty() || Under(edge.resolved, limit)) &&
        edge.resolved.filename() != kSingleHeaderName) {
      auto loaded = set.Load(edge.resolved);
      if (loaded.ok()) edge.to = *loaded;
    }
    const SourceFile* to = edge.to;
    tree.edges.push_back(std::move(edge));
    if (to != nullptr && seen.insert(to).second) {
      tree.files.push_back(to);
      stack.push_back({to, 0});
    }
  }
  return tree;
}

}  // namespace optrace::source
