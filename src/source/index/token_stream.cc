#include "source/index/token_stream.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace optrace::source::index {
namespace {

bool Code(const Token& t) { return t.active && !t.in_directive; }

// Macros the index never expands: the trace marks themselves stay calls.
bool NeverExpand(std::string_view name) {
  // Reserved `__x__` names stand for compiler keywords and attributes (`#define __aicore__ [aicore]`):
  // keeping them as identifiers keeps declaration heads readable.
  if (name.size() > 4 && name.starts_with("__") && name.ends_with("__")) return true;
  return name == "TRACE_POINT" || name == "MoeTracing" || name == "ENABLE_MOE_PROFILING" ||
         name == "PROF_SIZE_PER_CORE" || name == "ENABLE_MOE_PROFILING_BARRIER";
}

bool AlnumEnd(std::string_view s, bool back) {
  if (s.empty()) return false;
  char c = back ? s.back() : s.front();
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Every token expansion makes (argument pre-expansion and substitution included) is charged to
// a budget, so doubly exponential macros stop expanding instead of filling memory.
constexpr size_t kMaxExpansionTokens = 4'000'000;  // per file
constexpr int kMaxMacroDepth = 24;

}  // namespace

MacroTable::MacroTable(const std::vector<const SourceFile*>& files) {
  for (const SourceFile* f : files) {
    const auto& t = f->lex.tokens;
    for (const Directive& d : f->lex.directives) {
      if (d.kind != DirectiveKind::kDefine || !d.active || d.token_end <= d.token_begin) continue;
      size_t i = d.token_begin;
      if (t[i].kind != TokenKind::kIdentifier) continue;
      MacroDef m;
      m.name = std::string(t[i].text);
      m.file = f;
      m.line = d.line;
      ++i;
      // Function-like only when '(' follows the name with no space.
      if (i < d.token_end && t[i].Is("(") && t[i].offset == t[i - 1].end_offset()) {
        m.function_like = true;
        ++i;
        while (i < d.token_end && !t[i].Is(")")) {
          if (t[i].Is("...")) {
            m.variadic = true;
            if (m.params.empty() || m.params.back() != "__VA_ARGS__") m.params.push_back("__VA_ARGS__");
          } else if (t[i].kind == TokenKind::kIdentifier) {
            m.params.push_back(std::string(t[i].text));
            if (i + 1 < d.token_end && t[i + 1].Is("...")) {
              m.variadic = true;  // GNU named variadic: `args...`
              ++i;
            }
          }
          ++i;
        }
        if (i >= d.token_end) continue;  // malformed parameter list
        ++i;
      }
      m.body_begin = i;
      m.body_end = d.token_end;
      size_t n = m.body_end - m.body_begin;
      if (!m.function_like) {
        if (n == 0) continue;
        if (n == 1 && t[m.body_begin].kind != TokenKind::kIdentifier) continue;  // a literal
      }
      if (NeverExpand(m.name)) continue;
      by_name_.emplace(m.name, std::move(m));  // the first definition wins
    }
  }
}

const MacroDef* MacroTable::Find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &it->second;
}

class StreamBuilder {
 public:
  StreamBuilder(TokenStream& s, const MacroTable& m, TokenStream::IncludeResolver resolve, const void* ctx,
                size_t* shared_budget)
      : s_(s), macros_(m), resolve_(resolve), ctx_(ctx), shared_budget_(shared_budget) {}

  void Build(const SourceFile& file) {
    std::vector<StreamToken> raw;
    raw.reserve(file.lex.tokens.size());
    std::set<const SourceFile*> active{&file};
    Collect(file, raw, active);
    // Most files use none of the tree's macros: their stream is the collected tokens as they are.
    bool expands = false;
    if (macros_.size() > 0)
      for (size_t i = 0; i < raw.size() && !expands; ++i) expands = raw[i].IsIdentifier() && macros_.Find(raw[i].text());
    if (!expands) {
      s_.toks_ = std::move(raw);
    } else {
      s_.toks_.reserve(raw.size() + raw.size() / 8);
      budget_ = std::min(kMaxExpansionTokens, shared_budget_ ? *shared_budget_ : kMaxExpansionTokens);
      std::vector<const MacroDef*> disabled;
      size_t start = budget_;
      if (budget_ == 0) s_.expansion_capped_ = true;
      Expand(raw, 0, raw.size(), disabled, &s_.toks_);
      if (shared_budget_) *shared_budget_ -= start - budget_;
    }
    MatchBrackets();
  }

