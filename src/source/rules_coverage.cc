// Coverage rules: coverage-file (phase-implementing files reachable from the kernel entry hold
// trace points) and density-aic / density-aiv (distinct labels reachable per core type).
//
// Core type of code comes from: operator()<AscendC::AIC|AIV> specialisations, `if` conditions
// naming AIC/AIV (g_coreType == AscendC::AIV, ASCEND_IS_AIV, if constexpr is_same<..., AIV>,
// SPLIT_CORE_CUBE/VEC) and their else branches, and #if regions naming CUBE/VEC. Calls are
// followed by name from the entry's functions; untyped entry code runs on both core types.
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "source/lint_context.h"

namespace optrace::source {
namespace {

enum Core : unsigned { kNone = 0, kAic = 1, kAiv = 2, kBoth = 3 };

Core Flip(Core c) { return c == kAic ? kAiv : c == kAiv ? kAic : c; }

Core CoreOfText(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
  bool aiv = text.find("AIV") != std::string::npos || text.find("_VEC") != std::string::npos ||
             text.find("VEC_") != std::string::npos;
  bool aic = text.find("AIC") != std::string::npos || text.find("CUBE") != std::string::npos;
  if (aiv == aic) return kNone;
  Core c = aiv ? kAiv : kAic;
  if (text.find("!=") != std::string::npos || (!text.empty() && text[0] == '!')) c = Flip(c);
  return c;
}

struct PpRegion {
  int first_line, last_line;
  Core core;
};

// #if/#ifdef regions whose condition names a core type (#else flips it).
std::vector<PpRegion> CoreRegions(const LexedFile& lex) {
  struct Frame {
    Core core;
    int start;
  };
  std::vector<PpRegion> out;
  std::vector<Frame> stack;
  for (const Directive& d : lex.directives) {
    switch (d.kind) {
      case DirectiveKind::kIf:
      case DirectiveKind::kIfdef:
      case DirectiveKind::kIfndef: {
        Core c = CoreOfText(d.argument);
        if (d.kind == DirectiveKind::kIfndef) c = Flip(c);
        stack.push_back({c, d.line});
        break;
      }
      case DirectiveKind::kElif:
      case DirectiveKind::kElse:
        if (stack.empty()) break;
        if (stack.back().core != kNone) out.push_back({stack.back().start, d.line, stack.back().core});
        stack.back() = {d.kind == DirectiveKind::kElse ? Flip(stack.back().core) : CoreOfText(d.argument), d.line};
        break;
      case DirectiveKind::kEndif:
        if (stack.empty()) break;
        if (stack.back().core != kNone) out.push_back({stack.back().start, d.line, stack.back().core});
        stack.pop_back();
        break;
      default:
        break;
    }
  }
  return out;
}

struct FnInfo {
  const SourceFile* file;
  int block;
  Core own = kNone;
  std::vector<std::pair<std::string, Core>> labels;  // label, local core (kNone: inherits)
  std::vector<std::pair<std::string, Core>> calls;   // callee name, local core
};

class CoreAnalysis {
 public:
  explicit CoreAnalysis(LintContext& ctx) : ctx_(ctx) {}

  Core BlockCore(const CodeStructure& cs, const std::vector<Token>& t, int b) {
    const Block& blk = cs.blocks[static_cast<size_t>(b)];
    if (blk.kind == BlockKind::kFunction) return CoreOfText(blk.template_args);
    if (blk.kind != BlockKind::kControl) return kNone;
    if (blk.name == "else") return blk.else_of >= 0 ? Flip(BlockCore(cs, t, blk.else_of)) : kNone;
    if (blk.name != "if") return kNone;
    return CoreOfText(JoinTokens(t, blk.head_begin, blk.head_end));
  }

  // Core of code at `token` decided inside its function (kNone: decided by the caller).
  Core LocalCore(const SourceFile* f, const CodeStructure& cs, const std::vector<PpRegion>& regions, size_t token,
                 int fn) {
    for (int b = cs.InnermostBlock(token); b >= 0 && b != fn; b = cs.blocks[static_cast<size_t>(b)].parent) {
      Core c = BlockCore(cs, f->lex.tokens, b);
      if (c != kNone) return c;
    }
    int line = f->lex.tokens[token].line;
    for (const PpRegion& r : regions)
      if (line > r.first_line && line < r.last_line) return r.core;
    return kNone;
  }

