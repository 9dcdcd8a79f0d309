// Label rules: label-style, root-label, depth, pairing, early-return, label-collision.
// Pairing walks each function body in token order with a stack of open ranges; a block
// must close what it opens, and a block that ends in `return` may close outer ranges. An
// if/else pair may close an outer range when both branches close it (or the other returns).
// `#if`/`#elif`/`#else` branches that are all active (unknown condition) are alternatives:
// each starts from the ranges open at the `#if`.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "optrace/point_id.h"
#include "source/lint/lint_context.h"

namespace optrace::source {

namespace {

constexpr size_t kMaxLevels = 7;

size_t Levels(std::string_view label) {
  if (label == "processing") return 1;
  return static_cast<size_t>(std::count(label.begin(), label.end(), ' ')) + 2;  // processing + words
}

struct Open {
  std::string label;
  int line = 0, column = 0;
  bool reported = false;
};

class PairingChecker {
 public:
  PairingChecker(LintContext& ctx, const SourceFile* f) : ctx_(ctx), f_(f), cs_(ctx.Structure(f)) {
    for (const TraceSite& s : f->traces.sites) {
      if (s.in_define) continue;
      if (s.event_type == 'B' || s.event_type == 'E') site_at_[s.token] = &s;
      else bad_event_labels_.insert(s.label);  // event-type reports it; its partner is not unpaired
    }
  }

  void Run() {
    for (size_t b = 0; b < cs_.blocks.size(); ++b) {
      BlockKind k = cs_.blocks[b].kind;
      if (k == BlockKind::kFunction || k == BlockKind::kLambda) CheckFunction(static_cast<int>(b));
    }
  }

 private:
  using Closes = std::vector<std::pair<const TraceSite*, Open>>;
  struct Frame {
    int block;
    std::vector<Open> snapshot;
    Closes outer_closes;
  };
  // An if block that closed outer ranges and is followed by an else block.
  struct PendingIf {
    bool returned = false;
    Closes closes;
  };

  static bool SameOpen(const Open& a, const Open& b) { return a.line == b.line && a.column == b.column; }
  static bool ClosedIn(const Closes& closes, const Open& o) {
    return std::any_of(closes.begin(), closes.end(), [&](const auto& c) { return SameOpen(c.second, o); });
  }
  static void RemoveClosed(std::vector<Open>& stack, const Closes& closes) {
    stack.erase(std::remove_if(stack.begin(), stack.end(), [&](const Open& o) { return ClosedIn(closes, o); }),
                stack.end());
  }

  const Token& Tok(size_t i) const { return f_->lex.tokens[i]; }

  // "if:<cond>" / "else:<cond>" for the nearest if/else block around `token` inside the function,
  // "" when there is none. Ranges opened in one such branch may close in a later branch with the
  // same key (`if (up) { B a } else { B b } ... if (up) { E a } else { E b }`).
  std::string BranchKey(int block) const {
    for (int b = block; b >= 0; b = cs_.blocks[static_cast<size_t>(b)].parent) {
      const Block& blk = cs_.blocks[static_cast<size_t>(b)];
      if (blk.kind == BlockKind::kFunction || blk.kind == BlockKind::kLambda) return "";
      if (blk.kind != BlockKind::kControl) continue;
      if (blk.name == "if") return "if:" + JoinTokens(f_->lex.tokens, blk.head_begin, blk.head_end);
      if (blk.name == "else" && blk.else_of >= 0) {
        const Block& i = cs_.blocks[static_cast<size_t>(blk.else_of)];
        return "else:" + JoinTokens(f_->lex.tokens, i.head_begin, i.head_end);
      }
      return "";
    }
    return "";
  }

  // A `{ }` statement of its own (after `;`, `{` or `}`), not a branch, case or initializer.
  bool IsPlainBlock(const Block* blk) const {
    if (!blk || blk->kind != BlockKind::kOther || blk->function < 0) return false;
    auto it = std::lower_bound(cs_.code.begin(), cs_.code.end(), blk->open);
    if (it == cs_.code.begin()) return false;
    const Token& prev = Tok(*(it - 1));
    return prev.Is(";") || prev.Is("{") || prev.Is("}");
  }

  bool IsBranchBlock(int b) const {
    if (b < 0) return false;
    const Block& blk = cs_.blocks[static_cast<size_t>(b)];
    return blk.kind == BlockKind::kControl && (blk.name == "if" || blk.name == "else");
  }

