#include "source/lexer/trace_calls.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace optrace::source {
namespace {

bool SameRegion(const Token& a, const Token& b) { return a.active == b.active && a.in_directive == b.in_directive; }

// Splits the tokens between `open` and `close` at top-level commas.
std::vector<std::pair<size_t, size_t>> SplitArgs(const std::vector<Token>& t, size_t open, size_t close) {
  std::vector<std::pair<size_t, size_t>> args;
  int depth = 0;
  size_t start = open + 1;
  for (size_t i = open + 1; i < close; ++i) {
    if (!SameRegion(t[i], t[open])) continue;
    std::string_view x = t[i].text;
    if (t[i].kind != TokenKind::kPunct) continue;
    if (x == "(" || x == "[" || x == "{") ++depth;
    if (x == ")" || x == "]" || x == "}") --depth;
    if (x == "," && depth == 0) {
      args.emplace_back(start, i);
      start = i + 1;
    }
  }
  if (close > open + 1) args.emplace_back(start, close);
  return args;
}

// The string value of an argument made of one or more adjacent string literals.
bool LiteralArg(const std::vector<Token>& t, std::pair<size_t, size_t> r, std::string* out) {
  out->clear();
  if (r.first >= r.second) return false;
  for (size_t i = r.first; i < r.second; ++i) {
    std::string part;
    if (!StringLiteralValue(t[i], &part)) return false;
    *out += part;
  }
  return true;
}

bool IsOpenParenAfter(const std::vector<Token>& t, size_t i) {
  return i + 1 < t.size() && t[i + 1].Is("(") && SameRegion(t[i], t[i + 1]);
}

// Parses TRACE_POINT's argument list; appends a site or an issue.
void ParsePoint(const std::vector<Token>& t, size_t name, size_t open, size_t close, FileTraces* out) {
  const Token& tok = t[name];
  if (close >= t.size()) {
    out->issues.push_back({tok.line, tok.column, false, "TRACE_POINT( is never closed by ')'"});
    return;
  }
  auto args = SplitArgs(t, open, close);
  if (args.size() != 2) {
    out->issues.push_back({tok.line, tok.column, false,
                           fmt::format("TRACE_POINT takes 2 arguments (\"label\", \"B\"|\"E\"), found {}",
                                       args.size())});
    return;
  }
  TraceSite site;
  site.line = tok.line;
  site.column = tok.column;
  site.offset = tok.offset;
  site.end_offset = t[close].end_offset();
  site.in_define = tok.in_directive;
  site.in_guard = tok.in_profiling_guard;
  site.token = name;
  std::string type;
  bool label_ok = LiteralArg(t, args[0], &site.label);
  bool type_ok = LiteralArg(t, args[1], &type);
  if (tok.in_directive && (!label_ok || !type_ok)) return;  // a macro template: its uses are found via wrappers
  if (!label_ok) {
    const Token& a = t[args[0].first < close ? args[0].first : name];
    out->issues.push_back({a.line, a.column, false,
                           "TRACE_POINT label must be a string literal, e.g. TRACE_POINT(\"dispatch send\", \"B\")"});
    return;
  }
  const Token& ta = t[args[1].first < close ? args[1].first : name];
  if (!type_ok || (type != "B" && type != "E")) {
    out->issues.push_back({ta.line, ta.column, true,
                           fmt::format("TRACE_POINT event type must be \"B\" or \"E\", found {}",
                                       type_ok ? "\"" + type + "\"" : std::string(ta.text))});
    site.event_type = '?';
  } else {
    site.event_type = type[0];
  }
  out->sites.push_back(std::move(site));
}

uint32_t ParseInteger(std::string_view text) {
  std::string s(text);
  while (!s.empty() && (s.back() == 'u' || s.back() == 'U' || s.back() == 'l' || s.back() == 'L')) s.pop_back();
  return static_cast<uint32_t>(std::strtoul(s.c_str(), nullptr, 0));
}

// `0x1234 /* TRACE_POINT("x", "B") */`: the comment right after an integer literal.
void FindRewritten(const LexedFile& f, FileTraces* out) {
  const auto& t = f.tokens;
  size_t ti = 0;
  // Each rewrite on a line adds `0x12345678 /* ` and ` */` (17 bytes) before what follows it: the
  // column of a later mark on that line is given as it was before the rewrite, so the map says
  // the same place whether it was scanned before or after --modify.
  int shift_line = -1, shift = 0;
  for (const Comment& c : f.comments) {
    if (!c.active || c.text.rfind("/* TRACE_POINT(", 0) != 0) continue;
    while (ti < t.size() && t[ti].offset < c.offset) ++ti;
    if (ti == 0) continue;
    const Token& num = t[ti - 1];
    if (num.kind != TokenKind::kNumber) continue;
    std::string_view between = f.text.substr(num.end_offset(), c.offset - num.end_offset());
    if (between.find_first_not_of(" \t") != std::string_view::npos) continue;
    std::string_view inner = c.text.substr(3, c.text.size() - 5);
    LexedFile sub = Lex(inner);
    FileTraces parsed;
    if (sub.tokens.size() >= 2 && sub.tokens[0].Is("TRACE_POINT") && sub.tokens[1].Is("(")) {
      ParsePoint(sub.tokens, 0, 1, MatchingClose(sub.tokens, 1), &parsed);
    }
    if (parsed.sites.size() != 1) continue;
    TraceSite site = std::move(parsed.sites[0]);
    site.rewritten = true;
    site.literal_id = ParseInteger(num.text);
    site.line = num.line;
    if (num.line != shift_line) shift_line = num.line, shift = 0;
    site.column = num.column - shift;
    shift += static_cast<int>(c.offset + c.text.size() - num.offset) - static_cast<int>(inner.size() - 1);
    site.offset = num.offset;
    site.end_offset = c.offset + static_cast<uint32_t>(c.text.size());
    site.in_define = num.in_directive;
    site.in_guard = num.in_profiling_guard;
    site.token = ti - 1;
    out->sites.push_back(std::move(site));
  }
}

}  // namespace

