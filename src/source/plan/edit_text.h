// Internal to the plan room: token and line helpers for the edits instrument and the profiling
// chain make in a lexed file. A code token is an active token outside a preprocessor directive.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "source/lexer/lexer.h"

namespace optrace::source {

bool Code(const Token& t);
// The next / previous code token after / before i: t.size() / -1 when there is none.
size_t NextCode(const std::vector<Token>& t, size_t i);
long PrevCode(const std::vector<Token>& t, size_t i);
// Whether token i starts / ends its line.
bool FirstOnLine(const std::vector<Token>& t, size_t i);
bool LastOnLine(const std::vector<Token>& t, size_t i);
// Byte offsets of each line's start (line 1 at index 0).
std::vector<size_t> LineStarts(std::string_view text);
// The spaces and tabs that start a 1-based line ("" past the end).
std::string IndentOf(std::string_view text, const std::vector<size_t>& starts, int line);
// The ';' ending the statement that starts at `k` (brackets skipped), or t.size().
size_t StatementEnd(const std::vector<Token>& t, size_t k);
// The token at (line, column), or t.size().
size_t TokenAt(const std::vector<Token>& t, int line, int column);
// The line before which a new #include goes: after the last #include outside any conditional (one
// under `#if __CCE_AICORE__ == 200` would hide it from every other build), else after the include
// guard, else at the top.
int IncludeLine(const LexedFile& f);

}  // namespace optrace::source
