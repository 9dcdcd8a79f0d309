#include "source/lexer/lexer.h"

#include <fmt/format.h>

#include <cctype>

namespace optrace::source {
namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string StripSpaces(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

// One #if/#ifdef/#ifndef level.
struct Frame {
  bool parent_active = true;
  bool branch_active = true;
  bool known_taken = false;   // some branch so far is known to be compiled
  bool profiling_guard = false;  // the current branch is the "profiling on" side of a guard
  bool guard_frame = false;      // this conditional tests ENABLE_MOE_PROFILING
  bool seen_else = false;
  int line = 0, column = 0;
  int guard_index = -1;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text), n_(text.size()) {
    out_.text = text;
    out_.tokens.reserve(n_ / 4 + 16);  // real code: about one token per 4-5 bytes
  }

  LexedFile Run() {
    // A UTF-8 byte order mark opens many Windows-edited headers; it is not part of line 1.
    if (s_.starts_with("\xEF\xBB\xBF")) pos_ = line_start_ = 3;
    while (pos_ < n_) Step();
    if (in_directive_) FinishDirective();
    for (const Frame& f : frames_) {
      out_.issues.push_back({LexIssue::Kind::kUnclosedIf, f.line, f.column,
                             "#if opened here is never closed by #endif"});
    }
    out_.line_count = line_;
    return std::move(out_);
  }

 private:
  int Column(size_t pos) const { return static_cast<int>(pos - line_start_) + 1; }

  void NewLine(size_t newline_pos) {
    ++line_;
    line_start_ = newline_pos + 1;
  }

  // Skips a backslash-newline at pos_ if there is one. Spaces or tabs between the backslash and
  // the newline still continue the line: GCC and clang both splice it (with a warning), and
  // shipping kernels have such macros (ops-transformer allto_all_all_gather_batch_mat_mul).
  bool SkipContinuation() {
    if (s_[pos_] != '\\') return false;
    size_t p = pos_ + 1;
    while (p < n_ && (s_[p] == ' ' || s_[p] == '\t')) ++p;
    if (p < n_ && s_[p] == '\r') ++p;
    if (p < n_ && s_[p] == '\n') {
      NewLine(p);
      pos_ = p + 1;
      return true;
    }
    return false;
  }

  bool Active() const { return frames_.empty() || frames_.back().branch_active; }
  bool InGuard() const { return in_guard_; }
  void UpdateGuard() {
    in_guard_ = false;
    for (const Frame& f : frames_) in_guard_ = in_guard_ || f.profiling_guard;
  }

  void Step() {
    char c = s_[pos_];
    if (c == '\n') {
      NewLine(pos_);
      ++pos_;
      if (in_directive_) FinishDirective();
      at_line_start_ = true;
      return;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++pos_;
      return;
    }
    if (c == '\\' && SkipContinuation()) return;
    if (c == '/' && pos_ + 1 < n_ && s_[pos_ + 1] == '/') return LineComment();
    if (c == '/' && pos_ + 1 < n_ && s_[pos_ + 1] == '*') return BlockComment();
    if (c == '#' && at_line_start_ && !in_directive_) return StartDirective();
    at_line_start_ = false;
    size_t start = pos_;
    int line = line_, column = Column(pos_);
    TokenKind kind = TokenKind::kPunct;
    if (IsIdentStart(c)) {
      while (pos_ < n_ && IsIdentChar(s_[pos_])) ++pos_;
      std::string_view id = s_.substr(start, pos_ - start);
      if (pos_ < n_ && s_[pos_] == '"' && (id == "R" || id == "u8R" || id == "uR" || id == "UR" || id == "LR")) {
        RawString();
        kind = TokenKind::kString;
      } else if (pos_ < n_ && (s_[pos_] == '"' || s_[pos_] == '\'') &&
                 (id == "u8" || id == "u" || id == "U" || id == "L")) {
        kind = s_[pos_] == '"' ? TokenKind::kString : TokenKind::kChar;
        Quoted(s_[pos_]);
      } else {
        kind = TokenKind::kIdentifier;
      }
    } else if (IsDigit(c) || (c == '.' && pos_ + 1 < n_ && IsDigit(s_[pos_ + 1]))) {
      Number();
      kind = TokenKind::kNumber;
    } else if (c == '"') {
      Quoted('"');
      kind = TokenKind::kString;
    } else if (c == '\'') {
      Quoted('\'');
      kind = TokenKind::kChar;
    } else {
      Punct();
    }
    Emit(kind, start, line, column);
  }

  void Emit(TokenKind kind, size_t start, int line, int column) {
    Token t;
    t.kind = kind;
    t.text = s_.substr(start, pos_ - start);
    t.offset = static_cast<uint32_t>(start);
    t.line = line;
    t.column = column;
    t.active = Active();
    t.in_profiling_guard = InGuard();
    if (in_directive_) {
      if (directive_.kind != DirectiveKind::kDefine) {
        directive_tokens_.push_back(t);
        return;
      }
      t.in_directive = true;
    } else if (t.active && kind == TokenKind::kPunct) {
      if (t.text == "{") ++brace_depth_;
      if (t.text == "}") --brace_depth_;
    }
    out_.tokens.push_back(t);
  }

  void LineComment() {
    size_t start = pos_;
    int line = line_, column = Column(pos_);
    while (pos_ < n_ && s_[pos_] != '\n') {
      if (s_[pos_] == '\\' && SkipContinuation()) continue;
      ++pos_;
    }
    out_.comments.push_back({s_.substr(start, pos_ - start), static_cast<uint32_t>(start), line, column, Active()});
  }

  void BlockComment() {
    size_t start = pos_;
    int line = line_, column = Column(pos_);
    pos_ += 2;
    bool closed = false;
    while (pos_ < n_) {
      if (s_[pos_] == '*' && pos_ + 1 < n_ && s_[pos_ + 1] == '/') {
        pos_ += 2;
        closed = true;
        break;
      }
      if (s_[pos_] == '\n') NewLine(pos_);
      ++pos_;
    }
    if (!closed) {
      out_.issues.push_back({LexIssue::Kind::kUnterminatedComment, line, column, "/* comment is never closed"});
    }
    out_.comments.push_back({s_.substr(start, pos_ - start), static_cast<uint32_t>(start), line, column, Active()});
  }

  void Quoted(char quote) {
    int line = line_, column = Column(pos_);
    ++pos_;  // opening quote
    while (pos_ < n_) {
      char c = s_[pos_];
      if (c == '\\') {
        if (SkipContinuation()) continue;
        pos_ += 2;
        continue;
      }
      if (c == quote) {
        ++pos_;
        return;
      }
      if (c == '\n') break;
      ++pos_;
    }
    if (pos_ > n_) pos_ = n_;
    // In a directive line (`#include <x>"`, a #define body) or a skipped region, compilers only
    // warn about a lone quote: not a certain error.
    if (in_directive_ || !Active()) return;
    out_.issues.push_back({LexIssue::Kind::kUnterminatedString, line, column,
                           quote == '"' ? "string literal is not closed on its line"
                                        : "character literal is not closed on its line"});
  }

  void RawString() {
    int line = line_, column = Column(pos_);
    ++pos_;  // the quote
    size_t d = pos_;
    while (pos_ < n_ && s_[pos_] != '(' && s_[pos_] != '\n' && pos_ - d <= 16) ++pos_;
    if (pos_ >= n_ || s_[pos_] != '(') {
      out_.issues.push_back({LexIssue::Kind::kUnterminatedString, line, column, "raw string has no '(' delimiter"});
      return;
    }
    std::string close = ")" + std::string(s_.substr(d, pos_ - d)) + "\"";
    size_t end = s_.find(close, pos_);
    size_t stop = end == std::string_view::npos ? n_ : end + close.size();
    for (size_t p = pos_; p < stop; ++p)
      if (s_[p] == '\n') NewLine(p);
    if (end == std::string_view::npos) {
      out_.issues.push_back({LexIssue::Kind::kUnterminatedString, line, column,
                             fmt::format("raw string is never closed by '{}'", close)});
    }
    pos_ = stop;
  }

  void Number() {
    while (pos_ < n_) {
      char c = s_[pos_];
      if ((c == '+' || c == '-') && pos_ > 0) {
        char p = s_[pos_ - 1];
        if (p == 'e' || p == 'E' || p == 'p' || p == 'P') {
          ++pos_;
          continue;
        }
        break;
      }
      if (IsIdentChar(c) || c == '.' || (c == '\'' && pos_ + 1 < n_ && IsIdentChar(s_[pos_ + 1]))) {
        ++pos_;
        continue;
      }
      break;
    }
  }

  void Punct() {
    static constexpr std::string_view kThree[] = {"<<=", "...", "->*", "<=>"};
    static constexpr std::string_view kTwo[] = {"::", "->", "++", "--", "<<", "<=", ">=", "==", "!=", "&&", "||",
                                                "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##", ".*"};
    std::string_view rest = s_.substr(pos_, 3);
    for (std::string_view p : kThree)
      if (rest == p) {
        pos_ += 3;
        return;
      }
    rest = s_.substr(pos_, 2);
    for (std::string_view p : kTwo)
      if (rest == p) {
        pos_ += 2;
        return;
      }
    ++pos_;  // '>' stays single so that A<B<C>> closes two templates
  }

  void StartDirective() {
    directive_ = Directive();
    directive_.offset = static_cast<uint32_t>(pos_);
    directive_.line = line_;
    directive_.column = Column(pos_);
    directive_.active = Active();
    directive_.brace_depth = brace_depth_;
    ++pos_;
    while (pos_ < n_ && (s_[pos_] == ' ' || s_[pos_] == '\t' || (s_[pos_] == '\\' && SkipContinuation()))) {
      if (s_[pos_] == ' ' || s_[pos_] == '\t') ++pos_;
    }
    size_t name_start = pos_;
    while (pos_ < n_ && IsIdentChar(s_[pos_])) ++pos_;
    directive_.name = std::string(s_.substr(name_start, pos_ - name_start));
    const std::string& name = directive_.name;
    directive_.kind = name == "include" || name == "include_next" ? DirectiveKind::kInclude
                      : name == "if"                               ? DirectiveKind::kIf
                      : name == "ifdef"                            ? DirectiveKind::kIfdef
                      : name == "ifndef"                           ? DirectiveKind::kIfndef
                      : name == "elif"                             ? DirectiveKind::kElif
                      : name == "else"                             ? DirectiveKind::kElse
                      : name == "endif"                            ? DirectiveKind::kEndif
                      : name == "define"                           ? DirectiveKind::kDefine
                      : name == "undef"                            ? DirectiveKind::kUndef
                                                                   : DirectiveKind::kOther;
    in_directive_ = true;
    at_line_start_ = false;
    directive_tokens_.clear();
    define_first_token_ = out_.tokens.size();
  }

  void FinishDirective() {
    in_directive_ = false;
    Directive& d = directive_;
    // Rebuild the argument from tokens: comments vanish, continuations join.
    const Token* first = nullptr;
    std::vector<Token> define_tokens;
    const std::vector<Token>* toks = &directive_tokens_;
    if (d.kind == DirectiveKind::kDefine) {
      define_tokens.assign(out_.tokens.begin() + static_cast<long>(define_first_token_), out_.tokens.end());
      toks = &define_tokens;
      d.token_begin = define_first_token_;
      d.token_end = out_.tokens.size();
    }
    uint32_t prev_end = 0;
    for (const Token& t : *toks) {
      if (first == nullptr) {
        first = &t;
      } else if (t.offset > prev_end) {
        d.argument += ' ';
      }
      d.argument += t.text;
      prev_end = t.end_offset();
    }
    if (d.kind == DirectiveKind::kInclude && first != nullptr) {
      if (first->kind == TokenKind::kString) {
        std::string v;
        if (StringLiteralValue(*first, &v)) d.include_path = v;
      } else if (first->Is("<")) {
        size_t close = s_.find('>', first->offset);
        size_t eol = s_.find('\n', first->offset);
        if (close != std::string_view::npos && close < eol) {
          d.include_path = std::string(s_.substr(first->offset + 1, close - first->offset - 1));
          d.include_angled = true;
        }
      }
    }
    ApplyConditional(d);
    UpdateGuard();  // once per directive, not per token: include guards nest deep in big files
    out_.directives.push_back(std::move(d));
  }

  void ApplyConditional(Directive& d) {
    bool guard = false;
    switch (d.kind) {
      case DirectiveKind::kIf:
      case DirectiveKind::kIfdef:
      case DirectiveKind::kIfndef: {
        std::string cond = d.kind == DirectiveKind::kIf      ? d.argument
                           : d.kind == DirectiveKind::kIfdef ? "defined(" + d.argument + ")"
                                                             : "!defined(" + d.argument + ")";
        Condition c = EvaluateCondition(cond, &guard);
        Frame f;
        f.parent_active = Active();
        f.branch_active = f.parent_active && c != Condition::kFalse;
        f.known_taken = c == Condition::kTrue;
        f.guard_frame = guard;
        f.profiling_guard = guard && c == Condition::kTrue;
        f.line = d.line;
        f.column = d.column;
        if (f.profiling_guard && d.active) {
          f.guard_index = static_cast<int>(out_.guards.size());
          out_.guards.push_back({d.line, d.column, d.brace_depth, 0, 0, 0});
        }
        d.branch_active = f.branch_active;
        frames_.push_back(f);
        break;
      }
      case DirectiveKind::kElif:
      case DirectiveKind::kElse: {
        if (frames_.empty()) {
          out_.issues.push_back({LexIssue::Kind::kUnmatchedElse, d.line, d.column,
                                 fmt::format("#{} without a matching #if", d.name)});
          break;
        }
        Frame& f = frames_.back();
        if (f.seen_else) {
          out_.issues.push_back({LexIssue::Kind::kElseAfterElse, d.line, d.column,
                                 fmt::format("#{} after #else (the #if is at line {})", d.name, f.line)});
        }
        CloseGuard(f, d);
        if (d.kind == DirectiveKind::kElse) {
          f.seen_else = true;
          f.branch_active = f.parent_active && !f.known_taken;
          f.known_taken = true;
          f.profiling_guard = false;
        } else {
          Condition c = f.known_taken ? Condition::kFalse : EvaluateCondition(d.argument, &guard);
          f.branch_active = f.parent_active && c != Condition::kFalse;
          f.known_taken = f.known_taken || c == Condition::kTrue;
          f.profiling_guard = guard && c == Condition::kTrue;
        }
        d.branch_active = f.branch_active;
        break;
      }
      case DirectiveKind::kEndif:
        if (frames_.empty()) {
          out_.issues.push_back({LexIssue::Kind::kUnmatchedEndif, d.line, d.column, "#endif without a matching #if"});
          break;
        }
        CloseGuard(frames_.back(), d);
        frames_.pop_back();
        break;
      default:
        break;
    }
  }

  void CloseGuard(Frame& f, const Directive& d) {
    if (f.guard_index < 0) return;
    GuardRegion& g = out_.guards[static_cast<size_t>(f.guard_index)];
    g.close_line = d.line;
    g.close_column = d.column;
    g.close_depth = d.brace_depth;
    f.guard_index = -1;
  }

  std::string_view s_;
  size_t n_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
  bool at_line_start_ = true;
  bool in_directive_ = false;
  int brace_depth_ = 0;
  Directive directive_;
  std::vector<Token> directive_tokens_;
  size_t define_first_token_ = 0;
  std::vector<Frame> frames_;
  bool in_guard_ = false;
  LexedFile out_;
};

}  // namespace

