// Sample rules for Python drivers (gates G4 and G5): save_profiling_data only after a device
// synchronize in the same function, and dump/trace/map paths resolved with
// Path(...).expanduser().resolve() before multiprocessing spawn.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

#include "core/file_io.h"
#include "core/bounded_regex.h"
#include "source/lint/lint_context.h"
#include "source/index/op_def.h"

namespace optrace::source {
namespace {

struct PyLine {
  int number;
  int indent;
  std::string code;  // without the comment
};

// Blanks the inside of string literals (single, double, triple-quoted) and comments, keeping
// newlines and columns, so that code patterns never match text in strings or docstrings.
std::string BlankStringsAndComments(const std::string& in) {
  std::string out = in;
  size_t i = 0, n = in.size();
  while (i < n) {
    char c = in[i];
    if (c == '#') {
      while (i < n && in[i] != '\n') out[i++] = ' ';
      continue;
    }
    if (c != '\'' && c != '"') {
      ++i;
      continue;
    }
    bool triple = i + 2 < n && in[i + 1] == c && in[i + 2] == c;
    size_t q = triple ? 3 : 1;
    i += q;
    while (i < n) {
      if (in[i] == '\\') {
        out[i] = ' ';
        if (i + 1 < n && in[i + 1] != '\n') out[i + 1] = ' ';
        i += 2;
        continue;
      }
      if (in[i] == c && (!triple || (i + 2 < n && in[i + 1] == c && in[i + 2] == c))) {
        i += q;
        break;
      }
      if (in[i] == '\n' && !triple) break;
      if (in[i] != '\n') out[i] = ' ';
      ++i;
    }
  }
  return out;
}

std::vector<PyLine> SplitPython(const std::string& raw) {
  std::string text = BlankStringsAndComments(raw);
  std::vector<PyLine> out;
  size_t start = 0;
  int number = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    ++number;
    std::string code = line;
    size_t first = code.find_first_not_of(" \t\r");
    if (first != std::string::npos) out.push_back({number, static_cast<int>(first), code});
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

// Index of the `def` line that owns line k (-1: module level).
// For every line, the `def` it belongs to (the nearest enclosing def through if/for blocks), -1
// at module level. One pass with a stack of open blocks: linear, where asking per line from
// that line backwards was quadratic on a 50,000-line sample.
std::vector<int> OwningDefs(const std::vector<PyLine>& lines) {
  struct Open {
    int indent;
    int def;  // nearest def at or below this block
  };
  std::vector<Open> stack;
  std::vector<int> owner(lines.size(), -1);
  for (size_t k = 0; k < lines.size(); ++k) {
    const int indent = lines[k].indent;
    while (!stack.empty() && stack.back().indent >= indent) stack.pop_back();
    owner[k] = stack.empty() ? -1 : stack.back().def;
    const bool is_def =
        lines[k].code.find("def ", static_cast<size_t>(indent)) == static_cast<size_t>(indent);
    stack.push_back({indent, is_def ? static_cast<int>(k) : owner[k]});
  }
  return owner;
}

// Top-level comma-separated pieces of text[begin, end), trimmed (strings are already blanked).
std::vector<std::string> SplitTopLevel(const std::string& text, size_t begin, size_t end) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = begin;
  auto push = [&](size_t stop) {
    std::string piece = text.substr(start, stop - start);
    size_t a = piece.find_first_not_of(" \t\r\n\\");
    size_t b = piece.find_last_not_of(" \t\r\n\\");
    if (a != std::string::npos) out.push_back(piece.substr(a, b - a + 1));
  };
  for (size_t i = begin; i < end; ++i) {
    char c = text[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      push(i);
      start = i + 1;
    }
  }
  push(end);
  return out;
}

size_t MatchingParen(const std::string& text, size_t open) {
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == '(' || text[i] == '[' || text[i] == '{') ++depth;
    if ((text[i] == ')' || text[i] == ']' || text[i] == '}') && --depth == 0) return i;
  }
  return std::string::npos;
}


bool IsIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// The right-hand side of `name = value` (trimmed), empty when the line is not such an assignment.
std::string AssignedValue(const std::string& code) {
  size_t eq = code.find('=');
  if (eq == std::string::npos || (eq + 1 < code.size() && code[eq + 1] == '=')) return {};
  size_t b = code.find_first_not_of(" \t", eq + 1);
  if (b == std::string::npos) return {};
  size_t e = code.find_last_not_of(" \t\r");
  return code.substr(b, e + 1 - b);
}

