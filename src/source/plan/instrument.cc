#include "source/plan/instrument.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "core/file_io.h"
#include "source/lexer/include_tree.h"
#include "source/plan/profiling_chain.h"

namespace optrace::source {
namespace fs = std::filesystem;
namespace {

bool Code(const Token& t) { return t.active && !t.in_directive; }

size_t NextCode(const std::vector<Token>& t, size_t i) {
  for (size_t j = i + 1; j < t.size(); ++j)
    if (Code(t[j])) return j;
  return t.size();
}

long PrevCode(const std::vector<Token>& t, size_t i) {
  for (long j = static_cast<long>(i) - 1; j >= 0; --j)
    if (Code(t[static_cast<size_t>(j)])) return j;
  return -1;
}

bool FirstOnLine(const std::vector<Token>& t, size_t i) { return i == 0 || t[i - 1].line < t[i].line; }
bool LastOnLine(const std::vector<Token>& t, size_t i) { return i + 1 >= t.size() || t[i + 1].line > t[i].line; }

std::vector<size_t> LineStarts(std::string_view text) {
  std::vector<size_t> s{0};
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') s.push_back(i + 1);
  return s;
}

std::string IndentOf(std::string_view text, const std::vector<size_t>& starts, int line) {
  if (line < 1 || static_cast<size_t>(line) > starts.size()) return "";
  size_t b = starts[static_cast<size_t>(line - 1)], e = b;
  while (e < text.size() && (text[e] == ' ' || text[e] == '\t')) ++e;
  return std::string(text.substr(b, e - b));
}

bool IsLoop(const Block& b) { return b.kind == BlockKind::kControl && (b.name == "for" || b.name == "while" || b.name == "do"); }

// Innermost loop (or switch, for break) block around token k, -1 if none before reaching `stop`.
int InnermostBreakTarget(const CodeStructure& cs, size_t k, bool is_break) {
  for (int b = cs.InnermostBlock(k); b >= 0; b = cs.blocks[static_cast<size_t>(b)].parent) {
    const Block& blk = cs.blocks[static_cast<size_t>(b)];
    if (blk.kind == BlockKind::kFunction || blk.kind == BlockKind::kLambda) return -1;
    if (IsLoop(blk) || (is_break && blk.kind == BlockKind::kControl && blk.name == "switch")) return b;
  }
  return -1;
}

// The ';' ending the statement that starts at `k` (brackets skipped), or t.size().
size_t StatementEnd(const std::vector<Token>& t, size_t k) {
  int depth = 0;
  for (size_t j = k; j < t.size(); ++j) {
    if (!Code(t[j])) continue;
    if (t[j].Is("(") || t[j].Is("[")) ++depth;
    if (t[j].Is(")") || t[j].Is("]")) --depth;
    if (depth == 0 && (t[j].Is("{") || t[j].Is("}"))) return t.size();
    if (depth == 0 && t[j].Is(";")) return j;
  }
  return t.size();
}

}  // namespace

// The line before which a range's first mark goes: the line of the first statement after `open`,
// or of a preprocessor directive between them (so the mark is not inside an #ifdef branch).
int FirstBodyLine(const SourceFile& f, size_t open, size_t first) {
  const auto& t = f.lex.tokens;
  int line = first < t.size() ? t[first].line : t[open].line + 1;
  for (const Directive& d : f.lex.directives)
    if (d.offset > t[open].offset && first < t.size() && d.offset < t[first].offset && d.line < line &&
        d.line > t[open].line)
      line = d.line;
  return line;
}

namespace {

size_t TokenAt(const std::vector<Token>& t, int line, int column) {
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].line == line && t[i].column == column) return i;
  return t.size();
}

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Base64(std::string_view in) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                 static_cast<unsigned char>(in[i + 2]);
    for (int k = 18; k >= 0; k -= 6) out += kB64[(v >> k) & 63];
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += kB64[(v >> 18) & 63];
    out += kB64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kB64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

bool Unbase64(std::string_view in, std::string* out) {
  unsigned v = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=') break;
    const char* p = std::strchr(kB64, c);
    if (!p || c == 0) return false;
    v = (v << 6) | static_cast<unsigned>(p - kB64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      *out += static_cast<char>((v >> bits) & 0xFF);
    }
  }
  return true;
}

