#include "source/lexer/code_structure.h"

#include <algorithm>
#include <string_view>

namespace optrace::source {
namespace {

bool IsOneOf(std::string_view s, std::initializer_list<std::string_view> list) {
  for (std::string_view x : list)
    if (s == x) return true;
  return false;
}

// Tokens of the later branches of an #if / #elif / #else chain whose conditions are unknown (every
// branch active) and whose branches each leave the same unbalanced brace count:
//   #if __CCE_AICORE__ >= 220
//       if (bf16 || half) {
//   #else
//       if (half) {
//   #endif
// are alternatives of one another. Counting both would open two blocks for one `}`, and the
// function would run on to the end of the file; the first branch stands for them.
std::vector<bool> AlternativeBranchTokens(const LexedFile& f) {
  const auto& t = f.tokens;
  std::vector<bool> skip(t.size(), false);
  struct Chain {
    std::vector<uint32_t> starts;  // offset of each branch's directive
    bool all_active = true;
  };
  std::vector<Chain> open;
  std::vector<int> braces(t.size() + 1, 0);  // net '{' of the code tokens before each token
  for (size_t i = 0; i < t.size(); ++i)
    braces[i + 1] = braces[i] + (t[i].active && !t[i].in_directive ? (t[i].Is("{") ? 1 : t[i].Is("}") ? -1 : 0) : 0);
  auto index_at = [&](uint32_t offset) {
    return static_cast<size_t>(
        std::lower_bound(t.begin(), t.end(), offset, [](const Token& x, uint32_t o) { return x.offset < o; }) -
        t.begin());
  };
  auto delta = [&](uint32_t from, uint32_t to) { return braces[index_at(to)] - braces[index_at(from)]; };
  for (const Directive& d : f.directives) {
    if (!d.active) continue;
    switch (d.kind) {
      case DirectiveKind::kIf:
      case DirectiveKind::kIfdef:
      case DirectiveKind::kIfndef:
        open.push_back({{d.offset}, d.branch_active});
        break;
      case DirectiveKind::kElif:
      case DirectiveKind::kElse:
        if (open.empty()) break;
        open.back().starts.push_back(d.offset);
        open.back().all_active = open.back().all_active && d.branch_active;
        break;
      case DirectiveKind::kEndif: {
        if (open.empty()) break;
        Chain c = std::move(open.back());
        open.pop_back();
        if (c.starts.size() < 2 || !c.all_active) break;
        c.starts.push_back(d.offset);
        int first = delta(c.starts[0], c.starts[1]);
        bool same = first != 0;
        for (size_t b = 1; same && b + 1 < c.starts.size(); ++b) same = delta(c.starts[b], c.starts[b + 1]) == first;
        if (!same) break;
        for (size_t i = index_at(c.starts[1]); i < index_at(c.starts.back()); ++i) skip[i] = true;
        break;
      }
      default:
        break;
    }
  }
  return skip;
}

class Analyzer {
 public:
  explicit Analyzer(const LexedFile& f) : t_(f.tokens), alternative_(AlternativeBranchTokens(f)) {}

  CodeStructure Run() {
    for (size_t i = 0; i < t_.size(); ++i)
      if (t_[i].active && !t_[i].in_directive && !alternative_[i]) cs_.code.push_back(i);
    MatchBrackets();
    cs_.block_of.assign(t_.size(), -1);
    std::vector<int> open;  // stack of block indices
    for (size_t ci = 0; ci < cs_.code.size(); ++ci) {
      const Token& tok = T(ci);
      size_t ti = cs_.code[ci];
      if (tok.Is("{")) {
        Block b = Classify(ci, open);
        b.open = ti;
        b.close = t_.size();
        b.parent = open.empty() ? -1 : open.back();
        // Kept per block so EnclosingFunction is O(1): walking parents is O(depth) per token.
        if (b.kind == BlockKind::kFunction || b.kind == BlockKind::kLambda)
          b.function = static_cast<int>(cs_.blocks.size());
        else
          b.function = b.parent < 0 ? -1 : cs_.blocks[static_cast<size_t>(b.parent)].function;
        if (b.line == 0) {
          b.line = tok.line;
          b.column = tok.column;
        }
        cs_.blocks.push_back(std::move(b));
        open.push_back(static_cast<int>(cs_.blocks.size() - 1));
        cs_.block_of[ti] = open.back();
        continue;
      }
      cs_.block_of[ti] = open.empty() ? -1 : open.back();
      if (tok.Is("}") && !open.empty()) {
        cs_.blocks[static_cast<size_t>(open.back())].close = ti;
        last_closed_ = open.back();
        last_closed_ci_ = ci;
        open.pop_back();
      }
    }
    // Tokens outside `code` (inactive, #define bodies) belong to the block around them.
    int cur = -1;
    for (size_t i = 0; i < t_.size(); ++i) {
      if (t_[i].active && !t_[i].in_directive && !alternative_[i]) {
        cur = cs_.block_of[i];
        if (t_[i].Is("}") && cur >= 0) cur = cs_.blocks[static_cast<size_t>(cur)].parent;
      } else {
        cs_.block_of[i] = cur;
      }
    }
    return std::move(cs_);
  }

