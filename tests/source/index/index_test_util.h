// Helpers for code index tests: an index over in-memory files (nothing is written to disk) and
// short readable views of streams, functions and call graphs.
//
//   IndexedFiles ix({{"op_kernel/k.cpp", "..."}, {"op_kernel/k.h", "..."}});
//   const FunctionDef* f = ix.Function("Kernel::operator()<AscendC::AIC>");
//   CallGraph g = CallGraph::Build(ix.index(), *ix.Kernel("k"));
//   EXPECT_THAT(Reached(g), Contains("Kernel::Process@AIV"));
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "source/index/call_graph.h"
#include "source/index/call_resolver.h"
#include "source/index/code_index.h"
#include "source/index/core_types.h"
#include "source/index/token_stream.h"
#include "source/lexer/source_set.h"

namespace optrace::source::index {

class IndexedFiles {
 public:
  explicit IndexedFiles(std::initializer_list<std::pair<std::string, std::string>> files)
      : set_("/optrace_index_test") {
    for (const auto& [rel, text] : files) set_.AddText(rel, text);
    index_ = std::make_unique<CodeIndex>(set_.Files());
  }

  // Every source file under `dir` (a fixture tree in tests/data/index), paths relative to it.
  struct Dir {
    std::filesystem::path path;
  };
  explicit IndexedFiles(const Dir& dir) : set_(dir.path) {
    auto paths = ListSourceFiles(dir.path);
    EXPECT_TRUE(paths.ok()) << dir.path;
    if (paths.ok()) {
      for (const auto& p : *paths) EXPECT_TRUE(set_.Load(p).ok()) << p;
    }
    index_ = std::make_unique<CodeIndex>(set_.Files());
  }

  const CodeIndex& index() const { return *index_; }
  const SourceFile* File(const std::string& rel) const { return set_.Find(rel); }
  const TokenStream& Stream(const std::string& rel) const { return *index_->Stream(File(rel)); }

  // Functions whose DisplayName() is `name` ("Kernel::operator()<AscendC::AIC>"), in index order.
  std::vector<const FunctionDef*> Functions(std::string_view name) const {
    std::vector<const FunctionDef*> out;
    for (const auto& f : index_->functions())
      if (f->DisplayName() == name) out.push_back(f.get());
    return out;
  }
  const FunctionDef* Function(std::string_view name) const {
    std::vector<const FunctionDef*> fs = Functions(name);
    return fs.empty() ? nullptr : fs.front();
  }
  // Classes by QualifiedName() ("Catlass::Gemm::Block::BlockMmad"), primaries and specialisations.
  std::vector<const ClassDef*> Classes(std::string_view qualified) const {
    std::vector<const ClassDef*> out;
    for (const auto& c : index_->classes())
      if (c->QualifiedName() == qualified) out.push_back(c.get());
    return out;
  }
  const ClassDef* Class(std::string_view qualified) const {
    std::vector<const ClassDef*> cs = Classes(qualified);
    return cs.empty() ? nullptr : cs.front();
  }
  const FunctionDef* Kernel(std::string_view name) const {
    for (const FunctionDef* k : index_->Kernels())
      if (k->name == name) return k;
    return nullptr;
  }

 private:
  SourceSet set_;
  std::unique_ptr<CodeIndex> index_;
};

// The stream of one file indexed alone (its own macros expanded), with the index that owns it.
struct SingleFile {
  explicit SingleFile(const std::string& text) : files({{"op_kernel/x.cpp", text}}) {}
  const TokenStream& stream() const { return files.Stream("op_kernel/x.cpp"); }
  IndexedFiles files;
};

// The reduced dispatch_ffn_combine_w4a8 operator of tests/data/index: a MIX_AIC_1_2 kernel whose
// Process() calls a catlass kernel functor through `using` aliases.
inline IndexedFiles::Dir FfnCombineTree() {
  return {std::filesystem::path(OPTRACE_TEST_DATA_DIR) / "index" / "dispatch_ffn_combine"};
}

// Token texts of a stream range.
inline std::vector<std::string> Texts(const TokenStream& s, size_t b = 0, size_t e = SIZE_MAX) {
  std::vector<std::string> out;
  for (size_t i = b; i < e && i < s.size(); ++i) out.emplace_back(s.Text(i));
  return out;
}

// Position of the n-th (0-based) token `text` in a stream, or s.size().
inline size_t Find(const TokenStream& s, std::string_view text, int n = 0) {
  for (size_t i = 0; i < s.size(); ++i)
    if (s.Is(i, text) && n-- == 0) return i;
  return s.size();
}

// The calls of a function body by name ("Init", "obj.Process", "A::B::f", "new:Type" for constructions).
inline std::vector<std::string> CallNames(const CodeIndex& index, const FunctionDef& f) {
  std::vector<std::string> out;
  for (const CallSite& c : index.Body(f).calls) {
    if (c.construct) {
      out.push_back("new:" + c.type.Str());
    } else if (!c.object.empty()) {
      out.push_back(c.object + "." + c.name);
    } else if (!c.qualifier.parts.empty()) {
      out.push_back(c.qualifier.Str() + "::" + c.name);
    } else {
      out.push_back(c.name);
    }
  }
  return out;
}

// The first call named `name` in f's body (construction calls included), or nullptr.
inline const CallSite* CallNamed(const CodeIndex& index, const FunctionDef& f, std::string_view name, int n = 0) {
  for (const CallSite& c : index.Body(f).calls)
    if (c.name == name && n-- == 0) return &c;
  return nullptr;
}

// Targets of a call as "DisplayName@CORE" (core of the target: AIC, AIV or AIC+AIV).
inline std::vector<std::string> Targets(const std::vector<CallTarget>& ts) {
  std::vector<std::string> out;
  for (const CallTarget& t : ts) out.push_back(t.inst.fn->DisplayName() + "@" + CoreName(t.core));
  return out;
}

// Every node of a graph as "DisplayName@CORES", with "#role" when it runs under an AIV role.
inline std::vector<std::string> Reached(const CallGraph& g) {
  std::vector<std::string> out;
  for (const GraphNode& n : g.nodes())
    out.push_back(n.inst.fn->DisplayName() + "@" + CoreName(n.cores) + (n.role.empty() ? "" : "#" + n.role));
  return out;
}

// Nodes of a graph for one function (any instantiation).
inline std::vector<const GraphNode*> NodesOf(const CallGraph& g, std::string_view display) {
  std::vector<const GraphNode*> out;
  for (const GraphNode& n : g.nodes())
    if (n.inst.fn->DisplayName() == display) out.push_back(&n);
  return out;
}

}  // namespace optrace::source::index
