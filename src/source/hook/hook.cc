#include "source/hook/hook.h"

#include "core/shell_quote.h"
#include "core/bounded_regex.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <regex>
#include <system_error>
#include <vector>

namespace optrace::source {
namespace {

struct Line {
  size_t begin, end;  // [begin, end) without the newline
  bool has_newline;
};

std::vector<Line> SplitLines(std::string_view s) {
  std::vector<Line> lines;
  size_t start = 0;
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    if (nl == std::string_view::npos) {
      lines.push_back({start, s.size(), false});
      break;
    }
    lines.push_back({start, nl, true});
    start = nl + 1;
  }
  return lines;
}

std::string_view Trimmed(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool IsComment(std::string_view line) { return Trimmed(line).substr(0, 1) == "#"; }

// Marker lines [start, end] (0-based), -1 when absent; error text for unbalanced markers.
void FindMarkers(std::string_view text, const std::vector<Line>& lines, int* start, int* end, std::string* problem) {
  *start = *end = -1;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view l = Trimmed(text.substr(lines[i].begin, lines[i].end - lines[i].begin));
    if (l.substr(0, kHookStart.size()) == kHookStart) {
      if (*start >= 0) *problem = fmt::format("a second {} at line {}", kHookStart, i + 1);
      if (*start < 0) *start = static_cast<int>(i);
    } else if (l.substr(0, kHookEnd.size()) == kHookEnd) {
      if (*start < 0) *problem = fmt::format("{} at line {} has no {} before it", kHookEnd, i + 1, kHookStart);
      if (*end < 0) *end = static_cast<int>(i);
    }
  }
  if (*start >= 0 && *end < 0) *problem = fmt::format("{} at line {} is never closed by {}", kHookStart, *start + 1, kHookEnd);
}

// The last line of the logical line that starts at `i` (backslash continuations).
size_t EndOfLogicalLine(std::string_view text, const std::vector<Line>& lines, size_t i) {
  while (i + 1 < lines.size()) {
    std::string_view l = text.substr(lines[i].begin, lines[i].end - lines[i].begin);
    size_t e = l.find_last_not_of(" \t\r");
    if (e == std::string_view::npos || l[e] != '\\') break;
    ++i;
  }
  return i;
}

Result<size_t> FindAnchor(std::string_view text, const std::vector<Line>& lines, std::string_view script,
                          const HookSpec& spec) {
  auto line_at = [&](size_t i) { return std::string(text.substr(lines[i].begin, lines[i].end - lines[i].begin)); };
  if (!spec.after_regex.empty()) {
    std::regex re;
    try {
      re = std::regex(spec.after_regex);
    } catch (const std::regex_error& e) {
      return UsageError("--after '{}' is not a valid regular expression: {}", spec.after_regex, e.what());
    }
    for (size_t i = 0; i < lines.size(); ++i) {
      if (BoundedSearch(line_at(i), re)) return EndOfLogicalLine(text, lines, i);
    }
    return BadInputError("{}: no line matches --after '{}'; pick a line of the script to insert the hook after",
                         script, spec.after_regex);
  }
  static const std::regex kBuild(R"((^|[\s/;&|])build\.sh\b)");
  static const std::regex kCopy(R"((^|[\s;&|])(cp|rsync|install|copy_ops|copy_op_sources|cp_ops)\b)");
  size_t build = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string l = line_at(i);
    if (!IsComment(l) && BoundedSearch(l, kBuild)) {
      build = i;
      break;
    }
  }
  if (build == lines.size()) {
    return BadInputError("{}: no line runs build.sh, so there is no default place for the hook; pass --after REGEX "
                         "naming the line that copies the operator sources",
                         script);
  }
  // Shell block depth after each line (do/done, then/fi, case/esac, { }), so that a copy step
  // inside a loop or an if gets the hook after the whole statement, not inside it.
  static const std::regex kOpen(R"((^|[\s;])(do|then|case)(\s|$|;)|\{\s*$)");
  static const std::regex kClose(R"((^|[\s;])(done|fi|esac)(\s|$|;)|^\s*\}\s*$)");
  std::vector<int> depth_after(lines.size(), 0);
  int depth = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string l = line_at(i);
    if (!IsComment(l)) {
      auto count = [&](const std::regex& re) {
        return static_cast<int>(std::distance(std::sregex_iterator(l.begin(), l.end(), re), std::sregex_iterator()));
      };
      depth += count(kOpen) - count(kClose);
      if (depth < 0) depth = 0;
    }
    depth_after[i] = depth;
  }
  for (size_t i = build; i-- > 0;) {
    std::string l = line_at(i);
    if (IsComment(l) || !BoundedSearch(l, kCopy)) continue;
    size_t anchor = EndOfLogicalLine(text, lines, i);
    for (size_t j = anchor; j < build && depth_after[anchor] > 0; ++j) {
      if (depth_after[j] == 0) {
        anchor = j;
        break;
      }
    }
    return anchor;
  }
  if (build == 0) return BadInputError("{}: build.sh runs on the first line; pass --after REGEX", script);
  // No copy step: right before build.sh, i.e. after the logical line that precedes it.
  size_t prev = build - 1;
  return prev;
}

