// Environment probes (`optrace env`): files first, tools second, each answer with its source.
// Tools run through RunProcess (core/subprocess.h: no shell, own process group, a deadline), so
// a hanging `msprof --help` costs at most the timeout and leaves nothing behind.
#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/file_io.h"
#include "core/subprocess.h"
#include "evidence/environment/environment.h"
#include "evidence/environment/environment_text.h"

namespace optrace::evidence {
namespace fs = std::filesystem;
using env_text::Lines;
using env_text::Lower;
using env_text::Trim;
using env_text::Unquote;
namespace {

constexpr size_t kMaxToolOutput = 64 * 1024;

std::optional<std::string> ReadSmallFile(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;
  auto r = ReadFileToString(p);
  if (!r.ok()) return std::nullopt;
  return std::move(*r);
}

// "key=value" (or "key : value" with sep ':') files: first value of `key`, case-insensitive.
std::optional<std::string> KeyValue(std::string_view text, std::string_view key, char sep) {
  for (const std::string& line : Lines(text)) {
    size_t eq = line.find(sep);
    if (eq == std::string::npos) continue;
    if (Lower(Trim(std::string_view(line).substr(0, eq))) != Lower(key)) continue;
    std::string v = Unquote(Trim(std::string_view(line).substr(eq + 1)));
    if (!v.empty()) return v;
  }
  return std::nullopt;
}

// Trace switches of dispatch kernels (seed 003): recorded with their values when set.
constexpr const char* kTraceSwitches[] = {"ASCEND_DEEPEP_DEBUG_CLOCK", "DEBUG_CLOCK_ON"};

// --- running tools: core/subprocess.h ----------------------------------------------------

using ToolRun = ProcessRun;

ToolRun RunTool(const std::string& exe, const std::vector<std::string>& args, std::chrono::milliseconds timeout,
                bool merge_stderr) {
  return RunProcess(exe, args, timeout, merge_stderr, kMaxToolOutput);
}

std::string Seconds(std::chrono::milliseconds ms) {
  return fmt::format("{:g} s", static_cast<double>(ms.count()) / 1000);
}

// git's options for reading a tree that came from elsewhere without running its code: `git
// status` runs the repository's core.fsmonitor command, its filter drivers' clean commands (for
// files whose stat changed) and, when it rewrites the index, hooks. Every configured filter driver
// is emptied (reading the configuration runs nothing), the monitor and hooks switched off, and the
// index left unwritten.
std::vector<std::string> SafeGitArgs(const std::string& git, const std::string& dir) {
  std::vector<std::string> args{"--no-optional-locks", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
                                "-c", "core.untrackedCache=false"};
  ToolRun filters = RunProcess(git, {"-C", dir, "config", "--get-regexp", "^filter\\."}, std::chrono::seconds(10),
                               false, kMaxToolOutput);
  std::set<std::string> names;
  for (const std::string& line : Lines(filters.output)) {
    std::string key = line.substr(0, line.find(' '));  // filter.<name>.<setting>
    size_t last = key.rfind('.');
    if (key.rfind("filter.", 0) != 0 || last == std::string::npos || last <= 7) continue;
    names.insert(key.substr(7, last - 7));
  }
  for (const std::string& n : names) {
    for (const char* setting : {"clean=", "smudge=", "process=", "required=false"}) {
      args.push_back("-c");
      args.push_back("filter." + n + "." + setting);
    }
  }
  args.push_back("-C");
  args.push_back(dir);
  return args;
}

// --- the probes ---------------------------------------------------------------------------

class Prober {
 public:
  explicit Prober(const EnvironmentOptions& opt, EnvironmentInfo& env) : opt_(opt), env_(env) {}

  void Found(std::string key, std::string label, std::string value, std::string from) {
    env_.items.push_back({std::move(key), std::move(label), std::move(value), std::move(from)});
  }
  void Missing(std::string key, std::string label, std::string looked_at) {
    env_.items.push_back({std::move(key), std::move(label), std::nullopt, std::move(looked_at)});
  }