size_t MatchingClose(const std::vector<Token>& t, size_t open) {
  std::string_view o = t[open].text;
  std::string_view c = o == "(" ? ")" : o == "[" ? "]" : o == "{" ? "}" : ">";
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (!SameRegion(t[i], t[open]) || t[i].kind != TokenKind::kPunct) continue;
    if (t[i].text == o) ++depth;
    if (t[i].text == c && --depth == 0) return i;
    if (o == "<" && (t[i].Is(";") || t[i].Is("{") || t[i].Is("}"))) return t.size();
    if (o == "<" && (t[i].Is("(") || t[i].Is("["))) {
      size_t skip = MatchingClose(t, i);
      if (skip >= t.size()) return t.size();
      i = skip;
    }
  }
  return t.size();
}

void FindTraceWrappers(const LexedFile& f, TraceWrappers* out) {
  const auto& t = f.tokens;
  for (const Directive& d : f.directives) {
    if (d.kind != DirectiveKind::kDefine || !d.active) continue;
    // Tokens of this define: those in_directive starting at the macro name after the '#'.
    size_t i = 0;
    while (i < t.size() && t[i].offset <= d.offset) ++i;
    if (i + 1 >= t.size() || !t[i].in_directive || t[i].kind != TokenKind::kIdentifier) continue;
    const Token& name = t[i];
    if (!t[i + 1].Is("(") || t[i + 1].offset != name.end_offset()) continue;  // object-like macro
    size_t pclose = MatchingClose(t, i + 1);
    if (pclose >= t.size()) continue;
    std::vector<std::string_view> params;
    for (size_t k = i + 2; k < pclose; ++k)
      if (t[k].kind == TokenKind::kIdentifier) params.push_back(t[k].text);
    for (size_t k = pclose + 1; k + 1 < t.size() && t[k].in_directive && t[k].line >= name.line; ++k) {
      if (k > pclose + 1 && t[k].offset < t[k - 1].offset) break;
      if (!t[k].Is("TRACE_POINT") || !t[k + 1].Is("(")) continue;
      size_t close = MatchingClose(t, k + 1);
      if (close >= t.size()) break;
      auto args = SplitArgs(t, k + 1, close);
      if (args.size() != 2 || args[0].second != args[0].first + 1) break;
      TraceWrapper w;
      for (size_t p = 0; p < params.size(); ++p) {
        if (t[args[0].first].text == params[p]) w.label_param = static_cast<int>(p);
        if (args[1].second == args[1].first + 1 && t[args[1].first].text == params[p]) w.type_param = static_cast<int>(p);
      }
      std::string type;
      if (w.type_param < 0 && LiteralArg(t, args[1], &type) && (type == "B" || type == "E")) w.fixed_type = type[0];
      if (w.label_param >= 0 && (w.type_param >= 0 || w.fixed_type != '?')) out->emplace(std::string(name.text), w);
      break;
    }
  }
}