constexpr size_t kBeforeFirstLine = static_cast<size_t>(-1);

// CMake: the line that closes project(...), else cmake_minimum_required(...), else before the
// first line (kBeforeFirstLine). Comments (# to the end of the line) are skipped.
size_t FindCMakeAnchor(std::string_view text, const std::vector<Line>& lines) {
  static const std::regex kProject(R"(^\s*project\s*\()", std::regex::icase);
  static const std::regex kMinimum(R"(^\s*cmake_minimum_required\s*\()", std::regex::icase);
  auto close_of = [&](size_t i) {
    int depth = 0;
    for (size_t j = i; j < lines.size(); ++j) {
      std::string_view l = text.substr(lines[j].begin, lines[j].end - lines[j].begin);
      for (char c : l.substr(0, l.find('#'))) {
        if (c == '(') ++depth;
        if (c == ')' && --depth == 0) return j;
      }
    }
    return i;
  };
  for (const std::regex* re : {&kProject, &kMinimum}) {
    for (size_t i = 0; i < lines.size(); ++i) {
      std::string l(text.substr(lines[i].begin, lines[i].end - lines[i].begin));
      if (BoundedSearch(l, *re)) return close_of(i);
    }
  }
  return kBeforeFirstLine;
}

bool Executable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

bool OnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::string_view p(path);
  while (!p.empty()) {
    size_t colon = p.find(':');
    std::string dir(p.substr(0, colon));
    if (!dir.empty() && Executable(dir + "/" + name)) return true;
    if (colon == std::string_view::npos) break;
    p = p.substr(colon + 1);
  }
  return false;
}

// The value of `OPTRACE_DEFAULT='...'` (the '\'' escapes undone), or nullopt.
std::optional<std::string> ShellSingleQuotedValue(std::string_view line, std::string_view name) {
  if (line.substr(0, name.size() + 1) != std::string(name) + "=") return std::nullopt;
  std::string_view rest = line.substr(name.size() + 1);
  std::string out;
  size_t i = 0;
  while (i < rest.size()) {
    if (rest[i] != '\'') return std::nullopt;
    size_t close = rest.find('\'', i + 1);
    if (close == std::string_view::npos) return std::nullopt;
    out.append(rest.substr(i + 1, close - i - 1));
    i = close + 1;
    if (rest.substr(i, 2) == "\\'") {
      out += '\'';
      i += 2;
    } else {
      break;
    }
  }
  return out;
}

}  // namespace

HookKind HookKindOf(const std::filesystem::path& script) {
  std::string name = script.filename().string();
  return name == "CMakeLists.txt" || script.extension() == ".cmake" ? HookKind::kCMake : HookKind::kShell;
}