  void CheckFunction(int fb) {
    const Block& fn = cs_.blocks[static_cast<size_t>(fb)];
    std::vector<Open> stack;
    conditional_.clear();
    std::vector<Frame> frames;
    size_t last_return_semi = static_cast<size_t>(-1);
    bool in_return = false;
    size_t prev_code = fn.open;
    pending_if_.clear();
    // Conditional directives inside the body, in order; each #if group remembers the open ranges
    // at its start so that every active alternative starts from them.
    const auto& dirs = f_->lex.directives;
    uint32_t body_begin = Tok(fn.open).offset;
    auto next_dir = std::upper_bound(dirs.begin(), dirs.end(), body_begin,
                                     [](uint32_t off, const Directive& d) { return off < d.offset; });
    std::vector<std::vector<Open>> pp_groups;
    auto apply_directives = [&](uint32_t before) {
      for (; next_dir != dirs.end() && next_dir->offset < before; ++next_dir) {
        switch (next_dir->kind) {
          case DirectiveKind::kIf:
          case DirectiveKind::kIfdef:
          case DirectiveKind::kIfndef:
            pp_groups.push_back(stack);
            break;
          case DirectiveKind::kElif:
          case DirectiveKind::kElse:
            if (!pp_groups.empty() && next_dir->branch_active) stack = pp_groups.back();
            break;
          case DirectiveKind::kEndif:
            if (!pp_groups.empty()) pp_groups.pop_back();
            break;
          default:
            break;
        }
      }
    };
    auto begin = std::upper_bound(cs_.code.begin(), cs_.code.end(), fn.open);
    for (auto it = begin; it != cs_.code.end() && *it < fn.close; ++it) {
      size_t i = *it;
      if (cs_.EnclosingFunction(i) != fb) continue;  // inside a nested lambda: checked on its own
      const Token& tok = Tok(i);
      apply_directives(tok.offset);
      if (tok.Is("{")) {
        frames.push_back({cs_.InnermostBlock(i), stack, {}});
      } else if (tok.Is("}")) {
        if (!frames.empty()) {
          CloseBlock(frames.back(), stack, prev_code == last_return_semi, i);
          frames.pop_back();
        }
      } else if (tok.Is("return")) {
        in_return = true;
        std::string open_labels;
        for (const Open& o : stack) {
          if (o.reported) continue;
          open_labels += fmt::format("{}\"{}\" (B at line {})", open_labels.empty() ? "" : ", ", o.label, o.line);
        }
        if (!open_labels.empty()) {
          ctx_.Report(f_, tok.line, tok.column, "early-return",
                      fmt::format("return leaves {} open; emit the E marks before returning", open_labels));
        }
        for (Open& o : stack) o.reported = true;
      } else if (tok.Is("break") || tok.Is("continue")) {
        LeaveLoop(tok, stack, frames);
        // `if (...) { E; break; }` leaves the loop body: it may close ranges opened in it, as a return does.
        if (IsBranchBlock(cs_.InnermostBlock(i))) in_return = true;
      } else if (tok.Is(";") && in_return) {
        in_return = false;
        last_return_semi = i;
      } else if (auto s = site_at_.find(i); s != site_at_.end()) {
        Event(*s->second, stack, frames);
      }
      prev_code = i;
    }
    for (const Open& o : stack) {
      if (o.reported || bad_event_labels_.count(o.label)) continue;
      ctx_.Report(f_, o.line, o.column, "pairing",
                  fmt::format("\"{}\" B is never closed by an E in {}()", o.label, fn.name.empty() ? "this function"
                                                                                                : fn.name));
    }
    for (const auto& [key, opens] : conditional_) {
      for (const Open& o : opens) {
        ctx_.Report(f_, o.line, o.column, "pairing",
                    fmt::format("\"{}\" B is not closed in its block and no later branch with the same condition "
                                "closes it",
                                o.label));
      }
    }
  }

  // break/continue leaves the innermost loop body (break: or switch body); ranges opened in it
  // and still open stay open forever.
  void LeaveLoop(const Token& tok, std::vector<Open>& stack, const std::vector<Frame>& frames) {
    const Frame* target = nullptr;
    for (auto f = frames.rbegin(); f != frames.rend() && !target; ++f) {
      if (f->block < 0) continue;
      const Block& blk = cs_.blocks[static_cast<size_t>(f->block)];
      if (blk.kind != BlockKind::kControl) continue;
      if (blk.name == "for" || blk.name == "while" || blk.name == "do" || (tok.Is("break") && blk.name == "switch"))
        target = &*f;
    }
    if (!target) return;
    std::string open_labels;
    for (size_t k = 0; k < stack.size(); ++k) {
      bool opened_inside = k >= target->snapshot.size() || !SameOpen(stack[k], target->snapshot[k]);
      if (!opened_inside || stack[k].reported) continue;
      open_labels += fmt::format("{}\"{}\" (B at line {})", open_labels.empty() ? "" : ", ", stack[k].label,
                                 stack[k].line);
      stack[k].reported = true;
    }
    if (open_labels.empty()) return;
    ctx_.Report(f_, tok.line, tok.column, "early-return",
                fmt::format("{} leaves {} open; emit the E marks before the {}", tok.text, open_labels, tok.text));
  }

