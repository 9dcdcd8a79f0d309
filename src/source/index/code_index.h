// The code index `plan` and `lint` stand on: every class, function and alias of the files one
// operator's kernels reach, read from token streams (macros expanded), with lookups by name and
// the type and call resolution that follows real AscendC code: functor objects, template
// instantiations through `using` aliases and template parameters bound to classes, partial
// specialisations picked by a dispatch-policy argument, member objects, lambdas.
//
//   CodeIndex index(files);                      // the include closure of the kernel entries
//   for (const FunctionDef* k : index.Kernels()) {
//     CallGraph g = CallGraph::Build(index, *k);  // call_graph.h: instantiated, with core types
//   }
//
// Not a compiler: without the CANN / AscendC / catlass headers nothing outside the files is
// known, so anything unresolved is "external" (AscendC::SyncAll), never an error.
#pragma once

#include <climits>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "source/index/declarations.h"
#include "source/index/model.h"
#include "source/index/token_stream.h"
#include "source/lexer/source_set.h"

namespace optrace::source::index {

// Template parameter name -> argument (closed: no aliases or parameters of the caller left).
// The key is asked for on every type closing (the close cache is keyed by it), and a kernel
// with many template instantiations closes millions of types: it is kept until the next Set.
class Bindings {
 public:
  const TypeName* Find(const std::string& name) const;
  void Set(const std::string& name, TypeName type);
  bool empty() const { return map_.empty(); }
  const std::map<std::string, TypeName>& map() const { return map_; }
  const std::string& Key() const;  // canonical text, for identity of instantiations

 private:
  std::map<std::string, TypeName> map_;
  mutable std::string key_;
  mutable bool key_valid_ = false;
};

// A class as used: its definition (null when external) and the arguments of this use.
struct ClassRef {
  const ClassDef* cls = nullptr;
  Bindings bindings;  // the class's template parameters
  TypeName type;      // the closed type
};

// The files one translation unit compiles: a folder of several programs (cann-samples' stories:
// six `.asc` files, each defining its own `MoeInitRouting` and `ExpertTokensCount`) is one index,
// and a call in one program must not reach another program's definition of the same name.
using FileUnit = std::unordered_set<const SourceFile*>;

// Where names are looked up when a type or call is resolved.
struct Env {
  const FunctionDef* fn = nullptr;  // locals and block-scoped aliases of this body
  size_t pos = 0;                   // position in fn's stream: names declared before it and in scope
  const ClassDef* cls = nullptr;    // member aliases, fields, methods (and the bases')
  const Bindings* bindings = nullptr;  // template parameters of fn and cls
};

class CodeIndex {
 public:
  explicit CodeIndex(const std::vector<const SourceFile*>& files);
  // With a smaller budget for macro expansion in the whole tree (tokens; the default is 12M):
  // the fuzz target uses one so a run stays under a second in a sanitizer build.
  CodeIndex(const std::vector<const SourceFile*>& files, size_t expansion_budget);
  ~CodeIndex();
  CodeIndex(const CodeIndex&) = delete;
  CodeIndex& operator=(const CodeIndex&) = delete;

  const std::vector<const SourceFile*>& files() const { return files_; }
  // __global__ functions, in file order (macro-generated ones included).
  const std::vector<const FunctionDef*>& Kernels() const { return kernels_; }
  // The kernels no other kernel calls: the entries a launch starts. A __global__ that another
  // calls (incre_flash_attention -> incre_flash_attention_FIAS, an arch35 implementation) runs
  // inside that entry and is a function of it, not an entry of its own.
  bool CalledByAnotherKernel(const FunctionDef& k) const;
  // The kernel of the same name that `k` calls, when `k` only stands in for it (ops-math
  // radix_top_k's UT link stub, `extern "C" __global__ void radix_top_k(...)` under
  // `#ifdef __CCE_UT_TEST__`, calls the template kernel `radix_top_k<true, true, false>(...)`, which
  // is what a device build launches); null otherwise. A kernel never calls itself, so a call to
  // its own name is a call to that other kernel. The other kernel is the entry; `k` forwards.
  const FunctionDef* ForwardedKernel(const FunctionDef& k) const;
  const std::vector<std::unique_ptr<FunctionDef>>& functions() const { return decls_.functions; }
  const std::vector<std::unique_ptr<ClassDef>>& classes() const { return decls_.classes; }
  // The body of a function, parsed on first use.
  const FunctionBody& Body(const FunctionDef& f) const;
  const TokenStream* Stream(const SourceFile* f) const;
  const MacroTable& macros() const { return macros_; }