 private:
  const Token& T(size_t ci) const { return t_[cs_.code[ci]]; }
  bool At(long ci, std::string_view s) const { return ci >= 0 && T(static_cast<size_t>(ci)).Is(s); }

  void MatchBrackets() {
    match_.assign(cs_.code.size(), -1);
    std::vector<size_t> stack;
    for (size_t ci = 0; ci < cs_.code.size(); ++ci) {
      std::string_view x = T(ci).text;
      if (T(ci).kind != TokenKind::kPunct) continue;
      if (x == "(" || x == "[" || x == "{") {
        stack.push_back(ci);
      } else if (x == ")" || x == "]" || x == "}") {
        if (stack.empty()) continue;
        match_[ci] = static_cast<long>(stack.back());
        match_[stack.back()] = static_cast<long>(ci);
        stack.pop_back();
      }
    }
  }

  // The '<' matching the '>' at ci, going back; -1 if none before ; { }.
  long TemplateOpen(long ci) const {
    int depth = 0;
    for (long i = ci; i >= 0; --i) {
      const Token& x = T(static_cast<size_t>(i));
      if (x.Is(">")) ++depth;
      if (x.Is("<") && --depth == 0) return i;
      if (x.Is(";") || x.Is("{") || x.Is("}")) return -1;
      if ((x.Is(")") || x.Is("]")) && match_[static_cast<size_t>(i)] >= 0) i = match_[static_cast<size_t>(i)];
    }
    return -1;
  }

  bool InsideFunction(const std::vector<int>& open) const {
    for (int b : open) {
      BlockKind k = cs_.blocks[static_cast<size_t>(b)].kind;
      if (k == BlockKind::kFunction || k == BlockKind::kLambda) return true;
    }
    return false;
  }

  void SetNameLocation(Block& b, long ci) const {
    const Token& x = T(static_cast<size_t>(ci));
    b.line = x.line;
    b.column = x.column;
  }