namespace {

// A CMake quoted argument: \ and " escaped, ${ kept (a user's --optrace may name a variable).
std::string CMakeQuote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string ShellBody(const HookSpec& spec) {
  std::string bin = spec.optrace_path.empty() ? "optrace" : spec.optrace_path;
  std::string out;
  // Single-quoted for the shell: a path holding $, $(...), ` or " is taken literally.
  out += "OPTRACE_DEFAULT=" + ShellQuote(bin) + "\n";
  out += "OPTRACE=\"${OPTRACE:-$OPTRACE_DEFAULT}\"\n";
  out += "command -v \"$OPTRACE\" >/dev/null 2>&1 || { echo \"optrace not found ($OPTRACE): put optrace on PATH or "
         "set OPTRACE=/path/to/optrace; this build needs it for point_map.json\" >&2; exit 127; }\n";
  out += "OPTRACE_HOOK_DIR=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\n";
  // --modify: the legacy TRACE_POINT fallback is `0`, so ids exist only once the compiled copy
  // is rewritten. --stamp-fingerprint: the binary built next records which scan it was built with.
  out += fmt::format("\"${{OPTRACE}}\" scan \"${{BUILD_DIR:-${{OPTRACE_HOOK_DIR}}}}/op_kernel\" -o "
                     "\"${{BUILD_DIR:-${{OPTRACE_HOOK_DIR}}}}/point_map.json\"{} --stamp-fingerprint ",
                     spec.modify ? " --modify" : "");
  out += "|| { echo \"optrace scan failed: no point_map.json for this build\" >&2; exit 1; }\n";
  return out;
}

std::string CMakeBody(const HookSpec& spec) {
  std::string bin = spec.optrace_path.empty() ? "optrace" : spec.optrace_path;
  std::string sources = spec.cmake_sources.empty() ? "${CMAKE_CURRENT_LIST_DIR}"
                                                   : "${CMAKE_CURRENT_LIST_DIR}/" + spec.cmake_sources;
  std::string modify = spec.modify ? " --modify" : "";
  std::string out;
  out += "# optrace: $OPTRACE, else " + bin + " on PATH; the point map goes to the build folder.\n";
  out += "if(DEFINED ENV{OPTRACE} AND NOT \"$ENV{OPTRACE}\" STREQUAL \"\")\n";
  out += "  set(OPTRACE_EXECUTABLE \"$ENV{OPTRACE}\")\n";
  out += "else()\n";
  out += "  find_program(OPTRACE_EXECUTABLE NAMES " + CMakeQuote(bin) + ")\n";
  out += "endif()\n";
  out += "if(NOT OPTRACE_EXECUTABLE)\n";
  out += "  message(FATAL_ERROR \"optrace not found: put optrace on PATH or set OPTRACE=/path/to/optrace; this build "
         "needs it for point_map.json\")\n";
  out += "endif()\n";
  out += "set(OPTRACE_POINT_MAP \"${CMAKE_CURRENT_BINARY_DIR}/point_map.json\")\n";
  // At configure time, before any kernel compiles, and again on every build.
  out += "execute_process(COMMAND \"${OPTRACE_EXECUTABLE}\" scan \"" + sources + "\" -o \"${OPTRACE_POINT_MAP}\"" +
         modify + " RESULT_VARIABLE OPTRACE_SCAN_RESULT)\n";
  out += "if(NOT OPTRACE_SCAN_RESULT EQUAL 0)\n";
  out += "  message(FATAL_ERROR \"optrace scan failed: no point_map.json for this build\")\n";
  out += "endif()\n";
  out += "if(NOT TARGET optrace_point_map)\n";
  out += "  add_custom_target(optrace_point_map ALL COMMAND \"${OPTRACE_EXECUTABLE}\" scan \"" + sources +
         "\" -o \"${OPTRACE_POINT_MAP}\"" + modify + " COMMENT \"optrace: point_map.json\" VERBATIM)\n";
  out += "endif()\n";
  return out;
}

}  // namespace

std::string HookBlock(const HookSpec& spec) {
  std::string out = std::string(kHookStart) + " (added by `optrace hook install`; `optrace hook remove` undoes it)\n";
  if (!spec.command.empty()) {
    out += spec.command;
    if (out.back() != '\n') out += '\n';
  } else {
    out += spec.kind == HookKind::kCMake ? CMakeBody(spec) : ShellBody(spec);
  }
  out += std::string(kHookEnd) + "\n";
  return out;
}

Result<std::string> InstallHook(std::string_view text, std::string_view script, const HookSpec& spec) {
  std::vector<Line> lines = SplitLines(text);
  int start = -1, end = -1;
  std::string problem;
  FindMarkers(text, lines, &start, &end, &problem);
  if (!problem.empty()) return BadInputError("{}: {}; fix the markers by hand or run 'optrace hook remove'", script, problem);
  std::string block = HookBlock(spec);
  if (start >= 0) {
    // Replace the existing block in place (identical block: no change).
    size_t b = lines[static_cast<size_t>(start)].begin;
    const Line& e = lines[static_cast<size_t>(end)];
    size_t stop = e.has_newline ? e.end + 1 : e.end;
    std::string replacement = e.has_newline ? block : block.substr(0, block.size() - 1);
    return std::string(text.substr(0, b)) + replacement + std::string(text.substr(stop));
  }
  size_t anchor = 0;
  if (spec.kind == HookKind::kCMake && spec.after_regex.empty()) {
    anchor = FindCMakeAnchor(text, lines);
    if (anchor == kBeforeFirstLine) return block + std::string(text);
  } else {
    OPTRACE_ASSIGN_OR_RETURN(anchor, FindAnchor(text, lines, script, spec));
  }
  const Line& a = lines[anchor];
  if (a.has_newline) return std::string(text.substr(0, a.end + 1)) + block + std::string(text.substr(a.end + 1));
  // The anchor is the last line and has no newline: keep the file ending without one.
  return std::string(text) + "\n" + block.substr(0, block.size() - 1);
}

