// The token sequence the code index parses: one file's active code tokens, with the
// function-like (and non-trivial object-like) macros defined in the indexed files expanded
// where they are used, and `#include`s that sit inside a class or function body spliced in
// (`.inc` fragments pulled into a class).
//
//   MacroTable macros(files);                       // #defines of every indexed file
//   TokenStream s = TokenStream::ForFile(*file, macros, set_of_files);
//   for (size_t i = 0; i < s.size(); ++i) if (s.Is(i, "{")) size_t close = s.Match(i);
//
// Expanded tokens keep two positions: where they are reported (the macro invocation, so a
// call made by `GENERAL_OP_IMPL(...)` is at the line of that invocation) and the token they
// came from (a #define body token, whose own line is inside the #define). Tokens made by `##`
// pasting or `#` stringizing are owned by the stream.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "source/lexer/lexer.h"
#include "source/lexer/source_set.h"

namespace optrace::source::index {

struct StreamToken {
  const Token* tok = nullptr;          // the token; for pasted/stringized tokens, one the stream owns
  const SourceFile* file = nullptr;    // reported file: the invocation's for expanded tokens
  int line = 0, column = 0;            // reported position
  const SourceFile* source = nullptr;  // file holding `tok` (a #define's file for macro body tokens), null if made
  uint32_t index = 0;                  // index of `tok` in source->lex.tokens (of the invocation name when made)
  uint16_t macro_depth = 0;            // 0: written where it is reported
  const struct MacroDef* macro = nullptr;  // outermost macro this token was expanded from, if any

  std::string_view text() const { return tok->text; }
  bool Is(std::string_view s) const { return tok->text == s; }
  bool IsIdentifier() const { return tok->kind == TokenKind::kIdentifier; }
};

struct MacroDef {
  std::string name;
  bool function_like = false;
  bool variadic = false;
  std::vector<std::string> params;  // "__VA_ARGS__" last when variadic without a name
  const SourceFile* file = nullptr;
  size_t body_begin = 0, body_end = 0;  // token range of the body in file->lex.tokens
  int line = 0;                         // of the #define
};

// Macros defined (actively) in a set of files. The first definition of a name wins; macros that
// expand to a single literal or to nothing are left alone (they never change the structure).
class MacroTable {
 public:
  MacroTable() = default;
  explicit MacroTable(const std::vector<const SourceFile*>& files);
  const MacroDef* Find(std::string_view name) const;
  size_t size() const { return by_name_.size(); }

 private:
  std::map<std::string, MacroDef, std::less<>> by_name_;
};

class TokenStream {
 public:
  // The stream of `file`: active code tokens, macros expanded, in-body includes of files that
  // `resolve` finds spliced in (null: no splicing). Expansion makes at most 4M tokens per file and,
  // when `expansion_budget` is given, draws them from it (one budget for a whole tree).
  using IncludeResolver = const SourceFile* (*)(const void* ctx, const SourceFile* from, const Directive& d);
  static std::unique_ptr<TokenStream> ForFile(const SourceFile& file, const MacroTable& macros,
                                              IncludeResolver resolve = nullptr, const void* resolve_ctx = nullptr,
                                              size_t* expansion_budget = nullptr);

  size_t size() const { return toks_.size(); }
  const StreamToken& operator[](size_t i) const { return toks_[i]; }
  std::string_view Text(size_t i) const { return i < toks_.size() ? toks_[i].tok->text : std::string_view(); }
  bool Is(size_t i, std::string_view s) const { return i < toks_.size() && toks_[i].tok->text == s; }
  bool IsIdent(size_t i) const { return IsKind(i, TokenKind::kIdentifier); }
  bool IsKind(size_t i, TokenKind kind) const { return i < toks_.size() && toks_[i].tok->kind == kind; }
  // The matching bracket of ( [ { or ) ] }, or size() when unbalanced.
  size_t Match(size_t i) const { return i < match_.size() ? match_[i] : toks_.size(); }
  // The '>' closing the '<' at `lt` (nested <>, () and [] skipped), or size() when `lt` does not
  // open a template argument list (a ';', '{', '}' or an unbalanced ')' comes first).
  size_t MatchAngle(size_t lt) const;
  // Tokens [b, e) joined: a space only where the source had one.
  std::string Join(size_t b, size_t e) const;
  const SourceFile* file() const { return file_; }
  // True when the file's macro expansion hit its token budget and the rest stayed unexpanded.
  bool expansion_capped() const { return expansion_capped_; }

 private:
  friend class StreamBuilder;
  const SourceFile* file_ = nullptr;
  std::vector<StreamToken> toks_;
  std::vector<size_t> match_;
  std::deque<Token> made_;         // pasted / stringized tokens
  std::deque<std::string> texts_;  // their text
  bool expansion_capped_ = false;
};

}  // namespace optrace::source::index