 private:
  // The code tokens of `f`, with in-body includes spliced in.
  void Collect(const SourceFile& f, std::vector<StreamToken>& out, std::set<const SourceFile*>& active) {
    const auto& t = f.lex.tokens;
    std::vector<const Directive*> splices;
    if (resolve_) {
      for (const Directive& d : f.lex.directives)
        if (d.kind == DirectiveKind::kInclude && d.active && d.brace_depth > 0) splices.push_back(&d);
    }
    size_t next_splice = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      while (next_splice < splices.size() && splices[next_splice]->offset < t[i].offset) {
        Splice(f, *splices[next_splice++], out, active);
      }
      if (!Code(t[i])) continue;
      StreamToken st;
      st.tok = &t[i];
      st.file = &f;
      st.line = t[i].line;
      st.column = t[i].column;
      st.source = &f;
      st.index = static_cast<uint32_t>(i);
      out.push_back(st);
    }
    while (next_splice < splices.size()) Splice(f, *splices[next_splice++], out, active);
  }

  void Splice(const SourceFile& from, const Directive& d, std::vector<StreamToken>& out,
              std::set<const SourceFile*>& active) {
    const SourceFile* inc = resolve_(ctx_, &from, d);
    if (!inc || active.count(inc)) return;
    active.insert(inc);
    Collect(*inc, out, active);
    active.erase(inc);
  }

  const Token* Make(std::string text, TokenKind kind, const StreamToken& at) {
    s_.texts_.push_back(std::move(text));
    Token t;
    t.kind = kind;
    t.text = s_.texts_.back();
    t.line = at.line;
    t.column = at.column;
    s_.made_.push_back(t);
    return &s_.made_.back();
  }

  static TokenKind KindOf(std::string_view text) {
    if (text.empty()) return TokenKind::kPunct;
    unsigned char c = static_cast<unsigned char>(text[0]);
    if (std::isdigit(c)) return TokenKind::kNumber;
    if (std::isalpha(c) || c == '_') return TokenKind::kIdentifier;
    if (c == '"') return TokenKind::kString;
    return TokenKind::kPunct;
  }

  void Charge(size_t n) {
    if (n >= budget_) {
      budget_ = 0;
      s_.expansion_capped_ = true;
    } else {
      budget_ -= n;
    }
  }

  // Expands macros in in[b, e) into `out`.
  void Expand(const std::vector<StreamToken>& in, size_t b, size_t e, std::vector<const MacroDef*>& disabled,
              std::vector<StreamToken>* out) {
    for (size_t i = b; i < e; ++i) {
      const StreamToken& x = in[i];
      const MacroDef* m = nullptr;
      if (x.IsIdentifier() && budget_ > 0 && static_cast<int>(disabled.size()) < kMaxMacroDepth)
        m = macros_.Find(x.text());
      if (m && std::find(disabled.begin(), disabled.end(), m) != disabled.end()) m = nullptr;
      if (!m) {
        out->push_back(x);
        continue;
      }
      std::vector<std::vector<StreamToken>> args;
      size_t end = i;
      if (m->function_like) {
        if (i + 1 >= e || !in[i + 1].Is("(")) {
          out->push_back(x);  // a function-like macro's name without arguments is just a name
          continue;
        }
        int depth = 0;
        size_t j = i + 1;
        std::vector<StreamToken> cur;
        for (; j < e; ++j) {
          const StreamToken& y = in[j];
          if (y.Is("(")) {
            if (depth++ == 0) continue;
          } else if (y.Is(")")) {
            if (--depth == 0) break;
          } else if (y.Is(",") && depth == 1) {
            args.push_back(std::move(cur));
            cur.clear();
            continue;
          }
          cur.push_back(y);
        }
        // Scanning for the arguments is work too: names followed by an unclosed '(' would each
        // scan to the end of a rescanned body (quadratic; found by fuzz_macro).
        Charge(j - i);
        if (j >= e) {
          out->push_back(x);  // unclosed invocation: leave it
          continue;
        }
        if (!cur.empty() || !args.empty()) args.push_back(std::move(cur));
        end = j;
      }
      std::vector<StreamToken> body = Substitute(*m, x, args, disabled);
      disabled.push_back(m);
      Expand(body, 0, body.size(), disabled, out);
      disabled.pop_back();
      i = end;
    }
  }

  // The macro body with parameters replaced, # and ## applied, positioned at the invocation.
  std::vector<StreamToken> Substitute(const MacroDef& m, const StreamToken& at,
                                      std::vector<std::vector<StreamToken>>& args,
                                      std::vector<const MacroDef*>& disabled) {
    const auto& t = m.file->lex.tokens;
    auto param_index = [&](std::string_view name) -> int {
      for (size_t p = 0; p < m.params.size(); ++p)
        if (m.params[p] == name) return static_cast<int>(p);
      return -1;
    };
    // Arguments of a variadic macro beyond the named ones form the last parameter.
    if (m.variadic && args.size() > m.params.size() && !m.params.empty()) {
      size_t last = m.params.size() - 1;
      for (size_t a = last + 1; a < args.size(); ++a) {
        StreamToken comma = at;
        comma.tok = Make(",", TokenKind::kPunct, at);
        comma.source = nullptr;
        args[last].push_back(comma);
        args[last].insert(args[last].end(), args[a].begin(), args[a].end());
      }
      args.resize(m.params.size());
    }
    auto arg = [&](int p) -> const std::vector<StreamToken>& {
      static const std::vector<StreamToken> kEmpty;
      return p >= 0 && static_cast<size_t>(p) < args.size() ? args[static_cast<size_t>(p)] : kEmpty;
    };
    auto body_token = [&](size_t k) {
      StreamToken st;
      st.tok = &t[k];
      st.file = at.file;
      st.line = at.line;
      st.column = at.column;
      st.source = m.file;
      st.index = static_cast<uint32_t>(k);
      st.macro_depth = static_cast<uint16_t>(at.macro_depth + 1);
      st.macro = at.macro ? at.macro : &m;
      return st;
    };
    std::vector<StreamToken> out;
    bool paste_next = false;
    for (size_t k = m.body_begin; k < m.body_end && budget_ > 0; ++k) {
      const Token& bt = t[k];
      if (bt.Is("##")) {
        paste_next = true;
        continue;
      }
      std::vector<StreamToken> piece;
      int p = m.function_like && bt.kind == TokenKind::kIdentifier ? param_index(bt.text) : -1;
      if (m.function_like && bt.Is("#") && k + 1 < m.body_end && param_index(t[k + 1].text) >= 0) {
        std::string s = "\"";
        const auto& a = arg(param_index(t[++k].text));
        for (size_t q = 0; q < a.size(); ++q) {
          if (q > 0) s += ' ';
          s += a[q].text();
        }
        s += '"';
        StreamToken st = body_token(k);
        st.tok = Make(std::move(s), TokenKind::kString, at);
        st.source = nullptr;
        piece.push_back(st);
      } else if (p >= 0) {
        bool raw = paste_next || (k + 1 < m.body_end && t[k + 1].Is("##"));
        if (raw) {
          piece = arg(p);
        } else {
          const auto& a = arg(p);
          Expand(a, 0, a.size(), disabled, &piece);
        }
      } else {
        piece.push_back(body_token(k));
      }
      Charge(piece.size());
      if (paste_next && !out.empty() && !piece.empty()) {
        StreamToken left = out.back();
        out.pop_back();
        std::string joined = std::string(left.text()) + std::string(piece.front().text());
        StreamToken st = left;
        TokenKind kind = KindOf(joined);
        st.tok = Make(std::move(joined), kind, at);
        st.source = nullptr;
        out.push_back(st);
        out.insert(out.end(), piece.begin() + 1, piece.end());
      } else {
        out.insert(out.end(), piece.begin(), piece.end());
      }
      paste_next = false;
    }
    return out;
  }

  void MatchBrackets() {
    auto& toks = s_.toks_;
    s_.match_.assign(toks.size(), toks.size());
    std::vector<size_t> stack;
    auto closer_of = [](std::string_view o) { return o == "(" ? ")" : o == "[" ? "]" : "}"; };
    for (size_t i = 0; i < toks.size(); ++i) {
      if (toks[i].tok->kind != TokenKind::kPunct) continue;
      std::string_view x = toks[i].text();
      if (x == "(" || x == "[" || x == "{") {
        stack.push_back(i);
      } else if (x == ")" || x == "]" || x == "}") {
        // Find the nearest opener of this kind; openers above it stay unmatched.
        long k = static_cast<long>(stack.size()) - 1;
        while (k >= 0 && closer_of(toks[stack[static_cast<size_t>(k)]].text()) != x) --k;
        if (k < 0) continue;
        size_t o = stack[static_cast<size_t>(k)];
        s_.match_[o] = i;
        s_.match_[i] = o;
        stack.resize(static_cast<size_t>(k));
      }
    }
  }

  TokenStream& s_;
  const MacroTable& macros_;
  TokenStream::IncludeResolver resolve_;
  const void* ctx_;
  size_t* shared_budget_;
  size_t budget_ = 0;
};