// The code with whitespace outside literals dropped: a formatter that re-indents a line or
// changes the spaces before its comment leaves the tag valid.
std::string Normalized(std::string_view code) {
  std::string out;
  out.reserve(code.size());
  char quote = 0;
  for (size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    if (quote) {
      out += c;
      if (c == '\\' && i + 1 < code.size()) {
        out += code[++i];
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\v' && c != '\f') out += c;
  }
  return out;
}

std::string LineTag(std::string_view code) {
  uint32_t h = 2166136261u;
  for (char c : code) {
    h ^= static_cast<unsigned char>(c);
    h *= 16777619u;
  }
  return fmt::format("{:06x}", h & 0xffffff);
}

bool IsSpace(char c) { return c == ' ' || c == '\t'; }
std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}
bool IsHex6(std::string_view s) {
  return s.size() == 6 && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// A trailing tag, `<code> // optrace:auto:abcdef` or, in a #define body,
// `<code> /* optrace:auto:abcdef */ \`, with any spacing around its parts.
struct TrailingTag {
  std::string_view code;  // what precedes the comment, trailing spaces dropped
  std::string_view tag;   // the 6 hex digits
};
std::optional<TrailingTag> ParseTrailingTag(std::string_view content) {
  constexpr std::string_view kWord = "optrace:auto:";
  std::string_view c = TrimRight(content);
  bool macro = false;
  if (!c.empty() && c.back() == '\\') {
    macro = true;
    c = TrimRight(c.substr(0, c.size() - 1));
    if (!c.ends_with("*/")) return std::nullopt;
    c = TrimRight(c.substr(0, c.size() - 2));
  }
  if (c.size() < kWord.size() + 6 || !IsHex6(c.substr(c.size() - 6))) return std::nullopt;
  std::string_view tag = c.substr(c.size() - 6);
  c = c.substr(0, c.size() - 6);
  if (!c.ends_with(kWord)) return std::nullopt;
  c = TrimRight(c.substr(0, c.size() - kWord.size()));
  std::string_view opener = macro ? "/*" : "//";
  if (!c.ends_with(opener)) return std::nullopt;
  return TrailingTag{TrimRight(c.substr(0, c.size() - 2)), tag};
}

// Inserted by optrace: its tag is the hash of the code before it (whitespace ignored; files of
// earlier versions hashed the code exactly as inserted).
bool TagMatches(std::string_view code, std::string_view tag) {
  return LineTag(Normalized(code)) == tag || LineTag(code) == tag;
}

// Lines of versions before tags carry an untagged `  // optrace:auto`; those versions inserted
// only marks, so only a line that is one bare MoeTracing(TRACE_POINT(...)...) statement is theirs.
bool IsBareMark(std::string_view code) {
  std::string n = Normalized(code);
  if (!n.starts_with("MoeTracing(TRACE_POINT(\"") || !n.ends_with(");")) return false;
  char quote = 0;
  int depth = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    char c = n[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    else if (c == '(') ++depth;
    else if (c == ')' && --depth < 0) return false;
    else if (c == ';' && (depth != 0 || i + 1 != n.size())) return false;
    else if (c == '{' || c == '}') return false;
  }
  return depth == 0 && !quote;
}

bool IsLegacyAutoLine(std::string_view content) {
  constexpr std::string_view kLegacy = "// optrace:auto";
  std::string_view c = TrimRight(content);
  bool macro = false;
  if (!c.empty() && c.back() == '\\') {
    c = TrimRight(c.substr(0, c.size() - 1));
    if (!c.ends_with("/* optrace:auto */")) return false;
    c = c.substr(0, c.size() - std::string_view("/* optrace:auto */").size());
    macro = true;
  }
  if (!macro) {
    if (!c.ends_with(kLegacy)) return false;
    c = c.substr(0, c.size() - kLegacy.size());
  }
  return IsBareMark(c);
}

bool IsB64(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '='; }

// A line instrument changed in place: `<changed>  // optrace:orig-b64:<original>:<tag>` (a
// block comment before a #define's `\`), the tag a hash of <changed> with whitespace dropped.
// Earlier versions wrote `<changed>  // optrace:orig <original>` or the block form without a
// tag; those are restored as they are.
struct OrigLine {
  std::string original;
  std::string_view code;  // <changed>, trailing spaces dropped
  std::string_view tag;   // empty: an untagged form
};
std::optional<OrigLine> ParseOrigLine(std::string_view content) {
  constexpr std::string_view kB64Word = "optrace:orig-b64:";
  size_t at = content.find(kB64Word);
  if (at != std::string_view::npos) {
    size_t p = at + kB64Word.size(), q = p;
    while (q < content.size() && IsB64(content[q])) ++q;
    OrigLine o;
    if (!Unbase64(content.substr(p, q - p), &o.original)) return std::nullopt;
    if (q + 7 <= content.size() && content[q] == ':' && IsHex6(content.substr(q + 1, 6))) o.tag = content.substr(q + 1, 6);
    std::string_view before = TrimRight(content.substr(0, at));
    if (!before.ends_with("//") && !before.ends_with("/*")) return std::nullopt;
    o.code = TrimRight(before.substr(0, before.size() - 2));
    return o;
  }
  constexpr std::string_view kOrig = "// optrace:orig ";  // whatever spacing precedes it
  at = content.find(kOrig);
  if (at == std::string_view::npos) return std::nullopt;
  OrigLine o;
  o.original = std::string(content.substr(at + kOrig.size()));
  o.code = TrimRight(content.substr(0, at));
  return o;
}

}  // namespace

std::string AutoMarkerFor(std::string_view code, bool in_macro) {
  std::string tag = LineTag(Normalized(code));
  if (in_macro) return fmt::format(" /* optrace:auto:{} */ \\", tag);
  return fmt::format("{}:{}", kAutoMarker, tag);
}

std::string RevertText(std::string_view text, std::vector<int>* stale_tags) {
  std::string out;
  out.reserve(text.size());
  // The lines kept just before this one, for a line a formatter broke over several lines (the
  // tag is on the last; the hash covers them all).
  struct Kept {
    size_t out_begin;
    std::string_view content;
  };
  std::vector<Kept> kept;
  constexpr size_t kMaxJoined = 16;
  // True when `code`, alone or after up to kMaxJoined kept lines, hashes to `tag`; those kept
  // lines are then taken back out of `out`.
  auto ours = [&](std::string_view code, std::string_view tag) {
    if (TagMatches(code, tag)) return true;
    std::string joined(code);
    for (size_t k = 1; k <= kMaxJoined && k <= kept.size(); ++k) {
      joined.insert(0, std::string(kept[kept.size() - k].content) + "\n");
      if (LineTag(Normalized(joined)) != tag) continue;
      out.resize(kept[kept.size() - k].out_begin);
      kept.resize(kept.size() - k);
      return true;
    }
    return false;
  };
  size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string_view line = text.substr(pos, end - pos);
    std::string_view eol = line.ends_with("\r\n") ? "\r\n" : line.ends_with("\n") ? "\n" : "";
    std::string_view content = line.substr(0, line.size() - eol.size());
    pos = end;
    ++line_no;
    if (std::optional<TrailingTag> tag = ParseTrailingTag(content)) {
      if (ours(tag->code, tag->tag)) continue;
      if (stale_tags) stale_tags->push_back(line_no);
    } else if (IsLegacyAutoLine(content)) {
      continue;
    } else if (std::optional<OrigLine> orig = ParseOrigLine(content)) {
      if (orig->tag.empty() || ours(orig->code, orig->tag)) {
        kept.clear();
        out += orig->original;
        out += eol;
        continue;
      }
      if (stale_tags) stale_tags->push_back(line_no);
    }
    kept.push_back({out.size(), content});
    if (kept.size() > kMaxJoined) kept.erase(kept.begin());
    out += line;
  }
  return out;
}