// A name that holds a path (of `a.b.name`, the last part): a word of it is dir / path / file /
// folder / map (profiling_dir, point_map, trace_file), it ends in dir / path / folder (outdir), or
// it is the seed's chrome_trace. Substrings are not enough: `out_data_type`, `recvout`, `timeout`
// and a `--profile` or `--trace` switch are no paths (each was a false sample-path-resolve error).
bool IsPathLikeName(const std::string& chain) {
  std::string n = chain.substr(chain.rfind('.') == std::string::npos ? 0 : chain.rfind('.') + 1);
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n == "chrome_trace") return true;
  for (const char* end : {"dir", "path", "folder", "file"})  // outDir, traceFile; not a `profile` switch
    if (n.ends_with(end) && !n.ends_with("profile")) return true;
  size_t b = 0;
  while (b <= n.size()) {
    size_t e = n.find('_', b);
    if (e == std::string::npos) e = n.size();
    std::string_view word(n.data() + b, e - b);
    for (const char* w : {"dir", "path", "file", "folder", "map", "dirs", "paths", "files"})
      if (word == w) return true;
    b = e + 1;
  }
  return false;
}

// The path-like attributes a namespace `ns` may carry: `ns.<attr>` read anywhere in the file
// (text, strings blanked), and, when the file parses arguments, the destinations of its
// add_argument("--x-dir") calls (raw: the option names are strings).
std::set<std::string> PathLikeAttributes(const std::string& text, const std::string& raw, const std::string& ns) {
  std::set<std::string> out;
  const std::regex attr("\\b" + ns + R"(\.([A-Za-z_][A-Za-z0-9_]*)\b)");
  for (auto m = std::sregex_iterator(text.begin(), text.end(), attr); m != std::sregex_iterator(); ++m)
    if (IsPathLikeName(m->str(1)) && text.compare(static_cast<size_t>(m->position(0) + m->length(0)), 1, "(") != 0)
      out.insert(m->str(1));
  if (text.find("parse_args") == std::string::npos) return out;
  static const std::regex kOption(R"(add_argument\(\s*['"]--([A-Za-z0-9_-]+)['"])");
  for (auto m = std::sregex_iterator(raw.begin(), raw.end(), kOption); m != std::sregex_iterator(); ++m) {
    std::string dest = m->str(1);
    std::replace(dest.begin(), dest.end(), '-', '_');
    if (IsPathLikeName(dest)) out.insert(dest);
  }
  return out;
}

// G5: every path-like argument handed to spawned workers (multiprocessing.spawn / mp.spawn /
// start_processes args, get_context("spawn").Process(args=...)) is a variable whose last
// assignment before the call goes through .expanduser() and .resolve().
void CheckSpawnPaths(LintContext& ctx, const std::string& rel, const std::string& raw, const std::vector<PyLine>& lines) {
  static const std::regex kSpawn(R"(\b(spawn|start_processes|Process)\s*\()");
  static const std::regex kChain(R"([A-Za-z_][A-Za-z0-9_.]*)");
  std::string text = BlankStringsAndComments(raw);
  // Assignments `name = ...` by name, in line order: the last one before a call is a binary
  // search, not a regex over every line per call (quadratic on long samples).
  std::map<std::string, std::vector<const PyLine*>> assignments;
  for (const PyLine& l : lines) {
    const std::string& c = l.code;
    size_t a = c.find_first_not_of(" \t");
    if (a == std::string::npos || !(std::isalpha(static_cast<unsigned char>(c[a])) || c[a] == '_')) continue;
    size_t b = a;
    while (b < c.size() && (std::isalnum(static_cast<unsigned char>(c[b])) || c[b] == '_' || c[b] == '.')) ++b;
    size_t e = c.find_first_not_of(" \t", b);
    if (e == std::string::npos) continue;
    if (c[e] == ':') {  // an annotation: `out_dir: Path = ...`
      e = c.find('=', e);
      if (e == std::string::npos) continue;
    }
    if (c[e] != '=' || (e + 1 < c.size() && c[e + 1] == '=')) continue;
    assignments[c.substr(a, b - a)].push_back(&l);
  }
  size_t counted_to = 0;
  int counted_line = 1;
  for (auto m = std::sregex_iterator(text.begin(), text.end(), kSpawn); m != std::sregex_iterator(); ++m) {
    size_t at = static_cast<size_t>(m->position(0));
    size_t line_start = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
    if (text.substr(line_start, at - line_start).find("def ") != std::string::npos) continue;
    counted_line += static_cast<int>(std::count(text.begin() + static_cast<long>(counted_to),
                                                text.begin() + static_cast<long>(at), '\n'));
    counted_to = at;
    int line = counted_line;
    size_t open = at + static_cast<size_t>(m->length(0)) - 1;
    size_t close = MatchingParen(text, open);
    if (close == std::string::npos) continue;
    std::string name = m->str(1);
    std::string value;
    std::vector<std::string> call_args = SplitTopLevel(text, open + 1, close);
    for (const std::string& a : call_args) {
      static const std::regex kArgsKw(R"(^args\s*=([^=][\s\S]*)$)");
      std::smatch kw;
      if (BoundedMatch(a, kw, kArgsKw)) value = kw.str(1);
    }
    if (value.empty() && name != "Process" && call_args.size() >= 2 && call_args[1].find('=') == std::string::npos)
      value = call_args[1];
    size_t v = value.find_first_not_of(" \t\r\n");
    if (v == std::string::npos) continue;
    value = value.substr(v, value.find_last_not_of(" \t\r\n") + 1 - v);
    // The last assignment `chain = ...` before the call.
    auto last_before = [&](const std::string& chain) -> const PyLine* {
      auto it = assignments.find(chain);
      if (it == assignments.end()) return nullptr;
      auto after_call = std::lower_bound(it->second.begin(), it->second.end(), line,
                                         [](const PyLine* l, int n) { return l->number < n; });
      return after_call == it->second.begin() ? nullptr : *(after_call - 1);
    };
    if (value[0] != '(' && value[0] != '[') {
      // A tuple built in a variable (`spawn_args = (rank, out_dir)`, then args=spawn_args) is
      // followed to that assignment; one lint cannot follow leaves G5 not checkable.
      const PyLine* def = IsIdentifier(value) ? last_before(value) : nullptr;
      std::string rhs = def ? AssignedValue(def->code) : std::string();
      if (rhs.empty() || (rhs[0] != '(' && rhs[0] != '[') || MatchingParen(rhs, 0) == std::string::npos) {
        ctx.Report(rel, line, static_cast<int>(at - line_start) + 1, "sample-spawn-args-unfollowed",
                   fmt::format("the arguments of {}( ({}) are not a tuple written in this file, so whether they "
                               "carry unresolved paths is not checkable statically; build the tuple in the call "
                               "from resolved paths",
                               name, value.size() > 40 ? value.substr(0, 40) + "..." : value));
        continue;
      }
      value = rhs;
    }
    size_t vclose = MatchingParen(value, 0);
    if (vclose == std::string::npos) continue;
    for (const std::string& element : SplitTopLevel(value, 1, vclose)) {
      for (auto c = std::sregex_iterator(element.begin(), element.end(), kChain); c != std::sregex_iterator(); ++c) {
        std::string chain = c->str(0);
        size_t after = static_cast<size_t>(c->position(0) + c->length(0));
        size_t next = element.find_first_not_of(" \t", after);
        if (next != std::string::npos && element[next] == '(') continue;  // a function: str(x), Path(x)
        if (!IsPathLikeName(chain)) {
          // A namespace handed over whole (`args=(args,)`, the seed's own sample): each path-like
          // attribute it carries (an add_argument of the file, or `args.x_dir` read anywhere in
          // it) must be resolved on it before the spawn: `args.profiling_dir = str(Path(
          // args.profiling_dir).expanduser().resolve())`.
          if (chain.find('.') != std::string::npos) continue;
          for (const std::string& attr : PathLikeAttributes(text, raw, chain)) {
            const PyLine* last = last_before(chain + "." + attr);
            if (last && last->code.find("expanduser()") != std::string::npos &&
                last->code.find(".resolve()") != std::string::npos)
              continue;
            ctx.Report(rel, line, static_cast<int>(at - line_start) + 1, "sample-path-resolve",
                       fmt::format("\"{0}.{1}\" reaches the spawned workers unresolved inside \"{0}\" ({2}); set "
                                   "{0}.{1} = str(Path({0}.{1}).expanduser().resolve()) before {3}(",
                                   chain, attr,
                                   last ? fmt::format("its last assignment (line {}) does not go through "
                                                      ".expanduser().resolve()",
                                                      last->number)
                                        : "it is never resolved in this file",
                                   name));
          }
          continue;
        }
        const PyLine* last = last_before(chain);
        bool resolved = last && last->code.find("expanduser()") != std::string::npos &&
                        last->code.find(".resolve()") != std::string::npos;
        if (resolved) continue;
        std::string where = last ? fmt::format("its last assignment (line {}) does not go through "
                                               ".expanduser().resolve()",
                                               last->number)
                                 : "it is never assigned in this file";
        ctx.Report(rel, line, static_cast<int>(at - line_start) + 1, "sample-path-resolve",
                   fmt::format("\"{}\" reaches the spawned workers unresolved ({}); set it to "
                               "Path(...).expanduser().resolve() before {}(",
                               chain, where, name));
      }
    }
  }
}

// What the operator returns to Python once instrumented: its OpDef outputs, the last being the
// profiling buffer.
struct OpOutputs {
  std::string op;  // normalized OpDef class name (moedispatchcombine)
  size_t count = 0;
  std::string profiling;
};

bool IsOpCall(const std::string& name, const std::string& op) {
  std::string n = NormalizeName(name);
  if (n.rfind("npu", 0) == 0 && n.substr(3) == op) return true;  // torch_npu.npu_<op>
  return n == op;
}

// G4: a sample that calls the instrumented operator takes every output, profiling included, and
// saves it. Catches the classic break: `y, z = torch.ops.ns.op(...)` after the OpDef gained an
// output (a Python "too many values to unpack"), and a driver that never calls
// save_profiling_data, which leaves the run without a trace.
void CheckOutputs(LintContext& ctx, const std::string& rel, const std::string& raw, const OpOutputs& op) {
  static const std::regex kCall(R"(\b(?:torch\.ops\.[A-Za-z_][A-Za-z0-9_]*|torch_npu)\.([A-Za-z_][A-Za-z0-9_]*)\s*\()");
  static const std::regex kSave(R"(\bsave_profiling_data\s*\()");
  std::string text = BlankStringsAndComments(raw);
  int first_call_line = 0, first_call_column = 0;
  for (auto m = std::sregex_iterator(text.begin(), text.end(), kCall); m != std::sregex_iterator(); ++m) {
    if (!IsOpCall(m->str(1), op.op)) continue;
    size_t at = static_cast<size_t>(m->position(0));
    size_t line_start = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
    int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
    int column = static_cast<int>(at - line_start) + 1;
    if (first_call_line == 0) first_call_line = line, first_call_column = column;
    // The statement's assignment targets: `a, b = call(` on the same logical line.
    std::string before = text.substr(line_start, at - line_start);
    size_t eq = before.rfind('=');
    if (eq == std::string::npos || (eq > 0 && std::string("=!<>+-*/").find(before[eq - 1]) != std::string::npos))
      continue;  // used inside an expression (return op(...), f(op(...))): not followed
    if (before.find_first_not_of(" \t", eq + 1) != std::string::npos) continue;  // x = f(op(...))
    std::string lhs = before.substr(0, eq);
    if (lhs.find('(') != std::string::npos && lhs.find(')') == std::string::npos) continue;  // a keyword argument
    std::vector<std::string> targets = SplitTopLevel(lhs, 0, lhs.size());
    if (targets.size() == 1 && !targets[0].empty() && (targets[0][0] == '(' || targets[0][0] == '[')) {
      std::string inner = targets[0];
      targets = SplitTopLevel(inner, 1, inner.size() - 1);
    }
    bool tuple = targets.size() > 1 || lhs.find(',') != std::string::npos;  // `y, = op(...)` unpacks one
    if (!tuple) continue;  // one name holds the whole tuple
    bool starred = false;
    for (const std::string& t : targets) starred = starred || (!t.empty() && t[0] == '*');
    if (starred || targets.size() == op.count) continue;
    ctx.Report(rel, line, column, "sample-output",
               targets.size() + 1 == op.count
                   ? fmt::format("unpacks {} outputs but the operator returns {} (the last is \"{}\"); add a "
                                 "target for it and pass it to save_profiling_data",
                                 targets.size(), op.count, op.profiling)
                   : fmt::format("unpacks {} outputs but the operator returns {}", targets.size(), op.count));
  }
  if (first_call_line == 0) return;
  for (const PyLine& l : SplitPython(raw)) {
    std::smatch m;
    if (BoundedSearch(l.code, m, kSave) && l.code.find("def save_profiling_data") == std::string::npos &&
        l.code.find("import") == std::string::npos)
      return;
  }
  ctx.Report(rel, first_call_line, first_call_column, "sample-output",
             fmt::format("calls the operator but never saves its \"{}\" output; call "
                         "save_profiling_data(<that output>, rank, <dir>) after a device synchronize",
                         op.profiling));
}

void CheckFile(LintContext& ctx, const std::string& rel, const std::string& text) {
  std::vector<PyLine> lines = SplitPython(text);
  static const std::regex kSave(R"(\bsave_profiling_data\s*\()");
  static const std::regex kSync(R"(\bsynchronize\s*\()");
  // G4: synchronize before save_profiling_data, in the same function. Prefix counts of
  // synchronize lines make each check O(1).
  const std::vector<int> owner = OwningDefs(lines);
  std::vector<uint32_t> syncs_before(lines.size() + 1, 0);
  for (size_t j = 0; j < lines.size(); ++j)
    syncs_before[j + 1] = syncs_before[j] + (lines[j].code.find("synchronize") != std::string::npos &&
                                             BoundedSearch(lines[j].code, kSync));
  for (size_t k = 0; k < lines.size(); ++k) {
    std::smatch m;
    if (lines[k].code.find("save_profiling_data") == std::string::npos || !BoundedSearch(lines[k].code, m, kSave))
      continue;
    if (lines[k].code.find("def save_profiling_data") != std::string::npos) continue;
    if (lines[k].code.find("import") != std::string::npos) continue;
    const int def = owner[k];
    bool synced = syncs_before[k] > syncs_before[def < 0 ? 0 : static_cast<size_t>(def)];
    if (!synced) {
      ctx.Report(rel, lines[k].number, static_cast<int>(m.position(0)) + 1, "sample-sync",
                 "save_profiling_data runs without a device synchronize before it in this function; call "
                 "torch_npu.npu.synchronize() (or torch.cuda.synchronize()) first, or the buffer may be empty");
    }
  }
  CheckSpawnPaths(ctx, rel, text, lines);
}

}  // namespace