  // --- types ---
  // `t` with aliases and template parameters visible in `env` replaced, recursively.
  TypeName Close(const TypeName& t, const Env& env) const;
  // How many closings were computed rather than taken from the cache (the work Close did).
  uint64_t ClosingsComputed() const { return closings_computed_; }
  // The in-tree classes a closed type names (several for duplicate definitions under #if, the
  // ones nearest to `near` in the directory tree when given); empty when external.
  std::vector<ClassRef> ResolveClass(const TypeName& closed, const SourceFile* near = nullptr) const;
  // The declared type of a name visible at env (local, parameter, field of env.cls or its
  // bases), closed; empty when unknown. *known is set when the name was found at all.
  TypeName TypeOfName(const std::string& name, const Env& env, bool* known) const;
  // Methods named `name` of a class (its bases searched when it has none), with the bindings
  // of the class that defines them.
  std::vector<std::pair<const FunctionDef*, ClassRef>> Methods(const ClassRef& c, const std::string& name) const;
  // Free functions named `name`.
  std::vector<const FunctionDef*> FreeFunctions(const std::string& name) const;
  // In-tree classes with any method named `name` (for calls on objects of unknown type).
  std::vector<const ClassDef*> ClassesWithMethod(const std::string& name) const;
  // Declared-only template heads of methods (`template <int32_t CORE_TYPE = g_coreType> void operator()(..);`).
  const std::vector<TemplateParam>* DeclaredTemplate(const ClassDef* c, const std::string& name) const;

  // --- translation units ---
  // The files compiled with `f`: every root of the index (a file no other file of it includes)
  // whose includes reach f, with all they include. Null when that is every file (nothing to
  // narrow). An include is followed beside its file, else to the index files whose path ends
  // with it (the include directories are not known here: a superset, never a miss).
  const FileUnit* UnitOf(const SourceFile* f) const;

  // Core types (CoreMask bits, see core_types.h) of #if regions naming CUBE/VEC at `line`.
  unsigned RegionCore(const SourceFile* f, int line) const;

 private:
  void Link();
  void LinkIncludes();
  const SourceFile* SpliceTarget(const SourceFile* from, const Directive& d) const;
  static const SourceFile* ResolveSplice(const void* ctx, const SourceFile* from, const Directive& d);
  TypeName CloseDepth(const TypeName& t, const Env& env, int depth) const;
  TypeName CloseUncached(const TypeName& t, const Env& env, int depth) const;
  std::vector<ClassRef> ResolveClassAll(const TypeName& closed) const;
  std::vector<ClassRef> ResolveClassUncached(const TypeName& closed) const;
  TypeName CloseValue(const std::string& value, const Env& env) const;
  bool Unify(const TypeName& pattern, const TypeName& concrete, const std::vector<TemplateParam>& params,
             Bindings* out, int* score) const;

  std::vector<const SourceFile*> files_;
  MacroTable macros_;
  std::map<const SourceFile*, std::unique_ptr<TokenStream>> streams_;
  mutable std::set<const SourceFile*> spliced_;
  size_t expansion_budget_ = 12'000'000;  // tokens macro expansion may make in the whole tree
  Declarations decls_;
  mutable std::vector<std::unique_ptr<FunctionDef>> lambdas_;
  // Close and ResolveClassAll are pure functions of their arguments (the index never changes
  // after construction), called again and again on the same types while call graphs are built:
  // a type closed through base-class aliases and template arguments re-closed each of those at
  // every level, which made deep template trees (flash attention, grouped matmul) take a
  // minute. Results are kept per (type, scope, bindings). A result cut by the depth limit, or by
  // a cycle back to a closing that was under way before it began, is not kept (it depends on
  // the path that led to it); one whose cycles all close inside it is: not keeping those made
  // ops-math's top_k_v2 (a dispatch over 40 template instantiations) close 55 million types.
  mutable std::unordered_map<std::string, TypeName> close_cache_;
  mutable std::unordered_map<std::string, std::vector<ClassRef>> resolve_cache_;
  // Keys being closed (the cycle guard), each with its position on the stack of closings.
  mutable std::unordered_map<std::string, int> close_active_;
  // The lowest stack position a cut in the current closing went back to (-1: the depth limit).
  mutable int close_cut_floor_ = INT_MAX;
  mutable uint64_t closings_computed_ = 0;
  std::vector<const FunctionDef*> kernels_;
  std::map<const SourceFile*, std::vector<const SourceFile*>> includes_;  // direct, in the index
  mutable std::vector<FileUnit> root_closures_;  // per root file: what it includes, itself too
  mutable std::map<const SourceFile*, std::unique_ptr<FileUnit>> units_;
  std::multimap<std::string, const ClassDef*> classes_by_name_;
  std::multimap<std::string, const FunctionDef*> free_by_name_;
  std::multimap<std::string, const ClassDef*> method_owner_;  // method name -> class
  std::multimap<std::string, const NamespaceAlias*> ns_aliases_;
  struct Region {
    int first, last;
    unsigned core;
  };
  std::map<const SourceFile*, std::vector<Region>> regions_;
};

}  // namespace optrace::source::index