  void Event(const TraceSite& s, std::vector<Open>& stack, std::vector<Frame>& frames) {
    if (s.event_type == 'B') {
      if (s.label == "processing" && !stack.empty()) {
        ctx_.Report(f_, s.line, s.column, "root-label",
                    fmt::format("\"processing\" is the root range but opens inside \"{}\" (B at line {})",
                                stack.back().label, stack.back().line));
      }
      if (stack.size() + 1 > kMaxLevels) {
        ctx_.Report(f_, s.line, s.column, "depth",
                    fmt::format("\"{}\" opens at nesting depth {} in this function; at most {}", s.label,
                                stack.size() + 1, kMaxLevels));
      }
      stack.push_back({s.label, s.line, s.column});
      return;
    }
    auto match = std::find_if(stack.rbegin(), stack.rend(), [&](const Open& o) { return o.label == s.label; });
    if (match == stack.rend()) {
      std::string key = BranchKey(cs_.InnermostBlock(s.token));
      auto c = conditional_.find(key);
      if (!key.empty() && c != conditional_.end()) {
        auto o = std::find_if(c->second.begin(), c->second.end(), [&](const Open& x) { return x.label == s.label; });
        if (o != c->second.end()) {
          c->second.erase(o);
          if (c->second.empty()) conditional_.erase(c);
          return;
        }
      }
      if (bad_event_labels_.count(s.label)) return;
      ctx_.Report(f_, s.line, s.column, "pairing",
                  fmt::format("\"{}\" E has no open B of the same label before it in this function", s.label));
      return;
    }
    size_t index = static_cast<size_t>(stack.rend() - match) - 1;
    if (index + 1 != stack.size()) {
      // Inner ranges still open: never closed at all (a missing E), or closed later (crossed).
      bool crossed = false;
      for (size_t k = index + 1; k < stack.size(); ++k) {
        if (stack[k].reported) continue;
        if (HasLaterEnd(stack[k].label, s.token)) {
          crossed = true;
        } else {
          ctx_.Report(f_, stack[k].line, stack[k].column, "pairing",
                      fmt::format("\"{}\" B is never closed by an E (\"{}\" closes around it at line {})",
                                  stack[k].label, s.label, s.line));
        }
        stack[k].reported = true;
      }
      if (crossed) {
        ctx_.Report(f_, s.line, s.column, "pairing",
                    fmt::format("\"{}\" E closes while \"{}\" (B at line {}) is still open; close inner ranges first",
                                s.label, stack.back().label, stack.back().line));
      }
    }
    if (!frames.empty() && index < frames.back().snapshot.size()) frames.back().outer_closes.push_back({&s, stack[index]});
    stack.resize(index);
  }

  bool HasLaterEnd(const std::string& label, size_t after) const {
    for (const auto& [token, site] : site_at_)
      if (token > after && site->event_type == 'E' && site->label == label) return true;
    return false;
  }

  // True when the '}' at `close_token` is followed by `else {`.
  bool FollowedByElseBlock(size_t close_token) const {
    auto it = std::lower_bound(cs_.code.begin(), cs_.code.end(), close_token);
    return it != cs_.code.end() && it + 2 < cs_.code.end() && Tok(*(it + 1)).Is("else") && Tok(*(it + 2)).Is("{");
  }

  void ReportOnePath(const std::pair<const TraceSite*, Open>& close) {
    ctx_.Report(f_, close.first->line, close.first->column, "pairing",
                fmt::format("\"{}\" E closes a range opened outside this block (B at line {}) on one path only",
                            close.first->label, close.second.line));
  }

