// Runs the host compiler once per (kernel entry, core type) and once per host source, and sorts
// the errors by who owns them.
#include "source/compile/compile_check.h"

#include "core/shell_quote.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

#include "core/file_io.h"
#include "core/subprocess.h"
#include "source/compile/tiling_standin.h"
#include "source/lexer/trace_header.h"
#include "source/plan/instrument.h"

namespace optrace::source {
namespace fs = std::filesystem;
namespace {

constexpr size_t kMaxCompilerOutput = 8u << 20;

std::string Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return std::string(s);
}

bool IsUnder(const fs::path& p, const fs::path& dir) {
  auto rel = p.lexically_relative(dir);
  return !rel.empty() && *rel.begin() != "..";
}

fs::path Canonical(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal() : c;
}

bool IsClang(const std::string& compiler) { return fs::path(compiler).filename().string().find("clang") != std::string::npos; }

// The CPU-debug defines of one core type of chip `arch` (CANN's own CPU-debug targets).
std::vector<std::string> CpuDebugDefines(int arch, bool aic) {
  std::vector<std::string> d{"-DASCENDC_CPU_DEBUG=1", "-D__CCE_KT_TEST__=1", fmt::format("-D__NPU_ARCH__={}", arch),
                             "-D_GLIBCXX_USE_CXX11_ABI=0"};
  if (arch == 2201) {
    d.push_back("-D__CCE_AICORE__=220");
    d.push_back("-D__DAV_C220__");
    d.push_back(aic ? "-D__DAV_C220_CUBE__" : "-D__DAV_C220_VEC__");
    d.push_back(aic ? "-D__DAV_CUBE__" : "-D__DAV_VEC__");
  } else if (arch == 3510) {
    d.push_back("-D__DAV_C310__");
    d.push_back(aic ? "-D__DAV_C310_CUBE__" : "-D__DAV_C310_VEC__");
    d.push_back(aic ? "-D__DAV_CUBE__" : "-D__DAV_VEC__");
  } else if (arch == 2002) {
    d.push_back("-D__CCE_AICORE__=200");
    d.push_back("-D__DAV_M200__");
  }
  return d;
}

// Lines of the operator's files, read once per run.
class LineCache {
 public:
  std::string Line(const fs::path& file, int line) {
    auto it = files_.find(file);
    if (it == files_.end()) {
      std::vector<std::string> lines;
      if (auto text = ReadFileToString(file); text.ok()) {
        size_t pos = 0;
        while (pos <= text->size()) {
          size_t nl = text->find('\n', pos);
          if (nl == std::string::npos) nl = text->size();
          lines.emplace_back(text->substr(pos, nl - pos));
          pos = nl + 1;
        }
      }
      it = files_.emplace(file, std::move(lines)).first;
    }
    if (line < 1 || static_cast<size_t>(line) > it->second.size()) return "";
    return it->second[static_cast<size_t>(line - 1)];
  }

 private:
  std::map<fs::path, std::vector<std::string>> files_;
};

}  // namespace

size_t CompileCheckReport::FatalCount() const {
  size_t n = 0;
  for (const CompileUnitResult& u : units) n += !u.fatal.empty();
  return n;
}

size_t CompileCheckReport::UnitCount(bool host) const {
  size_t n = 0;
  for (const CompileUnitResult& u : units) n += (u.core == "host") == host;
  return n;
}

size_t CompileCheckReport::ErrorCount(bool host) const {
  size_t n = 0;
  for (const CompileUnitResult& u : units) n += (u.core == "host") == host ? u.errors.size() : 0;
  return n;
}

size_t CompileCheckReport::FatalCount(bool host) const {
  size_t n = 0;
  for (const CompileUnitResult& u : units) n += (u.core == "host") == host && !u.fatal.empty();
  return n;
}

size_t CompileCheckReport::ErrorCount() const {
  size_t n = 0;
  for (const CompileUnitResult& u : units) n += u.errors.size();
  return n;
}

