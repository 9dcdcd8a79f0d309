#include "source/lexer/include_tree.h"

#include "source/lexer/trace_header.h"

#include <algorithm>
#include <map>
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

bool InTestOrExampleFolder(const fs::path& p) {
  static const std::set<std::string> kNames = {"tests", "test", "ut", "st", "testcase", "examples", "example", "demo"};
  for (auto it = p.begin(); it != p.end() && std::next(it) != p.end(); ++it)
    if (kNames.count(it->string())) return true;
  return false;
}

// The loaded files by file name, made on the first include that needs it.
class NameIndex {
 public:
  NameIndex(const SourceSet& set, fs::path limit) : set_(set), limit_(std::move(limit)) {}

  // The one candidate for `spelled` included from `from`, or an empty path.
  fs::path Find(const fs::path& from, const std::string& spelled) {
    fs::path want = fs::path(spelled).lexically_normal();
    if (want.empty() || want.is_absolute() || *want.begin() == "..") return {};
    if (!built_) Build();
    auto [lo, hi] = by_name_.equal_range(want.filename().string());
    bool from_test = InTestOrExampleFolder(set_.Relative(from));
    fs::path found;
    for (auto it = lo; it != hi; ++it) {
      const SourceFile* f = it->second;
      if (f->path == from || (!from_test && InTestOrExampleFolder(f->rel))) continue;
      if (!EndsWith(f->path, want)) continue;
      if (!found.empty()) return {};  // several: the build's -I decides, not optrace
      found = f->path;
    }
    return found;
  }

 private:
  static bool EndsWith(const fs::path& p, const fs::path& tail) {
    std::vector<fs::path> a(p.begin(), p.end()), b(tail.begin(), tail.end());
    return b.size() <= a.size() && std::equal(b.rbegin(), b.rend(), a.rbegin());
  }
  void Build() {
    built_ = true;
    for (const SourceFile* f : set_.Files())
      if (limit_.empty() || Under(f->path, limit_)) by_name_.emplace(f->path.filename().string(), f);
  }

  const SourceSet& set_;
  fs::path limit_;
  bool built_ = false;
  std::multimap<std::string, const SourceFile*> by_name_;
};

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

std::vector<std::string> IncludeTree::FoundByName() const {
  std::vector<std::string> out;
  for (const IncludeEdge& e : edges)
    if (e.by_name && e.to && e.from) out.push_back(fmt::format("{}:{}: {} -> {}", e.from->rel, e.line, e.spelled, e.to->rel));
  return out;
}

std::vector<std::string> IncludeTree::UnresolvedQuoted() const {
  std::vector<std::string> out;
  for (const IncludeEdge& e : edges)
    if (!e.angled && !e.to && e.resolved.empty() && e.from) out.push_back(fmt::format("{}:{}: {}", e.from->rel, e.line, e.spelled));
  return out;
}

std::string FoundByNameSummary(const std::vector<std::string>& found) {
  if (found.empty()) return "";
  std::set<std::string> names;
  for (const std::string& f : found) names.insert(f.substr(f.rfind(": ") + 2));
  std::string list;
  size_t n = 0;
  for (const std::string& name : names) {
    if (n++ == 3) {
      list += ", ...";
      break;
    }
    list += (list.empty() ? "" : ", ") + name;
  }
  return fmt::format("{} #include \"...\" found by file name in the tree, not beside the file or in a -I directory "
                     "({}): read as the build reads them when its include folders name theirs; give the build's -I "
                     "folders to be exact",
                     names.size(), list);
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
  NameIndex names(set, limit.empty() ? set.root() : limit);
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
    if (edge.resolved.empty() && options.by_name && !d.include_angled) {
      edge.resolved = names.Find(top.file->path, d.include_path);
      edge.by_name = !edge.resolved.empty();
    }
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
