// Finding trace marks in a lexed file: TRACE_POINT("label", "B"|"E") sites (also the
// `0x... /* TRACE_POINT(...) */` form that `scan --modify` writes), MoeTracing calls with their
// argument token ranges, and function-like macros that wrap a trace point.
//
//   LexedFile lex = Lex(text);
//   TraceWrappers wrappers = FindTraceWrappers(lex);       // across all files first
//   FileTraces traces = FindTraces(lex, wrappers);
//   for (const TraceSite& s : traces.sites) use(s.label, s.event_type, s.line, s.column);
//
// Only active tokens count: marks in comments, strings and disabled #if regions are not sites.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "source/lexer/lexer.h"

namespace optrace::source {

struct TraceSite {
  std::string label;
  char event_type = '?';     // 'B', 'E', or '?' when the second argument is not "B"/"E"
  int line = 0, column = 0;  // of TRACE_POINT (or of the integer that replaced it)
  uint32_t offset = 0, end_offset = 0;  // byte span of TRACE_POINT(...) or of `0x.. /* ... */`
  bool rewritten = false;    // the `--modify` form: integer literal + comment
  uint32_t literal_id = 0;   // the integer in the rewritten form
  bool in_define = false;    // inside a #define body
  bool in_guard = false;     // inside #if ENABLE_MOE_PROFILING
  bool via_wrapper = false;  // found through a macro that wraps TRACE_POINT
  size_t token = 0;          // index in LexedFile::tokens of TRACE_POINT / the integer / the wrapper name
};

// A TRACE_POINT that cannot be a point: wrong arity, non-literal label, bad event type.
struct TraceSyntaxIssue {
  int line = 0, column = 0;
  bool event_type = false;  // true: the event type is wrong (rule event-type); else syntax
  std::string message;
};

struct TracingCall {
  size_t name_token = 0;   // MoeTracing
  size_t open_token = 0;   // '('
  size_t close_token = 0;  // matching ')', or tokens.size() when unbalanced
  int line = 0, column = 0;
  std::vector<std::pair<size_t, size_t>> args;  // [first, last) token ranges of the arguments
  int site = -1;  // index into FileTraces::sites of the point in the first argument, -1 if none
};

struct TraceWrapper {
  int label_param = -1;     // parameter index that carries the label
  int type_param = -1;      // parameter index that carries the type, -1 when fixed
  char fixed_type = '?';
};
using TraceWrappers = std::map<std::string, TraceWrapper, std::less<>>;

struct FileTraces {
  std::vector<TraceSite> sites;
  std::vector<TraceSyntaxIssue> issues;
  std::vector<TracingCall> calls;
};

// Macros such as `#define PROF_BEGIN(name) MoeTracing(TRACE_POINT(name, "B"))`; adds to `out`.
void FindTraceWrappers(const LexedFile& file, TraceWrappers* out);
FileTraces FindTraces(const LexedFile& file, const TraceWrappers& wrappers);

// Index of the token that closes the bracket at `open` ('(' '[' '{' or '<' for templates), or
// tokens.size() when it is never closed. Skips inactive tokens only if `open` is active.
size_t MatchingClose(const std::vector<Token>& tokens, size_t open);

// The label-style rule (lint's label-style, plan files' labels): lowercase words of a-z, 0-9 and
// '-', separated by single spaces.
bool LabelStyleOk(std::string_view label);

}  // namespace optrace::source