  void Os() {
    std::string where = opt_.os_release.string();
    auto text = ReadSmallFile(opt_.os_release);
    std::optional<std::string> pretty = text ? KeyValue(*text, "PRETTY_NAME", '=') : std::nullopt;
    if (pretty) {
      Found("os.name", "OS", *pretty, where + " PRETTY_NAME");
    } else if (auto name = text ? KeyValue(*text, "NAME", '=') : std::nullopt) {
      auto version = KeyValue(*text, "VERSION", '=');
      Found("os.name", "OS", version ? *name + " " + *version : *name, where + " NAME, VERSION");
    } else {
      Missing("os.name", "OS", text ? where + " has no PRETTY_NAME or NAME" : "no " + where);
    }
    fs::path rel = opt_.proc_dir / "sys/kernel/osrelease";
    if (auto k = ReadSmallFile(rel); k && !Trim(*k).empty()) {
      Found("os.kernel", "kernel (uname -r)", Trim(*k), rel.string());
    } else if (utsname u{}; opt_.proc_dir == "/proc" && uname(&u) == 0) {
      Found("os.kernel", "kernel (uname -r)", u.release, "uname(2) release");
    } else {
      Missing("os.kernel", "kernel (uname -r)", "no " + rel.string());
    }
  }

  void Cpu() {
    fs::path p = opt_.proc_dir / "cpuinfo";
    auto text = ReadSmallFile(p);
    if (!text) {
      Missing("cpu.model", "CPU model", "no " + p.string());
      Missing("cpu.count", "logical CPUs", "no " + p.string());
      return;
    }
    int count = 0;
    std::optional<std::string> model, hardware, implementer, part;
    for (const std::string& line : Lines(*text)) {
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string key = Lower(Trim(std::string_view(line).substr(0, colon)));
      std::string value = Trim(std::string_view(line).substr(colon + 1));
      if (key == "processor") ++count;
      if (key == "model name" && !model) model = value;
      if (key == "hardware" && !hardware) hardware = value;
      if (key == "cpu implementer" && !implementer) implementer = value;
      if (key == "cpu part" && !part) part = value;
    }
    if (model) {
      Found("cpu.model", "CPU model", *model, p.string() + " model name");
    } else if (hardware) {
      Found("cpu.model", "CPU model", *hardware, p.string() + " Hardware");
    } else if (implementer) {  // arm64 (Kunpeng): no model name, only the implementer and part ids
      std::string v = fmt::format("CPU implementer {}{}, part {}", *implementer,
                                  Lower(*implementer) == "0x48" ? " (HiSilicon)" : "", part.value_or("?"));
      Found("cpu.model", "CPU model", v, p.string() + " CPU implementer, CPU part");
    } else {
      Missing("cpu.model", "CPU model", p.string() + " has no model name, Hardware or CPU implementer");
    }
    if (count > 0) {
      Found("cpu.count", "logical CPUs", std::to_string(count), p.string() + " processor entries");
    } else {
      Missing("cpu.count", "logical CPUs", p.string() + " has no processor entries");
    }
  }

  void NpuSmi() {
    auto exe = FindOnPath("npu-smi", opt_.path);
    if (!exe) {
      Missing("npu_smi.path", "npu-smi", "npu-smi not on PATH");
      Missing("npu.model", "NPU model", "npu-smi not on PATH");
      Missing("npu_smi.version", "npu-smi Version line", "npu-smi not on PATH");
      return;
    }
    Found("npu_smi.path", "npu-smi", *exe, "PATH");
    ToolRun r = RunTool(*exe, {"info"}, opt_.tool_timeout, true);
    std::string cmd = "`" + *exe + " info`";
    if (r.timed_out || r.output.empty()) {
      std::string why = r.timed_out ? "no answer within " + Seconds(opt_.tool_timeout)
                                    : fmt::format("printed nothing (exit {})", r.exit_code);
      Missing("npu.model", "NPU model", cmd + " " + why);
      Missing("npu_smi.version", "npu-smi Version line", cmd + " " + why);
      return;
    }
    NpuSmiInfo info = ParseNpuSmiInfo(r.output);
    if (!info.names.empty()) {
      Found("npu.model", "NPU model",
            fmt::format("{} ({} NPU{})", fmt::join(info.names, ", "), info.npu_count, info.npu_count == 1 ? "" : "s"),
            cmd + " device table");
    } else {
      Missing("npu.model", "NPU model", cmd + fmt::format(" printed no device table (exit {})", r.exit_code));
    }
    if (info.version) {
      Found("npu_smi.version", "npu-smi Version line", *info.version, cmd + " header \"Version:\"");
    } else {
      Missing("npu_smi.version", "npu-smi Version line", cmd + " printed no \"Version:\"");
    }
  }

