// Where a tree's trace point ids come from. optrace/trace.h hashes each label at compile time;
// seed 000's legacy *_base.h instead falls back to `#define TRACE_POINT(label, event) 0` and relies
// on the build rewriting every TRACE_POINT into its id (`optrace scan --modify` in the hook). Such
// a tree built without the rewrite records id 0 for every mark, and no point map can match it.
//
//   if (auto d = FindRewriteOnlyDefine(text)) ...        // one file's text
//   OPTRACE_ASSIGN_OR_RETURN(auto d, FindRewriteOnlyDefineUnder(script_dir));
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "source/lexer/lexer.h"

namespace optrace::source {

struct RewriteOnlyDefine {
  std::string file;  // as given (relative for FindRewriteOnlyDefineUnder: to the directory)
  int line = 0;
  std::string text;  // the #define line, trimmed
};

// The first `#define TRACE_POINT(...)` whose body uses none of its parameters.
std::optional<RewriteOnlyDefine> FindRewriteOnlyDefine(std::string_view text, std::string_view file = "");

// The same over every C/C++ source under `dir` (hidden and build output folders skipped).
Result<std::optional<RewriteOnlyDefine>> FindRewriteOnlyDefineUnder(const std::filesystem::path& dir);

// The file defines MoeTracing itself (a tree's own *_base.h, seed 000's layout): an active
// `#define MoeTracing...`, or a function whose declarator follows `void`, `inline`, `static`,
// `auto`, `__aicore__`, `__device__`, `__forceinline__` or a template's closing `>`. Including
// optrace's header is not defining it (IsTraceHeaderInclude says that).
bool DefinesMoeTracing(const LexedFile& lex);

}  // namespace optrace::source