bool HasInstrumentation(std::string_view text) {
  return text.find("optrace:auto") != std::string_view::npos || text.find("optrace:orig") != std::string_view::npos;
}

std::string MarkCode(const PlanSite& site, char type) {
  std::string s = fmt::format("MoeTracing(TRACE_POINT(\"{}\", \"{}\")", site.label, type);
  for (const std::string& a : site.index) s += ", " + a;
  return s + ");";
}

// A function written in a #define (a `##`-generated kernel): its marks are continuation lines
// of the macro, after the line of its '{' and before the line of its '}'.
Result<SiteMarks> ComputeMacroSiteMarks(const SourceFile& file, const PlanSite& site) {
  const auto& t = file.lex.tokens;
  const std::string_view text = *file.text;
  const std::vector<size_t> starts = LineStarts(text);
  for (const Directive& d : file.lex.directives) {
    if (d.kind != DirectiveKind::kDefine || d.token_end <= d.token_begin) continue;
    if (t[d.token_begin].line > site.line || t[d.token_end - 1].line < site.line) continue;
    size_t open = d.token_end;
    for (size_t k = d.token_begin; k < d.token_end; ++k)
      if (t[k].line == site.line && t[k].Is("{")) {
        open = k;
        break;
      }
    if (open >= d.token_end) break;
    int depth = 0;
    size_t close = d.token_end;
    for (size_t k = open; k < d.token_end; ++k) {
      if (t[k].Is("{")) ++depth;
      if (t[k].Is("}") && --depth == 0) {
        close = k;
        break;
      }
    }
    if (close >= d.token_end)
      return BadInputError("{}:{}: the body of {} in its #define is never closed", file.rel, site.line, site.name);
    for (size_t k = open; k < close; ++k)
      if (t[k].Is("return"))
        return BadInputError("{}:{}: {} is written in a #define and returns early; mark it by hand", file.rel,
                             site.line, site.name);
    size_t begin = open + 1;
    // After OPTRACE_KERNEL_BEGIN(...) when the entry sets up the buffer.
    for (size_t k = begin; k < close; ++k)
      if (t[k].Is("OPTRACE_KERNEL_BEGIN") || t[k].Is("SetMoeProfilePtr")) {
        size_t j = k;
        while (j < close && !t[j].Is(";")) ++j;
        if (j + 1 < close) begin = j + 1;
      }
    size_t end = close;
    for (size_t k = begin; k < close; ++k)
      if (t[k].Is("OPTRACE_KERNEL_END") && (k == 0 || t[k - 1].line < t[k].line)) end = k;
    if (begin >= end || t[begin].line == t[open].line || (end > 0 && t[end - 1].line == t[end].line))
      return BadInputError("{}:{}: the body of {} in its #define does not have statements on lines of their own",
                           file.rel, site.line, site.name);
    SiteMarks m;
    int span = static_cast<int>(end - begin);
    std::string indent = IndentOf(text, starts, t[begin].line);
    m.lines.push_back({t[begin].line, false, span, indent, MarkCode(site, 'B'), true});
    m.lines.push_back({t[end].line, true, span, indent, MarkCode(site, 'E'), true});
    return m;
  }
  return BadInputError("{}:{}: no #define holds {} here; the plan does not match the source, run `optrace plan` again",
                       file.rel, site.line, site.name);
}