  void Cann() {
    std::vector<std::string> looked;
    for (const fs::path& root : opt_.toolkit_roots) {
      std::error_code ec;
      if (!fs::is_directory(root, ec)) {
        looked.push_back(root.string() + " (absent)");
        continue;
      }
      looked.push_back(root.string());
      std::vector<fs::path> infos{root / "ascend_toolkit_install.info"};
      std::vector<fs::path> arch_dirs;
      for (const auto& e : fs::directory_iterator(root, ec)) {
        std::string n = e.path().filename().string();
        if (n.size() > 6 && n.ends_with("-linux")) arch_dirs.push_back(e.path() / "ascend_toolkit_install.info");
      }
      std::sort(arch_dirs.begin(), arch_dirs.end());
      infos.insert(infos.end(), arch_dirs.begin(), arch_dirs.end());
      for (const fs::path& f : infos) {
        if (auto t = ReadSmallFile(f)) {
          if (auto v = KeyValue(*t, "version", '='))
            return Found("cann.version", "CANN toolkit version", *v, f.string() + " version=");
        }
      }
      if (auto t = ReadSmallFile(root / "version.cfg")) {  // key names vary by release: any *version*
        for (const std::string& line : Lines(*t)) {
          size_t eq = line.find('=');
          if (eq == std::string::npos || Lower(line.substr(0, eq)).find("version") == std::string::npos) continue;
          std::string v = Trim(std::string_view(line).substr(eq + 1));
          if (v.size() >= 2 && v.front() == '[' && v.back() == ']') v = v.substr(1, v.size() - 2);
          if (!v.empty()) {
            return Found("cann.version", "CANN toolkit version", v,
                         (root / "version.cfg").string() + " " + Trim(line.substr(0, eq)) + "=");
          }
        }
      }
      for (const fs::path& f : {root / "version.info", root / "compiler/version.info"}) {
        if (auto t = ReadSmallFile(f)) {
          if (auto v = KeyValue(*t, "Version", '='))
            return Found("cann.version", "CANN toolkit version", *v, f.string() + " Version=");
        }
      }
    }
    Missing("cann.version", "CANN toolkit version",
            looked.empty() ? std::string("no toolkit root ($ASCEND_HOME_PATH, $ASCEND_TOOLKIT_HOME unset)")
                           : fmt::format("no ascend_toolkit_install.info, version.cfg or version.info under {}",
                                         fmt::join(looked, ", ")));
  }

  void VersionInfo(std::string key, std::string label, const fs::path& dir) {
    fs::path f = dir / "version.info";
    auto t = ReadSmallFile(f);
    if (auto v = t ? KeyValue(*t, "Version", '=') : std::nullopt) {
      Found(std::move(key), std::move(label), *v, f.string() + " Version=");
    } else {
      Missing(std::move(key), std::move(label), t ? f.string() + " has no Version=" : "no " + f.string());
    }
  }

  void ProfilerEntry(std::string_view tool) {
    std::string k(tool);
    auto exe = FindOnPath(tool, opt_.path);
    if (!exe) {
      Missing(k + ".path", k + " entry", k + " not on PATH");
      Missing(k + ".help", k + " --help (first lines)", k + " not on PATH");
      return;
    }
    Found(k + ".path", k + " entry", *exe, "PATH");
    ToolRun r = RunTool(*exe, {"--help"}, opt_.tool_timeout, true);
    std::string cmd = "`" + k + " --help`";
    std::vector<std::string> head;
    for (const std::string& line : Lines(r.output)) {
      std::string t = Trim(line);
      if (!t.empty() && static_cast<int>(head.size()) < opt_.help_lines) head.push_back(t);
    }
    if (!head.empty()) {
      Found(k + ".help", k + " --help (first lines)", fmt::format("{}", fmt::join(head, " / ")),
            r.timed_out ? cmd + " (cut at the " + Seconds(opt_.tool_timeout) + " timeout)" : cmd);
    } else {
      Missing(k + ".help", k + " --help (first lines)",
              cmd + (r.timed_out ? " gave no answer within " + Seconds(opt_.tool_timeout)
                                 : fmt::format(" printed nothing (exit {})", r.exit_code)));
    }
  }

