// The optrace line tags: what instrument marks its lines with, and how revert reads them back.
#include "source/plan/line_tags.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "source/plan/edit_text.h"
#include "source/plan/instrument.h"

namespace optrace::source {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t'; }

constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

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

namespace {

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

}  // namespace

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

namespace {

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}
bool IsHex6(std::string_view s) {
  return s.size() == 6 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
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
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'')
      quote = c;
    else if (c == '(')
      ++depth;
    else if (c == ')' && --depth < 0)
      return false;
    else if (c == ';' && (depth != 0 || i + 1 != n.size()))
      return false;
    else if (c == '{' || c == '}')
      return false;
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
    if (q + 7 <= content.size() && content[q] == ':' && IsHex6(content.substr(q + 1, 6)))
      o.tag = content.substr(q + 1, 6);
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

}  // namespace optrace::source