  void CloseBlock(const Frame& frame, std::vector<Open>& stack, bool ends_in_return, size_t close_token) {
    const Block* blk = frame.block >= 0 ? &cs_.blocks[static_cast<size_t>(frame.block)] : nullptr;
    if (!ends_in_return) {
      for (size_t k = 0; k < stack.size(); ++k) {
        bool opened_here = k >= frame.snapshot.size() || !SameOpen(stack[k], frame.snapshot[k]);
        if (!opened_here || stack[k].reported) continue;
        std::string key = BranchKey(frame.block);
        if (!key.empty() && IsBranchBlock(frame.block)) {
          conditional_[key].push_back(stack[k]);
          continue;
        }
        ctx_.Report(f_, stack[k].line, stack[k].column, "pairing",
                    fmt::format("\"{}\" B is not closed in its block (the block ends at line {}); B and E must be "
                                "in the same block",
                                stack[k].label, Tok(close_token).line));
      }
    }
    stack = frame.snapshot;
    if (IsPlainBlock(blk)) {  // always runs: what it closed of the ranges around it is closed
      RemoveClosed(stack, frame.outer_closes);
      return;
    }
    if (blk && blk->kind == BlockKind::kControl && blk->name == "if" &&
        (ends_in_return || !frame.outer_closes.empty()) &&
        FollowedByElseBlock(close_token)) {
      pending_if_[frame.block] = {ends_in_return, frame.outer_closes};  // judged with its else
      return;
    }
    if (blk && blk->kind == BlockKind::kControl && blk->name == "else" && blk->else_of >= 0) {
      auto p = pending_if_.find(blk->else_of);
      if (p != pending_if_.end()) {
        PendingIf branch = std::move(p->second);
        pending_if_.erase(p);
        if (branch.returned && ends_in_return) return;
        if (branch.returned) {
          RemoveClosed(stack, frame.outer_closes);  // the else is the only path on
        } else if (ends_in_return) {
          RemoveClosed(stack, branch.closes);  // the if is the only path on
        } else {
          Closes both;
          for (const auto& c : branch.closes) {
            if (ClosedIn(frame.outer_closes, c.second)) {
              both.push_back(c);
            } else {
              ReportOnePath(c);
            }
          }
          for (const auto& c : frame.outer_closes)
            if (!ClosedIn(branch.closes, c.second)) ReportOnePath(c);
          RemoveClosed(stack, both);
        }
        return;
      }
    }
    if (!ends_in_return)
      for (const auto& c : frame.outer_closes) ReportOnePath(c);
  }

  LintContext& ctx_;
  const SourceFile* f_;
  const CodeStructure& cs_;
  std::unordered_map<size_t, const TraceSite*> site_at_;
  std::map<std::string, std::vector<Open>> conditional_;
  std::set<std::string> bad_event_labels_;  // labels of marks whose event type is neither B nor E
  std::map<int, PendingIf> pending_if_;  // by if block
};

}  // namespace

void CheckLabels(LintContext& ctx) {
  struct First {
    std::string label;
    const SourceFile* file;
    int line, column;
  };
  std::map<uint32_t, First> by_id;
  bool has_root = false;
  const TraceSite* first_site = nullptr;
  const SourceFile* first_file = nullptr;
  for (const SourceFile* f : ctx.files) {
    for (const TraceSite& s : f->traces.sites) {
      if (s.event_type != 'B' && s.event_type != 'E') continue;
      if (!first_site) {
        first_site = &s;
        first_file = f;
      }
      if (s.label == "processing") has_root = true;
      if (!LabelStyleOk(s.label)) {
        ctx.Report(f, s.line, s.column, "label-style",
                   fmt::format("label \"{}\" must be lowercase words of a-z, 0-9 and '-', separated by single spaces",
                               s.label));
      }
      if (Levels(s.label) > kMaxLevels) {
        ctx.Report(f, s.line, s.column, "depth",
                   fmt::format("label \"{}\" has {} levels (processing + {} words); at most {}", s.label,
                               Levels(s.label), Levels(s.label) - 1, kMaxLevels));
      }
      uint32_t id = LabelId(s.label.data(), static_cast<uint32_t>(s.label.size()));
      auto [it, inserted] = by_id.emplace(id, First{s.label, f, s.line, s.column});
      if (!inserted && it->second.label != s.label) {
        ctx.Report(f, s.line, s.column, "label-collision",
                   fmt::format("labels \"{}\" and \"{}\" (at {}:{}:{}) hash to the same label id {}; rename one",
                               s.label, it->second.label, it->second.file->rel, it->second.line, it->second.column,
                               id));
      }
    }
    PairingChecker(ctx, f).Run();
  }
  if (first_site && !has_root) {
    const SourceFile* where = ctx.tree ? ctx.tree->entry : first_file;
    int line = where == first_file ? first_site->line : 1;
    int column = where == first_file ? first_site->column : 1;
    if (ctx.tree) {
      // Point at the kernel function of the entry file when there is one.
      const CodeStructure& cs = ctx.Structure(where);
      for (const Block& b : cs.blocks) {
        if (b.kind == BlockKind::kFunction) {
          line = b.line;
          column = b.column;
          break;
        }
      }
    }
    ctx.Report(where, line, column, "root-label",
               "no \"processing\" range: wrap the kernel body in TRACE_POINT(\"processing\", \"B\") ... \"E\"");
  }
}

}  // namespace optrace::source