void CheckSamples(LintContext& ctx) {
  OpOutputs outputs;
  if (!ctx.op_dir.empty()) {
    std::vector<const SourceFile*> host;
    for (const SourceFile* f : ctx.files)
      if (f->rel.rfind("op_host/", 0) == 0 || f->rel.find("/op_host/") != std::string::npos) host.push_back(f);
    OpDef def = ParseOpDef(host);
    if (def.profiling >= 0) {
      outputs.op = NormalizeName(def.class_name);
      outputs.count = def.outputs.size();
      outputs.profiling = def.outputs[static_cast<size_t>(def.profiling)].name;
    }
  }
  for (const auto& path : ctx.python_files) {
    auto text = ReadFileToString(path);
    if (!text.ok()) {
      ctx.Report(ctx.sources->Relative(path), 0, 0, "sample-sync", text.status().message());
      continue;
    }
    CheckFile(ctx, ctx.sources->Relative(path), *text);
    std::string code = BlankStringsAndComments(*text);
    // A call, bare or through its module (`trace_utils.save_profiling_data(...)`, the source
    // toolchain's own sample); not its definition or an import.
    static const std::regex kSaveCall(R"((^|[^A-Za-z0-9_])save_profiling_data\s*\()");
    static const std::regex kSpawnCall(R"(\b(spawn|start_processes|Process)\s*\()");
    bool saves = false;
    for (auto m = std::sregex_iterator(code.begin(), code.end(), kSaveCall); m != std::sregex_iterator() && !saves; ++m) {
      size_t at = static_cast<size_t>(m->position(0));
      size_t ls = code.rfind('\n', at) == std::string::npos ? 0 : code.rfind('\n', at) + 1;
      std::string head = code.substr(ls, at - ls);
      saves = head.find("def ") == std::string::npos && head.find("import") == std::string::npos;
    }
    ++ctx.facts.samples;
    ctx.facts.saving_samples += saves;
    ctx.facts.spawning_samples += BoundedSearch(code, kSpawnCall);
    if (!outputs.op.empty()) CheckOutputs(ctx, ctx.sources->Relative(path), *text, outputs);
  }
}

}  // namespace optrace::source