  static int NearestFunction(const CodeStructure& cs, size_t token) {
    for (int b = cs.InnermostBlock(token); b >= 0; b = cs.blocks[static_cast<size_t>(b)].parent)
      if (cs.blocks[static_cast<size_t>(b)].kind == BlockKind::kFunction) return b;
    return -1;
  }

  void Collect(const SourceFile* f) {
    const CodeStructure& cs = ctx_.Structure(f);
    const auto& t = f->lex.tokens;
    std::vector<PpRegion> regions = CoreRegions(f->lex);
    std::map<int, size_t> fn_index;
    auto fn_of = [&](int b) -> FnInfo& {
      auto it = fn_index.find(b);
      if (it != fn_index.end()) return fns_[it->second];
      fns_.push_back({f, b, CoreOfText(cs.blocks[static_cast<size_t>(b)].template_args), {}, {}});
      fn_index[b] = fns_.size() - 1;
      by_name_[cs.blocks[static_cast<size_t>(b)].name].push_back(fns_.size() - 1);
      return fns_.back();
    };
    for (size_t b = 0; b < cs.blocks.size(); ++b)
      if (cs.blocks[b].kind == BlockKind::kFunction && fn_of(static_cast<int>(b)).own != kNone) typed_ = true;
    for (const TraceSite& s : f->traces.sites) {
      if (s.in_define || (s.event_type != 'B' && s.event_type != 'E')) continue;
      int fn = NearestFunction(cs, s.token);
      if (fn < 0) continue;
      Core local = LocalCore(f, cs, regions, s.token, fn);
      if (local != kNone) typed_ = true;
      fn_of(fn).labels.push_back({s.label, local});
    }
    for (size_t ci = 0; ci + 1 < cs.code.size(); ++ci) {
      size_t i = cs.code[ci];
      const Token& x = t[i];
      if (x.kind != TokenKind::kIdentifier) continue;
      int fn = NearestFunction(cs, i);
      if (fn < 0) continue;
      std::string name;
      Core call_core = kNone;
      size_t next = cs.code[ci + 1];
      if (x.Is("operator") && t[next].Is("(") && ci + 3 < cs.code.size() && t[cs.code[ci + 2]].Is(")")) {
        name = "operator()";
        size_t after = cs.code[ci + 3];
        if (t[after].Is("<")) {
          size_t close = MatchingClose(t, after);
          if (close < t.size()) call_core = CoreOfText(JoinTokens(t, after + 1, close));
        }
      } else if (t[next].Is("(") || t[next].Is("<")) {
        if (t[next].Is("<")) {
          size_t close = MatchingClose(t, next);
          if (close + 1 >= t.size() || !t[close + 1].Is("(")) continue;
          call_core = CoreOfText(JoinTokens(t, next + 1, close));
        }
        static const std::set<std::string_view> kSkip = {"if", "for", "while", "switch", "return", "sizeof",
                                                         "catch", "static_cast", "reinterpret_cast", "MoeTracing",
                                                         "TRACE_POINT", "decltype", "alignof"};
        if (kSkip.count(x.text)) continue;
        name = std::string(x.text);
      } else {
        continue;
      }
      Core local = LocalCore(f, cs, regions, i, fn);
      if (local != kNone || call_core != kNone) typed_ = true;
      fn_of(fn).calls.push_back({name, call_core != kNone ? call_core : local});
    }
  }

  // Whether any code is specific to one core type (else the kernel is not split into AIC/AIV).
  bool typed() const { return typed_; }

  // Distinct labels per core type reachable from the entry file's functions.
  void Propagate(const SourceFile* entry, std::set<std::string>* aic, std::set<std::string>* aiv) {
    std::deque<std::pair<size_t, Core>> queue;
    std::vector<unsigned> seen(fns_.size(), 0);
    auto push = [&](size_t fi, Core c) {
      Core eff = fns_[fi].own != kNone ? fns_[fi].own : c;
      if ((seen[fi] | eff) == seen[fi]) return;
      seen[fi] |= eff;
      queue.push_back({fi, eff});
    };
    for (size_t fi = 0; fi < fns_.size(); ++fi)
      if (fns_[fi].file == entry || fns_[fi].own != kNone) push(fi, kBoth);
    // Functions nothing reaches (called through functors or pointers) count for both core types.
    auto drain = [&]() {
      while (!queue.empty()) {
        auto [fi, ctx] = queue.front();
        queue.pop_front();
        const FnInfo& fn = fns_[fi];
        for (const auto& [label, local] : fn.labels) {
          Core c = local != kNone ? local : ctx;
          if (c & kAic) aic->insert(label);
          if (c & kAiv) aiv->insert(label);
        }
        for (const auto& [callee, local] : fn.calls) {
          auto it = by_name_.find(callee);
          if (it == by_name_.end()) continue;
          for (size_t target : it->second) push(target, local != kNone ? local : ctx);
        }
      }
    };
    drain();
    for (size_t fi = 0; fi < fns_.size(); ++fi)
      if (seen[fi] == 0 && !fns_[fi].labels.empty()) push(fi, kBoth);
    drain();
  }