Result<SiteMarks> ComputeSiteMarks(const SourceFile& file, const CodeStructure& cs, const PlanSite& site) {
  const auto& t = file.lex.tokens;
  const std::string_view text = *file.text;
  const std::vector<size_t> starts = LineStarts(text);
  SiteMarks m;
  const std::string b_code = MarkCode(site, 'B'), e_code = MarkCode(site, 'E');
  auto find_block = [&](auto pred) -> int {
    for (size_t i = 0; i < cs.blocks.size(); ++i)
      if (cs.blocks[i].line == site.line && pred(cs.blocks[i])) return static_cast<int>(i);
    return -1;
  };
  auto stale = [&](std::string_view what) {
    return BadInputError("{}:{}: no {} {} here; the plan does not match the source, run `optrace plan` again",
                         file.rel, site.line, what, site.name);
  };
  auto add_exits = [&](int blk, size_t from, size_t to, bool loop_body, int span) {
    int fn = cs.EnclosingFunction(from);
    for (size_t k = from; k < to && k < t.size(); ++k) {
      if (!Code(t[k])) continue;
      bool ret = t[k].Is("return"), brk = t[k].Is("break"), cont = t[k].Is("continue");
      if (!ret && !brk && !cont) continue;
      if (cs.EnclosingFunction(k) != fn) continue;  // inside a nested lambda
      if (!ret && (!loop_body || InnermostBreakTarget(cs, k, brk) != blk)) continue;
      m.exits.push_back({k, span, e_code});
    }
  };

  if (site.in_macro) return ComputeMacroSiteMarks(file, site);
  switch (site.kind) {
    case SiteKind::kFunction: {
      int blk = find_block([](const Block& b) { return b.kind == BlockKind::kFunction || b.kind == BlockKind::kLambda; });
      if (blk < 0) return stale("function");
      const Block& b = cs.blocks[static_cast<size_t>(blk)];
      if (b.close >= t.size()) return BadInputError("{}:{}: the body of {} is never closed", file.rel, site.line, site.name);
      size_t begin = NextCode(t, b.open), end = b.close;
      // The kernel entry: marks go after the profiling setup and before the write-back.
      for (size_t k = begin; k < b.close; ++k) {
        if (!Code(t[k]) || cs.InnermostBlock(k) != blk) continue;
        if (t[k].Is("OPTRACE_KERNEL_BEGIN") || t[k].Is("SetMoeProfilePtr")) {
          size_t semi = StatementEnd(t, k);
          if (semi < b.close) begin = NextCode(t, semi);
        }
        if ((t[k].Is("OPTRACE_KERNEL_END")) && FirstOnLine(t, k)) end = k;
      }
      if (begin >= end)
        return BadInputError("{}:{}: the body of {} is empty; nothing to trace", file.rel, site.line, site.name);
      if (t[b.open].line == t[b.close].line || (begin < t.size() && t[begin].line == t[b.open].line))
        return BadInputError("{}:{}: the body of {} starts on the line of its '{{'; put its statements on lines of "
                             "their own to trace it", file.rel, site.line, site.name);
      if (!FirstOnLine(t, end))
        return BadInputError("{}:{}: the closing brace of {} shares a line with code", file.rel, t[end].line, site.name);
      int span = static_cast<int>(end - begin);
      std::string indent = IndentOf(text, starts, t[begin].line);
      // At the start of the body (not after the kernel's buffer set-up): before any directive there.
      bool at_start = PrevCode(t, begin) == static_cast<long>(b.open);
      m.lines.push_back({at_start ? FirstBodyLine(file, b.open, begin) : t[begin].line, false, span, indent, b_code});
      long last = PrevCode(t, end);
      bool ends_in_return = false;
      if (last >= 0 && t[static_cast<size_t>(last)].Is(";")) {
        for (long k = last - 1; k > static_cast<long>(b.open); --k) {
          const Token& x = t[static_cast<size_t>(k)];
          if (!Code(x)) continue;
          if (x.Is(";") || x.Is("{") || x.Is("}")) break;
          if (x.Is("return") && cs.InnermostBlock(static_cast<size_t>(k)) == blk) ends_in_return = true;
        }
      }
      if (!ends_in_return) m.lines.push_back({t[end].line, true, span, indent, e_code});
      add_exits(blk, b.open + 1, end, false, span);
      return m;
    }
    case SiteKind::kLoopBody:
    case SiteKind::kLoop: {
      int blk = find_block(IsLoop);
      if (blk < 0) return stale("loop");
      const Block& b = cs.blocks[static_cast<size_t>(blk)];
      if (b.close >= t.size()) return BadInputError("{}:{}: the loop body is never closed", file.rel, site.line);
      if (site.kind == SiteKind::kLoopBody) {
        size_t begin = NextCode(t, b.open);
        if (begin >= b.close || t[begin].line == t[b.open].line || !FirstOnLine(t, b.close))
          return BadInputError("{}:{}: the loop body is not laid out one statement per line; cannot trace it per "
                               "iteration", file.rel, site.line);
        int span = static_cast<int>(b.close - begin);
        std::string indent = IndentOf(text, starts, t[begin].line);
        m.lines.push_back({t[begin].line, false, span, indent, b_code});
        long last = PrevCode(t, b.close);
        bool ends_in_jump = false;
        if (last >= 0 && t[static_cast<size_t>(last)].Is(";")) {
          long k = PrevCode(t, static_cast<size_t>(last));
          while (k >= 0 && !t[static_cast<size_t>(k)].Is(";") && !t[static_cast<size_t>(k)].Is("{") &&
                 !t[static_cast<size_t>(k)].Is("}")) {
            const Token& x = t[static_cast<size_t>(k)];
            if ((x.Is("return") || x.Is("continue") || x.Is("break")) && cs.InnermostBlock(static_cast<size_t>(k)) == blk)
              ends_in_jump = true;
            k = PrevCode(t, static_cast<size_t>(k));
          }
        }
        if (!ends_in_jump) m.lines.push_back({t[b.close].line, true, span, indent, e_code});
        add_exits(blk, b.open + 1, b.close, true, span);
        return m;
      }
      size_t kw = TokenAt(t, b.line, b.column);
      size_t end = b.close;
      if (b.name == "do") {
        end = StatementEnd(t, NextCode(t, b.close));
        if (end >= t.size()) return BadInputError("{}:{}: do-while without its ';'", file.rel, site.line);
      }
      if (kw >= t.size() || !FirstOnLine(t, kw) || !LastOnLine(t, end))
        return BadInputError("{}:{}: the loop shares its first or last line with other code; cannot trace it",
                             file.rel, site.line);
      int span = static_cast<int>(end - kw);
      std::string indent = IndentOf(text, starts, t[kw].line);
      m.lines.push_back({t[kw].line, false, span, indent, b_code});
      m.lines.push_back({t[end].line + 1, true, span, indent, e_code});
      add_exits(blk, b.open + 1, b.close, false, span);
      return m;
    }
    case SiteKind::kStatement: {
      for (size_t k = 0; k < t.size(); ++k) {
        if (t[k].line < site.line) continue;
        if (t[k].line > site.line) break;
        if (!Code(t[k])) continue;
        long p = PrevCode(t, k);
        if (p >= 0 && !t[static_cast<size_t>(p)].Is(";") && !t[static_cast<size_t>(p)].Is("{") &&
            !t[static_cast<size_t>(p)].Is("}") && !t[static_cast<size_t>(p)].Is(":"))
          continue;
        size_t end = StatementEnd(t, k);
        if (end >= t.size() || !FirstOnLine(t, k) || !LastOnLine(t, end))
          return BadInputError("{}:{}: the statement shares a line with other code; cannot trace it", file.rel,
                               site.line);
        int span = static_cast<int>(end - k);
        std::string indent = IndentOf(text, starts, t[k].line);
        m.lines.push_back({t[k].line, false, span, indent, b_code});
        m.lines.push_back({t[end].line + 1, true, span, indent, e_code});
        return m;
      }
      return BadInputError("{}:{}: no statement of its own starts on this line (an unbraced if/for body?); cannot "
                           "trace {}", file.rel, site.line, site.name);
    }
  }
  return m;
}