  // `msprof op --help`: the operator profiler behind msprof (CANN 8.x); msopprof is the older entry.
  void MsprofOp() {
    auto exe = FindOnPath("msprof", opt_.path);
    if (!exe) {
      Missing("msprof_op.help", "msprof op --help (first lines)", "msprof not on PATH");
      return;
    }
    ToolRun r = RunTool(*exe, {"op", "--help"}, opt_.tool_timeout, true);
    std::vector<std::string> head;
    for (const std::string& line : Lines(r.output)) {
      std::string t = Trim(line);
      if (!t.empty() && static_cast<int>(head.size()) < opt_.help_lines) head.push_back(t);
    }
    if (!head.empty())
      Found("msprof_op.help", "msprof op --help (first lines)", fmt::format("{}", fmt::join(head, " / ")),
            "`msprof op --help`");
    else
      Missing("msprof_op.help", "msprof op --help (first lines)",
              r.timed_out ? "`msprof op --help` gave no answer within " + Seconds(opt_.tool_timeout)
                          : fmt::format("`msprof op --help` printed nothing (exit {})", r.exit_code));
  }

  // torch and torch_npu as the job's Python imports them (seed 003's `python -c 'import torch,
  // torch_npu; ...'`), each alone so a missing torch_npu does not hide torch.
  void PythonPackages() {
    auto exe = FindOnPath("python3", opt_.path);
    if (!exe) exe = FindOnPath("python", opt_.path);
    if (!exe) {
      Missing("python.torch", "torch version", "python3 not on PATH");
      Missing("python.torch_npu", "torch_npu version", "python3 not on PATH");
      return;
    }
    const std::string code =
        "import importlib\n"
        "for m in ('torch', 'torch_npu'):\n"
        "    try:\n"
        "        print(m, importlib.import_module(m).__version__)\n"
        "    except Exception as e:\n"
        "        print(m, '-', type(e).__name__)\n";
    // Importing torch takes seconds: four times the tool timeout.
    ToolRun r = RunTool(*exe, {"-c", code}, opt_.tool_timeout * 4, false);
    std::map<std::string, std::string> got;
    for (const std::string& line : Lines(r.output)) {
      std::string t = Trim(line);
      size_t sp = t.find(' ');
      if (sp != std::string::npos) got[t.substr(0, sp)] = Trim(std::string_view(t).substr(sp + 1));
    }
    for (const char* m : {"torch", "torch_npu"}) {
      std::string key = std::string("python.") + m, label = std::string(m) + " version";
      auto it = got.find(m);
      if (it != got.end() && it->second.rfind("- ", 0) != 0)
        Found(key, label, it->second, *exe + " -c 'import " + m + "'");
      else if (it != got.end())
        Missing(key, label, *exe + ": import " + m + " failed (" + it->second.substr(2) + ")");
      else
        Missing(key, label,
                r.timed_out ? *exe + " gave no answer within " + Seconds(opt_.tool_timeout * 4)
                            : fmt::format("{} printed no version (exit {})", *exe, r.exit_code));
    }
  }

  void Switches() {
    for (const char* name : kTraceSwitches) {
      auto it = opt_.switches.find(name);
      if (it != opt_.switches.end())
        Found(std::string("switch.") + name, std::string(name) + " (trace switch)", it->second, "the environment");
      else
        Missing(std::string("switch.") + name, std::string(name) + " (trace switch)", "not set in the environment");
    }
  }

  void Source() {
    if (opt_.source_dir.empty()) {
      Missing("source.commit", "source commit", "no --source given");
      Missing("source.dirty", "source working tree", "no --source given");
      return;
    }
    std::string dir = opt_.source_dir.string();
    auto git = FindOnPath("git", opt_.path);
    if (!git) {
      Missing("source.commit", "source commit", "git not on PATH");
      Missing("source.dirty", "source working tree", "git not on PATH");
      return;
    }
    const std::vector<std::string> safe = SafeGitArgs(*git, dir);
    auto with = [&](std::vector<std::string> tail) {
      std::vector<std::string> args = safe;
      args.insert(args.end(), tail.begin(), tail.end());
      return args;
    };
    ToolRun head = RunTool(*git, with({"rev-parse", "HEAD"}), opt_.tool_timeout, false);
    std::string sha = Trim(head.output);
    if (head.exit_code == 0 && !sha.empty()) {
      Found("source.commit", "source commit", sha, "git rev-parse HEAD in " + dir);
    } else {
      Missing("source.commit", "source commit",
              fmt::format("git rev-parse HEAD in {} failed (exit {}): not a git repository?", dir, head.exit_code));
    }
    ToolRun st = RunTool(*git, with({"status", "--porcelain"}), opt_.tool_timeout, false);
    if (st.exit_code != 0) {
      Missing("source.dirty", "source working tree",
              fmt::format("git status --porcelain in {} failed (exit {})", dir, st.exit_code));
      return;
    }
    std::vector<std::string> changed;
    for (const std::string& line : Lines(st.output)) {
      if (!Trim(line).empty()) changed.push_back(Trim(line));
    }
    std::string value = "clean";
    if (!changed.empty()) {
      constexpr size_t kShown = 5;
      std::vector<std::string> shown(changed.begin(), changed.begin() + std::min(changed.size(), kShown));
      value = fmt::format("dirty: {} changed path{} ({}{})", changed.size(), changed.size() == 1 ? "" : "s",
                          fmt::join(shown, "; "), changed.size() > kShown ? "; ..." : "");
    }
    Found("source.dirty", "source working tree", value, "git status --porcelain in " + dir);
  }

