// Reads the declarations of one token stream into the index model: namespaces, classes and
// structs (template heads, partial/explicit specialisation patterns, bases, member aliases,
// fields, declared-only methods), functions with bodies (free, member in or out of class,
// constructors, destructors, operator() and its specialisations, __global__ kernels), and
// namespace-scope aliases. Macro invocations at namespace scope (`REGISTER_X(...)`) are skipped;
// in-tree macros were already expanded by the stream, so a `##`-generated kernel is found.
//
//   Declarations d;
//   ParseDeclarations(stream, &d);
//   for (auto& f : d.functions) if (f->is_kernel) ...
//
// Not a C++ parser: it recognises declaration shapes on the token stream, so code it cannot
// read is skipped to the next ';' or '}' and never stops the parse.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "source/index/model.h"

namespace optrace::source::index {

struct NamespaceAlias {
  std::string name;
  std::vector<std::string> scope;
  TypeName target;
};

struct Declarations {
  std::vector<std::unique_ptr<ClassDef>> classes;
  std::vector<std::unique_ptr<FunctionDef>> functions;
  std::vector<NamespaceAlias> aliases;  // namespace-scope using/typedef
};

void ParseDeclarations(const TokenStream& stream, Declarations* out);

// Parses `template <...>` parameter lists: tokens strictly between '<' and its '>'.
std::vector<TemplateParam> ParseTemplateParams(const TokenStream& s, size_t lt, size_t gt);
// Parses a parameter list: tokens strictly between '(' and ')'. Sets *variadic on `...`.
std::vector<Param> ParseParams(const TokenStream& s, size_t open, size_t close, bool* variadic);

}  // namespace optrace::source::index
