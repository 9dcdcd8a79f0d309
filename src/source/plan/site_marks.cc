// Where a site's marks go: the B and E lines of a function's range (every exit, a traced return
// split into value-then-E, a #define body's continuation lines) and of a loop's body.
#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "source/plan/edit_text.h"
#include "source/plan/instrument.h"

namespace optrace::source {
namespace {

bool IsLoop(const Block& b) {
  return b.kind == BlockKind::kControl && (b.name == "for" || b.name == "while" || b.name == "do");
}

// Innermost loop (or switch, for break) block around token k, -1 if none before reaching `stop`.
int InnermostBreakTarget(const CodeStructure& cs, size_t k, bool is_break) {
  for (int b = cs.InnermostBlock(k); b >= 0; b = cs.blocks[static_cast<size_t>(b)].parent) {
    const Block& blk = cs.blocks[static_cast<size_t>(b)];
    if (blk.kind == BlockKind::kFunction || blk.kind == BlockKind::kLambda) return -1;
    if (IsLoop(blk) || (is_break && blk.kind == BlockKind::kControl && blk.name == "switch")) return b;
  }
  return -1;
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
    return BadInputError("{}:{}: no {} {} here; the plan does not match the source, run `optrace plan` again", file.rel,
                         site.line, what, site.name);
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
      int blk =
          find_block([](const Block& b) { return b.kind == BlockKind::kFunction || b.kind == BlockKind::kLambda; });
      if (blk < 0) return stale("function");
      const Block& b = cs.blocks[static_cast<size_t>(blk)];
      if (b.close >= t.size())
        return BadInputError("{}:{}: the body of {} is never closed", file.rel, site.line, site.name);
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
        return BadInputError(
            "{}:{}: the body of {} starts on the line of its '{{'; put its statements on lines of "
            "their own to trace it",
            file.rel, site.line, site.name);
      if (!FirstOnLine(t, end))
        return BadInputError("{}:{}: the closing brace of {} shares a line with code", file.rel, t[end].line,
                             site.name);
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
          return BadInputError(
              "{}:{}: the loop body is not laid out one statement per line; cannot trace it per "
              "iteration",
              file.rel, site.line);
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
            if ((x.Is("return") || x.Is("continue") || x.Is("break")) &&
                cs.InnermostBlock(static_cast<size_t>(k)) == blk)
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
        return BadInputError("{}:{}: the loop shares its first or last line with other code; cannot trace it", file.rel,
                             site.line);
      int span = static_cast<int>(end - kw);
      std::string indent = IndentOf(text, starts, t[kw].line);
      // `#pragma unroll` (or any pragma) right above the loop applies to it: the B mark goes above
      // the pragmas, or the compiler finds a statement where the pragma wants its loop.
      int b_line = t[kw].line;
      for (bool moved = true; moved;) {
        moved = false;
        for (const Directive& d : file.lex.directives)
          if (d.name == "pragma" && d.line == b_line - 1) {
            b_line = d.line;
            moved = true;
          }
      }
      m.lines.push_back({b_line, false, span, indent, b_code});
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
      return BadInputError(
          "{}:{}: no statement of its own starts on this line (an unbraced if/for body?); cannot "
          "trace {}",
          file.rel, site.line, site.name);
    }
  }
  return m;
}

}  // namespace optrace::source
