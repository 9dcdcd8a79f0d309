// A C/C++ (AscendC, CUDA) lexer for static checks: tokens with line:column, comments,
// preprocessor directives and a conditional-compilation stack.
//
//   LexedFile f = Lex(text);             // text must outlive f (tokens view into it)
//   for (const Token& t : f.tokens)
//     if (t.active && t.Is("MoeTracing")) ...
//
// Understands comments, string/char literals with prefixes, raw strings R"d(...)d", line
// continuations, `#if 0` / `#if ENABLE_MOE_PROFILING` regions (`#ifdef`, `#ifndef`, `#elif`,
// `#else`, `#endif`). Tokens inside a disabled region are kept with active == false; tokens of
// `#define` bodies are kept with in_directive == true so macros that wrap trace calls are seen.
// It never fails: malformed input produces LexIssue entries and best-effort tokens.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace optrace::source {

enum class TokenKind {
  kIdentifier,  // also keywords
  kNumber,
  kString,      // including prefix and quotes: "a", u8"a", R"x(a)x"
  kChar,        // 'a'
  kPunct,       // one operator or punctuator: { } ( ) :: -> ...
};

struct Token {
  TokenKind kind = TokenKind::kPunct;
  std::string_view text;  // view into the lexed text
  uint32_t offset = 0;    // byte offset of the first character
  int line = 1;           // 1-based
  int column = 1;         // 1-based, in bytes
  bool active = true;            // false inside a disabled conditional region (#if 0, #else of #if 1)
  bool in_profiling_guard = false;  // inside #if ENABLE_MOE_PROFILING (or #ifdef)
  bool in_directive = false;     // part of a #define body

  bool Is(std::string_view s) const { return text == s; }
  uint32_t end_offset() const { return offset + static_cast<uint32_t>(text.size()); }
};

struct Comment {
  std::string_view text;  // with the /* */ or // delimiters
  uint32_t offset = 0;
  int line = 1;
  int column = 1;
  bool active = true;
};

enum class DirectiveKind { kInclude, kIf, kIfdef, kIfndef, kElif, kElse, kEndif, kDefine, kUndef, kOther };

struct Directive {
  DirectiveKind kind = DirectiveKind::kOther;
  std::string name;      // "include", "if", "define", ...
  std::string argument;  // rest of the logical line, continuations joined, comments removed
  std::string include_path;   // for #include: the path between quotes or angle brackets
  bool include_angled = false;
  uint32_t offset = 0;   // of the '#'
  int line = 1;
  int column = 1;
  bool active = true;        // the directive itself sits in an active region
  int brace_depth = 0;       // brace depth of active code at the directive (for guard checks)
  bool branch_active = false;  // #if/#ifdef/#ifndef/#elif/#else: the branch it starts is active
  size_t token_begin = 0, token_end = 0;  // #define: its tokens in LexedFile::tokens (name, params, body)
};

// A conditional that is opened but never closed, or closed without being opened, or similar.
struct LexIssue {
  enum class Kind { kUnterminatedComment, kUnterminatedString, kUnmatchedEndif, kUnmatchedElse, kUnclosedIf,
                    kElseAfterElse };
  Kind kind;
  int line = 1;
  int column = 1;
  std::string message;
};

// The value of a #if condition as far as static checks care.
enum class Condition { kTrue, kFalse, kUnknown };

// A profiling guard region (#if ENABLE_MOE_PROFILING ... #endif) with its brace depths.
struct GuardRegion {
  int open_line = 0, open_column = 0, open_depth = 0;
  int close_line = 0, close_column = 0, close_depth = 0;  // close_line 0: never closed
};

struct LexedFile {
  std::string_view text;
  std::vector<Token> tokens;
  std::vector<Comment> comments;
  std::vector<Directive> directives;
  std::vector<LexIssue> issues;
  std::vector<GuardRegion> guards;
  int line_count = 0;
};

LexedFile Lex(std::string_view text);

// How the lexer evaluates a #if / #elif condition: 0/1 literals, ENABLE_MOE_PROFILING (assumed 1),
// defined(...) of it, and their negations. Everything else is kUnknown (both branches active).
Condition EvaluateCondition(std::string_view condition, bool* is_profiling_guard);

// The contents of a string literal token without prefix/quotes, simple escapes decoded.
// Returns false when the token is not a plain or raw string literal.
bool StringLiteralValue(const Token& token, std::string* value);

}  // namespace optrace::source
