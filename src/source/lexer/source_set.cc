#include "source/lexer/source_set.h"

#include "source/lexer/trace_header.h"

#include <algorithm>
#include <iterator>
#include <system_error>

#include "core/file_io.h"

namespace optrace::source {
namespace fs = std::filesystem;

SourceSet::SourceSet(fs::path root) : root_(ResolveAgainstCwd(root).lexically_normal()) {}

fs::path SourceSet::Normalize(const fs::path& path) const {
  fs::path p = path.is_absolute() ? path : ResolveAgainstCwd(path);
  return p.lexically_normal();
}

std::string SourceSet::Relative(const fs::path& path) const {
  fs::path rel = Normalize(path).lexically_relative(root_);
  if (rel.empty() || *rel.begin() == "..") return Normalize(path).generic_string();
  return rel.generic_string();
}

SourceFile* SourceSet::Insert(const fs::path& abs, std::string text) {
  auto f = std::make_unique<SourceFile>();
  f->path = abs;
  f->rel = Relative(abs);
  f->text = std::make_unique<std::string>(std::move(text));
  f->lex = Lex(*f->text);
  SourceFile* raw = f.get();
  by_path_[abs.generic_string()] = std::move(f);
  return raw;
}

Result<const SourceFile*> SourceSet::Load(const fs::path& path) {
  fs::path abs = Normalize(path);
  if (const SourceFile* f = Find(abs)) return f;
  OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(abs));
  return static_cast<const SourceFile*>(Insert(abs, std::move(text)));
}

const SourceFile* SourceSet::AddText(const std::string& rel, std::string text) {
  return Insert((root_ / rel).lexically_normal(), std::move(text));
}

const SourceFile* SourceSet::Find(const fs::path& path) const {
  fs::path abs = path.is_absolute() ? path.lexically_normal() : (root_ / path).lexically_normal();
  auto it = by_path_.find(abs.generic_string());
  return it == by_path_.end() ? nullptr : it->second.get();
}

void SourceSet::FindAllTraces() {
  wrappers_.clear();
  for (auto& [_, f] : by_path_) FindTraceWrappers(f->lex, &wrappers_);
  for (auto& [_, f] : by_path_) f->traces = FindTraces(f->lex, wrappers_);
}

std::vector<const SourceFile*> SourceSet::Files() const {
  std::vector<const SourceFile*> out;
  for (const auto& [_, f] : by_path_) out.push_back(f.get());
  std::sort(out.begin(), out.end(), [](const SourceFile* a, const SourceFile* b) { return a->rel < b->rel; });
  return out;
}

size_t SourceSet::LineCount() const {
  size_t n = 0;
  for (const auto& [_, f] : by_path_) n += static_cast<size_t>(f->lex.line_count);
  return n;
}

bool IsKernelSourceExtension(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".cu" || ext == ".asc" || ext == ".cce";
}

std::set<std::string, std::less<>> KernelMacros(const SourceSet& set) {
  std::set<std::string, std::less<>> out;
  for (const SourceFile* f : set.Files()) {
    const auto& t = f->lex.tokens;
    for (const Directive& d : f->lex.directives) {
      if (d.kind != DirectiveKind::kDefine || !d.active || d.token_begin >= d.token_end) continue;
      for (size_t k = d.token_begin + 1; k < d.token_end && k < t.size(); ++k)
        if (t[k].Is("__global__")) {
          out.insert(std::string(t[d.token_begin].text));
          break;
        }
    }
  }
  return out;
}

bool DefinesKernel(const SourceFile& f, const std::set<std::string, std::less<>>& kernel_macros) {
  if (!IsKernelSourceExtension(f.path)) return false;
  for (const Token& t : f.lex.tokens) {
    if (!t.active || t.kind != TokenKind::kIdentifier) continue;
    if (t.Is("__global__") || (!t.in_directive && kernel_macros.count(t.text))) return true;
  }
  return false;
}

bool IsSourceExtension(const fs::path& path) {
  static constexpr std::string_view kExt[] = {".c",   ".cc",  ".cpp", ".cxx", ".c++", ".h",   ".hh",
                                              ".hpp", ".hxx", ".h++", ".cu",  ".cuh", ".inl", ".inc",
                                              ".ipp", ".tpp", ".asc", ".cce"};
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return std::find(std::begin(kExt), std::end(kExt), ext) != std::end(kExt);
}

Result<SourceListing> ListOperatorFiles(const fs::path& root) {
  fs::path abs = ResolveAgainstCwd(root).lexically_normal();
  std::error_code ec;
  fs::file_status st = fs::status(abs, ec);
  if (ec || !fs::exists(st)) return NotFoundError("{}: no such file or directory", root.string());
  SourceListing out;
  if (!fs::is_directory(st)) {
    out.sources.push_back(abs);
    return out;
  }
  fs::recursive_directory_iterator it(abs, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) return IoError("{}: cannot list the directory: {}", root.string(), ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return IoError("{}: cannot list the directory: {}", root.string(), ec.message());
    const fs::path& p = it->path();
    std::string name = p.filename().string();
    if (it->is_directory(ec)) {
      if (!name.empty() && (name[0] == '.' || name == "__pycache__")) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file(ec)) continue;
    if (name == kSingleHeaderName) {
      out.single_headers.push_back(p.lexically_normal());
    } else if (name == kPointSetHeaderName) {
      out.point_set_headers.push_back(p.lexically_normal());
    } else if (IsSourceExtension(p)) {
      out.sources.push_back(p.lexically_normal());
    }
  }
  // A failed step ends the loop with `it` at the end: the walk did not see everything.
  if (ec) return IoError("{}: cannot list the directory: {}", root.string(), ec.message());
  std::sort(out.sources.begin(), out.sources.end());
  std::sort(out.single_headers.begin(), out.single_headers.end());
  std::sort(out.point_set_headers.begin(), out.point_set_headers.end());
  return out;
}

Result<std::vector<fs::path>> ListSourceFiles(const fs::path& root) {
  OPTRACE_ASSIGN_OR_RETURN(SourceListing listing, ListOperatorFiles(root));
  return std::move(listing.sources);
}

std::vector<std::string> DefaultKernelEntries(const std::vector<std::string>& kernel_files) {
  auto has_dir = [](const std::string& rel, std::initializer_list<std::string_view> names) {
    std::filesystem::path p(rel);
    for (auto it = p.begin(); it != p.end() && std::next(it) != p.end(); ++it)  // folders, not the file name
      for (std::string_view n : names)
        if (it->string() == n) return true;
    return false;
  };
  std::vector<std::string> shipping, in_op_kernel;
  for (const std::string& f : kernel_files) {
    if (has_dir(f, {"tests", "test", "ut", "st", "testcase", "examples", "example", "samples", "sample", "demo",
                    "benchmark", "bench", "docs"}))
      continue;
    shipping.push_back(f);
    if (has_dir(f, {"op_kernel"})) in_op_kernel.push_back(f);
  }
  if (!in_op_kernel.empty()) return in_op_kernel;
  if (!shipping.empty()) return shipping;
  return kernel_files;
}

}  // namespace optrace::source