  Block Classify(size_t brace_ci, const std::vector<int>& open) {
    Block b;
    long p = static_cast<long>(brace_ci) - 1;
    while (p >= 0 && IsOneOf(T(static_cast<size_t>(p)).text,
                             {"const", "override", "final", "noexcept", "mutable", "volatile", "&", "&&"})) {
      --p;
    }
    // Trailing return type: `) -> T {`.
    for (long q = p; q >= 0 && q > p - 8; --q) {
      if (At(q, "->") && At(q - 1, ")")) {
        p = q - 1;
        break;
      }
      if (At(q, ";") || At(q, "{") || At(q, "}") || At(q, ")")) break;
    }
    if (p < 0) return b;
    const Token& prev = T(static_cast<size_t>(p));
    if (prev.Is(")") && match_[static_cast<size_t>(p)] >= 0) {
      long o = match_[static_cast<size_t>(p)];
      // noexcept(...) / throw(...) after the parameters.
      if (At(o - 1, "noexcept") || At(o - 1, "throw")) {
        long q = o - 2;
        if (At(q, ")") && match_[static_cast<size_t>(q)] >= 0) {
          p = q;
          o = match_[static_cast<size_t>(q)];
        }
      }
      long q = o - 1;
      std::string_view kw = q >= 0 ? T(static_cast<size_t>(q)).text : std::string_view();
      if (kw == "constexpr" && At(q - 1, "if")) {
        kw = "if";
        --q;
      }
      b.head_begin = cs_.code[static_cast<size_t>(o)] + 1;
      b.head_end = cs_.code[static_cast<size_t>(p)];
      if (IsOneOf(kw, {"if", "for", "while", "switch", "catch"})) {
        b.kind = BlockKind::kControl;
        b.name = std::string(kw);
        SetNameLocation(b, q);
        return b;
      }
      if (kw == "]") {
        b.kind = BlockKind::kLambda;
        b.name = "lambda";
        return b;
      }
      if (q < 0 || !(T(static_cast<size_t>(q)).kind == TokenKind::kIdentifier || kw == ">" || kw == ")")) {
        return b;
      }
      if (InsideFunction(open)) {
        b.kind = BlockKind::kControl;  // a macro used as a statement head, e.g. FOR_EACH(x) {
        b.name = std::string(kw);
        SetNameLocation(b, q);
        return b;
      }
      // Constructor initializer list: `Foo(...) : a_(x), b_{y} {` -> walk back to Foo's parameters.
      long n = q;
      while (n >= 1 && (At(n - 1, ",") || At(n - 1, ":")) && T(static_cast<size_t>(n)).kind == TokenKind::kIdentifier) {
        long r = n - 2;
        if (r < 0 || !(At(r, ")") || At(r, "}")) || match_[static_cast<size_t>(r)] < 0) break;
        long o2 = match_[static_cast<size_t>(r)];
        b.head_begin = cs_.code[static_cast<size_t>(o2)] + 1;
        b.head_end = cs_.code[static_cast<size_t>(r)];
        n = o2 - 1;
        if (n < 0) return b;
      }
      b.kind = BlockKind::kFunction;
      if (At(n, ">")) {
        long lt = TemplateOpen(n);
        if (lt > 0) {
          b.template_args = JoinTokens(t_, cs_.code[static_cast<size_t>(lt)] + 1, cs_.code[static_cast<size_t>(n)]);
          n = lt - 1;
        }
      }
      if (At(n, ")") && At(n - 1, "(") && At(n - 2, "operator")) {
        b.name = "operator()";
        SetNameLocation(b, n - 2);
      } else if (n >= 0) {
        b.name = std::string(T(static_cast<size_t>(n)).text);
        if (At(n - 1, "operator")) b.name = "operator" + b.name;
        SetNameLocation(b, n);
      }
      return b;
    }
    if (prev.Is("else")) {
      b.kind = BlockKind::kControl;
      b.name = "else";
      SetNameLocation(b, p);
      if (At(p - 1, "}") && last_closed_ci_ == static_cast<size_t>(p - 1)) b.else_of = last_closed_;
      return b;
    }
    if (prev.Is("do") || prev.Is("try")) {
      b.kind = BlockKind::kControl;
      b.name = std::string(prev.text);
      SetNameLocation(b, p);
      return b;
    }
    if ((prev.Is("ASCEND_IS_AIV") || prev.Is("ASCEND_IS_AIC")) && At(p - 1, "if")) {
      b.kind = BlockKind::kControl;
      b.name = "if";
      b.head_begin = cs_.code[static_cast<size_t>(p)];
      b.head_end = b.head_begin + 1;
      SetNameLocation(b, p - 1);
      return b;
    }
    // class / struct / union / enum / namespace heads.
    for (long q = p; q >= 0; --q) {
      const Token& x = T(static_cast<size_t>(q));
      if (x.Is(";") || x.Is("{") || x.Is("}") || x.Is(")")) break;
      if (IsOneOf(x.text, {"class", "struct", "union", "enum", "namespace"})) {
        b.kind = BlockKind::kScope;
        b.name = q + 1 <= p ? std::string(T(static_cast<size_t>(q + 1)).text) : std::string(x.text);
        SetNameLocation(b, q);
        return b;
      }
    }
    return b;
  }

  const std::vector<Token>& t_;
  const std::vector<bool> alternative_;  // tokens of later #if alternatives: not code for the structure
  CodeStructure cs_;
  std::vector<long> match_;
  int last_closed_ = -1;
  size_t last_closed_ci_ = static_cast<size_t>(-1);
};

}  // namespace

int CodeStructure::EnclosingFunction(size_t token) const {
  int b = InnermostBlock(token);
  return b < 0 ? -1 : blocks[static_cast<size_t>(b)].function;
}

bool CodeStructure::Within(int inner, int outer) const {
  for (int b = inner; b >= 0; b = blocks[static_cast<size_t>(b)].parent)
    if (b == outer) return true;
  return outer < 0;
}

CodeStructure AnalyzeStructure(const LexedFile& file) { return Analyzer(file).Run(); }

std::string JoinTokens(const std::vector<Token>& tokens, size_t begin, size_t end) {
  std::string out;
  for (size_t i = begin; i < end && i < tokens.size(); ++i) {
    if (!out.empty() && i > begin && tokens[i].offset > tokens[i - 1].end_offset()) out += ' ';
    out += tokens[i].text;
  }
  return out;
}

}  // namespace optrace::source
