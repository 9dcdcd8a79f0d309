// A type as written in code, parsed into its qualified parts and template arguments:
// `typename Gemm::Block::BlockMmad<DispatchPolicy, GemmShape<128, 256, 64>, void>` becomes
// parts {Gemm, Block, BlockMmad<...>} with three arguments. cv-qualifiers, `&`, `*` and
// `typename` are dropped: the index only asks "which class is this".
//
//   TypeName t = ParseTypeName(stream, begin, end);
//   if (!t.IsValue()) use(t.Last(), t.parts.back().args);
//   std::string s = t.Str();                       // "Gemm::Block::BlockMmad<DispatchPolicy, ...>"
//
// A template argument that is not a name (`3`, `true`, `sizeof(T)`) is a value: no parts, its
// text in `value`.
#pragma once

#include <string>
#include <vector>

#include "source/index/token_stream.h"

namespace optrace::source::index {

struct TypeName {
  struct Part {
    std::string name;
    std::vector<TypeName> args;
    bool templated = false;  // written with <...> (possibly empty)
  };
  std::vector<Part> parts;  // empty: a value
  std::string value;
  bool global = false;  // leading ::
  bool pointer = false;  // had * (an object of this type is not the class itself)
  std::string alias;     // closed types: the alias or parameter name it was written as (`PrologueB`)

  bool IsValue() const { return parts.empty(); }
  bool Empty() const { return parts.empty() && value.empty(); }
  const std::string& Last() const;
  std::string Str() const;
  // The parts except the last, joined with "::" ("Gemm::Block" for Gemm::Block::BlockMmad).
  std::string Qualifier() const;
};

// Parses tokens [b, e). Leading `typename`/`class`/`struct`, cv-qualifiers, trailing `&`, `*`,
// `...` are skipped; anything that is not a (qualified, templated) name becomes a value.
TypeName ParseTypeName(const TokenStream& s, size_t b, size_t e);
// Splits the template argument list of the '<' at `lt` (whose '>' is at `gt`) at top-level commas.
std::vector<TypeName> ParseTemplateArgs(const TokenStream& s, size_t lt, size_t gt);

// Keywords and specifiers that never name a type or function (`const`, `inline`, `__aicore__`,
// `CATLASS_DEVICE`-style attribute macros are not here: they are unknown identifiers).
bool IsSpecifierKeyword(std::string_view s);
// Specifiers that take a parenthesized argument: __mix__(1, 2) (AscendC mixed cube/vector kernels),
// __attribute__((...)), alignas(...), __declspec(...).
bool IsParenthesizedSpecifier(std::string_view s);
bool IsStatementKeyword(std::string_view s);

}  // namespace optrace::source::index