Result<std::string> RemoveHook(std::string_view text, std::string_view script) {
  std::vector<Line> lines = SplitLines(text);
  int start = -1, end = -1;
  std::string problem;
  FindMarkers(text, lines, &start, &end, &problem);
  if (!problem.empty()) return BadInputError("{}: {}; remove the block by hand", script, problem);
  if (start < 0) return std::string(text);
  size_t b = lines[static_cast<size_t>(start)].begin;
  const Line& e = lines[static_cast<size_t>(end)];
  if (e.has_newline) return std::string(text.substr(0, b)) + std::string(text.substr(e.end + 1));
  // The block ends the file without a newline: drop the newline install added before it.
  if (b > 0) --b;
  return std::string(text.substr(0, b));
}

HookStatus VerifyHook(std::string_view text) {
  HookStatus st;
  std::vector<Line> lines = SplitLines(text);
  int start = -1, end = -1;
  FindMarkers(text, lines, &start, &end, &st.problem);
  if (!st.problem.empty()) st.start_line = (start >= 0 ? start : end) + 1;  // where the broken marker is
  if (start < 0 || end < 0) return st;
  st.present = true;
  st.start_line = start + 1;
  st.end_line = end + 1;
  static const std::regex kDefault(R"re(OPTRACE="\$\{OPTRACE:-([^}]*)\}")re");
  static const std::regex kWord(R"re((^|[\s;&|"'])(\S*optrace)["']?\s+(scan|lint))re");
  // A CMake block: the name find_program looks up (before the lines' own words: its messages
  // say "optrace scan failed").
  static const std::regex kFind(R"re(find_program\(OPTRACE_EXECUTABLE NAMES "([^"]*)"\))re");
  for (int i = start + 1; i < end; ++i) {
    std::string l(text.substr(lines[static_cast<size_t>(i)].begin,
                              lines[static_cast<size_t>(i)].end - lines[static_cast<size_t>(i)].begin));
    st.body += l + "\n";
    std::smatch m;
    // scan --modify, or seed 000's trace_preprocessor.py --modify: without --modify the
    // preprocessor only writes the map, and a `0` fallback then records id 0 for every mark.
    if ((l.find("scan") != std::string::npos || l.find("trace_preprocessor") != std::string::npos) &&
        l.find("--modify") != std::string::npos)
      st.rewrites = true;
    std::smatch fm;
    if (st.optrace_path.empty() && BoundedSearch(l, fm, kFind)) st.optrace_path = fm.str(1);
    if (st.optrace_path.empty())
      if (auto v = ShellSingleQuotedValue(l, "OPTRACE_DEFAULT")) st.optrace_path = *v;
    if (st.optrace_path.empty() && BoundedSearch(l, m, kDefault) && m.str(1).find('$') == std::string::npos)
      st.optrace_path = m.str(1);
    if (st.optrace_path.empty() && BoundedSearch(l, m, kWord) && m.str(2).find('$') == std::string::npos) {
      st.optrace_path = m.str(2);
    }
  }
  st.absolute_path = !st.optrace_path.empty() && st.optrace_path.front() == '/';
  if (const char* env = std::getenv("OPTRACE");
      env != nullptr && *env &&
      (st.body.find("${OPTRACE") != std::string::npos || st.body.find("$ENV{OPTRACE}") != std::string::npos)) {
    st.optrace_path = env;
  }
  if (!st.optrace_path.empty()) {
    st.optrace_found = st.optrace_path.find('/') == std::string::npos ? OnPath(st.optrace_path)
                                                                       : Executable(st.optrace_path);
  }
  return st;
}

}  // namespace optrace::source