Result<std::string> FindHostCompiler(const std::string& requested) {
  const char* path_env = std::getenv("PATH");
  std::string path = path_env ? path_env : "/usr/bin:/bin";
  if (!requested.empty()) {
    if (auto exe = FindOnPath(requested, path)) return *exe;
    return NotFoundError("{}: compiler not found or not executable; pass --cxx with a g++ or clang++", requested);
  }
  if (const char* cxx = std::getenv("CXX"); cxx != nullptr && *cxx != 0) {
    std::string first(cxx);
    first = first.substr(0, first.find(' '));
    if (auto exe = FindOnPath(first, path)) return *exe;
  }
  for (const char* name : {"clang++", "clang++-14", "g++", "c++"})
    if (auto exe = FindOnPath(name, path)) return *exe;
  return NotFoundError("no host C++ compiler (clang++, g++, c++) on PATH; install one or pass --cxx");
}

std::vector<ParsedDiagnostic> ParseCompilerErrors(std::string_view output) {
  std::vector<ParsedDiagnostic> out;
  size_t pos = 0;
  while (pos < output.size()) {
    size_t nl = output.find('\n', pos);
    if (nl == std::string_view::npos) nl = output.size();
    std::string_view line = output.substr(pos, nl - pos);
    pos = nl + 1;
    // "path:12:5: error: message", "path:12: error: message", "path:12:5: fatal error: message"
    size_t kind = line.find(": error: ");
    size_t kind_len = 9;
    bool fatal = false;
    if (kind == std::string_view::npos) {
      kind = line.find(": fatal error: ");
      kind_len = 15;
      fatal = true;
    }
    if (kind == std::string_view::npos) continue;
    std::string_view head = line.substr(0, kind);
    ParsedDiagnostic d;
    d.fatal = fatal;
    d.message = std::string(line.substr(kind + kind_len));
    auto number_at_end = [](std::string_view& s, int* value) {
      size_t c = s.rfind(':');
      if (c == std::string_view::npos || c + 1 == s.size()) return false;
      int v = 0;
      for (char ch : s.substr(c + 1)) {
        if (ch < '0' || ch > '9') return false;
        v = v * 10 + (ch - '0');
        if (v > 100000000) return false;
      }
      *value = v;
      s = s.substr(0, c);
      return true;
    };
    int a = 0, b = 0;
    if (!number_at_end(head, &a)) continue;  // "cc1plus: error: ..." has no position
    if (number_at_end(head, &b)) {
      d.line = b;
      d.column = a;
    } else {
      d.line = a;
    }
    d.file = std::string(head);
    out.push_back(std::move(d));
  }
  return out;
}

Result<PreparedCompileCheck> PrepareCompileCheck(const CompileCheckRequest& request) {
  PreparedCompileCheck out;
  std::optional<fs::path> root = request.sdk.empty() ? DefaultSdkRoot() : std::optional<fs::path>(request.sdk);
  if (!root) {
    out.unchecked = "compile check not run: no CANN SDK (set ASCEND_HOME_PATH or pass --sdk DIR)";
    return out;
  }
  Result<SdkLayout> sdk = LocateSdk(ResolveAgainstCwd(*root));
  if (!sdk.ok()) {
    if (!request.sdk.empty()) return sdk.status();  // named on the command line: the user's mistake
    out.unchecked = fmt::format("compile check not run: {}", sdk.status().message());
    return out;
  }
  CompileCheckOptions o;
  for (const fs::path& d : request.include_dirs) o.include_dirs.push_back(ResolveAgainstCwd(d));
  bool stubs = sdk->cpu_stubs;
  for (const fs::path& d : o.include_dirs) {
    std::error_code ec;
    stubs = stubs || fs::is_regular_file(d / "stub_def.h", ec);
  }
  if (!stubs) {
    out.unchecked = fmt::format(
        "compile check not run: {} has no CPU-debug headers (tikicpulib's stub_def.h, in a CANN toolkit's "
        "tools/tikicpulib/lib/include); point --sdk at an installed toolkit",
        sdk->description);
    return out;
  }
  Result<std::string> compiler = FindHostCompiler(request.cxx);
  if (!compiler.ok()) {
    if (!request.cxx.empty()) return compiler.status();
    out.unchecked = fmt::format("compile check not run: {}", compiler.status().message());
    return out;
  }
  o.sdk = std::move(*sdk);
  o.compiler = *compiler;
  o.op_root = ResolveAgainstCwd(request.op_root);
  o.npu_arch = request.npu_arch;
  out.options = std::move(o);
  return out;
}

