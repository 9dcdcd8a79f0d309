// Sample rules for Python drivers (gates G4 and G5): save_profiling_data only after a device
// synchronize in the same function, and dump/trace/map paths resolved with
// Path(...).expanduser().resolve() before multiprocessing spawn.
#include <fmt/format.h>

#include <regex>

#include "core/file_io.h"
#include "source/lint_context.h"

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
int OwningDef(const std::vector<PyLine>& lines, size_t k) {
  int indent = lines[k].indent;
  for (size_t j = k; j-- > 0;) {
    if (lines[j].indent < indent) {
      if (lines[j].code.find("def ", static_cast<size_t>(lines[j].indent)) == static_cast<size_t>(lines[j].indent))
        return static_cast<int>(j);
      indent = lines[j].indent;
    }
  }
  return -1;
}

void CheckFile(LintContext& ctx, const std::string& rel, const std::string& text) {
  std::vector<PyLine> lines = SplitPython(text);
  static const std::regex kSave(R"(\bsave_profiling_data\s*\()");
  static const std::regex kSync(R"(\bsynchronize\s*\()");
  static const std::regex kSpawn(R"(\b(spawn|start_processes)\s*\()");
  // G4: synchronize before save_profiling_data, in the same function.
  for (size_t k = 0; k < lines.size(); ++k) {
    std::smatch m;
    if (!std::regex_search(lines[k].code, m, kSave)) continue;
    if (lines[k].code.find("def save_profiling_data") != std::string::npos) continue;
    if (lines[k].code.find("import") != std::string::npos) continue;
    int def = OwningDef(lines, k);
    bool synced = false;
    for (size_t j = def < 0 ? 0 : static_cast<size_t>(def); j < k; ++j)
      if (std::regex_search(lines[j].code, kSync)) synced = true;
    if (!synced) {
      ctx.Report(rel, lines[k].number, static_cast<int>(m.position(0)) + 1, "sample-sync",
                 "save_profiling_data runs without a device synchronize before it in this function; call "
                 "torch_npu.npu.synchronize() (or torch.cuda.synchronize()) first, or the buffer may be empty");
    }
  }
  // G5: path arguments resolved before spawn.
  for (size_t k = 0; k < lines.size(); ++k) {
    std::smatch m;
    if (!std::regex_search(lines[k].code, m, kSpawn)) continue;
    if (lines[k].code.find("def ") != std::string::npos) continue;
    for (const char* name : {"profiling_dir", "chrome_trace", "point_map"}) {
      if (text.find(name) == std::string::npos) continue;
      bool resolved = false;
      for (size_t j = 0; j < k; ++j) {
        const std::string& c = lines[j].code;
        if (c.find(name) != std::string::npos && c.find(".resolve()") != std::string::npos &&
            c.find("expanduser()") != std::string::npos) {
          resolved = true;
        }
      }
      if (!resolved) {
        ctx.Report(rel, lines[k].number, static_cast<int>(m.position(0)) + 1, "sample-path-resolve",
                   fmt::format("\"{}\" reaches the spawned workers unresolved; set it to "
                               "Path(...).expanduser().resolve() before {}(",
                               name, m.str(1)));
      }
    }
  }
}

}  // namespace

void CheckSamples(LintContext& ctx) {
  for (const auto& path : ctx.python_files) {
    auto text = ReadFileToString(path);
    if (!text.ok()) {
      ctx.Report(ctx.sources->Relative(path), 0, 0, "sample-sync", text.status().message());
      continue;
    }
    CheckFile(ctx, ctx.sources->Relative(path), *text);
  }
}

}  // namespace optrace::source