FileTraces FindTraces(const LexedFile& f, const TraceWrappers& wrappers) {
  FileTraces out;
  const auto& t = f.tokens;
  for (size_t i = 0; i < t.size(); ++i) {
    const Token& tok = t[i];
    if (!tok.active || tok.kind != TokenKind::kIdentifier) continue;
    if (tok.Is("TRACE_POINT")) {
      if (!IsOpenParenAfter(t, i)) {
        if (!tok.in_directive && !(i > 0 && t[i - 1].Is("define"))) {
          out.issues.push_back({tok.line, tok.column, false, "TRACE_POINT must be followed by (\"label\", \"B\"|\"E\")"});
        }
        continue;
      }
      ParsePoint(t, i, i + 1, MatchingClose(t, i + 1), &out);
      continue;
    }
    if (tok.Is("MoeTracing")) {
      size_t open = i + 1;
      if (open < t.size() && t[open].Is("<")) open = MatchingClose(t, open) + 1;
      if (open >= t.size() || !t[open].Is("(")) continue;  // a declaration or a mention
      TracingCall call;
      call.name_token = i;
      call.open_token = open;
      call.close_token = MatchingClose(t, open);
      call.line = tok.line;
      call.column = tok.column;
      if (call.close_token < t.size()) call.args = SplitArgs(t, open, call.close_token);
      out.calls.push_back(std::move(call));
      continue;
    }
    if (tok.in_directive) continue;
    auto w = wrappers.find(tok.text);
    if (w == wrappers.end() || !IsOpenParenAfter(t, i)) continue;
    size_t close = MatchingClose(t, i + 1);
    if (close >= t.size()) continue;
    auto args = SplitArgs(t, i + 1, close);
    const TraceWrapper& tw = w->second;
    std::string label, type(1, tw.fixed_type);
    if (tw.label_param >= static_cast<int>(args.size()) ||
        !LiteralArg(t, args[static_cast<size_t>(tw.label_param)], &label)) {
      continue;
    }
    if (tw.type_param >= 0 && (tw.type_param >= static_cast<int>(args.size()) ||
                               !LiteralArg(t, args[static_cast<size_t>(tw.type_param)], &type))) {
      continue;
    }
    TraceSite site;
    site.label = label;
    site.event_type = type == "B" || type == "E" ? type[0] : '?';
    site.line = tok.line;
    site.column = tok.column;
    site.offset = tok.offset;
    site.end_offset = t[close].end_offset();
    site.in_guard = tok.in_profiling_guard;
    site.via_wrapper = true;
    site.token = i;
    out.sites.push_back(std::move(site));
  }
  FindRewritten(f, &out);
  std::sort(out.sites.begin(), out.sites.end(),
            [](const TraceSite& a, const TraceSite& b) { return a.offset < b.offset; });
  // Link each MoeTracing call to the point in its first argument.
  for (TracingCall& call : out.calls) {
    if (call.args.empty()) continue;
    for (size_t s = 0; s < out.sites.size(); ++s) {
      if (out.sites[s].token >= call.args[0].first && out.sites[s].token < call.args[0].second) {
        call.site = static_cast<int>(s);
        break;
      }
    }
  }
  return out;
}

bool LabelStyleOk(std::string_view label) {
  if (label.empty() || label.front() == ' ' || label.back() == ' ') return false;
  char prev = 0;
  for (char c : label) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == ' ';
    if (!ok || (c == ' ' && prev == ' ')) return false;
    prev = c;
  }
  return true;
}

}  // namespace optrace::source
