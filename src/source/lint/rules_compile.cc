// Compile-safety rules (the seed's check_compile_safety): trace-syntax, event-type,
// brace-balance, pp-balance, literal-closed, guard-closed, header-reachable, index-scope.
#include <fmt/format.h>

#include <optional>
#include <set>
#include <unordered_set>

#include "optrace/point_id.h"
#include "source/lexer/trace_define.h"
#include "source/lexer/trace_header.h"
#include "source/lint/lint_context.h"

namespace optrace::source {
namespace {

constexpr unsigned long long kSafeStackSlotWords = 2048;  // optrace/config.h kSafeStackSlotWords

void CheckTraceSyntax(LintContext& ctx, const SourceFile* f) {
  for (const TraceSyntaxIssue& i : f->traces.issues)
    ctx.Report(f, i.line, i.column, i.event_type ? "event-type" : "trace-syntax", i.message);
  for (const TraceSite& s : f->traces.sites) {
    if (!s.rewritten || (s.event_type != 'B' && s.event_type != 'E')) continue;
    // The --modify form: the integer must still be the id its comment names.
    uint32_t id = PointId(LabelId(s.label.data(), static_cast<uint32_t>(s.label.size())), s.event_type == 'E');
    if (s.literal_id != id) {
      ctx.Report(f, s.line, s.column, "trace-syntax",
                 fmt::format("integer {:#x} does not match its comment TRACE_POINT(\"{}\", \"{}\") (id {:#x}); "
                             "restore the TRACE_POINT or rerun 'optrace scan --modify'",
                             s.literal_id, s.label, s.event_type, id));
    }
  }
  // A loop pragma applies to the statement after it, which must be the loop: a mark between
  // `#pragma unroll` and its `for` does not compile with clang (bisheng) and unrolls nothing
  // elsewhere.
  for (const Directive& d : f->lex.directives) {
    if (!d.active || d.name != "pragma") continue;
    const std::string& a = d.argument;
    bool loop_pragma = a.rfind("unroll", 0) == 0 || a.rfind("nounroll", 0) == 0 || a.rfind("clang loop", 0) == 0 ||
                       a.rfind("GCC unroll", 0) == 0 || a.rfind("GCC ivdep", 0) == 0;
    if (!loop_pragma) continue;
    for (const TraceSite& s : f->traces.sites)
      if (!s.in_define && s.line == d.line + 1)
        ctx.Report(f, s.line, s.column, "trace-syntax",
                   fmt::format("a trace mark between `#pragma {}` (line {}) and the loop it applies to; move the mark "
                               "above the pragma",
                               a, d.line));
  }
}

void CheckBraces(LintContext& ctx, const SourceFile* f) {
  const auto& t = f->lex.tokens;
  struct OpenBracket {
    size_t token;
  };
  std::vector<OpenBracket> stack;
  int reported = 0;
  constexpr int kMaxReports = 3;  // the first mismatch explains the rest
  // Arms of one #if / #elif / #else chain are alternatives: each starts from the brackets open at
  // the #if (`#ifdef X  if (a) {  #else  if (b) {  #endif` opens one block, not two), and after
  // #endif the first arm's state stands for all of them.
  struct Frame {
    std::vector<OpenBracket> at_if;
    bool arm_active = true;  // the arm being read (#if X unknown: active; #if 0: not)
    std::optional<std::vector<OpenBracket>> first_active_arm;  // the state after it
  };
  std::vector<Frame> frames;
  const auto& dirs = f->lex.directives;
  size_t d = 0;
  auto directives_before = [&](uint32_t offset) {
    for (; d < dirs.size() && dirs[d].offset < offset; ++d) {
      const Directive& dir = dirs[d];
      if (!dir.active) continue;
      switch (dir.kind) {
        case DirectiveKind::kIf:
        case DirectiveKind::kIfdef:
        case DirectiveKind::kIfndef:
          frames.push_back({stack, dir.branch_active, std::nullopt});
          break;
        case DirectiveKind::kElif:
        case DirectiveKind::kElse: {
          if (frames.empty()) break;
          Frame& fr = frames.back();
          if (fr.arm_active && !fr.first_active_arm) fr.first_active_arm = stack;
          stack = fr.at_if;
          fr.arm_active = dir.branch_active;
          break;
        }
        case DirectiveKind::kEndif: {
          if (frames.empty()) break;
          Frame& fr = frames.back();
          if (fr.arm_active && !fr.first_active_arm) fr.first_active_arm = stack;
          if (fr.first_active_arm) stack = *fr.first_active_arm;
          frames.pop_back();
          break;
        }
        default:
          break;
      }
    }
  };
  for (size_t i = 0; i < t.size() && reported < kMaxReports; ++i) {
    const Token& x = t[i];
    if (!x.active || x.in_directive || x.kind != TokenKind::kPunct) continue;
    directives_before(x.offset);
    if (x.Is("(") || x.Is("[") || x.Is("{")) {
      stack.push_back({i});
      continue;
    }
    if (!x.Is(")") && !x.Is("]") && !x.Is("}")) continue;
    char want = x.text[0] == ')' ? '(' : x.text[0] == ']' ? '[' : '{';
    if (stack.empty()) {
      ctx.Report(f, x.line, x.column, "brace-balance", fmt::format("'{}' has no opening '{}'", x.text, want));
      ++reported;
      continue;
    }
    const Token& o = t[stack.back().token];
    if (o.text[0] != want) {
      ctx.Report(f, o.line, o.column, "brace-balance",
                 fmt::format("'{}' opened here is closed by '{}' at line {}:{}", o.text, x.text, x.line, x.column));
      ++reported;
    }
    stack.pop_back();
  }
  for (size_t k = 0; k < stack.size() && reported < kMaxReports; ++k, ++reported) {
    const Token& o = t[stack[k].token];
    ctx.Report(f, o.line, o.column, "brace-balance", fmt::format("'{}' opened here is never closed", o.text));
  }
}

void CheckPreprocessor(LintContext& ctx, const SourceFile* f) {
  std::set<int> unclosed_guards;
  for (const GuardRegion& g : f->lex.guards) {
    if (g.close_line == 0) {
      unclosed_guards.insert(g.open_line);
      ctx.Report(f, g.open_line, g.open_column, "guard-closed",
                 "profiling guard #if ENABLE_MOE_PROFILING is never closed by #endif");
    } else if (g.close_depth != g.open_depth) {
      ctx.Report(f, g.close_line, g.close_column, "guard-closed",
                 fmt::format("profiling guard opened at line {} (brace depth {}) closes at brace depth {}; close it "
                             "in the block it was opened in",
                             g.open_line, g.open_depth, g.close_depth));
    }
  }
  for (const LexIssue& i : f->lex.issues) {
    switch (i.kind) {
      case LexIssue::Kind::kUnterminatedComment:
      case LexIssue::Kind::kUnterminatedString:
        ctx.Report(f, i.line, i.column, "literal-closed", i.message);
        break;
      case LexIssue::Kind::kUnclosedIf:
        if (unclosed_guards.count(i.line) == 0) ctx.Report(f, i.line, i.column, "pp-balance", i.message);
        break;
      default:
        ctx.Report(f, i.line, i.column, "pp-balance", i.message);
        break;
    }
  }
}

bool IncludesTraceHeader(const SourceFile* f) {
  for (const Directive& d : f->lex.directives) {
    if (d.kind != DirectiveKind::kInclude || !d.active) continue;
    const std::string& p = d.include_path;
    if (IsTraceHeaderInclude(p)) return true;
  }
  return false;
}

// The file reaches optrace's device API directly, or defines MoeTracing itself.
bool SeesMoeTracing(const SourceFile* f) { return IncludesTraceHeader(f) || DefinesMoeTracing(f->lex); }

class HeaderReach {
 public:
  explicit HeaderReach(LintContext& ctx) : ctx_(ctx) {
    opts_.include_dirs = ctx.include_dirs;
    opts_.limit = ctx.sources->root();
    opts_.by_name = true;  // as lint's own walk from the entry
  }