  Status Compile() {
    std::optional<CompileFlags> cf;
    std::string from;
    if (!opt_.compile_commands.empty()) {
      OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(opt_.compile_commands));
      OPTRACE_ASSIGN_OR_RETURN(cf, CompileFlagsFromCompileCommands(text, opt_.compile_commands.string()));
      from = opt_.compile_commands.string();
    } else if (!opt_.build_log.empty()) {
      OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(opt_.build_log));
      cf = CompileFlagsFromBuildLog(text);
      from = opt_.build_log.string() + " (compiler command lines)";
    }
    if (!cf) {
      Missing("compile.compiler", "compiler", "no --compile-commands or --build-log given");
      Missing("compile.flags", "compile flags (-O, -g, -D, --cce-soc-version)",
              "no --compile-commands or --build-log given");
      return Status::Ok();
    }
    if (cf->compilers.empty()) {
      Missing("compile.compiler", "compiler", from + " names no compiler");
    } else {
      Found("compile.compiler", "compiler", fmt::format("{}", fmt::join(cf->compilers, ", ")), from);
    }
    if (cf->flags.empty()) {
      Missing("compile.flags", "compile flags (-O, -g, -D, --cce-soc-version)", from + " has none of these flags");
    } else {
      Found("compile.flags", "compile flags (-O, -g, -D, --cce-soc-version)",
            fmt::format("{}", fmt::join(cf->flags, " ")), from);
    }
    return Status::Ok();
  }

 private:
  const EnvironmentOptions& opt_;
  EnvironmentInfo& env_;
};

std::string UtcNow() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

EnvironmentOptions DefaultEnvironmentOptions() {
  EnvironmentOptions opt;
  if (const char* p = std::getenv("PATH")) opt.path = p;
  for (const char* name : kTraceSwitches)
    if (const char* v = std::getenv(name)) opt.switches[name] = v;
  for (const char* var : {"ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"}) {
    if (const char* v = std::getenv(var); v && *v) opt.toolkit_roots.emplace_back(v);
  }
  for (const char* d : {"/usr/local/Ascend/ascend-toolkit/latest", "/usr/local/Ascend/cann"}) {
    if (std::find(opt.toolkit_roots.begin(), opt.toolkit_roots.end(), fs::path(d)) == opt.toolkit_roots.end()) {
      opt.toolkit_roots.emplace_back(d);
    }
  }
  return opt;
}

Result<EnvironmentInfo> ProbeEnvironment(const EnvironmentOptions& opt) {
  EnvironmentInfo env;
  env.probed_at = UtcNow();
  if (!opt.fields_file.empty()) {
    OPTRACE_ASSIGN_OR_RETURN(std::string text, ReadFileToString(opt.fields_file));
    OPTRACE_ASSIGN_OR_RETURN(env.fields, ParseFields(text, opt.fields_file.string()));
    env.fields_from = opt.fields_file.string();
  }
  if (!opt.source_dir.empty()) {
    std::error_code ec;
    if (!fs::is_directory(opt.source_dir, ec)) {
      return NotFoundError("{}: --source is not a directory", opt.source_dir.string());
    }
  }
  Prober p(opt, env);
  OPTRACE_RETURN_IF_ERROR(p.Compile());  // the user's files fail first, before any tool runs
  std::vector<EnvItem> compile = std::move(env.items);
  env.items.clear();
  p.Os();
  p.Cpu();
  p.NpuSmi();
  p.Cann();
  p.VersionInfo("driver.version", "driver version", opt.driver_dir);
  p.VersionInfo("firmware.version", "firmware version", opt.firmware_dir);
  p.ProfilerEntry("msprof");
  p.ProfilerEntry("msopprof");
  p.MsprofOp();
  p.PythonPackages();
  p.Switches();
  p.Source();
  env.items.insert(env.items.end(), compile.begin(), compile.end());
  return env;
}

}  // namespace optrace::evidence