Result<CompileCheckReport> RunCompileCheck(const CompileCheckOptions& options, const std::vector<CompileUnit>& units) {
  OPTRACE_ASSIGN_OR_RETURN(std::string compiler, FindHostCompiler(options.compiler));
  const fs::path op_root = Canonical(options.op_root);
  CompileCheckReport report;
  report.sdk = options.sdk.description;
  report.compiler = compiler;
  LineCache lines;
  const bool clang = IsClang(compiler);
  // The generated tiling header's stand-in, written to a folder of its own for this run.
  fs::path standin;
  struct RemoveOnExit {
    fs::path dir;
    ~RemoveOnExit() {
      std::error_code ec;
      if (!dir.empty()) fs::remove_all(dir, ec);
    }
  } cleanup;
  if (options.tiling_standin) {
    OPTRACE_ASSIGN_OR_RETURN(TilingStandIn t, MakeTilingStandIn(op_root));
    if (!t.header.empty()) {
      static std::atomic<int> serial{0};
      cleanup.dir = fs::temp_directory_path() / fmt::format("optrace-tiling-{}-{}", ::getpid(), serial++);
      std::error_code ec;
      fs::create_directories(cleanup.dir, ec);
      standin = cleanup.dir / "optrace_tiling_standin.h";
      if (Status st = WriteFileAtomic(standin, t.header); !st.ok()) return st;
      std::string files;
      for (const std::string& f : t.from) files += (files.empty() ? "" : ", ") + f;
      report.tiling_standin = fmt::format("{} from {}", t.default_struct, files);
    }
  }
  for (const CompileUnit& unit : units) {
    for (unsigned pass : {kCompileAic, kCompileAiv, kCompileHost}) {
      if (!(unit.cores & pass)) continue;
      const bool aic = pass == kCompileAic, host = pass == kCompileHost;
      std::vector<std::string> args{"-x", "c++", "-std=c++17", "-fsyntax-only", "-w"};
      if (clang) {
        // -Wno-c++11-narrowing: CANN 8.1's own headers narrow in braced initialisers, which g++ (CANN's
        // CPU-debug compiler) only warns about and clang rejects.
        // -fno-crash-diagnostics: a clang crash on an SDK header writes no reproducer into /tmp.
        for (const char* a : {"-ferror-limit=0", "-fno-caret-diagnostics", "-fno-color-diagnostics",
                              "-Wno-c++11-narrowing", "-fno-crash-diagnostics"})
          args.push_back(a);
      } else {
        for (const char* a : {"-fmax-errors=0", "-fno-diagnostics-show-caret", "-fdiagnostics-color=never"})
          args.push_back(a);
      }
      if (host) {
        // Host code as the team's host build sees it: no kernel defines.
      } else if (options.sdk.kind == SdkKind::kEmulator) {
        args.push_back(aic ? "-D__DAV_C220_CUBE__" : "-D__DAV_C220_VEC__");
      } else {
        for (std::string& d : CpuDebugDefines(options.npu_arch, aic)) args.push_back(std::move(d));
      }
      // The operator's folders and the SDK's, nothing of optrace's: the instrumented tree must
      // compile with the flags its own build has (instrument places optrace_trace.h in the tree).
      for (const fs::path& d : options.include_dirs) args.push_back("-I" + d.string());
      for (const fs::path& d : options.sdk.include_dirs) args.push_back("-I" + d.string());
      if (!host && !standin.empty()) {
        args.push_back("-include");
        args.push_back(standin.string());
      }
      args.push_back(unit.entry.string());

      CompileUnitResult r;
      r.entry = Canonical(unit.entry).lexically_relative(op_root).generic_string();
      r.core = host ? "host" : aic ? "AIC" : "AIV";
      r.command = ShellWord(compiler);
      for (const std::string& a : args) r.command += " " + ShellWord(a);
      auto t0 = std::chrono::steady_clock::now();
      ProcessRun run = RunProcess(compiler, args, options.timeout, true, kMaxCompilerOutput);
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!run.started) return IoError("{}: could not run the compiler", compiler);
      r.timed_out = run.timed_out;
      r.exit_code = run.exit_code;
      std::set<std::tuple<std::string, int, int, std::string>> seen;
      for (ParsedDiagnostic& p : ParseCompilerErrors(run.output)) {
        if (p.fatal && r.fatal.empty()) r.fatal = fmt::format("{}:{}: {}", p.file, p.line, p.message);
        fs::path file = Canonical(fs::path(p.file).is_absolute() ? fs::path(p.file) : fs::current_path() / p.file);
        CompileError e;
        e.line = p.line;
        e.column = p.column;
        e.message = std::move(p.message);
        if (p.fatal && e.message.find("optrace/trace.h") != std::string::npos) {
          // The include the team's build cannot resolve: it names no -I folder of optrace's.
          e.message +=
              "; the operator's build has no include folder of optrace's: run 'optrace instrument --op DIR' "
              "again (it places optrace_trace.h beside the kernel sources and includes it by a relative path), "
              "or write it with 'optrace headers -o DIR' and #include \"optrace_trace.h\"";
        }
        if (IsUnder(file, op_root) && file.filename() == kSingleHeaderName) {
          e.file = file.lexically_relative(op_root).generic_string();
          e.in_operator = true;
          e.optrace_made = true;  // the header instrument placed
        } else if (IsUnder(file, op_root)) {
          e.file = file.lexically_relative(op_root).generic_string();
          e.in_operator = true;
          std::string text = lines.Line(file, e.line);
          e.optrace_made = HasInstrumentation(text);
          e.source_line = Trim(text);
          // What the line was before instrument: a rewritten line compares by its old code,
          // an inserted one by nothing (so its errors are always new).
          e.original_line = e.optrace_made ? Trim(RevertText(text)) : e.source_line;
        } else {
          if (r.sdk_errors++ == 0) r.first_sdk_error = fmt::format("{}:{}: {}", file.string(), e.line, e.message);
          continue;
        }
        if (!seen.insert({e.file, e.line, e.column, e.message}).second) continue;
        r.errors.push_back(std::move(e));
      }
      report.units.push_back(std::move(r));
    }
  }
  return report;
}

namespace {

// The message without the compiler's spelling suggestion: clang's "; did you mean 'x'?" names
// the closest identifier in scope, which instrument's new `profiling_data` parameter can become
// ("use of undeclared identifier 'tiling_data'; did you mean 'profiling_data'?"): the same error.
std::string WithoutSuggestion(const std::string& message) {
  size_t at = message.find("; did you mean ");
  return at == std::string::npos ? message : message.substr(0, at);
}

}  // namespace

std::vector<CompileError> NewCompileErrors(const CompileCheckReport& before, const CompileCheckReport& after) {
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string>;
  std::map<Key, int> old;
  for (const CompileUnitResult& u : before.units)
    for (const CompileError& e : u.errors) ++old[{u.entry, u.core, e.file, WithoutSuggestion(e.message), e.original_line}];
  std::vector<CompileError> fresh;
  for (const CompileUnitResult& u : after.units) {
    for (const CompileError& e : u.errors) {
      auto it = old.find({u.entry, u.core, e.file, WithoutSuggestion(e.message), e.original_line});
      if (it != old.end() && it->second > 0) {
        --it->second;
        continue;
      }
      fresh.push_back(e);
    }
  }
  return fresh;
}

}  // namespace optrace::source