  // Does `f`, or a translation unit that includes it, see a definition of MoeTracing?
  bool Reaches(const SourceFile* f) {
    if (SeesDefinition(f)) return true;
    if (ctx_.tree && ctx_.tree->Contains(f) && TreeDefines(*ctx_.tree)) return true;
    for (const SourceFile* tu : ctx_.files) {
      bool is_tu = IsKernelSourceExtension(tu->path);
      if (!is_tu || tu == f) continue;
      const IncludeTree* tree = TreeOf(tu);
      if (tree && tree->Contains(f) && TreeDefines(*tree)) return true;
    }
    return false;
  }

 private:
  bool SeesDefinition(const SourceFile* f) {
    const IncludeTree* tree = TreeOf(f);
    return tree ? TreeDefines(*tree) : SeesMoeTracing(f);
  }
  bool TreeDefines(const IncludeTree& tree) {
    for (const SourceFile* x : tree.files)
      if (SeesMoeTracing(x)) return true;
    for (const IncludeEdge& e : tree.edges)
      if (IsTraceHeaderInclude(e.spelled)) return true;
    return false;
  }
  const IncludeTree* TreeOf(const SourceFile* f) {
    auto it = trees_.find(f);
    if (it != trees_.end()) return it->second ? &*it->second : nullptr;
    auto tree = WalkIncludeTree(*ctx_.sources, f->path, opts_);
    auto& slot = trees_[f];
    if (tree.ok()) slot = std::move(*tree);
    return slot ? &*slot : nullptr;
  }