namespace {

// True when the function or lambda block returns void (a lambda: never known, false).
bool ReturnsVoid(const std::vector<Token>& t, const Block& fn) {
  if (fn.kind != BlockKind::kFunction) return false;
  size_t name = TokenAt(t, fn.line, fn.column);
  if (name >= t.size()) return false;
  long p = PrevCode(t, name);
  while (p >= 0 && t[static_cast<size_t>(p)].Is("::")) p = PrevCode(t, static_cast<size_t>(PrevCode(t, static_cast<size_t>(p))));
  return p >= 0 && t[static_cast<size_t>(p)].Is("void");
}

// `return Call(...);` where Call is a traced function: the E marks of the ranges around the
// return must follow the call, so the statement is rewritten in place to
// `{ auto optrace_ret = Call(...); E; return optrace_ret; }` (void: `{ Call(...); E; return; }`).
// Returns the replacement text, "" when the return does not call a traced function.
std::string RewriteTracedReturn(const SourceFile& file, const CodeStructure& cs, size_t k, size_t end,
                                const std::set<std::string>& traced, const std::string& marks) {
  const auto& t = file.lex.tokens;
  size_t first = NextCode(t, k);
  if (first >= end || end >= t.size() || t[end].line != t[k].line) return "";
  bool calls_traced = false;
  for (size_t j = first; j < end; ++j) {
    if (!Code(t[j]) || t[j].kind != TokenKind::kIdentifier || !traced.count(std::string(t[j].text))) continue;
    size_t n = NextCode(t, j);
    if (n < end && (t[n].Is("(") || t[n].Is("<"))) calls_traced = true;
  }
  int fn = cs.EnclosingFunction(k);
  if (!calls_traced || fn < 0 || cs.blocks[static_cast<size_t>(fn)].kind != BlockKind::kFunction) return "";
  std::string expr(file.text->substr(t[first].offset, t[end].offset - t[first].offset));
  while (!expr.empty() && (expr.back() == ' ' || expr.back() == '\t')) expr.pop_back();
  if (ReturnsVoid(t, cs.blocks[static_cast<size_t>(fn)])) return "{ " + expr + "; " + marks + "return; }";
  return "{ auto optrace_ret = " + expr + "; " + marks + "return optrace_ret; }";
}

// Inserts the marks of all sites of one file into its (reverted) text. `traced`: names (last
// component) of the functions the plan traces.
Result<std::string> ApplyMarks(const SourceFile& file, const CodeStructure* cs, std::vector<SiteMarks::Line> lines,
                               const std::vector<SiteMarks::Exit>& exits, const std::set<std::string>& traced,
                               const std::map<int, std::vector<std::pair<size_t, std::string>>>& inserts = {}) {
  const auto& t = file.lex.tokens;
  const std::string& text = *file.text;
  const std::vector<size_t> starts = LineStarts(text);
  const std::string eol = text.find("\r\n") != std::string::npos ? "\r\n" : "\n";
  struct Inline {
    size_t offset;
    std::string text;
    size_t erase = 0;  // bytes replaced from offset
  };
  std::map<int, std::vector<Inline>> inline_edits;  // line -> insertions
  std::map<size_t, std::vector<const SiteMarks::Exit*>> by_token;
  for (const auto& e : exits) by_token[e.token].push_back(&e);
  for (auto& [k, list] : by_token) {
    std::sort(list.begin(), list.end(), [](auto* a, auto* b) { return a->span < b->span; });
    long p = PrevCode(t, k);
    bool braced = p < 0 || t[static_cast<size_t>(p)].Is(";") || t[static_cast<size_t>(p)].Is("{") ||
                  t[static_cast<size_t>(p)].Is("}") ||
                  (t[static_cast<size_t>(p)].Is(":") && !(p > 0 && t[static_cast<size_t>(p - 1)].Is(":")));
    std::string marks;
    for (const auto* e : list) marks += e->code + " ";
    size_t end = StatementEnd(t, k);
    if (cs && t[k].Is("return")) {
      std::string rewritten = RewriteTracedReturn(file, *cs, k, end, traced, marks);
      if (!rewritten.empty()) {
        inline_edits[t[k].line].push_back({t[k].offset, rewritten, t[end].end_offset() - t[k].offset});
        continue;
      }
    }
    if (braced && FirstOnLine(t, k)) {
      std::string indent = IndentOf(text, starts, t[k].line);
      for (const auto* e : list) lines.push_back({t[k].line, true, e->span, indent, e->code});
      continue;
    }
    if (braced) {  // `if (c) { x = 0; continue; }`: the marks go before it, inside the existing braces
      inline_edits[t[k].line].push_back({t[k].offset, marks});
      continue;
    }
    if (end >= t.size() || t[end].line != t[k].line)
      return BadInputError("{}:{}: `{}` spans lines without braces around it; add braces so its E marks can go "
                           "before it", file.rel, t[k].line, t[k].text);
    inline_edits[t[k].line].push_back({t[k].offset, "{ " + marks});
    inline_edits[t[k].line].push_back({t[end].end_offset(), " }"});
  }
  for (const auto& [line, list] : inserts) {
    if (line < 1 || static_cast<size_t>(line) > starts.size()) continue;
    for (const auto& [col, ins] : list) inline_edits[line].push_back({starts[static_cast<size_t>(line - 1)] + col, ins});
  }
  std::stable_sort(lines.begin(), lines.end(), [](const SiteMarks::Line& a, const SiteMarks::Line& b) {
    if (a.before_line != b.before_line) return a.before_line < b.before_line;
    if (a.end != b.end) return a.end;
    return a.end ? a.span < b.span : a.span > b.span;
  });
  const int line_count = static_cast<int>(starts.size()) - (text.empty() || text.back() == '\n' ? 1 : 0);
  std::string out;
  out.reserve(text.size() + lines.size() * 64);
  size_t li = 0;
  for (int line = 1; line <= line_count + 1; ++line) {
    for (; li < lines.size() && lines[li].before_line == line; ++li) {
      if (line == line_count + 1 && !text.empty() && text.back() != '\n')
        return BadInputError("{}: the file does not end with a newline; add one so marks can follow its last line",
                             file.rel);
      std::string code = lines[li].indent + lines[li].code;
      out += code + AutoMarkerFor(code, lines[li].macro) + eol;
    }
    if (line > line_count) break;
    size_t b = starts[static_cast<size_t>(line - 1)];
    size_t e = static_cast<size_t>(line) < starts.size() ? starts[static_cast<size_t>(line)] : text.size();
    std::string_view whole(text.data() + b, e - b);
    auto it = inline_edits.find(line);
    if (it == inline_edits.end()) {
      out += whole;
      continue;
    }
    std::string_view le = whole.ends_with("\r\n") ? "\r\n" : whole.ends_with("\n") ? "\n" : "";
    std::string_view content = whole.substr(0, whole.size() - le.size());
    std::string changed(content);
    auto edits = it->second;
    std::sort(edits.begin(), edits.end(), [](const Inline& x, const Inline& y) { return x.offset > y.offset; });
    for (const Inline& ed : edits) changed.replace(ed.offset - b, ed.erase, ed.text);
    std::string_view trimmed = content;
    while (!trimmed.empty() && (trimmed.back() == ' ' || trimmed.back() == '\t')) trimmed.remove_suffix(1);
    if (trimmed.ends_with("\\")) {
      // A #define line: a line comment would swallow the continuation; keep the original encoded.
      while (!changed.empty() && (changed.back() == ' ' || changed.back() == '\t')) changed.pop_back();
      if (!changed.empty() && changed.back() == '\\') changed.pop_back();
      while (!changed.empty() && (changed.back() == ' ' || changed.back() == '\t')) changed.pop_back();
      out += changed;
      out += " /* optrace:orig-b64:" + Base64(content) + ":" + LineTag(Normalized(changed)) + " */ \\";
      out += le;
      continue;
    }
    // Encoded, so a formatter cannot reflow the original over several comment lines; tagged, so
    // revert still finds <changed> when a formatter breaks it over several lines.
    out += changed;
    out += "  // optrace:orig-b64:" + Base64(content) + ":" + LineTag(Normalized(changed));
    out += le;
  }
  return out;
}

// The file includes optrace/trace.h or defines MoeTracing itself (a tree's own *_base.h).
bool DefinesTracing(const SourceFile& f) {
  for (const Directive& d : f.lex.directives) {
    if (d.kind == DirectiveKind::kInclude && d.active && d.include_path.ends_with("optrace/trace.h")) return true;
    if (d.kind == DirectiveKind::kDefine && d.active && d.argument.rfind("MoeTracing", 0) == 0) return true;
  }
  const auto& t = f.lex.tokens;
  for (size_t i = 1; i + 1 < t.size(); ++i)
    if (t[i].Is("MoeTracing") && t[i + 1].Is("(") && t[i - 1].Is("void") && t[i].active && !t[i].in_directive)
      return true;
  return false;
}

// The line before which `#include "optrace/trace.h"` goes: after the last #include that is not
// inside a conditional (an include under `#if __CCE_AICORE__ == 200` would hide the macros from
// every other build), else after the include guard, else at the top.
int IncludeLine(const SourceFile& f) {
  const auto& d = f.lex.directives;
  const bool guarded = d.size() >= 2 && d[0].kind == DirectiveKind::kIfndef && d[1].kind == DirectiveKind::kDefine;
  int after = 0, depth = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    const Directive& x = d[i];
    if (x.kind == DirectiveKind::kIf || x.kind == DirectiveKind::kIfdef || x.kind == DirectiveKind::kIfndef) ++depth;
    if (x.kind == DirectiveKind::kEndif) --depth;
    // The include guard's own #ifndef is the file's top level.
    if (x.kind == DirectiveKind::kInclude && x.active && x.brace_depth == 0 && depth == (guarded ? 1 : 0)) after = x.line;
  }
  if (after == 0 && guarded) after = d[1].line;
  return after + 1;
}

}  // namespace