 private:
  LintContext& ctx_;
  std::vector<FnInfo> fns_;
  std::map<std::string, std::vector<size_t>> by_name_;
  bool typed_ = false;
};

// The function that makes a file a phase implementation, or -1.
// The function that makes a file a phase implementation, or -1: a core-typed operator() first,
// then a Process* function, then any operator() or large function in a sub-directory header.
int PhaseFunction(const SourceFile* f, const CodeStructure& cs, bool in_subdirectory) {
  int best = -1, best_rank = 0;
  for (size_t b = 0; b < cs.blocks.size(); ++b) {
    const Block& blk = cs.blocks[b];
    if (blk.kind != BlockKind::kFunction) continue;
    int body_lines = blk.close < f->lex.tokens.size() ? f->lex.tokens[blk.close].line - blk.line : 0;
    int rank = blk.name == "operator()" && CoreOfText(blk.template_args) != kNone ? 3
               : blk.name.rfind("Process", 0) == 0                                 ? 2
               : in_subdirectory && (blk.name == "operator()" || body_lines >= 15) ? 1
                                                                                    : 0;
    if (rank > best_rank) {
      best = static_cast<int>(b);
      best_rank = rank;
    }
  }
  return best;
}

}  // namespace

void CheckCoverage(LintContext& ctx, CoreDensity* density) {
  const IncludeTree& tree = *ctx.tree;
  std::string entry_dir = tree.entry->rel.substr(0, tree.entry->rel.rfind('/') + 1);
  CoreAnalysis analysis(ctx);
  for (const SourceFile* f : tree.files) {
    analysis.Collect(f);
    const CodeStructure& cs = ctx.Structure(f);
    bool in_subdirectory = f->rel.size() > entry_dir.size() && f->rel.rfind(entry_dir, 0) == 0 &&
                           f->rel.find('/', entry_dir.size()) != std::string::npos;
    int phase = PhaseFunction(f, cs, in_subdirectory);
    if (phase < 0) continue;
    bool has_point = std::any_of(f->traces.sites.begin(), f->traces.sites.end(),
                                 [](const TraceSite& s) { return !s.in_define; });
    if (has_point) continue;
    const Block& b = cs.blocks[static_cast<size_t>(phase)];
    std::string what = b.name + (b.template_args.empty() ? "" : "<" + b.template_args + ">");
    ctx.Report(f, b.line, b.column, "coverage-file",
               fmt::format("{} is reachable from {} and implements {} but holds no trace point; add B/E marks at "
                           "its phase boundaries",
                           f->rel, tree.entry->rel, what));
  }
  std::set<std::string> aic, aiv;
  analysis.Propagate(tree.entry, &aic, &aiv);
  density->known = true;
  density->aic_labels.assign(aic.begin(), aic.end());
  density->aiv_labels.assign(aiv.begin(), aiv.end());
  // Report at the kernel function of the entry file.
  const CodeStructure& ecs = ctx.Structure(tree.entry);
  int line = 1, column = 1;
  for (const Block& b : ecs.blocks) {
    if (b.kind == BlockKind::kFunction) {
      line = b.line;
      column = b.column;
      break;
    }
  }
  density->split = analysis.typed();
  if (!density->split) return;  // not a mixed AIC/AIV kernel: per-core density does not apply
  constexpr size_t kMin = 10, kMax = 30;
  auto check = [&](const char* rule, const char* core, size_t n) {
    if (n >= kMin && n <= kMax) return;
    ctx.Report(tree.entry, line, column, rule,
               fmt::format("{} distinct label(s) reachable on {} paths; expected {} to {} ({})", n, core, kMin, kMax,
                           n < kMin ? "add marks at phase boundaries" : "merge thin ranges"));
  };
  check("density-aic", "AIC", aic.size());
  check("density-aiv", "AIV", aiv.size());
}

}  // namespace optrace::source