  LintContext& ctx_;
  IncludeOptions opts_;
  std::map<const SourceFile*, std::optional<IncludeTree>> trees_;
};

bool IsKeywordLike(std::string_view s) {
  static const std::unordered_set<std::string_view> kWords = {
      "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "sizeof", "true", "false", "nullptr", "this",
      "int", "int32_t", "int64_t", "uint32_t", "uint64_t", "uint8_t", "uint16_t", "int8_t", "int16_t", "unsigned",
      "long", "short", "char", "bool", "float", "double", "size_t", "auto", "const", "constexpr", "decltype"};
  return kWords.count(s) != 0;
}

bool LooksLikeDeclaration(const std::vector<Token>& t, size_t k) {
  if (k == 0 || k + 1 >= t.size()) return false;
  const Token& prev = t[k - 1];
  const Token& next = t[k + 1];
  bool prev_ok = prev.kind == TokenKind::kIdentifier || prev.Is(">") || prev.Is("*") || prev.Is("&") ||
                 prev.Is("&&") || prev.Is(",");
  if (prev.Is("return") || prev.Is("case") || prev.Is("goto")) return false;
  bool next_ok = next.Is("=") || next.Is(";") || next.Is("{") || next.Is("(") || next.Is(",") || next.Is(":") ||
                 next.Is("[") || next.Is(")");
  return prev_ok && next_ok;
}

// `auto [a, b] = f();`, `const auto& [a, b] = f();`, `for (auto [a, b] : m)`: t[k] is one of the names.
bool InStructuredBinding(const std::vector<Token>& t, size_t k) {
  size_t open = k;
  while (open > 0 && (t[open].kind == TokenKind::kIdentifier || t[open].Is(","))) --open;
  if (!t[open].Is("[") || open == 0) return false;
  size_t before = open - 1;
  if ((t[before].Is("&") || t[before].Is("&&")) && before > 0) --before;
  if (!t[before].Is("auto")) return false;
  size_t close = k;
  while (close + 1 < t.size() && (t[close].kind == TokenKind::kIdentifier || t[close].Is(","))) ++close;
  return t[close].Is("]") && close + 1 < t.size() &&
         (t[close + 1].Is("=") || t[close + 1].Is(":") || t[close + 1].Is("{") || t[close + 1].Is("("));
}

class IndexScope {
 public:
  explicit IndexScope(LintContext& ctx) : ctx_(ctx) {
    std::vector<const SourceFile*> all = ctx.files;
    if (ctx.tree)
      for (const SourceFile* f : ctx.tree->files) all.push_back(f);
    // Names declared outside function bodies anywhere: members, globals, enumerators, macros.
    for (const SourceFile* f : all) {
      const CodeStructure& cs = ctx.Structure(f);
      for (size_t i : cs.code) {
        if (f->lex.tokens[i].kind == TokenKind::kIdentifier && cs.EnclosingFunction(i) < 0)
          file_scope_.insert(std::string(f->lex.tokens[i].text));
      }
      for (const Token& t : f->lex.tokens)
        if (t.in_directive && t.kind == TokenKind::kIdentifier) file_scope_.insert(std::string(t.text));
    }
  }

  void Check(const SourceFile* f) {
    const auto& t = f->lex.tokens;
    const CodeStructure& cs = ctx_.Structure(f);
    for (const TracingCall& call : f->traces.calls) {
      if (t[call.name_token].in_directive || call.args.size() < 2) continue;
      if (cs.EnclosingFunction(call.name_token) < 0) continue;  // a declaration, not a call
      for (size_t a = 1; a < call.args.size(); ++a) {
        for (size_t j = call.args[a].first; j < call.args[a].second; ++j) {
          const Token& x = t[j];
          if (x.kind != TokenKind::kIdentifier || IsKeywordLike(x.text)) continue;
          if (j + 1 < t.size() && (t[j + 1].Is("(") || t[j + 1].Is("::") || t[j + 1].Is("<"))) continue;
          if (j > 0 && (t[j - 1].Is(".") || t[j - 1].Is("->") || t[j - 1].Is("::"))) continue;
          if (Declared(f, cs, x.text, j)) continue;
          ctx_.Report(f, x.line, x.column, "index-scope",
                      fmt::format("\"{}\" passed to MoeTracing is not declared in an enclosing scope", x.text));
        }
      }
    }
  }