Result<InstrumentResult> Instrument(const Plan& plan) {
  InstrumentResult result;
  OPTRACE_ASSIGN_OR_RETURN(std::vector<fs::path> paths, ListSourceFiles(plan.op_dir));
  SourceSet set(plan.op_dir);
  std::map<std::string, std::string> original;
  std::vector<std::string> stale;
  for (const fs::path& p : paths) {
    OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(p));
    std::string rel = set.Relative(p);
    std::vector<int> lines;
    set.AddText(rel, RevertText(text, &lines));
    for (int l : lines) stale.push_back(fmt::format("{}:{}", rel, l));
    original[rel] = std::move(text);
  }
  // A line still tagged as optrace's whose code was edited: re-instrumenting would take it for a
  // hand mark and could leave its range unbalanced, so nothing is written.
  if (!stale.empty())
    return BadInputError(
        "{}: carries an optrace:auto tag that no longer matches its code (edited since instrument ran){}; restore "
        "the line, delete it, or remove the tag to keep it as your own, then run instrument again",
        stale.front(), stale.size() > 1 ? fmt::format(" (and {} more line(s))", stale.size() - 1) : "");
  // Which files reach a MoeTracing definition (optrace/trace.h or the tree's own) through their
  // own includes.
  std::map<const SourceFile*, bool> reaches;
  for (const PlanKernel& k : plan.kernels) {
    IncludeOptions io;
    io.limit = plan.op_dir;
    io.include_dirs = {plan.op_dir};
    Result<IncludeTree> tree = WalkIncludeTree(set, plan.op_dir / k.entry, io);
    if (!tree.ok()) continue;
    for (const SourceFile* f : tree->files) {
      bool r = DefinesTracing(*f);
      for (const SourceFile* g : tree->ClosureOf(f)) r = r || DefinesTracing(*g);
      reaches[f] = reaches[f] || r;
    }
  }
  std::map<std::string, std::vector<const PlanSite*>> by_file;
  std::set<std::string> traced;  // functions with their own range: `return F(...)` must end after F
  for (const PlanSite& s : plan.sites) {
    if (!Inserts(s.decision) || s.label.empty()) continue;
    by_file[s.file].push_back(&s);
    if (s.kind == SiteKind::kFunction) traced.insert(s.name.substr(s.name.rfind(':') == std::string::npos ? 0 : s.name.rfind(':') + 1));
  }
  set.FindAllTraces();
  ChainPlan chain = PlanProfilingChain(plan, set);
  result.chain_done = chain.done;
  result.chain_manual = chain.manual;
  for (const auto& [rel, text] : original) {
    const SourceFile* f = set.Find(rel);
    if (!f) continue;
    std::vector<SiteMarks::Line> lines;
    std::vector<SiteMarks::Exit> exits;
    int marks = 0;
    const FileEdits* ce = nullptr;
    if (auto c = chain.edits.find(rel); c != chain.edits.end()) {
      ce = &c->second;
      lines = ce->lines;
      exits = ce->exits;
      marks += static_cast<int>(ce->lines.size() + ce->exits.size() + ce->inserts.size());
    }
    auto it = by_file.find(rel);
    std::optional<CodeStructure> structure;
    if (it != by_file.end()) {
      const CodeStructure& cs = structure.emplace(AnalyzeStructure(f->lex));
      for (const PlanSite* s : it->second) {
        Result<SiteMarks> m = ComputeSiteMarks(*f, cs, *s);
        if (!m.ok()) {
          result.warnings.push_back(m.status().message() + " (site skipped)");
          continue;
        }
        ++result.sites;
        marks += static_cast<int>(m->lines.size() + m->exits.size());
        lines.insert(lines.end(), m->lines.begin(), m->lines.end());
        exits.insert(exits.end(), m->exits.begin(), m->exits.end());
      }
    }
    bool needs_tracing = it != by_file.end() && marks > 0;
    if (ce)
      for (const SiteMarks::Line& l : ce->lines) needs_tracing = needs_tracing || l.code.rfind("OPTRACE_KERNEL_", 0) == 0;
    auto r = reaches.find(f);
    if (needs_tracing && (r == reaches.end() ? !DefinesTracing(*f) : !r->second))
      lines.push_back({IncludeLine(*f), false, INT_MAX, "", "#include \"optrace/trace.h\""});
    if (!exits.empty() && !structure) structure.emplace(AnalyzeStructure(f->lex));
    static const std::map<int, std::vector<std::pair<size_t, std::string>>> kNone;
    OPTRACE_ASSIGN_OR_RETURN(std::string after, ApplyMarks(*f, structure ? &*structure : nullptr, std::move(lines),
                                                           exits, traced, ce ? ce->inserts : kNone));
    if (after == text) continue;
    result.changes.push_back({f->path, rel, text, std::move(after), marks});
  }
  return result;
}

Result<InstrumentResult> RevertInstrumentation(const fs::path& op_dir) {
  InstrumentResult result;
  OPTRACE_ASSIGN_OR_RETURN(std::vector<fs::path> paths, ListSourceFiles(op_dir));
  SourceSet set(op_dir);
  for (const fs::path& p : paths) {
    OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(p));
    if (!HasInstrumentation(text)) continue;
    std::vector<int> stale;
    std::string after = RevertText(text, &stale);
    std::string rel = set.Relative(p);
    for (int l : stale)
      result.warnings.push_back(fmt::format("{}:{}: kept: its optrace:auto tag no longer matches the code (edited since "
                                            "instrument ran); delete the line by hand if it is not yours",
                                            rel, l));
    if (after == text) continue;
    int removed = static_cast<int>(std::count(text.begin(), text.end(), '\n') - std::count(after.begin(), after.end(), '\n'));
    result.changes.push_back({p, rel, text, std::move(after), removed});
  }
  return result;
}

}  // namespace optrace::source