Condition EvaluateCondition(std::string_view condition, bool* is_profiling_guard) {
  *is_profiling_guard = false;
  std::string c = StripSpaces(condition);
  bool negate = false;
  while (!c.empty()) {
    if (c.size() >= 2 && c.front() == '(' && c.back() == ')' && c.find(')') == c.size() - 1) {
      c = c.substr(1, c.size() - 2);
    } else if (c.front() == '!' && (c.size() < 2 || c[1] != '=')) {
      negate = !negate;
      c.erase(0, 1);
    } else {
      break;
    }
  }
  Condition v = Condition::kUnknown;
  if (c == "0" || c == "false" || c.rfind("0&&", 0) == 0) {
    v = Condition::kFalse;
  } else if (c == "1" || c == "true" || c.rfind("1||", 0) == 0) {
    v = Condition::kTrue;
  } else {
    static constexpr std::string_view kMacro = "ENABLE_MOE_PROFILING";
    if (c == kMacro || c == "defined(ENABLE_MOE_PROFILING)" || c == "definedENABLE_MOE_PROFILING" ||
        c == "ENABLE_MOE_PROFILING==1" || c == "ENABLE_MOE_PROFILING!=0" || c == "ENABLE_MOE_PROFILING>0" ||
        c == "defined(ENABLE_MOE_PROFILING)&&ENABLE_MOE_PROFILING") {
      v = Condition::kTrue;
      *is_profiling_guard = true;
    } else if (c == "ENABLE_MOE_PROFILING==0") {
      v = Condition::kFalse;
      *is_profiling_guard = true;
    }
  }
  if (negate && v != Condition::kUnknown) v = v == Condition::kTrue ? Condition::kFalse : Condition::kTrue;
  return v;
}

bool StringLiteralValue(const Token& token, std::string* value) {
  if (token.kind != TokenKind::kString) return false;
  std::string_view t = token.text;
  size_t q = t.find('"');
  if (q == std::string_view::npos || t.size() < q + 2 || t.back() != '"') return false;
  std::string_view prefix = t.substr(0, q);
  value->clear();
  if (!prefix.empty() && prefix.back() == 'R') {
    size_t open = t.find('(', q);
    size_t close = t.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open) return false;
    *value = std::string(t.substr(open + 1, close - open - 1));
    return true;
  }
  std::string_view body = t.substr(q + 1, t.size() - q - 2);
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 >= body.size()) {
      *value += c;
      continue;
    }
    char e = body[++i];
    switch (e) {
      case 'n': *value += '\n'; break;
      case 't': *value += '\t'; break;
      case '\n': break;  // continuation inside a literal
      default: *value += e; break;
    }
  }
  return true;
}

LexedFile Lex(std::string_view text) { return Lexer(text).Run(); }

}  // namespace optrace::source