std::unique_ptr<TokenStream> TokenStream::ForFile(const SourceFile& file, const MacroTable& macros,
                                                  IncludeResolver resolve, const void* resolve_ctx,
                                                  size_t* expansion_budget) {
  auto s = std::make_unique<TokenStream>();
  s->file_ = &file;
  StreamBuilder(*s, macros, resolve, resolve_ctx, expansion_budget).Build(file);
  return s;
}

size_t TokenStream::MatchAngle(size_t lt) const {
  int depth = 0;
  for (size_t i = lt; i < toks_.size(); ++i) {
    std::string_view x = toks_[i].text();
    if (x == "<") {
      ++depth;
    } else if (x == ">") {
      if (--depth == 0) return i;
    } else if (x == "(" || x == "[") {
      size_t m = Match(i);
      if (m >= toks_.size()) return toks_.size();
      i = m;
    } else if (x == ";" || x == "{" || x == "}" || x == ")" || x == "]" || x == "&&" || x == "||") {
      return toks_.size();
    }
  }
  return toks_.size();
}

std::string TokenStream::Join(size_t b, size_t e) const {
  std::string out;
  for (size_t i = b; i < e && i < toks_.size(); ++i) {
    if (i > b) {
      const StreamToken& p = toks_[i - 1];
      const StreamToken& c = toks_[i];
      bool gap = p.source && p.source == c.source && c.tok->offset > p.tok->end_offset();
      if (gap || (AlnumEnd(p.text(), true) && AlnumEnd(c.text(), false))) out += ' ';
    }
    out += toks_[i].text();
  }
  return out;
}

}  // namespace optrace::source::index