 private:
  bool Declared(const SourceFile* f, const CodeStructure& cs, std::string_view name, size_t use) {
    if (file_scope_.count(std::string(name))) return true;
    const auto& t = f->lex.tokens;
    int use_block = cs.InnermostBlock(use);
    for (int fn = cs.EnclosingFunction(use); fn >= 0;) {
      const Block& b = cs.blocks[static_cast<size_t>(fn)];
      for (size_t k = b.head_begin; k < b.head_end; ++k)
        if (t[k].Is(name)) return true;
      for (size_t k = b.open + 1; k < use; ++k) {
        if (!t[k].active || !t[k].Is(name) || !(LooksLikeDeclaration(t, k) || InStructuredBinding(t, k))) continue;
        int scope = cs.InnermostBlock(k);
        for (size_t h = 0; h < cs.blocks.size(); ++h) {  // declared in a for/if head: scoped to that block
          const Block& hb = cs.blocks[h];
          if (hb.kind == BlockKind::kControl && k >= hb.head_begin && k < hb.head_end) scope = static_cast<int>(h);
        }
        if (cs.Within(use_block, scope)) return true;
      }
      fn = b.parent < 0 ? -1 : cs.EnclosingFunction(cs.blocks[static_cast<size_t>(b.parent)].open);
    }
    return false;
  }

  LintContext& ctx_;
  std::unordered_set<std::string> file_scope_;
};

}  // namespace

// stack-buffer: an AscendC kernel's PROF_SIZE_PER_CORE-word stack buffer (the default mode)
// above the size that leaves half of CANN 8.1's 32 KiB v220 AI core stack to the kernel.
static void CheckStackBuffer(LintContext& ctx) {
  bool ascendc = false, gm_buffer = false;
  struct Size {
    const SourceFile* file;
    const Directive* define;
    unsigned long long words;
  };
  std::vector<Size> sizes;
  for (const SourceFile* f : ctx.files) {
    for (const Directive& d : f->lex.directives) {
      if (!d.active) continue;
      if (d.kind == DirectiveKind::kInclude && (d.include_path == "kernel_operator.h" ||
                                                d.include_path.ends_with("/kernel_operator.h")))
        ascendc = true;
      if (d.kind != DirectiveKind::kDefine) continue;
      std::string_view arg = d.argument;
      auto word = [&](std::string_view name) {
        if (!arg.starts_with(name) || arg.size() == name.size() || (arg[name.size()] != ' ' && arg[name.size()] != '\t'))
          return std::string_view();
        std::string_view v = arg.substr(name.size());
        while (!v.empty() && (v.front() == ' ' || v.front() == '\t' || v.front() == '(')) v.remove_prefix(1);
        size_t n = 0;
        while (n < v.size() && v[n] >= '0' && v[n] <= '9') ++n;
        return v.substr(0, n);
      };
      if (std::string_view v = word("ENABLE_MOE_PROFILING_GM_BUFFER"); !v.empty() && v != "0") gm_buffer = true;
      if (std::string_view v = word("PROF_SIZE_PER_CORE"); !v.empty() && v.size() < 12)
        sizes.push_back({f, &d, std::stoull(std::string(v))});
    }
  }
  if (!ascendc || gm_buffer) return;
  for (const Size& s : sizes) {
    if (s.words <= kSafeStackSlotWords) continue;
    ctx.Report(s.file, s.define->line, s.define->column, "stack-buffer",
               fmt::format("PROF_SIZE_PER_CORE {} puts a {} KiB profiling buffer on the AI core stack (v220 kernels "
                           "get 32 KiB under CANN 8.1; {} words is the safe maximum); lower it or set "
                           "ENABLE_MOE_PROFILING_GM_BUFFER 1 and use OPTRACE_KERNEL_BEGIN_GM(profiling)",
                           s.words, s.words * 8 / 1024, kSafeStackSlotWords));
  }
}

void CheckCompileSafety(LintContext& ctx) {
  CheckStackBuffer(ctx);
  HeaderReach reach(ctx);
  IndexScope scope(ctx);
  for (const SourceFile* f : ctx.files) {
    CheckTraceSyntax(ctx, f);
    CheckBraces(ctx, f);
    CheckPreprocessor(ctx, f);
    scope.Check(f);
    const TracingCall* first_call = nullptr;
    for (const TracingCall& c : f->traces.calls) {
      if (!f->lex.tokens[c.name_token].in_directive && c.site >= 0) {
        first_call = &c;
        break;
      }
    }
    if (first_call && !reach.Reaches(f)) {
      ctx.Report(f, first_call->line, first_call->column, "header-reachable",
                 "MoeTracing is called but no header defining it is reachable from this file or a translation unit "
                 "including it; #include the operator's *_base.h, or run 'optrace instrument' (or 'optrace headers -o DIR') and "
                 "#include \"optrace_trace.h\"");
    }
  }
}

}  // namespace optrace::source
