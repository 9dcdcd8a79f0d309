// Instrument and RevertInstrumentation: apply a plan's marks and the profiling chain to the
// operator's files (site_marks.cc says where each mark goes, line_tags.cc how lines are tagged).
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
#include "source/lexer/trace_define.h"
#include "source/lexer/trace_header.h"
#include "source/plan/edit_text.h"
#include "source/plan/line_tags.h"
#include "source/plan/profiling_chain.h"

namespace optrace::source {
namespace fs = std::filesystem;
namespace {

// True when the function or lambda block returns void (a lambda: never known, false).
bool ReturnsVoid(const std::vector<Token>& t, const Block& fn) {
  if (fn.kind != BlockKind::kFunction) return false;
  size_t name = TokenAt(t, fn.line, fn.column);
  if (name >= t.size()) return false;
  long p = PrevCode(t, name);
  while (p >= 0 && t[static_cast<size_t>(p)].Is("::"))
    p = PrevCode(t, static_cast<size_t>(PrevCode(t, static_cast<size_t>(p))));
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
      return BadInputError(
          "{}:{}: `{}` spans lines without braces around it; add braces so its E marks can go "
          "before it",
          file.rel, t[k].line, t[k].text);
    inline_edits[t[k].line].push_back({t[k].offset, "{ " + marks});
    inline_edits[t[k].line].push_back({t[end].end_offset(), " }"});
  }
  for (const auto& [line, list] : inserts) {
    if (line < 1 || static_cast<size_t>(line) > starts.size()) continue;
    for (const auto& [col, ins] : list)
      inline_edits[line].push_back({starts[static_cast<size_t>(line - 1)] + col, ins});
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

// The file includes optrace's device API (optrace/trace.h, optrace_trace.h) or defines MoeTracing.
bool DefinesTracing(const SourceFile& f) {
  for (const Directive& d : f.lex.directives)
    if (d.kind == DirectiveKind::kInclude && d.active && IsTraceHeaderInclude(d.include_path)) return true;
  return DefinesMoeTracing(f.lex);
}

// The folder (relative to the operator folder) that holds every one of `files`.
fs::path CommonFolder(const std::vector<std::string>& files) {
  fs::path common;
  bool first = true;
  for (const std::string& rel : files) {
    fs::path dir = fs::path(rel).parent_path();
    if (first) {
      common = dir;
      first = false;
      continue;
    }
    fs::path shared;
    for (auto a = common.begin(), b = dir.begin(); a != common.end() && b != dir.end() && *a == *b; ++a, ++b)
      shared /= *a;
    common = shared;
  }
  return common;
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
    io.by_name = true;  // as the plan read the tree
    Result<IncludeTree> tree = WalkIncludeTree(set, plan.op_dir / k.entry, io);
    if (!tree.ok()) continue;
    for (const SourceFile* f : tree->files) {
      bool r = DefinesTracing(*f);
      for (const SourceFile* g : tree->ClosureOf(f)) r = r || DefinesTracing(*g);
      reaches[f] = reaches[f] || r;
    }
  }
  // A tree with its own MoeTracing keeps it: its files get no include of optrace's (a second
  // definition would not compile); those that do not reach it include it.
  const SourceFile* own_definition = nullptr;
  for (const auto& [rel, text] : original) {
    const SourceFile* f = set.Find(rel);
    const std::string ext = fs::path(rel).extension().string();
    if (f && DefinesMoeTracing(f->lex) && (ext == ".h" || ext == ".hpp" || ext == ".hh" || ext == ".inc")) {
      own_definition = f;
      break;
    }
  }
  std::map<std::string, std::vector<const PlanSite*>> by_file;
  std::set<std::string> traced;  // functions with their own range: `return F(...)` must end after F
  for (const PlanSite& s : plan.sites) {
    if (!Inserts(s.decision) || s.label.empty()) continue;
    by_file[s.file].push_back(&s);
    if (s.kind == SiteKind::kFunction)
      traced.insert(s.name.substr(s.name.rfind(':') == std::string::npos ? 0 : s.name.rfind(':') + 1));
  }
  set.FindAllTraces();
  ChainPlan chain = PlanProfilingChain(plan, set);
  result.chain_done = chain.done;
  result.chain_manual = chain.manual;
  // First pass: the marks of each file, and which files need an include to reach MoeTracing.
  struct Pending {
    const SourceFile* f;
    std::vector<SiteMarks::Line> lines;
    std::vector<SiteMarks::Exit> exits;
    std::optional<CodeStructure> structure;
    const FileEdits* ce;
    int marks;
    bool needs_include;
  };
  std::vector<Pending> pending;
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
      for (const SiteMarks::Line& l : ce->lines)
        needs_tracing = needs_tracing || l.code.rfind("OPTRACE_KERNEL_", 0) == 0;
    auto r = reaches.find(f);
    bool needs_include = needs_tracing && (r == reaches.end() ? !DefinesTracing(*f) : !r->second);
    pending.push_back({f, std::move(lines), std::move(exits), std::move(structure), ce, marks, needs_include});
  }
  std::vector<std::string> includers;
  for (const Pending& p : pending)
    if (p.needs_include && p.f != own_definition) includers.push_back(p.f->rel);
  fs::path header_dir;
  if (own_definition) {
    result.trace_header = own_definition->rel;
    result.tree_defines_tracing = true;
  } else if (!includers.empty()) {
    // Beside the kernel entries too (usually op_kernel/), not in whichever subfolder needs it.
    for (const PlanKernel& k : plan.kernels) includers.push_back(k.entry);
    header_dir = CommonFolder(includers);
    result.trace_header = (header_dir / kSingleHeaderName).generic_string();
  }
  for (Pending& p : pending) {
    const SourceFile* f = p.f;
    const std::string& text = original[f->rel];
    if (p.needs_include && f != own_definition) {
      std::string spelled = own_definition ? fs::path(own_definition->rel)
                                                 .lexically_relative(fs::path(f->rel).parent_path())
                                                 .generic_string()
                                           : RelativeInclude(f->rel, header_dir);
      p.lines.push_back({IncludeLine(f->lex), false, INT_MAX, "", "#include \"" + spelled + "\""});
    }
    if (!p.exits.empty() && !p.structure) p.structure.emplace(AnalyzeStructure(f->lex));
    static const std::map<int, std::vector<std::pair<size_t, std::string>>> kNone;
    OPTRACE_ASSIGN_OR_RETURN(std::string after,
                             ApplyMarks(*f, p.structure ? &*p.structure : nullptr, std::move(p.lines), p.exits, traced,
                                        p.ce ? p.ce->inserts : kNone));
    if (after == text) continue;
    result.changes.push_back({f->path, f->rel, text, std::move(after), p.marks});
  }
  // The single header, placed or updated in place (a file of that name that optrace did not
  // generate is the user's: never overwritten).
  if (!result.trace_header.empty() && !own_definition) {
    fs::path path = plan.op_dir / result.trace_header;
    std::string before;
    std::error_code ec;
    FileChange::Kind kind = FileChange::Kind::kCreate;
    if (fs::exists(path, ec)) {
      OPTRACE_ASSIGN_OR_RETURN(before, ReadFileToString(path));
      if (!ReadSingleHeaderInfo(before))
        return BadInputError("{}: exists and is not optrace's generated header; rename it, or instrument by hand "
                             "with your own include of optrace",
                             result.trace_header);
      kind = FileChange::Kind::kEdit;
    }
    if (before != SingleHeaderText())
      result.changes.push_back({path, result.trace_header, before, std::string(SingleHeaderText()), 0, kind});
  }
  return result;
}

Result<InstrumentResult> RevertInstrumentation(const fs::path& op_dir) {
  InstrumentResult result;
  OPTRACE_ASSIGN_OR_RETURN(SourceListing listing, ListOperatorFiles(op_dir));
  SourceSet set(op_dir);
  for (const fs::path& p : listing.sources) {
    OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(p));
    if (!HasInstrumentation(text)) continue;
    std::vector<int> stale;
    std::string after = RevertText(text, &stale);
    std::string rel = set.Relative(p);
    for (int l : stale)
      result.warnings.push_back(
          fmt::format("{}:{}: kept: its optrace:auto tag no longer matches the code (edited since "
                      "instrument ran); delete the line by hand if it is not yours",
                      rel, l));
    if (after == text) continue;
    int removed =
        static_cast<int>(std::count(text.begin(), text.end(), '\n') - std::count(after.begin(), after.end(), '\n'));
    result.changes.push_back({p, rel, text, std::move(after), removed});
  }
  for (const fs::path& p : listing.single_headers) {
    OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(p));
    if (!ReadSingleHeaderInfo(text)) continue;  // a file of that name optrace did not generate
    result.changes.push_back({p, set.Relative(p), std::move(text), "", 0, FileChange::Kind::kRemove});
  }
  // The build hook's fingerprint stamps (scan --stamp-fingerprint) go with the header they serve.
  for (const fs::path& p : listing.point_set_headers) {
    OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(p));
    if (!IsPointSetStamp(text)) continue;
    result.changes.push_back({p, set.Relative(p), std::move(text), "", 0, FileChange::Kind::kRemove});
  }
  return result;
}

}  // namespace optrace::source
